// Invariant: every libavformat context, packet and dictionary made here is freed on every
// path out of the function that made it (defer right after each allocation); pointers
// into a context are used only while it is open.

import CAVFormat
import Glibc

/// When and where a video was shot, with what, and what it is called: what a phone writes
/// and galleries sort and map by. GStreamer 1.22's MP4/MOV muxers write the export's own
/// time and no location even when the tags reach them, and its demuxer does not read
/// Apple's keys, so this is read and written with libavformat (FFmpeg's container library).
struct CaptureMetadata: Equatable {
    /// ISO 8601 in UTC (movie/track creation time).
    var creationTime: String?
    /// Apple's `com.apple.quicktime.creationdate`: local time with its zone, as shot.
    var appleCreationDate: String?
    /// ISO 6709 (`+48.8584+002.2945+035.000/`).
    var location: String?
    var make: String?
    var model: String?
    var title: String?
    var comment: String?

    var isEmpty: Bool { self == CaptureMetadata() }

    /// How a player turns the first video stream of an open file, from its display matrix
    /// as libavformat reads it with the header (also Matroska's projection roll, which
    /// GStreamer 1.22 does not read), in GStreamer's `image-orientation` names; nil when
    /// upright or unknown.
    private static func displayOrientation(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> String? {
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let st = ctx.pointee.streams[i], st.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else {
                continue
            }
            var size: Int = 0
            guard let raw = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else {
                return nil
            }
            let m = (0..<4).map {
                UnsafeRawPointer(raw).loadUnaligned(fromByteOffset: [0, 4, 12, 16][$0], as: Int32.self)
            }
            return orientation(a: m[0].signum(), b: m[1].signum(), c: m[2].signum(), d: m[3].signum())
        }
        return nil
    }

    /// The `image-orientation` name of a display matrix's 2×2 part (signs of its 16.16
    /// entries, as MP4's tkhd stores it: stored (x, y) is shown at (a·x + c·y, b·x + d·y)),
    /// named as GStreamer's videoflip reads the tag (flip-rotate-90 = transpose). GStreamer
    /// 1.22's qtdemux names the two diagonal flips the other way round, which shows them
    /// mirrored; the matrix read here is what players follow.
    static func orientation(a: Int32, b: Int32, c: Int32, d: Int32) -> String? {
        switch (a, b, c, d) {
        case (0, 1, -1, 0): "rotate-90"
        case (-1, 0, 0, -1): "rotate-180"
        case (0, -1, 1, 0): "rotate-270"
        case (-1, 0, 0, 1): "flip-rotate-0"
        case (0, 1, 1, 0): "flip-rotate-90"
        case (1, 0, 0, -1): "flip-rotate-180"
        case (0, -1, -1, 0): "flip-rotate-270"
        default: nil
        }
    }

    /// The capture tags of the file at `path`, from its format-level metadata in any of the
    /// spellings containers use (mvhd times, `©xyz`/`©mak`/`©mod`, Apple's keys, Matroska
    /// tags), and how a player turns its video (see `displayOrientation`): one read of the
    /// file's header for both.
    static func read(_ path: String) -> (tags: CaptureMetadata, orientation: String?) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&context, path, nil, nil) == 0, let ctx = context else {
            return (CaptureMetadata(), nil)
        }
        defer { avformat_close_input(&context) }
        var tags: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let e = av_dict_get(ctx.pointee.metadata, "", entry, AV_DICT_IGNORE_SUFFIX) {
            tags[String(cString: e.pointee.key).lowercased()] = String(cString: e.pointee.value)
            entry = e
        }
        func first(_ keys: String...) -> String? {
            keys.lazy.compactMap { tags[$0] }.first { !$0.isEmpty }
        }
        var m = CaptureMetadata()
        m.appleCreationDate = first("com.apple.quicktime.creationdate")
        m.creationTime = first("creation_time", "date_recorded")
        m.location = first("com.apple.quicktime.location.iso6709", "location")
        m.make = first("com.apple.quicktime.make", "make")
        m.model = first("com.apple.quicktime.model", "model")
        m.title = first("com.apple.quicktime.title", "title")
        m.comment = first("com.apple.quicktime.comment", "comment", "description")
        return (m, displayOrientation(ctx))
    }

    /// The keys libavformat writes for a container: MP4 and MOV get Apple's keys (what
    /// phones write and galleries read) next to the movie and track creation times;
    /// Matroska gets its DateUTC and tags.
    func tags(for container: Remux.Container) -> [(String, String)] {
        var out: [(String, String)] = []
        func add(_ key: String, _ value: String?) { if let value { out.append((key, value)) } }
        add("creation_time", creationTime)
        switch container {
        case .mp4, .mov:
            add("com.apple.quicktime.creationdate", appleCreationDate ?? creationTime)
            add("com.apple.quicktime.location.ISO6709", location)
            add("com.apple.quicktime.make", make)
            add("com.apple.quicktime.model", model)
            add("title", title)
            add("comment", comment)
        case .matroska:
            add("DATE_RECORDED", appleCreationDate ?? creationTime)
            add("LOCATION", location)
            add("MAKE", make)
            add("MODEL", model)
            add("TITLE", title)
            add("COMMENT", comment)
        }
        return out
    }
}

