// Invariant for the unsafe code in this file: `blend` writes only inside rows
// [0, validRows) and bytes [0, validBytes) of each plane of the frame it is given, both
// worked out from that frame's own width and height in `layout`; every run is clipped to
// them before anything is written, wherever the overlay is placed. `blend` refuses
// strides shorter than `validBytes` and plane indexes the layout does not have.

import WatermarkModel

/// A rendered overlay pre-converted into one video format's own planes: for every
/// sample the overlay covers, a premultiplied value and an inverse alpha, so blending
/// is `dst = value + dst × inverseAlpha / 255` — no colour conversion per frame.
/// The conversion is relative to the overlay's own chroma-aligned origin, so the same
/// converted overlay can be blended at any aligned offset (moving layers) into frames
/// of any size; it is clipped per run at blend time.
package struct ConvertedOverlay: Sendable {
    package let layout: PixelLayout
    package let encoding: YUVEncoding
    /// Where the converted pixels go when blended without an offset.
    package let rect: PixelRect
    package private(set) var planes: [OverlayPlane]
    /// Set on an overlay put together from pieces (`init(pieces:rect:)`): pieces change one by
    /// one while the first plane may stay, so the whole is told apart by this object instead.
    private(set) var compositionIdentity: CompositionIdentity?
    final class CompositionIdentity: Sendable {}

    /// Bytes of the planes' bounding rectangles (for cost accounting).
    package var coveredBytes: Int { planes.reduce(0) { $0 + $1.rows * $1.rowBytes } }

    /// Memory traffic of a perfect blend: for every sample the overlay actually covers,
    /// the frame's bytes read and written plus the overlay's value and alpha read.
    package var floorBytes: Int {
        planes.reduce(0) { $0 + $1.inverseAlpha.count * ($1.wide ? 2 * 2 + 2 + 1 : 2 + 1 + 1) }
    }

    /// The opacity (0…256 steps, 256 = 1) the samples were scaled by (`withOpacity`).
    package private(set) var opacityStep: UInt32 = 256

    /// `opacity` as the blend applies it: 0…256.
    package static func opacityStep(_ opacity: Double) -> UInt32 {
        opacity.isFinite ? UInt32((min(max(opacity, 0), 1) * 256).rounded()) : 256
    }

    /// The same overlay with `opacity` folded into its samples (value and alpha scaled once,
    /// exactly as the blend would per frame), so that blending it at opacity 1 gives the
    /// same pixels as blending this at `opacity`, without the per-sample multiply: for a
    /// layer at a steady opacity below 1 (a semi-transparent mark), the per-frame loop is
    /// the one of opacity 1.
    package func withOpacity(_ opacity: Double) -> ConvertedOverlay {
        let step = Self.opacityStep(opacity)
        var scaled = self
        scaled.opacityStep = step
        // Opacity 0 blends nothing (not even the clamp to the format's code range).
        if step < 256 {
            scaled.planes = step == 0 ? [] : planes.map { $0.scaled(by: step) }
            if compositionIdentity != nil { scaled.compositionIdentity = CompositionIdentity() }
        }
        return scaled
    }

    /// The overlays `pieces` (of one layout and encoding, covering rectangles that do not
    /// overlap) as one: blending it blends every piece, which gives the pixels of converting
    /// their union at once when each piece starts on the chroma grid.
    package init(pieces: [ConvertedOverlay], rect: PixelRect, layout: PixelLayout, encoding: YUVEncoding) {
        self.layout = layout
        self.encoding = encoding
        self.rect = rect
        planes = []
        planes.reserveCapacity(pieces.reduce(0) { $0 + $1.planes.count })
        for piece in pieces where piece.layout == layout && piece.encoding == encoding && piece.opacityStep == 256 {
            planes += piece.planes
        }
        compositionIdentity = CompositionIdentity()
    }

    /// The part of `overlay` inside `clip` (whose origin is moved down onto the chroma grid).
    package init(_ overlay: RenderedOverlay, layout: PixelLayout, encoding: YUVEncoding, clip: PixelRect) {
        self.init(overlay, layout: layout, encoding: encoding, clip: clip, vectorised: true)
    }

    /// Converts the part of `overlay` inside a `frameWidth`×`frameHeight` frame.
    package init(
        _ overlay: RenderedOverlay, layout: PixelLayout, encoding: YUVEncoding,
        frameWidth: Int, frameHeight: Int
    ) {
        self.init(
            overlay, layout: layout, encoding: encoding,
            clip: overlay.rect.intersection(PixelRect(x: 0, y: 0, width: frameWidth, height: frameHeight)),
            vectorised: true)
    }

    /// Converts all of `overlay` (for layers that move: clipped when blended).
    package init(_ overlay: RenderedOverlay, layout: PixelLayout, encoding: YUVEncoding) {
        self.init(overlay, layout: layout, encoding: encoding, clip: overlay.rect, vectorised: true)
    }

    /// `vectorised: false` converts one sample at a time (the reference the tests compare
    /// the vector path with).
    init(
        _ overlay: RenderedOverlay, layout: PixelLayout, encoding: YUVEncoding, clip: PixelRect, vectorised: Bool
    ) {
        self.layout = layout
        self.encoding = encoding
        // Start on the chroma grid so every component's first sample is exact.
        let ax = LayerLayout.alignDown(clip.x, to: layout.alignX), ay = LayerLayout.alignDown(clip.y, to: layout.alignY)
        rect = clip.isEmpty ? clip : PixelRect(x: ax, y: ay, width: clip.maxX - ax, height: clip.maxY - ay)
        planes = []
        guard !rect.isEmpty, rect.width <= 65536, rect.height <= 65536 else { return }
        for p in 0..<layout.planeCount {
            if let plane = OverlayPlane(
                overlay, clip: rect, planeIndex: p, layout: layout, encoding: encoding, vectorised: vectorised)
            {
                planes.append(plane)
            }
        }
    }

    /// Blends into one plane of a `w`×`h` frame, moved by (`dx`, `dy`) pixels (rounded
    /// down to the chroma grid) from `rect`. `opacity` (0...1) scales the overlay's
    /// alpha. Returns false (and writes nothing) if the stride is too short for the frame.
    @discardableResult
    package func blend(
        planeIndex: Int, base: UnsafeMutablePointer<UInt8>, stride: Int,
        frameWidth w: Int, frameHeight h: Int, opacity: Double = 1,
        dx: Int = 0, dy: Int = 0
    ) -> Bool {
        guard planeIndex >= 0, planeIndex < layout.planeCount, w > 0, h > 0 else { return false }
        let validBytes = layout.validBytes(plane: planeIndex, frameWidth: w)
        let validRows = layout.validRows(plane: planeIndex, frameHeight: h)
        guard stride >= validBytes else { return false }
        // Offsets beyond ±2^30 px are off any frame; clamping keeps the maths from overflowing.
        let limit = 1 << 30
        let ax = LayerLayout.alignDown(min(max(dx, -limit), limit), to: layout.alignX)
        let ay = LayerLayout.alignDown(min(max(dy, -limit), limit), to: layout.alignY)
        for plane in planes where plane.plane == planeIndex {
            plane.blend(
                base: base, stride: stride, opacity: opacity, dx: ax, dy: ay,
                validRows: validRows, validBytes: validBytes)
        }
        return true
    }
}
