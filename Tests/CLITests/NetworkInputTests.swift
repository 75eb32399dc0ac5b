import CGStreamer
import Foundation
import GstTestSupport
import Testing

/// A network camera on loopback: `gst-watermark stream rtsp://…` serving its test source,
/// started, killed and started again by the tests; `faketime` runs it with its clock off.
final class TestCamera {
    let port: Int
    let extra: [String]
    let offset: String?
    private(set) var process: Process?

    init(port: Int, credentials: String = "", offset: String? = nil, extra: [String] = []) throws {
        self.port = port
        self.offset = offset
        self.extra =
            ["stream", "rtsp://\(credentials)127.0.0.1:\(port)/cam", "--test-source", "--size", "320x240"] + extra
        try start()
    }

    var url: String { "rtsp://127.0.0.1:\(port)/cam" }

    func start() throws {
        let bin = try #require(CLI.binary)
        if let offset {
            // The camera's wall clock (and so its RTCP sender reports) is `offset` off.
            process = try TestEnv.spawn(
                "/usr/bin/faketime", ["-f", offset, bin] + extra, environment: ["FAKETIME_DONT_FAKE_MONOTONIC": "1"])
        } else {
            process = try TestEnv.spawn(bin, extra)
        }
        Thread.sleep(forTimeInterval: 1)
    }

    /// As a power cut would: no teardown, no goodbye.
    func kill() {
        guard let p = process else { return }
        // faketime runs the camera as its child: the child first, then faketime ends by itself.
        if offset != nil {
            _ = TestEnv.run(["pkill", "-KILL", "-P", "\(p.processIdentifier)"])
            for _ in 0..<50 where p.isRunning { Thread.sleep(forTimeInterval: 0.1) }
        }
        if p.isRunning { Glibc.kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        process = nil
    }

    deinit { kill() }
}

/// `capture` and `stream` with network inputs, against local senders and servers: a camera
/// that goes away and comes back, SRT, UDP MPEG-TS, RTMP through nginx, HLS over HTTP, a
/// restream with its slate, the camera's clock, and inputs that cannot be had.
@Suite(.serialized) struct NetworkInputCLITests {
    /// Starts the CLI with its stderr in a log file.
    static func spawn(_ args: [String], log: String) throws -> Process {
        let bin = try #require(CLI.binary)
        try? FileManager.default.removeItem(atPath: log)
        return try TestEnv.spawn("/bin/sh", ["-c", "exec \"$0\" \"$@\" 2>\(log)", bin] + args)
    }

    static func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// Waits until `condition` holds (at most `seconds`); whether it did.
    static func wait(_ seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return condition()
    }

