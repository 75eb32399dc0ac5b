// A network input, relayed: the input is received in a pipeline of its own (restarted on
// every reconnect) and its frames and audio are handed to the output pipeline's appsrcs
// with the output's times. The output never sees the input come and go:
// - a recording finishes its files when the input is lost (every file stays playable) and
//   starts the next file, or the next numbered segment, when it is back;
// - a restream keeps its output and its receivers, and sends a "no signal" slate while
//   the input is away.
// The source's streaming threads only push buffers (and hold the first ones until the
// output runs); every state change happens on the thread that calls `run()`.

import CGStreamer
import CGstApp
import Glibc
import Synchronization
import Watermark

package struct Relay {
    /// The audio the input is converted to (the output's appsrc takes these caps).
    static let audioFields: [(name: String, value: Step.Value)] = [
        ("format", "S16LE"), ("layout", "interleaved"), ("rate", "48000"), ("channels", "2"),
    ]
    package static var audioCaps: String { Step.caps("audio/x-raw", audioFields).text }

    package enum Mode: Sendable {
        /// A new output (file or segments) per connection: `output(n, audio)` for the n-th.
        case record
        /// One output for the whole run, with a slate while the input is away.
        case restream
    }

    package var input: NetworkInput
    package var mode: Mode
    /// Whether to relay the input's audio (when it has one).
    package var audio: Bool
    /// The output pipeline for connection `n` (0: the first), with or without audio.
    package var output: (_ connection: Int, _ audio: Bool) -> String
    /// Retries after a failure before giving up (nil: for ever; 0: the first failure ends).
    package var maxRetries: Int?
    /// Stop after this many nanoseconds (--duration).
    package var stopAfter: UInt64?
    /// A restream's network output (errors from its sink are the receiver's; with
    /// `retryInterval` it is started again until the receiver is back).
    package var network: PipelineRunner.NetworkOutput?
    /// Called with each output pipeline before it starts (live control).
    package var configure: ((UnsafeMutablePointer<GstElement>) -> Void)?
    /// Told every error and warning line printed.
    package var onMessage: ((_ error: Bool, _ text: String) -> Void)?
    /// Text of the slate a restream shows while the input is away.
    package var slateText = "NO SIGNAL"

    /// Without a frame for this long, a connected input counts as lost.
    package var stallTimeout: UInt64 = 5_000_000_000
    /// A new connection that gives no frame in this long has failed.
    package var connectTimeout: UInt64 = 20_000_000_000
    /// A restream shows the slate after this long without a frame.
    package var slateAfter: UInt64 = 1_000_000_000
    /// The wait before the n-th retry (n from 0): 1 s, 2 s, 4 s, 8 s, then 10 s.
    package static func backoff(_ n: Int) -> UInt64 {
        UInt64(min(10, 1 << min(n, 4))) * 1_000_000_000
    }

    package init(
        input: NetworkInput, mode: Mode, audio: Bool, output: @escaping (_ connection: Int, _ audio: Bool) -> String
    ) {
        self.input = input
        self.mode = mode
        self.audio = audio
        self.output = output
    }

    /// The receiving pipeline's description.
    package var sourceDescription: String { input.description(audio: audio).text }

    /// What --print-pipeline shows: the two pipelines and how frames pass between them.
    package var printed: String {
        """
        # input (started again on every reconnect); its appsinks hand frames and audio to the output's appsrcs
        gst-launch-1.0 \(sourceDescription)
        # output\(mode == .record ? " (a new file, or the next segment, after each reconnect)" : ", kept through reconnects")
        gst-launch-1.0 \(output(0, audio))
        """
    }

    package func runReporting() -> Int32 {
        do {
            try run()
        } catch {
            say("gst-watermark: \(error.message)", error: true)
            return 1
        }
        return 0
    }

    private func say(_ line: String, error: Bool = false) {
        printErr(line)
        onMessage?(error, line)
    }

    // MARK: the loop

    package func run() throws(RunFailure) {
        let shared = RelayShared()
        let keep = Unmanaged.passRetained(shared)
        defer { keep.release() }
        var source: SourcePipeline?
        var out: OutputPipeline?
        var connections = 0
        var failures = 0
        var connectedOnce = false
        var lostAt: UInt64?
        var retryAt: UInt64? = 0
        var fragments = 0
        var slate: UnsafeMutablePointer<GstBuffer>?
        var lastSlate: UInt64 = 0
        var outputRetryAt: UInt64?
        let start = monotonicNanos()
        Interrupt.install()
        defer {
            source?.stop(shared)
            out?.close(shared)
            if let slate { gst_buffer_unref(slate) }
        }

        /// Ends the recording's open file (restream: the stream) with an EOS, and waits.
        func finishOutput() {
            guard let o = out else { return }
            o.finish(shared, timeout: network == nil ? 30_000_000_000 : 5_000_000_000)
            fragments += o.fragmentsOpened
            out = nil
        }

        /// The input failed or went away: retry (or give up) after finishing what needs it.
        func lost(_ reason: String, fatal: Bool = false) throws(RunFailure) {
            source?.stop(shared)
            source = nil
            shared.connectionEnded()
            let wasConnected = lostAt == nil && connectedOnce
            if wasConnected { lostAt = monotonicNanos() }
            if mode == .record { finishOutput() }
            if fatal { throw RunFailure(message: "\(input.shown): \(reason)") }
            if let maxRetries, failures >= maxRetries {
                throw RunFailure(
                    message: "\(input.shown): \(reason)"
                        + (maxRetries > 0 ? " (gave up after \(maxRetries) retries)" : ""))
            }
            let wait = Self.backoff(failures)
            failures += 1
            let retry = "retrying in \(Int(wait / 1_000_000_000)) s"
            if wasConnected {
                say("input lost: \(input.shown): \(reason); \(retry)")
            } else if connectedOnce {
                say("input still away: \(reason); \(retry)")
            } else {
                say("cannot reach input: \(input.shown): \(reason); \(retry)")
            }
            retryAt = monotonicNanos() + wait
        }

        while true {
            let now = monotonicNanos()
            let stopping =
                Interrupt.requested.load(ordering: .relaxed) != 0 || stopAfter.map { now - start >= $0 } == true
            if stopping {
                source?.stop(shared)
                source = nil
                if out != nil {
                    printErr("stopping: finishing the output…")
                    finishOutput()
                }
                if Interrupt.requested.load(ordering: .relaxed) != 0 { printErr("stopped; output finalized") }
                if !connectedOnce {
                    throw RunFailure(message: "\(input.shown): nothing received: the input never sent a frame")
                }
                return
            }

            // (Re)connect.
            if source == nil, let at = retryAt, now >= at {
                retryAt = nil
                // A restream's input is scaled to the size its output started with.
                let size = mode == .restream ? out.flatMap { Self.sizeCaps($0.videoCaps) } : nil
                defer { if let size { gst_caps_unref(size) } }
                do {
                    source = try SourcePipeline(
                        description: sourceDescription, input: input, shared: shared, size: size)
                } catch {
                    try lost(error.message)
                    continue
                }
            }

            // The input's messages.
            if let s = source {
                switch s.poll() {
                case .none: break
                // gst_parse_launch's link to the audio branch fails for a stream without audio.
                case .warning(let text) where text.hasPrefix("Delayed linking failed"): break
                // A dropping connection warns before it fails ("The server closed the
                // connection"): the loss is one line, its warnings are for --verbose.
                case .warning(let text):
                    if Diagnostics.verbose.load(ordering: .relaxed) { say("warning: \(input.shown): \(text)") }
                case .ended where s.isPlaylist:
                    // An HLS playlist with an end (#EXT-X-ENDLIST) is a whole recording.
                    printErr("the input's playlist ended")
                    finishOutput()
                    return
                case .ended: try lost("the input ended (the camera or sender stopped)")
                case .failed(let text, let fatal): try lost(text, fatal: fatal)
                }
            }

            // The output's messages.
            if let o = out {
                switch o.poll() {
                case .none: break
                case .warning(let text): say("warning: " + text)
                case .ended:
                    // Only an EOS the relay sent ends an output.
                    break
                case .failed(let text, _):
                    if let network, o.comesFrom(network.sink) {
                        let what = "\(network.destination): the receiver is unreachable or went away (\(text))"
                        guard let interval = network.retryInterval else {
                            throw RunFailure(message: what + "; --reconnect keeps trying")
                        }
                        say("gst-watermark: \(what); trying again every \(Double(interval) / 1e9) s", error: true)
                        o.pause(shared)
                        outputRetryAt = monotonicNanos() + interval
                    } else {
                        throw RunFailure(message: text)
                    }
                }
            }
            if let at = outputRetryAt, monotonicNanos() >= at, let o = out {
                outputRetryAt = nil
                if !o.resume(shared) { outputRetryAt = monotonicNanos() + (network?.retryInterval ?? 2_000_000_000) }
            }

            // The first frame of a connection: start the output (or go on with it).
            if let s = source, shared.hasPendingVideo {
                if out == nil {
                    let withAudio = audio && s.hasAudio
                    let description = output(mode == .record ? connections : 0, withAudio)
                    do {
                        out = try OutputPipeline(
                            description: description, fragmentStart: fragments, configure: configure)
                    } catch {
                        throw RunFailure(message: error.message)
                    }
                    connections += 1
                }
                if let o = out {
                    shared.attach(outputRetryAt == nil ? o : nil)
                    if let lost = lostAt {
                        say("input back after \(seconds(monotonicNanos() - lost)) s")
                        lostAt = nil
                    } else if !connectedOnce {
                        printErr("input connected: \(input.shown)")
                    }
                    connectedOnce = true
                    failures = 0
                }
            }
            // The first frame with the camera's time (after its first RTCP sender report).
            if let offset = shared.takeCameraOffset() { printErr(Self.cameraClockLine(offset)) }

            // Stalls and connections that never give a frame.
            if let s = source {
                let (frames, last) = shared.progress
                if frames > 0, now > last, now - last > stallTimeout {
                    try lost("no frames for \(stallTimeout / 1_000_000_000) s")
                    continue
                } else if frames == 0, now > s.started, now - s.started > connectTimeout {
                    try lost("no video within \(connectTimeout / 1_000_000_000) s of connecting")
                    continue
                }
            }

            // A restream's slate while the input is away.
            if mode == .restream, let o = out, outputRetryAt == nil {
                let (_, last) = shared.progress
                if now > last, now - last > slateAfter, now - lastSlate >= 100_000_000 {
                    if slate == nil { slate = Slate.frame(caps: o.videoCaps, text: slateText) }
                    if let slate {
                        shared.pushSlate(slate)
                        lastSlate = now
                    }
                }
            }
            usleep(10_000)
        }
    }

    /// `video/x-raw,format=I420,width=W,height=H` of the caps (which it takes).
    static func sizeCaps(_ caps: UnsafeMutablePointer<GstCaps>?) -> UnsafeMutablePointer<GstCaps>? {
        guard let caps else { return nil }
        defer { gst_caps_unref(caps) }
        guard gst_caps_get_size(caps) > 0, let s = gst_caps_get_structure(caps, 0) else { return nil }
        var w: gint = 0, h: gint = 0
        guard gst_structure_get_int(s, "width", &w) != 0, gst_structure_get_int(s, "height", &h) != 0 else {
            return nil
        }
        return gst_caps_from_string("video/x-raw,format=I420,width=\(w),height=\(h)")
    }

    func seconds(_ nanos: UInt64) -> String {
        let tenths = (nanos + 50_000_000) / 100_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// How the camera's clock compares with this machine's, from the first frame with a
    /// camera time (on one machine, or with both clocks synchronised, this is the delay from
    /// capture to arrival: the network and the jitter buffer, `--latency`).
    static func cameraClockLine(_ offset: Double) -> String {
        let millis = Int((abs(offset) * 1000).rounded())
        let text = "\(millis / 1000).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000)"
        return offset >= 0
            ? "camera clock: frames arrive \(text) s after the camera's time on them"
            : "camera clock: frames arrive \(text) s before the camera's time on them (its clock is ahead of this machine's)"
    }
}

// MARK: what the streaming threads and the loop share

/// The output's appsrcs, the connection's time offset and progress: the source's
/// streaming threads push through it, the loop attaches and detaches the output.
final class RelayShared: Sendable {
    struct Held {
        var buffer: UnsafeMutablePointer<GstBuffer>
        var runningTime: GstClockTime
        var video: Bool
    }

    struct State {
        /// The running output's appsrcs (nil: no output, or stopped to be started again).
        var video: UnsafeMutablePointer<GstElement>?
        var audio: UnsafeMutablePointer<GstElement>?
        /// Monotonic time the output started (its running time is counted from there).
        var outputStart: UInt64 = 0
        var lastVideoPTS: UInt64?
        var lastAudioPTS: UInt64?
        /// Whether this connection's buffers go to the output; until then they are held
        /// (at most `holdLimit`).
        var connected = false
        var held: [Held] = []
        /// Output time minus input running time, for this connection.
        var offset: Int64?
        /// This connection's video caps, frames and the monotonic time of the last frame.
        var caps: UnsafeMutablePointer<GstCaps>?
        var frames = 0
        var lastFrame: UInt64 = 0
        /// This machine's clock minus the camera's time on the connection's first such frame.
        var cameraOffset: Double?
        var toldCameraOffset = false
    }

    static let holdLimit = 120
    let state = Locked(State())

    var hasPendingVideo: Bool { state.withLock { s in !s.connected && s.held.contains { $0.video } } }

    var progress: (frames: Int, last: UInt64) { state.withLock { ($0.frames, $0.lastFrame) } }

    /// This connection's video caps (a reference the caller owns), once a frame came.
    var connectionCaps: UnsafeMutablePointer<GstCaps>? { state.withLock { s in s.caps.map { gst_caps_ref($0) } } }

    func takeCameraOffset() -> Double? {
        state.withLock { s in
            guard !s.toldCameraOffset, let o = s.cameraOffset else { return nil }
            s.toldCameraOffset = true
            return o
        }
    }

    /// A buffer from the input (a streaming thread). Its running time in the input becomes
    /// a time in the output's; until the output takes the connection, it is held.
    func push(_ sample: OpaquePointer, video: Bool) {
        guard let buffer = gst_sample_get_buffer(sample) else { return }
        let pts = buffer.pointee.pts
        var rt = GstClockTime.max
        if pts != GstClockTime.max, let segment = gst_sample_get_segment(sample) {
            rt = gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts)
        }
        let now = monotonicNanos()
        var camera: Double?
        if video, let t = CameraTime.of(buffer) {
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            camera = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 - t
        }
        // A shallow copy: the same memory, its own times and metadata (the camera's time).
        guard let copy = gst_buffer_copy(buffer) else { return }
        let target: UnsafeMutablePointer<GstElement>? = state.withLock { s in
            if video {
                s.frames += 1
                s.lastFrame = now
                if s.cameraOffset == nil, let camera { s.cameraOffset = camera }
                if s.caps == nil, let caps = gst_sample_get_caps(sample) { s.caps = gst_caps_ref(caps) }
            }
            guard s.connected else {
                if s.held.count < Self.holdLimit {
                    s.held.append(Held(buffer: copy, runningTime: rt, video: video))
                } else {
                    gst_buffer_unref(copy)
                }
                return nil
            }
            guard let src = video ? s.video : s.audio else {
                gst_buffer_unref(copy)
                return nil
            }
            stamp(copy, runningTime: rt, video: video, &s)
            return retained(src)
        }
        guard let target else { return }
        gst_app_src_push_buffer(appsrc(target), copy)
        gst_object_unref(UnsafeMutableRawPointer(target))
    }

    /// Gives the buffer its output time, from this connection's offset.
    private func stamp(
        _ buffer: UnsafeMutablePointer<GstBuffer>, runningTime: GstClockTime, video: Bool, _ s: inout State
    ) {
        let elapsed = Int64(bitPattern: monotonicNanos() &- s.outputStart)
        let known = runningTime != GstClockTime.max && runningTime < GstClockTime(Int64.max)
        if s.offset == nil { s.offset = known ? elapsed - Int64(runningTime) : 0 }
        let pts = known ? Int64(runningTime) &+ (s.offset ?? 0) : elapsed
        var out = UInt64(max(0, pts))
        let last = video ? s.lastVideoPTS : s.lastAudioPTS
        if let last, out <= last { out = last + (video ? 1_000_000 : 1) }
        if video { s.lastVideoPTS = out } else { s.lastAudioPTS = out }
        buffer.pointee.pts = GstClockTime(out)
        buffer.pointee.dts = GstClockTime.max
    }

    /// The output takes this connection: the held buffers first. A new output gets the
    /// connection's caps (a restream's output keeps its first: the input is scaled to them);
    /// nil: the output is stopped for now, and the connection's buffers are dropped.
    func attach(_ output: OutputPipeline?) {
        var flush: [(UnsafeMutablePointer<GstElement>, UnsafeMutablePointer<GstBuffer>)] = []
        state.withLock { s in
            if s.video == nil, let output {
                if let caps = s.caps { gst_app_src_set_caps(appsrc(output.video), caps) }
                s.video = output.video
                s.audio = output.audio
                s.outputStart = output.startTime
                s.lastVideoPTS = nil
                s.lastAudioPTS = nil
            }
            s.connected = true
            s.offset = nil
            for h in s.held {
                guard let src = h.video ? s.video : s.audio else {
                    gst_buffer_unref(h.buffer)
                    continue
                }
                stamp(h.buffer, runningTime: h.runningTime, video: h.video, &s)
                flush.append((src, h.buffer))
            }
            s.held = []
        }
        for (src, buffer) in flush { gst_app_src_push_buffer(appsrc(src), buffer) }
    }

    /// The input is gone: buffers are held again, the next connection gets its own offset.
    func connectionEnded() {
        state.withLock { s in
            for h in s.held { gst_buffer_unref(h.buffer) }
            s.held = []
            s.connected = false
            s.offset = nil
            s.frames = 0
            if let c = s.caps { gst_caps_unref(c) }
            s.caps = nil
            s.cameraOffset = nil
            s.toldCameraOffset = false
        }
    }

    /// The output stops taking buffers (finished, or stopped to be started again).
    func detachOutput() {
        state.withLock { s in
            s.video = nil
            s.audio = nil
        }
    }

    /// The output started again (a restream's receiver came back): times count from `start`.
    func reattach(_ output: OutputPipeline) {
        state.withLock { s in
            s.video = output.video
            s.audio = output.audio
            s.outputStart = output.startTime
            s.offset = nil
            s.lastVideoPTS = nil
            s.lastAudioPTS = nil
        }
    }

    /// One slate frame, stamped now (the loop, while a restream's input is away).
    func pushSlate(_ slate: UnsafeMutablePointer<GstBuffer>) {
        var buffer: UnsafeMutablePointer<GstBuffer>?
        let target: UnsafeMutablePointer<GstElement>? = state.withLock { s in
            guard let src = s.video, let copy = gst_buffer_copy(slate) else { return nil }
            var out = monotonicNanos() &- s.outputStart
            if let last = s.lastVideoPTS, out <= last { out = last + 1_000_000 }
            s.lastVideoPTS = out
            copy.pointee.pts = GstClockTime(out)
            copy.pointee.dts = GstClockTime.max
            copy.pointee.duration = GstClockTime.max
            buffer = copy
            return retained(src)
        }
        guard let target, let buffer else { return }
        gst_app_src_push_buffer(appsrc(target), buffer)
        gst_object_unref(UnsafeMutableRawPointer(target))
    }

    deinit {
        state.withLock { s in
            for h in s.held { gst_buffer_unref(h.buffer) }
            if let c = s.caps { gst_caps_unref(c) }
        }
    }
}

