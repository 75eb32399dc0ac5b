import CGStreamer
import Glibc
import Watermark
import WatermarkCLI
import WatermarkModel

func captureCommand(_ args: [String]) throws(UsageError) -> Int32 {
    let p = OptionParser(
        parameters: "[INPUT-URL] OUTPUT",
        summary: """
            Records a camera (or the test source) to OUTPUT with the watermark burned in. \
            Ctrl-C or SIGTERM finishes the file properly. With --segment-duration, \
            recording goes to numbered files (OUTPUT may contain a pattern such as \
            rec-%05d.mp4), so a crash loses at most the open segment.

            A network camera or feed is given by its URL before OUTPUT: rtsp:// (rtspt:// \
            for TCP, rtspu:// for UDP, user and password in the URL), srt:// (caller, or \
            ?mode=listener), rtmp://, udp:// (MPEG-TS, unicast or multicast), http(s):// \
            (HLS, MJPEG). When it is lost, the open file is finished and the input is tried \
            again (after 1, 2, 4, 8, then every 10 s); recording goes on in the next segment \
            or in a numbered file (rec-1.mp4). The input's audio is kept.

            Examples:
              gst-watermark capture --test-source --duration 5 --text "{REC}" rec.mp4
              gst-watermark capture rtsp://admin:pw@cam1/stream1 cam1-%05d.mp4 \\
                --segment-duration 600 --text "{camera-clock:%Y-%m-%d %H:%M:%S} CAM 1"
            """)
    OverlayOptions.add(to: p)
    addEncodingOptions(p)
    addTestSourceOptions(p)
    p.add("device", nil, .string, "V4L2 camera device (default /dev/video0)", arg: "DEVICE")
    p.add("audio", nil, .flag, "Record audio too (default microphone, or a tone with --test-source)")
    p.add("duration", "d", .double, "Stop after this many seconds (default: until Ctrl-C)", arg: "SECONDS")
    p.add("segment-duration", nil, .double, "Write numbered segments of this many seconds", arg: "SECONDS")
    p.add("preview", nil, .flag, "Show a window with exactly what is recorded (split after the watermark)")
    p.add("preview-sink", nil, .string, "Video sink for --preview (default autovideosink)", arg: "ELEMENT")
    p.add("no-audio", nil, .flag, "Network input: leave out the input's audio")
    p.add("reconnect", nil, .flag, "Network input: reconnect when the input is lost (the default)")
    Relay.addOptions(to: p)
    ControlOptions.add(to: p)
    let positional = try p.start(program: "gst-watermark capture", args)
    guard positional.count == 1 || positional.count == 2 else {
        throw UsageError(message: "capture takes OUTPUT, or INPUT-URL OUTPUT")
    }
    var outputPath = positional[positional.count - 1]
    if positional.count == 1, NetworkInput.looksLikeURL(outputPath) {
        throw UsageError(message: "capture \(outputPath): give the OUTPUT file after the input URL")
    }
    let network = try positional.count == 2 ? NetworkInput(positional[0]) : nil
    if network != nil, p.flag("test-source") || p.string("device") != nil {
        throw UsageError(message: "capture: an input URL, --device or --test-source, not two of them")
    }
    let segment = p.double("segment-duration")
    // How messages name the output: segments as rec-NNNNN.mp4.
    var shownPath = outputPath
    if let segment {
        guard segment >= 1 else { throw UsageError(message: "--segment-duration: must be at least 1 second") }
        if !outputPath.contains("%") {
            // The number goes before the extension (rec.mp4 → rec-%05d.mp4), or at the end.
            let dot = outputPath.lastIndex(of: ".").flatMap { outputPath[$0...].contains("/") ? nil : $0 }
            let stem = String(outputPath[..<(dot ?? outputPath.endIndex)])
            let ext = dot.map { String(outputPath[$0...]) } ?? ""
            shownPath = stem + "-NNNNN" + ext
            outputPath = stem + "-%05d" + ext
        }
    }
    let fps = try parseFPS(p)
    // A recording is a file: the encoder's preset decides B-frames, lookahead and the GOP
    // (a keyframe on every segment boundary: `alignKeyframes`) unless --low-latency or
    // --keyframe-interval says otherwise. A camera's rate is known only once it runs:
    // --keyframe-interval counts --fps frames a second.
    var encoding = try EncoderSettings(p)
    let gop = segment.flatMap { encoding.alignKeyframes(toSegmentsOf: $0, fps: Double(fps)) }
    let codec = try Codec(p.string("codec") ?? "h264")
    try encoding.check(codec: codec)
    let container = try Container(path: outputPath)
    let controlled = try ControlOptions.parse(p)
    // Under control, the layers reach the element as one config-data document.
    let overlay =
        controlled == nil
        ? try OverlayOptions.overlay(from: p)
        : Overlay(variables: try OverlayOptions.variables(from: p), data: try OverlayOptions.data(from: p))
    let source: VideoSource
    let audioSource: Step
    if network != nil {
        source = .relay
        audioSource = Step("appsrc")
    } else if p.flag("test-source") {
        let (w, h) = try parseSize(p.string("size"))
        source = .test(width: w, height: h, fps: fps, frames: nil, pattern: "ball", live: true)
        audioSource = Step("audiotestsrc", [("is-live", "true"), ("wave", "sine"), ("freq", "440"), ("volume", "0.2")])
    } else {
        let device = p.string("device") ?? "/dev/video0"
        try checkDevice(device)
        source = .camera(device: device)
        audioSource = Step("autoaudiosrc")
    }
    // A recording is written as it goes: the index at the end, so that a cut-short file
    // stays playable.
    let output: Output =
        segment.map { .segments(pattern: outputPath, container: container, seconds: $0, gop: gop) }
        ?? .file(path: outputPath, container: container, faststart: false)
    // Frames are turned upright by their orientation tag before the watermark.
    var plan = VideoPipeline(
        source: source, overlay: overlay, encoder: VideoEncoder(codec: codec, settings: encoding, fps: Double(fps)),
        output: output)
    plan.afterSource = [Step("queue"), Step("videoconvert")]
    plan.encoderQueue = true
    if let gpu = encoding.gpu {
        try GPU.check(plan)
        plan.gpu = gpu
    }
    // The preview branches off after the watermark, so window and file cannot disagree.
    if p.flag("preview") {
        let sink = p.string("preview-sink") ?? "autovideosink"
        guard !sink.contains("!") else {
            throw UsageError(message: "--preview-sink: give one element")
        }
        plan.preview = Preview(sink: sink)
    }
    if let network {
        return try record(
            network, plan: plan, output: output, outputPath: outputPath, shownPath: shownPath, p: p,
            controlled: controlled)
    }
    if p.flag("audio") {
        plan.audio.append(Branch([audioSource, Step("queue")] + AudioEncode.steps, to: output.audioPad))
    }
    let description = plan.description.text
    if p.flag("print-pipeline") {
        printPipeline(description)
        return 0
    }
    try OutputCheck.writable(outputPath)
    let control = try controlled.map { o throws(UsageError) in
        try ControlServer.start(o, p, output: outputPath, encoder: codec.encoder)
    }
    defer { control?.stop() }
    var runner = PipelineRunner(description: description, showProgress: false)
    control?.observe(&runner)
    if segment != nil { runner.diskFullNote = "the segments before the one being written are complete" }
    try runner.stop(afterSeconds: p.double("duration"))
    printErr("\(codec.displayName), \(encoding.summary)")
    printErr("recording to \(shownPath); press Ctrl-C to stop")
    guard runner.runReporting() == 0 else { return 1 }
    printErr("wrote \(shownPath)")
    return 0
}

