// Invariant: drawBox only adds a path to the cairo context it is given and fills it; the
// caller owns the context and its state (saved and restored here).

import CPangoCairo
import Glibc
import WatermarkModel

/// A caption's sizes in pixels for one frame: wrap width, spacing, and the box behind the
/// lines (padding, corner radius, full-width band), all safe whatever the style says.
struct CaptionGeometry {
    let alignment: Double
    let wrapPixels: Double
    let lineSpacing: Double
    let letterSpacing: Double
    let padding: Double
    let radius: Double
    let fullWidth: Bool
    let frameWidth: Int
    /// Inset of the text from the band's edges (the margin) when the box spans the frame.
    let bandInset: Double

    init(style: OverlayStyle, textPx: Double, frameWidth: Int) {
        let c = style.caption
        alignment = c.align.fraction(anchor: style.placement.anchor)
        let wrap = WatermarkProperties.wrapWidth.clamped(c.wrapWidth)
        wrapPixels = wrap > 0 ? max(1, wrap * Double(frameWidth)) : 0
        lineSpacing = WatermarkProperties.lineSpacing.clamped(c.lineSpacing) * textPx
        letterSpacing = WatermarkProperties.letterSpacing.clamped(c.letterSpacing) * textPx
        padding = c.hasBox ? (WatermarkProperties.backgroundPadding.clamped(c.padding) * textPx).rounded() : 0
        radius = c.hasBox ? WatermarkProperties.backgroundRadius.clamped(c.radius) * textPx : 0
        fullWidth = c.hasBox && c.fullWidth
        self.frameWidth = frameWidth
        let margin = style.placement.marginX
        bandInset = fullWidth && margin.isFinite ? min(max(margin, 0), 0.45) * Double(frameWidth) : 0
    }

    /// The text block's size with its box: padded, or the frame's width for a band.
    func boxSize(text: (width: Int, height: Int)) -> (width: Int, height: Int) {
        let p = Int(padding)
        return (fullWidth ? frameWidth : text.width + 2 * p, text.height + 2 * p)
    }

    /// A band spans the frame: it is placed from the frame's left edge, the margin moving the
    /// text inside it instead.
    func placementStyle(_ style: OverlayStyle) -> OverlayStyle {
        guard fullWidth else { return style }
        var s = style
        s.placement.marginX = 0
        s.placement.x = -1
        return s
    }

    /// Where the text's top-left goes inside its box `box`.
    func textOrigin(box: PixelRect, text: (width: Int, height: Int)) -> (x: Double, y: Double) {
        let y = Double(box.y) + padding
        guard fullWidth else { return (Double(box.x) + padding, y) }
        let room = Double(box.width) - 2 * (bandInset + padding) - Double(text.width)
        return (Double(box.x) + bandInset + padding + max(0, room) * alignment, y)
    }

    /// Fills `rect` with `color`, corners rounded by the radius (at most half the shorter side).
    func drawBox(into cr: OpaquePointer, rect: PixelRect, color: ARGBColor) {
        let x = Double(rect.x), y = Double(rect.y), w = Double(rect.width), h = Double(rect.height)
        let r = min(radius, w / 2, h / 2)
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_new_path(cr)
        if r >= 0.5 {
            cairo_arc(cr, x + w - r, y + r, r, -Double.pi / 2, 0)
            cairo_arc(cr, x + w - r, y + h - r, r, 0, Double.pi / 2)
            cairo_arc(cr, x + r, y + h - r, r, Double.pi / 2, Double.pi)
            cairo_arc(cr, x + r, y + r, r, Double.pi, 3 * Double.pi / 2)
            cairo_close_path(cr)
        } else {
            cairo_rectangle(cr, x, y, w, h)
        }
        cairo_set_source_rgba(
            cr, Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255, Double(color.alpha) / 255)
        cairo_fill(cr)
    }
}
