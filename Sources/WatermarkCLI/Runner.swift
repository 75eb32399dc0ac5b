import CGStreamer
import CGstPbutils
import Glibc
import Synchronization

/// Set by SIGINT/SIGTERM; the bus loop turns it into an EOS so files are finalized.
enum Interrupt {
    static let requested = Atomic<Int32>(0)

    static func install() {
        let handler: @convention(c) (Int32) -> Void = { sig in
            // A second signal while draining ends the process at once.
            if Interrupt.requested.exchange(sig, ordering: .relaxed) != 0 { _exit(130) }
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        unblockTerminationSignals()
    }

    /// A parent may have started us with SIGINT/SIGTERM blocked (threads of a test
    /// runner, a service manager); GStreamer's threads inherit this thread's mask.
    static func unblockTerminationSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}

package struct RunFailure: Error {
    package let message: String
    /// Stopped by SIGINT/SIGTERM rather than failed.
    var interrupted = false
}

/// Runs a pipeline description to EOS like `gst-launch-1.0 -e`, reporting errors from
/// the bus and progress on stderr.
package struct PipelineRunner {
    package init(description: String, expectedDuration: UInt64? = nil, showProgress: Bool = true) {
        self.description = description
        self.expectedDuration = expectedDuration
        self.showProgress = showProgress
    }

    var description: String
    /// Expected duration in nanoseconds, for progress when the pipeline cannot tell.
    var expectedDuration: UInt64?
    var showProgress = true
    var progressLabel = "Exporting"
    /// Stop after this many nanoseconds of running time (live sources): sends EOS.
    var stopAfter: UInt64?
    /// After EOS is sent, give up waiting for it after this many nanoseconds (a network
    /// sink whose receiver is gone may never drain). nil waits as long as it takes, as
    /// finishing a file must.
    package var drainTimeout: UInt64?
    /// Called with the parsed pipeline before it starts (e.g. to attach controllers).
    var configure: ((UnsafeMutablePointer<GstElement>) -> Void)?
    /// A network output: errors from its sink element are reported as the receiver's, and
    /// with `retryInterval` set the pipeline is restarted after such an error until the
    /// receiver is back (or the run is stopped).
    package var network: NetworkOutput?
    /// Added to the error when the output disk is full (e.g. which files are complete).
    package var diskFullNote: String?
    /// Told every error and warning the pipeline posts (error: true), as the one line printed.
    var onMessage: ((_ error: Bool, _ text: String) -> Void)?
    /// On SIGINT/SIGTERM, stop at once and throw (a batch abandons the file and redoes it
    /// next time) instead of finishing the output with an EOS.
    var abandonOnInterrupt = false

    package struct NetworkOutput {
        /// The sink's name in the description.
        var sink = "out"
        /// The destination as the user gave it.
        var destination: String
        /// Nanoseconds between attempts to reach the receiver again; nil gives up at once.
        var retryInterval: UInt64?

        package init(sink: String = "out", destination: String, retryInterval: UInt64? = nil) {
            self.sink = sink
            self.destination = destination
            self.retryInterval = retryInterval
        }
    }

    package func run() throws(RunFailure) {
        let pipeline = try parsedPipeline(description)
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
        }
        let bus = gst_element_get_bus(pipeline)
        defer { gst_object_unref(bus) }
        configure?(pipeline)

        Interrupt.install()
        if gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            throw RunFailure(message: firstError(bus) ?? "the pipeline could not start")
        }
        let progress = Progress(label: progressLabel, enabled: showProgress)
        var eosSent = false
        var eosSentAt: UInt64 = 0
        let start = monotonicNanos()
        // While the receiver is away (network output with retries): the pipeline is in NULL
        // and starts again at this time.
        var retryAt: UInt64?
        while true {
            if let at = retryAt {
                if Interrupt.requested.load(ordering: .relaxed) != 0
                    || stopAfter.map({ monotonicNanos() - start >= $0 }) == true
                {
                    printErr("stopped")
                    return
                }
                if monotonicNanos() < at {
                    usleep(100_000)
                    continue
                }
                retryAt = nil
                // Messages of the stopped run are stale.
                gst_bus_set_flushing(bus, 1)
                gst_bus_set_flushing(bus, 0)
                if gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
                    gst_element_set_state(pipeline, GST_STATE_NULL)
                    retryAt = monotonicNanos() + (network?.retryInterval ?? 0)
                }
                continue
            }
            let types = GstMessageType(
                rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue
                    | GST_MESSAGE_WARNING.rawValue | GST_MESSAGE_ELEMENT.rawValue)
            if let msg = gst_bus_timed_pop_filtered(bus, 200_000_000, types) {
                defer { gst_message_unref(msg) }
                switch msg.pointee.type {
                case GST_MESSAGE_ELEMENT:
                    // A stream decodebin has no decoder for would stall the muxer for good.
                    if let missing = missingPlugin(msg) {
                        progress.endLine()
                        throw RunFailure(message: missing)
                    }
                case GST_MESSAGE_EOS:
                    progress.endLine()
                    if Interrupt.requested.load(ordering: .relaxed) != 0 {
                        printErr("stopped; output finalized")
                    }
                    return
                case GST_MESSAGE_ERROR:
                    progress.endLine()
                    onMessage?(true, parse(msg, error: true))
                    guard let network, comesFrom(msg, network.sink) else {
                        throw RunFailure(message: parse(msg, error: true))
                    }
                    let what =
                        "\(network.destination): the receiver is unreachable or went away (\(parse(msg, error: true, named: false)))"
                    guard let interval = network.retryInterval, !eosSent else {
                        throw RunFailure(
                            message: what + (network.retryInterval == nil ? "; --reconnect keeps trying" : ""))
                    }
                    printErr("gst-watermark: \(what); trying again every \(Double(interval) / 1e9) s")
                    gst_element_set_state(pipeline, GST_STATE_NULL)
                    retryAt = monotonicNanos() + interval
                default:
                    progress.endLine()
                    onMessage?(false, parse(msg, error: false))
                    if let network, comesFrom(msg, network.sink) {
                        printErr("warning: \(network.destination): \(parse(msg, error: false, named: false))")
                    } else {
                        printErr("warning: " + parse(msg, error: false))
                    }
                }
            }
            if abandonOnInterrupt, Interrupt.requested.load(ordering: .relaxed) != 0 {
                progress.endLine()
                throw RunFailure(message: "interrupted", interrupted: true)
            }
            if !eosSent, Interrupt.requested.load(ordering: .relaxed) != 0 {
                eosSent = true
                eosSentAt = monotonicNanos()
                progress.endLine()
                printErr("stopping: finishing the output…")
                _ = gst_element_send_event(pipeline, gst_event_new_eos())
            }
            if eosSent, let drainTimeout, monotonicNanos() - eosSentAt > drainTimeout {
                throw RunFailure(
                    message:
                        "the output did not finish within \(drainTimeout / 1_000_000_000) s after stopping (receiver gone?)"
                )
            }
            if !eosSent, let stopAfter, monotonicNanos() - start >= stopAfter {
                eosSent = true
                eosSentAt = monotonicNanos()
                _ = gst_element_send_event(pipeline, gst_event_new_eos())
            }
            var position: gint64 = -1, duration: gint64 = -1
            if gst_element_query_position(pipeline, GST_FORMAT_TIME, &position) == 0 { position = -1 }
            if gst_element_query_duration(pipeline, GST_FORMAT_TIME, &duration) == 0 || duration <= 0 {
                duration = expectedDuration.map { gint64($0) } ?? -1
            }
            progress.update(position: position, duration: duration)
        }
    }

    /// Runs to the end like `run()`; on failure prints the one-line error and returns
    /// exit status 1.
    package func runReporting() -> Int32 {
        do {
            try run()
        } catch {
            printErr("gst-watermark: \(error.message)")
            return 1
        }
        return 0
    }

    /// `--duration`: stop a live pipeline after that many seconds (nil: run until stopped).
    package mutating func stop(afterSeconds seconds: Double?) throws(UsageError) {
        guard let seconds else { return }
        guard seconds > 0 else { throw UsageError(message: "--duration: must be > 0") }
        stopAfter = UInt64(seconds * 1e9)
    }

    private func firstError(_ bus: UnsafeMutablePointer<GstBus>?) -> String? {
        guard let msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) else { return nil }
        defer { gst_message_unref(msg) }
        return parse(msg, error: true)
    }

    private func comesFrom(_ msg: UnsafeMutablePointer<GstMessage>, _ name: String) -> Bool {
        guard let src = msg.pointee.src, let n = gst_object_get_name(src) else { return false }
        defer { g_free(n) }
        return String(cString: n) == name
    }

    private func parse(_ msg: UnsafeMutablePointer<GstMessage>, error isError: Bool, named: Bool = true) -> String {
        var err: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        if isError { gst_message_parse_error(msg, &err, &debug) } else { gst_message_parse_warning(msg, &err, &debug) }
        defer {
            if let err { g_error_free(err) }
            g_free(debug)
        }
        var text = err.map { String(cString: $0.pointee.message) } ?? "unknown error"
        if let e = err?.pointee, e.domain == gst_resource_error_quark(),
            e.code == Int32(GST_RESOURCE_ERROR_NO_SPACE_LEFT.rawValue)
        {
            text = "the output disk is full (\(text))" + (diskFullNote.map { "; " + $0 } ?? "")
        }
        if named, let src = msg.pointee.src, let name = gst_object_get_name(src) {
            text = "\(String(cString: name)): \(text)"
            g_free(name)
        }
        if Diagnostics.verbose.load(ordering: .relaxed), let debug { text += " (\(String(cString: debug)))" }
        return text
    }
}

