import CGStreamer
import Glibc
import Watermark
import WatermarkCLI
import WatermarkModel

func captureCommand(_ args: [String]) throws(UsageError) -> Int32 {
    let p = OptionParser(
        parameters: "OUTPUT",
        summary: """
            Records a camera (or the test source) to OUTPUT with the watermark burned in. \
            Ctrl-C or SIGTERM finishes the file properly. With --segment-duration, \
            recording goes to numbered files (OUTPUT may contain a pattern such as \
            rec-%05d.mp4), so a crash loses at most the open segment.

            Example:
              gst-watermark capture --test-source --duration 5 --text "{REC}" rec.mp4
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
    ControlOptions.add(to: p)
    let positional = try p.parse(program: "gst-watermark capture", args)
    registerElement()
    verbose = p.flag("verbose")
    guard positional.count == 1 else { throw UsageError(message: "capture takes one argument: OUTPUT") }
    var outputPath = positional[0]
    let segment = p.double("segment-duration")
    if let segment {
        guard segment >= 1 else { throw UsageError(message: "--segment-duration: must be at least 1 second") }
        if !outputPath.contains("%") {
            if let dot = outputPath.lastIndex(of: "."), !outputPath[dot...].contains("/") {
                outputPath = String(outputPath[..<dot]) + "-%05d" + String(outputPath[dot...])
            } else {
                outputPath += "-%05d"
            }
        }
    }
    let fps = try parseFPS(p)
    // A recording is a file: the encoder's preset decides B-frames, lookahead and the GOP
    // (splitmuxsink asks for a keyframe at each segment boundary) unless --low-latency or
    // --keyframe-interval says otherwise. A camera's rate is known only once it runs:
    // --keyframe-interval counts --fps frames a second.
    let encoding = try EncoderSettings(p)
    let output = try OutputSpec(
        path: outputPath, codec: p.string("codec") ?? "h264", encoding: encoding, fps: Double(fps))
    // Frames are turned upright by their orientation tag before the watermark.
    let controlled = try ControlOptions.parse(p)
    // Under control, the layers reach the element as one config-data document.
    let watermark =
        (controlled == nil ? try OverlayOptions.launchDescription(from: p) : "watermark name=wm")
        + " follow-orientation=false"
    let source: String
    let audioSource: String
    if p.flag("test-source") {
        let (w, h) = try parseSize(p.string("size"))
        source = "videotestsrc is-live=true pattern=ball ! video/x-raw,width=\(w),height=\(h),framerate=\(fps)/1"
        audioSource = "audiotestsrc is-live=true wave=sine freq=440 volume=0.2"
    } else {
        let device = p.string("device") ?? "/dev/video0"
        try checkDevice(device)
        source = "v4l2src device=\(LaunchSyntax.quote(device))"
        audioSource = "autoaudiosrc"
    }
    // The preview branches off after the watermark, so window and file cannot disagree;
    // a leaky queue keeps a slow display from ever stalling the recording.
    var preview = ""
    if p.flag("preview") {
        let sink = p.string("preview-sink") ?? "autovideosink"
        guard !sink.contains("!") else { throw UsageError(message: "--preview-sink: give one element") }
        preview =
            " ! tee name=preview preview. ! queue leaky=downstream max-size-buffers=2 ! videoconvert ! \(sink) sync=false preview."
    }
    let video =
        "\(source) ! queue ! videoconvert ! \(Orientation.upright(nil)) ! \(watermark)\(preview) ! queue ! videoconvert ! video/x-raw,format=I420 ! "
        + "\(output.videoEncoder) ! \(output.videoParser) ! queue"
    let audio = "\(audioSource) ! queue ! audioconvert ! audioresample ! avenc_aac ! aacparse ! queue"
    var description: String
    if let segment {
        let muxer = output.muxer.hasPrefix("matroskamux") ? "matroskamux" : "mp4mux"
        description =
            "splitmuxsink name=mux location=\(LaunchSyntax.quote(output.path)) muxer-factory=\(muxer)"
            + " max-size-time=\(UInt64(segment * 1e9)) send-keyframe-requests=true \(video) ! mux.video"
        if p.flag("audio") { description += " \(audio) ! mux.audio_%u" }
    } else {
        description = "\(video) ! mux. "
        if p.flag("audio") { description += "\(audio) ! mux. " }
        description +=
            "\(output.muxer.replacingAll(" faststart=true", with: "")) ! filesink location=\(LaunchSyntax.quote(output.path))"
    }
    if p.flag("print-pipeline") {
        printPipeline(description)
        return 0
    }
    try output.checkWritable()
    let control = try controlled.map { o throws(UsageError) in
        try ControlServer.start(o, p, output: output.path, encoder: output.encoderName)
    }
    defer { control?.stop() }
    var runner = PipelineRunner(description: description, showProgress: false)
    control?.observe(&runner)
    if segment != nil { runner.diskFullNote = "the segments before the one being written are complete" }
    try runner.stop(afterSeconds: p.double("duration"))
    printErr("\(output.codecName), \(encoding.summary)")
    printErr("recording to \(output.path); press Ctrl-C to stop")
    guard runner.runReporting() == 0 else { return 1 }
    printErr("wrote \(output.path)")
    return 0
}

/// `--reframe W:H`: the largest centred W:H region of the frame, scaled so that its
/// shorter side keeps the input's shorter side (1920×1080 at 9:16 → 1080×1920).