func appsrc(_ element: UnsafeMutablePointer<GstElement>) -> UnsafeMutablePointer<GstAppSrc> {
    UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstAppSrc.self)
}

/// A new reference to the element.
func retained(_ element: UnsafeMutablePointer<GstElement>) -> UnsafeMutablePointer<GstElement> {
    gst_object_ref(UnsafeMutableRawPointer(element))
    return element
}

// MARK: the two pipelines

/// What a pipeline's bus said since it was last asked.
enum BusEvent {
    case none
    case warning(String)
    case ended
    case failed(String, fatal: Bool)
}

/// Pops the bus's errors, warnings and EOS without waiting; `element` sees the rest.
private func pollBus(
    _ bus: UnsafeMutablePointer<GstBus>, lastErrorSource: inout String?,
    element: (UnsafeMutablePointer<GstMessage>) -> Void = { _ in }
) -> BusEvent {
    let types = GstMessageType(
        rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_WARNING.rawValue
            | GST_MESSAGE_ELEMENT.rawValue)
    while let msg = gst_bus_pop_filtered(bus, types) {
        defer { gst_message_unref(msg) }
        switch msg.pointee.type {
        case GST_MESSAGE_EOS: return .ended
        case GST_MESSAGE_ELEMENT:
            if let missing = missingPlugin(msg) { return .failed(missing, fatal: true) }
            element(msg)
        default:
            let isError = msg.pointee.type == GST_MESSAGE_ERROR
            var err: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            if isError {
                gst_message_parse_error(msg, &err, &debug)
            } else {
                gst_message_parse_warning(msg, &err, &debug)
            }
            defer {
                if let err { g_error_free(err) }
                g_free(debug)
            }
            var text = err.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if text.hasSuffix(".") { text.removeLast() }
            // GStreamer's debug text ends with the reason in words ("Failed to connect.").
            if let debug, let last = String(cString: debug).split(separator: "\n").last,
                !last.hasPrefix("/"), strstr(String(last), "gst") == nil, last.count < 160
            {
                text += " (\(last.hasSuffix(".") ? last.dropLast() : last))"
            }
            if Diagnostics.verbose.load(ordering: .relaxed), let debug { text += " [\(String(cString: debug))]" }
            var name: String?
            if let src = msg.pointee.src, let n = gst_object_get_name(src) {
                name = String(cString: n)
                g_free(n)
            }
            guard isError else { return .warning(text) }
            lastErrorSource = name
            let denied =
                err.map {
                    $0.pointee.domain == gst_resource_error_quark()
                        && $0.pointee.code == Int32(GST_RESOURCE_ERROR_NOT_AUTHORIZED.rawValue)
                } ?? false
            if denied { return .failed("the camera refused the user name or password (401 Unauthorized)", fatal: true) }
            return .failed(text, fatal: false)
        }
    }
    return .none
}

