// Test helpers that need nothing but Foundation: the repository root, a scratch folder,
// running processes, a repeatable random sequence. Every test target may use them,
// including the model and blend tests, which build without GStreamer headers.

import Foundation

/// Files and processes for tests.
package enum TestEnv {
    /// A scratch directory for files made by tests.
    package static let tmp: String = {
        let dir = NSTemporaryDirectory() + "gst-watermark-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }()

    package static func path(_ name: String) -> String { tmp + "/" + name }

    /// The repository root (for bundled assets).
    package static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// A sample file under Tests/Fixtures (real camera recordings and payloads; their
    /// README says where each comes from and under which licence).
    package static func fixture(_ name: String) -> String {
        root + "/Tests/Fixtures/" + name
    }

    package static func write(_ name: String, _ contents: String) -> String {
        let p = path(name)
        FileManager.default.createFile(atPath: p, contents: Data(contents.utf8))
        return p
    }

    /// Starts a process in the background with its output discarded; `environment` is
    /// added to this process's.
    package static func spawn(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> Process
    {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Runs a command and returns (exit status, stdout + stderr).
    package static func run(_ argv: [String], environment: [String: String] = [:]) -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = argv
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        do { try p.run() } catch { return (-1, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs `script` with `sh` as on a machine without the library `soname`: in a private mount
    /// namespace where the file it resolves to is an empty one. Nil where this machine cannot
    /// make the namespace (no `unshare` rights) or has no such library.
    package static func runWithout(library soname: String, _ script: String, environment: [String: String] = [:])
        -> (Int32, String)?
    {
        guard run(["unshare", "-m", "true"]).0 == 0,
            let library = ["/usr/lib/x86_64-linux-gnu/", "/usr/lib/aarch64-linux-gnu/"].map({ $0 + soname }).first(
                where: { FileManager.default.fileExists(atPath: $0) })
        else { return nil }
        let real = URL(fileURLWithPath: library).resolvingSymlinksInPath().path
        let empty = write("empty-\(soname)", "")
        let (rc, log) = run(
            ["unshare", "-m", "sh", "-c", "mount --bind \(empty) \(real) || exit 77\n" + script],
            environment: environment)
        return rc == 77 ? nil : (rc, log)
    }
}

/// A repeatable pseudo-random sequence (64-bit LCG) for property tests.
package struct TestRandom {
    var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// A number in 0 ..< max(1, n).
    package mutating func next(_ n: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(max(1, n)))
    }
}

/// The gst-watermark tool, run as a user would, its outputs read back with real readers.
package enum CLI {
    package static let binary: String? = {
        var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.isExecutableFile(atPath: dir.path + "/gst-watermark") {
                return dir.path + "/gst-watermark"
            }
            dir.deleteLastPathComponent()
        }
        return nil
    }()

    package static func run(_ args: [String]) throws -> (Int32, String) {
        guard let bin = binary else { throw NotBuilt() }
        return TestEnv.run([bin] + args)
    }
}

/// The CLI was not found next to the test bundle.
package struct NotBuilt: Error, CustomStringConvertible {
    package var description: String { "gst-watermark not built next to the tests: run `swift build` first" }
}
