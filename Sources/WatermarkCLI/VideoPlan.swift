import WatermarkModel

/// How the video is encoded: bit depth and codec from the input, so 10-bit stays 10-bit and
/// HDR stays HDR.
struct VideoPlan {
    let codec: Codec
    let rawFormat: String
    /// Extra encoder options (x264's HDR mastering data, which it does not take from caps).
    let encoderOptions: [String]
    /// A caution printed before the export (H.264 HDR).
    let note: String?

    init(media: MediaInfo?, codec requested: Codec?) {
        let hdr = media.map { $0.transfer != .sdr } ?? false
        let deep = (media?.bitDepth ?? 8) > 8
        codec = requested ?? (hdr ? .h265 : .h264)
        rawFormat = deep ? "I420_10LE" : "I420"
        var options: [String] = []
        if codec == .h264, let m = media, let md = m.masteringDisplay,
            let x264 = VideoPlan.x264MasteringDisplay(md, cll: m.contentLightLevel)
        {
            options.append(x264)
        }
        encoderOptions = options
        note = hdr && codec == .h264 ? "many players do not show H.264 as HDR; H.265 (the default) is" : nil
    }

    /// `HDR (HLG, BT.2020) 10-bit, turned upright (rotate-90) → H.265 Main10, CRF 21, veryfast`;
    /// `test source 8-bit → …` without an input file.
    func summary(media: MediaInfo?, encoding: EncoderSettings) -> String {
        var from: String
        guard let media else {
            return "test source 8-bit → \(codec == .h265 ? "H.265 Main" : "H.264 High"), \(encoding.summary)"
        }
        switch media.transfer {
        case .hlg: from = "HDR (HLG, BT.2020)"
        case .pq: from = "HDR (PQ, BT.2020)"
        case .sdr: from = media.colorimetry?.hasPrefix("bt2020") == true ? "SDR (BT.2020)" : "SDR"
        }
        from += " \(media.bitDepth)-bit"
        if let o = media.orientation { from += ", turned upright (\(o.rawValue))" }
        let deep = rawFormat != "I420"
        let to = codec == .h265 ? (deep ? "H.265 Main10" : "H.265 Main") : (deep ? "H.264 High 10" : "H.264 High")
        return "\(from) → \(to), \(encoding.summary)"
    }

    /// GStreamer's `mastering-display-info` (R, G, B, white point x/y, max, min) and
    /// `content-light-level` in x264's option syntax (G, B, R order).
    static func x264MasteringDisplay(_ info: String, cll: String?) -> String? {
        let v = info.split(separator: ":").compactMap { UInt64($0) }
        guard v.count == 10 else { return nil }
        var s =
            "mastering-display=G(\(v[2]),\(v[3]))B(\(v[4]),\(v[5]))R(\(v[0]),\(v[1]))"
            + "WP(\(v[6]),\(v[7]))L(\(v[8]),\(v[9]))"
        if let cll, case let l = cll.split(separator: ":").compactMap({ UInt64($0) }), l.count == 2 {
            s += ":cll=\(l[0]),\(l[1])"
        }
        return s
    }
}
