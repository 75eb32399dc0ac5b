import CGStreamer
import CShim
import Glibc
import Watermark
import WatermarkModel

/// Whether an output file can be written, asked before anything runs.
package enum OutputCheck {
    /// Fails early, with the reason, when `path` cannot be written.
    package static func writable(_ path: String) throws(UsageError) {
        var dir = "."
        if let slash = path.lastIndex(of: "/") {
            dir = String(path[..<slash])
            if dir.isEmpty { dir = "/" }
        }
        var st = stat()
        if stat(dir, &st) != 0 {
            throw UsageError(message: "cannot write \(path): \(dir): \(systemError())")
        }
        if access(dir, W_OK) != 0 {
            throw UsageError(message: "cannot write \(path): \(dir): \(systemError())")
        }
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            throw UsageError(message: "cannot write \(path): it is a directory")
        }
    }
}

package func addTestSourceOptions(_ p: OptionParser) {
    p.add("test-source", nil, .flag, "Use a built-in test picture and tone instead of an input")
    p.add("size", nil, .string, "Test source frame size WIDTHxHEIGHT (default 1280x720)", arg: "WxH")
    p.add("fps", nil, .int, "Test source frame rate (default 30)", arg: "N")
}

package func parseSize(_ text: String?) throws(UsageError) -> (Int, Int) {
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
package func registerElement() {
    gst_init(nil, nil)
    WatermarkPlugin.register()
    // Debian 12's libde265dec corrupts the heap (glibc aborts the process) on ordinary
    // 10-bit x265 MP4s, e.g. a phone's HLG clip: it is never picked for a decode. avdec_h265
    // (gstreamer1.0-libav) decodes H.265; without it a decode fails with a missing-decoder
    // error rather than a crash.
    if let feature = gst_registry_lookup_feature(gst_registry_get(), "libde265dec") {
        gst_plugin_feature_set_rank(feature, guint(GST_RANK_NONE.rawValue))
        gst_object_unref(UnsafeMutableRawPointer(feature))
    }
}

/// `--fps` for a test source, 30 by default.
package func parseFPS(_ p: OptionParser) throws(UsageError) -> Int {
    let fps = p.int("fps") ?? 30
    guard (1...240).contains(fps) else { throw UsageError(message: "--fps: \(fps) is out of range (1..240)") }
    return fps
}

/// Fails early, naming the reason, when a camera device cannot be opened.
package func checkDevice(_ device: String) throws(UsageError) {
    if access(device, R_OK) != 0 {
        throw UsageError(message: "\(device): \(systemError()) (use --device or --test-source)")
    }
}

/// Prints `description` as a gst-launch-1.0 command line a shell can run. gst-launch
/// treats each argument as one word of the description, so the description is split into
/// its words (keeping quoted values whole) and each word is quoted for the shell.
package func printPipeline(_ description: String) {
    print((["gst-launch-1.0", "-e"] + LaunchLine.words(description).map(LaunchLine.shellWord)).joined(separator: " "))
}