    static func interrupt(_ p: Process, within seconds: Double = 30) {
        if p.isRunning { kill(p.processIdentifier, SIGINT) }
        _ = wait(seconds) { !p.isRunning }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// The video packets' times in a file, in order.
    static func videoTimes(_ path: String) -> [Double] {
        let (_, out) = TestEnv.run([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time", "-of", "csv=p=0",
            path,
        ])
        // (MPEG-TS packets end their line with a comma: an empty side-data column.)
        return out.split(separator: "\n").compactMap {
            Double($0.trimmingCharacters(in: CharacterSet(charactersIn: " ,")))
        }.sorted()
    }

    /// A frame of a file at `seconds`, as a PNG.
    static func frame(_ path: String, at seconds: Double, png: String) -> PNGPixels? {
        _ = TestEnv.run(["ffmpeg", "-v", "error", "-y", "-ss", "\(seconds)", "-i", path, "-frames:v", "1", png])
        return PNGPixels(path: png)
    }

    /// Bright pixels (text, the test picture's ball) in a rectangle.
    static func bright(_ f: PNGPixels, x: Range<Int>, y: Range<Int>) -> Int {
        var n = 0
        for yy in y {
            for xx in x where f.pixel(xx, yy).g > 180 { n += 1 }
        }
        return n
    }

    // MARK: RTSP: the camera goes away twice

    /// A segmented recording of an RTSP camera that is killed and started again twice: one
    /// line for each loss and each return, every segment plays without a gap inside it, the
    /// recording goes on after each restart, and SIGINT finishes the last file.
    @Test func rtspRecordingSurvivesTheCameraGoingAwayTwice() throws {
        let camera = try TestCamera(port: 5901)
        let dir = TestEnv.path("net-rtsp")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let log = dir + ".log"
        let capture = try Self.spawn(
            [
                "capture", camera.url, dir + "/rec.mp4", "--segment-duration", "2", "--text",
                "{camera-clock:%H:%M:%S} CAM 1", "--text-size", "0.1",
            ], log: log)
        defer { Self.interrupt(capture) }
        for round in 1...2 {
            #expect(Self.wait(25) { Self.count("input ", in: Self.text(log)) >= 2 * round - 1 }, "\(Self.text(log))")
            Thread.sleep(forTimeInterval: 4)
            camera.kill()
            #expect(Self.wait(15) { Self.count("input lost:", in: Self.text(log)) == round }, "\(Self.text(log))")
            Thread.sleep(forTimeInterval: 2)
            #expect(capture.isRunning, "the recording stopped: \(Self.text(log))")
            try camera.start()
            #expect(Self.wait(25) { Self.count("input back after", in: Self.text(log)) == round }, "\(Self.text(log))")
        }
        Thread.sleep(forTimeInterval: 4)
        Self.interrupt(capture)
        let report = Self.text(log)
        #expect(capture.terminationStatus == 0, "\(report)")
        #expect(Self.count("input lost: \(camera.url)", in: report) == 2, "\(report)")
        #expect(Self.count("input back after", in: report) == 2, "\(report)")
        #expect(report.contains("stopped; output finalized"), "\(report)")

        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".mp4") }.sorted()
        #expect(files.count >= 6, "\(files)")
        var frames = 0
        for f in files {
            let path = dir + "/" + f
            // Every segment, the last one too, plays; inside one, frames follow at the
            // camera's rate (a loss ends a segment: its gap is between files).
            let m = try #require(MediaCount.of(path), "\(f) does not play")
            #expect(m.videoFrames > 0 && m.width == 320, "\(f): \(m)")
            frames += m.videoFrames
            let times = Self.videoTimes(path)
            let gap = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? 0
            #expect(gap < 1, "\(f): a gap of \(gap) s inside the segment")
        }
        // About 3 × 6 s recorded at 30 fps (frames the loaded machine drops aside).
        #expect(frames > 250, "\(frames) frames in \(files)")
        // The camera's time is burned in, bottom right, in the segments before and after a
        // restart.
        for f in [files[1], files[files.count - 2]] {
            let png = TestEnv.path("net-rtsp-\(f).png")
            let pixels = try #require(Self.frame(dir + "/" + f, at: 1, png: png))
            #expect(Self.bright(pixels, x: 170..<315, y: 205..<235) > 60, "no text in \(f)")
        }
    }

    // MARK: the other protocols

    /// A sender (gst-launch-1.0, H.264 320×240 and, when `audio`, AAC) and a capture of
    /// it: the recording has the frames, the audio and the mark.
    func record(
        _ name: String, input: String, sender: String, audio: Bool, captureSeconds: Int = 6,
        senderFirst: Bool = false
    ) throws {
        let out = TestEnv.path("net-\(name).mp4")
        let log = TestEnv.path("net-\(name).log")
        try? FileManager.default.removeItem(atPath: out)
        // SPS and PPS before every keyframe, as contribution encoders send them (a receiver
        // that joins late, or an SRT listener that loses the first packets, needs them).
        var head = "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! "
        head += "x264enc tune=zerolatency key-int-max=30 ! h264parse config-interval=-1 ! "
        let send = {
            try TestEnv.spawn(
                "/bin/sh",
                [
                    "-c",
                    "exec gst-launch-1.0 -q \(head)\(sender)"
                        + (audio ? " audiotestsrc is-live=true ! audioconvert ! avenc_aac ! aacparse ! m." : ""),
                ])
        }
        var senderProcess = senderFirst ? try send() : nil
        if senderFirst { Thread.sleep(forTimeInterval: 1.5) }
        let capture = try Self.spawn(
            [
                "capture", input, out, "--duration", "\(captureSeconds)", "--text", name.uppercased(), "--text-size",
                "0.1",
            ],
            log: log)
        if !senderFirst {
            Thread.sleep(forTimeInterval: 1)
            senderProcess = try send()
        }
        defer { if let s = senderProcess { StreamTests.stop(s) } }
        _ = Self.wait(Double(captureSeconds) + 30) { !capture.isRunning }
        Self.interrupt(capture)
        let report = Self.text(log)
        #expect(capture.terminationStatus == 0, "\(report)")
        #expect(report.contains("input connected"), "\(report)")
        let m = try #require(MediaCount.of(out), "\(name): the recording does not play: \(report)")
        #expect(m.videoFrames >= 60 && m.width == 320 && m.height == 240, "\(name): \(m)")
        #expect((m.audioBuffers > 0) == audio, "\(name): audio \(m.audioBuffers) buffers")
        let pixels = try #require(Self.frame(out, at: 1.5, png: TestEnv.path("net-\(name).png")))
        #expect(Self.bright(pixels, x: 200..<315, y: 205..<235) > 40, "\(name): no mark")
    }

