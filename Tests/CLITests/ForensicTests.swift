import Foundation
import GstTestSupport
import Testing

/// The invisible forensic mark end to end: copies exported with `--forensic-id`, attacked with
/// ffmpeg (re-encoding, scaling, cropping, a new frame rate), read back by `detect`; unmarked
/// copies and other keys find nothing; a batch's copies are traced to their rows.
@Suite(.serialized) struct ForensicTests {
    static let dir: String = {
        let d = TestEnv.path("forensic")
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()
    static let key = "test key: a secret"
    /// The first 64 bits of SHA-256("alice@example.com"), the id that text stands for.
    static let alice = "ff8d9819fc0e12bf"

    /// Moving test pictures with noise, 1920×1080 (the size the mark is tuned for: its chips are 8 pixels there), 30 fps, 2 s, lossless (detection needs ~20 frames).
    static let source: String = {
        let path = dir + "/source.mkv"
        let (status, log) = TestEnv.run([
            "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
            "testsrc2=s=1920x1080:r=30:d=2,noise=alls=10:allf=t", "-pix_fmt", "yuv420p", "-c:v", "ffv1", path,
        ])
        #expect(status == 0, "\(log)")
        return path
    }()

    static func attack(_ input: String, _ output: String, _ args: [String]) {
        let (status, log) = TestEnv.run(
            ["ffmpeg", "-v", "error", "-y", "-i", input, "-c:v", "libx264", "-preset", "ultrafast", "-crf", "23"]
                + args + ["-pix_fmt", "yuv420p", "-an", dir + "/" + output])
        #expect(status == 0, "\(output): \(log)")
    }

    static func detect(_ file: String, key: String = key, extra: [String] = []) throws -> (Int32, String) {
        try CLI.run(["detect", dir + "/" + file, "--forensic-key", key] + extra)
    }

    @Test func markSurvivesReencodingScalingCroppingAndANewFrameRate() throws {
        let keyFile = TestEnv.write("forensic-key.txt", Self.key + "\n")
        let (status, log) = try CLI.run([
            "export", Self.source, Self.dir + "/marked.mp4", "--forensic-id", "alice@example.com",
            "--forensic-key-file", keyFile,
        ])
        #expect(status == 0, "\(log)")
        let attacks: [(String, [String])] = [
            ("crf28.mp4", ["-crf", "28"]),
            ("h265.mp4", ["-c:v", "libx265", "-x265-params", "crf=28:log-level=error"]),
            ("scaled.mp4", ["-vf", "scale=854:480"]),
            ("fps25.mp4", ["-vf", "fps=25"]),
            ("cropped.mp4", ["-vf", "crop=iw*0.9:ih*0.9:iw*0.05:ih*0.05"]),
            ("darker.mp4", ["-vf", "eq=brightness=-0.1:contrast=0.9"]),
            ("all.mp4", ["-vf", "crop=iw*0.94:ih*0.94:iw*0.03:ih*0.03,scale=1280:720,fps=25", "-crf", "28"]),
        ]
        for (name, args) in attacks {
            Self.attack(Self.dir + "/marked.mp4", name, args)
            let (found, out) = try Self.detect(name)
            #expect(found == 0 && out.contains("forensic-id: \(Self.alice)"), "\(name): \(out)")
        }
        // The JSON verdict, the same key from the command line.
        let (status2, json) = try Self.detect("all.mp4", extra: ["--json"])
        #expect(status2 == 0, "\(json)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8.filter { $0 != 0 })) as? [String: Any], "\(json)")
        #expect(object["forensic-id"] as? String == Self.alice, "\(json)")
        #expect((object["frames"] as? Int ?? 0) > 0 && (object["score"] as? Double ?? 0) >= 6, "\(json)")
    }

    @Test func unmarkedCopiesAndOtherKeysFindNothing() throws {
        let (s1, l1) = try CLI.run(["export", Self.source, Self.dir + "/plain.mp4"])
        #expect(s1 == 0, "\(l1)")
        let (unmarked, out) = try Self.detect("plain.mp4")
        #expect(unmarked == 1 && out.contains("no forensic mark found"), "\(out)")
        let (s2, l2) = try CLI.run([
            "export", Self.source, Self.dir + "/other.mp4", "--forensic-id", "0x00000000000000FF", "--forensic-key",
            Self.key,
        ])
        #expect(s2 == 0, "\(l2)")
        let (wrongKey, out2) = try Self.detect("other.mp4", key: "another key")
        #expect(wrongKey == 1 && out2.contains("no forensic mark found"), "\(out2)")
        let (json, out3) = try Self.detect("other.mp4", key: "another key", extra: ["--json"])
        #expect(json == 1 && out3.contains("\"forensic-id\":null"), "\(out3)")
        let (rightKey, out4) = try Self.detect("other.mp4")
        #expect(rightKey == 0 && out4.contains("forensic-id: 00000000000000ff"), "\(out4)")
    }

    @Test func bundledClipIsTracedAfterReencoding() throws {
        let (status, log) = try CLI.run([
            "export", TestEnv.fixture("gopro/karma.mp4"), Self.dir + "/karma.mp4", "--forensic-id",
            "0123456789abcdef", "--forensic-key", Self.key,
        ])
        #expect(status == 0, "\(log)")
        Self.attack(
            Self.dir + "/karma.mp4", "karma-attacked.mp4",
            ["-t", "3", "-vf", "crop=iw*0.9:ih*0.9:iw*0.05:ih*0.05", "-crf", "28"])
        let (found, out) = try Self.detect("karma-attacked.mp4")
        #expect(found == 0 && out.contains("forensic-id: 0123456789abcdef"), "\(out)")
    }

    @Test func badForensicOptionsAreUsageErrors() throws {
        let output = Self.dir + "/never.mp4"
        let (noKey, log) = try CLI.run(["export", "--test-source", "--forensic-id", "bob", output])
        #expect(noKey == 2 && log.contains("--forensic-id needs --forensic-key"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let (unreadable, log2) = try CLI.run(["detect", Self.dir + "/missing.mp4", "--forensic-key", "k"])
        #expect(unreadable == 2 && log2.contains("missing.mp4"), "\(log2)")
        let (noDetectKey, log3) = try CLI.run(["detect", Self.source])
        #expect(noDetectKey == 2 && log3.contains("--forensic-key"), "\(log3)")
        // The element itself: an id that is not 16 hexadecimal digits fails at start, naming it.
        let run = Pipeline.run(
            "videotestsrc num-buffers=2 ! watermark forensic-id=alice forensic-key=k ! fakesink")
        #expect(!run.ok && run.errors.contains { $0.message.contains("forensic-id \"alice\"") }, "\(run.errors)")
        let noKeyRun = Pipeline.run("videotestsrc num-buffers=2 ! watermark forensic-id=0123456789abcdef ! fakesink")
        #expect(!noKeyRun.ok && noKeyRun.errors.contains { $0.message.contains("forensic-key") }, "\(noKeyRun.errors)")
    }

    @Test func batchCopiesAreTracedToTheirRows() throws {
        let dir = Self.dir + "/batch"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let (cut, log) = TestEnv.run([
            "ffmpeg", "-v", "error", "-y", "-i", Self.source, "-t", "1.5", "-c:v", "ffv1", dir + "/talk.mkv",
        ])
        #expect(cut == 0, "\(log)")
        try """
        input,output,forensic-id
        talk.mkv,talk-alice.mp4,alice@example.com
        talk.mkv,talk-bob.mp4,bob@example.com
        talk.mkv,talk-carol.mp4,carol@example.com
        """.write(toFile: dir + "/recipients.csv", atomically: true, encoding: .utf8)
        let (status, out) = try CLI.run([
            "batch", "--manifest", dir + "/recipients.csv", "--output-dir", dir, "--forensic-key", Self.key,
        ])
        #expect(status == 0, "\(out)")
        for name in ["alice", "bob", "carol"] {
            Self.attack(
                dir + "/talk-\(name).mp4", "batch/leak-\(name).mp4",
                ["-vf", "crop=iw*0.94:ih*0.94:iw*0.03:ih*0.03,scale=1280:720", "-crf", "28"])
            let (found, text) = try Self.detect(
                "batch/leak-\(name).mp4", extra: ["--candidates", dir + "/recipients.csv"])
            #expect(found == 0 && text.contains("candidate: talk-\(name).mp4 \(name)@example.com"), "\(name): \(text)")
        }
    }
}
