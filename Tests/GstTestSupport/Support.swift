import CGStreamer
import CGstCheck
import CPangoCairo
import CShim
import Foundation
import Synchronization
@_exported import TestSupport
import Watermark

// Test helpers for everything that runs GStreamer: the element registered statically, a
// GstHarness wrapper with mapped output frames, pipelines run to EOS, PNGs made and read
// with cairo, threads to join.

/// GStreamer initialised once per test process, with the element registered statically.
package enum GstTest {
    package static let ready: Bool = {
        gst_init(nil, nil)
        return WatermarkPlugin.register()
    }()

    /// Whether the GStreamer the tests run against is `major`.`minor` or newer (1.24 brought
    /// the analytics library).
    package static func runningAtLeast(_ major: UInt32, _ minor: UInt32) -> Bool {
        var a: guint = 0, b: guint = 0, c: guint = 0, d: guint = 0
        gst_version(&a, &b, &c, &d)
        return (a, b) >= (major, minor)
    }

    /// Writes an opaque `width`×`height` PNG of one colour (0xAARRGGBB, straight).
    package static func solidPNG(_ name: String, width: Int32, height: Int32, argb: UInt32) -> String {
        let path = TestEnv.path(name)
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height)
        let cr = cairo_create(surface)
        let c = { (shift: UInt32) in Double((argb >> shift) & 0xFF) / 255 }
        cairo_set_source_rgba(cr, c(16), c(8), c(0), c(24))
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(cr)
        cairo_destroy(cr)
        cairo_surface_write_to_png(surface, path)
        cairo_surface_destroy(surface)
        return path
    }

}

/// A GstHarness around one element or a parsed bin, torn down on deinit.
package final class Harness {
    package let h: UnsafeMutablePointer<GstHarness>

    package init(_ description: String, caps: String = "") {
        _ = GstTest.ready
        h = gst_harness_new_parse(description)
        if !caps.isEmpty { gst_harness_set_src_caps_str(h, caps) }
    }

    /// Creates `factory`, sets `properties` (before it starts, as gst-launch does) and
    /// wraps it in a harness.
    package init(element factory: String, _ properties: KeyValuePairs<String, String> = [:]) {
        _ = GstTest.ready
        let e = gst_element_factory_make(factory, nil)!
        for (k, v) in properties { gst_util_set_object_arg(gst_watermark_as_object(e), k, v) }
        h = gst_harness_new_with_element(e, "sink", "src")
    }

    deinit { gst_harness_teardown(h) }

    package var element: UnsafeMutablePointer<GstElement> { h.pointee.element }

    package func set(_ name: String, _ value: String) {
        gst_util_set_object_arg(gst_watermark_as_object(element), name, value)
    }

    /// Pushes a frame made by `videotestsrc` with `pattern` for the caps, returns the output.
    package func pushTestFrame(caps: String, pattern: String = "black") -> Frame? {
        // Bare caps need an element on both sides in a launch line: use capsfilter.
        gst_harness_add_src_parse(h, "videotestsrc is-live=true pattern=\(pattern) ! capsfilter caps=\"\(caps)\"", 1)
        guard gst_harness_push_from_src(h) == GST_FLOW_OK, let out = gst_harness_pull(h) else { return nil }
        return Frame(buffer: out, caps: gst_pad_get_current_caps(h.pointee.sinkpad))
    }

    /// Pushes a zero-filled buffer (black in RGB formats) of `bytes` bytes stamped `pts`
    /// (`GstClockTime.max`: no timestamp), after `prepare` (e.g. adding metas); returns the output.
    package func pushZeroed(
        bytes: Int, pts: GstClockTime, duration: GstClockTime = GstClockTime.max,
        prepare: (UnsafeMutablePointer<GstBuffer>) -> Void = { _ in }
    ) -> Frame? {
        guard let buffer = gst_harness_create_buffer(h, gsize(bytes)) else { return nil }
        _ = gst_buffer_memset(buffer, 0, 0, gsize(bytes))
        buffer.pointee.pts = pts
        buffer.pointee.duration = duration
        prepare(buffer)
        return push(buffer)
    }

    package func push(_ buffer: UnsafeMutablePointer<GstBuffer>) -> Frame? {
        guard gst_harness_push(h, buffer) == GST_FLOW_OK, let out = gst_harness_pull(h) else { return nil }
        return Frame(buffer: out, caps: gst_pad_get_current_caps(h.pointee.sinkpad))
    }
}

