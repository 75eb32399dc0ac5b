// Invariant: an OverlayPlane's packed arrays hold exactly the samples its runs name
// (`Run.offset ..< offset + count` of `inverseAlpha` and of `value8` or `value16`), and
// every run lies inside `rows` × `rowSamples`; the blend relies on both and clips only
// against the frame.

import WatermarkModel

/// One frame plane's share of a converted overlay: its covered samples, packed run after
/// run, ready to be blended at any offset. Made in three steps: the overlay's pixels are
/// clipped (`clippedPixels`), converted into a dense grid of this plane's samples
/// (`OverlayPlane+Convert.swift`), and the grid's covered stretches found and packed
/// (`OverlayPlane+Runs.swift`). Blending is `OverlayPlane+Blend.swift`.
package struct OverlayPlane: Sendable {
    package let plane: Int
    /// Frame plane row and byte column of the overlay plane's first row/byte.
    package let firstRow: Int
    package let firstByte: Int
    package let rows: Int
    package let rowBytes: Int
    let wide: Bool
    /// Subsampling and pixel stride of the plane's first component: how a pixel offset
    /// becomes a row and byte offset.
    let wSub: Int
    let hSub: Int
    let pixelStride: Int
    /// Samples per overlay row (bytes for 8-bit formats, 16-bit words for wide ones).
    let rowSamples: Int
    /// The covered samples only, packed run after run: premultiplied values and inverse
    /// alphas. Transparent stretches are not stored, so a sparse overlay (text, a logo's
    /// corners) costs memory traffic only where it draws.
    var value8: [UInt8] = []
    var value16: [UInt16] = []
    var inverseAlpha: [UInt8] = []
    /// Stretches of a row that are not fully transparent, in row order.
    var runs: [Run] = []
    /// Per overlay row, the byte span from its first run's start to its last run's end
    /// (empty for a row without runs): what is fetched ahead of blending.
    var rowSpans: [RowSpan] = []
    /// Per overlay row, the index of its first run in `runs`, and the run count at the end
    /// (`rows + 1` entries): row r's runs are `rowRuns[r] ..< rowRuns[r + 1]`, by column.
    var rowRuns: [Int32] = []
    /// Wide formats: largest code value and the mask of significant bits.
    let maxCode: UInt32
    let codeMask: UInt16

    /// A stretch of one overlay row: `count` samples from sample `start`, stored at
    /// `offset` in the packed arrays. `opaque`: every sample has alpha 255.
    struct Run: Sendable {
        var row: Int32
        var start: Int32
        var count: Int32
        var offset: Int32
        var opaque: Bool
    }

    /// Bytes [start, end) of one overlay row that its runs cover, from the row's first byte.
    struct RowSpan: Sendable {
        var start: Int32
        var end: Int32
    }

    /// The plane `planeIndex` of `overlay`'s part inside `clip` (whose origin is on the
    /// chroma grid); nil when the layout has no such plane or the clip covers none of it.
    /// `vectorised: false` converts one sample at a time (the tests' reference).
    init?(
        _ overlay: RenderedOverlay, clip: PixelRect, planeIndex: Int, layout: PixelLayout,
        encoding: YUVEncoding, vectorised: Bool = true
    ) {
        let comps = layout.components.enumerated().filter { $0.element.plane == planeIndex }
        guard let first = comps.first?.element else { return nil }
        plane = planeIndex
        wide = first.sampleBytes == 2
        wSub = first.wSub
        hSub = first.hSub
        pixelStride = first.pixelStride

        // The overlay origin is aligned to the chroma grid, so every component's first
        // sample is at an exact position (negative for an overlay partly left of or above
        // the frame: the shifts below are arithmetic).
        let ox = clip.x, oy = clip.y
        let row0 = oy >> first.hSub
        let rowEnd = ceilShift(oy + clip.height, first.hSub)
        let byte0 = (ox >> first.wSub) * first.pixelStride
        var byteEnd = byte0
        for (_, c) in comps {
            let lastSample = (ox + clip.width - 1) >> c.wSub
            byteEnd = max(byteEnd, c.offset + lastSample * c.pixelStride + c.sampleBytes)
        }
        guard rowEnd > row0, byteEnd > byte0 else { return nil }
        firstRow = row0
        firstByte = byte0
        rows = rowEnd - row0
        rowBytes = wide ? (byteEnd - byte0) & ~1 : byteEnd - byte0
        rowSamples = wide ? rowBytes / 2 : rowBytes
        maxCode = UInt32((1 << first.depth) - 1) << UInt32(first.shift)
        codeMask = UInt16(truncatingIfNeeded: maxCode)

        let grid = SampleGrid(rows: rows, rowSamples: rowSamples, wide: wide)
        let pixels = Self.clippedPixels(overlay, clip: clip)
        pixels.withUnsafeBufferPointer { px in
            guard let p0 = px.baseAddress else { return }
            for (index, c) in comps {
                let converter = ComponentConverter(
                    component: c,
                    map: ComponentMap(family: layout.family, component: index, depth: c.depth, encoding: encoding),
                    clip: clip, firstRow: row0, firstByte: byte0, rowBytes: rowBytes, grid: grid, maxCode: maxCode)
                converter.convert(from: p0, vectorised: vectorised)
            }
        }
        pack(grid)
    }

    /// `clip`'s pixels of `overlay` as premultiplied ARGB words, `clip.width` per row;
    /// pixels of the clip outside the overlay (alignment) are transparent. A clip that is
    /// the whole overlay (the usual case: a block inside the frame) is the overlay's own array.
    static func clippedPixels(_ overlay: RenderedOverlay, clip: PixelRect) -> [UInt32] {
        let ow = clip.width, oh = clip.height
        let srcX = clip.x - overlay.rect.x, srcY = clip.y - overlay.rect.y
        let srcW = overlay.rect.width, srcH = overlay.rect.height
        if srcX == 0 && srcY == 0 && srcW == ow && srcH == oh && overlay.pixels.count >= ow * oh {
            return overlay.pixels
        }
        var copy = [UInt32](repeating: 0, count: ow * oh)
        let xFrom = max(0, -srcX), xTo = min(ow, srcW - srcX)
        overlay.pixels.withUnsafeBufferPointer { src in
            copy.withUnsafeMutableBufferPointer { dst in
                guard src.count >= srcW * srcH, xFrom < xTo, let s0 = src.baseAddress, let d0 = dst.baseAddress else {
                    return
                }
                for y in 0..<oh where y + srcY >= 0 && y + srcY < srcH {
                    (d0 + y * ow + xFrom).update(from: s0 + (y + srcY) * srcW + srcX + xFrom, count: xTo - xFrom)
                }
            }
        }
        return copy
    }
}