/// `--verbose`: errors carry GStreamer's debug details. Set once at start, read by any thread.
package enum Diagnostics {
    package static let verbose = Atomic<Bool>(false)
}

func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

package func printErr(_ s: String) {
    writeErr(s + "\n")
}

func writeErr(_ s: String) {
    var bytes = Array(s.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { return }
        offset += n
    }
}

/// A progress bar with percent and ETA on a terminal; plain lines every 10 % otherwise.
final class Progress {
    let label: String
    let enabled: Bool
    let tty = isatty(STDERR_FILENO) != 0
    let started = monotonicNanos()
    var lastDecile = -1
    var drawn = false

    init(label: String, enabled: Bool) {
        self.label = label
        self.enabled = enabled
    }

    func update(position: gint64, duration: gint64) {
        guard enabled, position >= 0, duration > 0 else { return }
        let fraction = min(1, Double(position) / Double(duration))
        let elapsed = Double(monotonicNanos() - started) / 1e9
        let eta = fraction > 0.01 ? elapsed / fraction - elapsed : nil
        if tty {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let etaText = eta.map { "ETA " + clockText($0) } ?? "ETA --:--"
            writeErr(
                "\r\(label) \(bar) \(Int(fraction * 100))%  \(clockText(Double(position) / 1e9)) / \(clockText(Double(duration) / 1e9))  \(etaText) "
            )
            drawn = true
        } else {
            let decile = Int(fraction * 10)
            if decile > lastDecile {
                lastDecile = decile
                writeErr(
                    "\(label): \(decile * 10)% (\(clockText(Double(position) / 1e9)) of \(clockText(Double(duration) / 1e9)))\n"
                )
            }
        }
    }

