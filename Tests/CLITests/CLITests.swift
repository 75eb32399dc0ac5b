import CGStreamer
import CPangoCairo
import CShim
import Foundation
import GstTestSupport
import Testing

/// Frames, audio and duration of a media file, by decoding it.
struct MediaCount {
    var videoFrames = 0
    var audioBuffers = 0
    var width = 0, height = 0
    var durationSeconds = 0.0

    static func of(_ path: String) -> MediaCount? {
        _ = GstTest.ready
        let (_, report) = TestEnv.run(["gst-discoverer-1.0", path])
        // A branch for a stream the file lacks would never preroll.
        var desc =
            "filesrc location=\"\(path)\" ! decodebin name=d d. ! queue ! video/x-raw ! fakesink name=v sync=false"
        if report.contains("audio #") { desc += " d. ! queue ! audio/x-raw ! fakesink name=a sync=false" }
        var error: UnsafeMutablePointer<GError>?
        guard let pipeline = gst_parse_launch(desc, &error) else { return nil }
        if let error { g_error_free(error) }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
        }
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 2)
        defer { counts.deallocate() }
        counts.initialize(repeating: 0, count: 2)
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        for (i, name) in ["v", "a"].enumerated() {
            guard let sink = gst_bin_get_by_name(bin, name), let pad = gst_element_get_static_pad(sink, "sink") else {
                continue
            }
            _ = gst_pad_add_probe(
                pad, GST_PAD_PROBE_TYPE_BUFFER,
                { _, _, user in
                    user?.assumingMemoryBound(to: Int.self).pointee += 1
                    return GST_PAD_PROBE_OK
                }, counts + i, nil)
            gst_object_unref(pad)
            gst_object_unref(sink)
        }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        let bus = gst_element_get_bus(pipeline)
        defer { gst_object_unref(bus) }
        let types = GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue)
        guard let msg = gst_bus_timed_pop_filtered(bus, 60 * 1_000_000_000, types) else { return nil }
        defer { gst_message_unref(msg) }
        guard msg.pointee.type == GST_MESSAGE_EOS else { return nil }
        var result = MediaCount(videoFrames: counts[0], audioBuffers: counts[1])
        var duration: gint64 = 0
        if gst_element_query_duration(pipeline, GST_FORMAT_TIME, &duration) != 0 {
            result.durationSeconds = Double(duration) / 1e9
        }
        for line in report.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("Width: ") { result.width = Int(t.dropFirst(7)) ?? 0 }
            if t.hasPrefix("Height: ") { result.height = Int(t.dropFirst(8)) ?? 0 }
        }
        return result
    }
}

@Suite(.serialized) struct CLITests {
    static let logo = TestEnv.root + "/assets/logo.svg"

    @Test func exportFromTestSourceKeepsDurationFramesAndAudio() throws {
        let out = TestEnv.path("cli-test-source.mp4")
        let (status, log) = try CLI.run([
            "export", "--test-source", "--duration", "2", "--size", "640x360",
            "--image", Self.logo, "--text", "© ACME", out,
        ])
        #expect(status == 0, "\(log)")
        let m = try #require(MediaCount.of(out))
        #expect(m.videoFrames == 60)
        #expect(m.audioBuffers > 0)
        #expect(m.width == 640 && m.height == 360)
        #expect(abs(m.durationSeconds - 2) < 0.1)
    }

