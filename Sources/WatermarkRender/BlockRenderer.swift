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
    package static func render(style: OverlayStyle, image: DecodedImage?, frameWidth: Int,
                              frameHeight: Int, alignX: Int = 1, alignY: Int = 1, clip: Bool = true) -> Result {
        let empty = Result(overlay: nil, blockRect: PixelRect(x: 0, y: 0, width: 0, height: 0))
        guard frameWidth > 0, frameHeight > 0 else { return empty }
        let W = Double(frameWidth), H = Double(frameHeight)
        let textSize = style.textSize.isFinite ? min(max(style.textSize, 0.001), 1) : WatermarkProperties.defaultDouble("text-size")
        let textPx = max(1, textSize * H)
        let outline = style.outlineWidth.isFinite ? min(max(style.outlineWidth, 0), 1) : 0
        let outlinePx = outline * textPx

        var text = style.text
        if text.count > maxTextLength { text = String(text.prefix(maxTextLength)) }

        // Measure the text.
        let textBox = text.isEmpty ? nil : TextLayout(text: text, fontDesc: style.fontDesc,
                                                      linePixels: textPx, outlinePx: outlinePx,
                                                      alignment: style.placement.anchor.fx)
        defer { textBox?.release() }

        // Size the image from the frame, never from the source's natural size.
        var imageSize: (width: Int, height: Int)?
        if let image, image.width > 0, image.height > 0 {
            let frac = style.imageWidth.isFinite ? min(max(style.imageWidth, 0), 1) : WatermarkProperties.defaultDouble("width")
            let w = frac > 0 ? frac * W : image.width
            let h = w * image.height / image.width
            imageSize = (max(1, clampToInt(w.rounded(), limit: 65536)), max(1, clampToInt(h.rounded(), limit: 65536)))
        }
        let textSizePx = textBox.map { (width: $0.width, height: $0.height) }
        if imageSize == nil && textSizePx == nil { return empty }
        let block = BlockLayout(image: imageSize, text: textSizePx, gap: clampToInt((0.2 * textPx).rounded()),
                                alignment: style.placement.anchor.fx)
        // A rotated block is placed by its rotated bounding box.
        let degrees = style.rotation.isFinite ? style.rotation.truncatingRemainder(dividingBy: 360) : 0
        let angle = degrees * Double.pi / 180
        let bw = Double(block.bounds.width), bh = Double(block.bounds.height)
        let rw = degrees == 0 ? block.bounds.width : clampToInt((abs(bw * cos(angle)) + abs(bh * sin(angle))).rounded(.up), limit: 65536)
        let rh = degrees == 0 ? block.bounds.height : clampToInt((abs(bw * sin(angle)) + abs(bh * cos(angle))).rounded(.up), limit: 65536)
        let origin = LayerLayout.origin(blockWidth: rw, blockHeight: rh,
                                        frameWidth: frameWidth, frameHeight: frameHeight,
                                        placement: style.placement)
        let blockRect = PixelRect(x: origin.x, y: origin.y, width: rw, height: rh)
        var result = Result(overlay: nil, blockRect: blockRect,
                            imageRect: degrees == 0 ? block.image?.offsetBy(dx: origin.x, dy: origin.y) : nil,
                            textRect: degrees == 0 ? block.text?.offsetBy(dx: origin.x, dy: origin.y) : nil)

        // The shadow falls down-right and is blurred; the drawn area grows accordingly.
        let shadowOffset = style.shadow ? max(1, clampToInt((min(W, H) * 0.004).rounded())) : 0
        let blur = style.shadow ? max(1, shadowOffset) : 0
        var drawn = blockRect
        if style.shadow {
            let s = blockRect.offsetBy(dx: shadowOffset, dy: shadowOffset)
            drawn = drawn.union(PixelRect(x: s.x - blur, y: s.y - blur, width: s.width + 2 * blur, height: s.height + 2 * blur))
        }
        var visible = drawn.intersection(clip ? PixelRect(x: 0, y: 0, width: frameWidth, height: frameHeight)
                                            : PixelRect(x: -frameWidth, y: -frameHeight, width: 3 * frameWidth, height: 3 * frameHeight))
        if visible.isEmpty { return result }
        // Start on the chroma grid so the overlay converts exactly for subsampled formats.
        let ax = LayerLayout.alignDown(visible.x, to: alignX), ay = LayerLayout.alignDown(visible.y, to: alignY)
        visible = PixelRect(x: ax, y: ay, width: visible.maxX - ax, height: visible.maxY - ay)

        guard var pixels = draw(width: visible.width, height: visible.height, body: { cr in
            cairo_translate(cr, Double(origin.x - visible.x), Double(origin.y - visible.y))
            if degrees != 0 {
                cairo_translate(cr, Double(rw) / 2, Double(rh) / 2)
                cairo_rotate(cr, angle)
                cairo_translate(cr, -bw / 2, -bh / 2)
            }
            if let image, let r = block.image {
                cairo_save(cr)
                cairo_translate(cr, Double(r.x), Double(r.y))
                image.draw(into: cr, width: Double(r.width), height: Double(r.height))
                cairo_restore(cr)
            }
            if let textBox, let r = block.text {
                textBox.draw(into: cr, x: Double(r.x), y: Double(r.y), color: style.color,
                             outlineColor: style.outlineColor, outlinePx: outlinePx)
            }
        }) else { return result }
        if style.shadow {
            Raster.addShadow(to: &pixels, width: visible.width, height: visible.height,
                      offset: shadowOffset, radius: blur)
        }
        result.overlay = RenderedOverlay(rect: visible, pixels: pixels)
        return result
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
            guard let surface = cairo_image_surface_create_for_data(UnsafeMutableRawPointer(base).assumingMemoryBound(to: UInt8.self),
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
