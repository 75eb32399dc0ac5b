import WatermarkBlend
import WatermarkModel
import WatermarkRender

/// Renders a layer whose text changes from frame to frame (`{timecode}`, `{frame}`, a clock
/// with milliseconds, data at the frame rate) at the cost of what changed: the block is drawn
/// whole once, then, while its layout keeps its shape (the same style, logo and frame, text
/// of the same extents), only the bands of it that the changed glyphs reach are drawn again
/// and converted (`BandedOverlay`), or taken from the bands drawn before. The pixels are the
/// whole drawing's, exactly: a band is drawn with the same code as the whole block, with
/// room around it for the outline and the shadow (`LaidOutBlock.draw(window:)`).
///
/// Turned blocks, text pango draws as boxes, and blocks cut by the frame's edge into nothing
/// are drawn whole every time, as before.
package struct ChangingTextRenderer: Sendable {
    /// A render's pixels as `PreparedLayer` keeps them.
    package struct Output: Sendable {
        package var rendered: RenderedOverlay?
        package var converted: ConvertedOverlay?
        package var blockRect: PixelRect
        package var textRect: PixelRect?
    }

    private struct Base: Sendable {
        var style: OverlayStyle
        var image: ObjectIdentifier?
        var shape: LaidOutBlock.Shape
        var banded: BandedOverlay
    }

    private var base: Base?
    /// Renders of the whole block, and bands drawn, taken from the cache, windows drawn.
    package private(set) var wholeRenders = 0
    package var drawnBands: Int { base?.banded.drawnBands ?? 0 }
    package var cachedBands: Int { base?.banded.cachedBands ?? 0 }
    package var windows: Int { base?.banded.windows ?? 0 }

    package init() {}

    /// The layer's pixels for `style` in a `frameWidth`×`frameHeight` frame of `layout`,
    /// converted for `encoding` and `signal` (not moving, not turned by the stream's
    /// orientation: the caller renders those whole).
    package mutating func render(
        style: OverlayStyle, image: DecodedImage?, frameWidth: Int, frameHeight: Int, layout: PixelLayout,
        encoding: YUVEncoding, signal: OverlaySignal
    ) -> Output {
        var plain = style
        plain.text = ""
        let imageID = image.map { ObjectIdentifier($0) }
        let none = Output(rendered: nil, converted: nil, blockRect: PixelRect(x: 0, y: 0, width: 0, height: 0))
        let out = BlockRenderer.withBlock(
            style: style, image: image, frameWidth: frameWidth, frameHeight: frameHeight, alignX: layout.alignX,
            alignY: layout.alignY
        ) { block -> Output in
            let visible = block.visible
            var output = Output(
                rendered: nil, converted: nil, blockRect: block.result.blockRect, textRect: block.result.textRect)
            guard !visible.isEmpty else {
                base = nil
                return output
            }
            let items = block.glyphs()?.map { g -> PlacedGlyph in
                var placed = g
                placed.minX += visible.x
                placed.maxX += visible.x
                return placed
            }
            let setup = block.textTop.map {
                BandedOverlay.Setup(
                    visible: visible, frameWidth: frameWidth, frameHeight: frameHeight, layout: layout,
                    encoding: encoding, signal: signal, textTop: visible.y + $0, reach: block.reach,
                    reachBefore: block.reachBefore, fullWidthWindows: !LaidOutBlock.narrowWindowsAreExact)
            }
            if let items, let setup, base?.style == plain, base?.image == imageID, base?.shape == block.shape,
                base?.banded.setup == setup, base?.banded.update(items: items, draw: block.draw(window:)) == true,
                let banded = base?.banded
            {
                output.rendered = banded.rendered
                output.converted = banded.converted
                return output
            }
            base = nil
            guard let pixels = block.draw(window: visible) else { return output }
            wholeRenders += 1
            if let items, let setup, let banded = BandedOverlay(setup: setup, pixels: pixels, items: items) {
                base = Base(style: plain, image: imageID, shape: block.shape, banded: banded)
                output.rendered = banded.rendered
                output.converted = banded.converted
                return output
            }
            let rendered = RenderedOverlay(rect: visible, pixels: pixels)
            output.rendered = rendered
            output.converted = ConvertedOverlay(
                signal.convert(rendered), layout: layout, encoding: encoding, frameWidth: frameWidth,
                frameHeight: frameHeight)
            return output
        }
        return out ?? none
    }
}