    /// Ends the bar's line so that what is printed next starts on a line of its own.
    func endLine() {
        if tty && drawn { writeErr("\n") }
        drawn = false
    }

}

/// Seconds as a clock shows them: `4:07`, or `1:02:03` from an hour.
func clockText(_ seconds: Double) -> String {
    let s = max(0, Int(seconds.rounded()))
    let m = s / 60, h = m / 60
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return h > 0 ? "\(h):\(two(m % 60)):\(two(s % 60))" : "\(m):\(two(s % 60))"
}

/// `gst_parse_launch`, its error a `RunFailure` ("invalid pipeline: …", `what` naming the
/// pipeline). It can return a pipeline *and* an error (e.g. a missing property): the
/// pipeline is dropped then.
func parsedPipeline(_ description: String, what: String = "pipeline") throws(RunFailure)
    -> UnsafeMutablePointer<GstElement>
{
    var error: UnsafeMutablePointer<GError>?
    let element = gst_parse_launch(description, &error)
    if let error {
        var m = String(cString: error.pointee.message)
        if error.pointee.domain == gst_parse_error_quark(),
            error.pointee.code == gint(GST_PARSE_ERROR_NO_SUCH_ELEMENT.rawValue),
            let name = quotedName(m), let package = debianPackage(providing: name)
        {
            m += " (it comes with Debian's \(package))"
        }
        g_error_free(error)
        if let element { gst_object_unref(element) }
        throw RunFailure(message: "invalid \(what): \(m)")
    }
    guard let element else { throw RunFailure(message: "invalid \(what)") }
    return element
}

