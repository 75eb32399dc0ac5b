import Foundation
import GstTestSupport
import Testing

/// What an export keeps of its input, measured the way a user would: ffmpeg's own `psnr`
/// and `ssim` filters compare each output with its source, next to ffmpeg's own export of
/// the same input at the same codec, CRF and preset; ffprobe reads the tracks back.
/// Inputs are made here with ffmpeg, short enough for CI.
@Suite(.serialized) struct ExportFidelityTests {
    static let dir: String = {
        let d = TestEnv.path("fidelity")
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    static func ffmpeg(_ args: [String]) throws {
        let (status, log) = TestEnv.run(["ffmpeg", "-v", "error", "-y"] + args)
        guard status == 0 else { throw Failure("ffmpeg \(args.joined(separator: " ")): \(log)") }
    }

    static func export(_ args: [String]) throws -> String {
        let (status, log) = try CLI.run(["export"] + args)
        guard status == 0 else { throw Failure("export \(args.joined(separator: " ")): \(log)") }
        return log
    }

    /// A clip with detail a CRF encoder has to spend bits on: a moving test pattern with
    /// temporal noise over it, encoded at high quality (CRF 12), and a tone.
    static func detailed(_ name: String, size: String, seconds: Int, tenBitHLG: Bool = false) throws -> String {
        let path = "\(dir)/\(name).mp4"
        if FileManager.default.fileExists(atPath: path) { return path }
        var args = [
            "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30,noise=alls=4:allf=t", "-f", "lavfi", "-i",
            "sine=f=440:r=48000", "-t", "\(seconds)", "-c:a", "aac", "-shortest",
        ]
        if tenBitHLG {
            args += [
                "-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params",
                "log-level=error:crf=12:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc",
                "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc",
            ]
        } else {
            args += ["-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12"]
        }
        try ffmpeg(args + [path])
        return path
    }

    struct Quality {
        var psnrY: Double
        var ssim: Double
        var size: Int
    }

    /// PSNR of luma and SSIM (all planes) of `output` against `source`, frame by frame, on the
    /// samples as stored: both inputs are given the same colour tags first, since FFmpeg 7
    /// converts one input to the other's tags before comparing where they differ (an untagged
    /// source against a BT.709 output measured 22 dB instead of 40.7), and FFmpeg 5.1 never does.
    static func quality(_ output: String, against source: String) throws -> Quality {
        let tags = "setparams=range=tv:color_primaries=bt709:color_trc=bt709:colorspace=bt709"
        let graph = "[0:v]\(tags),split[o1][o2];[1:v]\(tags),split[s1][s2];[o1][s1]ssim;[o2][s2]psnr"
        let (status, log) = TestEnv.run([
            "ffmpeg", "-hide_banner", "-i", output, "-i", source, "-lavfi", graph, "-f", "null", "-",
        ])
        guard status == 0 else { throw Failure("ffmpeg psnr/ssim of \(output): \(log)") }
        func value(after key: String) -> Double? {
            guard let r = log.range(of: key, options: .backwards) else { return nil }
            return Double(log[r.upperBound...].prefix { "0123456789.".contains($0) })
        }
        guard let y = value(after: "PSNR y:"), let ssim = value(after: "All:") else {
            throw Failure("no psnr/ssim in: \(log.suffix(600))")
        }
        let size = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        return Quality(psnrY: y, ssim: ssim, size: size)
    }

    /// Exports `source` with no overlay, and ffmpeg's libx264 (libx265) at the same CRF and
    /// preset, and checks PSNR-Y within 0.3 dB of ffmpeg's at no more than 1.1× its size.
    static func compareWithFFmpeg(_ source: String, codec: String, tag: String) throws {
        let ours = "\(dir)/\(tag)-ours.mp4", theirs = "\(dir)/\(tag)-ffmpeg.mp4"
        let log = try export([source, ours, "--codec", codec, "--quality", "21", "--preset", "veryfast"])
        #expect(log.contains(codec == "h265" ? "H.265" : "H.264"), "\(log)")
        #expect(log.contains("CRF 21, veryfast"), "\(log)")
        let encoder = codec == "h265" ? ["-c:v", "libx265", "-x265-params", "log-level=error"] : ["-c:v", "libx264"]
        try ffmpeg(["-i", source] + encoder + ["-preset", "veryfast", "-crf", "21", "-c:a", "copy", theirs])
        let q = try quality(ours, against: source), r = try quality(theirs, against: source)
        let line =
            "\(tag): ours \(q.size) B, PSNR-Y \(q.psnrY) dB, SSIM \(q.ssim); ffmpeg \(r.size) B, PSNR-Y \(r.psnrY) dB, SSIM \(r.ssim)"
        print(line)
        #expect(q.psnrY >= r.psnrY - 0.3, "\(line)")
        #expect(Double(q.size) <= 1.1 * Double(r.size), "\(line)")
    }

    @Test func detailed1080pKeepsFFmpegsQuality() throws {
        try Self.compareWithFFmpeg(
            try Self.detailed("detail-1080p", size: "1920x1080", seconds: 2), codec: "h264", tag: "1080p")
    }

    @Test func clip4KKeepsFFmpegsQuality() throws {
        try Self.compareWithFFmpeg(
            try Self.detailed("detail-2160p", size: "3840x2160", seconds: 2), codec: "h264", tag: "2160p")
    }

    @Test func hlg10BitKeepsLibx265sQuality() throws {
        let source = try Self.detailed("detail-hlg", size: "1280x720", seconds: 2, tenBitHLG: true)
        try Self.compareWithFFmpeg(source, codec: "h265", tag: "hlg")
    }

    /// The x264 option string an encoder wrote into the stream (its SEI): the settings it
    /// really used.
    static func encoderOptions(_ file: String) throws -> [String: String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        guard let start = data.range(of: Data("options: ".utf8)) else { throw Failure("\(file): no encoder options") }
        let rest = data[start.upperBound...].prefix { $0 >= 0x20 && $0 < 0x7F }
        var out: [String: String] = [:]
        for word in String(decoding: rest, as: UTF8.self).split(separator: " ") {
            let kv = word.split(separator: "=", maxSplits: 1)
            out[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
        }
        return out
    }

    /// With no option but the codec, CRF and preset, x264 runs exactly as ffmpeg's libx264
    /// runs it at the same CRF and preset (no VBV cap, the preset's B-frames, references,
    /// lookahead and GOP); x265 as libx265 (CRF, not constant QP; no SSIM tuning).
    @Test(arguments: ["h264", "h265"]) func encoderRunsAsItsPresetDefines(codec: String) throws {
        let source = try Self.detailed("small", size: "640x360", seconds: 1)
        let ours = "\(Self.dir)/opts-\(codec)-ours.mp4", theirs = "\(Self.dir)/opts-\(codec)-ffmpeg.mp4"
        _ = try Self.export([source, ours, "--codec", codec, "--preset", "veryfast"])
        let encoder = codec == "h265" ? ["-c:v", "libx265", "-x265-params", "log-level=error"] : ["-c:v", "libx264"]
        try Self.ffmpeg(["-i", source] + encoder + ["-preset", "veryfast", "-crf", "21", theirs])
        var a = try Self.encoderOptions(ours), b = try Self.encoderOptions(theirs)
        if codec == "h264" {
            #expect(a["rc"] == "crf" && a["crf"] == "21.0" && a["vbv_maxrate"] == nil, "\(a)")
            #expect(a == b, "\(a.filter { b[$0.key] != $0.value })")
        } else {
            #expect(a["crf"] == "21.0" && a["psy-rd"] == b["psy-rd"] && a["aq-mode"] == b["aq-mode"], "\(a)")
            // Logging and how the colour description and aspect ratio are spelt differ.
            for k in [
                "log-level", "sar", "colorprim", "transfer", "colormatrix", "sar-width", "sar-height", ":", "chromaloc",
                "chromaloc-top", "chromaloc-bottom",
            ] {
                a[k] = nil
                b[k] = nil
            }
            #expect(a == b, "\(a.filter { b[$0.key] != $0.value })")
        }
        for key in ["bframes", "keyint", "ref", "rc_lookahead", "rc-lookahead"] where b[key] != nil {
            #expect(a[key] == b[key], "\(key): \(a[key] ?? "-") vs \(b[key] ?? "-")")
        }
    }

    /// The export hands x264enc and x265enc each frame without their keeping it (they copy
    /// it into the encoder when they take it): the pictures that come out are those of the
    /// same launch line run by gst-launch-1.0, where the encoder keeps its frames, frame for
    /// frame (ffmpeg's framemd5 of the decoded video).
    @Test(arguments: [["--codec", "h264"], ["--codec", "h265"]])
    func encoderFedWithoutKeepingFramesEncodesTheSamePictures(codec: [String]) throws {
        let source = try Self.detailed("feed", size: "640x360", seconds: 2)
        let ours = Self.dir + "/feed-\(codec[1])-export.mp4", launched = Self.dir + "/feed-\(codec[1])-launch.mp4"
        for file in [ours, launched] { try? FileManager.default.removeItem(atPath: file) }
        let options = [source, "--text", "FEED {frame}", "--preset", "veryfast"] + codec
        let (printedStatus, line) = try CLI.run(["export"] + options + [launched, "--print-pipeline"])
        #expect(printedStatus == 0, "\(line)")
        let plugins = CLI.binary.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } ?? ""
        let (rc, log) = TestEnv.run(["sh", "-c", line], environment: ["GST_PLUGIN_PATH": plugins])
        #expect(rc == 0, "\(log)")
        _ = try Self.export(options + [ours])
        func frames(_ file: String) -> [Substring] {
            let (_, out) = TestEnv.run(["ffmpeg", "-v", "error", "-i", file, "-map", "0:v", "-f", "framemd5", "-"])
            return out.split(separator: "\n").filter { !$0.hasPrefix("#") }
        }
        let exported = frames(ours), reference = frames(launched)
        #expect(exported.count == 60)
        #expect(exported == reference)
    }

    /// The encoder element each command runs, from --print-pipeline.
    static func encoderElement(_ args: [String]) throws -> String {
        let (status, log) = try CLI.run(args + ["--print-pipeline"])
        guard status == 0 else { throw Failure("\(args): \(log)") }
        guard let start = log.range(of: "x264enc ") ?? log.range(of: "x265enc ") else { throw Failure(log) }
        return String(log[start.lowerBound...].prefix { $0 != "!" })
    }

    /// `capture` and `batch` encode as `export` does for the same options, and a capture is
    /// a file, not a live stream, unless --low-latency says so.
    @Test(arguments: [
        ["--quality", "23", "--preset", "fast", "--keyframe-interval", "2"], ["--max-bitrate", "3000"], [],
    ])
    func captureAndBatchEncodeAsExportDoes(options: [String]) throws {
        let out = Self.dir + "/same.mp4"
        let exported = try Self.encoderElement(["export", "--test-source", out] + options)
        let captured = try Self.encoderElement(["capture", "--test-source", out] + options)
        let source = try Self.detailed("small", size: "640x360", seconds: 1)
        let batched = try Self.encoderElement(["batch", "--output-dir", Self.dir + "/batch-same", source] + options)
        #expect(captured == exported)
        #expect(batched.hasPrefix(exported.trimmingCharacters(in: .whitespaces)), "\(batched) vs \(exported)")
        #expect(!captured.contains("zerolatency"))
        let live = try Self.encoderElement(["capture", "--test-source", out, "--low-latency"] + options)
        #expect(live.contains("tune=zerolatency"), "\(live)")
    }

    /// Bytes of video per window of `seconds`, at most, over the whole file (ffprobe's packets).
    static func peakRate(_ file: String, window seconds: Double) throws -> Double {
        let (status, log) = TestEnv.run([
            "ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=dts_time,size", "-of",
            "csv=p=0", file,
        ])
        guard status == 0 else { throw Failure(log) }
        let packets = log.split(separator: "\n").compactMap { line -> (Double, Double)? in
            let f = line.split(separator: ",")
            guard f.count >= 2, let t = Double(f[0]), let s = Double(f[1]) else { return nil }
            return (t, s)
        }.sorted { $0.0 < $1.0 }
        var peak = 0.0, sum = 0.0, first = 0
        for (t, s) in packets {
            sum += s
            while packets[first].0 <= t - seconds {
                sum -= packets[first].1
                first += 1
            }
            peak = max(peak, sum)
        }
        return peak * 8 / 1000 / seconds
    }

    /// `--max-bitrate` holds: over any two seconds the rate stays within the cap plus its
    /// one-second buffer spread over them, where the same clip at CRF 21 alone goes far above.
    @Test func maxBitrateHoldsThePeakRate() throws {
        let source = try Self.detailed("detail-1080p-4s", size: "1920x1080", seconds: 4)
        let capped = Self.dir + "/capped.mp4", free = Self.dir + "/uncapped.mp4"
        let log = try Self.export([source, capped, "--max-bitrate", "1500"])
        #expect(log.contains("CRF 21, at most 1500 kbit/s"), "\(log)")
        _ = try Self.export([source, free])
        let cappedPeak = try Self.peakRate(capped, window: 2), freePeak = try Self.peakRate(free, window: 2)
        print("peak kbit/s over 2 s: capped \(cappedPeak), uncapped \(freePeak)")
        #expect(freePeak > 3 * 1500, "the clip does not need more than the cap: \(freePeak)")
        #expect(cappedPeak <= 1500 * 1.5 * 1.05, "\(cappedPeak)")
    }

    static func streams(_ file: String) throws -> [[String: String]] {
        let (status, log) = TestEnv.run([
            "ffprobe", "-v", "error", "-show_entries",
            "stream=codec_type,codec_name:stream_tags=language,title,handler_name",
            "-of", "compact", file,
        ])
        guard status == 0 else { throw Failure(log) }
        return log.split(separator: "\n").map { line in
            var d: [String: String] = [:]
            for field in line.split(separator: "|").dropFirst() {
                let kv = field.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { d[String(kv[0]).replacingOccurrences(of: "tag:", with: "")] = String(kv[1]) }
            }
            return d
        }
    }

    /// Two audio tracks (English, French) with names, and a subtitle track in Matroska.
    static func multiTrack() throws -> (mp4: String, mkv: String) {
        let mp4 = dir + "/two-audio.mp4", mkv = dir + "/two-audio-subs.mkv", srt = dir + "/subs.srt"
        if !FileManager.default.fileExists(atPath: mkv) {
            try "1\n00:00:00,000 --> 00:00:01,000\nHello\n\n2\n00:00:01,000 --> 00:00:02,000\nWorld\n"
                .write(toFile: srt, atomically: true, encoding: .utf8)
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi", "-i", "sine=f=440:r=48000", "-f",
                "lavfi", "-i", "sine=f=660:r=48000", "-t", "2", "-map", "0", "-map", "1", "-map", "2", "-c:v",
                "libx264", "-preset", "ultrafast", "-c:a", "aac", "-metadata:s:a:0", "language=eng",
                "-metadata:s:a:0", "handler_name=English", "-metadata:s:a:1", "language=fra", "-metadata:s:a:1",
                "handler_name=Français", mp4,
            ])
            try ffmpeg([
                "-i", mp4, "-i", srt, "-map", "0", "-map", "1", "-c", "copy", "-c:s", "srt", "-metadata:s:a:0",
                "title=English", "-metadata:s:a:1", "title=Français", "-metadata:s:s:0", "language=eng", mkv,
            ])
        }
        return (mp4, mkv)
    }

    @Test func everyAudioTrackIsKeptWithItsLanguageAndName() throws {
        let (mp4, mkv) = try Self.multiTrack()
        for (input, output) in [(mp4, "tracks-out.mp4"), (mkv, "tracks-out.mkv")] {
            let out = Self.dir + "/" + output
            _ = try Self.export([input, out, "--text", "x"])
            let audio = try Self.streams(out).filter { $0["codec_type"] == "audio" }
            #expect(audio.count == 2, "\(audio)")
            #expect(audio.map { $0["language"] ?? "" }.map { $0.prefix(2) } == ["en", "fr"], "\(audio)")
            let names = audio.map { $0["title"] ?? $0["handler_name"] ?? "" }
            #expect(names == ["English", "Français"], "\(output): \(audio)")
        }
    }

    /// Matroska's SubRip subtitles come out as they are in Matroska, and as timed text
    /// (tx3g) in MP4, with the same cues at the same times.
    @Test(arguments: [("subs-out.mkv", "subrip"), ("subs-out.mp4", "mov_text")])
    func matroskaSubtitlesAreKept(output: String, codec: String) throws {
        let (_, mkv) = try Self.multiTrack()
        let out = Self.dir + "/" + output
        _ = try Self.export([mkv, out, "--text", "x"])
        let subs = try Self.streams(out).filter { $0["codec_type"] == "subtitle" }
        #expect(subs.count == 1 && subs.first?["codec_name"] == codec && subs.first?["language"] == "eng", "\(subs)")
        // Read back as ffmpeg reads the input's: the same cues at the same times.
        func cues(_ file: String) -> (Int32, String) {
            TestEnv.run(["ffmpeg", "-v", "error", "-i", file, "-map", "0:s:0", "-f", "srt", "-"])
        }
        let (status, text) = cues(out), (_, original) = cues(mkv)
        #expect(status == 0 && text.contains("Hello") && text.contains("World"), "\(text)")
        #expect(text == original, "\(text) vs \(original)")
    }

    /// GoPro's own sample, with its timecode and telemetry tracks: exported with its video and
    /// audio, the tracks that cannot be carried named, by `export` and by `batch`.
    @Test func goProFileExports() throws {
        let karma = TestEnv.fixture("gopro/karma.mp4")
        try #require(FileManager.default.fileExists(atPath: karma), "\(karma) missing")
        let out = Self.dir + "/karma-out.mp4"
        let log = try Self.export([karma, out, "--text", "GoPro"])
        #expect(log.contains("not carried: data tracks"), "\(log)")
        #expect(log.contains("(gpmd)"), "\(log)")
        let batchDir = Self.dir + "/karma-batch"
        try? FileManager.default.removeItem(atPath: batchDir)
        let (status, blog) = try CLI.run(["batch", "--text", "GoPro", "--output-dir", batchDir, karma])
        #expect(status == 0, "\(blog)")
        for file in [out, batchDir + "/karma.mp4"] {
            let kinds = try Self.streams(file).map { "\($0["codec_type"] ?? "")/\($0["codec_name"] ?? "")" }
            #expect(kinds == ["video/h264", "audio/aac"], "\(file): \(kinds)")
            let (s, d) = TestEnv.run([
                "ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file,
            ])
            #expect(
                s == 0 && abs((Double(d.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 12.08) < 0.2, "\(d)")
        }
    }
}
