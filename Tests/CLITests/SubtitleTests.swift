import Foundation
import GstTestSupport
import Testing

/// Burned-in subtitles through the command line, measured against ffmpeg's own libass render
/// (`-vf subtitles`): an export in 4:2:0 and the element in BGRA; the input's own tracks
/// burned in (an MKV's ASS with its attached font, an MP4's timed text), a picture track
/// refused; the batch column; a bad file's one-line message.
@Suite(.serialized) struct SubtitleTests {
    static let dir: String = {
        let d = TestEnv.path("subtitles")
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()
    static let (width, height, fps, seconds) = (640, 360, 10, 5)
    static let ass = TestEnv.fixture("subtitles/signs.ass")
    /// Ten frames (at 10 fps) across the script's cues: signs, karaoke, a fade, a move.
    static let cueFrames = [3, 6, 11, 16, 20, 27, 30, 34, 39, 46]

    static func ffmpeg(_ args: [String]) {
        let (status, log) = TestEnv.run(["ffmpeg", "-v", "error", "-y"] + args)
        #expect(status == 0, "ffmpeg \(args): \(log)")
    }

    /// Raw frames of `pixfmt` made by ffmpeg's testsrc2 (the source both renders start from).
    static func source(_ pixfmt: String) -> String {
        let path = dir + "/source.\(pixfmt)"
        if !FileManager.default.fileExists(atPath: path) {
            ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=s=\(width)x\(height):r=\(fps):d=\(seconds)", "-pix_fmt", pixfmt, "-f",
                "rawvideo", path,
            ])
        }
        return path
    }

    /// ffmpeg's render of `script` over the raw `pixfmt` source, unencoded.
    static func ffmpegRender(_ pixfmt: String, script: String = ass) -> Data {
        let out = dir + "/ffmpeg.\(pixfmt)"
        ffmpeg([
            "-f", "rawvideo", "-pix_fmt", pixfmt, "-s", "\(width)x\(height)", "-r", "\(fps)", "-i", source(pixfmt),
            "-vf", "subtitles=\(script)", "-f", "rawvideo", "-pix_fmt", pixfmt, out,
        ])
        return (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()
    }

    /// PSNR of each plane of frame `n` (`planes`: each plane's offset and size in a frame).
    static func psnr(_ a: Data, _ b: Data, frame n: Int, frameSize: Int, planes: [(Int, Int)]) -> [Double] {
        planes.map { offset, size in
            let start = n * frameSize + offset
            guard a.count >= start + size, b.count >= start + size else { return 0 }
            var sum = 0.0
            a.withUnsafeBytes { pa in
                b.withUnsafeBytes { pb in
                    for i in start..<start + size {
                        let d = Double(pa[i]) - Double(pb[i])
                        sum += d * d
                    }
                }
            }
            let mse = sum / Double(size)
            return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
        }
    }

    /// The default export (H.264, 4:2:0) with `--subtitles` beside ffmpeg's unencoded render:
    /// ≥ 35 dB over Y, U and V at ten cue times, matched by frame number.
    @Test func exportMatchesFFmpegsRenderIn420() throws {
        let input = Self.dir + "/source.mkv"
        Self.ffmpeg([
            "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(Self.width)x\(Self.height)", "-r", "\(Self.fps)", "-i",
            Self.source("yuv420p"), "-c:v", "ffv1", input,
        ])
        let output = Self.dir + "/export.mp4"
        let (status, log) = try CLI.run(["export", input, output, "--subtitles", Self.ass])
        #expect(status == 0, "\(log)")
        let decoded = Self.dir + "/export.yuv"
        Self.ffmpeg(["-i", output, "-f", "rawvideo", "-pix_fmt", "yuv420p", decoded])
        let ours = try Data(contentsOf: URL(fileURLWithPath: decoded))
        let theirs = Self.ffmpegRender("yuv420p")
        let luma = Self.width * Self.height, chroma = luma / 4
        #expect(ours.count == theirs.count && ours.count == luma * 3 / 2 * Self.fps * Self.seconds)
        // The subtitles are there: the source alone is far from ffmpeg's render.
        let source = try Data(contentsOf: URL(fileURLWithPath: Self.source("yuv420p")))
        for n in Self.cueFrames {
            let planes = [(0, luma), (luma, chroma), (luma + chroma, chroma)]
            let p = Self.psnr(ours, theirs, frame: n, frameSize: luma * 3 / 2, planes: planes)
            #expect(p.allSatisfy { $0 >= 35 }, "frame \(n): Y U V \(p)")
            let bare = Self.psnr(source, theirs, frame: n, frameSize: luma * 3 / 2, planes: [(0, luma)])
            #expect(bare[0] < p[0] - 3, "frame \(n): the source alone gives \(bare[0]) dB, ours \(p[0])")
        }
    }

    /// The element in BGRA beside ffmpeg's render in BGRA: ≥ 35 dB over B, G and R.
    @Test func elementMatchesFFmpegsRenderInBGRA() throws {
        let out = Self.dir + "/ours.bgra"
        let run = Pipeline.run(
            "filesrc location=\(Self.source("bgra")) ! rawvideoparse width=\(Self.width) height=\(Self.height) "
                + "format=bgra framerate=\(Self.fps)/1 ! watermark subtitle-file=\(Self.ass) ! filesink location=\(out)"
        )
        #expect(run.ok, "\(run.errors)")
        let ours = try Data(contentsOf: URL(fileURLWithPath: out))
        let theirs = Self.ffmpegRender("bgra")
        let pixels = Self.width * Self.height
        #expect(ours.count == theirs.count && ours.count == pixels * 4 * Self.fps * Self.seconds)
        for n in Self.cueFrames {
            // Each channel as a plane: every 4th byte.
            var channels: [Double] = []
            for c in 0..<3 {
                var sum = 0.0
                ours.withUnsafeBytes { a in
                    theirs.withUnsafeBytes { b in
                        for i in stride(from: n * pixels * 4 + c, to: (n + 1) * pixels * 4, by: 4) {
                            let d = Double(a[i]) - Double(b[i])
                            sum += d * d
                        }
                    }
                }
                let mse = sum / Double(pixels)
                channels.append(mse == 0 ? 99 : 10 * log10(255 * 255 / mse))
            }
            #expect(channels.allSatisfy { $0 >= 35 }, "frame \(n): B G R \(channels)")
        }
    }

    /// An MKV whose ASS track names a font only the file carries: burned in with it (its serif
    /// glyphs differ from the fallback's), the track not copied; an MP4's timed text burned in.
    @Test func theInputsOwnTracksBurnIn() throws {
        let font = TestEnv.fixture("fonts/FixtureSlab-Bold.ttf")
        let script = Self.dir + "/attached.ass"
        let text = try String(contentsOfFile: Self.ass, encoding: .utf8)
        try text.replacingOccurrences(of: "DejaVu Serif", with: "Fixture Slab").write(
            toFile: script, atomically: true, encoding: .utf8)
        let raw = ["-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(Self.width)x\(Self.height)", "-r", "\(Self.fps)"]
        let mkv = Self.dir + "/with-font.mkv"
        Self.ffmpeg(
            raw + [
                "-i", Self.source("yuv420p"), "-i", script, "-i", script, "-attach", font, "-metadata:s:t",
                "mimetype=application/x-truetype-font", "-map", "0:v", "-map", "1", "-map", "2", "-c:v", "ffv1", "-c:s",
                "copy", mkv,
            ])
        let burned = Self.dir + "/burned.mkv"
        let (status, log) = try CLI.run(["export", mkv, burned, "--burn-subtitles"])
        #expect(status == 0, "\(log)")
        // One ASS track left of two; the signs drawn in the attached font.
        let (_, streams) = TestEnv.run([
            "ffprobe", "-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", burned,
        ])
        #expect(streams.split(separator: "\n").filter { $0 == "subtitle" }.count == 1, "\(streams)")
        let ours = Self.dir + "/burned.yuv"
        Self.ffmpeg(["-i", burned, "-map", "0:v", "-f", "rawvideo", "-pix_fmt", "yuv420p", ours])
        let withFont = Self.dir + "/ffmpeg-font.yuv"
        Self.ffmpeg(
            raw + [
                "-i", Self.source("yuv420p"), "-vf", "subtitles=\(script):fontsdir=\(TestEnv.fixture("fonts"))",
                "-f", "rawvideo", "-pix_fmt", "yuv420p", withFont,
            ])
        let a = try Data(contentsOf: URL(fileURLWithPath: ours))
        let b = try Data(contentsOf: URL(fileURLWithPath: withFont))
        let fallback = Self.ffmpegRender("yuv420p", script: script)
        let luma = Self.width * Self.height
        // The sign's box (at 640×360: x 60…330, y 60…100) at frame 20.
        var signAt: [(Int, Int)] = []
        for y in 60..<100 { for x in 60..<330 { signAt.append((x, y)) } }
        func diff(_ p: Data, _ q: Data) -> Double {
            var sum = 0.0
            for (x, y) in signAt {
                let i = 20 * luma * 3 / 2 + y * Self.width + x
                sum += abs(Double(p[i]) - Double(q[i]))
            }
            return sum / Double(signAt.count)
        }
        #expect(diff(a, b) < 4 && diff(b, fallback) > 8, "attached \(diff(a, b)), fallback \(diff(b, fallback))")

        // MP4 timed text (tx3g), converted by ffmpeg from SRT.
        let srt = TestEnv.write("timed.srt", "1\n00:00:01,000 --> 00:00:03,000\nTimed text\n")
        let mp4 = Self.dir + "/timed.mp4"
        Self.ffmpeg(
            raw + [
                "-i", Self.source("yuv420p"), "-i", srt, "-c:v", "libx264", "-preset", "ultrafast", "-c:s", "mov_text",
                mp4,
            ]
        )
        let (s2, l2) = try CLI.run(["export", mp4, Self.dir + "/timed-burned.mp4", "--burn-subtitles=1"])
        #expect(s2 == 0, "\(l2)")
        let plain = Self.dir + "/timed-plain.mp4"
        let (s3, l3) = try CLI.run(["export", mp4, plain])
        #expect(s3 == 0, "\(l3)")
        // The bottom fifth at 2 s (inside the cue) differs from the plain export's; at 0.5 s it does not.
        func bottom(_ file: String, at t: String) throws -> Data {
            let out = file + ".\(t).gray"
            Self.ffmpeg([
                "-ss", t, "-i", file, "-frames:v", "1", "-vf", "crop=iw:ih/5:0:ih*4/5", "-f", "rawvideo",
                "-pix_fmt", "gray", out,
            ])
            return try Data(contentsOf: URL(fileURLWithPath: out))
        }
        // Samples that differ by more than 40 levels: the text's.
        func changed(_ p: Data, _ q: Data) -> Int {
            guard p.count == q.count, !p.isEmpty else { return -1 }
            return zip(p, q).filter { abs(Int($0.0) - Int($0.1)) > 40 }.count
        }
        let during = changed(try bottom(Self.dir + "/timed-burned.mp4", at: "2"), try bottom(plain, at: "2"))
        let before = changed(try bottom(Self.dir + "/timed-burned.mp4", at: "0.5"), try bottom(plain, at: "0.5"))
        #expect(
            during > 300 && before >= 0 && before < 20,
            "text samples in the bottom fifth: \(during) during, \(before) before")
    }

    /// A picture track (PGS) is refused before anything is written; so is a track number the
    /// file does not have; a bad file is one line naming its line.
    @Test func refusalsAreOneLineBeforeAnythingIsWritten() throws {
        // A Blu-ray subtitle stream (.sup) of one empty presentation: composition, then end.
        func segment(_ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [0x50, 0x47, 0, 0, 0x46, 0x50, 0, 0, 0, 0, type, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
                + payload
        }
        let sup = Self.dir + "/pictures.sup"
        let pcs: [UInt8] = [0x01, 0x40, 0x00, 0xF0, 0x10, 0, 0, 0x80, 0, 0, 0]
        FileManager.default.createFile(atPath: sup, contents: Data(segment(0x16, pcs) + segment(0x80, [])))
        let mkv = Self.dir + "/pgs.mkv"
        Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x240:r=10:d=2", "-i", sup, "-map", "0", "-map", "1", "-c:v", "ffv1",
            "-c:s", "copy", mkv,
        ])
        let out = Self.dir + "/never.mp4"
        let (s1, l1) = try CLI.run(["export", mkv, out, "--burn-subtitles"])
        #expect(s1 != 0 && l1.contains("is PGS, a picture format"), "\(l1)")
        let (s2, l2) = try CLI.run(["export", mkv, out, "--burn-subtitles=2"])
        #expect(s2 != 0 && l2.contains("has 1 subtitle track(s)"), "\(l2)")
        let bad = TestEnv.write("bad.srt", "1\n00:00:01,000 --> 00:00:0x,000\nb\n")
        let (s3, l3) = try CLI.run(["export", "--test-source", out, "--subtitles", bad])
        #expect(s3 != 0 && l3.contains("bad.srt:2: \"00:00:0x,000\" is not a time"), "\(l3)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A family the script names that no font provides: fontconfig's fallback draws it, and
    /// the debug log names it in exactly one line.
    @Test func aMissingFontIsNamedOnce() throws {
        let text = try String(contentsOfFile: Self.ass, encoding: .utf8)
        let script = Self.dir + "/missing-font.ass"
        try text.replacingOccurrences(of: "DejaVu Serif", with: "Nonexistent Slab Pro").write(
            toFile: script, atomically: true, encoding: .utf8)
        let out = Self.dir + "/missing-font.mp4"
        let (status, log) = try CLI.run([
            "export", "--test-source", "--duration", "2", out, "--subtitles", script, "--gst-debug=watermark:9",
        ])
        #expect(status == 0, "\(log.suffix(2000))")
        let lines = log.split(separator: "\n").filter { $0.contains("Nonexistent Slab Pro") }
        #expect(lines.count == 1 && lines[0].contains("is not installed; fontconfig uses"), "\(lines)")
    }

    /// Without libass (an empty file mounted over it, in a private mount namespace; skipped
    /// where that is not permitted) the plugin loads and draws text; only a subtitle file is
    /// an error, naming what is missing.
    @Test func withoutLibassOnlySubtitlesFail() throws {
        let srt = TestEnv.write("nolibass.srt", "1\n00:00:00,000 --> 00:00:01,000\nHi\n")
        let launch = "gst-launch-1.0 -q videotestsrc num-buffers=3 ! watermark"
        let script = """
            \(launch) text=hi ! fakesink || exit 1
            \(launch) subtitle-file=\(srt) ! fakesink
            """
        guard
            let (rc, log) = TestEnv.runWithout(
                library: "libass.so.9", script,
                environment: [
                    "GST_PLUGIN_PATH": (CLI.binary.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path })
                        ?? "",
                    "GST_REGISTRY": Self.dir + "/nolibass-registry.bin",
                ])
        else { return }
        #expect(rc != 0 && log.contains("burning in subtitles needs libass (libass9)"), "\(log)")
    }

    /// The manifest's `subtitles` column: each row's own file (one video, two languages).
    @Test func batchRowsTakeTheirOwnSubtitles() throws {
        let en = TestEnv.write("en.srt", "1\n00:00:00,000 --> 00:00:02,000\nHello\n")
        let fr = TestEnv.write("fr.srt", "1\n00:00:00,000 --> 00:00:02,000\nBonjour tout le monde\n")
        let input = Self.dir + "/batch-source.mkv"
        Self.ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=320x240:r=10:d=1", "-c:v", "ffv1", input])
        let manifest = TestEnv.write(
            "subtitles.csv",
            "input,output,subtitles\n\(input),\(Self.dir)/en.mp4,\(en)\n\(input),\(Self.dir)/fr.mp4,\(fr)\n")
        let (status, log) = try CLI.run(["batch", "--manifest", manifest, "--jobs", "1"])
        #expect(status == 0, "\(log)")
        var widths: [Int] = []
        for lang in ["en", "fr"] {
            let gray = "\(Self.dir)/\(lang).gray"
            Self.ffmpeg([
                "-ss", "0.5", "-i", "\(Self.dir)/\(lang).mp4", "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray",
                gray,
            ])
            let frame = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: gray))) ?? Data())
            let columns =
                frame.count == 320 * 240
                ? (0..<320).filter { x in (0..<240).contains { frame[$0 * 320 + x] > 128 } } : []
            widths.append((columns.last ?? 0) - (columns.first ?? 0))
        }
        #expect(widths[0] > 20 && widths[1] > widths[0] * 3 / 2, "text widths \(widths)")
    }
}