/// `capture URL OUTPUT`: the input relayed into a new output per connection.
private func record(
    _ input: NetworkInput, plan: VideoPipeline, output: Output, outputPath: String, shownPath: String, p: OptionParser,
    controlled: ControlOptions?
) throws(UsageError) -> Int32 {
    let outputs: @Sendable (Int, Bool) -> String = { n, audio in
        var plan = plan
        if case .file(let path, let container, let faststart) = output {
            plan.output = .file(path: Relay.numbered(path, n), container: container, faststart: faststart)
        }
        if audio { plan.audio.append(Relay.audioBranch(to: output.audioPad)) }
        return plan.description.text
    }
    var relay = Relay(input: input, mode: .record, audio: !p.flag("no-audio"), output: outputs)
    try relay.apply(p)
    try relay.stop(afterSeconds: p.double("duration"))
    if p.flag("print-pipeline") {
        print(relay.printed)
        return 0
    }
    try OutputCheck.writable(outputPath)
    let control = try controlled.map { o throws(UsageError) in
        try ControlServer.start(o, p, output: outputPath, encoder: plan.encoder.codec.encoder)
    }
    defer { control?.stop() }
    control?.observe(&relay)
    printErr("\(plan.encoder.codec.displayName), \(plan.encoder.settings.summary)")
    printErr("recording \(input.shown) to \(shownPath); press Ctrl-C to stop")
    guard relay.runReporting() == 0 else { return 1 }
    printErr("wrote \(shownPath)")
    return 0
}
