import CGStreamer
import CGstCheck
import CPangoCairo
import CShim
import Foundation
import Synchronization
import Testing

/// GStreamer initialised once per test process, with the element registered statically.
enum GstTest {
    static let ready: Bool = {
        gst_init(nil, nil)
        return gst_watermark_register_static() != 0
    }()

    /// A scratch directory for files made by tests.
    static let tmp: String = {
        let dir = NSTemporaryDirectory() + "gst-watermark-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }()

    static func path(_ name: String) -> String { tmp + "/" + name }

    /// The repository root (for bundled assets).
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// Writes an opaque `width`×`height` PNG of one colour (0xAARRGGBB, straight).
    static func solidPNG(_ name: String, width: Int32, height: Int32, argb: UInt32) -> String {
        let path = path(name)
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

    static func write(_ name: String, _ contents: String) -> String {
        let p = path(name)
        FileManager.default.createFile(atPath: p, contents: Data(contents.utf8))
        return p
    }

    /// Starts a process in the background with its output discarded; `environment` is
    /// added to this process's.
    static func spawn(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Runs a command and returns (exit status, stdout + stderr).
    static func run(_ argv: [String], environment: [String: String] = [:]) -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = argv
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        do { try p.run() } catch { return (-1, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// A GstHarness around one element or a parsed bin, torn down on deinit.
final class Harness {
    let h: UnsafeMutablePointer<GstHarness>

    init(_ description: String, caps: String = "") {
        _ = GstTest.ready
        h = gst_harness_new_parse(description)
        if !caps.isEmpty { gst_harness_set_src_caps_str(h, caps) }
    }

    /// Creates `factory`, sets `properties` (before it starts, as gst-launch does) and
    /// wraps it in a harness.
    init(element factory: String, _ properties: KeyValuePairs<String, String> = [:]) {
        _ = GstTest.ready
        let e = gst_element_factory_make(factory, nil)!
        for (k, v) in properties { gst_util_set_object_arg(gst_watermark_as_object(e), k, v) }
        h = gst_harness_new_with_element(e, "sink", "src")
    }

    deinit { gst_harness_teardown(h) }

    var element: UnsafeMutablePointer<GstElement> { h.pointee.element }

    func set(_ name: String, _ value: String) {
        gst_util_set_object_arg(gst_watermark_as_object(element), name, value)
    }

    /// Pushes a frame made by `videotestsrc` with `pattern` for the caps, returns the output.
    func pushTestFrame(caps: String, pattern: String = "black") -> Frame? {
        // Bare caps need an element on both sides in a launch line: use capsfilter.
        gst_harness_add_src_parse(h, "videotestsrc is-live=true pattern=\(pattern) ! capsfilter caps=\"\(caps)\"", 1)
        guard gst_harness_push_from_src(h) == GST_FLOW_OK, let out = gst_harness_pull(h) else { return nil }
        return Frame(buffer: out, caps: gst_pad_get_current_caps(h.pointee.sinkpad))
    }

    /// Pushes a zero-filled buffer (black in RGB formats) of `bytes` bytes stamped `pts`
    /// (`GstClockTime.max`: no timestamp), after `prepare` (e.g. adding metas); returns the output.
    func pushZeroed(bytes: Int, pts: GstClockTime, duration: GstClockTime = GstClockTime.max,
                    prepare: (UnsafeMutablePointer<GstBuffer>) -> Void = { _ in }) -> Frame? {
        guard let buffer = gst_harness_create_buffer(h, gsize(bytes)) else { return nil }
        _ = gst_buffer_memset(buffer, 0, 0, gsize(bytes))
        buffer.pointee.pts = pts
        buffer.pointee.duration = duration
        prepare(buffer)
        return push(buffer)
    }

    func push(_ buffer: UnsafeMutablePointer<GstBuffer>) -> Frame? {
        guard gst_harness_push(h, buffer) == GST_FLOW_OK, let out = gst_harness_pull(h) else { return nil }
        return Frame(buffer: out, caps: gst_pad_get_current_caps(h.pointee.sinkpad))
    }
}

/// A mapped output frame (read-only) with pixel accessors.
final class Frame {
    let buffer: UnsafeMutablePointer<GstBuffer>
    var info = GstVideoInfo()
    var frame = GstVideoFrame()
    let mapped: Bool

    init(buffer: UnsafeMutablePointer<GstBuffer>, caps: UnsafeMutablePointer<GstCaps>?) {
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

    var width: Int { Int(info.width) }
    var height: Int { Int(info.height) }

    func byte(plane: Int, row: Int, offset: Int) -> UInt8 {
        let data = gst_watermark_frame_plane_data(&frame, UInt32(plane))!
        return data[row * Int(gst_watermark_frame_plane_stride(&frame, UInt32(plane))) + offset]
    }

    /// (B, G, R, A) of a BGRA/BGRx frame.
    func bgra(_ x: Int, _ y: Int) -> (b: Int, g: Int, r: Int, a: Int) {
        (Int(byte(plane: 0, row: y, offset: x * 4)), Int(byte(plane: 0, row: y, offset: x * 4 + 1)),
         Int(byte(plane: 0, row: y, offset: x * 4 + 2)), Int(byte(plane: 0, row: y, offset: x * 4 + 3)))
    }

    func hasOverlayMeta() -> Bool {
        gst_buffer_get_meta(buffer, gst_watermark_overlay_meta_api_type()) != nil
    }
}

/// A pipeline run to EOS or error, with the messages it posted.
struct PipelineRun {
    var ok: Bool
    var errors: [(domain: GQuark, code: Int32, message: String)] = []
    var warnings: [String] = []
}

enum Pipeline {
    /// Runs `description` until EOS, an error or `timeout` seconds.
    static func run(_ description: String, timeout: Double = 60,
                    whilePlaying: ((UnsafeMutablePointer<GstElement>) -> Void)? = nil) -> PipelineRun {
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
            let types = GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_WARNING.rawValue)
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

    static func collect(_ bus: UnsafeMutablePointer<GstBus>?, into run: inout PipelineRun) {
        while let msg = gst_bus_pop(bus) {
            record(msg, into: &run)
            gst_message_unref(msg)
        }
    }

    static func record(_ msg: UnsafeMutablePointer<GstMessage>, into run: inout PipelineRun) {
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
final class ThreadGroup: @unchecked Sendable {
    private let returned = Atomic<Int>(0)
    private var started = 0

    func start(_ body: @escaping @Sendable () -> Void) {
        started += 1
        Thread { [self] in
            body()
            returned.add(1, ordering: .releasing)
        }.start()
    }

    /// Waits until every thread started here has returned.
    func join() {
        while returned.load(ordering: .acquiring) < started { usleep(1000) }
    }
}

/// A repeatable pseudo-random sequence (64-bit LCG) for property tests.
struct TestRandom {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    /// A number in 0 ..< max(1, n).
    mutating func next(_ n: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(max(1, n)))
    }
}