/// The receiving pipeline of one connection.
final class SourcePipeline {
    let pipeline: UnsafeMutablePointer<GstElement>
    let bus: UnsafeMutablePointer<GstBus>
    /// The video appsink: its end is the input's (the pipeline's own EOS waits for the audio
    /// branch too, which an input without audio never ends).
    let videoSink: UnsafeMutablePointer<GstAppSink>
    let started = monotonicNanos()
    private var lastErrorSource: String?

    init(description: String, input: NetworkInput, shared: RelayShared, size: UnsafeMutablePointer<GstCaps>?)
        throws(RunFailure)
    {
        let element = try parsedPipeline(description, what: "input pipeline")
        guard let bus = gst_element_get_bus(element) else {
            gst_object_unref(element)
            throw RunFailure(message: "invalid input pipeline")
        }
        let bin = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstBin.self)
        guard let video = gst_bin_get_by_name(bin, "video") else {
            gst_object_unref(UnsafeMutableRawPointer(bus))
            gst_object_unref(UnsafeMutableRawPointer(element))
            throw RunFailure(message: "invalid input pipeline: no video appsink")
        }
        // The RTSP source: the camera's NTP time on every frame, and the jitter buffer's latency.
        if let d = gst_bin_get_by_name(bin, "d") {
            let setup:
                @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstElement>?, UnsafeMutableRawPointer?)
                    -> Void = { _, source, data in
                        guard let source else { return }
                        let object = UnsafeMutablePointer<GObject>(OpaquePointer(source))
                        let klass = UnsafeMutableRawPointer(object.pointee.g_type_instance.g_class)
                            .assumingMemoryBound(to: GObjectClass.self)
                        func has(_ name: String) -> Bool { g_object_class_find_property(klass, name) != nil }
                        if has("add-reference-timestamp-meta") {
                            gst_util_set_object_arg(object, "add-reference-timestamp-meta", "true")
                        }
                        if has("latency") { gst_util_set_object_arg(object, "latency", "\(Int(bitPattern: data))") }
                    }
            g_signal_connect_data(
                UnsafeMutableRawPointer(d), "source-setup", unsafeBitCast(setup, to: GCallback.self),
                UnsafeMutableRawPointer(bitPattern: max(1, input.latency)), nil, GConnectFlags(0))
            gst_object_unref(UnsafeMutableRawPointer(d))
        }
        // An MJPEG camera's multipart stream has one part type: without being told so,
        // multipartdemux never says it has all its pads, and decodebin waits for that
        // before anything plays.
        let added:
            @convention(c) (
                UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<GstElement>?,
                UnsafeMutableRawPointer?
            ) -> Void = { _, _, element, _ in
                guard let element, let factory = gst_element_get_factory(element),
                    let name = gst_object_get_name(
                        UnsafeMutableRawPointer(factory).assumingMemoryBound(to: GstObject.self))
                else { return }
                defer { g_free(name) }
                guard strcmp(name, "multipartdemux") == 0 else { return }
                gst_util_set_object_arg(UnsafeMutablePointer<GObject>(OpaquePointer(element)), "single-stream", "true")
            }
        g_signal_connect_data(
            UnsafeMutableRawPointer(element), "deep-element-added", unsafeBitCast(added, to: GCallback.self), nil, nil,
            GConnectFlags(0))
        if let size, let filter = gst_bin_get_by_name(bin, "size") {
            g_object_set_property_caps(filter, "caps", size)
            gst_object_unref(UnsafeMutableRawPointer(filter))
        }
        let data = Unmanaged.passUnretained(shared).toOpaque()
        let videoSink = UnsafeMutableRawPointer(video).assumingMemoryBound(to: GstAppSink.self)
        var videoCallbacks = GstAppSinkCallbacks()
        videoCallbacks.new_sample = { sink, data in SourcePipeline.pull(sink, data, video: true) }
        gst_app_sink_set_callbacks(videoSink, &videoCallbacks, data, nil)
        if let audio = gst_bin_get_by_name(bin, "audio") {
            var audioCallbacks = GstAppSinkCallbacks()
            audioCallbacks.new_sample = { sink, data in SourcePipeline.pull(sink, data, video: false) }
            gst_app_sink_set_callbacks(
                UnsafeMutableRawPointer(audio).assumingMemoryBound(to: GstAppSink.self), &audioCallbacks, data, nil)
            gst_object_unref(UnsafeMutableRawPointer(audio))
        }
        if gst_element_set_state(element, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            var ignored: String?
            let event = pollBus(bus, lastErrorSource: &ignored)
            gst_element_set_state(element, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(video))
            gst_object_unref(UnsafeMutableRawPointer(bus))
            gst_object_unref(UnsafeMutableRawPointer(element))
            if case .failed(let text, _) = event { throw RunFailure(message: text) }
            throw RunFailure(message: "the input could not start")
        }
        pipeline = element
        self.bus = bus
        self.videoSink = videoSink
    }

    fileprivate static func pull(_ sink: UnsafeMutablePointer<GstAppSink>?, _ data: gpointer?, video: Bool)
        -> GstFlowReturn
    {
        guard let sink, let data, let sample = gst_app_sink_pull_sample(sink) else { return GST_FLOW_EOS }
        Unmanaged<RelayShared>.fromOpaque(data).takeUnretainedValue().push(sample, video: video)
        gst_sample_unref(sample)
        return GST_FLOW_OK
    }

    /// Whether the input is an HLS playlist (its EOS is the end of the recording).
    var isPlaylist: Bool {
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let it = gst_bin_iterate_recurse(bin) else { return false }
        defer { gst_iterator_free(it) }
        var value = GValue()
        var found = false
        while !found, gst_iterator_next(it, &value) == GST_ITERATOR_OK {
            if let object = g_value_get_object(&value),
                let factory = gst_element_get_factory(object.assumingMemoryBound(to: GstElement.self)),
                let name = gst_object_get_name(UnsafeMutableRawPointer(factory).assumingMemoryBound(to: GstObject.self))
            {
                found = String(cString: name) == "hlsdemux"
                g_free(name)
            }
            g_value_reset(&value)
        }
        g_value_unset(&value)
        return found
    }

    /// Whether the input has audio: uridecodebin linked a pad to the audio branch.
    var hasAudio: Bool {
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let queue = gst_bin_get_by_name(bin, "aq") else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(queue)) }
        guard let pad = gst_element_get_static_pad(queue, "sink") else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        return gst_pad_is_linked(pad) != 0
    }

    func poll() -> BusEvent {
        let event = pollBus(bus, lastErrorSource: &lastErrorSource)
        if case .none = event, gst_app_sink_is_eos(videoSink) != 0 { return .ended }
        return event
    }

    /// Stops the connection (the streaming threads are joined: no push comes after).
    func stop(_ shared: RelayShared) {
        gst_element_set_state(pipeline, GST_STATE_NULL)
    }

    deinit {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(videoSink))
        gst_object_unref(UnsafeMutableRawPointer(bus))
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }
}