    @Test func exportOfAFileKeepsItsFramesAndAudioAndPlacesTheMark() throws {
        // A generated input with audio (H.264 + Opus in Matroska), 45 frames.
        let input = TestEnv.path("cli-input.mkv")
        let made = Pipeline.run(
            """
            videotestsrc num-buffers=45 pattern=black ! video/x-raw,width=640,height=360,framerate=30/1 ! \
            x264enc speed-preset=ultrafast ! h264parse ! queue ! matroskamux name=m ! filesink location=\(input) \
            audiotestsrc num-buffers=45 samplesperbuffer=1600 ! audio/x-raw,rate=48000,channels=2 ! audioconvert ! \
            opusenc ! queue ! m.
            """)
        #expect(made.ok, "\(made.errors)")
        let out = TestEnv.path("cli-export.mp4")
        let (status, log) = try CLI.run([
            "export", input, out, "--image", Self.logo, "--width", "0.2",
            "--anchor", "top-left", "--margin-x", "0.05", "--margin-y", "0.05",
        ])
        #expect(status == 0, "\(log)")
        let m = try #require(MediaCount.of(out))
        #expect(m.videoFrames == 45)
        #expect(m.audioBuffers > 0)
        #expect(abs(m.durationSeconds - 1.5) < 0.1)
        // The logo (orange/red) is at the top-left: 5 % margins, 20 % wide.
        let png = TestEnv.path("cli-export.png")
        let snap = Pipeline.run(
            """
            filesrc location=\(out) ! qtdemux ! h264parse ! avdec_h264 ! videoconvert ! video/x-raw,format=RGB ! \
            pngenc snapshot=true ! filesink location=\(png)
            """)
        #expect(snap.ok)
        let frame = try #require(PNGPixels(path: png))
        let inLogo = frame.pixel(32 + 64, 18 + 20)
        #expect(inLogo.r > 150 && inLogo.g < 150, "\(inLogo)")
        let outside = frame.pixel(500, 300)
        #expect(outside.r < 30 && outside.g < 30 && outside.b < 30)
    }

    /// A config of three layers (logo, timed caption, clock) on a 4 s export, checked on
    /// decoded frames before, during and after the caption's window.
    @Test func exportWithAThreeLayerConfig() throws {
        let input = TestEnv.path("cli-layers-in.mkv")
        let made = Pipeline.run(
            """
            videotestsrc num-buffers=120 pattern=black ! video/x-raw,width=640,height=360,framerate=30/1 ! \
            x264enc speed-preset=ultrafast ! h264parse ! matroskamux ! filesink location=\(input)
            """)
        #expect(made.ok, "\(made.errors)")
        let config = TestEnv.write(
            "cli-layers.json",
            """
            { "layers": [
              { "image": "\(Self.logo)", "anchor": "top-left", "width": 0.2, "margin-x": 0.05, "margin-y": 0.05 },
              { "text": "CAPTION", "color": "#00FF00", "outline-width": 0, "anchor": "bottom-left", "text-size": 0.12,
                "start": 1, "end": 3, "fade-in": 0.5 },
              { "text": "{clock:%H:%M:%S}", "anchor": "top-right", "text-size": 0.08, "color": "yellow" }
            ] }
            """)
        let out = TestEnv.path("cli-layers.mp4")
        let (status, log) = try CLI.run(["export", input, out, "--config", config])
        #expect(status == 0, "\(log)")
        #expect(MediaCount.of(out)?.videoFrames == 120)
        let dir = TestEnv.path("cli-layers-frames")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let frames = Pipeline.run(
            """
            filesrc location=\(out) ! qtdemux ! h264parse ! avdec_h264 ! videoconvert ! video/x-raw,format=RGB ! \
            pngenc compression-level=1 ! multifilesink location=\(dir)/f%03d.png
            """)
        #expect(frames.ok)
        func frame(_ n: Int) throws -> PNGPixels {
            try #require(PNGPixels(path: String(format: "%@/f%03d.png", dir, n)))
        }
        /// Brightest green of the caption's area (bottom-left), where nothing else draws.
        func captionGreen(_ f: PNGPixels) -> Int {
            var best = 0
            for y in stride(from: 290, to: 350, by: 1) {
                for x in stride(from: 20, to: 300, by: 1) {
                    let p = f.pixel(x, y)
                    if p.r < 90 { best = max(best, p.g) }
                }
            }
            return best
        }
        /// Yellow clock pixels in the top-right corner.
        func clockInk(_ f: PNGPixels) -> Int {
            var n = 0
            for y in 10..<50 {
                for x in 440..<630 {
                    let p = f.pixel(x, y)
                    if p.r > 180 && p.g > 180 && p.b < 100 { n += 1 }
                }
            }
            return n
        }
        // Frame 0 (t = 0), 37 (t = 1.23 s, 47 % into the fade-in), 60 (t = 2), 105 (t = 3.5).
        let (f0, fade, on, after) = (try frame(0), try frame(37), try frame(60), try frame(105))
        for (name, f) in [("t=0", f0), ("fade", fade), ("on", on), ("after", after)] {
            let logo = f.pixel(32 + 64, 18 + 20)
            #expect(logo.r > 150 && logo.g < 150, "\(name): logo \(logo)")
            #expect(clockInk(f) > 50, "\(name): clock")
        }
        #expect(captionGreen(f0) < 40, "caption before start")
        #expect((70...190).contains(captionGreen(fade)), "caption mid-fade: \(captionGreen(fade))")
        #expect(captionGreen(on) > 220, "caption on: \(captionGreen(on))")
        #expect(captionGreen(after) < 40, "caption after end")
    }

