import CGStreamer
import CShim
import Foundation
import GstTestSupport
import Testing

/// A local RTMP server (nginx with the rtmp module) for the duration of a test.
final class RTMPServer {
    let port: Int
    let process = Process()
    let dir: String

    init?(port: Int) {
        self.port = port
        dir = TestEnv.path("nginx-\(port)")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let module = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
        guard FileManager.default.fileExists(atPath: module),
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx")
        else { return nil }
        let conf = """
            load_module \(module);
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log;
            events { worker_connections 64; }
            rtmp { server { listen 127.0.0.1:\(port); application live { live on; record off; } } }
            """
        _ = TestEnv.write("nginx-\(port)/nginx.conf", conf)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", dir + "/nginx.conf", "-p", dir, "-g", "daemon off;"]
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        Thread.sleep(forTimeInterval: 0.7)
        if !process.isRunning { return nil }
    }

    deinit {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// Every script in pipelines/ runs in a short form and its output is checked.
@Suite(.serialized) struct PipelineScriptTests {
    static func script(_ name: String, _ args: [String] = [], env: [String: String] = [:], in dir: String) -> (
        Int32, String
    ) {
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var environment = ["NUM_BUFFERS": "45", "SINK": "fakesink"]
        for (k, v) in env { environment[k] = v }
        let quoted = args.map { "'\($0)'" }.joined(separator: " ")
        return TestEnv.run(
            ["sh", "-c", "cd '\(dir)' && exec timeout 60 bash '\(TestEnv.root)/pipelines/\(name)' \(quoted)"],
            environment: environment)
    }

    @Test(arguments: ["capture-to-file.sh", "tee-preview-record.sh", "export-file.sh"])
    func fileGraphsWritePlayableFiles(name: String) throws {
        let dir = TestEnv.path("scripts-" + name)
        let out = dir + "/out.mp4"
        let args = name == "export-file.sh" ? ["", out] : [out]
        let (status, log) = Self.script(name, args, in: dir)
        #expect(status == 0, "\(log)")
        let m = try #require(MediaCount.of(out), "\(name) wrote nothing playable")
        #expect(m.videoFrames == 45, "\(m)")
        if name == "export-file.sh" { #expect(m.audioBuffers > 0) }
    }

    @Test func segmentsScriptWritesPlayableSegments() throws {
        let dir = TestEnv.path("scripts-segments")
        let (status, log) = Self.script("capture-to-segments.sh", ["seg-%05d.mp4"], env: ["NUM_BUFFERS": "90"], in: dir)
        #expect(status == 0, "\(log)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".mp4") }.sorted()
        #expect(files.count >= 2, "\(files)")
        let total = files.compactMap { MediaCount.of(dir + "/" + $0)?.videoFrames }.reduce(0, +)
        #expect(total == 90)
    }

    @Test func hlsScriptWritesAPlaylist() throws {
        let dir = TestEnv.path("scripts-hls")
        let (status, log) = Self.script("hls.sh", [dir + "/out"], env: ["NUM_BUFFERS": "150"], in: dir)
        #expect(status == 0, "\(log)")
        let playlist = try String(contentsOfFile: dir + "/out/playlist.m3u8", encoding: .utf8)
        let segments = playlist.split(separator: "\n").filter { $0.hasSuffix(".ts") }
        #expect(segments.count >= 2)
        #expect(MediaCount.of(dir + "/out/" + (segments.first.map(String.init) ?? "")) != nil)
    }

    /// Network graphs: a receiver on loopback decodes what the script sends.
    @Test(arguments: [
        ("udp-mpegts.sh", ["PORT": "5730"], "udpsrc port=5730 caps=video/mpegts ! tsdemux ! h264parse ! avdec_h264"),
        (
            "srt.sh", ["PORT": "5731"],
            "srtsrc uri=srt://127.0.0.1:5731?mode=listener ! tsdemux ! h264parse ! avdec_h264"
        ),
    ])
    func networkScriptsReachAReceiver(name: String, env: [String: String], receiver: String) throws {
        let dir = TestEnv.path("scripts-" + name)
        let png = try StreamTests.receive(receiver, png: "scripts-\(name)-frame.png") {
            let (status, log) = Self.script(name, env: env.merging(["NUM_BUFFERS": "90"]) { $1 }, in: dir)
            #expect(status == 0, "\(log)")
        }
        #expect(PNGPixels(path: png) != nil, "\(name): the receiver decoded nothing")
    }

    @Test func rtmpScriptReachesAServer() throws {
        let server = try #require(
            RTMPServer(port: 5732), "nginx with libnginx-mod-rtmp is needed (scripts/install-deps)")
        _ = server
        let png = try StreamTests.receive(
            from: "/usr/bin/env", ["bash", TestEnv.root + "/pipelines/rtmp.sh", "rtmp://127.0.0.1:5732/live/test"],
            environment: ["NUM_BUFFERS": "600"], settle: 2,
            receiver: "rtmp2src location=rtmp://127.0.0.1:5732/live/test ! flvdemux ! h264parse ! avdec_h264",
            png: "scripts-rtmp-frame.png")
        #expect(PNGPixels(path: png) != nil, "the RTMP receiver decoded nothing")
    }

    @Test func rtspScriptServesClients() throws {
        let png = try StreamTests.receive(
            from: "/usr/bin/env", ["bash", TestEnv.root + "/pipelines/rtsp.sh", "rtsp://127.0.0.1:5733/live"],
            environment: ["DURATION": "20"], settle: 1,
            receiver: "rtspsrc location=rtsp://127.0.0.1:5733/live latency=0 ! rtph264depay ! h264parse ! avdec_h264",
            png: "scripts-rtsp-frame.png")
        #expect(PNGPixels(path: png) != nil, "the RTSP client decoded nothing")
    }
}

/// RTMP through the CLI, received back from the server.
@Suite(.serialized) struct RTMPStreamTests {
    @Test func cliStreamsToAnRTMPServer() throws {
        let server = try #require(
            RTMPServer(port: 5740), "nginx with libnginx-mod-rtmp is needed (scripts/install-deps)")
        _ = server
        let bin = try #require(CLI.binary)
        let png = try StreamTests.receive(
            from: bin,
            ["stream", "rtmp://127.0.0.1:5740/live/wm", "--test-source", "--duration", "20"] + StreamTests.overlay,
            settle: 2, receiver: "rtmp2src location=rtmp://127.0.0.1:5740/live/wm ! flvdemux ! h264parse ! avdec_h264",
            png: "rtmp-received.png")
        StreamTests.expectWatermark(png)
    }
}
