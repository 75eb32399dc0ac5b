// The relay's two pipelines: the one that receives a connection (started again on every
// reconnect) and the output (appsrcs, the overlay, the encoder and the file or stream), and
// how their buses are read without waiting.

import CGStreamer
import CGstApp
import Glibc

/// What a pipeline's bus said since it was last asked.
enum BusEvent {
    case none
    case warning(String)
    case ended
    case failed(String, fatal: Bool)
}

/// Pops the bus's errors, warnings and EOS without waiting; `element` sees the rest.
func pollBus(
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
                guard let element, factoryName(element) == "multipartdemux" else { return }
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
        let found = elements(in: bin, madeBy: ["hlsdemux"])
        for element in found { gst_object_unref(UnsafeMutableRawPointer(element)) }
        return !found.isEmpty
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
