// Invariant: every cairo/pango object created here is destroyed before `render` returns;
// pixel pointers from cairo are read only inside the surface's lifetime and within
// `stride × height` bytes.

import CPangoCairo
import Glibc

/// Everything about a watermark's look that rendering depends on, as plain values.
/// Opacity is not here: it is applied while blending, so fades never re-render.
public struct OverlayStyle: Sendable, Equatable {
    public var text: String = ""
    public var fontDesc: String = "Sans Bold"
    /// Height of one text line as a fraction of the frame height.
    public var textSize: Double = 0.05
    public var color: ARGBColor = .white
    public var outlineColor: ARGBColor = .black
    /// Outline thickness as a fraction of the text size.
    public var outlineWidth: Double = 0.08
    public var shadow: Bool = false
    /// Image width as a fraction of the frame width; 0 = natural size.
    public var imageWidth: Double = 0.12
    public var placement = Placement()
    /// Clockwise rotation of the whole block about its centre, in degrees.
    public var rotation: Double = 0

    public init() {}
}

/// Renders a logo and/or text block with cairo and pango, once per change, into the
/// part of the frame it covers.
public enum BlockRenderer {
    /// Longer text is cut: it could never be visible in a frame anyway, and shaping
    /// megabytes of text would stall the stream.
    public static let maxTextLength = 4096

    public struct Result: Sendable {
        /// The pixels, or nil when nothing of the block is inside the frame.
        public var overlay: RenderedOverlay?
        /// The block's content rectangle in the frame (before clipping), for layout checks.
        public var blockRect: PixelRect
        public var imageRect: PixelRect?
        public var textRect: PixelRect?
    }