    @Test func srtListenerTakesACaller() throws {
        try record(
            "srt", input: "srt://:5902?mode=listener",
            sender: "mpegtsmux name=m alignment=7 ! srtsink uri=srt://127.0.0.1:5902",
            audio: false)
    }

    @Test func udpMPEGTSWithAudio() throws {
        try record(
            "udp", input: "udp://:5903", sender: "mpegtsmux name=m ! udpsink host=127.0.0.1 port=5903", audio: true)
    }

    @Test(.enabled(if: RTMPServer(port: 5904) != nil, "nginx with libnginx-mod-rtmp is needed (scripts/install-deps)"))
    func rtmpPulledFromNginx() throws {
        let server = try #require(RTMPServer(port: 5905))
        try record(
            "rtmp", input: "rtmp://127.0.0.1:\(server.port)/live/cam",
            sender: "flvmux name=m streamable=true ! rtmp2sink location=rtmp://127.0.0.1:\(server.port)/live/cam",
            audio: true, senderFirst: true)
    }

    /// A playlist written by hlssink2, served over HTTP: all of it is recorded, and the
    /// playlist's end ends the recording (exit 0).
    @Test func hlsPlaylistOverHTTP() throws {
        let dir = TestEnv.path("net-hls")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // hlssink2 (1.22) can hang at EOS after writing its last segment and the playlist's
        // end: the playlist's end is what counts, then the writer goes.
        let writer = try TestEnv.spawn(
            "/usr/bin/env",
            [
                "gst-launch-1.0", "-q", "videotestsrc", "num-buffers=150", "!",
                "video/x-raw,width=320,height=240,framerate=30/1", "!", "x264enc", "key-int-max=30", "!", "h264parse",
                "!", "hlssink2", "location=\(dir)/seg%05d.ts", "playlist-location=\(dir)/playlist.m3u8",
                "target-duration=1", "max-files=0", "playlist-length=0",
            ])
        let ended = Self.wait(60) { Self.text("\(dir)/playlist.m3u8").contains("#EXT-X-ENDLIST") }
        if writer.isRunning { kill(writer.processIdentifier, SIGKILL) }
        writer.waitUntilExit()
        #expect(ended, "hlssink2 wrote no complete playlist: \(Self.text("\(dir)/playlist.m3u8"))")
        let server = try TestEnv.spawn(
            "/usr/bin/python3", ["-m", "http.server", "5906", "--bind", "127.0.0.1", "--directory", dir])
        defer { StreamTests.stop(server) }
        Thread.sleep(forTimeInterval: 1)
        let out = TestEnv.path("net-hls.mp4")
        let (status, log) = try CLI.run([
            "capture", "http://127.0.0.1:5906/playlist.m3u8", out, "--duration", "40", "--text", "HLS", "--text-size",
            "0.1",
        ])
        #expect(status == 0, "\(log)")
        #expect(log.contains("the input's playlist ended"), "\(log)")
        let m = try #require(MediaCount.of(out), "\(log)")
        #expect(m.videoFrames >= 140 && m.videoFrames <= 150, "\(m)")
        let pixels = try #require(Self.frame(out, at: 2, png: TestEnv.path("net-hls.png")))
        #expect(Self.bright(pixels, x: 230..<315, y: 205..<235) > 40, "no mark")
    }

