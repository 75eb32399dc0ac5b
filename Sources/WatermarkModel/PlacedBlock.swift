// Where a rendered block goes: its content laid out, turned, placed by anchor and margins,
// grown by its shadow and cut to what can be seen. Pure geometry, no drawing.

import Glibc

/// A logo/text block placed in a frame, with everything the renderer needs to draw it.
package struct PlacedBlock: Sendable, Equatable {
    /// The unturned content: image above text.
    package var content: BlockLayout
    /// Clockwise rotation in degrees, within (-360, 360); 0 = none.
    package var degrees: Double
    /// The turned block's bounding box in the frame (before clipping).
    package var rect: PixelRect
    /// Shadow offset down-right and blur radius in pixels (0 without shadow).
    package var shadowOffset: Int
    package var shadowBlur: Int
    /// The pixels to draw: the block and its shadow, cut to the frame (or, for a moving
    /// layer, to a frame's size beyond each edge), its origin on the chroma grid. Empty when
    /// nothing of it can be seen.
    package var visible: PixelRect

    /// `textPx`: one text line's height in pixels (also sets the image–text gap). `clip`:
    /// cut to the frame; a moving layer keeps up to a frame's size beyond each edge.
    package init?(
        style: OverlayStyle, image: (width: Int, height: Int)?, text: (width: Int, height: Int)?, textPx: Double,
        frameWidth: Int, frameHeight: Int, alignX: Int = 1, alignY: Int = 1, clip: Bool = true
    ) {
        if image == nil && text == nil { return nil }
        content = BlockLayout(
            image: image, text: text, gap: clampToInt((0.2 * textPx).rounded()), alignment: style.placement.anchor.fx)
        // A rotated block is placed by its rotated bounding box.
        degrees = style.rotation.isFinite ? style.rotation.truncatingRemainder(dividingBy: 360) : 0
        let angle = degrees * Double.pi / 180
        let bw = Double(content.bounds.width), bh = Double(content.bounds.height)
        let rw =
            degrees == 0
            ? content.bounds.width
            : clampToInt((abs(bw * cos(angle)) + abs(bh * sin(angle))).rounded(.up), limit: 65536)
        let rh =
            degrees == 0
            ? content.bounds.height
            : clampToInt((abs(bw * sin(angle)) + abs(bh * cos(angle))).rounded(.up), limit: 65536)
        let origin = LayerLayout.origin(
            blockWidth: rw, blockHeight: rh, frameWidth: frameWidth, frameHeight: frameHeight,
            placement: style.placement)
        rect = PixelRect(x: origin.x, y: origin.y, width: rw, height: rh)

        // The shadow falls down-right and is blurred; the drawn area grows accordingly.
        let shorter = Double(min(frameWidth, frameHeight))
        shadowOffset = style.shadow ? max(1, clampToInt((shorter * 0.004).rounded())) : 0
        shadowBlur = style.shadow ? max(1, shadowOffset) : 0
        var drawn = rect
        if style.shadow {
            let s = rect.offsetBy(dx: shadowOffset, dy: shadowOffset)
            let b = shadowBlur
            drawn = drawn.union(PixelRect(x: s.x - b, y: s.y - b, width: s.width + 2 * b, height: s.height + 2 * b))
        }
        let allowed =
            clip
            ? PixelRect(x: 0, y: 0, width: frameWidth, height: frameHeight)
            : PixelRect(x: -frameWidth, y: -frameHeight, width: 10 * frameWidth, height: 3 * frameHeight)
        let cut = drawn.intersection(allowed)
        // Start on the chroma grid so the overlay converts exactly for subsampled formats.
        let ax = LayerLayout.alignDown(cut.x, to: alignX), ay = LayerLayout.alignDown(cut.y, to: alignY)
        visible = cut.isEmpty ? cut : PixelRect(x: ax, y: ay, width: cut.maxX - ax, height: cut.maxY - ay)
    }

    /// The image's pixel size in a frame `frameWidth` wide: `widthFraction` of the frame
    /// (0: the image's natural size), aspect kept; nil for an image without size.
    package static func imageSize(natural: (width: Double, height: Double), widthFraction: Double, frameWidth: Int)
        -> (width: Int, height: Int)?
    {
        guard natural.width > 0, natural.height > 0 else { return nil }
        let frac = WatermarkProperties.width.clamped(widthFraction)
        let w = frac > 0 ? frac * Double(frameWidth) : natural.width
        let h = w * natural.height / natural.width
        return (max(1, clampToInt(w.rounded(), limit: 65536)), max(1, clampToInt(h.rounded(), limit: 65536)))
    }

    /// One text line's height in pixels in a frame `frameHeight` high.
    package static func linePixels(textSize: Double, frameHeight: Int) -> Double {
        let size = WatermarkProperties.textSize.clamped(textSize)
        return max(1, size * Double(frameHeight))
    }
}
