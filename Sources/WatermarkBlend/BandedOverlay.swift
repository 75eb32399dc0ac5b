// Invariant: `pixels` always holds `setup.visible.width × setup.visible.height` words, and
// every band lies inside `setup.visible`: band pixels are copied in row by row within both.

import WatermarkModel

/// The pixels of a block whose text changes from frame to frame (a time code, a counter),
/// kept converted in vertical bands below the rows that never change: when the text
/// changes, only the bands its changed glyphs can reach are drawn and converted again, or
/// taken from a bounded cache of bands drawn before (a time code's digits come back every
/// second). Blending the bands one after the other gives the pixels of blending the whole
/// block converted at once (they do not overlap, and each starts on the chroma grid).
///
/// A band is drawn again when the glyphs reaching it (which glyph of which font, where)
/// change. The caller draws (`update`'s `draw`), so this knows nothing of fonts.
package struct BandedOverlay: Sendable {
    /// What the bands are made for: the same setup, the same band geometry.
    package struct Setup: Equatable, Sendable {
        /// The block's visible rectangle in the frame (its origin on the chroma grid).
        package var visible: PixelRect
        package var frameWidth: Int
        package var frameHeight: Int
        package var layout: PixelLayout
        package var encoding: YUVEncoding
        package var signal: OverlaySignal
        /// The first row (frame) that a glyph can reach; rows above it are converted once.
        package var zoneTop: Int
        /// How far (pixels) content changes the pixels after it (right, below): the window
        /// drawn for a band starts this far before it.
        package var reach: Int
        /// How far content changes the pixels before it (left, above).
        package var reachBefore: Int
        package var bandWidth: Int
        /// Windows span the visible rectangle's width (only their rows are limited), for a
        /// cairo that draws glyphs differently on a surface some of them lie outside.
        package var fullWidthWindows: Bool

        /// `textTop`: the first row (frame) of the text's box; `reach`, `reachBefore`: as the
        /// properties.
        package init(
            visible: PixelRect, frameWidth: Int, frameHeight: Int, layout: PixelLayout, encoding: YUVEncoding,
            signal: OverlaySignal, textTop: Int, reach: Int, reachBefore: Int, fullWidthWindows: Bool = false
        ) {
            self.fullWidthWindows = fullWidthWindows
            self.visible = visible
            self.frameWidth = frameWidth
            self.frameHeight = frameHeight
            self.layout = layout
            self.encoding = encoding
            self.signal = signal
            self.reach = max(0, reach)
            self.reachBefore = min(max(0, reachBefore), self.reach)
            let top = LayerLayout.alignDown(textTop - self.reachBefore, to: max(1, layout.alignY))
            zoneTop = min(max(visible.y, top), visible.maxY)
            // Bands about as wide as the reach, a multiple of 8 pixels (on every chroma grid).
            bandWidth = max(16, (self.reach + 31) / 32 * 32)
        }
    }

    private struct Band: Sendable {
        var rect: PixelRect
        var keys: [PlacedGlyph]
        var converted: ConvertedOverlay
    }

    private struct CacheKey: Hashable, Sendable {
        var band: Int
        var keys: [PlacedGlyph]
    }

    private struct Entry: Sendable {
        var pixels: [UInt32]
        var converted: ConvertedOverlay
        var bytes: Int
    }

    /// What the cache may hold (pixels and converted samples, bytes) before it drops the
    /// bands drawn longest ago.
    package static let cacheLimit = 16 << 20

    package let setup: Setup
    /// The block's pixels (premultiplied ARGB, sRGB), the visible rectangle's size.
    package private(set) var pixels: [UInt32]
    /// All of it, converted: the unchanging rows and the bands.
    package private(set) var converted: ConvertedOverlay
    private var top: ConvertedOverlay?
    private var bands: [Band] = []
    private var cache: [CacheKey: Entry] = [:]
    private var order: [CacheKey] = []
    private var cachedBytes = 0
    /// Counts, for benchmarks and tests: bands drawn, bands taken from the cache, windows drawn.
    package private(set) var drawnBands = 0
    package private(set) var cachedBands = 0
    package private(set) var windows = 0

    package var rendered: RenderedOverlay { RenderedOverlay(rect: setup.visible, pixels: pixels) }

    /// The bands of a block drawn whole (`pixels`, the visible rectangle's), its glyphs `items`.
    package init?(setup: Setup, pixels: [UInt32], items: [PlacedGlyph]) {
        let v = setup.visible
        guard !v.isEmpty, pixels.count == v.width * v.height,
            v.intersection(PixelRect(x: 0, y: 0, width: setup.frameWidth, height: setup.frameHeight)) == v
        else { return nil }
        self.setup = setup
        self.pixels = pixels
        let whole = setup.signal.convert(RenderedOverlay(rect: v, pixels: pixels))
        let topRect = PixelRect(x: v.x, y: v.y, width: v.width, height: setup.zoneTop - v.y)
        top =
            topRect.isEmpty
            ? nil : ConvertedOverlay(whole, layout: setup.layout, encoding: setup.encoding, clip: topRect)
        var x = v.x
        while x < v.maxX {
            let rect = PixelRect(
                x: x, y: setup.zoneTop, width: min(setup.bandWidth, v.maxX - x), height: v.maxY - setup.zoneTop)
            if rect.isEmpty { break }
            let converted = ConvertedOverlay(whole, layout: setup.layout, encoding: setup.encoding, clip: rect)
            bands.append(Band(rect: rect, keys: [], converted: converted))
            x += setup.bandWidth
        }
        converted = ConvertedOverlay(pieces: [], rect: v, layout: setup.layout, encoding: setup.encoding)
        for i in bands.indices {
            bands[i].keys = keys(of: bands[i].rect, items)
            remember(
                band: i, keys: bands[i].keys, pixels: crop(pixels, to: bands[i].rect), converted: bands[i].converted)
        }
        compose()
    }

    /// Brings the block to the text whose glyphs are `items` (the same setup: the caller
    /// checks that the layout's shape did not change). `draw` gives the pixels of a window of
    /// the visible rectangle as the whole block's drawing has them (see `LaidOutBlock`).
    /// Returns false, changing nothing, when a window could not be drawn.
    package mutating func update(items: [PlacedGlyph], draw: (PixelRect) -> [UInt32]?) -> Bool {
        var changed: [(band: Int, keys: [PlacedGlyph])] = []
        for i in bands.indices where !reaching(bands[i].rect, items, are: bands[i].keys) {
            changed.append((i, keys(of: bands[i].rect, items)))
        }
        if changed.isEmpty { return true }
        // Bands not in the cache, drawn a run of neighbours at a time (the margins shared).
        let missing = changed.filter { cache[CacheKey(band: $0.band, keys: $0.keys)] == nil }
        var start = 0
        while start < missing.count {
            var end = start + 1
            while end < missing.count && (setup.fullWidthWindows || missing[end].band == missing[end - 1].band + 1) {
                end += 1
            }
            guard drawBands(Array(missing[start..<end]), draw: draw) else { return false }
            start = end
        }
        for (i, k) in changed {
            guard let entry = cache[CacheKey(band: i, keys: k)] else { return false }
            paste(entry.pixels, into: bands[i].rect)
            bands[i].keys = k
            bands[i].converted = entry.converted
        }
        cachedBands += changed.count - missing.count
        compose()
        return true
    }

    /// Whether the glyphs of `items` that reach `rect`'s columns are `keys` (nothing made).
    private func reaching(_ rect: PixelRect, _ items: [PlacedGlyph], are keys: [PlacedGlyph]) -> Bool {
        var k = 0
        for item in items where item.maxX > rect.x && item.minX < rect.maxX {
            if k == keys.count || keys[k] != item { return false }
            k += 1
        }
        return k == keys.count
    }

    /// The glyphs that reach `rect`'s columns, in order.
    private func keys(of rect: PixelRect, _ items: [PlacedGlyph]) -> [PlacedGlyph] {
        var out: [PlacedGlyph] = []
        for item in items where item.maxX > rect.x && item.minX < rect.maxX { out.append(item) }
        return out
    }

    /// Draws one window around the neighbouring bands `run` and caches each band's part.
    private mutating func drawBands(_ run: [(band: Int, keys: [PlacedGlyph])], draw: (PixelRect) -> [UInt32]?) -> Bool {
        guard let first = run.first, let last = run.last else { return true }
        let v = setup.visible
        let a = bands[first.band].rect, b = bands[last.band].rect
        let x0 = setup.fullWidthWindows ? v.x : max(v.x, a.x - setup.reach)
        let x1 = setup.fullWidthWindows ? v.maxX : min(v.maxX, b.maxX + setup.reachBefore)
        let y0 = max(v.y, setup.zoneTop - setup.reach)
        let window = PixelRect(x: x0, y: y0, width: x1 - x0, height: v.maxY - y0)
        guard let drawn = draw(window), drawn.count == window.width * window.height else { return false }
        windows += 1
        for (i, k) in run {
            let rect = bands[i].rect
            let part = crop(drawn, from: window, to: rect)
            let converted = ConvertedOverlay(
                setup.signal.convert(RenderedOverlay(rect: rect, pixels: part)), layout: setup.layout,
                encoding: setup.encoding, clip: rect)
            remember(band: i, keys: k, pixels: part, converted: converted)
            drawnBands += 1
        }
        return true
    }

    private mutating func remember(band: Int, keys: [PlacedGlyph], pixels: [UInt32], converted: ConvertedOverlay) {
        let key = CacheKey(band: band, keys: keys)
        if cache[key] != nil { return }
        let bytes = pixels.count * 4 + converted.coveredBytes * 2
        while cachedBytes + bytes > Self.cacheLimit, !order.isEmpty {
            let old = order.removeFirst()
            cachedBytes -= cache.removeValue(forKey: old)?.bytes ?? 0
        }
        cache[key] = Entry(pixels: pixels, converted: converted, bytes: bytes)
        order.append(key)
        cachedBytes += bytes
    }

    private mutating func compose() {
        var pieces: [ConvertedOverlay] = []
        pieces.reserveCapacity(bands.count + 1)
        if let top { pieces.append(top) }
        for band in bands { pieces.append(band.converted) }
        converted = ConvertedOverlay(
            pieces: pieces, rect: setup.visible, layout: setup.layout, encoding: setup.encoding)
    }

    /// `rect`'s pixels out of the block's.
    private func crop(_ source: [UInt32], to rect: PixelRect) -> [UInt32] {
        crop(source, from: setup.visible, to: rect)
    }

    /// `rect`'s pixels out of `source`, the pixels of `from` (which holds `rect`).
    private func crop(_ source: [UInt32], from: PixelRect, to rect: PixelRect) -> [UInt32] {
        guard from.intersection(rect) == rect, source.count == from.width * from.height, !rect.isEmpty else {
            return [UInt32](repeating: 0, count: max(0, rect.width) * max(0, rect.height))
        }
        var out = [UInt32](repeating: 0, count: rect.width * rect.height)
        source.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s0 = src.baseAddress, let d0 = dst.baseAddress else { return }
                for y in 0..<rect.height {
                    (d0 + y * rect.width).update(
                        from: s0 + (rect.y - from.y + y) * from.width + (rect.x - from.x), count: rect.width)
                }
            }
        }
        return out
    }

    /// Copies a band's pixels into the block's.
    private mutating func paste(_ part: [UInt32], into rect: PixelRect) {
        let v = setup.visible
        guard v.intersection(rect) == rect, part.count == rect.width * rect.height else { return }
        part.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                guard let s0 = src.baseAddress, let d0 = dst.baseAddress else { return }
                for y in 0..<rect.height {
                    (d0 + (rect.y - v.y + y) * v.width + (rect.x - v.x)).update(
                        from: s0 + y * rect.width, count: rect.width)
                }
            }
        }
    }
}
