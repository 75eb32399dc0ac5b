import CGStreamer
import WatermarkModel

/// Reads fixed-size C arrays, which Swift imports as tuples.
@inline(__always)
func element<T, E>(_ tuple: T, _ index: Int, as: E.Type) -> E {
    withUnsafeBytes(of: tuple) { raw in
        raw.load(fromByteOffset: index * MemoryLayout<E>.stride, as: E.self)
    }
}

extension PixelLayout {
    /// The blend layout of a negotiated video format, or nil for formats the blender
    /// does not handle (palettes, tiles, big-endian containers).
    init?(info: GstVideoInfo) {
        guard let finfo = info.finfo?.pointee else { return nil }
        let flags = finfo.flags.rawValue
        let unsupported =
            GST_VIDEO_FORMAT_FLAG_PALETTE.rawValue | GST_VIDEO_FORMAT_FLAG_TILED.rawValue
            | GST_VIDEO_FORMAT_FLAG_COMPLEX.rawValue
        if flags & unsupported != 0 { return nil }
        let family: ColorFamily
        if flags & GST_VIDEO_FORMAT_FLAG_RGB.rawValue != 0 {
            family = .rgb
        } else if flags & GST_VIDEO_FORMAT_FLAG_GRAY.rawValue != 0 {
            family = .gray
        } else if flags & GST_VIDEO_FORMAT_FLAG_YUV.rawValue != 0 {
            family = .yuv
        } else {
            return nil
        }
        let n = Int(finfo.n_components)
        guard n >= 1, n <= 4 else { return nil }
        var comps: [ComponentLayout] = []
        for c in 0..<n {
            let depth = Int(element(finfo.depth, c, as: UInt32.self))
            let shift = Int(element(finfo.shift, c, as: UInt32.self))
            var offset = Int(element(finfo.poffset, c, as: UInt32.self))
            // GStreamer 1.22 describes P010's V offset in samples (1) rather than bytes;
            // a 16-bit little-endian sample never starts at an odd byte.
            if depth + shift > 8 && offset % 2 == 1 { offset *= 2 }
            let comp = ComponentLayout(
                plane: Int(element(finfo.plane, c, as: UInt32.self)),
                offset: offset,
                pixelStride: Int(element(finfo.pixel_stride, c, as: Int32.self)),
                wSub: Int(element(finfo.w_sub, c, as: UInt32.self)),
                hSub: Int(element(finfo.h_sub, c, as: UInt32.self)),
                depth: depth, shift: shift)
            guard comp.depth >= 8, comp.depth + comp.shift <= 16, comp.pixelStride >= comp.sampleBytes,
                comp.plane < 4, comp.wSub <= 4, comp.hSub <= 4
            else { return nil }
            if comp.sampleBytes == 2 && flags & GST_VIDEO_FORMAT_FLAG_LE.rawValue == 0 { return nil }
            comps.append(comp)
        }
        self.init(family: family, components: comps)
    }
}

extension YUVEncoding {
    /// The matrix and range of the caps' colorimetry (BT.601 for unknown matrices).
    init(info: GstVideoInfo) {
        var kr = 0.0, kb = 0.0
        if gst_video_color_matrix_get_Kr_Kb(info.colorimetry.matrix, &kr, &kb) == 0 {
            (kr, kb) = (YUVEncoding.bt601.kr, YUVEncoding.bt601.kb)
        }
        self.init(kr: kr, kb: kb, fullRange: info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255)
    }
}

extension StreamFormat {
    /// The format of negotiated caps; nil for formats the blender does not handle.
    /// `unknownTransfer` is set for a transfer function the overlay's colours are not
    /// converted for (log curves, Adobe RGB…): those streams get SDR maths.
    init?(info: GstVideoInfo, unknownTransfer: inout Bool) {
        guard let layout = PixelLayout(info: info) else { return nil }
        let c = info.colorimetry
        switch c.transfer {
        case GST_VIDEO_TRANSFER_SMPTE2084: transfer = .pq
        case GST_VIDEO_TRANSFER_ARIB_STD_B67: transfer = .hlg
        case GST_VIDEO_TRANSFER_LOG100, GST_VIDEO_TRANSFER_LOG316, GST_VIDEO_TRANSFER_ADOBERGB:
            transfer = .sdr
            unknownTransfer = true
        default: transfer = .sdr
        }
        primaries = c.primaries == GST_VIDEO_COLOR_PRIMARIES_BT2020 ? .bt2020 : .bt709
        self.layout = layout
        encoding = YUVEncoding(info: info)
    }
}
