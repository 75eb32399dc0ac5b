import CGStreamer
import CShim

/// Logging through the `watermark` debug category (GST_DEBUG=watermark:6). The message
/// is only built when the category's threshold lets it through.
enum Log {
    static func error(_ element: UnsafeMutablePointer<GstWatermark>?, _ message: @autoclosure () -> String) {
        log(element, GST_LEVEL_ERROR, message)
    }

    static func warning(_ element: UnsafeMutablePointer<GstWatermark>?, _ message: @autoclosure () -> String) {
        log(element, GST_LEVEL_WARNING, message)
    }

    static func info(_ element: UnsafeMutablePointer<GstWatermark>?, _ message: @autoclosure () -> String) {
        log(element, GST_LEVEL_INFO, message)
    }

    static func debug(_ element: UnsafeMutablePointer<GstWatermark>?, _ message: @autoclosure () -> String) {
        log(element, GST_LEVEL_DEBUG, message)
    }

    private static func log(
        _ element: UnsafeMutablePointer<GstWatermark>?, _ level: GstDebugLevel,
        _ message: () -> String
    ) {
        guard gst_watermark_log_enabled(level) != 0 else { return }
        gst_watermark_log(element, level, message())
    }
}
