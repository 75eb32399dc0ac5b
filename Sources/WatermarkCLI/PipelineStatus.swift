// Counters and snapshots taken from a running pipeline by pad probes: the streaming
// threads only bump atomics or, when a snapshot was asked for, keep one buffer reference.
// Everything slower (JPEG encoding, sink statistics) happens on the control side.

import CGStreamer
import Glibc
import Synchronization
import WatermarkModel

/// What `GET /api/status` reports.
final class PipelineStatus: @unchecked Sendable {
    package let output: String
    let encoder: String
    let started = monotonicNanos()
    let framesIn = Atomic<UInt64>(0)
    let framesOut = Atomic<UInt64>(0)
    let bytesOut = Atomic<UInt64>(0)
    /// Layer changes applied.
    let changes = Atomic<UInt64>(0)
    private let messages = Locked<(error: String?, warning: String?)>((nil, nil))
    /// (time ns, frames out, bytes out) every half second, for the last few seconds.
    private let samples = Locked<[(UInt64, UInt64, UInt64)]>([])
    /// The pipeline's sink elements (references), for their dropped-frame counts.
    private let sinks = Locked<[UInt]>([])

    init(output: String, encoder: String) {
        self.output = output
        self.encoder = encoder
    }

    deinit {
        for s in sinks.withLock({ $0 }) { gst_object_unref(UnsafeMutableRawPointer(bitPattern: s)) }
    }

    func attach(pipeline: UnsafeMutablePointer<GstElement>, element: UnsafeMutablePointer<GstElement>) {
        count(element, "sink", input: true)
        count(element, "src", input: false)
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let it = gst_bin_iterate_sinks(bin) else { return }
        defer { gst_iterator_free(it) }
        var value = GValue()
        var found: [UInt] = []
        while gst_iterator_next(it, &value) == GST_ITERATOR_OK {
            if let object = g_value_get_object(&value) {
                _ = gst_object_ref(object)
                found.append(UInt(bitPattern: object))
            }
            g_value_reset(&value)
        }
        g_value_unset(&value)
        sinks.withLock { $0 = found }
        // Bytes written: at the sink that is not a fakesink (the output).
        for s in found {
            guard let sink = UnsafeMutablePointer<GstElement>(bitPattern: s),
                let pad = gst_element_get_static_pad(sink, "sink")
            else { continue }
            defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
            let counter = Unmanaged.passRetained(self).toOpaque()
            gst_pad_add_probe(
                pad,
                GstPadProbeType(rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue),
                { _, info, data in
                    guard let info, let data, let object = info.pointee.data else { return GST_PAD_PROBE_OK }
                    let status = Unmanaged<PipelineStatus>.fromOpaque(data).takeUnretainedValue()
                    let size: UInt =
                        info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue != 0
                        ? gst_buffer_list_calculate_size(OpaquePointer(object))
                        : gst_buffer_get_size(object.assumingMemoryBound(to: GstBuffer.self))
                    status.bytesOut.add(UInt64(size), ordering: .relaxed)
                    return GST_PAD_PROBE_OK
                }, counter, { data in if let data { Unmanaged<PipelineStatus>.fromOpaque(data).release() } })
        }
    }

    private func count(_ element: UnsafeMutablePointer<GstElement>, _ name: String, input: Bool) {
        guard let pad = gst_element_get_static_pad(element, name) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        let box = Unmanaged.passRetained(FrameCount(status: self, input: input)).toOpaque()
        gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_BUFFER,
            { _, _, data in
                if let data {
                    let c = Unmanaged<FrameCount>.fromOpaque(data).takeUnretainedValue()
                    if c.input {
                        c.status.framesIn.add(1, ordering: .relaxed)
                    } else {
                        c.status.framesOut.add(1, ordering: .relaxed)
                    }
                }
                return GST_PAD_PROBE_OK
            }, box, { data in if let data { Unmanaged<FrameCount>.fromOpaque(data).release() } })
    }

    func warning(_ text: String) { messages.withLock { $0.warning = text } }
    func error(_ text: String) { messages.withLock { $0.error = text } }

    /// Called every half second on the control thread.
    func sample() {
        let now = monotonicNanos()
        let s = (now, framesOut.load(ordering: .relaxed), bytesOut.load(ordering: .relaxed))
        samples.withLock { list in
            list.append(s)
            list.removeAll { now - $0.0 > 3_000_000_000 }
        }
    }

    /// Frames the sinks dropped (late buffers), from their statistics.
    private var dropped: UInt64 {
        var total: UInt64 = 0
        for s in sinks.withLock({ $0 }) {
            guard let object = UnsafeMutablePointer<GObject>(bitPattern: s),
                g_object_class_find_property(
                    UnsafeMutablePointer(OpaquePointer(object.pointee.g_type_instance.g_class)), "stats") != nil
            else { continue }
            var value = GValue()
            g_value_init(&value, gst_structure_get_type())
            g_object_get_property(object, "stats", &value)
            if let structure = gst_value_get_structure(&value) {
                var n: guint64 = 0
                if gst_structure_get_uint64(structure, "dropped", &n) != 0 { total += UInt64(n) }
            }
            g_value_unset(&value)
        }
        return total
    }

    func json(layers: Int) -> String {
        let now = monotonicNanos()
        let list = samples.withLock { $0 }
        var fps = "null", kbps = "null"
        if let first = list.first, let last = list.last, last.0 > first.0 {
            let dt = Double(last.0 - first.0) / 1e9
            fps = JSONText.number((Double(last.1 - first.1) / dt * 10).rounded() / 10)
            if last.2 > first.2 { kbps = JSONText.number((Double(last.2 - first.2) * 8 / 1000 / dt).rounded()) }
        }
        let m = messages.withLock { $0 }
        return JSONText.object([
            ("uptime_s", JSONText.number((Double(now - started) / 1e8).rounded() / 10)),
            ("frames_in", String(framesIn.load(ordering: .relaxed))),
            ("frames_out", String(framesOut.load(ordering: .relaxed))),
            ("frames_dropped", String(dropped)),
            ("fps", fps),
            ("output", JSONText.quoted(output)),
            ("encoder", JSONText.quoted(encoder)),
            ("bitrate_kbps", kbps),
            ("layers", String(layers)),
            ("changes_applied", String(changes.load(ordering: .relaxed))),
            ("last_error", m.error.map(JSONText.quoted) ?? "null"),
            ("last_warning", m.warning.map(JSONText.quoted) ?? "null"),
        ])
    }
}