    /// `clip`: render only the part inside the frame. Layers that move render all of the
    /// block (up to a frame's size beyond each edge) and are clipped when blended.
    public static func render(style: OverlayStyle, image: DecodedImage?, frameWidth: Int,
                              frameHeight: Int, alignX: Int = 1, alignY: Int = 1, clip: Bool = true) -> Result {
        let empty = Result(overlay: nil, blockRect: PixelRect(x: 0, y: 0, width: 0, height: 0))
        guard frameWidth > 0, frameHeight > 0 else { return empty }
        let W = Double(frameWidth), H = Double(frameHeight)
        let textSize = style.textSize.isFinite ? min(max(style.textSize, 0.001), 1) : 0.05
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
            let frac = style.imageWidth.isFinite ? min(max(style.imageWidth, 0), 1) : 0.12
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
            addShadow(to: &pixels, width: visible.width, height: visible.height,
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

    /// Puts a blurred, 60 % black copy of the content's alpha under it, offset
    /// down-right.
    static func addShadow(to pixels: inout [UInt32], width: Int, height: Int, offset: Int, radius: Int) {
        let n = width * height
        var alpha = [Int32](repeating: 0, count: n)
        for y in 0..<height {
            let sy = y - offset
            if sy < 0 { continue }
            for x in offset..<max(offset, width) {
                alpha[y * width + x] = Int32(pixels[sy * width + x - offset] >> 24)
            }
        }
        // Two box-blur passes in each direction approximate a Gaussian.
        var tmp = [Int32](repeating: 0, count: n)
        for _ in 0..<2 {
            boxBlur(&alpha, into: &tmp, width: width, height: height, radius: radius, horizontal: true)
            boxBlur(&tmp, into: &alpha, width: width, height: height, radius: radius, horizontal: false)
        }
        for i in 0..<n {
            let sa = UInt32(alpha[i]) * 153 / 255 // 60 %
            let p = pixels[i]
            let a = p >> 24
            // content OVER shadow (shadow colour is black, so only alpha grows).
            let outA = a + sa * (255 - a) / 255
            pixels[i] = outA << 24 | (p & 0x00FF_FFFF)
        }
    }

    static func boxBlur(_ src: inout [Int32], into dst: inout [Int32], width: Int, height: Int,
                        radius: Int, horizontal: Bool) {
        let lines = horizontal ? height : width, length = horizontal ? width : height
        let step = horizontal ? 1 : width
        let size = Int32(2 * radius + 1)
        for line in 0..<lines {
            let base = horizontal ? line * width : line
            var sum: Int32 = 0
            for k in -radius...radius where k >= 0 && k < length { sum += src[base + k * step] }
            for i in 0..<length {
                dst[base + i * step] = sum / size
                let out = i - radius, inn = i + radius + 1
                if out >= 0 { sum -= src[base + out * step] }
                if inn < length { sum += src[base + inn * step] }
            }
        }
    }
}

/// A pango layout sized so that one line is `linePixels` tall, with room for its outline.
final class TextLayout {
    private struct FontSizeKey: Hashable {
        var fontDesc: String
        var linePixels: Double
    }
    private struct FontSize {
        var size: Double
        var lineHeight: Double
    }
    /// Absolute font sizes found for a font description and line height (bounded).
    private static let sizes = Locked<[FontSizeKey: FontSize]>([:])

    private var context: OpaquePointer?
    private var layout: OpaquePointer?
    let width: Int
    let height: Int
    /// Where the layout's origin goes relative to the box's top-left corner.
    private let originX: Double
    private let originY: Double

    init?(text: String, fontDesc: String, linePixels: Double, outlinePx: Double, alignment: Double) {
        guard let fontMap = pango_cairo_font_map_get_default(),
              let context = pango_font_map_create_context(fontMap) else { return nil }
        // Unhinted metrics: text scales smoothly with the frame size.
        if let options = cairo_font_options_create() {
            cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
            cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
            pango_cairo_context_set_font_options(context, options)
            cairo_font_options_destroy(options)
        }
        guard let layout = pango_layout_new(context) else {
            g_object_unref(UnsafeMutableRawPointer(context))
            return nil
        }
        self.context = context
        self.layout = layout
        let desc = pango_font_description_from_string(fontDesc.isEmpty ? "Sans Bold" : fontDesc)
        defer { pango_font_description_free(desc) }
        pango_layout_set_alignment(layout, alignment < 0.25 ? PANGO_ALIGN_LEFT : alignment > 0.75 ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_CENTER)
        pango_layout_set_text(layout, text, -1)

        // Size the font so that a line (ascent + descent + line gap) is linePixels high.
        func lineHeight(size: Double) -> Double {
            pango_font_description_set_absolute_size(desc, size * Double(PANGO_SCALE))
            pango_layout_set_font_description(layout, desc)
            var logical = PangoRectangle()
            pango_layout_get_extents(layout, nil, &logical)
            let lines = max(1, Int(pango_layout_get_line_count(layout)))
            return Double(logical.height) / Double(PANGO_SCALE) / Double(lines)
        }
        // A probe at linePixels gives the font's line height per pixel of size. Shaping is
        // most of a render's cost, so the size found is remembered per font and line height
        // (a clock or counter re-renders with the same font every time) and used when one
        // layout at that size gives the line height it gave before (same fonts, no fallback).
        let key = FontSizeKey(fontDesc: fontDesc, linePixels: linePixels)
        if let known = Self.sizes.withLock({ $0[key] }), abs(lineHeight(size: known.size) - known.lineHeight) < 0.01 {
            // The layout is already at the size found before.
        } else {
            let probe = lineHeight(size: linePixels)
            if probe > 0 {
                let size = linePixels * linePixels / probe
                let found = FontSize(size: size, lineHeight: lineHeight(size: size))
                Self.sizes.withLock { cache in
                    if cache.count >= 256 { cache.removeAll() }
                    cache[key] = found
                }
            }
        }

        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        let minX = min(ink.x, logical.x), minY = min(ink.y, logical.y)
        let maxX = max(ink.x + ink.width, logical.x + logical.width)
        let maxY = max(ink.y + ink.height, logical.y + logical.height)
        let pad = outlinePx > 0 ? Int(outlinePx.rounded(.up)) + 1 : 0
        width = Int(maxX - minX) + 2 * pad
        height = Int(maxY - minY) + 2 * pad
        originX = Double(pad) - Double(minX)
        originY = Double(pad) - Double(minY)
        if width <= 0 || height <= 0 { release(); return nil }
    }

    /// The family the font description resolves to on this system (after fallback).
    static func resolvedFamily(of fontDesc: String) -> String? {
        guard let fontMap = pango_cairo_font_map_get_default(),
              let context = pango_font_map_create_context(fontMap) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        let desc = pango_font_description_from_string(fontDesc)
        defer { pango_font_description_free(desc) }
        guard let font = pango_context_load_font(context, desc) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(font)) }
        let described = pango_font_describe(font)
        defer { pango_font_description_free(described) }
        guard let family = pango_font_description_get_family(described) else { return nil }
        return String(cString: family)
    }

    func draw(into cr: OpaquePointer, x: Double, y: Double, color: ARGBColor,
              outlineColor: ARGBColor, outlinePx: Double) {
        guard let layout else { return }
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_translate(cr, x + originX, y + originY)
        // No pango_cairo_update_layout: it would copy this translation (and any rotation)
        // into the layout's context, which throws the shaped layout away and shapes it again.
        // The context was made with unhinted metrics, so the glyph positions do not depend on
        // the transformation; cairo applies it when drawing.
        if outlinePx > 0, outlineColor.alpha > 0, let mask = outlineMask(radius: outlinePx) {
            // The outline is the text's own coverage grown by the outline width, painted
            // under the fill: a fraction of the cost of stroking every glyph's path.
            set(cr, outlineColor)
            cairo_mask_surface(cr, mask, -originX, -originY)
            cairo_surface_destroy(mask)
        }
        cairo_move_to(cr, 0, 0)
        set(cr, color)
        pango_cairo_show_layout(cr, layout)
    }

