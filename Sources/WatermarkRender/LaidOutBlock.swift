// Invariant: a LaidOutBlock is made, used and released under `SharedFonts.lock` (inside
// `BlockRenderer.render` or `withBlock`); pixel arrays it returns are `window.width ×
// window.height` and written only through cairo surfaces of exactly that size.

import CPangoCairo
import Glibc
import WatermarkModel

/// A logo/text block laid out for one style and frame: the geometry the renderer draws and
/// the text's pango layout. Any rectangle of it can be drawn (`draw(window:)`) by the same
/// code that draws all of it, so that a text which changes in a few glyphs is drawn again
/// only around them.
package final class LaidOutBlock {
    /// Everything of the layout but the glyphs themselves: two layouts with the same shape
    /// draw the same pixels wherever they draw the same glyphs at the same places.
    package struct Shape: Equatable, Sendable {
        var block: PlacedBlock
        var textWidth: Int
        var textHeight: Int
        var originX: Double
        var originY: Double
        var innerX: Double
        var innerY: Double
    }

    let style: OverlayStyle
    let image: DecodedImage?
    let block: PlacedBlock
    let caption: CaptionGeometry
    let outlinePx: Double
    private(set) var text: TextLayout?
    /// The rectangles of the result (no pixels).
    package let result: BlockRenderer.Result
    package var visible: PixelRect { block.visible }
    package let shape: Shape
    /// Whether this cairo draws a window narrower than the block exactly as it draws the
    /// whole (cairo 1.16, Debian 12; checked by ChangingTextTests). cairo 1.18 (Debian 13)
    /// draws glyphs differently on a surface some glyphs lie outside of (a glyph's top row up
    /// to 47 levels apart): there windows span the block's width, which it draws exactly.
    package static let narrowWindowsAreExact = cairo_version() < 11700

    /// How far (pixels) content changes the pixels right of and below it: the outline's
    /// growth and its mask's sampling, antialiasing, the shadow's offset and blur.
    package let reach: Int
    /// How far content changes the pixels left of and above it (the shadow falls down-right).
    package let reachBefore: Int

    init?(
        style: OverlayStyle, image: DecodedImage?, frameWidth: Int, frameHeight: Int, alignX: Int, alignY: Int,
        clip: Bool
    ) {
        guard frameWidth > 0, frameHeight > 0 else { return nil }
        let textPx = PlacedBlock.linePixels(textSize: style.textSize, frameHeight: frameHeight)
        let outline = style.outlineWidth.isFinite ? min(max(style.outlineWidth, 0), 1) : 0
        let outlinePx = outline * textPx

        var string = style.text
        if string.count > BlockRenderer.maxTextLength { string = String(string.prefix(BlockRenderer.maxTextLength)) }
        let caption = CaptionGeometry(style: style, textPx: textPx, frameWidth: frameWidth)
        let textBox =
            string.isEmpty
            ? nil
            : TextLayout(
                text: string, fontDesc: style.fontDesc, linePixels: textPx, outlinePx: outlinePx,
                alignment: caption.alignment, wrapPixels: caption.wrapPixels, lineSpacing: caption.lineSpacing,
                letterSpacing: caption.letterSpacing, features: style.caption.fontFeatures)
        // The image is sized from the frame, never from the source's natural size.
        let imageSize = image.flatMap {
            PlacedBlock.imageSize(
                natural: ($0.width, $0.height), widthFraction: style.imageWidth, frameWidth: frameWidth)
        }
        guard
            let block = PlacedBlock(
                style: caption.placementStyle(style), image: imageSize,
                text: textBox.map { caption.boxSize(text: ($0.width, $0.height)) }, textPx: textPx,
                frameWidth: frameWidth, frameHeight: frameHeight, alignX: alignX, alignY: alignY, clip: clip)
        else {
            textBox?.release()
            return nil
        }
        self.style = style
        self.image = image
        self.block = block
        self.caption = caption
        self.outlinePx = outlinePx
        self.text = textBox
        let origin = block.rect
        result = BlockRenderer.Result(
            overlay: nil, blockRect: block.rect,
            imageRect: block.degrees == 0 ? block.content.image?.offsetBy(dx: origin.x, dy: origin.y) : nil,
            textRect: block.degrees == 0 ? block.content.text?.offsetBy(dx: origin.x, dy: origin.y) : nil)
        let inner =
            textBox.flatMap { t in block.content.text.map { caption.textOrigin(box: $0, text: (t.width, t.height)) } }
            ?? (x: 0, y: 0)
        shape = Shape(
            block: block, textWidth: textBox?.width ?? 0, textHeight: textBox?.height ?? 0,
            originX: textBox?.originX ?? 0, originY: textBox?.originY ?? 0, innerX: inner.x, innerY: inner.y)
        reach = Int(outlinePx.rounded(.up)) + 3 + block.shadowOffset + 2 * block.shadowBlur
        reachBefore = Int(outlinePx.rounded(.up)) + 3 + max(0, 2 * block.shadowBlur - block.shadowOffset)
    }

    func release() {
        text?.release()
        text = nil
    }

    /// Where the text layout's origin is in the visible rectangle (unturned blocks only).
    private var layoutOrigin: (x: Double, y: Double) {
        (
            Double(block.rect.x - block.visible.x) + shape.innerX + shape.originX,
            Double(block.rect.y - block.visible.y) + shape.innerY + shape.originY
        )
    }

    /// The rows of the visible rectangle (from its top) where the text box starts: nothing
    /// above this minus `reachBefore` depends on the glyphs (their ink is inside the box). nil for a turned block or one without
    /// text.
    package var textTop: Int? {
        guard block.degrees == 0, let r = block.content.text else { return nil }
        return block.rect.y - block.visible.y + r.y
    }

    /// Every glyph of the text as drawn, left to right per line; nil for a turned block (its
    /// glyphs are not in columns), one without text, or text pango could not lay out in glyphs
    /// it knows (missing glyphs are drawn as boxes by pango's renderer itself).
    /// Every font the glyphs name is kept alive for the process (`SharedFonts.keep`), so
    /// that its address never names another font.
    package func glyphs() -> [PlacedGlyph]? {
        guard block.degrees == 0, let layout = text?.layout, let iter = pango_layout_get_iter(layout) else {
            return nil
        }
        defer { pango_layout_iter_free(iter) }
        let origin = layoutOrigin
        let scale = Double(PANGO_SCALE)
        var out: [PlacedGlyph] = []
        repeat {
            guard let run = pango_layout_iter_get_run_readonly(iter), let glyphs = run.pointee.glyphs,
                let font = run.pointee.item?.pointee.analysis.font
            else { continue }
            SharedFonts.keep(font)
            var logical = PangoRectangle()
            pango_layout_iter_get_run_extents(iter, nil, &logical)
            let baseline = pango_layout_iter_get_baseline(iter)
            var x = logical.x
            let count = Int(glyphs.pointee.num_glyphs)
            guard count > 0, let infos = glyphs.pointee.glyphs else { continue }
            for i in 0..<count {
                let info = infos[i]
                if info.glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0 { return nil }
                let gx = x + info.geometry.x_offset, gy = baseline + info.geometry.y_offset
                x += info.geometry.width
                if info.glyph == PANGO_GLYPH_EMPTY { continue }
                var ink = PangoRectangle()
                pango_font_get_glyph_extents(font, info.glyph, &ink, nil)
                let left = origin.x + Double(gx + ink.x) / scale, right = left + Double(ink.width) / scale
                out.append(
                    PlacedGlyph(
                        font: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(font))), glyph: info.glyph, x: gx,
                        y: gy, minX: clampToInt(left.rounded(.down), limit: 1_000_000_000) - reachBefore,
                        maxX: clampToInt(right.rounded(.up), limit: 1_000_000_000) + reach))
            }
        } while pango_layout_iter_next_run(iter) != 0
        return out
    }

    /// The pixels of `window` (inside the visible rectangle; its origin at the window's
    /// top-left), drawn as the whole block is drawn: those at least `reach` pixels from any
    /// side of the window that is not a side of the visible rectangle are the whole
    /// drawing's, exactly (the outline mask and the shadow are made for the window only).
    package func draw(window: PixelRect) -> [UInt32]? {
        let visible = block.visible
        guard !window.isEmpty, window.intersection(visible) == window else { return nil }
        guard
            var pixels = BlockRenderer.draw(
                width: window.width, height: window.height,
                body: { cr in
                    cairo_translate(cr, Double(visible.x - window.x), Double(visible.y - window.y))
                    paint(into: cr, window: window)
                })
        else { return nil }
        if block.shadowOffset > 0 {
            Raster.addShadow(
                to: &pixels, width: window.width, height: window.height, offset: block.shadowOffset,
                radius: block.shadowBlur)
        }
        return pixels
    }

    /// Draws the block's image and text into `cr`, whose origin is the visible rectangle's.
    private func paint(into cr: OpaquePointer, window: PixelRect) {
        cairo_translate(cr, Double(block.rect.x - block.visible.x), Double(block.rect.y - block.visible.y))
        if block.degrees != 0 {
            cairo_translate(cr, Double(block.rect.width) / 2, Double(block.rect.height) / 2)
            cairo_rotate(cr, block.degrees * Double.pi / 180)
            cairo_translate(cr, -Double(block.content.bounds.width) / 2, -Double(block.content.bounds.height) / 2)
        }
        if let image, let r = block.content.image {
            cairo_save(cr)
            cairo_translate(cr, Double(r.x), Double(r.y))
            image.draw(into: cr, width: Double(r.width), height: Double(r.height))
            cairo_restore(cr)
        }
        if let text, let r = block.content.text {
            if style.caption.hasBox { caption.drawBox(into: cr, rect: r, color: style.caption.background) }
            // The outline's mask only for the window (with room for the outline to grow into
            // it), when the block is not turned and the window is not all of it.
            var maskWindow: PixelRect?
            if block.degrees == 0 && window != block.visible {
                let o = layoutOrigin
                let margin = Int(outlinePx.rounded(.up)) + 2
                let x0 = Int((Double(window.x - block.visible.x) - o.x + text.originX).rounded(.down)) - margin
                let y0 = Int((Double(window.y - block.visible.y) - o.y + text.originY).rounded(.down)) - margin
                maskWindow = PixelRect(
                    x: x0, y: y0, width: window.width + 2 * margin + 1, height: window.height + 2 * margin + 1
                )
                .intersection(PixelRect(x: 0, y: 0, width: text.width, height: text.height))
            }
            text.draw(
                into: cr, x: shape.innerX, y: shape.innerY, color: style.color, outlineColor: style.outlineColor,
                outlinePx: outlinePx, maskWindow: maskWindow)
        }
    }
}
