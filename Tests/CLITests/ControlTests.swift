import CGStreamer
import Foundation
import GstTestSupport
import Testing

/// An MPEG-TS/UDP receiver in this process: decodes what gst-watermark sends and records,
/// per frame, when it arrived and how many sampled pixels are mostly red.
final class UDPReceiver: @unchecked Sendable {
    struct Frame {
        var at: Double
        var red: Int
    }
    private let lock = NSLock()
    private var received: [Frame] = []
    private let pipeline: UnsafeMutablePointer<GstElement>
    let countRed: Bool

    init?(port: Int, countRed: Bool = true) {
        _ = GstTest.ready
        self.countRed = countRed
        var error: UnsafeMutablePointer<GError>?
        // One decoding thread: frame threads would hold frames back and add latency.
        guard
            let p = gst_parse_launch(
                "udpsrc port=\(port) caps=\"video/mpegts,systemstream=(boolean)true,packetsize=(int)188\" "
                    + "! tsdemux ! h264parse ! avdec_h264 max-threads=1 ! videoconvert ! video/x-raw,format=RGB "
                    + "! fakesink name=s sync=false", &error)
        else { return nil }
        if let error { g_error_free(error) }
        pipeline = p
        let bin = UnsafeMutableRawPointer(p).assumingMemoryBound(to: GstBin.self)
        if let sink = gst_bin_get_by_name(bin, "s"), let pad = gst_element_get_static_pad(sink, "sink") {
            gst_pad_add_probe(
                pad, GST_PAD_PROBE_TYPE_BUFFER,
                { pad, info, data in
                    guard let pad, let info, let data, let buffer = info.pointee.data else { return GST_PAD_PROBE_OK }
                    let r = Unmanaged<UDPReceiver>.fromOpaque(data).takeUnretainedValue()
                    r.record(pad, buffer.assumingMemoryBound(to: GstBuffer.self))
                    return GST_PAD_PROBE_OK
                }, Unmanaged.passUnretained(self).toOpaque(), nil)
            gst_object_unref(pad)
            gst_object_unref(sink)
        }
        gst_element_set_state(p, GST_STATE_PLAYING)
    }

    deinit {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(pipeline)
    }

    private func record(_ pad: UnsafeMutablePointer<GstPad>, _ buffer: UnsafeMutablePointer<GstBuffer>) {
        var red = 0
        if countRed, let caps = gst_pad_get_current_caps(pad) {
            var vinfo = GstVideoInfo()
            _ = gst_video_info_from_caps(&vinfo, caps)
            gst_caps_unref(caps)
            var map = GstMapInfo()
            if gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 {
                let rowBytes = Int(vinfo.stride.0), w = Int(vinfo.width), h = Int(vinfo.height)
                if let d = map.data, map.size >= rowBytes * h {
                    // Every fourth pixel of every fourth row.
                    for y in stride(from: 0, to: h, by: 4) {
                        for x in stride(from: 0, to: w, by: 4) {
                            let p = d + y * rowBytes + x * 3
                            if p[0] > 170 && p[1] < 90 && p[2] < 90 { red += 1 }
                        }
                    }
                }
                gst_buffer_unmap(buffer, &map)
            }
        }
        let now = Date().timeIntervalSince1970
        lock.lock()
        received.append(Frame(at: now, red: red))
        lock.unlock()
    }

    var frames: [Frame] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Waits until `ready` holds for the frames so far (at most `seconds`).
    func wait(seconds: Double, until ready: ([Frame]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if ready(frames) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return ready(frames)
    }
}

/// `--control`: the HTTP API against a running stream, a real receiver and real sockets.
@Suite(.serialized) struct ControlTests {
    /// Ports for this run (several test processes may share the machine).
    static let base = 21000 + Int(getpid() % 2000) * 4

    /// Starts `gst-watermark ARGS` with stderr into a file; returns the process and the log path.
    static func start(_ args: [String], log name: String) throws -> (Process, String) {
        let bin = try #require(CLI.binary)
        let log = TestEnv.path(name)
        let command = ([bin] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let p = try TestEnv.spawn("/bin/sh", ["-c", "exec " + command.joined(separator: " ") + " 2>" + log])
        return (p, log)
    }

    /// Waits until the control server on `port` answers; fails with the sender's log if not.
    static func requireServer(
        _ port: Int, log: String, headers: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try #require(
            HTTP.waitForServer(port, headers: headers), "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")",
            sourceLocation: sourceLocation)
    }