/// A mapped output frame (read-only) with pixel accessors.
package final class Frame {
    /// Whether two BGRA frames are the same size and equal pixel for pixel.
    package static func same(_ a: Frame, _ b: Frame) -> Bool {
        guard a.width == b.width, a.height == b.height else { return false }
        for y in 0..<a.height {
            for x in 0..<a.width where a.bgra(x, y) != b.bgra(x, y) { return false }
        }
        return true
    }

    /// How many BGRA pixels have a green above 128 (drawn white or green, on black).
    package var litPixels: Int {
        var n = 0
        for y in 0..<height { for x in 0..<width where bgra(x, y).g > 128 { n += 1 } }
        return n
    }

    package let buffer: UnsafeMutablePointer<GstBuffer>
    package var info = GstVideoInfo()
    package var frame = GstVideoFrame()
    package let mapped: Bool

    package init(buffer: UnsafeMutablePointer<GstBuffer>, caps: UnsafeMutablePointer<GstCaps>?) {
        self.buffer = buffer
        if let caps {
            _ = gst_video_info_from_caps(&info, caps)
            gst_caps_unref(caps)
        }
        mapped = gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ) != 0
    }

    deinit {
        if mapped { gst_video_frame_unmap(&frame) }
        gst_buffer_unref(buffer)
    }

    package var width: Int { Int(info.width) }
    package var height: Int { Int(info.height) }

    package func byte(plane: Int, row: Int, offset: Int) -> UInt8 {
        let data = gst_watermark_frame_plane_data(&frame, UInt32(plane))!
        return data[row * Int(gst_watermark_frame_plane_stride(&frame, UInt32(plane))) + offset]
    }

    /// (B, G, R, A) of a BGRA/BGRx frame.
    package func bgra(_ x: Int, _ y: Int) -> (b: Int, g: Int, r: Int, a: Int) {
        (
            Int(byte(plane: 0, row: y, offset: x * 4)), Int(byte(plane: 0, row: y, offset: x * 4 + 1)),
            Int(byte(plane: 0, row: y, offset: x * 4 + 2)), Int(byte(plane: 0, row: y, offset: x * 4 + 3))
        )
    }

    package func hasOverlayMeta() -> Bool {
        gst_buffer_get_meta(buffer, gst_watermark_overlay_meta_api_type()) != nil
    }
}

/// A pipeline run to EOS or error, with the messages it posted.
package struct PipelineRun {
    package var ok: Bool
    package var errors: [(domain: GQuark, code: Int32, message: String)] = []
    package var warnings: [String] = []
}

