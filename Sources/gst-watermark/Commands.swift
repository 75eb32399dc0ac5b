import CGStreamer
import CShim
import Glibc
import Watermark
import WatermarkModel

/// What the encoder and muxer stages look like for an output file.
struct OutputSpec {
    let path: String
    let muxer: String
    let videoEncoder: String
    let videoParser: String
    /// The encoder element's factory name (what a status report shows).
    let encoderName: String
    /// `H.264` or `H.265`.
    let codecName: String

    /// `fps` is the frame rate the encoder gets (nil: unknown), for `--keyframe-interval`;
    /// `options` are extra x264/x265 options.
    init(path: String, codec: String, encoding: EncoderSettings, fps: Double?, options: [String] = [])
        throws(UsageError)
    {
        self.path = path
        muxer = try Self.muxer(for: path)
        try encoding.check(codec: codec)
        videoEncoder = encoding.element(codec: codec, fps: fps, options: options)
        encoderName = codec == "h265" ? "x265enc" : "x264enc"
        videoParser = codec == "h265" ? "h265parse" : "h264parse"
        codecName = codec == "h265" ? "H.265" : "H.264"
    }

    /// The muxer for the container `path`'s extension names.
    static func muxer(for path: String) throws(UsageError) -> String {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "mp4", "m4v": return "mp4mux name=mux faststart=true"
        case "mov": return "qtmux name=mux faststart=true"
        case "mkv": return "matroskamux name=mux"
        default:
            throw UsageError(message: "\(path): unknown container \".\(ext)\" (use .mp4, .mov or .mkv)")
        }
    }

    /// Fails early, with the reason, when the output cannot be written.
    func checkWritable() throws(UsageError) {
        var dir = "."
        if let slash = path.lastIndex(of: "/") {
            dir = String(path[..<slash])
            if dir.isEmpty { dir = "/" }
        }
        var st = stat()
        if stat(dir, &st) != 0 {
            throw UsageError(message: "cannot write \(path): \(dir): \(String(cString: strerror(errno)))")
        }
        if access(dir, W_OK) != 0 {
            throw UsageError(message: "cannot write \(path): \(dir): \(String(cString: strerror(errno)))")
        }
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            throw UsageError(message: "cannot write \(path): it is a directory")
        }
    }
}

func addTestSourceOptions(_ p: OptionParser) {
    p.add("test-source", nil, .flag, "Use a built-in test picture and tone instead of an input")
    p.add("size", nil, .string, "Test source frame size WIDTHxHEIGHT (default 1280x720)", arg: "WxH")
    p.add("fps", nil, .int, "Test source frame rate (default 30)", arg: "N")
}

func parseSize(_ text: String?) throws(UsageError) -> (Int, Int) {
    guard let text else { return (1280, 720) }
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (16...8192).contains(w),
        (16...8192).contains(h)
    else {
        throw UsageError(message: "--size: \"\(text)\" is not WIDTHxHEIGHT (16..8192)")
    }
    return (w, h)
}

/// GOption's GStreamer group has initialised GStreamer; add the linked-in element.
func registerElement() {
    gst_init(nil, nil)
    WatermarkPlugin.register()
}

/// Prints `description` as a gst-launch-1.0 command line a shell can run. gst-launch
/// treats each argument as one word of the description, so the description is split into
/// its words (keeping quoted values whole) and each word is quoted for the shell.
/// `--fps` for a test source, 30 by default.
func parseFPS(_ p: OptionParser) throws(UsageError) -> Int {
    let fps = p.int("fps") ?? 30
    guard (1...240).contains(fps) else { throw UsageError(message: "--fps: \(fps) is out of range (1..240)") }
    return fps
}

/// Fails early, naming the reason, when a camera device cannot be opened.
func checkDevice(_ device: String) throws(UsageError) {
    if access(device, R_OK) != 0 {
        throw UsageError(message: "\(device): \(String(cString: strerror(errno))) (use --device or --test-source)")
    }
}

func printPipeline(_ description: String) {
    print((["gst-launch-1.0", "-e"] + LaunchLine.words(description).map(LaunchLine.shellWord)).joined(separator: " "))
}

// MARK: capture

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
struct Reframe: Sendable {
    let rw: Int
    let rh: Int

    init(ratio: String) throws(UsageError) {
        let parts = ratio.split(separator: ":")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...100).contains(w),
            (1...100).contains(h)
        else {
            throw UsageError(message: "--reframe: \"\(ratio)\" is not W:H (for example 9:16)")
        }
        (rw, rh) = (w, h)
    }

    func stage(width: Int, height: Int) throws(UsageError) -> String {
        guard width > 0, height > 0 else { throw UsageError(message: "--reframe: the input's frame size is unknown") }
        var cw = width, ch = height
        if width * rh > height * rw {
            cw = min(width, (height * rw / rh) & ~1)
        } else {
            ch = min(height, (width * rh / rw) & ~1)
        }
        let left = (width - cw) / 2, top = (height - ch) / 2
        let short = min(width, height)
        var ow = cw, oh = ch
        if cw < ch {
            ow = short
            oh = short * rh / rw
        } else {
            oh = short
            ow = short * rw / rh
        }
        ow &= ~1
        oh &= ~1
        return "videocrop left=\(left) right=\(width - cw - left) top=\(top) bottom=\(height - ch - top) ! "
            + "videoscale ! video/x-raw,width=\(ow),height=\(oh),pixel-aspect-ratio=1/1"
    }
}
