import CGStreamer
import Glibc
import Watermark
import WatermarkCLI
import WatermarkModel

func exportCommand(_ args: [String]) throws(UsageError) -> Int32 {
    let p = OptionParser(
        parameters: "[INPUT] OUTPUT",
        summary: """
            Burns the watermark into a file: decodes INPUT (or a built-in test source with \
            --test-source), re-encodes the video, keeps the audio, and writes OUTPUT \
            (.mp4/.mov with the index at the front, or .mkv). Phone footage comes out as it \
            was shot: turned upright, 10-bit and HDR kept (H.265 Main10 by default for \
            HDR), with its capture date, place, device and title. OUTPUT appears only when \
            it is complete (it is written under a temporary name beside it).

            Example:
              gst-watermark export --test-source --image assets/logo.svg --text "(c) ACME" demo.mp4
            """)
    addExportOptions(p)
    addTestSourceOptions(p)
    p.add("duration", "d", .double, "Test source length in seconds (default 10)", arg: "SECONDS")
    ControlOptions.add(to: p)
    p.add(
        "overlay-only", nil, .flag,
        "Write only the layers, over a transparent background, as ProRes 4444 with alpha (OUTPUT.mov): the input's "
            + "size, rate and length, or --size, --fps and --duration without an input (for video editors)")
    let positional = try p.start(program: "gst-watermark export", args)
    if p.flag("overlay-only") { return try overlayOnly(p, positional) }
    let testSource = p.flag("test-source")
    let expected = testSource ? 1 : 2
    guard positional.count == expected else {
        throw UsageError(
            message: testSource
                ? "export --test-source takes one argument: OUTPUT"
                : "export takes INPUT and OUTPUT (or --test-source OUTPUT)")
    }
    let settings = try ExportSettings(p)
    let source: ExportSource
    if testSource {
        let (w, h) = try parseSize(p.string("size"))
        let seconds = p.double("duration") ?? 10
        guard seconds > 0, seconds <= 86_400 else { throw UsageError(message: "--duration: \(seconds) must be > 0") }
        source = .test(width: w, height: h, fps: try parseFPS(p), seconds: seconds)
    } else {
        source = .file(positional[0])
    }
    let controlled = try ControlOptions.parse(p)
    // Under control, the layers (the command line's own included) reach the element as
    // one config-data document, set when the pipeline is built.
    var overlay =
        controlled == nil
        ? try OverlayOptions.overlay(from: p)
        : Overlay(variables: try OverlayOptions.variables(from: p), data: try OverlayOptions.data(from: p))
    // A GoPro recording brings its own telemetry for {data:…}.
    if overlay.data == nil, case .file(let path) = source { overlay.data = OverlayOptions.telemetry(in: path) }
    let job = try ExportJob(source: source, output: positional[expected - 1], overlay: overlay, settings: settings)
    if p.flag("print-pipeline") {
        printPipeline(try job.printableDescription)
        return 0
    }
    try job.checkWritable()
    let control = try controlled.map { o throws(UsageError) in
        try ControlServer.start(o, p, output: job.output, encoder: job.encoderName)
    }
    defer { control?.stop() }
    for line in job.notes { printErr(line) }
    do {
        _ = try job.run(showProgress: true, control: control)
    } catch {
        printErr("gst-watermark: \(error.message)")
        return 1
    }
    printErr("wrote \(job.output)")
    return 0
}

/// `export --overlay-only [INPUT] OUTPUT.mov`.
func overlayOnly(_ p: OptionParser, _ positional: [String]) throws(UsageError) -> Int32 {
    guard positional.count == 1 || positional.count == 2 else {
        throw UsageError(message: "export --overlay-only takes [INPUT] OUTPUT.mov")
    }
    let input = positional.count == 2 ? positional[0] : nil
    var overlay = try OverlayOptions.overlay(from: p)
    if overlay.data == nil, let input { overlay.data = OverlayOptions.telemetry(in: input) }
    let seconds = p.double("duration") ?? 10
    guard seconds > 0, seconds <= 86_400 else { throw UsageError(message: "--duration: \(seconds) must be > 0") }
    let job = try OverlayOnlyJob(
        input: input, size: try parseSize(p.string("size")), fps: (try parseFPS(p), 1), seconds: seconds,
        output: positional[positional.count - 1], overlay: overlay)
    if p.flag("print-pipeline") {
        printPipeline(job.description.text)
        return 0
    }
    try job.checkWritable()
    for line in job.notes { printErr(line) }
    do {
        try job.run(showProgress: true)
    } catch {
        printErr("gst-watermark: \(error.message)")
        return 1
    }
    printErr("wrote \(job.output)")
    return 0
}