    @Test func reframeCropsThenScalesWithoutDistortion() throws {
        let out = TestEnv.path("cli-reframe.mp4")
        let (status, log) = try CLI.run([
            "export", "--test-source", "--duration", "1", "--size", "1280x720",
            "--reframe", "9:16", "--text", "9:16", out,
        ])
        #expect(status == 0, "\(log)")
        let m = try #require(MediaCount.of(out))
        #expect(m.width == 720 && m.height == 1280, "\(m)")
        #expect(m.videoFrames == 30)
        let (bad, message) = try CLI.run(["export", "--test-source", "--reframe", "wide", TestEnv.path("x.mp4")])
        #expect(bad != 0 && message.contains("--reframe"))
    }

    @Test func aacAudioIsPassedThrough() throws {
        let input = TestEnv.path("cli-aac-input.mp4")
        let (made, log) = try CLI.run(["export", "--test-source", "--duration", "1", "--size", "320x240", input])
        #expect(made == 0, "\(log)")
        let out = TestEnv.path("cli-aac-output.mkv")
        let (_, printed) = try CLI.run(["export", input, out, "--text", "x", "--print-pipeline"])
        #expect(printed.contains("aacparse ! queue ! mux.") && !printed.contains("avenc_aac"), "\(printed)")
        let (status, log2) = try CLI.run(["export", input, out, "--text", "x"])
        #expect(status == 0, "\(log2)")
        let m = try #require(MediaCount.of(out))
        #expect(m.audioBuffers > 0 && m.videoFrames == 30)
    }

