import CGStreamer
import Foundation
import GstTestSupport
import Testing

/// `gst-watermark batch` run as users run it: real inputs, real outputs read back, real
/// signals, concurrent processes and GNU parallel.
@Suite(.serialized) struct BatchTests {
    static let rows = 12

    /// A folder with `count` short black clips (`clip01.mp4` …) made now, and a manifest
    /// giving each row its own text: row k has k+1 "W"s, so its caption's width grows with k.
    static func fixture(_ name: String, count: Int = rows, frames: Int = 15, size: String = "320x240") throws -> String
    {
        let dir = TestEnv.path(name)
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let parts = size.split(separator: "x")
        var csv = "input,text,student_id\n"
        for k in 0..<count {
            let clip = String(format: "clip%02d.mp4", k + 1)
            let run = Pipeline.run(
                """
                videotestsrc num-buffers=\(frames) pattern=black ! video/x-raw,width=\(parts[0]),height=\(parts[1]),framerate=30/1 ! \
                x264enc speed-preset=ultrafast ! mp4mux ! filesink location=\(dir)/in/\(clip)
                """)
            #expect(run.ok, "\(run.errors)")
            csv += "in/\(clip),\(String(repeating: "W", count: k + 1)),s\(k + 1)\n"
        }
        try csv.write(toFile: dir + "/manifest.csv", atomically: true, encoding: .utf8)
        return dir
    }

    /// Report lines as dictionaries.
    static func report(_ path: String) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func outputs(_ report: [[String: Any]], status: String) -> [String] {
        report.filter { $0["status"] as? String == status }.compactMap { $0["output"] as? String }
    }