    /// An MJPEG camera: JPEG frames as a multipart/x-mixed-replace HTTP response, 10 a
    /// second, from a small local server.
    @Test func mjpegOverHTTP() throws {
        let dir = TestEnv.path("net-mjpeg")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let (made, madeLog) = TestEnv.run([
            "gst-launch-1.0", "-q", "videotestsrc", "num-buffers=30", "!", "video/x-raw,width=320,height=240", "!",
            "jpegenc", "!", "multifilesink", "location=\(dir)/f%02d.jpg",
        ])
        #expect(made == 0, "\(madeLog)")
        let script = """
            import glob, http.server, sys, time
            frames = [open(f, 'rb').read() for f in sorted(glob.glob(sys.argv[2] + '/f*.jpg'))]
            class Camera(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(200)
                    self.send_header('Content-Type', 'multipart/x-mixed-replace; boundary=frame')
                    self.end_headers()
                    i = 0
                    try:
                        while True:
                            f = frames[i % len(frames)]
                            i += 1
                            self.wfile.write(b'--frame\\r\\nContent-Type: image/jpeg\\r\\nContent-Length: %d\\r\\n\\r\\n' % len(f) + f + b'\\r\\n')
                            time.sleep(0.1)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                def log_message(self, *args):
                    pass
            http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), Camera).serve_forever()
            """
        try script.write(toFile: "\(dir)/camera.py", atomically: true, encoding: .utf8)
        let server = try TestEnv.spawn("/usr/bin/python3", ["\(dir)/camera.py", "5915", dir])
        defer { StreamTests.stop(server) }
        Thread.sleep(forTimeInterval: 1)
        let out = TestEnv.path("net-mjpeg.mp4")
        let (status, log) = try CLI.run([
            "capture", "http://127.0.0.1:5915/video.mjpg", out, "--duration", "5", "--text", "MJPEG", "--text-size",
            "0.1",
        ])
        #expect(status == 0, "\(log)")
        #expect(log.contains("input connected"), "\(log)")
        let m = try #require(MediaCount.of(out), "\(log)")
        #expect(m.videoFrames >= 30 && m.width == 320 && m.height == 240, "\(m)")
        let pixels = try #require(Self.frame(out, at: 2, png: TestEnv.path("net-mjpeg.png")))
        #expect(Self.bright(pixels, x: 200..<315, y: 205..<235) > 40, "no mark")
    }

    // MARK: restream

