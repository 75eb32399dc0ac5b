import CGStreamer
import CGstPbutils
import Glibc

/// What an input file holds, from GstDiscoverer.
struct MediaInfo {
    var hasVideo = false
    var hasAudio = false
    /// Nanoseconds, when known.
    var duration: UInt64?

    static func probe(_ path: String) throws(UsageError) -> MediaInfo {
        var st = stat()
        if stat(path, &st) != 0 { throw UsageError(message: "\(path): \(String(cString: strerror(errno)))") }
        if access(path, R_OK) != 0 { throw UsageError(message: "\(path): \(String(cString: strerror(errno)))") }
        var error: UnsafeMutablePointer<GError>?
        guard let discoverer = gst_discoverer_new(10 * 1_000_000_000, &error) else {
            throw UsageError(message: "cannot inspect \(path)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(discoverer)) }
        let uri = g_filename_to_uri(absolute(path), nil, nil)
        defer { g_free(uri) }
        guard let info = gst_discoverer_discover_uri(discoverer, uri, &error) else {
            let m = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw UsageError(message: "\(path): not a media file GStreamer can read (\(m))")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        if let error { g_error_free(error) }
        let result = gst_discoverer_info_get_result(info)
        guard result == GST_DISCOVERER_OK else {
            throw UsageError(message: "\(path): not a media file GStreamer can read")
        }
        var media = MediaInfo()
        let video = gst_discoverer_info_get_video_streams(info)
        let audio = gst_discoverer_info_get_audio_streams(info)
        media.hasVideo = video != nil
        media.hasAudio = audio != nil
        gst_discoverer_stream_info_list_free(video)
        gst_discoverer_stream_info_list_free(audio)
        let d = gst_discoverer_info_get_duration(info)
        if d != GstClockTime.max && d > 0 { media.duration = UInt64(d) }
        return media
    }

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buf = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard getcwd(&buf, buf.count) != nil else { return path }
        return String(cString: buf) + "/" + path
    }
}