package enum Pipeline {
    /// Runs `description` until EOS, an error or `timeout` seconds.
    package static func run(
        _ description: String, timeout: Double = 60,
        whilePlaying: ((UnsafeMutablePointer<GstElement>) -> Void)? = nil
    ) -> PipelineRun {
        _ = GstTest.ready
        var error: UnsafeMutablePointer<GError>?
        guard let pipeline = gst_parse_launch(description, &error) else {
            let m = error.map { String(cString: $0.pointee.message) } ?? "parse error"
            return PipelineRun(ok: false, errors: [(0, 0, m)])
        }
        if let error { g_error_free(error) }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(pipeline)
        }
        let bus = gst_element_get_bus(pipeline)
        defer { gst_object_unref(bus) }
        var run = PipelineRun(ok: false)
        if gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            collect(bus, into: &run)
            return run
        }
        var callbackDone = whilePlaying == nil
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let types = GstMessageType(
                rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_WARNING.rawValue)
            guard let msg = gst_bus_timed_pop_filtered(bus, 100 * 1_000_000, types) else {
                if !callbackDone, let whilePlaying {
                    callbackDone = true
                    whilePlaying(pipeline)
                }
                continue
            }
            defer { gst_message_unref(msg) }
            if msg.pointee.type == GST_MESSAGE_EOS {
                run.ok = run.errors.isEmpty
                return run
            }
            record(msg, into: &run)
            if msg.pointee.type == GST_MESSAGE_ERROR { return run }
        }
        return run
    }

    package static func collect(_ bus: UnsafeMutablePointer<GstBus>?, into run: inout PipelineRun) {
        while let msg = gst_bus_pop(bus) {
            record(msg, into: &run)
            gst_message_unref(msg)
        }
    }

    /// The message of the next warning posted on `bus` within `seconds`; nil if none came.
    package static func nextWarning(on bus: UnsafeMutablePointer<GstBus>?, seconds: Double = 5) -> String? {
        guard let msg = gst_bus_timed_pop_filtered(bus, GstClockTime(seconds * 1e9), GST_MESSAGE_WARNING) else {
            return nil
        }
        defer { gst_message_unref(msg) }
        var run = PipelineRun(ok: true)
        record(msg, into: &run)
        return run.warnings.first ?? ""
    }

    package static func record(_ msg: UnsafeMutablePointer<GstMessage>, into run: inout PipelineRun) {
        var err: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        if msg.pointee.type == GST_MESSAGE_ERROR {
            gst_message_parse_error(msg, &err, &debug)
            if let err {
                run.errors.append((err.pointee.domain, err.pointee.code, String(cString: err.pointee.message)))
                g_error_free(err)
            }
        } else if msg.pointee.type == GST_MESSAGE_WARNING {
            gst_message_parse_warning(msg, &err, &debug)
            if let err {
                run.warnings.append(String(cString: err.pointee.message))
                g_error_free(err)
            }
        }
        g_free(debug)
    }
}

/// Threads a test starts and later waits for. The wait is a release/acquire on a counter the
/// threads bump as they return, so ThreadSanitizer sees everything they did happen before
/// whatever follows it (polling Thread.isFinished is not a synchronisation it can see).
package final class ThreadGroup: @unchecked Sendable {
    private let returned = Atomic<Int>(0)
    private var started = 0

    package init() {}

    package func start(_ body: @escaping @Sendable () -> Void) {
        started += 1
        Thread { [self] in
            body()
            returned.add(1, ordering: .releasing)
        }.start()
    }

    /// Waits until every thread started here has returned.
    package func join() {
        while returned.load(ordering: .acquiring) < started { usleep(1000) }
    }
}

/// Reads an 8-bit RGB(A) PNG with cairo, or the pixels of a 32-bit cairo image surface,
/// packed row after row.
package struct PNGPixels {
    package let data: [UInt32]
    package let width: Int

    package init?(path: String) {
        let s = cairo_image_surface_create_from_png(path)
        defer { cairo_surface_destroy(s) }
        self.init(surface: s)
    }

    package init?(surface s: OpaquePointer?) {
        cairo_surface_flush(s)
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, let d = cairo_image_surface_get_data(s) else {
            return nil
        }
        let w = Int(cairo_image_surface_get_width(s)), h = Int(cairo_image_surface_get_height(s))
        let stride = Int(cairo_image_surface_get_stride(s))
        var out = [UInt32](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w { out[y * w + x] = UnsafeRawPointer(d + y * stride + x * 4).load(as: UInt32.self) }
        }
        data = out
        width = w
    }

    package func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let p = data[y * width + x]
        return (Int(p >> 16 & 0xFF), Int(p >> 8 & 0xFF), Int(p & 0xFF))
    }
}

/// Reads a uint64 property (g_object_get is variadic).
package func g_object_get_uint64(_ element: UnsafeMutablePointer<GstElement>, _ name: String, _ out: inout UInt64) {
    let object = gst_watermark_as_object(element)
    guard let klass = object?.pointee.g_type_instance.g_class,
        let spec = g_object_class_find_property(
            UnsafeMutableRawPointer(klass).assumingMemoryBound(to: GObjectClass.self), name)
    else { return }
    var v = GValue()
    g_value_init(&v, spec.pointee.value_type)
    g_object_get_property(gst_watermark_as_object(element), name, &v)
    out = UInt64(g_value_get_uint64(&v))
    g_value_unset(&v)
}