    /// SRT in, UDP out, the sender killed twice (as a power cut would) and away 10 s each
    /// time: the receiver's stream never pauses. It holds 30 ± 1 frames in every second
    /// (the last input frame repeated, then the slate within 2 s, then the picture again
    /// when the sender is back), and the restream reports each loss and return.
    @Test func restreamKeepsItsFrameRateThroughADropWithTheSlate() throws {
        let dir = TestEnv.path("net-restream")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let log = dir + ".log"
        let received = dir + "/rx.ts"
        // The receiver keeps what arrives as it is, unbuffered (gst-launch stopped by a signal
        // would lose the last 64 kB, seconds of a slate); it is read back once the run is over.
        let receiver = try TestEnv.spawn(
            "/bin/sh",
            [
                "-c",
                "exec gst-launch-1.0 -q udpsrc port=5908 caps=video/mpegts ! "
                    + "filesink buffer-mode=unbuffered location=\(received)",
            ])
        defer { StreamTests.stop(receiver) }
        Thread.sleep(forTimeInterval: 1)
        let restream = try Self.spawn(
            [
                "stream", "udp://127.0.0.1:5908", "--input", "srt://:5907?mode=listener", "--text", "LIVE",
                "--anchor", "top-left", "--text-size", "0.1", "--duration", "60",
            ], log: log)
        defer { Self.interrupt(restream) }
        let sender =
            "gst-launch-1.0 -q videotestsrc is-live=true pattern=smpte ! video/x-raw,width=320,height=240,framerate=30/1 ! "
            + "x264enc tune=zerolatency key-int-max=30 ! mpegtsmux alignment=7 ! srtsink uri=srt://127.0.0.1:5907"
        var firstRound = 0.0
        var started: Date?
        for (round, line) in ["input connected:", "input back after"].enumerated() {
            Thread.sleep(forTimeInterval: 0.5)
            let s = try TestEnv.spawn("/bin/sh", ["-c", "exec " + sender])
            // The restream's first frame of this connection (not a "still away" line).
            #expect(Self.wait(25) { Self.text(log).contains(line) }, "\(Self.text(log))")
            let connected = Date()
            if started == nil { started = connected }
            Thread.sleep(forTimeInterval: 5)
            kill(s.processIdentifier, SIGKILL)
            let killed = Date()
            if round == 0 { firstRound = killed.timeIntervalSince(connected) }
            s.waitUntilExit()
            // The loss is told 2 s after the last frame arrived (plus the input's latency),
            // not when the connection times out.
            #expect(Self.wait(8) { Self.count("input lost:", in: Self.text(log)) > round }, "\(Self.text(log))")
            let noticed = Date().timeIntervalSince(killed)
            #expect(noticed < 3.5, "the loss was told \(noticed) s after the sender stopped")
            Thread.sleep(forTimeInterval: max(0, 10 - noticed))
        }
        #expect(restream.isRunning, "\(Self.text(log))")
        let span = Date().timeIntervalSince(started ?? Date())
        Self.interrupt(restream)
        StreamTests.stop(receiver)

        // Frames in every second of the stream's time (the first and the last second are
        // partial: the receiver and the restream start and stop within them).
        let times = Self.videoTimes(received)
        let first = try #require(times.first, "nothing received: \(Self.text(log))")
        var perSecond = [Int](repeating: 0, count: Int(times.last! - first) + 1)
        for t in times { perSecond[Int(t - first)] += 1 }
        let whole = perSecond.dropFirst().dropLast()
        // The stream lasts from the first connection to the interrupt (less the input's
        // latency and the two partial seconds).
        #expect(Double(whole.count) >= span - 3, "\(perSecond) over \(span) s")
        #expect(whole.allSatisfy { (29...31).contains($0) }, "frames in each second: \(perSecond)")

        // The frames in order, each the test pattern, the slate or neither, with their times.
        _ = TestEnv.run([
            "ffmpeg", "-v", "error", "-i", received, "-vf", "scale=160:120", "-fps_mode", "passthrough",
            dir + "/rx-%05d.png",
        ])
        let (_, frameTimes) = TestEnv.run([
            "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time", "-of", "csv=p=0",
            received,
        ])
        let pts = frameTimes.split(separator: "\n").compactMap {
            Double($0.trimmingCharacters(in: CharacterSet(charactersIn: " ,")))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".png") }.sorted()
        #expect(names.count == pts.count, "\(names.count) pictures, \(pts.count) times")
        enum Kind { case picture, slate, other }
        var kinds: [(Kind, Double)] = []
        for (name, time) in zip(names, pts) {
            guard let f = PNGPixels(path: dir + "/" + name) else { continue }
            // SMPTE bars: yellow at 30 % across; the slate: black there, its text in the middle.
            let bar = f.pixel(35, 40)
            let middle = Self.bright(f, x: 40..<120, y: 50..<70)
            let kind: Kind =
                bar.r > 150 && bar.g > 150 && bar.b < 100
                ? .picture : (bar.r < 40 && bar.g < 40 && middle > 20 ? .slate : .other)
            kinds.append((kind, time))
        }
        let changes = kinds.enumerated().filter { $0.offset == 0 || kinds[$0.offset - 1].0 != $0.element.0 }
            .map { $0.element.0 }.filter { $0 != .other }
        #expect(changes.starts(with: [.picture, .slate, .picture, .slate]), "\(changes) from \(names.count) frames")
        // The slate follows the last picture without a gap, and within 2 s of the input's
        // last frame: the pictures before it (the input's frames from its connection to the
        // kill, then the repeats of its last one) last at most 2 s longer than the sender did,
        // plus the input pipeline's own latency (SRT's and tsdemux's: 0.88 s).
        if let firstSlate = kinds.firstIndex(where: { $0.0 == .slate }),
            let lastPicture = kinds[..<firstSlate].last(where: { $0.0 == .picture })
        {
            let delay = kinds[firstSlate].1 - lastPicture.1
            #expect(delay < 0.1, "a gap of \(delay) s before the slate")
            let pictures = kinds[..<firstSlate].filter { $0.0 == .picture }.count
            #expect(
                Double(pictures) <= (firstRound + 2.9) * 30 + 3, "\(pictures) pictures for \(firstRound) s of input")
        }
        let report = Self.text(log)
        #expect(Self.count("input lost:", in: report) == 2 && report.contains("input back after"), "\(report)")
    }

    // MARK: the camera's clock

    static let haveFaketime = FileManager.default.isExecutableFile(atPath: "/usr/bin/faketime")

    /// The time on a frame is the camera's: with the camera's clock two hours behind, the
    /// recording shows the camera's hour, and the log gives the offset (7200 s and the
    /// jitter buffer's latency). With the clocks together, the camera's time on a frame is
    /// within 100 ms of when the camera made it (same machine: arrival less the latency).
    @Test(.enabled(if: haveFaketime, "faketime is needed (scripts/install-deps)"))
    func cameraClockFollowsTheCameraNotTheRecorder() throws {
        do {
            let camera = try TestCamera(port: 5910, offset: "-7200s")
            let out = TestEnv.path("net-camclock.mp4")
            let (status, log) = try CLI.run([
                "capture", camera.url, out, "--duration", "8", "--text", "{camera-clock:%H}", "--anchor", "top-left",
                "--text-size", "0.3",
            ])
            #expect(status == 0, "\(log)")
            let offset = try #require(Self.cameraOffset(log), "\(log)")
            #expect(offset > 7200 && offset < 7201, "\(log)")
            // The last second: frames after the first sender report carry the camera's time.
            let pixels = try #require(Self.frame(out, at: 6.5, png: TestEnv.path("net-camclock.png")))
            let hour = Calendar.current.component(.hour, from: Date())
            let cameraHour = (hour + 22) % 24
            func two(_ h: Int) -> String { h < 10 ? "0\(h)" : "\(h)" }
            let asCamera = try Self.agreement(pixels, with: Self.render(two(cameraHour)))
            let asRecorder = try Self.agreement(pixels, with: Self.render(two(hour)))
            #expect(asCamera > asRecorder + 50, "camera's hour \(asCamera), recorder's \(asRecorder)")
        }
        let camera = try TestCamera(port: 5911)
        let (status, log) = try CLI.run([
            "capture", camera.url, TestEnv.path("net-camclock2.mp4"), "--duration", "8", "--latency", "200",
        ])
        #expect(status == 0, "\(log)")
        let delay = try #require(Self.cameraOffset(log), "\(log)")
        #expect(abs(delay - 0.2) < 0.1, "frames arrive \(delay) s after the camera's time (latency 0.2 s)")
    }

    /// "camera clock: frames arrive X s after …" from a log.
    static func cameraOffset(_ log: String) -> Double? {
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix("camera clock: frames arrive ") })
        else { return nil }
        let words = line.split(separator: " ")
        return words.count > 4 ? Double(words[4]) : nil
    }

    /// The text as the element draws it at the top left of a black 320×240 frame.
    static func render(_ text: String) throws -> PNGPixels {
        let bin = try #require(CLI.binary)
        let png = TestEnv.path("net-render-\(text).png")
        let (status, log) = TestEnv.run(
            [
                "gst-launch-1.0", "-q", "videotestsrc", "num-buffers=1", "pattern=black", "!",
                "video/x-raw,width=320,height=240", "!", "watermark", "text=\(text)", "anchor=top-left",
                "text-size=0.3",
                "font-features=tnum", "!", "videoconvert", "!", "pngenc", "!", "filesink", "location=\(png)",
            ], environment: ["GST_PLUGIN_PATH": URL(fileURLWithPath: bin).deletingLastPathComponent().path])
        #expect(status == 0, "\(log)")
        return try #require(PNGPixels(path: png))
    }

    /// Pixels of the text's corner where the frame and the rendering agree on text, less
    /// those where they disagree (the test picture's ball counts against both alike).
    static func agreement(_ frame: PNGPixels, with text: PNGPixels) -> Int {
        var score = 0
        for y in 0..<110 {
            for x in 0..<160 {
                let a = frame.pixel(x, y).g > 128, b = text.pixel(x, y).g > 128
                if a && b { score += 1 } else if a != b { score -= 1 }
            }
        }
        return score
    }

    // MARK: inputs that cannot be had

    @Test func unreachableWrongPasswordAndUnknownInputs() throws {
        // Nothing listens: with --max-retries 0, one line naming the URL and exit 1.
        let start = Date()
        let (status, log) = try CLI.run([
            "capture", "rtsp://127.0.0.1:5912/cam", TestEnv.path("net-none.mp4"), "--max-retries", "0",
        ])
        #expect(status == 1, "\(log)")
        let errors = log.split(separator: "\n").filter { $0.hasPrefix("gst-watermark:") }
        #expect(errors.count == 1 && errors[0].contains("rtsp://127.0.0.1:5912/cam: Could not open resource"), "\(log)")
        #expect(Date().timeIntervalSince(start) < 10)
        // Otherwise it retries, saying so, after 1 s, then 2 s.
        let (retried, retryLog) = try CLI.run([
            "capture", "rtsp://127.0.0.1:5912/cam", TestEnv.path("net-none.mp4"), "--max-retries", "2",
        ])
        #expect(retried == 1)
        #expect(retryLog.contains("cannot reach input: rtsp://127.0.0.1:5912/cam"), "\(retryLog)")
        #expect(retryLog.contains("retrying in 1 s") && retryLog.contains("retrying in 2 s"), "\(retryLog)")
        #expect(retryLog.contains("(gave up after 2 retries)"), "\(retryLog)")
        #expect(!FileManager.default.fileExists(atPath: TestEnv.path("net-none.mp4")), "an empty recording was left")
        // A listener nobody calls, until --duration: nothing recorded is a failure, not "wrote".
        let (silent, silentLog) = try CLI.run([
            "capture", "srt://:5914?mode=listener", TestEnv.path("net-silent.mp4"), "--duration", "2",
        ])
        #expect(silent == 1 && silentLog.contains("nothing received: the input never sent a frame"), "\(silentLog)")
        #expect(!silentLog.contains("wrote"), "\(silentLog)")

        // A wrong password: a clear error at once, no retries, the password never shown.
        let camera = try TestCamera(port: 5913, credentials: "admin:right@")
        let began = Date()
        let (denied, deniedLog) = try CLI.run([
            "capture", "rtsp://admin:wrongpw@127.0.0.1:5913/cam", TestEnv.path("net-denied.mp4"),
        ])
        #expect(denied == 1, "\(deniedLog)")
        #expect(deniedLog.contains("rtsp://admin:***@127.0.0.1:5913/cam: the camera refused the user name or password"))
        #expect(!deniedLog.contains("retrying") && !deniedLog.contains("wrongpw"), "\(deniedLog)")
        #expect(Date().timeIntervalSince(began) < 10)
        // The right one records.
        let good = TestEnv.path("net-auth.mp4")
        let (ok, okLog) = try CLI.run(["capture", "rtsp://admin:right@127.0.0.1:5913/cam", good, "--duration", "3"])
        #expect(ok == 0, "\(okLog)")
        #expect((MediaCount.of(good)?.videoFrames ?? 0) > 30, "\(okLog)")
        camera.kill()

        // A scheme nobody serves: a usage error.
        let (unknown, unknownLog) = try CLI.run(["capture", "ftp://127.0.0.1/cam", TestEnv.path("net-ftp.mp4")])
        #expect(unknown == 2 && unknownLog.contains("unsupported input \"ftp://\""), "\(unknownLog)")
        // What runs: both pipelines.
        let (printed, pipelines) = try CLI.run(["capture", "rtsp://cam/s", "rec.mp4", "--print-pipeline"])
        #expect(printed == 0)
        #expect(
            pipelines.contains("uridecodebin name=d uri=\"rtsp://cam/s\"") && pipelines.contains("appsrc name=video"))
    }
}