    /// The layout's coverage (A8, box-sized, box origin at 0,0) dilated by a disc of
    /// `radius` pixels; nil if it cannot be made (then no outline is drawn).
    private func outlineMask(radius: Double) -> OpaquePointer? {
        guard let layout, width > 0, height > 0, width <= 32767, height <= 32767,
              let surface = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(width), Int32(height)) else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            return nil
        }
        if let options = cairo_font_options_create() {
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
            cairo_set_font_options(cr, options)
            cairo_font_options_destroy(options)
        }
        cairo_translate(cr, originX, originY)
        pango_cairo_show_layout(cr, layout)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        if let data = cairo_image_surface_get_data(surface) {
            let stride = Int(cairo_image_surface_get_stride(surface))
            Self.dilate(data, width: width, height: height, stride: stride, radius: radius)
        }
        cairo_surface_mark_dirty(surface)
        return surface
    }

    /// Grows an 8-bit coverage mask in place by a disc of `radius` pixels (max filter). For
    /// every row, its maxima over every half-width 0…r are built level by level (half-width
    /// k = max of the k - 1 maxima left and right); each output row then takes, per pixel,
    /// the maximum over the disc's rows of the level that row's half-width needs. Only the
    /// 2r + 1 rows an output row reads are kept, in a ring (a few KB, not r + 1 copies of
    /// the mask).
    static func dilate(_ data: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int, stride: Int, radius: Double) {
        let r = min(64, max(0, Int(radius.rounded())))
        guard r > 0, w > 0, h > 0 else { return }
        let slots = 2 * r + 1, levelsPerRow = r + 1
        // ring[(yy mod slots) · levelsPerRow · w + k · w + x] = max of source row yy over [x - k, x + k].
        let ring = UnsafeMutablePointer<UInt8>.allocate(capacity: slots * levelsPerRow * w)
        defer { ring.deallocate() }
        func level(_ k: Int, ofRow yy: Int) -> UnsafeMutablePointer<UInt8> {
            ring + ((yy % slots) * levelsPerRow + k) * w
        }
        // Reads row yy; always before output row yy - r is written, so rows still to be
        // read are never overwritten.
        func take(row yy: Int) {
            level(0, ofRow: yy).update(from: data + yy * stride, count: w)
            for k in 1...r {
                let p = level(k - 1, ofRow: yy), o = level(k, ofRow: yy)
                o[0] = max(p[0], w > 1 ? p[1] : 0)
                if w > 1 { o[w - 1] = max(p[w - 1], p[w - 2]) }
                if w > 2 {
                    for x in 1..<(w - 1) { o[x] = max(p[x], max(p[x - 1], p[x + 1])) }
                }
            }
        }
        // Half-width of the disc at each row offset.
        let spans = (0...r).map { dy in Int((Double(r * r - dy * dy)).squareRoot().rounded(.down)) }
        for yy in 0..<min(r, h) { take(row: yy) }
        for y in 0..<h {
            if y + r < h { take(row: y + r) }
            let out = data + y * stride
            let first = max(0, y - r), last = min(h - 1, y + r)
            out.update(from: level(spans[abs(first - y)], ofRow: first), count: w)
            if first < last {
                for yy in (first + 1)...last {
                    let s = level(spans[abs(yy - y)], ofRow: yy)
                    for x in 0..<w { out[x] = max(out[x], s[x]) }
                }
            }
        }
    }

    private func set(_ cr: OpaquePointer, _ c: ARGBColor) {
        cairo_set_source_rgba(cr, Double(c.red) / 255, Double(c.green) / 255, Double(c.blue) / 255, Double(c.alpha) / 255)
    }

    func release() {
        if let layout { g_object_unref(UnsafeMutableRawPointer(layout)) }
        if let context { g_object_unref(UnsafeMutableRawPointer(context)) }
        layout = nil
        context = nil
    }

    deinit { release() }
}

extension TextLayout {
    /// Lower-cased families named in a font description ("DejaVu Sans, Noto Sans" → two).
    static func requestedFamilies(of fontDesc: String) -> [String]? {
        let desc = pango_font_description_from_string(fontDesc)
        defer { pango_font_description_free(desc) }
        guard let family = pango_font_description_get_family(desc) else { return nil }
        return String(cString: family).split(separator: ",").map { String($0).trimmingWhitespace().lowercased() }
    }
}