    /// Every file in `dir`, hidden ones too.
    static func listing(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    static func expected(_ dir: String, count: Int = rows, names: String = "clip%02d-s%d.mp4") -> [String] {
        (1...count).map { String(format: names, $0, $0) }
    }

    static let common = [
        "--output", "{stem}-{student_id}.mp4", "--anchor", "top-left", "--text-size", "0.1", "--color", "white",
    ]

    /// Rightmost column of caption ink in a decoded frame's top band.
    static func captionRightEdge(_ file: String) throws -> Int {
        let png = file + ".png"
        let run = Pipeline.run(
            """
            filesrc location=\(file) ! qtdemux ! h264parse ! avdec_h264 ! videoconvert ! video/x-raw,format=RGB ! \
            pngenc snapshot=true ! filesink location=\(png)
            """)
        #expect(run.ok, "\(run.errors)")
        let f = try #require(PNGPixels(path: png))
        var right = -1
        for y in 0..<60 {
            for x in 0..<f.width where f.pixel(x, y).g > 160 { right = max(right, x) }
        }
        return right
    }

    @Test func manifestRowsEachGetTheirOwnTextOnce() throws {
        let dir = try Self.fixture("batch-rows")
        let (status, log) = try CLI.run(
            ["batch", "--manifest", dir + "/manifest.csv", "--output-dir", dir + "/out", "--report", dir + "/r.jsonl"]
                + Self.common)
        #expect(status == 0, "\(log)")
        #expect(log.contains("12 done, 0 failed, 0 skipped"), "\(log)")
        // Exactly the outputs: nothing temporary or locked left beside them.
        #expect(Self.listing(dir + "/out") == Self.expected(dir), "\(Self.listing(dir + "/out"))")
        let report = Self.report(dir + "/r.jsonl")
        #expect(report.count == Self.rows)
        var edges: [Int] = []
        for (k, name) in Self.expected(dir).enumerated() {
            let file = dir + "/out/" + name
            let count = try #require(MediaCount.of(file))
            #expect(count.videoFrames == 15, "\(name)")
            #expect(count.width == 320 && count.height == 240)
            let line = report.first { $0["output"] as? String == file }
            #expect(line?["frames"] as? Int == 15, "\(String(describing: line))")
            #expect((line?["bytes"] as? Int ?? 0) > 1000)
            #expect(line?["index"] as? Int == k + 1)
            edges.append(try Self.captionRightEdge(file))
        }
        // Row k's caption is k+1 letters: each one longer than the one before.
        for k in 1..<edges.count { #expect(edges[k] > edges[k - 1] + 5, "caption edges \(edges)") }

        // A rerun has nothing to do.
        let (again, log2) = try CLI.run(
            ["batch", "--manifest", dir + "/manifest.csv", "--output-dir", dir + "/out"] + Self.common)
        #expect(again == 0)
        #expect(log2.contains("0 done, 0 failed, 12 skipped"), "\(log2)")
    }

    @Test func aKilledBatchResumesWithoutRepeatingWorkOrLeavingPartFiles() throws {
        let dir = try Self.fixture("batch-kill", frames: 90, size: "640x360")
        let first = dir + "/first.jsonl"
        let p = try TestEnv.spawn(
            try #require(CLI.binary),
            [
                "batch", "--manifest", dir + "/manifest.csv", "--output-dir", dir + "/out", "--jobs", "1", "--report",
                first,
            ]
                + Self.common)
        let deadline = Date().addingTimeInterval(120)
        while Self.outputs(Self.report(first), status: "done").count < 3 && Date() < deadline && p.isRunning {
            usleep(20_000)
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let doneFirst = Set(Self.outputs(Self.report(first), status: "done"))
        #expect(doneFirst.count >= 3 && doneFirst.count < Self.rows, "\(doneFirst)")
        let (status, log) = try CLI.run(
            [
                "batch", "--manifest", dir + "/manifest.csv", "--output-dir", dir + "/out", "--report",
                dir + "/second.jsonl",
            ]
                + Self.common)
        #expect(status == 0, "\(log)")
        let second = Self.report(dir + "/second.jsonl")
        let doneSecond = Set(Self.outputs(second, status: "done"))
        #expect(doneFirst.isDisjoint(with: doneSecond), "exported twice: \(doneFirst.intersection(doneSecond))")
        #expect(Set(Self.outputs(second, status: "skipped")) == doneFirst)
        #expect(doneFirst.count + doneSecond.count == Self.rows)
        // The killed file's temporary and lock files are gone; every output is whole.
        #expect(Self.listing(dir + "/out") == Self.expected(dir), "\(Self.listing(dir + "/out"))")
        for name in Self.expected(dir) { #expect(MediaCount.of(dir + "/out/" + name)?.videoFrames == 90, "\(name)") }
    }

    @Test func sigtermAbandonsRunningFilesCleanly() throws {
        let dir = try Self.fixture("batch-term", count: 4, frames: 150, size: "640x360")
        let p = try TestEnv.spawn(
            try #require(CLI.binary),
            [
                "batch", "--manifest", dir + "/manifest.csv", "--output-dir", dir + "/out", "--jobs", "2", "--report",
                dir + "/r.jsonl",
            ]
                + Self.common)
        // Wait until both files are being written.
        let deadline = Date().addingTimeInterval(60)
        while Self.listing(dir + "/out").filter({ $0.hasSuffix(".partial.mp4") }).count < 2 && Date() < deadline {
            usleep(10_000)
        }
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130)
        let report = Self.report(dir + "/r.jsonl")
        #expect(Self.outputs(report, status: "interrupted").count >= 1, "\(report)")
        // Only finished outputs remain: no temporary files, no locks.
        for name in Self.listing(dir + "/out") {
            #expect(!name.hasPrefix("."), "left behind: \(name)")
            #expect(MediaCount.of(dir + "/out/" + name)?.videoFrames == 150, "\(name)")
        }
    }

    @Test func twoShardsTogetherExportEachRowOnce() throws {
        let dir = try Self.fixture("batch-shards")
        let args =
            ["batch", "--manifest", dir + "/manifest.csv", "--output-dir", dir + "/out", "--jobs", "1"] + Self.common
        let bin = try #require(CLI.binary)
        let a = try TestEnv.spawn(bin, args + ["--shard", "0/2", "--report", dir + "/a.jsonl"])
        let b = try TestEnv.spawn(bin, args + ["--shard", "1/2", "--report", dir + "/b.jsonl"])
        a.waitUntilExit()
        b.waitUntilExit()
        #expect(a.terminationStatus == 0 && b.terminationStatus == 0)
        let ra = Self.outputs(Self.report(dir + "/a.jsonl"), status: "done")
        let rb = Self.outputs(Self.report(dir + "/b.jsonl"), status: "done")
        #expect(ra.count == 6 && rb.count == 6)
        #expect(Set(ra).isDisjoint(with: rb))
        #expect(Self.listing(dir + "/out") == Self.expected(dir))
    }

    /// Two processes given the same rows (overlapping shards): each output is written by
    /// one of them, the other skips it, and no file is corrupt.
    @Test func overlappingProcessesNeverWriteOneOutputTwice() throws {
        let dir = try Self.fixture("batch-overlap", frames: 45)
        let args =
            ["batch", "--manifest", dir + "/manifest.csv", "--output-dir", dir + "/out", "--jobs", "2"] + Self.common
        let bin = try #require(CLI.binary)
        let a = try TestEnv.spawn(bin, args + ["--report", dir + "/a.jsonl"])
        let b = try TestEnv.spawn(bin, args + ["--report", dir + "/b.jsonl"])
        a.waitUntilExit()
        b.waitUntilExit()
        #expect(a.terminationStatus == 0 && b.terminationStatus == 0)
        let done =
            Self.outputs(Self.report(dir + "/a.jsonl"), status: "done")
            + Self.outputs(Self.report(dir + "/b.jsonl"), status: "done")
        #expect(done.count == Self.rows, "\(done)")
        #expect(Set(done).count == Self.rows)
        #expect(Self.listing(dir + "/out") == Self.expected(dir))
        for name in Self.expected(dir) { #expect(MediaCount.of(dir + "/out/" + name)?.videoFrames == 45, "\(name)") }
    }

    @Test func gnuParallelRunsTheShards() throws {
        let dir = try Self.fixture("batch-parallel")
        let bin = try #require(CLI.binary)
        // examples/batch/parallel.sh, on this machine only (its host list ":"), with the
        // manifest's own names (a student_id column nothing uses would be refused).
        let plain = try String(contentsOfFile: dir + "/manifest.csv", encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: ",").prefix(2).joined(separator: ",") }
        try (plain.joined(separator: "\n") + "\n").write(toFile: dir + "/plain.csv", atomically: true, encoding: .utf8)
        let binDir = URL(fileURLWithPath: bin).deletingLastPathComponent().path
        let (status, log) = TestEnv.run(
            ["bash", TestEnv.root + "/examples/batch/parallel.sh", dir + "/plain.csv", dir + "/out", "3"],
            environment: ["PATH": binDir + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")])
        #expect(status == 0, "\(log)")
        #expect(
            Self.listing(dir + "/out").filter { !$0.hasPrefix("report-") } == Self.expected(dir, names: "clip%02d.mp4"))
        let done = (0..<3).flatMap { Self.outputs(Self.report(dir + "/out/report-\($0).jsonl"), status: "done") }
        #expect(done.count == Self.rows && Set(done).count == Self.rows)

        // --shard auto reads the engine's variables: Kubernetes, Slurm, GNU parallel.
        for (env, extra, rows) in [
            (["JOB_COMPLETION_INDEX": "2"], ["--shard-count", "3"], [3, 6, 9, 12]),
            (["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"], [], [1, 5, 9]),
            (["PARALLEL_SEQ": "2"], ["--shard-count", "5"], [2, 7, 12]),
        ] as [([String: String], [String], [Int])] {
            let (s, out) = TestEnv.run(
                [
                    bin, "batch", "--manifest", dir + "/manifest.csv", "--output-dir", dir + "/dry", "--shard", "auto",
                    "--print-pipeline",
                ] + extra + Self.common, environment: env)
            #expect(s == 0, "\(out)")
            let names = rows.map { String(format: "clip%02d-s\($0).mp4", $0) }
            let lines = out.split(separator: "\n").filter { $0.hasPrefix("gst-launch-1.0") }
            #expect(lines.count == rows.count, "\(env): \(out)")
            for (line, name) in zip(lines, names) { #expect(line.contains(name), "\(env): \(line)") }
        }
    }

    @Test func aCorruptInputFailsAloneAndTheExitStatusSaysSo() throws {
        let dir = try Self.fixture("batch-corrupt", count: 3)
        try Data(repeating: 0x42, count: 5000).write(to: URL(fileURLWithPath: dir + "/in/clip02.mp4"))
        let (status, log) = try CLI.run(
            ["batch", "--manifest", dir + "/manifest.csv", "--output-dir", dir + "/out", "--report", dir + "/r.jsonl"]
                + Self.common)
        #expect(status == 1)
        #expect(log.contains("2 done, 1 failed"), "\(log)")
        let failed = Self.report(dir + "/r.jsonl").filter { $0["status"] as? String == "failed" }
        #expect(failed.count == 1)
        #expect((failed.first?["error"] as? String ?? "").contains("clip02.mp4"), "\(failed)")
        #expect(Self.listing(dir + "/out") == ["clip01-s1.mp4", "clip03-s3.mp4"])
        // --fail-fast stops at the failure.
        let (ff, log2) = try CLI.run(
            ["batch", "--manifest", dir + "/manifest.csv", "--output-dir", dir + "/ff", "--jobs", "1", "--fail-fast"]
                + Self.common)
        #expect(ff == 1)
        #expect(log2.contains("1 done, 1 failed, 0 skipped, 1 not started"), "\(log2)")
    }

    @Test(arguments: [
        (
            "input,opacity\nin/clip01.mp4,0.5\nin/clip02.mp4,2.5\n",
            "m.csv:3: column \"opacity\": 2.5 is out of range 0…1"
        ),
        ("input,opactiy\nin/clip01.mp4,0.5\n", "m.csv:1: column \"opactiy\": unknown column"),
        ("file,text\nin/clip01.mp4,a\n", "m.csv:1: missing column \"input\""),
        ("input,output\nin/clip01.mp4,x.mp4\nin/clip02.mp4,./x.mp4\n", "m.csv:3: output ./x.mp4 is also the output of"),
        ("input,output\nin/clip01.mp4,in/clip01.mp4\n", "m.csv:2: output in/clip01.mp4 is the input"),
        ("input,output\nin/clip01.mp4,no/such/dir/x.mp4\n", "m.csv:2: cannot write to no/such/dir/"),
        ("input,output\nin/clip01.mp4,x.avi\n", "m.csv:2: column \"output\": x.avi: unknown container"),
        ("input,output\nin/clip01.mp4,{stem}-{who}.mp4\n", "m.csv:2: column \"output\": unknown placeholder {who}"),
        (
            "{\"input\": \"in/clip01.mp4\", \"text-size\": \"big\"}\n",
            "m.jsonl:1: column \"text-size\": \"big\" is not a number"
        ),
    ])
    func manifestErrorsArePositionedAndNothingRuns(manifest: String, message: String) throws {
        let dir = TestEnv.path("batch-errors")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        try Data(repeating: 0, count: 10).write(to: URL(fileURLWithPath: dir + "/in/clip01.mp4"))
        try Data(repeating: 0, count: 10).write(to: URL(fileURLWithPath: dir + "/in/clip02.mp4"))
        let name = manifest.hasPrefix("{") ? "m.jsonl" : "m.csv"
        try manifest.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        // Relative to the manifest's folder, as the message shows it.
        let (status, log) = TestEnv.run(
            ["sh", "-c", "cd '\(dir)' && '\(try #require(CLI.binary))' batch --manifest \(name) --output-dir out"])
        #expect(status == 2)
        let lines = log.split(separator: "\n")
        #expect(lines.count == 1, "\(log)")
        #expect(log.hasPrefix("gst-watermark: " + message), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/clip01.mp4"))
    }
}