private final class FrameCount: Sendable {
    let status: PipelineStatus
    package let input: Bool
    init(status: PipelineStatus, input: Bool) {
        self.status = status
        self.input = input
    }
}

/// The most recent output frame as JPEG, taken only when asked for.
final class SnapshotTap: @unchecked Sendable {
    /// Set when a frame is wanted; the next buffer through the element's source pad clears it.
    private let wanted = Atomic<Bool>(false)
    /// The GstSample taken (0: none yet).
    private let frame = Locked<UInt>(0)
    private let last = Locked<(jpeg: [UInt8], at: UInt64, error: String?)>(([], 0, nil))
    static let maxWidth = 1280

    deinit {
        let f = frame.withLock { $0 }
        if f != 0 { gst_sample_unref(OpaquePointer(bitPattern: f)) }
    }

    func attach(element: UnsafeMutablePointer<GstElement>) {
        guard let pad = gst_element_get_static_pad(element, "src") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_BUFFER,
            { pad, info, data in
                guard let pad, let info, let data, let buffer = info.pointee.data else { return GST_PAD_PROBE_OK }
                let tap = Unmanaged<SnapshotTap>.fromOpaque(data).takeUnretainedValue()
                guard tap.wanted.load(ordering: .relaxed), tap.wanted.exchange(false, ordering: .relaxed) else {
                    return GST_PAD_PROBE_OK
                }
                let caps = gst_pad_get_current_caps(pad)
                let sample = gst_sample_new(buffer.assumingMemoryBound(to: GstBuffer.self), caps, nil, nil)
                if let caps { gst_caps_unref(caps) }
                let old = tap.frame.withLock { f -> UInt in
                    let o = f
                    f = UInt(bitPattern: sample)
                    return o
                }
                if old != 0 { gst_sample_unref(OpaquePointer(bitPattern: old)) }
                return GST_PAD_PROBE_OK
            }, Unmanaged.passRetained(self).toOpaque(),
            { data in if let data { Unmanaged<SnapshotTap>.fromOpaque(data).release() } })
    }

    /// The last JPEG when it is at most `maxAge` ns old.
    func recent(maxAge: UInt64) -> [UInt8]? {
        let l = last.withLock { $0 }
        return !l.jpeg.isEmpty && l.error == nil && monotonicNanos() - l.at <= maxAge ? l.jpeg : nil
    }

    func latest() -> Result<[UInt8], ControlRefusal> {
        let l = last.withLock { $0 }
        if let e = l.error { return .failure(ControlRefusal(status: 503, message: e)) }
        return .success(l.jpeg)
    }

    /// Takes the next frame (waiting up to a second for one) and encodes it as JPEG at most
    /// `maxWidth` wide. Runs on a thread of its own.
    func capture() {
        wanted.store(true, ordering: .relaxed)
        var sample: OpaquePointer?
        for _ in 0..<100 {
            let f = frame.withLock { f -> UInt in
                let o = f
                f = 0
                return o
            }
            if f != 0 {
                sample = OpaquePointer(bitPattern: f)
                break
            }
            usleep(10_000)
        }
        wanted.store(false, ordering: .relaxed)
        guard let sample else {
            last.withLock { $0 = ([], monotonicNanos(), "no frame within a second (is the pipeline running?)") }
            return
        }
        defer { gst_sample_unref(sample) }
        var info = GstVideoInfo()
        guard let caps = gst_sample_get_caps(sample), gst_video_info_from_caps(&info, caps) != 0, info.width > 0 else {
            last.withLock { $0 = ([], monotonicNanos(), "the frame has no video format") }
            return
        }
        let width = min(Int(info.width), Self.maxWidth)
        let height = max(2, (Int(info.height) * width / Int(info.width) + 1) & ~1)
        let target = gst_caps_from_string("image/jpeg,width=\(width),height=\(height),pixel-aspect-ratio=1/1")
        defer { if let target { gst_caps_unref(target) } }
        var error: UnsafeMutablePointer<GError>?
        guard let jpeg = gst_video_convert_sample(sample, target, 2_000_000_000, &error),
            let buffer = gst_sample_get_buffer(jpeg)
        else {
            let why = error.map { String(cString: $0.pointee.message) } ?? "cannot encode JPEG"
            if let error { g_error_free(error) }
            last.withLock { $0 = ([], monotonicNanos(), why) }
            return
        }
        defer { gst_sample_unref(jpeg) }
        var bytes = [UInt8](repeating: 0, count: Int(gst_buffer_get_size(buffer)))
        _ = bytes.withUnsafeMutableBytes { gst_buffer_extract(buffer, 0, $0.baseAddress, gsize($0.count)) }
        last.withLock { $0 = (bytes, monotonicNanos(), nil) }
    }
}
