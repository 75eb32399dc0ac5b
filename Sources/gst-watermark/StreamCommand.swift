import CGStreamer
import Glibc
import Watermark
import WatermarkCLI
import WatermarkModel

func streamCommand(_ args: [String]) throws(UsageError) -> Int32 {
    let p = OptionParser(
        parameters: "URL",
        summary: """
            Streams live video with the watermark burned in, with low-latency H.264:
              srt://HOST:PORT[?mode=listener]   SRT (MPEG-TS), caller by default
              rtmp://SERVER/APP/KEY             RTMP (FLV), e.g. a streaming service's ingest
              udp://HOST:PORT                   MPEG-TS over UDP
              rtsp://[USER:PW@]ADDRESS:PORT/PATH serves RTSP clients at that address
              hls:DIRECTORY                     HLS playlist (playlist.m3u8) and segments

            --input takes a file or a network input's URL (rtsp://, srt://, rtmp://, udp://, \
            http(s)://). A network input that is lost is tried again (after 1, 2, 4, 8, then \
            every 10 s) while the output goes on showing a "NO SIGNAL" slate, so receivers \
            stay connected.

            Examples:
              gst-watermark stream udp://127.0.0.1:5000 --test-source --text LIVE
              gst-watermark stream rtmp://live.example.com/app/KEY --input srt://:9000?mode=listener \\
                --logo logo.png
            """)
    OverlayOptions.add(to: p)
    addTestSourceOptions(p)
    p.add(
        "input", nil, .string, "Stream a file (paced in real time), or restream a network input's URL",
        arg: "FILE|URL")
    p.add("device", nil, .string, "Stream a V4L2 camera", arg: "DEVICE")
    p.add("bitrate", "b", .int, "Video bitrate in kbit/s (default 2500)", arg: "KBPS")
    p.add("gpu", nil, .string, "nvidia: draw the overlay in CUDA memory (then the usual encoder)", arg: "KIND")
    p.add("duration", "d", .double, "Stop after this many seconds (default: until Ctrl-C)", arg: "SECONDS")
    p.add(
        "reconnect", nil, .flag,
        "When the receiver is unreachable or goes away, keep trying every 2 s and resume when it is back (srt://, rtmp://; on by default with a network --input)"
    )
    Relay.addOptions(to: p)
    ControlOptions.add(to: p)
    p.add("print-pipeline", nil, .flag, "Print the equivalent gst-launch-1.0 command and exit")
    p.add("verbose", "v", .flag, "Show debug details with errors")
    let positional = try p.start(program: "gst-watermark stream", args)
    guard positional.count == 1 else { throw UsageError(message: "stream takes one argument: URL") }
    let target = try StreamTarget(positional[0])
    let controlled = try ControlOptions.parse(p)
    if controlled != nil, case .rtsp = target {
        throw UsageError(message: "--control/--watch-config: not with rtsp:// (each client gets its own pipeline)")
    }
    // Under control, the layers reach the element as one config-data document.
    let overlay =
        controlled == nil
        ? try OverlayOptions.overlay(from: p)
        : Overlay(variables: try OverlayOptions.variables(from: p), data: try OverlayOptions.data(from: p))
    let fps = try parseFPS(p)
    let bitrate = p.int("bitrate") ?? 2500
    guard (100...100_000).contains(bitrate) else {
        throw UsageError(message: "--bitrate: \(bitrate) is out of range (100..100000)")
    }

    let network = try p.string("input").flatMap { i throws(UsageError) in
        NetworkInput.looksLikeURL(i) ? try NetworkInput(i) : nil
    }
    if network != nil, case .rtsp = target {
        throw UsageError(message: "--input URL: not with an rtsp:// output (each RTSP client gets its own pipeline)")
    }
    if p.flag("reconnect") && !target.hasReceiver {
        throw UsageError(message: "--reconnect: only for srt:// and rtmp:// destinations")
    }
    let chosen = [p.flag("test-source"), p.string("input") != nil, p.string("device") != nil].filter { $0 }.count
    guard chosen <= 1 else { throw UsageError(message: "use one of --input, --device and --test-source") }
    // A restream keeps its receiver through drops at either end, unless told not to.
    let reconnect = p.flag("reconnect") || (network != nil && target.hasReceiver && !p.flag("no-reconnect"))
    let source: VideoSource
    if network != nil {
        source = .relay
    } else if let input = p.string("input") {
        let media = try MediaInfo.probe(input)
        guard media.hasVideo else { throw UsageError(message: "\(input): has no video stream") }
        source = .pacedFile(path: input)
    } else if let device = p.string("device") {
        try checkDevice(device)
        source = .camera(device: device)
    } else {
        let (w, h) = try parseSize(p.string("size"))
        source = .test(width: w, height: h, fps: fps, frames: nil, pattern: "ball", live: true)
    }
    let output: Output
    switch target {
    case .udp(let host, let port): output = .udp(host: host, port: port)
    case .srt(let uri): output = .srt(uri: uri, reconnect: reconnect)
    case .rtmp(let url): output = .rtmp(url: url)
    case .hls(let dir):
        if mkdir(dir, 0o755) != 0 && errno != EEXIST {
            throw UsageError(message: "hls:\(dir): \(systemError())")
        }
        output = .hls(directory: dir)
    case .rtsp: output = .rtp
    }
    var plan = VideoPipeline(
        source: source, overlay: overlay,
        encoder: VideoEncoder(codec: .h264, settings: .live(bitrate: bitrate), fps: Double(fps)), output: output)
    // A camera's frames are converted to a format videoflip takes; the test source's are one.
    if case .camera = source { plan.afterSource = [Step("videoconvert")] }
    if let gpu = try p.string("gpu").map({ g throws(UsageError) in try GPU(g) }) {
        try GPU.check(plan)
        plan.gpu = gpu
    }
    if let network {
        var relay = Relay(input: network, mode: .restream, audio: false) { _, _ in plan.description.text }
        try relay.apply(p)
        relay.fps = fps
        try relay.stop(afterSeconds: p.double("duration"))
        if target.hasReceiver {
            relay.network = .init(destination: positional[0], retryInterval: reconnect ? 2_000_000_000 : nil)
        }
        if p.flag("print-pipeline") {
            print(relay.printed)
            return 0
        }
        let control = try controlled.map { o throws(UsageError) in
            try ControlServer.start(o, p, output: positional[0], encoder: "x264enc")
        }
        defer { control?.stop() }
        control?.observe(&relay)
        printErr("restreaming \(network.shown) to \(positional[0]); press Ctrl-C to stop")
        return relay.runReporting()
    }
    let description = plan.description.text
    if case .rtsp(let address, let port, let path, let user, let password) = target {
        let media = "( \(description) )"
        if p.flag("print-pipeline") {
            print("# served by gst-rtsp-server at rtsp://\(address):\(port)\(path); the media pipeline is:")
            print(media)
            return 0
        }
        return serveRTSP(
            address: address, port: port, path: path, launch: media, duration: p.double("duration"),
            credentials: user.flatMap { u in password.map { (u, $0) } })
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
