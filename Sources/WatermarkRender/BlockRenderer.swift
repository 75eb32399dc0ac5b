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

    /// Lays the block out for `style` and gives it to `body`, under the shared font lock (the
    /// block's text layout lives only as long as `body` runs); nil when nothing is drawn.
    package static func withBlock<T>(
        style: OverlayStyle, image: DecodedImage?, frameWidth: Int, frameHeight: Int, alignX: Int = 1,
        alignY: Int = 1, clip: Bool = true, _ body: (LaidOutBlock) -> T
    ) -> T? {
        SharedFonts.lock.withLock { _ in
            guard
                let block = LaidOutBlock(
                    style: style, image: image, frameWidth: frameWidth, frameHeight: frameHeight, alignX: alignX,
                    alignY: alignY, clip: clip)
            else { return nil }
            defer { block.release() }
            return body(block)
        }
    }

    private static func renderLocked(
        style: OverlayStyle, image: DecodedImage?, frameWidth: Int,
        frameHeight: Int, alignX: Int, alignY: Int, clip: Bool
    ) -> Result {
        guard
            let block = LaidOutBlock(
                style: style, image: image, frameWidth: frameWidth, frameHeight: frameHeight, alignX: alignX,
                alignY: alignY, clip: clip)
        else { return Result(overlay: nil, blockRect: PixelRect(x: 0, y: 0, width: 0, height: 0)) }
        defer { block.release() }
        var result = block.result
        let visible = block.visible
        if visible.isEmpty { return result }
        result.overlay = block.draw(window: visible).map { RenderedOverlay(rect: visible, pixels: $0) }
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
