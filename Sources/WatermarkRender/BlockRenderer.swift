// Invariant: every cairo/pango object created here is destroyed before `render` returns;
// pixel pointers from cairo are read only inside the surface's lifetime and within
// `stride × height` bytes.

import CPangoCairo
import Glibc
import WatermarkModel

/// Renders a logo and/or text block with cairo and pango, once per change, into the
/// part of the frame it covers.
package enum BlockRenderer {
    /// Longer text is cut: it could never be visible in a frame anyway, and shaping
    /// megabytes of text would stall the stream.
    package static let maxTextLength = 4096

    package struct Result: Sendable {
        /// The pixels, or nil when nothing of the block is inside the frame.
        package var overlay: RenderedOverlay?
        /// The block's content rectangle in the frame (before clipping), for layout checks.
        package var blockRect: PixelRect
        package var imageRect: PixelRect?
        package var textRect: PixelRect?
    }

    /// `clip`: render only the part inside the frame. Layers that move render all of the
    /// block (up to a frame's size beyond each edge) and are clipped when blended.
    package static func render(
        style: OverlayStyle, image: DecodedImage?, frameWidth: Int,
        frameHeight: Int, alignX: Int = 1, alignY: Int = 1, clip: Bool = true
    ) -> Result {
        // One render at a time in the process: the text goes through the shared font map.
        SharedFonts.lock.withLock { _ in
            renderLocked(
                style: style, image: image, frameWidth: frameWidth, frameHeight: frameHeight, alignX: alignX,
                alignY: alignY, clip: clip)
        }
    }

    private static func renderLocked(
        style: OverlayStyle, image: DecodedImage?, frameWidth: Int,
        frameHeight: Int, alignX: Int, alignY: Int, clip: Bool
    ) -> Result {
        let empty = Result(overlay: nil, blockRect: PixelRect(x: 0, y: 0, width: 0, height: 0))
        guard frameWidth > 0, frameHeight > 0 else { return empty }
        let textPx = PlacedBlock.linePixels(textSize: style.textSize, frameHeight: frameHeight)
        let outline = style.outlineWidth.isFinite ? min(max(style.outlineWidth, 0), 1) : 0
        let outlinePx = outline * textPx

        var text = style.text
        if text.count > maxTextLength { text = String(text.prefix(maxTextLength)) }
        let caption = CaptionGeometry(style: style, textPx: textPx, frameWidth: frameWidth)
        let textBox =
            text.isEmpty
            ? nil
            : TextLayout(
                text: text, fontDesc: style.fontDesc, linePixels: textPx, outlinePx: outlinePx,
                alignment: caption.alignment, wrapPixels: caption.wrapPixels, lineSpacing: caption.lineSpacing,
                letterSpacing: caption.letterSpacing, features: style.caption.fontFeatures)
        defer { textBox?.release() }
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
        else { return empty }
        let origin = block.rect
        var result = Result(
            overlay: nil, blockRect: block.rect,
            imageRect: block.degrees == 0 ? block.content.image?.offsetBy(dx: origin.x, dy: origin.y) : nil,
            textRect: block.degrees == 0 ? block.content.text?.offsetBy(dx: origin.x, dy: origin.y) : nil)
        let visible = block.visible
        if visible.isEmpty { return result }
        guard
            var pixels = draw(
                width: visible.width, height: visible.height,
                body: { cr in
                    paint(
                        block, into: cr, image: image, text: textBox, caption: caption, style: style,
                        outlinePx: outlinePx)
                })
        else { return result }
        if block.shadowOffset > 0 {
            Raster.addShadow(
                to: &pixels, width: visible.width, height: visible.height, offset: block.shadowOffset,
                radius: block.shadowBlur)
        }
        result.overlay = RenderedOverlay(rect: visible, pixels: pixels)
        return result
    }

    /// Draws the block's image and text into `cr`, whose origin is the visible rectangle's.
    private static func paint(
        _ block: PlacedBlock, into cr: OpaquePointer, image: DecodedImage?, text: TextLayout?,
        caption: CaptionGeometry, style: OverlayStyle, outlinePx: Double
    ) {
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
            let inner = caption.textOrigin(box: r, text: (text.width, text.height))
            text.draw(
                into: cr, x: inner.x, y: inner.y, color: style.color, outlineColor: style.outlineColor,
                outlinePx: outlinePx)
        }
    }

    /// Runs `body` on a cleared ARGB32 surface and returns its pixels packed. The surface
    /// draws straight into the returned array (no copy, one allocation fewer per render).
    static func draw(width: Int, height: Int, body: (OpaquePointer) -> Void) -> [UInt32]? {
        guard width > 0, height > 0, width <= 32767, height <= 32767 else { return nil }
        var drawn = false
        let out = [UInt32](unsafeUninitializedCapacity: width * height) { buffer, count in
            count = 0
            guard let base = buffer.baseAddress else { return }
            // An ARGB32 row of `width` pixels packed is a valid cairo stride (a multiple of 4).
            guard
                let surface = cairo_image_surface_create_for_data(
                    UnsafeMutableRawPointer(base).assumingMemoryBound(to: UInt8.self),
                    CAIRO_FORMAT_ARGB32, Int32(width), Int32(height), Int32(width * 4))
            else { return }
            // The surface must be done with the buffer before it goes away.
            defer {
                cairo_surface_finish(surface)
                cairo_surface_destroy(surface)
            }
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else { return }
            defer { cairo_destroy(cr) }
            // Cleared by cairo (rather than zeroed beforehand), which then knows the surface
            // is clear: the first drawing into a clear area is a copy, not a blend.
            cairo_save(cr)
            cairo_set_operator(cr, CAIRO_OPERATOR_CLEAR)
            cairo_paint(cr)
            cairo_restore(cr)
            guard cairo_status(cr) == CAIRO_STATUS_SUCCESS else { return }
            count = buffer.count
            body(cr)
            cairo_surface_flush(surface)
            drawn = true
        }
        return drawn ? out : nil
    }
}