/// Sets a caps property (g_object_set is variadic).
func g_object_set_property_caps(
    _ element: UnsafeMutablePointer<GstElement>, _ name: String, _ caps: UnsafeMutablePointer<GstCaps>
) {
    var value = GValue()
    g_value_init(&value, gst_caps_get_type())
    gst_value_set_caps(&value, caps)
    g_object_set_property(UnsafeMutablePointer<GObject>(OpaquePointer(element)), name, &value)
    g_value_unset(&value)
}

/// The output pipeline: appsrcs, the overlay, the encoder and the file or the stream.
final class OutputPipeline {
    let pipeline: UnsafeMutablePointer<GstElement>
    let bus: UnsafeMutablePointer<GstBus>
    let video: UnsafeMutablePointer<GstElement>
    let audio: UnsafeMutablePointer<GstElement>?
    private(set) var startTime = monotonicNanos()
    /// Segments splitmuxsink opened.
    private(set) var fragmentsOpened = 0
    private var lastErrorSource: String?

    init(description: String, fragmentStart: Int, configure: ((UnsafeMutablePointer<GstElement>) -> Void)?)
        throws(RunFailure)
    {
        let element = try parsedPipeline(description)
        let bin = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstBin.self)
        guard let bus = gst_element_get_bus(element) else {
            gst_object_unref(element)
            throw RunFailure(message: "invalid pipeline")
        }
        guard let video = gst_bin_get_by_name(bin, "video") else {
            gst_object_unref(UnsafeMutableRawPointer(bus))
            gst_object_unref(element)
            throw RunFailure(message: "invalid pipeline: no appsrc named video")
        }
        pipeline = element
        self.bus = bus
        self.video = video
        audio = gst_bin_get_by_name(bin, "audio")
        if fragmentStart > 0, let mux = gst_bin_get_by_name(bin, "mux") {
            let object = UnsafeMutablePointer<GObject>(OpaquePointer(mux))
            let klass = UnsafeMutableRawPointer(object.pointee.g_type_instance.g_class)
                .assumingMemoryBound(to: GObjectClass.self)
            if g_object_class_find_property(klass, "start-index") != nil {
                gst_util_set_object_arg(object, "start-index", "\(fragmentStart)")
            }
            gst_object_unref(UnsafeMutableRawPointer(mux))
        }
        configure?(element)
        startTime = monotonicNanos()
        if gst_element_set_state(element, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            var ignored: String?
            if case .failed(let text, _) = pollBus(bus, lastErrorSource: &ignored) {
                throw RunFailure(message: text)
            }
            throw RunFailure(message: "the output could not start")
        }
    }

    /// The caps the output's video has (a reference the caller owns).
    var videoCaps: UnsafeMutablePointer<GstCaps>? { gst_app_src_get_caps(appsrc(video)) }

    func poll() -> BusEvent {
        pollBus(bus, lastErrorSource: &lastErrorSource) { msg in
            if let s = gst_message_get_structure(msg),
                gst_structure_has_name(s, "splitmuxsink-fragment-opened") != 0
            {
                fragmentsOpened += 1
            }
        }
    }

    func comesFrom(_ name: String) -> Bool { lastErrorSource == name }

    /// Ends the output with an EOS and waits (at most `timeout`) for the files to be
    /// finished.
    func finish(_ shared: RelayShared, timeout: UInt64) {
        shared.detachOutput()
        gst_app_src_end_of_stream(appsrc(video))
        if let audio { gst_app_src_end_of_stream(appsrc(audio)) }
        let until = monotonicNanos() + timeout
        while monotonicNanos() < until {
            let event = poll()
            if case .ended = event { break }
            if case .failed(let text, _) = event {
                printErr("gst-watermark: while finishing the output: \(text)")
                break
            }
            usleep(10_000)
        }
        gst_element_set_state(pipeline, GST_STATE_NULL)
    }

    /// Stops the output for now (its receiver went away).
    func pause(_ shared: RelayShared) {
        shared.detachOutput()
        gst_element_set_state(pipeline, GST_STATE_NULL)
    }

    /// Starts the output again; false when it cannot start yet.
    func resume(_ shared: RelayShared) -> Bool {
        gst_bus_set_flushing(bus, 1)
        gst_bus_set_flushing(bus, 0)
        startTime = monotonicNanos()
        guard gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE else {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            return false
        }
        shared.reattach(self)
        return true
    }

    func close(_ shared: RelayShared) {
        shared.detachOutput()
        gst_element_set_state(pipeline, GST_STATE_NULL)
    }

    deinit {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(video))
        if let audio { gst_object_unref(UnsafeMutableRawPointer(audio)) }
        gst_object_unref(UnsafeMutableRawPointer(bus))
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
    }
}