    /// Decoded audio of a file as 8 kHz mono samples.
    static func audioSamples(_ path: String) -> [Int16] {
        let raw = path + ".s16"
        let run = Pipeline.run(
            """
            filesrc location=\(path) ! decodebin ! audioconvert ! audioresample ! \
            audio/x-raw,format=S16LE,channels=1,rate=8000 ! filesink location=\(raw)
            """)
        guard run.ok, let data = FileManager.default.contents(atPath: raw) else { return [] }
        return data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    static func rms(_ s: ArraySlice<Int16>) -> Double {
        guard !s.isEmpty else { return 0 }
        return (s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(s.count)).squareRoot()
    }

    static func music(_ name: String, seconds: Int) -> String {
        let path = TestEnv.path(name)
        let made = Pipeline.run(
            """
            audiotestsrc num-buffers=\(seconds * 10) samplesperbuffer=4410 freq=880 volume=0.5 ! \
            audio/x-raw,rate=44100,channels=1 ! audioconvert ! vorbisenc ! oggmux ! filesink location=\(path)
            """)
        #expect(made.ok)
        return path
    }

    @Test func shortMusicIsLoopedCutAndFadedOut() throws {
        let music = Self.music("music-1s.ogg", seconds: 1)
        let out = TestEnv.path("cli-music.mp4")
        let (status, log) = try CLI.run([
            "export", "--test-source", "--duration", "3", "--size", "320x240", "--music", music,
            "--replace-audio", "--music-fade-out", "1", out,
        ])
        #expect(status == 0, "\(log)")
        let samples = Self.audioSamples(out)
        // 3 s at 8 kHz, cut within 10 ms (plus the AAC encoder's padding).
        try #require(abs(samples.count - 24_000) < 400, "\(samples.count) samples")
        let loud = Self.rms(samples[4_000..<12_000])  // 0.5–1.5 s, second loop included
        let looped = Self.rms(samples[17_000..<19_000])  // 2.1–2.4 s: the third loop plays
        let tail = Self.rms(samples[23_000..<min(23_700, samples.count)])  // last ~90 ms: faded out
        #expect(loud > 3000, "rms \(loud)")
        #expect(looped > 0.4 * loud, "looped rms \(looped) vs \(loud)")
        #expect(tail < 0.2 * loud, "tail rms \(tail) vs \(loud)")
    }

    @Test func longMusicIsCutAndMixedUnderTheOriginal() throws {
        let music = Self.music("music-5s.ogg", seconds: 5)
        let out = TestEnv.path("cli-music-mix.mkv")
        let (status, log) = try CLI.run([
            "export", "--test-source", "--duration", "2", "--size", "320x240", "--music", music, out,
        ])
        #expect(status == 0, "\(log)")
        let m = try #require(MediaCount.of(out))
        #expect(m.videoFrames == 60)
        #expect(abs(m.durationSeconds - 2) < 0.1, "\(m)")
        let samples = Self.audioSamples(out)
        #expect(abs(samples.count - 16_000) < 400, "\(samples.count) samples")
        let (bad, message) = try CLI.run(["export", "--test-source", "--replace-audio", TestEnv.path("y.mp4")])
        #expect(bad != 0 && message.contains("need --music"))
    }

    @Test func timingOptionsReachTheElement() throws {
        let (status, line) = try CLI.run([
            "export", "--test-source", "--text", "t", "--start", "1", "--end", "4",
            "--fade-in", "0.5", "--fade-out", "1", TestEnv.path("t.mp4"), "--print-pipeline",
        ])
        #expect(status == 0)
        for prop in ["start=\"1.0\"", "end=\"4.0\"", "fade-in=\"0.5\"", "fade-out=\"1.0\""] {
            #expect(line.contains(prop), "\(line)")
        }
    }

    @Test func captureForThreeSecondsGivesAPlayableFile() throws {
        let out = TestEnv.path("cli-capture.mp4")
        let (status, log) = try CLI.run([
            "capture", "--test-source", "--size", "320x240", "--duration", "3", "--text", "REC", out,
        ])
        #expect(status == 0, "\(log)")
        let m = try #require(MediaCount.of(out))
        #expect(abs(m.durationSeconds - 3) < 0.5, "\(m)")
        #expect(m.videoFrames >= 75)
    }

    @Test func previewBranchesAfterTheWatermark() throws {
        let out = TestEnv.path("cli-preview.mp4")
        let (printed, line) = try CLI.run([
            "capture", "--test-source", "--preview", "--text", "REC", out, "--print-pipeline",
        ])
        #expect(printed == 0)
        // The tee comes after the watermark: preview and file show the same overlay.
        let wm = line.range(of: "watermark"), tee = line.range(of: "tee name=preview")
        #expect(wm != nil && tee != nil && wm!.lowerBound < tee!.lowerBound, "\(line)")
        let (status, log) = try CLI.run([
            "capture", "--test-source", "--preview", "--preview-sink", "fakesink",
            "--size", "320x240", "--duration", "2", out,
        ])
        #expect(status == 0, "\(log)")
        let m = try #require(MediaCount.of(out))
        #expect(m.videoFrames >= 45)
    }

    @Test func sigtermFinalizesToo() throws {
        let bin = try #require(CLI.binary)
        let out = TestEnv.path("cli-sigterm.mp4")
        let p = try TestEnv.spawn(bin, ["capture", "--test-source", "--size", "320x240", out])
        Thread.sleep(forTimeInterval: 2)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let m = try #require(MediaCount.of(out))
        #expect(m.durationSeconds > 1 && m.durationSeconds < 3, "\(m)")
    }

    @Test func h265Export() throws {
        let out = TestEnv.path("cli-h265.mkv")
        let (status, log) = try CLI.run([
            "export", "--test-source", "--codec", "h265", "--duration", "1", "--size", "320x240", out,
        ])
        #expect(status == 0, "\(log)")
        let (_, report) = TestEnv.run(["gst-discoverer-1.0", out])
        #expect(report.contains("H.265"), "\(report)")
        #expect(MediaCount.of(out)?.videoFrames == 30)
    }

    @Test func interruptedCaptureIsFinalized() throws {
        let bin = try #require(CLI.binary)
        let out = TestEnv.path("cli-sigint.mkv")
        let p = try TestEnv.spawn(
            bin, ["capture", "--test-source", "--audio", "--size", "320x240", "--text", "REC", out])
        Thread.sleep(forTimeInterval: 2.5)
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let m = try #require(MediaCount.of(out))
        #expect(m.durationSeconds > 1.5 && m.durationSeconds < 3.5, "\(m)")
        #expect(m.audioBuffers > 0)
    }

    @Test func killedSegmentedCaptureKeepsCompletedSegments() throws {
        let bin = try #require(CLI.binary)
        let dir = TestEnv.path("segments")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let p = try TestEnv.spawn(
            bin, ["capture", "--test-source", "--size", "320x240", "--segment-duration", "1", dir + "/rec.mp4"])
        // A recording encodes as a file does, with the preset's lookahead and B-frames:
        // frames reach the muxer about half a second after capture (x264 veryfast: 10
        // frames of lookahead, 3 B-frames, 3 frame threads).
        Thread.sleep(forTimeInterval: 4.4)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(files.count >= 3, "\(files)")
        // Every segment but the open one plays.
        for f in files.dropLast() {
            let m = try #require(MediaCount.of(dir + "/" + f), "\(f) does not play")
            #expect(m.videoFrames >= 25, "\(f): \(m)")
        }
    }

    /// Whether this machine lets the tests mount a small tmpfs in a private mount namespace
    /// (root, or unprivileged user namespaces).
    static let privateMount: [String]? = {
        for prefix in [["unshare", "-m"], ["unshare", "-rm"]] {
            if TestEnv.run(prefix + ["sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]).0 == 0 { return prefix }
        }
        return nil
    }()

    /// The output disk fills up during a segmented capture (a 64 KB tmpfs, mounted for this
    /// capture only): one clear error line, non-zero exit, every completed segment plays.
    @Test(.enabled(if: privateMount != nil, "mounting a tmpfs is not permitted here"))
    func fullDiskKeepsCompletedSegments() throws {
        let bin = try #require(CLI.binary)
        let prefix = try #require(Self.privateMount)
        let dir = TestEnv.path("disk-full")
        try? FileManager.default.removeItem(atPath: dir)
        for sub in ["/fs", "/kept"] {
            try FileManager.default.createDirectory(atPath: dir + sub, withIntermediateDirectories: true)
        }
        // The mount exists only inside the namespace: copy what the capture left out of it.
        let script = """
            mount -t tmpfs -o size=64k tmpfs "$1/fs" || exit 99
            "$2" capture --test-source --size 640x360 --segment-duration 1 --duration 40 "$1/fs/rec.mp4" 2>"$1/kept/stderr"
            echo $? >"$1/kept/status"
            ls -l "$1/fs" >"$1/kept/listing"
            cp "$1"/fs/*.mp4 "$1/kept/"
            """
        let start = Date()
        let (status, log) = TestEnv.run(prefix + ["sh", "-c", script, "sh", dir, bin])
        #expect(status == 0, "\(log)")
        #expect(Date().timeIntervalSince(start) < 35, "the capture did not stop when the disk was full")
        let kept = dir + "/kept/"
        let exit = (try? String(contentsOfFile: kept + "status", encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let stderr = (try? String(contentsOfFile: kept + "stderr", encoding: .utf8)) ?? ""
        #expect(exit == "1", "exit \(exit ?? "?"): \(stderr)")
        let errors = stderr.split(separator: "\n").filter { $0.hasPrefix("gst-watermark:") }
        #expect(errors.count == 1 && errors[0].contains("the output disk is full"), "\(stderr)")
        let segments = try FileManager.default.contentsOfDirectory(atPath: kept).filter { $0.hasSuffix(".mp4") }
            .sorted()
        #expect(
            segments.count >= 2, "\(segments) \((try? String(contentsOfFile: kept + "listing", encoding: .utf8)) ?? "")"
        )
        // Every segment but the one open when the disk filled plays, with a second of video.
        for f in segments.dropLast() {
            let m = try #require(MediaCount.of(kept + f), "\(f) does not play")
            #expect(m.videoFrames >= 25, "\(f): \(m)")
        }
    }

    @Test(arguments: [
        (["export", "/no/such/input.mp4", "out.mp4"], "No such file"),
        (["export", "--test-source", "/no/such/dir/out.mp4"], "cannot write"),
        (["export", "--test-source", "out.avi"], "unknown container"),
        (["export", "--test-source", "--anchor", "middle", "out.mp4"], "unknown anchor"),
        (["export", "--test-source", "--color", "blurple", "out.mp4"], "not a colour"),
        (["export", "--test-source", "--opacity", "2.5", "out.mp4"], "out of range"),
        (["export", "--frobnicate"], "Unknown option"),
        (["frobnicate"], "unknown command"),
        (["capture", "--device", "/dev/no-such-camera", "out.mp4"], "/dev/no-such-camera"),
    ])
    func badInputIsOneLineAndNonZeroExit(args: [String], message: String) throws {
        let start = Date()
        let (status, log) = try CLI.run(args)
        #expect(status != 0)
        #expect(log.contains(message), "\(log)")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func notAMediaFileIsReported() throws {
        let notMedia = TestEnv.write("not-media.mp4", "this is not a video\n")
        let out = TestEnv.path("never-written.mp4")
        let (status, log) = try CLI.run(["export", notMedia, out])
        #expect(status != 0)
        #expect(log.contains("not a media file"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A machine without gstreamer1.0-libav: an export whose encoder is missing says which
    /// element and which package; one whose decoder is missing ends at once naming the format
    /// (decodebin would leave the muxer waiting for good), and writes no file.
    @Test func aMissingPluginIsNamed() throws {
        let system = "/usr/lib/x86_64-linux-gnu/gstreamer-1.0"
        let plugins = TestEnv.path("plugins-without-libav")
        try? FileManager.default.removeItem(atPath: plugins)
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: system)
        try #require(names.contains("libgstlibav.so"), "gstreamer1.0-libav is needed to take it away")
        for name in names where name.hasSuffix(".so") && name != "libgstlibav.so" {
            try FileManager.default.createSymbolicLink(
                atPath: plugins + "/" + name, withDestinationPath: system + "/" + name)
        }
        let env = ["GST_PLUGIN_SYSTEM_PATH": plugins, "GST_REGISTRY": TestEnv.path("registry-without-libav.bin")]
        let bin = try #require(CLI.binary)

        let encoded = TestEnv.path("no-libav-encoder.mp4")
        let (status, log) = TestEnv.run(
            [bin, "export", "--test-source", "--duration", "1", "--size", "320x240", encoded], environment: env)
        #expect(status == 1, "\(log)")
        #expect(log.contains("no element \"avenc_aac\" (it comes with Debian's gstreamer1.0-libav)"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: encoded))

        let h265 = TestEnv.path("no-libav-source.mp4")
        let made = TestEnv.run([
            "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "1",
            "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-an", h265,
        ])
        try #require(made.0 == 0, "\(made.1)")
        let decoded = TestEnv.path("no-libav-decoder.mp4")
        let start = Date()
        let (status2, log2) = TestEnv.run(
            ["timeout", "-s", "KILL", "30", bin, "export", h265, decoded], environment: env)
        #expect(status2 != 0, "\(log2)")
        #expect(log2.contains("GStreamer has no H.265"), "\(log2)")
        #expect(log2.contains("decoder"), "\(log2)")
        #expect(Date().timeIntervalSince(start) < 20)
        #expect(!FileManager.default.fileExists(atPath: decoded))

        // A 10-bit clip with sound passes the probe (it lists the video by its parsed caps):
        // the missing decoder is found while running, and ends the run instead of stalling it.
        let hlg = TestEnv.path("no-libav-hlg.mp4")
        let madeHLG = TestEnv.run([
            "ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi",
            "-i", "sine=f=440:r=48000", "-t", "1", "-c:a", "aac", "-pix_fmt", "yuv420p10le", "-c:v", "libx265",
            "-preset", "ultrafast", "-x265-params", "log-level=error", hlg,
        ])
        try #require(madeHLG.0 == 0, "\(madeHLG.1)")
        let running = Date()
        let (status3, log3) = TestEnv.run(
            ["timeout", "-s", "KILL", "30", bin, "export", hlg, TestEnv.path("no-libav-hlg-out.mp4")], environment: env)
        #expect(status3 == 1, "\(log3)")
        #expect(log3.contains("GStreamer has no H.265 (Main 10 Profile) decoder here"), "\(log3)")
        #expect(Date().timeIntervalSince(running) < 20)
    }

    /// An animated logo whose frames would take 2.4 GB decoded (300 frames of 1920×1080) is
    /// kept within its 64 MB budget (a window of frames decoded ahead): the export's peak
    /// memory is measured against the same export with a still logo of that size, and every
    /// frame of the export shows the logo's frame for its time.
    @Test func aLargeAnimatedLogoStaysWithinItsMemoryBudget() throws {
        var pngs: [String] = []
        for (i, c) in [0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF].enumerated() {
            pngs.append(GstTest.solidPNG("big-\(i).png", width: 1920, height: 1080, argb: UInt32(c)))
        }
        let webp = TestEnv.path("big-animated.webp")
        var args = ["img2webp", "-lossless", "-q", "0", "-m", "0", "-loop", "0", "-d", "40"]
        for k in 0..<300 { args.append(pngs[k % 3]) }
        let (made, out) = TestEnv.run(args + ["-o", webp])
        try #require(made == 0, "\(out)")
        func peakKB(_ image: String, _ name: String) throws -> Int {
            let bin = try #require(CLI.binary)
            let (status, text) = TestEnv.run([
                "/usr/bin/time", "-f", "peak %M", bin, "export", "--test-source", "--duration", "1", "--size",
                "640x360", "--image", image, "--width", "1", "--anchor", "center", TestEnv.path(name),
            ])
            #expect(status == 0, "\(text)")
            let line = text.split(separator: "\n").last { $0.hasPrefix("peak ") } ?? ""
            return Int(line.dropFirst(5)) ?? 0
        }
        let still = try peakKB(pngs[0], "big-still.mp4")
        let animated = try peakKB(webp, "big-animated.mp4")
        let extra = Double(animated - still) / 1024
        print(
            "animated logo, 300 frames of 1920x1080: peak RSS \(animated / 1024) MB, still logo \(still / 1024) MB, +\(Int(extra)) MB"
        )
        #expect(still > 0 && animated > 0)
        #expect(extra < 64, "the animation took \(extra) MB more than a still logo")
        // 30 fps video, 25 fps animation: video frame n shows logo frame ⌊5n/6⌋ mod 3 (red,
        // green, blue), on a frame boundary when 6 divides n (those are skipped).
        let raw = TestEnv.path("big-animated.rgb")
        let (decoded, log) = TestEnv.run([
            "ffmpeg", "-v", "error", "-y", "-i", TestEnv.path("big-animated.mp4"), "-vf", "scale=64:36", "-f",
            "rawvideo", "-pix_fmt", "rgb24", raw,
        ])
        try #require(decoded == 0, "\(log)")
        let rgb = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let size = 64 * 36 * 3
        #expect(rgb.count == 30 * size)
        var wrong: [Int] = []
        for n in 0..<(rgb.count / size) where n == 0 || n % 6 != 0 {
            let centre = n * size + (18 * 64 + 32) * 3
            let channel = (5 * n / 6) % 3
            for c in 0..<3 where (c == channel) != (rgb[centre + c] > 128) { wrong.append(n) }
        }
        #expect(wrong.isEmpty, "frames showing another logo frame than their time's: \(wrong)")
    }

    @Test func printPipelineIsAReusableLaunchLine() throws {
        let (status, line) = try CLI.run([
            "export", "--test-source", "--text", "it's \"quoted\"", "--duration", "1",
            TestEnv.path("pp.mp4"), "--print-pipeline",
        ])
        #expect(status == 0)
        #expect(line.hasPrefix("gst-launch-1.0 -e videotestsrc"))
        let (rc, log) = TestEnv.run(
            ["sh", "-c", line],
            environment: [
                "GST_PLUGIN_PATH": (CLI.binary.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }) ?? ""
            ])
        #expect(rc == 0, "\(log)")
        #expect(MediaCount.of(TestEnv.path("pp.mp4"))?.videoFrames == 30)
    }
}
