/// How a video format stores its pixels, as far as blending needs to know: for each
/// colour component, which plane holds it, where, and at what subsampling and depth.
/// Built from GstVideoFormatInfo by the element (see `GstFormat.swift`), or by hand in
/// tests; it needs no GStreamer itself.

package enum ColorFamily: Sendable, Hashable {
    /// Components are R, G, B (and A).
    case rgb
    /// Components are Y, U, V (and A).
    case yuv
    /// One component, luma.
    case gray
}

package struct ComponentLayout: Hashable, Sendable {
    package var plane: Int
    /// Byte offset of the component's first sample within a plane row.
    package var offset: Int
    /// Bytes between two samples of the component in a row.
    package var pixelStride: Int
    /// log2 of the horizontal and vertical subsampling.
    package var wSub: Int
    package var hSub: Int
    /// Significant bits, and how far they are shifted up in their container.
    package var depth: Int
    package var shift: Int

    package init(
        plane: Int, offset: Int, pixelStride: Int, wSub: Int = 0, hSub: Int = 0,
        depth: Int = 8, shift: Int = 0
    ) {
        self.plane = plane
        self.offset = offset
        self.pixelStride = pixelStride
        self.wSub = wSub
        self.hSub = hSub
        self.depth = depth
        self.shift = shift
    }

    /// Bytes of one sample's container: 1 for 8-bit formats, 2 for 10/12/16-bit.
    package var sampleBytes: Int { depth + shift > 8 ? 2 : 1 }
}

package struct PixelLayout: Hashable, Sendable {
    package var family: ColorFamily
    /// In the order R,G,B[,A] / Y,U,V[,A] / Y.
    package var components: [ComponentLayout]
    package var planeCount: Int

    package init(family: ColorFamily, components: [ComponentLayout]) {
        self.family = family
        self.components = components
        planeCount = (components.map(\.plane).max() ?? 0) + 1
    }

    /// Horizontal/vertical alignment (in pixels) that keeps an overlay on the chroma grid.
    package var alignX: Int { 1 << (components.map(\.wSub).max() ?? 0) }
    package var alignY: Int { 1 << (components.map(\.hSub).max() ?? 0) }

    /// Number of bytes of a plane row that hold pixels of a `width`-pixel-wide frame.
    package func validBytes(plane: Int, frameWidth: Int) -> Int {
        var end = 0
        for c in components where c.plane == plane {
            let samples = ceilShift(frameWidth, c.wSub)
            if samples > 0 { end = max(end, c.offset + (samples - 1) * c.pixelStride + c.sampleBytes) }
        }
        return end
    }

    /// Number of rows of a plane for a `height`-row frame.
    package func validRows(plane: Int, frameHeight: Int) -> Int {
        guard let c = components.first(where: { $0.plane == plane }) else { return 0 }
        return ceilShift(frameHeight, c.hSub)
    }

    // Common layouts, for tests and documentation. The element reads real ones from
    // GstVideoFormatInfo.
    package static let i420 = PixelLayout(
        family: .yuv,
        components: [
            ComponentLayout(plane: 0, offset: 0, pixelStride: 1),
            ComponentLayout(plane: 1, offset: 0, pixelStride: 1, wSub: 1, hSub: 1),
            ComponentLayout(plane: 2, offset: 0, pixelStride: 1, wSub: 1, hSub: 1),
        ])
    package static let nv12 = PixelLayout(
        family: .yuv,
        components: [
            ComponentLayout(plane: 0, offset: 0, pixelStride: 1),
            ComponentLayout(plane: 1, offset: 0, pixelStride: 2, wSub: 1, hSub: 1),
            ComponentLayout(plane: 1, offset: 1, pixelStride: 2, wSub: 1, hSub: 1),
        ])
    /// BGRA in memory order (B at byte 0): components R,G,B,A.
    package static let bgra = PixelLayout(
        family: .rgb,
        components: [
            ComponentLayout(plane: 0, offset: 2, pixelStride: 4),
            ComponentLayout(plane: 0, offset: 1, pixelStride: 4),
            ComponentLayout(plane: 0, offset: 0, pixelStride: 4),
            ComponentLayout(plane: 0, offset: 3, pixelStride: 4),
        ])
    /// 10-bit 4:2:0, three planes of 16-bit little-endian words (I420_10LE).
    package static let i420p10 = PixelLayout(
        family: .yuv,
        components: [
            ComponentLayout(plane: 0, offset: 0, pixelStride: 2, depth: 10),
            ComponentLayout(plane: 1, offset: 0, pixelStride: 2, wSub: 1, hSub: 1, depth: 10),
            ComponentLayout(plane: 2, offset: 0, pixelStride: 2, wSub: 1, hSub: 1, depth: 10),
        ])
    /// 10-bit 4:2:0 semi-planar, codes in the top bits of 16-bit words (P010_10LE).
    package static let p010 = PixelLayout(
        family: .yuv,
        components: [
            ComponentLayout(plane: 0, offset: 0, pixelStride: 2, depth: 10, shift: 6),
            ComponentLayout(plane: 1, offset: 0, pixelStride: 4, wSub: 1, hSub: 1, depth: 10, shift: 6),
            ComponentLayout(plane: 1, offset: 2, pixelStride: 4, wSub: 1, hSub: 1, depth: 10, shift: 6),
        ])
    package static let yuy2 = PixelLayout(
        family: .yuv,
        components: [
            ComponentLayout(plane: 0, offset: 0, pixelStride: 2),
            ComponentLayout(plane: 0, offset: 1, pixelStride: 4, wSub: 1),
            ComponentLayout(plane: 0, offset: 3, pixelStride: 4, wSub: 1),
        ])
}

/// ⌈v / 2^s⌉ for v ≥ 0 (0 for v ≤ 0).
@inline(__always)
package func ceilShift(_ v: Int, _ s: Int) -> Int { v <= 0 ? 0 : ((v - 1) >> s) + 1 }

/// How RGB maps to YUV: the matrix coefficients and the range, from the caps' colorimetry.
package struct YUVEncoding: Hashable, Sendable {
    package var kr: Double
    package var kb: Double
    package var fullRange: Bool

    package init(kr: Double, kb: Double, fullRange: Bool) {
        self.kr = kr
        self.kb = kb
        self.fullRange = fullRange
    }

    package static let bt601 = YUVEncoding(kr: 0.299, kb: 0.114, fullRange: false)
    package static let bt709 = YUVEncoding(kr: 0.2126, kb: 0.0722, fullRange: false)
    package static let bt2020 = YUVEncoding(kr: 0.2627, kb: 0.0593, fullRange: false)
}