/// The frame a restream sends while its input is away: black, with the text in the middle
/// (the output's own layers are drawn over it as over any frame).
enum Slate {
    static func frame(caps: UnsafeMutablePointer<GstCaps>?, text: String) -> UnsafeMutablePointer<GstBuffer>? {
        guard let caps else { return nil }
        defer { gst_caps_unref(caps) }
        guard let capsText = gst_caps_to_string(caps) else { return nil }
        let capsString = String(cString: capsText)
        g_free(capsText)
        let description = LaunchDescription([
            Branch([
                Step("videotestsrc", [("num-buffers", "1"), ("pattern", "black")]),
                Step("capsfilter", [("caps", .quoted(capsString))]),
                Step(
                    "watermark",
                    [
                        ("text", .quoted(text)), ("anchor", "center"), ("text-size", "0.08"),
                        ("color", "0xffffffff"),
                    ]),
                Step("appsink", [("name", "s"), ("sync", "false")]),
            ])
        ]).text
        var error: UnsafeMutablePointer<GError>?
        let pipeline = gst_parse_launch(description, &error)
        if let error { g_error_free(error) }
        guard let pipeline else { return nil }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let sink = gst_bin_get_by_name(bin, "s") else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        guard
            let sample = gst_app_sink_try_pull_sample(
                UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstAppSink.self), 5_000_000_000)
        else { return nil }
        defer { gst_sample_unref(sample) }
        guard let buffer = gst_sample_get_buffer(sample) else { return nil }
        gst_buffer_ref(buffer)
        return buffer
    }
}
