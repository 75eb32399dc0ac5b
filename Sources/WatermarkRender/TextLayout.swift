// Invariant: the pango context and layout a TextLayout owns are released exactly once
// (release() or deinit); mask surfaces are destroyed by the caller that asked for them.

import CPangoCairo
import Glibc
import WatermarkModel

/// The process's one pango font map, used only under `lock`. Pango's default map is one per
/// thread, and each thread's map makes fonts of its own (with their shaping plans and metrics)
/// that cairo's font cache keeps after the thread is gone: a process that runs pipeline after
/// pipeline (a batch: new streaming threads each time) would grow with every file.
enum SharedFonts {
    // (An Int, not Void: a zero-sized value shares its address with the lock's own fields,
    // which ThreadSanitizer then sees read outside the lock.)
    static let lock = Locked(0)
    nonisolated(unsafe) static let fontMap = pango_cairo_font_map_new()
    /// Fonts whose glyphs were compared by the font's address (changing text drawn in
    /// bands), a reference each, kept for the process: a font and size per layer look,
    /// a few KB each. Only under `lock`.
    nonisolated(unsafe) private static var kept: Set<UInt> = []

    /// Keeps `font` alive for the process (called under `lock`).
    static func keep(_ font: UnsafeMutablePointer<PangoFont>) {
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(font)))
        if !kept.contains(key), g_object_ref(UnsafeMutableRawPointer(font)) != nil { kept.insert(key) }
    }
}