    static func stop(_ p: Process) {
        if p.isRunning { kill(p.processIdentifier, SIGINT) }
        for _ in 0..<50 where p.isRunning { Thread.sleep(forTimeInterval: 0.1) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    static func layers(_ port: Int, headers: [String: String] = [:]) -> [[String: Any]] {
        (HTTP.request(port, "GET", "/api/layers", headers: headers)?.json?["layers"] as? [[String: Any]]) ?? []
    }

    /// A snapshot from the API as pixels.
    static func snapshot(_ port: Int, _ name: String) throws -> PNGPixels {
        let r = try #require(HTTP.request(port, "GET", "/api/snapshot.jpg"))
        #expect(r.status == 200)
        #expect(r.headers["content-type"] == "image/jpeg")
        let jpeg = TestEnv.path(name + ".jpg"), png = TestEnv.path(name + ".png")
        _ = FileManager.default.createFile(atPath: jpeg, contents: Data(r.body))
        let (status, out) = TestEnv.run([
            "gst-launch-1.0", "-q", "filesrc", "location=\(jpeg)", "!", "jpegdec", "!", "videoconvert", "!",
            "pngenc", "!", "filesink", "location=\(png)",
        ])
        #expect(status == 0, "\(out)")
        return try #require(PNGPixels(path: png))
    }

    static func count(_ f: PNGPixels, where test: (Int, Int, Int) -> Bool) -> Int {
        var n = 0
        for i in f.data.indices {
            let p = f.data[i]
            if test(Int(p >> 16 & 0xFF), Int(p >> 8 & 0xFF), Int(p & 0xFF)) { n += 1 }
        }
        return n
    }

    @Test func aChangeReachesTheReceiverWithinFramesOfTheResponse() throws {
        let udp = Self.base, control = Self.base + 1
        let receiver = try #require(UDPReceiver(port: udp))
        let (sender, log) = try Self.start(
            [
                "stream", "udp://127.0.0.1:\(udp)", "--test-source", "--size", "320x180", "--text", "WWWW",
                "--text-size", "0.3", "--anchor", "center", "--control", "127.0.0.1:\(control)",
            ], log: "control-latency.log")
        defer { Self.stop(sender) }
        try Self.requireServer(control, log: log)
        try #require(receiver.wait(seconds: 20) { $0.count >= 30 }, "the receiver decoded nothing")
        #expect(receiver.frames.suffix(10).allSatisfy { $0.red == 0 })

        let before = Date().timeIntervalSince1970
        let r = try #require(HTTP.request(control, "PATCH", "/api/layers/0", body: #"{"color": "0xFFFF0000"}"#))
        let answered = Date().timeIntervalSince1970
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json?["color"] as? String == "0xFFFF0000")
        #expect(receiver.wait(seconds: 5) { $0.contains { $0.at >= before && $0.red > 20 } })
        let after = receiver.frames.filter { $0.at >= answered }
        let late = after.firstIndex { $0.red > 20 } ?? after.count
        let first = after.first { $0.red > 20 }
        let ms = ((first?.at ?? answered) - answered) * 1000
        print("control latency: first red frame \(Int(ms)) ms and \(late) frame(s) after the PATCH response")
        #expect(late <= 2, "the change showed \(late) frames after the response")
        #expect(!after.dropFirst(late).prefix(30).contains { $0.red == 0 }, "the old colour came back")

        // The status and the snapshot show what is being sent.
        let statusReply = HTTP.request(control, "GET", "/api/status")
        let status = try #require(statusReply?.json)
        #expect((status["frames_out"] as? Int ?? 0) > 30)
        let fps = status["fps"] as? Double ?? 0
        #expect(fps > 20 && fps < 40, "fps \(fps)")
        #expect(status["output"] as? String == "udp://127.0.0.1:\(udp)")
        #expect(status["encoder"] as? String == "x264enc")
        #expect((status["bitrate_kbps"] as? Double ?? 0) > 0)
        let shot = try Self.snapshot(control, "control-snapshot")
        #expect(shot.width == 320)
        #expect(Self.count(shot) { r, g, b in r > 170 && g < 90 && b < 90 } > 500, "no red text in the snapshot")
        #expect(Self.layers(control).first?["color"] as? String == "0xFFFF0000")
    }

    /// A scoreboard: `PATCH /api/variables` with two variables, and the receiver's first frame
    /// with the change shows both of them (one request, one frame).
    @Test func twoVariablesOfOneRequestShowOnTheSameFrame() throws {
        let udp = Self.base, control = Self.base + 1
        let receiver = try #require(UDPReceiver(port: udp))
        let (sender, log) = try Self.start(
            [
                "stream", "udp://127.0.0.1:\(udp)", "--test-source", "--size", "320x180", "--text",
                "{var:home}{var:away}", "--color", "0xFFFF0000", "--text-size", "0.3", "--anchor", "center",
                "--var", "home=", "--var", "away=", "--control", "127.0.0.1:\(control)",
            ], log: "control-variables.log")
        defer { Self.stop(sender) }
        try Self.requireServer(control, log: log)
        try #require(receiver.wait(seconds: 20) { $0.count >= 30 }, "the receiver decoded nothing")
        #expect(receiver.frames.suffix(10).allSatisfy { $0.red == 0 })
        let before = Date().timeIntervalSince1970
        let r = try #require(
            HTTP.request(control, "PATCH", "/api/variables", body: #"{"home": "WW", "away": "WW"}"#))
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json?["home"] as? String == "WW" && r.json?["away"] as? String == "WW")
        #expect(receiver.wait(seconds: 5) { $0.filter { $0.at >= before && $0.red > 20 }.count >= 15 })
        let changed = receiver.frames.filter { $0.at >= before && $0.red > 20 }
        let steady = changed.suffix(10).map(\.red).sorted()[5]
        // The first frame with red already has all of it: not one variable, then the other.
        let first = try #require(changed.first).red
        #expect(Double(first) > Double(steady) * 0.8, "first changed frame \(first) red pixels, steady \(steady)")
        let variablesReply = HTTP.request(control, "GET", "/api/variables")
        let got = try #require(variablesReply?.json)
        #expect(got["home"] as? String == "WW" && got["away"] as? String == "WW")
        // A bad request changes nothing and says why.
        let bad = try #require(HTTP.request(control, "PATCH", "/api/variables", body: #"{"home": [1]}"#))
        #expect(bad.status == 400, "\(bad.text)")
        #expect((bad.json?["error"] as? String ?? "").hasPrefix("\"home\": expected a number"), "\(bad.text)")
        #expect(HTTP.request(control, "GET", "/api/variables")?.json?["home"] as? String == "WW")
    }

    @Test func badChangesAreRefusedWithAReasonAndChangeNothing() throws {
        let control = Self.base + 2
        // The folder changes may use: a logo, a file that is not an image, a folder, a link out.
        let root = TestEnv.path("control-root")
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestEnv.root + "/assets/logo.png", toPath: root + "/logo.png")
        _ = FileManager.default.createFile(atPath: root + "/notes.png", contents: Data("not an image".utf8))
        try FileManager.default.createSymbolicLink(atPath: root + "/out.png", withDestinationPath: "/etc/hostname")
        let (sender, log) = try Self.start(
            [
                "stream", "udp://127.0.0.1:\(Self.base + 3)", "--test-source", "--size", "320x180", "--text", "A",
                "--control", "\(control)", "--control-root", root,
            ], log: "control-bad.log")
        defer { Self.stop(sender) }
        try Self.requireServer(control, log: log)
        let before = try #require(HTTP.request(control, "GET", "/api/layers")).text

        let cases: [(method: String, path: String, body: String, status: Int, says: String)] = [
            (
                "PATCH", "/api/layers/0", #"{"opacity": 2.5}"#, 400,
                #"request:1:13: layer 0: "opacity": 2.5 is out of range"#
            ),
            ("PATCH", "/api/layers/0", #"{"opacity": "half"}"#, 400, "expected a number"),
            ("PATCH", "/api/layers/0", #"{"colour": "0xFFFF0000"}"#, 400, "unknown field"),
            ("PATCH", "/api/layers/0", #"{"text": "#, 400, "request:1:"),
            ("PATCH", "/api/layers/0", #"["text"]"#, 400, "expected an object"),
            ("PATCH", "/api/layers/7", #"{"text": "B"}"#, 404, "no layer 7"),
            ("PATCH", "/api/layers/0", #"{"image": "/etc/hostname"}"#, 403, "outside the folder"),
            ("PATCH", "/api/layers/0", #"{"image": "../../etc/hostname"}"#, 403, "outside the folder"),
            ("PATCH", "/api/layers/0", #"{"image": "out.png"}"#, 403, "outside the folder"),
            ("PATCH", "/api/layers/0", #"{"image": "sub"}"#, 400, "is a directory"),
            ("PATCH", "/api/layers/0", #"{"image": "notes.png"}"#, 400, "not an image"),
            ("PATCH", "/api/layers/0", #"{"image": "missing.png"}"#, 400, "No such file"),
            ("PATCH", "/api/layers/0", #"{"text-file": "/dev/zero"}"#, 403, "outside the folder"),
            (
                "PUT", "/api/config", "{ \"layers\": [ { \"text\": \"B\", \"anchor\": \"middle\" } ] }", 400,
                #"request:1:40: layer 0: "anchor": unknown anchor "middle""#
            ),
            ("PUT", "/api/config", #"{"layers": [{"image": "/etc/hostname"}]}"#, 403, "outside the folder"),
            ("GET", "/api/config", "", 405, "not allowed"),
            ("DELETE", "/api/layers/0", "", 405, "use PATCH"),
            ("GET", "/api/nothing", "", 404, "no such endpoint"),
        ]
        for c in cases {
            let r = try #require(HTTP.request(control, c.method, c.path, body: c.body.isEmpty ? nil : c.body))
            #expect(r.status == c.status, "\(c.method) \(c.path) \(c.body): \(r.status) \(r.text)")
            let message = r.json?["error"] as? String ?? ""
            #expect(message.contains(c.says), "\(c.body): \(message)")
            #expect(!message.contains("\n"))
        }
        // Bodies the server refuses before reading: too large, of unknown length, not UTF-8.
        let big = HTTPConnection(port: control)?.request(
            "PUT", "/api/config", body: Array(repeating: UInt8(ascii: " "), count: (1 << 20) + 1), close: true)
        #expect(big?.status == 413, "\(big?.text ?? "no answer")")
        let chunked = HTTPConnection(port: control)?.request(
            "PATCH", "/api/layers/0", headers: ["Transfer-Encoding": "chunked"],
            body: Array("5\r\n{\"a\":\r\n0\r\n\r\n".utf8),
            close: true)
        #expect(chunked?.status == 411, "\(chunked?.text ?? "no answer")")
        let latin1 = HTTPConnection(port: control)?.request(
            "PATCH", "/api/layers/0", body: Array("{\"text\": \"caf".utf8) + [0xE9] + Array("\"}".utf8), close: true)
        #expect(latin1?.status == 400 && latin1?.text.contains("UTF-8") == true, "\(latin1?.text ?? "no answer")")
        #expect(
            try #require(HTTP.request(control, "GET", "/api/layers")).text == before,
            "a refused change changed something")

        // Good changes inside the root: relative to it; a PUT replaces every layer.
        let ok = try #require(HTTP.request(control, "PATCH", "/api/layers/0", body: #"{"image": "logo.png"}"#))
        #expect(ok.status == 200, "\(ok.text)")
        #expect(ok.json?["image"] as? String == root + "/logo.png")
        let put = try #require(
            HTTP.request(
                control, "PUT", "/api/config",
                body: #"{"layers": [{"text": "one"}, {"image": "logo.png", "anchor": "top-left"}]}"#))
        #expect(put.status == 200, "\(put.text)")
        let now = Self.layers(control)
        #expect(now.count == 2)
        #expect(now.first?["text"] as? String == "one")
        #expect(now.last?["anchor"] as? String == "top-left")
    }

    @Test func onlyTheServersOwnNamesAndOriginsMayChangeTheLayers() throws {
        let control = Self.base + 2
        let (sender, log) = try Self.start(
            [
                "stream", "udp://127.0.0.1:\(Self.base + 3)", "--test-source", "--size", "320x180", "--text", "A",
                "--control", "\(control)", "--control-host", "studio.local",
            ], log: "control-origin.log")
        defer { Self.stop(sender) }
        try Self.requireServer(control, log: log)
        let change = #"{"text": "B"}"#
        // DNS rebinding: a page on evil.example whose name now points here.
        for host in ["evil.example", "evil.example:\(control)", "localhost.evil.example"] {
            #expect(HTTP.request(control, "GET", "/api/layers", host: host)?.status == 403, "\(host)")
            #expect(HTTP.request(control, "PATCH", "/api/layers/0", host: host, body: change)?.status == 403)
        }
        #expect(
            HTTP.request(control, "GET", "/", host: nil)?.status == 400
                || HTTP.request(control, "GET", "/", host: nil)?.status == 403)
        for host in ["127.0.0.1:\(control)", "localhost:\(control)", "studio.local:\(control)", "[::1]:\(control)"] {
            #expect(HTTP.request(control, "GET", "/api/layers", host: host)?.status == 200, "\(host)")
        }
        // A page on another site posting here directly (cross-origin) is refused.
        let cross = HTTP.request(
            control, "PATCH", "/api/layers/0", host: "127.0.0.1:\(control)", headers: ["Origin": "http://evil.example"],
            body: change)
        #expect(cross?.status == 403, "\(cross?.text ?? "")")
        #expect(Self.layers(control).first?["text"] as? String == "A")
        // The page itself (same origin) and tools without an Origin may.
        let same = HTTP.request(
            control, "PATCH", "/api/layers/0", host: "127.0.0.1:\(control)",
            headers: ["Origin": "http://127.0.0.1:\(control)"], body: change)
        #expect(same?.status == 200, "\(same?.text ?? "")")
        #expect(HTTP.request(control, "PATCH", "/api/layers/0", body: #"{"text": "C"}"#)?.status == 200)
        #expect(Self.layers(control).first?["text"] as? String == "C")
        let page = try #require(HTTP.request(control, "GET", "/"))
        #expect(page.status == 200 && page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(page.text.contains("/api/snapshot.jpg"))
    }

    @Test func beyondLoopbackEveryRequestNeedsTheToken() throws {
        let control = Self.base + 2
        let (status, out) = try CLI.run([
            "stream", "udp://127.0.0.1:\(Self.base + 3)", "--test-source", "--control", "0.0.0.0:\(control)",
        ])
        #expect(status != 0)
        #expect(out.contains("needs --control-token"), "\(out)")
        let token = "s3cret-\(getpid())"
        let (sender, log) = try Self.start(
            [
                "stream", "udp://127.0.0.1:\(Self.base + 3)", "--test-source", "--size", "320x180", "--text", "A",
                "--control", "0.0.0.0:\(control)", "--control-token", token,
            ], log: "control-token.log")
        defer { Self.stop(sender) }
        let auth = ["Authorization": "Bearer \(token)"]
        try Self.requireServer(control, log: log, headers: auth)
        for headers in [
            [:], ["Authorization": "Bearer wrong"], ["Authorization": "Bearer \(token)x"],
            ["Authorization": token],
        ] as [[String: String]] {
            let r = HTTP.request(control, "GET", "/api/status", headers: headers)
            #expect(r?.status == 401, "\(headers)")
            #expect(r?.headers["www-authenticate"] == "Bearer")
            #expect(
                HTTP.request(control, "PATCH", "/api/layers/0", headers: headers, body: #"{"text": "B"}"#)?.status
                    == 401)
        }
        #expect(HTTP.request(control, "GET", "/api/status", headers: auth)?.status == 200)
        #expect(HTTP.request(control, "PATCH", "/api/layers/0", headers: auth, body: #"{"text": "B"}"#)?.status == 200)
        #expect(Self.layers(control, headers: auth).first?["text"] as? String == "B")
        // The page loads without it (it asks for the token).
        #expect(HTTP.request(control, "GET", "/")?.status == 200)
    }

    @Test func idleConnectionsDoNotStopOthers() throws {
        let control = Self.base + 2
        let (sender, log) = try Self.start(
            [
                "stream", "udp://127.0.0.1:\(Self.base + 3)", "--test-source", "--size", "320x180", "--text", "A",
                "--control", "\(control)",
            ], log: "control-slow.log")
        defer { Self.stop(sender) }
        try Self.requireServer(control, log: log)
        // Slowloris: connections that send nothing, half a request line, or headers that never end.
        var idle: [HTTPConnection] = []
        for k in 0..<60 {
            guard let c = HTTPConnection(port: control) else { continue }
            switch k % 3 {
            case 0: break
            case 1: _ = c.send(Array("GET /api/sta".utf8))
            default:
                _ = c.send(
                    Array("PATCH /api/layers/0 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{".utf8))
            }
            idle.append(c)
        }
        #expect(idle.count == 60)
        for _ in 0..<20 {
            let start = Date()
            let r = HTTP.request(control, "GET", "/api/status")
            #expect(r?.status == 200)
            // A request held behind the idle connections waits until they are dropped; 5 s (half
            // the client's read timeout) leaves room for a busy machine's scheduling.
            #expect(Date().timeIntervalSince(start) < 5, "a request waited behind idle connections")
        }
        #expect(HTTP.request(control, "PATCH", "/api/layers/0", body: #"{"text": "still here"}"#)?.status == 200)
    }

    @Test func aThousandChangesASecondDropNoFrame() throws {
        let udp = Self.base, control = Self.base + 1
        let receiver = try #require(UDPReceiver(port: udp, countRed: false))
        let (sender, log) = try Self.start(
            [
                // 720p: a 2-core machine of this kind with an AMD EPYC keeps a live 1080p30
                // encode plus the receiver's decode at 25 fps at most, with or without changes.
                "stream", "udp://127.0.0.1:\(udp)", "--test-source", "--size", "1280x720", "--text", "0",
                "--control", "\(control)", "--bitrate", "4000",
            ], log: "control-load.log")
        defer { Self.stop(sender) }
        try Self.requireServer(control, log: log)
        try #require(receiver.wait(seconds: 20) { $0.count >= 30 }, "the receiver decoded nothing")
        Thread.sleep(forTimeInterval: 1)
        let out0 = try #require(HTTP.request(control, "GET", "/api/status")?.json?["frames_out"] as? Int)
        let received0 = receiver.frames.count
        let connection = try #require(HTTPConnection(port: control))
        let start = Date()
        var sent = 0, accepted = 0
        while Date().timeIntervalSince(start) < 10 {
            // Paced at 1000 per second on one kept-alive connection.
            let due = start.addingTimeInterval(Double(sent) / 1000)
            if due > Date() { Thread.sleep(until: due) }
            let r = connection.request("PATCH", "/api/layers/0", body: Array(#"{"text": "\#(sent)"}"#.utf8))
            sent += 1
            if r?.status == 200 { accepted += 1 }
        }
        let seconds = Date().timeIntervalSince(start)
        let laterReply = HTTP.request(control, "GET", "/api/status")
        let out1 = try #require(laterReply?.json)
        let frames = (out1["frames_out"] as? Int ?? 0) - out0
        let received = receiver.frames.count - received0
        print(
            "load: \(accepted) of \(sent) PATCH accepted in \(String(format: "%.1f", seconds)) s "
                + "(\(Int(Double(sent) / seconds))/s); frames sent \(frames), received \(received), "
                + "expected \(Int(seconds * 30))")
        #expect(accepted == sent)
        #expect(Double(sent) / seconds > 900, "only \(Double(sent) / seconds) requests per second")
        // A live source at 30 fps: a stalled pipeline would send fewer frames than the clock says.
        #expect(Double(frames) >= seconds * 30 - 3, "frames sent: \(frames) in \(seconds) s")
        #expect(Double(received) >= seconds * 30 - 3, "frames received: \(received) in \(seconds) s")
        #expect(out1["frames_dropped"] as? Int == 0)
        #expect(Self.layers(control).first?["text"] as? String == "\(sent - 1)")
    }

    /// Green pixels of a snapshot: how many, and their centre as fractions of the frame.
    static func green(_ f: PNGPixels) -> (count: Int, x: Double, y: Double) {
        var n = 0, sx = 0, sy = 0
        let h = f.data.count / max(f.width, 1)
        for y in 0..<h {
            for x in 0..<f.width {
                let p = f.pixel(x, y)
                if p.g > 170 && p.r < 90 && p.b < 90 {
                    n += 1
                    sx += x
                    sy += y
                }
            }
        }
        return (
            n, n == 0 ? 0 : Double(sx) / Double(n) / Double(f.width), n == 0 ? 0 : Double(sy) / Double(n) / Double(h)
        )
    }

    /// The control page in headless Chromium (Tests/browser/control_page.py, Selenium): it
    /// shows the snapshot, applies typed text and moves the layer by a drag on the preview;
    /// the snapshots before and after show both.
    @Test func theControlPageInARealBrowser() throws {
        let control = Self.base + 2
        let (sender, log) = try Self.start(
            [
                "stream", "udp://127.0.0.1:\(Self.base + 3)", "--test-source", "--size", "640x360", "--text", "WWWW",
                "--text-size", "0.25", "--anchor", "center", "--color", "0xFF00FF00", "--control", "\(control)",
            ], log: "control-browser.log")
        defer { Self.stop(sender) }
        try Self.requireServer(control, log: log)
        Thread.sleep(forTimeInterval: 0.5)
        let before = Self.green(try Self.snapshot(control, "browser-before"))
        #expect(before.count > 2000 && abs(before.x - 0.5) < 0.05 && abs(before.y - 0.5) < 0.05, "\(before)")
        let screenshot = TestEnv.path("control-page.png")
        let (status, out) = TestEnv.run([
            "/usr/bin/python3", TestEnv.root + "/Tests/browser/control_page.py", "\(control)", screenshot,
        ])
        print(out)
        #expect(status == 0, "\(out)")
        Thread.sleep(forTimeInterval: 0.3)
        let after = Self.green(try Self.snapshot(control, "browser-after"))
        // "I" instead of "WWWW", its centre dragged to 30 % across and down.
        #expect(after.count > 100 && after.count < before.count / 4, "\(before) → \(after)")
        #expect(abs(after.x - 0.3) < 0.05 && abs(after.y - 0.3) < 0.05, "\(after)")
        #expect(FileManager.default.fileExists(atPath: screenshot))
    }

    @Test func watchConfigFollowsAnEditorsSaveAndKeepsTheLayersOnABadOne() throws {
        let control = Self.base + 2
        let dir = TestEnv.path("control-watch")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let config = dir + "/layers.json"
        _ = FileManager.default.createFile(atPath: config, contents: Data(#"{"layers": [{"text": "one"}]}"#.utf8))
        let (sender, log) = try Self.start(
            [
                "stream", "udp://127.0.0.1:\(Self.base + 3)", "--test-source", "--size", "320x180", "--config", config,
                "--watch-config", "--text", "own", "--control", "\(control)",
            ], log: "control-watch.log")
        defer { Self.stop(sender) }
        try Self.requireServer(control, log: log)
        func texts() -> [String] { Self.layers(control).map { $0["text"] as? String ?? "" } }
        #expect(texts() == ["one", "own"])
        #expect(HTTP.request(control, "PATCH", "/api/layers/1", body: #"{"text": "own, changed"}"#)?.status == 200)
        // An editor's save: write a new file beside it, rename it over the old one.
        let temp = dir + "/.layers.json.swp"
        _ = FileManager.default.createFile(
            atPath: temp, contents: Data(#"{"layers": [{"text": "two"}, {"text": "three"}]}"#.utf8))
        #expect(rename(temp, config) == 0)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, texts() != ["two", "three", "own, changed"] { Thread.sleep(forTimeInterval: 0.1) }
        #expect(texts() == ["two", "three", "own, changed"])
        // A bad save in place: the positioned error, and the layers stay.
        _ = FileManager.default.createFile(atPath: config, contents: Data("{\"layers\": [{\"text\": 5}]}".utf8))
        var logText = ""
        let until = Date().addingTimeInterval(10)
        while Date() < until, !logText.contains("keeping the layers in use") {
            Thread.sleep(forTimeInterval: 0.1)
            logText = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        }
        #expect(logText.contains("layers.json:1:22: layer 0: \"text\": expected a string"), "\(logText)")
        #expect(texts() == ["two", "three", "own, changed"])
    }
}
