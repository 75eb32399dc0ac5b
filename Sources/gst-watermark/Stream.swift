import CGStreamer
import CGstRtspServer
import Glibc
import Watermark
import WatermarkModel

/// Where a stream goes, parsed from the URL the user gives.
enum StreamTarget {
    case udp(host: String, port: Int)
    case srt(uri: String)
    case rtmp(url: String)
    case rtsp(address: String, port: Int, path: String)
    case hls(directory: String)

    init(_ url: String) throws(UsageError) {
        func hostPort(_ rest: Substring, scheme: String) throws(UsageError) -> (String, Int, String) {
            var hp = rest
            var tail = ""
            if let cut = hp.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                tail = String(hp[cut...])
                hp = hp[..<cut]
            }
            guard let colon = hp.lastIndex(of: ":"), let port = Int(hp[hp.index(after: colon)...]),
                (1...65535).contains(port)
            else {
                throw UsageError(message: "\(url): expected \(scheme)://HOST:PORT")
            }
            let host = String(hp[..<colon])
            return (host.isEmpty ? "0.0.0.0" : host, port, tail)
        }
        if url.hasPrefix("udp://") {
            let (h, p, _) = try hostPort(url.dropFirst(6), scheme: "udp")
            self = .udp(host: h, port: p)
        } else if url.hasPrefix("srt://") {
            _ = try hostPort(url.dropFirst(6), scheme: "srt")
            self = .srt(uri: url)
        } else if url.hasPrefix("rtmp://") || url.hasPrefix("rtmps://") {
            self = .rtmp(url: url)
        } else if url.hasPrefix("rtsp://") {
            let (h, p, tail) = try hostPort(url.dropFirst(7), scheme: "rtsp")
            let path = tail.hasPrefix("/") && tail.count > 1 ? tail : "/stream"
            self = .rtsp(address: h, port: p, path: path)
        } else if url.hasPrefix("hls:") {
            let dir = String(url.dropFirst(4))
            guard !dir.isEmpty else { throw UsageError(message: "\(url): expected hls:DIRECTORY") }
            self = .hls(directory: dir)
        } else {
            throw UsageError(message: "\(url): unsupported destination (srt://, rtmp://, udp://, rtsp://, hls:DIR)")
        }
    }

    /// A connection to one receiver that can fail and be made again (srt:// as caller or
    /// listener, rtmp://); UDP has no connection, RTSP and HLS serve whoever comes.
    var hasReceiver: Bool {
        switch self {
        case .srt, .rtmp: true
        default: false
        }
    }
}