/// decodebin's missing-plugin message for an audio or video stream as a one-line failure
/// naming what is missing; nil for any other element message. A data track nothing decodes
/// (a GoPro's `gpmd` telemetry, `tmcd` timecode) is left out, as the export leaves it.
func missingPlugin(_ msg: UnsafeMutablePointer<GstMessage>) -> String? {
    guard gst_is_missing_plugin_message(msg) != 0, let structure = gst_message_get_structure(msg),
        let detail = gst_structure_get_value(structure, "detail"),
        g_type_check_value_holds(UnsafeMutablePointer(mutating: detail), gst_caps_get_type()) != 0,
        let caps = gst_value_get_caps(detail), let media = gst_caps_get_structure(caps, 0),
        let name = gst_structure_get_name(media)
    else { return nil }
    let kind = String(cString: name)
    guard kind.hasPrefix("video/") || kind.hasPrefix("audio/") else { return nil }
    var what = "plugin"
    if let d = gst_missing_plugin_message_get_description(msg) {
        what = String(cString: d)
        g_free(d)
    }
    return missingDecoders([what])
}

/// "GStreamer has no H.265 (Main Profile) decoder here (…)": what is missing, from
/// decodebin or the discoverer, and the package that has most decoders.
func missingDecoders(_ descriptions: [String]) -> String {
    "GStreamer has no \(descriptions.joined(separator: ", ")) here (Debian's gstreamer1.0-libav decodes most formats)"
}

/// The first double-quoted name in a message: `no element "avenc_aac"` → `avenc_aac`.
func quotedName(_ message: String) -> String? {
    guard let open = message.firstIndex(of: "\"") else { return nil }
    let rest = message[message.index(after: open)...]
    guard let close = rest.firstIndex(of: "\""), close > rest.startIndex else { return nil }
    return String(rest[..<close])
}

/// The Debian package that holds a GStreamer element the CLI's pipelines use, so that a
/// missing one is named with what installs it. Nil for an element it does not know.
func debianPackage(providing element: String) -> String? {
    if element.hasPrefix("av") { return "gstreamer1.0-libav" }  // avenc_*, avdec_*, avmux_*, avdemux_*
    return gstreamerPackages.first { $0.elements.contains(element) }?.package
}

/// Debian's GStreamer packages and the elements of each that the CLI's pipelines use.
let gstreamerPackages: [(package: String, elements: Set<String>)] = [
    ("gstreamer1.0-plugins-ugly", ["x264enc", "lamemp3enc"]),
    ("gstreamer1.0-opencv", ["cvtracker", "facedetect", "handdetect", "motioncells"]),
    (
        "gstreamer1.0-plugins-bad",
        [
            "x265enc", "h264parse", "h265parse", "mpegtsmux", "tsdemux", "srtsrc", "srtsink", "rtmp2src",
            "rtmp2sink", "hlssink2", "hlsdemux",
        ]
    ),
    (
        "gstreamer1.0-plugins-good",
        [
            "rtspsrc", "qtmux", "mp4mux", "qtdemux", "matroskamux", "matroskademux", "splitmuxsink",
            "souphttpsrc", "flvmux", "flvdemux", "rtph264pay", "rtph264depay", "rtph265depay", "udpsrc", "udpsink",
            "multipartdemux", "jpegdec", "pngenc", "pngdec", "vp8enc", "vp9enc", "v4l2src", "aacparse",
            "mpegaudioparse",
        ]
    ),
    (
        "gstreamer1.0-plugins-base",
        [
            "videoconvert", "videoscale", "videorate", "audioconvert", "audioresample", "audiorate",
            "appsrc", "appsink", "decodebin", "uridecodebin", "opusenc", "opusdec",
            "vorbisenc", "videotestsrc", "audiotestsrc", "tcpserversink",
        ]
    ),
    ("libgstreamer1.0-0", ["queue", "tee", "capsfilter", "fakesink", "filesink", "filesrc", "identity"]),
]
