// `--burn-subtitles[=N]`: the input's own text subtitle track N (counted among its subtitle
// tracks), read with libavformat and written out as the file it was made from (an ASS track
// with the fonts the file carries embedded), which the element then burns in.

import CAVTypes
import Glibc
import WatermarkModel

enum BurnSubtitles {
    /// The picture-based formats, by the name users know them by.
    static func pictureFormat(_ id: AVCodecID) -> String? {
        switch id {
        case AV_CODEC_ID_HDMV_PGS_SUBTITLE: "PGS"
        case AV_CODEC_ID_DVD_SUBTITLE: "VobSub"
        case AV_CODEC_ID_DVB_SUBTITLE: "DVB"
        case AV_CODEC_ID_XSUB: "XSUB"
        case AV_CODEC_ID_DVB_TELETEXT: "DVB teletext"
        default: nil
        }
    }

    static func kind(_ id: AVCodecID) -> SubtitleTrackFile.Kind? {
        switch id {
        case AV_CODEC_ID_ASS, AV_CODEC_ID_SSA: .ass
        case AV_CODEC_ID_SUBRIP, AV_CODEC_ID_TEXT, AV_CODEC_ID_MOV_TEXT: .srt
        case AV_CODEC_ID_WEBVTT: .webvtt
        default: nil
        }
    }

    /// The subtitle track `number` (1-based) of `tracks`, checked to be one that burns in.
    static func choose(_ number: Int, among tracks: [SourceTrack], input: String) throws(UsageError) -> SourceTrack {
        let subtitles = tracks.filter { $0.kind == .subtitle }
        guard number >= 1 else { throw UsageError(message: "--burn-subtitles: track numbers start at 1") }
        guard number <= subtitles.count else {
            throw UsageError(
                message: subtitles.isEmpty
                    ? "--burn-subtitles: \(input) has no subtitle track"
                    : "--burn-subtitles=\(number): \(input) has \(subtitles.count) subtitle track(s)")
        }
        let track = subtitles[number - 1]
        if let picture = pictureFormat(track.codecID) {
            throw UsageError(
                message: "--burn-subtitles: subtitle track \(number) of \(input) is \(picture), a picture format: only "
                    + "text subtitles (SubRip, ASS/SSA, WebVTT, MP4 timed text) can be burned in")
        }
        guard kind(track.codecID) != nil else {
            throw UsageError(
                message:
                    "--burn-subtitles: subtitle track \(number) of \(input) is \(track.codec), which cannot be burned in"
            )
        }
        return track
    }

    /// Reads stream `index` of `input` (and its fonts) into a subtitle file at `path`.
    static func extract(_ input: String, stream index: Int, to path: String) throws(UsageError) {
        let av: FFmpeg
        switch FFmpeg.shared {
        case .success(let f): av = f
        case .failure(let e): throw UsageError(message: "--burn-subtitles: \(e.reason)")
        }
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard av.avformat_open_input(&context, input, nil, nil) == 0, let ctx = context else {
            throw UsageError(message: "--burn-subtitles: cannot read \(input)")
        }
        defer { av.avformat_close_input(&context) }
        guard index < Int(ctx.pointee.nb_streams), let st = ctx.pointee.streams[index],
            let kind = kind(st.pointee.codecpar.pointee.codec_id)
        else { throw UsageError(message: "--burn-subtitles: \(input) has no text subtitle stream \(index)") }
        let par = st.pointee.codecpar.pointee
        let mp4Text = par.codec_id == AV_CODEC_ID_MOV_TEXT
        let header =
            par.extradata.map {
                // Some muxers end the header with a NUL: the text stops there.
                String(
                    decoding: UnsafeBufferPointer(start: $0, count: Int(par.extradata_size)).prefix { $0 != 0 },
                    as: UTF8.self)
            }
            ?? ""
        var fonts: [(name: String, data: [UInt8])] = []
        let attachment: Int32 = 4  // AVMEDIA_TYPE_ATTACHMENT (not imported)
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let a = ctx.pointee.streams[i], a.pointee.codecpar.pointee.codec_type.rawValue == attachment,
                let data = a.pointee.codecpar.pointee.extradata
            else { continue }
            func tag(_ key: String) -> String {
                av.av_dict_get(a.pointee.metadata, key, nil, 0).map { String(cString: $0.pointee.value) } ?? ""
            }
            let name = tag("filename"), mime = tag("mimetype").lowercased()
            let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
            guard Substring(mime).byteRange(of: "font") != nil || ["ttf", "otf", "ttc", "otc"].contains(ext) else {
                continue
            }
            let count = Int(a.pointee.codecpar.pointee.extradata_size)
            fonts.append((name.isEmpty ? "font\(i).ttf" : name, Array(UnsafeBufferPointer(start: data, count: count))))
        }
        // Only the chosen stream's packets are read.
        let discardAll = AVDiscard(rawValue: 48)  // AVDISCARD_ALL (not imported)
        for i in 0..<Int(ctx.pointee.nb_streams) where i != index {
            ctx.pointee.streams[i]?.pointee.discard = discardAll
        }
        let tb = st.pointee.time_base
        func ms(_ t: Int64) -> Int64 { av.av_rescale_q(t, tb, AVRational(num: 1, den: 1000)) }
        var events: [SubtitleTrackFile.Event] = []
        var packet: UnsafeMutablePointer<AVPacket>? = av.av_packet_alloc()
        guard let pkt = packet else { throw UsageError(message: "--burn-subtitles: out of memory") }
        defer { av.av_packet_free(&packet) }
        while av.av_read_frame(ctx, pkt) >= 0 {
            defer { av.av_packet_unref(pkt) }
            let p = pkt.pointee
            guard Int(p.stream_index) == index, let data = p.data, p.size > 0 else { continue }
            var bytes = UnsafeBufferPointer(start: data, count: Int(p.size))[...]
            if mp4Text {
                // MP4 timed text: a 16-bit big-endian length, the text, then style boxes.
                guard bytes.count >= 2 else { continue }
                let length = Int(bytes[bytes.startIndex]) << 8 | Int(bytes[bytes.startIndex + 1])
                bytes = bytes.dropFirst(2).prefix(length)
            }
            let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            let pts = p.pts != Int64.min ? p.pts : p.dts
            guard pts != Int64.min, !text.isEmpty else { continue }
            let (end, overflow) = pts.addingReportingOverflow(max(0, p.duration))
            events.append(.init(start: ms(pts), end: ms(overflow ? pts : end), payload: text))
        }
        let file = SubtitleTrackFile(kind: kind, header: header, events: events, fonts: fonts)
        let text = file.text
        guard let out = fopen(path, "w") else {
            throw UsageError(message: "--burn-subtitles: cannot write \(path): \(systemError())")
        }
        let written = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, out) }
        let closed = fclose(out)
        guard written == text.utf8.count, closed == 0 else {
            throw UsageError(message: "--burn-subtitles: cannot write \(path): \(systemError())")
        }
    }
}
