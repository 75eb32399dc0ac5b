import CGStreamer
import CShim
import Foundation
import GstTestSupport
import Testing

/// `gst-watermark stream` against real receivers on loopback: each receiver decodes the
/// stream and keeps its last frame as a PNG, in which the watermark must be visible.
@Suite(.serialized) struct StreamTests {
    static let redSquare = GstTest.solidPNG("stream-red.png", width: 64, height: 64, argb: 0xFFFF_0000)
    static let overlay = [
        "--image", redSquare, "--width", "0.2", "--anchor", "top-left", "--margin-x", "0",
        "--margin-y", "0", "--size", "640x360",
    ]

    /// Starts a receiver (a gst-launch-1.0 line ending in a decoder) that writes every
    /// frame over one PNG file; returns the process.
    static func receiver(_ head: String, png: String) throws -> Process {
        try TestEnv.spawn(
            "/bin/sh",
            [
                "-c",
                "exec gst-launch-1.0 -q \(head) ! videoconvert ! video/x-raw,format=RGB ! "
                    // One file, overwritten per frame (max-files would delete the file just written).
                    + "pngenc ! multifilesink location=\(png)",
            ])
    }

    static func stop(_ p: Process) {
        if p.isRunning { kill(p.processIdentifier, SIGINT) }
        for _ in 0..<50 where p.isRunning { Thread.sleep(forTimeInterval: 0.1) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// Starts a sender (a live stream or a server), waits `settle` seconds, then lets a
    /// receiver decode until it has written a frame (at most `wait` seconds; a loaded machine
    /// can take several seconds to start a receiver and reach a keyframe), plus one more
    /// second. Returns the PNG of the last frame it decoded.
    static func receive(
        from executable: String, _ arguments: [String], environment: [String: String] = [:],
        settle: Double, wait: Double = 15, receiver head: String, png name: String
    ) throws -> String {
        let sender = try TestEnv.spawn(executable, arguments, environment: environment)
        defer { stop(sender) }
        Thread.sleep(forTimeInterval: settle)
        let png = TestEnv.path(name)
        try? FileManager.default.removeItem(atPath: png)
        let deadline = Date().addingTimeInterval(wait)
        // A receiver that connects before the sender listens exits at once: start another.
        while Date() < deadline, sender.isRunning {
            let r = try receiver(head, png: png)
            while Date() < deadline, r.isRunning, sender.isRunning, !hasFrame(png) {
                Thread.sleep(forTimeInterval: 0.2)
            }
            if hasFrame(png) {
                Thread.sleep(forTimeInterval: 1)
                stop(r)
                break
            }
            stop(r)
            Thread.sleep(forTimeInterval: 0.5)
        }
        return png
    }

    static func hasFrame(_ png: String) -> Bool {
        ((try? FileManager.default.attributesOfItem(atPath: png)[.size] as? Int) ?? 0) > 0
    }

    /// Starts a receiver, runs `send` (which returns when sending is done), then stops the
    /// receiver. Returns the PNG of the last frame it decoded.
    static func receive(_ head: String, png name: String, while send: () throws -> Void) throws -> String {
        let png = TestEnv.path(name)
        let r = try receiver(head, png: png)
        defer { stop(r) }
        Thread.sleep(forTimeInterval: 0.5)
        try send()
        stop(r)
        return png
    }

    /// The received frame shows the red logo at the top-left on the dark test picture.
    static func expectWatermark(_ png: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let frame = PNGPixels(path: png) else {
            Issue.record("no frame received (\(png))", sourceLocation: sourceLocation)
            return
        }
        let inside = frame.pixel(30, 30)
        #expect(
            inside.r > 180 && inside.g < 80 && inside.b < 80, "logo pixel \(inside)", sourceLocation: sourceLocation)
        // The test picture is black with one moving ball: most of these points are dark.
        let outside = [(600, 20), (320, 340), (20, 340), (600, 340), (400, 150)].map { frame.pixel($0.0, $0.1) }
        #expect(outside.filter { $0.r < 60 }.count >= 3, "background pixels \(outside)", sourceLocation: sourceLocation)
    }

    @Test func udpMPEGTS() throws {
        let png = try Self.receive(
            "udpsrc port=5710 caps=video/mpegts ! tsdemux ! h264parse ! avdec_h264", png: "udp-received.png"
        ) {
            let (status, log) = try CLI.run(
                ["stream", "udp://127.0.0.1:5710", "--test-source", "--duration", "3"] + Self.overlay)
            #expect(status == 0, "\(log)")
        }
        Self.expectWatermark(png)
    }

    @Test func fileInputIsPacedInRealTime() throws {
        let input = TestEnv.path("stream-input.mp4")
        let (made, log) = try CLI.run(["export", "--test-source", "--duration", "3", "--size", "320x240", input])
        #expect(made == 0, "\(log)")
        let dir = TestEnv.path("hls-paced")
        try? FileManager.default.removeItem(atPath: dir)
        let start = Date()
        let (status, log2) = try CLI.run(["stream", "hls:" + dir, "--input", input, "--text", "LIVE"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(status == 0, "\(log2)")
        // A 3-second file takes about 3 seconds, not as fast as the machine can encode.
        #expect(elapsed > 2.7 && elapsed < 8, "took \(elapsed) s")
        let playlist = try String(contentsOfFile: dir + "/playlist.m3u8", encoding: .utf8)
        #expect(playlist.contains("#EXT-X-ENDLIST"))
    }

    @Test func srtCallerToListener() throws {
        let png = try Self.receive(
            "srtsrc uri=srt://127.0.0.1:5711?mode=listener ! tsdemux ! h264parse ! avdec_h264",
            png: "srt-received.png"
        ) {
            let (status, log) = try CLI.run(
                ["stream", "srt://127.0.0.1:5711", "--test-source", "--duration", "3"] + Self.overlay)
            #expect(status == 0, "\(log)")
        }
        Self.expectWatermark(png)
    }

    @Test func srtListenerServesACaller() throws {
        let bin = try #require(CLI.binary)
        let png = try Self.receive(
            from: bin, ["stream", "srt://:5713?mode=listener", "--test-source", "--duration", "20"] + Self.overlay,
            settle: 1, receiver: "srtsrc uri=srt://127.0.0.1:5713 ! tsdemux ! h264parse ! avdec_h264",
            png: "srt-listener-received.png")
        Self.expectWatermark(png)
    }

    @Test func rtspServer() throws {
        let bin = try #require(CLI.binary)
        let png = try Self.receive(
            from: bin, ["stream", "rtsp://127.0.0.1:5712/live", "--test-source", "--duration", "20"] + Self.overlay,
            settle: 1,
            receiver: "rtspsrc location=rtsp://127.0.0.1:5712/live latency=0 ! rtph264depay ! h264parse ! avdec_h264",
            png: "rtsp-received.png")
        Self.expectWatermark(png)
    }

    @Test func hlsPlaylistAndSegmentsPlay() throws {
        let dir = TestEnv.path("hls")
        try? FileManager.default.removeItem(atPath: dir)
        let (status, log) = try CLI.run(["stream", "hls:" + dir, "--test-source", "--duration", "5"] + Self.overlay)
        #expect(status == 0, "\(log)")
        let playlist = try String(contentsOfFile: dir + "/playlist.m3u8", encoding: .utf8)
        let segments = playlist.split(separator: "\n").filter { $0.hasSuffix(".ts") }
        #expect(segments.count >= 2, "\(playlist)")
        #expect(playlist.contains("#EXT-X-ENDLIST"))
        let png = TestEnv.path("hls-received.png")
        let played = Pipeline.run(
            """
            filesrc location=\(dir)/\(segments.first ?? "") ! tsdemux ! h264parse ! avdec_h264 ! videoconvert ! \
            video/x-raw,format=RGB ! pngenc snapshot=true ! filesink location=\(png)
            """)
        #expect(played.ok, "\(played.errors)")
        Self.expectWatermark(png)
    }

    static let srtReceiver = "srtsrc uri=srt://127.0.0.1:5715?mode=listener ! tsdemux ! h264parse ! avdec_h264"

    /// Waits until a receiver has decoded a frame into `png` (or `seconds` pass).
    static func waitForFrame(_ png: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !hasFrame(png) { Thread.sleep(forTimeInterval: 0.2) }
        return hasFrame(png)
    }

    /// The SRT receiver goes away mid-stream: without --reconnect the sender stops at once
    /// with one line naming the destination.
    @Test func srtReceiverGoneIsReported() throws {
        let png = TestEnv.path("srt-gone.png")
        try? FileManager.default.removeItem(atPath: png)
        let r = try Self.receiver(Self.srtReceiver, png: png)
        defer { Self.stop(r) }
        Thread.sleep(forTimeInterval: 0.5)
        let receiverStopper = Thread {
            _ = Self.waitForFrame(png, seconds: 20)
            Self.stop(r)
        }
        receiverStopper.start()
        let start = Date()
        let (status, log) = try CLI.run(
            ["stream", "srt://127.0.0.1:5715", "--test-source", "--duration", "40"] + Self.overlay)
        #expect(Self.hasFrame(png), "the receiver never decoded a frame: \(log)")
        #expect(status == 1)
        #expect(log.contains("srt://127.0.0.1:5715: the receiver is unreachable or went away"), "\(log)")
        #expect(Date().timeIntervalSince(start) < 35, "the sender did not notice the receiver had gone: \(log)")
    }

    /// With --reconnect the sender waits for a receiver that is not there yet, streams to it,
    /// keeps running when it goes away and streams again (watermarked) when it returns.
    @Test func srtReconnectResumesWhenTheReceiverReturns() throws {
        let bin = try #require(CLI.binary)
        let log = TestEnv.path("srt-reconnect.log")
        let sender = try TestEnv.spawn(
            "/bin/sh",
            [
                "-c", "exec \"$0\" \"$@\" 2>\(log)", bin, "stream", "srt://127.0.0.1:5715",
                "--test-source", "--reconnect", "--duration", "60",
            ] + Self.overlay)
        defer { Self.stop(sender) }
        func senderLog() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        // No receiver for 3 s: the sender keeps trying.
        Thread.sleep(forTimeInterval: 3)
        #expect(sender.isRunning, "\(senderLog())")
        for round in 1...2 {
            let png = TestEnv.path("srt-reconnect-\(round).png")
            try? FileManager.default.removeItem(atPath: png)
            let r = try Self.receiver(Self.srtReceiver, png: png)
            let got = Self.waitForFrame(png, seconds: 25)
            Thread.sleep(forTimeInterval: 1)
            Self.stop(r)
            #expect(got, "round \(round): no frame received: \(senderLog())")
            if got { Self.expectWatermark(png) }
            // The receiver is gone for 3 s: the sender keeps running.
            Thread.sleep(forTimeInterval: 3)
            #expect(sender.isRunning, "round \(round): the sender stopped: \(senderLog())")
        }
        #expect(senderLog().contains("srt://127.0.0.1:5715"), "\(senderLog())")
    }

    @Test func unsupportedOrUnreachableDestinationsFailFast() throws {
        for (args, message) in [
            (["stream", "ftp://example/x", "--test-source"], "unsupported destination"),
            (["stream", "udp://127.0.0.1", "--test-source"], "udp://HOST:PORT"),
            (["stream", "srt://127.0.0.1:5799", "--input", "/no/file.mp4"], "No such file"),
            (["stream", "udp://127.0.0.1:5799", "--test-source", "--input", "/no/file.mp4"], "use one of"),
            (
                ["stream", "srt://127.0.0.1:5798", "--test-source", "--duration", "5"],
                "srt://127.0.0.1:5798: the receiver is unreachable"
            ),
            (["stream", "udp://127.0.0.1:5799", "--test-source", "--reconnect"], "only for srt:// and rtmp://"),
            (["stream", "rtsp://127.0.0.1:5796/x", "--test-source", "--reconnect"], "only for srt:// and rtmp://"),
            (["stream", "rtmp://127.0.0.1:5797/live/x", "--test-source", "--duration", "5"], "Connection refused"),
        ] {
            let start = Date()
            let (status, log) = try CLI.run(args)
            #expect(status != 0)
            #expect(log.contains(message), "\(log)")
            #expect(Date().timeIntervalSince(start) < 10)
        }
    }
}
