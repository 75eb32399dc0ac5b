import CGStreamer
import Glibc
import WatermarkCLI
import WatermarkModel

let usage = """
    Usage: gst-watermark COMMAND [OPTIONS] …

    Burns text and image watermarks into video with the `watermark` GStreamer element.

    Commands:
      export    Watermark a file (or the built-in test source) into a new MP4/MOV/MKV
      capture   Record a camera (or the test source) to a file, optionally in segments
      stream    Stream live over SRT, RTMP, UDP (MPEG-TS), RTSP or HLS
      batch     Export many files (or a manifest's rows, per-recipient texts) in one process
      detect    Read the invisible forensic mark (--forensic-id) back from a copy

    Run `gst-watermark COMMAND --help` for a command's options, `--help-gst` for
    GStreamer's own options (--gst-debug, …), `--version` for versions.
    """

func main() -> Int32 {
    ProcessMemory.limitArenas()
    setlocale(LC_ALL, "")
    var args = Array(CommandLine.arguments.dropFirst())
    guard let command = args.first else {
        printErr(usage)
        return 2
    }
    args.removeFirst()
    switch command {
    case "-h", "--help", "help":
        print(usage)
        return 0
    case "--version", "-V":
        gst_init(nil, nil)
        var major: UInt32 = 0, minor: UInt32 = 0, micro: UInt32 = 0, nano: UInt32 = 0
        gst_version(&major, &minor, &micro, &nano)
        print("gst-watermark \(WatermarkVersion.text) (GStreamer \(major).\(minor).\(micro))")
        return 0
    default:
        break
    }
    if command == "batch" { useBatchMemorySettings() }
    let commands: [String: ([String]) throws(UsageError) -> Int32] = [
        "export": exportCommand, "capture": captureCommand, "stream": streamCommand,
        "batch": batchCommand, "detect": detectCommand,
    ]
    guard let run = commands[command] else {
        printErr("gst-watermark: unknown command \"\(command)\"\n\n" + usage)
        return 2
    }
    do {
        // GOption (inside the command) initialises GStreamer through its option group.
        return try run(args)
    } catch {
        printErr("gst-watermark: \(error.message)")
        return 2
    }
}

// Each command's option parsing initialises GStreamer and registers the linked-in element
// (`OptionParser.start`), so the tool never depends on GST_PLUGIN_PATH.
exit(main())
