/// A rendered watermark: premultiplied ARGB pixels (cairo's ARGB32, one native-endian
/// `0xAARRGGBB` word per pixel, rows packed without padding) and where they go in the
/// frame. Produced once per content/size change by `BlockRenderer`.
package struct RenderedOverlay: Sendable {
    /// Placement in frame pixels; always inside the frame it was rendered for.
    package var rect: PixelRect
    package var pixels: [UInt32]

    /// `pixels` is padded with transparent pixels or cut to `rect.width × rect.height`.
    package init(rect: PixelRect, pixels: [UInt32]) {
        self.rect = rect
        var p = pixels
        let count = rect.width * rect.height
        if p.count < count { p.append(contentsOf: repeatElement(0, count: count - p.count)) }
        if p.count > count { p.removeLast(p.count - count) }
        self.pixels = p
    }

    /// A rectangle filled with one straight colour (premultiplied here), for tests and
    /// benchmarks.
    package static func solid(_ color: ARGBColor, rect: PixelRect) -> RenderedOverlay {
        let a = UInt32(color.alpha)
        func pm(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
        let word = a << 24 | pm(color.red) << 16 | pm(color.green) << 8 | pm(color.blue)
        return RenderedOverlay(rect: rect, pixels: Array(repeating: word, count: rect.width * rect.height))
    }
}

/// One glyph of a text as drawn: which glyph of which font (the font object's address, kept
/// alive by whoever compares), where (pango units from the text layout's origin), and the
/// columns its pixels can reach in the frame or block (ink, outline, shadow).
package struct PlacedGlyph: Hashable, Sendable {
    package var font: UInt
    package var glyph: UInt32
    package var x: Int32
    package var y: Int32
    package var minX: Int
    package var maxX: Int

    package init(font: UInt, glyph: UInt32, x: Int32, y: Int32, minX: Int, maxX: Int) {
        self.font = font
        self.glyph = glyph
        self.x = x
        self.y = y
        self.minX = minX
        self.maxX = maxX
    }
}
