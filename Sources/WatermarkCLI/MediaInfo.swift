import CGStreamer
import CGstPbutils
import Glibc
import WatermarkModel

/// What an input file holds, from GstDiscoverer.
package struct MediaInfo: Sendable {
    package var hasVideo = false
    /// One entry per audio track, in the file's order: whether it is AAC, which MP4, MOV
    /// and Matroska carry as it is.
    var audioTracks: [Bool] = []
    var hasAudio: Bool { !audioTracks.isEmpty }
    /// The audio is AAC (every track of it).
    var audioIsAAC: Bool { hasAudio && !audioTracks.contains(false) }
    /// Subtitle tracks GStreamer reads.
    var subtitleTracks = 0
    /// What GStreamer has no decoder for (GoPro's `gpmd`/`fdsc` telemetry, phones' timed
    /// metadata), as its caps name it (`meta/x-gst-fourcc-gpmd`).
    var undecodable: [String] = []
    /// What GStreamer would need to decode every stream, as it describes it ("H.265 (Main
    /// Profile) decoder"), from the discoverer's installer details.
    var missingPlugins: [String] = []
    /// Frames a second of the first video stream, when the file says.
    var framerate: Double?
    /// The frame rate as the stream gives it (30000/1001).
    var framerateFraction: (num: Int, den: Int)?
    /// Nanoseconds, when known.
    var duration: UInt64?
    var width = 0
    var height = 0
    /// How a player turns the stored picture (the container's display matrix), as
    /// GStreamer's `image-orientation` tag names it; nil: upright.
    var orientation: ImageOrientation?
    /// Bits per luma sample (8, 10, 12).
    var bitDepth = 8
    /// The first video stream's caps name as the demuxer gives it (`video/x-h264`).
    var videoCodec: String?
    /// The caps' colorimetry (`bt709`, `bt2100-hlg`, `bt2100-pq`, …) and HDR mastering data.
    var colorimetry: String?
    var masteringDisplay: String?
    var contentLightLevel: String?

    /// Width and height of the picture a player shows (turned by the orientation).
    var displayedSize: (width: Int, height: Int) {
        guard let turn = orientation else { return (width, height) }
        return turn.displayedSize(width: width, height: height)
    }

    /// The transfer the picture's signal uses.
    var transfer: SignalTransfer {
        switch colorimetry {
        case "bt2100-pq": .pq
        case "bt2100-hlg": .hlg
        default: .sdr
        }
    }

    package static func probe(_ path: String) throws(UsageError) -> MediaInfo {
        var st = stat()
        if stat(path, &st) != 0 { throw UsageError(message: "\(path): \(systemError())") }
        if access(path, R_OK) != 0 { throw UsageError(message: "\(path): \(systemError())") }
        var error: UnsafeMutablePointer<GError>?
        guard let discoverer = gst_discoverer_new(10 * 1_000_000_000, &error) else {
            throw UsageError(message: "cannot inspect \(path)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(discoverer)) }
        let uri = g_filename_to_uri(FilePath.absolute(path), nil, nil)
        defer { g_free(uri) }
        guard let info = gst_discoverer_discover_uri(discoverer, uri, &error) else {
            let m = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw UsageError(message: "\(path): not a media file GStreamer can read (\(m))")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        if let error { g_error_free(error) }
        // A file with tracks GStreamer has no decoder for (a GoPro's telemetry) is still
        // read: the streams it can decode are listed all the same.
        let result = gst_discoverer_info_get_result(info)
        guard result == GST_DISCOVERER_OK || result == GST_DISCOVERER_MISSING_PLUGINS else {
            throw UsageError(message: "\(path): not a media file GStreamer can read")
        }
        var media = MediaInfo()
        let video = gst_discoverer_info_get_video_streams(info)
        let audio = gst_discoverer_info_get_audio_streams(info)
        let subtitles = gst_discoverer_info_get_subtitle_streams(info)
        let all = gst_discoverer_info_get_stream_list(info)
        defer {
            for list in [video, audio, subtitles, all] { gst_discoverer_stream_info_list_free(list) }
        }
        media.hasVideo = video != nil
        if let first = video?.pointee.data {
            let v = OpaquePointer(first)
            media.width = Int(gst_discoverer_video_info_get_width(v))
            media.height = Int(gst_discoverer_video_info_get_height(v))
            let (n, d) = (
                gst_discoverer_video_info_get_framerate_num(v), gst_discoverer_video_info_get_framerate_denom(v)
            )
            if n > 0, d > 0 {
                media.framerate = Double(n) / Double(d)
                media.framerateFraction = (Int(n), Int(d))
            }
            media.readVideoDetails(v)
        }
        media.audioTracks = Self.list(audio).map { stream in
            let s = Self.capsString(stream) ?? ""
            return s.hasPrefix("audio/mpeg") && Substring(s).byteRange(of: "mpegversion=(int)4") != nil
        }
        media.subtitleTracks = Self.list(subtitles).count
        // Streams that are neither video, audio, subtitles nor a container: no decoder.
        media.undecodable = Self.list(all).compactMap { stream in
            let kind = gst_discoverer_stream_info_get_stream_type_nick(stream).map { String(cString: $0) }
            guard kind == "unknown" else { return nil }
            return Self.capsString(stream).map { String($0.prefix { $0 != "," }) }
        }
        // Each detail is "gstreamer|1.0|application|description|what": the description.
        if let details = gst_discoverer_info_get_missing_elements_installer_details(info) {
            var i = 0
            while let detail = details[i] {
                let fields = String(cString: detail).split(separator: "|", omittingEmptySubsequences: false)
                if fields.count > 3 { media.missingPlugins.append(String(fields[3])) }
                i += 1
            }
        }
        let d = gst_discoverer_info_get_duration(info)
        if d != GstClockTime.max && d > 0 { media.duration = UInt64(d) }
        return media
    }

    /// Orientation, bit depth, colorimetry and HDR mastering data of the first video stream.
    private mutating func readVideoDetails(_ v: OpaquePointer) {
        if let tags = gst_discoverer_stream_info_get_tags(v) {
            var value: UnsafeMutablePointer<gchar>?
            if gst_tag_list_get_string(tags, "image-orientation", &value) != 0, let value {
                let turn = ImageOrientation(rawValue: String(cString: value))
                orientation = turn == .rotate0 ? nil : turn
                g_free(value)
            }
        }
        guard let caps = gst_discoverer_stream_info_get_caps(v) else { return }
        defer { gst_caps_unref(caps) }
        guard let s = gst_caps_get_structure(caps, 0) else { return }
        videoCodec = gst_structure_get_name(s).map { String(cString: $0) }
        func string(_ field: String) -> String? { gst_structure_get_string(s, field).map { String(cString: $0) } }
        colorimetry = string("colorimetry")
        masteringDisplay = string("mastering-display-info")
        contentLightLevel = string("content-light-level")
        var depth: guint = 0
        if gst_structure_get_uint(s, "bit-depth-luma", &depth) != 0, depth > 8 {
            bitDepth = Int(depth)
        } else if let profile = string("profile").map({ Substring($0) }),
            profile.byteRange(of: "10") != nil || profile.byteRange(of: "12") != nil
        {
            bitDepth = profile.byteRange(of: "12") != nil ? 12 : 10
        } else if gst_discoverer_video_info_get_depth(v) >= 30 {
            bitDepth = 10
        }
    }

    private static func list(_ list: UnsafeMutablePointer<GList>?) -> [OpaquePointer] {
        var out: [OpaquePointer] = []
        var node = list
        while let n = node {
            if let data = n.pointee.data { out.append(OpaquePointer(data)) }
            node = n.pointee.next
        }
        return out
    }

    private static func capsString(_ stream: OpaquePointer) -> String? {
        guard let caps = gst_discoverer_stream_info_get_caps(stream) else { return nil }
        defer { gst_caps_unref(caps) }
        guard let text = gst_caps_to_string(caps) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }
}
