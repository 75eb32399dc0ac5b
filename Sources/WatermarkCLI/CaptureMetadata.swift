// Invariant: every libavformat context, packet and dictionary made here is freed on every
// path out of the function that made it (defer right after each allocation); pointers
// into a context are used only while it is open.

// libavcodec's and libavutil's types come from the renderer's header-only module as well
// (the package builds one Clang module per header set; whichever loads first owns them).
import CAVTypes
import Glibc
import WatermarkModel
import WatermarkSharedLibrary

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
    private static func displayOrientation(_ ctx: UnsafeMutablePointer<AVFormatContext>)
        -> ImageOrientation?
    {
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let st = ctx.pointee.streams[i], st.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else {
                continue
            }
            var size: Int = 0
            guard let raw = watermark_av_display_matrix(st, &size), size >= 36 else {
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
    static func orientation(a: Int32, b: Int32, c: Int32, d: Int32) -> ImageOrientation? {
        switch (a, b, c, d) {
        case (0, 1, -1, 0): .rotate90
        case (-1, 0, 0, -1): .rotate180
        case (0, -1, 1, 0): .rotate270
        case (-1, 0, 0, 1): .flipRotate0
        case (0, 1, 1, 0): .flipRotate90
        case (1, 0, 0, -1): .flipRotate180
        case (0, -1, -1, 0): .flipRotate270
        default: nil
        }
    }

    /// The capture tags of the file at `path`, from its format-level metadata in any of the
    /// spellings containers use (mvhd times, `©xyz`/`©mak`/`©mod`, Apple's keys, Matroska
    /// tags), and how a player turns its video (see `displayOrientation`): one read of the
    /// file's header for both. Empty when the file cannot be read; an error where FFmpeg
    /// cannot be opened.
    static func read(_ path: String) throws(LibraryUnavailable) -> (
        tags: CaptureMetadata, orientation: ImageOrientation?, tracks: [SourceTrack]
    ) {
        let av = try FFmpeg.shared.get()
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard av.avformat_open_input(&context, path, nil, nil) == 0, let ctx = context else {
            return (CaptureMetadata(), nil, [])
        }
        defer { av.avformat_close_input(&context) }
        var tags: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let e = av.av_dict_get(ctx.pointee.metadata, "", entry, AV_DICT_IGNORE_SUFFIX) {
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
        return (m, displayOrientation(ctx), SourceTrack.list(ctx, av))
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

/// One track of an input file as libavformat reads its header: what the export keeps of
/// it (the audio tracks' titles, the subtitle tracks) and names when it cannot (data tracks).
struct SourceTrack: Sendable {
    enum Kind: Sendable { case video, audio, subtitle, data }
    var kind: Kind
    /// The stream's index in the file.
    var index: Int
    /// ISO 639-2 (`eng`), when the file says.
    var language: String?
    /// Matroska's track name, or MP4's handler name where it is not a generic one.
    var title: String?
    /// The codec tag (`gpmd`, `tmcd`) or libavformat's codec name.
    var codec: String
    var codecID: AVCodecID

    /// `"GoPro MET" (gpmd)`.
    var described: String { title.map { "\"\($0)\" (\(codec))" } ?? codec }

    /// Handler names muxers write when the track has no name of its own.
    private static let genericTitles: Set<String> = [
        "VideoHandler", "SoundHandler", "SubtitleHandler", "DataHandler", "Core Media Video", "Core Media Audio",
        "Video", "Audio", "Subtitle", "Text", "Timed Text", "ISO Media file produced by Google Inc.",
    ]

    static func list(_ ctx: UnsafeMutablePointer<AVFormatContext>, _ av: FFmpeg) -> [SourceTrack] {
        (0..<Int(ctx.pointee.nb_streams)).compactMap { i in
            guard let st = ctx.pointee.streams[i] else { return nil }
            let par = st.pointee.codecpar.pointee
            let kind: Kind
            switch par.codec_type {
            case AVMEDIA_TYPE_VIDEO: kind = .video
            case AVMEDIA_TYPE_AUDIO: kind = .audio
            case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
            default: kind = .data
            }
            func tag(_ key: String) -> String? {
                av.av_dict_get(st.pointee.metadata, key, nil, 0).map { String(cString: $0.pointee.value) }
                    .map { $0.trimmingWhitespace() }.flatMap { $0.isEmpty ? nil : $0 }
            }
            let title = tag("title") ?? tag("handler_name").flatMap { genericTitles.contains($0) ? nil : $0 }
            var codec = withUnsafeBytes(of: par.codec_tag.littleEndian) { b in
                String(decoding: b.filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
            }
            if codec.count != 4, let name = av.avcodec_get_name(par.codec_id) { codec = String(cString: name) }
            return SourceTrack(
                kind: kind, index: i, language: tag("language").flatMap { $0 == "und" ? nil : $0 }, title: title,
                codec: codec, codecID: par.codec_id)
        }
    }
}

/// Copies the packets of one media file into another, unchanged (no decoding), with new
/// file-level tags, the source's track names and its subtitle tracks: the export's last step.
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

    /// What the source file gives the export's own file beside the capture tags: the names
    /// of its audio tracks (in order: GStreamer's muxers carry the languages but not the
    /// names) and its subtitle tracks, copied as they are.
    struct SourceTracks {
        var path: String
        var tracks: [SourceTrack]

        var audio: [SourceTrack] { tracks.filter { $0.kind == .audio } }
        var subtitles: [SourceTrack] { tracks.filter { $0.kind == .subtitle } }

        /// Whether the export's own file lacks anything of these: a name or subtitles.
        func needsCopy(into container: Container) -> Bool {
            audio.contains { $0.title != nil } || subtitles.contains { carries($0, container) }
        }

        /// What of the input cannot be in the export's file: data tracks (timecode,
        /// telemetry, timed metadata), which GStreamer neither decodes nor muxes, and subtitle
        /// tracks in a codec `container` does not hold.
        func notCarried(into container: Container) -> [String] {
            let data = tracks.filter { $0.kind == .data }.map(\.described)
            let subs = subtitles.filter { !carries($0, container) }.map(\.described)
            return (data.isEmpty ? [] : ["data tracks " + data.joined(separator: ", ")])
                + (subs.isEmpty ? [] : ["subtitle tracks " + subs.joined(separator: ", ") + " (not in this container)"])
        }
    }

    /// Writes `output` (`container`) with every stream and packet of `input`, `tags` as its
    /// metadata, and from `source` its audio tracks' names and the subtitle tracks `container`
    /// can hold; MP4/MOV with the index at the front.
    static func copy(
        from input: String, to output: String, container: Container, tags: [(String, String)],
        source: SourceTracks? = nil
    ) throws(Failure) {
        let av: FFmpeg
        switch FFmpeg.shared {
        case .success(let f): av = f
        case .failure(let e): throw Failure(description: e.reason)
        }
        let ictx = try open(input, av)
        defer { close(ictx, av) }
        var outContext: UnsafeMutablePointer<AVFormatContext>?
        guard av.avformat_alloc_output_context2(&outContext, nil, container.formatName, output) >= 0,
            let octx = outContext
        else { throw Failure(description: "cannot write \(container.formatName)") }
        defer { av.avformat_free_context(octx) }
        try addStreams(from: ictx, to: octx, av)
        if let source { name(octx, audio: source.audio, container: container, av) }
        // The source's subtitle tracks that the container takes, after the export's own.
        var subtitles: [SubtitleMap] = []
        var sctx: UnsafeMutablePointer<AVFormatContext>?
        defer { if let sctx { close(sctx, av) } }
        if let source, case let wanted = source.subtitles.filter({ carries($0, container) }), !wanted.isEmpty {
            let sc = try open(source.path, av)
            sctx = sc
            for track in wanted {
                guard track.index < Int(sc.pointee.nb_streams), let ist = sc.pointee.streams[track.index],
                    let ost = av.avformat_new_stream(octx, nil)
                else { throw Failure(description: "cannot copy subtitle track \(track.index)") }
                var converter: TextToTimedText?
                if container != .matroska && track.codecID != AV_CODEC_ID_MOV_TEXT {
                    let c = try TextToTimedText(ist, av)
                    guard av.avcodec_parameters_from_context(ost.pointee.codecpar, c.encoder) >= 0 else {
                        throw Failure(description: "cannot convert subtitle track \(track.index)")
                    }
                    converter = c
                } else if av.avcodec_parameters_copy(ost.pointee.codecpar, ist.pointee.codecpar) < 0 {
                    throw Failure(description: "cannot copy subtitle track \(track.index)")
                }
                ost.pointee.codecpar.pointee.codec_tag = 0
                ost.pointee.time_base = ist.pointee.time_base
                if let l = track.language { _ = av.av_dict_set(&ost.pointee.metadata, "language", l, 0) }
                if let t = track.title {
                    _ = av.av_dict_set(&ost.pointee.metadata, container == .matroska ? "title" : "handler_name", t, 0)
                }
                subtitles.append(
                    SubtitleMap(input: track.index, output: Int(octx.pointee.nb_streams) - 1, converter: converter))
            }
        }
        for (key, value) in tags { _ = av.av_dict_set(&octx.pointee.metadata, key, value, 0) }
        guard av.avio_open(&octx.pointee.pb, output, AVIO_FLAG_WRITE) >= 0 else {
            throw Failure(description: "cannot write \(output): \(systemError())")
        }
        defer { _ = av.avio_closep(&octx.pointee.pb) }
        var options: OpaquePointer?
        defer { av.av_dict_free(&options) }
        if container != .matroska { _ = av.av_dict_set(&options, "movflags", "+faststart+use_metadata_tags", 0) }
        guard av.avformat_write_header(octx, &options) >= 0 else {
            throw Failure(description: "cannot write \(output)")
        }
        var pending = try sctx.map { sc throws(Failure) in try readSubtitles(sc, subtitles, octx, av) } ?? []
        defer { for var p in pending as [UnsafeMutablePointer<AVPacket>?] { av.av_packet_free(&p) } }
        try copyPackets(from: ictx, to: octx, merging: &pending, av)
        while !pending.isEmpty { try write(pending.removeFirst(), octx, av) }
        guard av.av_write_trailer(octx) >= 0 else { throw Failure(description: "cannot finish \(output)") }
    }

    /// Whether `container` holds `track`: Matroska any subtitle codec it knows, as it is;
    /// MP4/MOV timed text (tx3g), as it is or converted from another text format (SubRip,
    /// ASS/SSA, WebVTT), as ffmpeg converts it. Bitmap subtitles do not go into MP4.
    static func carries(_ track: SourceTrack, _ container: Container) -> Bool {
        let id = track.codecID
        guard id != AV_CODEC_ID_NONE else { return false }
        if container != .matroska { return id == AV_CODEC_ID_MOV_TEXT || TextToTimedText.converts(id) }
        guard case .success(let av) = FFmpeg.shared else { return false }
        return av.avformat_query_codec(av.av_guess_format(container.formatName, nil, nil), id, FF_COMPLIANCE_NORMAL)
            == 1
    }

    private static func open(_ path: String, _ av: FFmpeg) throws(Failure) -> UnsafeMutablePointer<AVFormatContext> {
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard av.avformat_open_input(&context, path, nil, nil) == 0, let ctx = context else {
            throw Failure(description: "cannot read \(path)")
        }
        guard av.avformat_find_stream_info(ctx, nil) >= 0 else {
            av.avformat_close_input(&context)
            throw Failure(description: "cannot read \(path)'s streams")
        }
        return ctx
    }

    private static func close(_ ctx: UnsafeMutablePointer<AVFormatContext>, _ av: FFmpeg) {
        var context: UnsafeMutablePointer<AVFormatContext>? = ctx
        av.avformat_close_input(&context)
    }

    /// The output's audio tracks, in order, get the names of the source's.
    private static func name(
        _ octx: UnsafeMutablePointer<AVFormatContext>, audio: [SourceTrack], container: Container, _ av: FFmpeg
    ) {
        var next = audio.makeIterator()
        for i in 0..<Int(octx.pointee.nb_streams) {
            guard let st = octx.pointee.streams[i], st.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO,
                let track = next.next()
            else { continue }
            if let t = track.title {
                _ = av.av_dict_set(&st.pointee.metadata, container == .matroska ? "title" : "handler_name", t, 0)
            }
            if let l = track.language, av.av_dict_get(st.pointee.metadata, "language", nil, 0) == nil {
                _ = av.av_dict_set(&st.pointee.metadata, "language", l, 0)
            }
        }
    }

    /// A subtitle stream of the source, where it goes in the output, and how it is converted.
    struct SubtitleMap {
        var input: Int
        var output: Int
        var converter: TextToTimedText?
    }

    /// Every packet of the chosen subtitle streams, converted where the map says, in the
    /// output's time base (subtitles are small: a film's are a few hundred kilobytes).
    private static func readSubtitles(
        _ sctx: UnsafeMutablePointer<AVFormatContext>, _ map: [SubtitleMap],
        _ octx: UnsafeMutablePointer<AVFormatContext>, _ av: FFmpeg
    ) throws(Failure) -> [UnsafeMutablePointer<AVPacket>] {
        var out: [UnsafeMutablePointer<AVPacket>] = []
        while true {
            guard let pkt = av.av_packet_alloc() else { throw Failure(description: "out of memory") }
            guard av.av_read_frame(sctx, pkt) >= 0 else {
                var p: UnsafeMutablePointer<AVPacket>? = pkt
                av.av_packet_free(&p)
                break
            }
            guard let m = map.first(where: { $0.input == Int(pkt.pointee.stream_index) }),
                let ist = sctx.pointee.streams[m.input], let ost = octx.pointee.streams[m.output]
            else {
                var p: UnsafeMutablePointer<AVPacket>? = pkt
                av.av_packet_free(&p)
                continue
            }
            if let converter = m.converter, !converter.convert(pkt) {
                // A cue that does not decode is left out; the others go on.
                var p: UnsafeMutablePointer<AVPacket>? = pkt
                av.av_packet_free(&p)
                continue
            }
            av.av_packet_rescale_ts(pkt, ist.pointee.time_base, ost.pointee.time_base)
            pkt.pointee.stream_index = Int32(m.output)
            pkt.pointee.pos = -1
            out.append(pkt)
        }
        return out
    }

    /// Writes and frees `packet`.
    private static func write(
        _ packet: UnsafeMutablePointer<AVPacket>, _ octx: UnsafeMutablePointer<AVFormatContext>, _ av: FFmpeg
    ) throws(Failure) {
        var p: UnsafeMutablePointer<AVPacket>? = packet
        defer { av.av_packet_free(&p) }
        // Takes the packet's reference, also on failure.
        guard av.av_interleaved_write_frame(octx, packet) >= 0 else {
            throw Failure(description: "cannot write a packet")
        }
    }

    /// Seconds of a packet's decoding time in the output.
    private static func seconds(_ pkt: UnsafeMutablePointer<AVPacket>, _ octx: UnsafeMutablePointer<AVFormatContext>)
        -> Double
    {
        guard let st = octx.pointee.streams[Int(pkt.pointee.stream_index)] else { return 0 }
        let t = pkt.pointee.dts != Int64.min ? pkt.pointee.dts : pkt.pointee.pts
        return Double(t) * av_q2d(st.pointee.time_base)
    }

    /// One output stream per input stream, with the same codec parameters and time base.
    private static func addStreams(
        from ictx: UnsafeMutablePointer<AVFormatContext>, to octx: UnsafeMutablePointer<AVFormatContext>,
        _ av: FFmpeg
    ) throws(Failure) {
        for i in 0..<Int(ictx.pointee.nb_streams) {
            guard let ist = ictx.pointee.streams[i], let ost = av.avformat_new_stream(octx, nil),
                av.avcodec_parameters_copy(ost.pointee.codecpar, ist.pointee.codecpar) >= 0
            else { throw Failure(description: "cannot copy stream \(i)") }
            // Keep the input's codec tag (hvc1) where the output container knows it for the codec.
            let par = ist.pointee.codecpar.pointee
            if av.av_codec_get_id(octx.pointee.oformat.pointee.codec_tag, par.codec_tag) != par.codec_id {
                ost.pointee.codecpar.pointee.codec_tag = 0
            }
            ost.pointee.time_base = ist.pointee.time_base
            if let language = av.av_dict_get(ist.pointee.metadata, "language", nil, 0) {
                _ = av.av_dict_set(&ost.pointee.metadata, "language", language.pointee.value, 0)
            }
        }
    }

    /// Copies every packet of `ictx`, writing before each the `pending` subtitle packets
    /// due by its time (which are freed as they are written).
    private static func copyPackets(
        from ictx: UnsafeMutablePointer<AVFormatContext>, to octx: UnsafeMutablePointer<AVFormatContext>,
        merging pending: inout [UnsafeMutablePointer<AVPacket>], _ av: FFmpeg
    ) throws(Failure) {
        var packet = av.av_packet_alloc()
        defer { av.av_packet_free(&packet) }
        guard let pkt = packet else { throw Failure(description: "out of memory") }
        var next = 0
        defer { pending.removeFirst(next) }
        while av.av_read_frame(ictx, pkt) >= 0 {
            let index = Int(pkt.pointee.stream_index)
            guard index < Int(ictx.pointee.nb_streams), let ist = ictx.pointee.streams[index],
                let ost = octx.pointee.streams[index]
            else {
                av.av_packet_unref(pkt)
                continue
            }
            av.av_packet_rescale_ts(pkt, ist.pointee.time_base, ost.pointee.time_base)
            pkt.pointee.pos = -1
            let now = seconds(pkt, octx)
            while next < pending.count, seconds(pending[next], octx) <= now {
                next += 1
                try write(pending[next - 1], octx, av)
            }
            // Takes the packet's reference, also on failure.
            guard av.av_interleaved_write_frame(octx, pkt) >= 0 else {
                throw Failure(description: "cannot write a packet")
            }
        }
    }
}

/// Turns the cues of a text subtitle stream (SubRip, ASS/SSA, WebVTT) into MP4's timed
/// text (tx3g), one packet at a time, through libavcodec's decoder and `mov_text` encoder.
final class TextToTimedText {
    let decoder: UnsafeMutablePointer<AVCodecContext>
    let encoder: UnsafeMutablePointer<AVCodecContext>
    private let av: FFmpeg

    static func converts(_ id: AVCodecID) -> Bool {
        [AV_CODEC_ID_SUBRIP, AV_CODEC_ID_SRT, AV_CODEC_ID_ASS, AV_CODEC_ID_SSA, AV_CODEC_ID_WEBVTT, AV_CODEC_ID_TEXT]
            .contains(id)
    }

    init(_ stream: UnsafeMutablePointer<AVStream>, _ av: FFmpeg) throws(Remux.Failure) {
        self.av = av
        let failure = Remux.Failure(description: "cannot convert a subtitle track to timed text")
        guard let dcodec = av.avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id),
            let ecodec = av.avcodec_find_encoder(AV_CODEC_ID_MOV_TEXT)
        else { throw failure }
        guard let d = av.avcodec_alloc_context3(dcodec) else { throw failure }
        guard let e = av.avcodec_alloc_context3(ecodec) else {
            var dp: UnsafeMutablePointer<AVCodecContext>? = d
            av.avcodec_free_context(&dp)
            throw failure
        }
        (decoder, encoder) = (d, e)
        // From here deinit frees both contexts.
        guard av.avcodec_parameters_to_context(d, stream.pointee.codecpar) >= 0 else { throw failure }
        d.pointee.pkt_timebase = stream.pointee.time_base
        guard av.avcodec_open2(d, dcodec, nil) >= 0, d.pointee.subtitle_header != nil else { throw failure }
        // The encoder takes its styles from the decoder's ASS header.
        let size = Int(d.pointee.subtitle_header_size)
        guard let header = av.av_mallocz(size + 1) else { throw failure }
        header.copyMemory(from: d.pointee.subtitle_header, byteCount: size)
        e.pointee.subtitle_header = header.assumingMemoryBound(to: UInt8.self)
        e.pointee.subtitle_header_size = Int32(size)
        e.pointee.time_base = stream.pointee.time_base
        guard av.avcodec_open2(e, ecodec, nil) >= 0 else { throw failure }
    }

    deinit {
        var d: UnsafeMutablePointer<AVCodecContext>? = decoder
        var e: UnsafeMutablePointer<AVCodecContext>? = encoder
        av.avcodec_free_context(&d)
        av.avcodec_free_context(&e)
    }

    /// Replaces `packet`'s payload by the same cue as timed text, keeping its times; false
    /// when the cue does not decode.
    func convert(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        var sub = AVSubtitle()
        var got: Int32 = 0
        guard av.avcodec_decode_subtitle2(decoder, &sub, &got, packet) >= 0, got != 0 else { return false }
        defer { av.avsubtitle_free(&sub) }
        let capacity = 64 * 1024
        guard let buf = av.av_malloc(capacity)?.assumingMemoryBound(to: UInt8.self) else { return false }
        let n = av.avcodec_encode_subtitle(encoder, buf, Int32(capacity), &sub)
        guard n > 0, let ref = av.av_buffer_create(buf, Int(n), av.av_buffer_default_free, nil, 0) else {
            av.av_free(buf)
            return false
        }
        let (pts, dts, duration, index) = (
            packet.pointee.pts, packet.pointee.dts, packet.pointee.duration, packet.pointee.stream_index
        )
        av.av_packet_unref(packet)
        packet.pointee.buf = ref
        packet.pointee.data = buf
        packet.pointee.size = n
        (packet.pointee.pts, packet.pointee.dts, packet.pointee.duration) = (pts, dts, duration)
        packet.pointee.stream_index = index
        return true
    }
}