func streamCommand(_ args: [String]) throws(UsageError) -> Int32 {
    let p = OptionParser(
        parameters: "URL",
        summary: """
            Streams live video with the watermark burned in, with low-latency H.264:
              srt://HOST:PORT[?mode=listener]   SRT (MPEG-TS), caller by default
              rtmp://SERVER/APP/KEY             RTMP (FLV), e.g. a streaming service's ingest
              udp://HOST:PORT                   MPEG-TS over UDP
              rtsp://ADDRESS:PORT/PATH          serves RTSP clients at that address
              hls:DIRECTORY                     HLS playlist (playlist.m3u8) and segments

            Example:
              gst-watermark stream udp://127.0.0.1:5000 --test-source --text LIVE
            """)
    OverlayOptions.add(to: p)
    addTestSourceOptions(p)
    p.add("input", nil, .string, "Stream a file (paced in real time)", arg: "FILE")
    p.add("device", nil, .string, "Stream a V4L2 camera", arg: "DEVICE")
    p.add("bitrate", "b", .int, "Video bitrate in kbit/s (default 2500)", arg: "KBPS")
    p.add("duration", "d", .double, "Stop after this many seconds (default: until Ctrl-C)", arg: "SECONDS")
    p.add(
        "reconnect", nil, .flag,
        "When the receiver is unreachable or goes away, keep trying every 2 s and resume when it is back (srt://, rtmp://)"
    )
    ControlOptions.add(to: p)
    p.add("print-pipeline", nil, .flag, "Print the equivalent gst-launch-1.0 command and exit")
    p.add("verbose", "v", .flag, "Show debug details with errors")
    let positional = try p.parse(program: "gst-watermark stream", args)
    registerElement()
    verbose = p.flag("verbose")
    guard positional.count == 1 else { throw UsageError(message: "stream takes one argument: URL") }
    let target = try StreamTarget(positional[0])
    let controlled = try ControlOptions.parse(p)
    if controlled != nil, case .rtsp = target {
        throw UsageError(message: "--control/--watch-config: not with rtsp:// (each client gets its own pipeline)")
    }
    // Under control, the layers reach the element as one config-data document.
    let watermark = controlled == nil ? try OverlayOptions.launchDescription(from: p) : "watermark name=wm"
    let fps = try parseFPS(p)
    let bitrate = p.int("bitrate") ?? 2500
    guard (100...100_000).contains(bitrate) else {
        throw UsageError(message: "--bitrate: \(bitrate) is out of range (100..100000)")
    }

    let reconnect = p.flag("reconnect")
    if reconnect && !target.hasReceiver {
        throw UsageError(message: "--reconnect: only for srt:// and rtmp:// destinations")
    }
    let chosen = [p.flag("test-source"), p.string("input") != nil, p.string("device") != nil].filter { $0 }.count
    guard chosen <= 1 else { throw UsageError(message: "use one of --input, --device and --test-source") }
    var source: String
    if let input = p.string("input") {
        let media = try MediaInfo.probe(input)
        guard media.hasVideo else { throw UsageError(message: "\(input): has no video stream") }
        // clocksync paces a file at its own speed, as a live source would be.
        source = "filesrc location=\(LaunchSyntax.quote(input)) ! decodebin ! queue ! videoconvert ! clocksync"
    } else if let device = p.string("device") {
        try checkDevice(device)
        source = "v4l2src device=\(LaunchSyntax.quote(device)) ! videoconvert"
    } else {
        let (w, h) = try parseSize(p.string("size"))
        source = "videotestsrc is-live=true pattern=ball ! video/x-raw,width=\(w),height=\(h),framerate=\(fps)/1"
    }
    let encode =
        "\(source) ! \(Orientation.upright(nil)) ! \(watermark) follow-orientation=false ! videoconvert ! video/x-raw,format=I420 ! "
        + "x264enc tune=zerolatency speed-preset=ultrafast bitrate=\(bitrate) key-int-max=\(fps) ! h264parse config-interval=-1"
    let description: String
    switch target {
    case .udp(let host, let port):
        description = "\(encode) ! mpegtsmux alignment=7 ! udpsink host=\(host) port=\(port) sync=false"
    case .srt(let uri):
        description =
            "\(encode) ! mpegtsmux alignment=7 ! srtsink name=out uri=\(LaunchSyntax.quote(uri)) sync=false"
            + " auto-reconnect=\(reconnect)"
    case .rtmp(let url):
        description = "\(encode) ! flvmux streamable=true ! rtmp2sink name=out location=\(LaunchSyntax.quote(url))"
    case .hls(let dir):
        if mkdir(dir, 0o755) != 0 && errno != EEXIST {
            throw UsageError(message: "hls:\(dir): \(String(cString: strerror(errno)))")
        }
        description =
            "\(encode) ! hlssink2 location=\(LaunchSyntax.quote(dir + "/segment%05d.ts"))"
            + " playlist-location=\(LaunchSyntax.quote(dir + "/playlist.m3u8")) target-duration=2 max-files=0 playlist-length=0"
    case .rtsp(let address, let port, let path):
        let media = "( \(encode) ! rtph264pay name=pay0 pt=96 config-interval=-1 )"
        if p.flag("print-pipeline") {
            print("# served by gst-rtsp-server at rtsp://\(address):\(port)\(path); the media pipeline is:")
            print(media)
            return 0
        }
        return serveRTSP(address: address, port: port, path: path, launch: media, duration: p.double("duration"))
    }
    if p.flag("print-pipeline") {
        printPipeline(description)
        return 0
    }
    let control = try controlled.map { o throws(UsageError) in
        try ControlServer.start(o, p, output: positional[0], encoder: "x264enc")
    }
    defer { control?.stop() }
    var runner = PipelineRunner(description: description, showProgress: false)
    control?.observe(&runner)
    runner.drainTimeout = 5_000_000_000
    if target.hasReceiver {
        runner.network = .init(destination: positional[0], retryInterval: reconnect ? 2_000_000_000 : nil)
    }
    try runner.stop(afterSeconds: p.double("duration"))
    printErr("streaming to \(positional[0]); press Ctrl-C to stop")
    return runner.runReporting()
}

/// Serves one shared media at rtsp://address:port/path until Ctrl-C, SIGTERM or the
/// duration ends.
func serveRTSP(address: String, port: Int, path: String, launch: String, duration: Double?) -> Int32 {
    guard let server = gst_rtsp_server_new() else { return 1 }
    defer { g_object_unref(UnsafeMutableRawPointer(server)) }
    gst_rtsp_server_set_address(server, address)
    gst_rtsp_server_set_service(server, "\(port)")
    let mounts = gst_rtsp_server_get_mount_points(server)
    let factory = gst_rtsp_media_factory_new()
    gst_rtsp_media_factory_set_launch(factory, launch)
    gst_rtsp_media_factory_set_shared(factory, 1)
    gst_rtsp_mount_points_add_factory(mounts, path, factory)
    g_object_unref(UnsafeMutableRawPointer(mounts))
    guard gst_rtsp_server_attach(server, nil) != 0 else {
        printErr("gst-watermark: cannot serve RTSP on \(address):\(port) (port in use or not permitted)")
        return 1
    }
    let loop = g_main_loop_new(nil, 0)
    defer { g_main_loop_unref(loop) }
    let quit: GSourceFunc = { loop in
        g_main_loop_quit(OpaquePointer(loop))
        return 0
    }
    let raw = UnsafeMutableRawPointer(loop)
    Interrupt.unblockTerminationSignals()
    g_unix_signal_add(SIGINT, quit, raw)
    g_unix_signal_add(SIGTERM, quit, raw)
    if let duration, duration > 0 { g_timeout_add(UInt32(duration * 1000), quit, raw) }
    printErr("serving rtsp://\(address):\(port)\(path); press Ctrl-C to stop")
    g_main_loop_run(loop)
    return 0
}