/// A pango layout sized so that one line is `linePixels` tall, with room for its outline.
/// Made, drawn and released under `SharedFonts.lock` (BlockRenderer.render holds it).
package final class TextLayout {
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
    private(set) var layout: OpaquePointer?
    let width: Int
    let height: Int
    /// Where the layout's origin goes relative to the box's top-left corner.
    let originX: Double
    let originY: Double

    /// Lines laid out as a caption asks: `alignment` 0 left … 1 right, whatever the text's
    /// direction; wrapped at `wrapPixels` (0: no wrapping); `lineSpacing` and `letterSpacing`
    /// extra pixels; `features` OpenType features (nil or empty: none).
    init?(
        text: String, fontDesc: String, linePixels: Double, outlinePx: Double, alignment: Double,
        wrapPixels: Double = 0, lineSpacing: Double = 0, letterSpacing: Double = 0, features: String? = nil
    ) {
        guard let fontMap = SharedFonts.fontMap, let context = pango_font_map_create_context(fontMap) else {
            return nil
        }
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
        let desc = pango_font_description_from_string(
            fontDesc.isEmpty ? (WatermarkProperties.fontDesc.defaultValue ?? "") : fontDesc)
        defer { pango_font_description_free(desc) }
        // Pango swaps left and right for right-to-left paragraphs; the caption's alignment
        // is meant on the frame (Arabic at a right anchor is right-aligned).
        let rtl = watermark_pango_base_dir(text) == PANGO_DIRECTION_RTL
        let left = rtl ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT, right = rtl ? PANGO_ALIGN_LEFT : PANGO_ALIGN_RIGHT
        pango_layout_set_alignment(layout, alignment < 0.25 ? left : alignment > 0.75 ? right : PANGO_ALIGN_CENTER)
        pango_layout_set_text(layout, text, -1)
        if letterSpacing != 0 || !(features ?? "").isEmpty, let attrs = pango_attr_list_new() {
            if letterSpacing != 0,
                let a = pango_attr_letter_spacing_new(Int32(clampToInt(letterSpacing * Double(PANGO_SCALE))))
            {
                pango_attr_list_insert(attrs, a)
            }
            if let features, !features.isEmpty, let a = pango_attr_font_features_new(features) {
                pango_attr_list_insert(attrs, a)
            }
            pango_layout_set_attributes(layout, attrs)
            pango_attr_list_unref(attrs)
        }

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

        // Spacing and wrapping after sizing: the size is the font's, per line.
        if lineSpacing != 0 { pango_layout_set_spacing(layout, Int32(clampToInt(lineSpacing * Double(PANGO_SCALE)))) }
        if wrapPixels >= 1 {
            pango_layout_set_width(layout, Int32(clampToInt(wrapPixels * Double(PANGO_SCALE))))
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
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
        if width <= 0 || height <= 0 {
            release()
            return nil
        }
    }

    /// The family the font description resolves to on this system (after fallback).
    static func resolvedFamily(of fontDesc: String) -> String? {
        SharedFonts.lock.withLock { _ in resolvedFamilyLocked(of: fontDesc) }
    }

    private static func resolvedFamilyLocked(of fontDesc: String) -> String? {
        guard let fontMap = SharedFonts.fontMap, let context = pango_font_map_create_context(fontMap) else {
            return nil
        }
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

    func draw(
        into cr: OpaquePointer, x: Double, y: Double, color: ARGBColor,
        outlineColor: ARGBColor, outlinePx: Double, maskWindow: PixelRect? = nil
    ) {
        guard let layout else { return }
        cairo_save(cr)
        defer { cairo_restore(cr) }
        cairo_translate(cr, x + originX, y + originY)
        // No pango_cairo_update_layout: it would copy this translation (and any rotation)
        // into the layout's context, which throws the shaped layout away and shapes it again.
        // The context was made with unhinted metrics, so the glyph positions do not depend on
        // the transformation; cairo applies it when drawing.
        let region = maskWindow ?? PixelRect(x: 0, y: 0, width: width, height: height)
        if outlinePx > 0, outlineColor.alpha > 0, !region.isEmpty,
            let mask = outlineMask(radius: outlinePx, region: region)
        {
            // The outline is the text's own coverage grown by the outline width, painted
            // under the fill: a fraction of the cost of stroking every glyph's path.
            set(cr, outlineColor)
            cairo_mask_surface(cr, mask, -originX + Double(region.x), -originY + Double(region.y))
            cairo_surface_destroy(mask)
        }
        cairo_move_to(cr, 0, 0)
        set(cr, color)
        pango_cairo_show_layout(cr, layout)
    }

    /// The layout's coverage in `region` of its box (A8, the region's size, its origin at the
    /// region's top-left) dilated by a disc of `radius` pixels: the whole box's mask there,
    /// but for the pixels within `radius` of a side of the region inside the box. nil if it
    /// cannot be made (then no outline is drawn).
    private func outlineMask(radius: Double, region: PixelRect) -> OpaquePointer? {
        let width = region.width, height = region.height
        guard let layout, width > 0, height > 0, width <= 32767, height <= 32767,
            let surface = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(width), Int32(height))
        else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            return nil
        }
        if let options = cairo_font_options_create() {
            cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
            cairo_set_font_options(cr, options)
            cairo_font_options_destroy(options)
        }
        cairo_translate(cr, originX - Double(region.x), originY - Double(region.y))
        pango_cairo_show_layout(cr, layout)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        if let data = cairo_image_surface_get_data(surface) {
            let stride = Int(cairo_image_surface_get_stride(surface))
            Raster.dilate(data, width: width, height: height, stride: stride, radius: radius)
        }
        cairo_surface_mark_dirty(surface)
        return surface
    }

    private func set(_ cr: OpaquePointer, _ c: ARGBColor) {
        cairo_set_source_rgba(
            cr, Double(c.red) / 255, Double(c.green) / 255, Double(c.blue) / 255, Double(c.alpha) / 255)
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
    /// The family drawn instead when none of the families a font description names is
    /// installed (lower-cased); nil when one is, or when it names a generic family (sans,
    /// serif, monospace…), which fontconfig resolves by design.
    package static func substituteFamily(for fontDesc: String) -> String? {
        let generic: Set<String> = [
            "sans", "sans-serif", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy",
        ]
        guard let requested = requestedFamilies(of: fontDesc), !requested.isEmpty else { return nil }
        if requested.contains(where: { generic.contains($0) }) { return nil }
        guard let resolved = resolvedFamily(of: fontDesc)?.lowercased() else { return nil }
        return requested.contains(where: { Substring(resolved).byteRange(of: $0) != nil }) ? nil : resolved
    }

    /// Lower-cased families named in a font description ("DejaVu Sans, Noto Sans" → two).
    static func requestedFamilies(of fontDesc: String) -> [String]? {
        let desc = pango_font_description_from_string(fontDesc)
        defer { pango_font_description_free(desc) }
        guard let family = pango_font_description_get_family(desc) else { return nil }
        return String(cString: family).split(separator: ",").map { String($0).trimmingWhitespace().lowercased() }
    }
}