/// Copies the packets of one media file into another, unchanged (no decoding), with new
/// file-level tags: the export's last step when there is capture metadata to keep.
enum Remux {
    enum Container {
        case mp4, mov, matroska

        var formatName: String {
            switch self {
            case .mp4: "mp4"
            case .mov: "mov"
            case .matroska: "matroska"
            }
        }

        init?(path: String) {
            switch path.split(separator: ".").last.map({ $0.lowercased() }) ?? "" {
            case "mp4", "m4v": self = .mp4
            case "mov": self = .mov
            case "mkv": self = .matroska
            default: return nil
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes `output` (`container`) with every stream and packet of `input` and `tags`
    /// as its metadata; MP4/MOV with the index at the front.
    static func copy(from input: String, to output: String, container: Container, tags: [(String, String)])
        throws(Failure)
    {
        var inContext: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&inContext, input, nil, nil) == 0, let ictx = inContext else {
            throw Failure(description: "cannot read \(input)")
        }
        defer { avformat_close_input(&inContext) }
        guard avformat_find_stream_info(ictx, nil) >= 0 else {
            throw Failure(description: "cannot read \(input)'s streams")
        }
        var outContext: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_alloc_output_context2(&outContext, nil, container.formatName, output) >= 0, let octx = outContext
        else { throw Failure(description: "cannot write \(container.formatName)") }
        defer { avformat_free_context(octx) }
        try addStreams(from: ictx, to: octx)
        for (key, value) in tags { av_dict_set(&octx.pointee.metadata, key, value, 0) }
        guard avio_open(&octx.pointee.pb, output, AVIO_FLAG_WRITE) >= 0 else {
            throw Failure(description: "cannot write \(output): \(String(cString: strerror(errno)))")
        }
        defer { avio_closep(&octx.pointee.pb) }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        if container != .matroska { av_dict_set(&options, "movflags", "+faststart+use_metadata_tags", 0) }
        guard avformat_write_header(octx, &options) >= 0 else { throw Failure(description: "cannot write \(output)") }
        try copyPackets(from: ictx, to: octx)
        guard av_write_trailer(octx) >= 0 else { throw Failure(description: "cannot finish \(output)") }
    }

    /// One output stream per input stream, with the same codec parameters and time base.
    private static func addStreams(
        from ictx: UnsafeMutablePointer<AVFormatContext>, to octx: UnsafeMutablePointer<AVFormatContext>
    ) throws(Failure) {
        for i in 0..<Int(ictx.pointee.nb_streams) {
            guard let ist = ictx.pointee.streams[i], let ost = avformat_new_stream(octx, nil),
                avcodec_parameters_copy(ost.pointee.codecpar, ist.pointee.codecpar) >= 0
            else { throw Failure(description: "cannot copy stream \(i)") }
            // Keep the input's codec tag (hvc1) where the output container knows it for the codec.
            let par = ist.pointee.codecpar.pointee
            if av_codec_get_id(octx.pointee.oformat.pointee.codec_tag, par.codec_tag) != par.codec_id {
                ost.pointee.codecpar.pointee.codec_tag = 0
            }
            ost.pointee.time_base = ist.pointee.time_base
            if let language = av_dict_get(ist.pointee.metadata, "language", nil, 0) {
                av_dict_set(&ost.pointee.metadata, "language", language.pointee.value, 0)
            }
        }
    }

    private static func copyPackets(
        from ictx: UnsafeMutablePointer<AVFormatContext>, to octx: UnsafeMutablePointer<AVFormatContext>
    ) throws(Failure) {
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let pkt = packet else { throw Failure(description: "out of memory") }
        while av_read_frame(ictx, pkt) >= 0 {
            let index = Int(pkt.pointee.stream_index)
            guard index < Int(octx.pointee.nb_streams), let ist = ictx.pointee.streams[index],
                let ost = octx.pointee.streams[index]
            else {
                av_packet_unref(pkt)
                continue
            }
            av_packet_rescale_ts(pkt, ist.pointee.time_base, ost.pointee.time_base)
            pkt.pointee.pos = -1
            // Takes the packet's reference, also on failure.
            guard av_interleaved_write_frame(octx, pkt) >= 0 else {
                throw Failure(description: "cannot write a packet")
            }
        }
    }
}
