// Invariant for the unsafe code in this file: `blend` writes only inside rows
// [0, validRows) and bytes [0, validBytes) of each plane of the frame it is given, both
// worked out from that frame's own width and height in `layout`; every run is clipped to
// them before anything is written, wherever the overlay is placed. `blend` refuses
// strides shorter than `validBytes` and plane indexes the layout does not have.

/// A rendered overlay pre-converted into one video format's own planes: for every
/// sample the overlay covers, a premultiplied value and an inverse alpha, so blending
/// is `dst = value + dst × inverseAlpha / 255` — no colour conversion per frame.
/// The conversion is relative to the overlay's own chroma-aligned origin, so the same
/// converted overlay can be blended at any aligned offset (moving layers) into frames
/// of any size; it is clipped per run at blend time.
public struct ConvertedOverlay: Sendable {
    public let layout: PixelLayout
    public let encoding: YUVEncoding
    /// Where the converted pixels go when blended without an offset.
    public let rect: PixelRect
    public private(set) var planes: [OverlayPlane]

    /// Pixels the overlay covers (for cost accounting).
    public var coveredBytes: Int { planes.reduce(0) { $0 + $1.rows * $1.rowBytes } }

    /// Converts the part of `overlay` inside a `frameWidth`×`frameHeight` frame.
    public init(_ overlay: RenderedOverlay, layout: PixelLayout, encoding: YUVEncoding,
                frameWidth: Int, frameHeight: Int) {
        self.init(overlay, layout: layout, encoding: encoding,
                  clip: overlay.rect.intersection(PixelRect(x: 0, y: 0, width: frameWidth, height: frameHeight)))
    }

    /// Converts all of `overlay` (for layers that move: clipped when blended).
    public init(_ overlay: RenderedOverlay, layout: PixelLayout, encoding: YUVEncoding) {
        self.init(overlay, layout: layout, encoding: encoding, clip: overlay.rect)
    }

    private init(_ overlay: RenderedOverlay, layout: PixelLayout, encoding: YUVEncoding, clip: PixelRect) {
        self.layout = layout
        self.encoding = encoding
        // Start on the chroma grid so every component's first sample is exact.
        let ax = LayerLayout.alignDown(clip.x, to: layout.alignX), ay = LayerLayout.alignDown(clip.y, to: layout.alignY)
        rect = clip.isEmpty ? clip : PixelRect(x: ax, y: ay, width: clip.maxX - ax, height: clip.maxY - ay)
        planes = []
        guard !rect.isEmpty, rect.width <= 65536, rect.height <= 65536 else { return }
        for p in 0..<layout.planeCount {
            if let plane = OverlayPlane(overlay, clip: rect, planeIndex: p, layout: layout, encoding: encoding) {
                planes.append(plane)
            }
        }
    }

    /// Blends into one plane of a `w`×`h` frame, moved by (`dx`, `dy`) pixels (rounded
    /// down to the chroma grid) from `rect`. `opacity` (0...1) scales the overlay's
    /// alpha. Returns false (and writes nothing) if the stride is too short for the frame.
    @discardableResult
    public func blend(planeIndex: Int, base: UnsafeMutablePointer<UInt8>, stride: Int,
                      frameWidth w: Int, frameHeight h: Int, opacity: Double = 1,
                      dx: Int = 0, dy: Int = 0) -> Bool {
        guard planeIndex >= 0, planeIndex < layout.planeCount, w > 0, h > 0 else { return false }
        let validBytes = layout.validBytes(plane: planeIndex, frameWidth: w)
        let validRows = layout.validRows(plane: planeIndex, frameHeight: h)
        guard stride >= validBytes else { return false }
        // Offsets beyond ±2^30 px are off any frame; clamping keeps the maths from overflowing.
        let limit = 1 << 30
        let ax = LayerLayout.alignDown(min(max(dx, -limit), limit), to: layout.alignX)
        let ay = LayerLayout.alignDown(min(max(dy, -limit), limit), to: layout.alignY)
        for plane in planes where plane.plane == planeIndex {
            plane.blend(base: base, stride: stride, opacity: opacity, dx: ax, dy: ay,
                        validRows: validRows, validBytes: validBytes)
        }
        return true
    }
}

public struct OverlayPlane: Sendable {
    public let plane: Int
    /// Frame plane row and byte column of the overlay plane's first row/byte.
    public let firstRow: Int
    public let firstByte: Int
    public let rows: Int
    public let rowBytes: Int
    let wide: Bool
    /// Subsampling and pixel stride of the plane's first component: how a pixel offset
    /// becomes a row and byte offset.
    let wSub: Int
    let hSub: Int
    let pixelStride: Int
    /// Samples per overlay row (bytes for 8-bit formats, 16-bit words for wide ones).
    let rowSamples: Int
    /// The covered samples only, packed run after run: premultiplied values and inverse
    /// alphas. Transparent stretches are not stored, so a sparse overlay (text, a logo's
    /// corners) costs memory traffic only where it draws.
    var value8: [UInt8] = []
    var value16: [UInt16] = []
    var inverseAlpha: [UInt8] = []
    /// Stretches of a row that are not fully transparent, in row order.
    var runs: [Run] = []
    /// Wide formats: largest code value and the mask of significant bits.
    let maxCode: UInt32
    let codeMask: UInt16

    init?(_ overlay: RenderedOverlay, clip: PixelRect, planeIndex: Int, layout: PixelLayout,
          encoding: YUVEncoding) {
        let comps = layout.components.enumerated().filter { $0.element.plane == planeIndex }
        guard let first = comps.first?.element else { return nil }
        plane = planeIndex
        wide = first.sampleBytes == 2
        wSub = first.wSub
        hSub = first.hSub
        pixelStride = first.pixelStride

        // The overlay origin is aligned to the chroma grid, so every component's first
        // sample is at an exact position (negative for an overlay partly left of or above
        // the frame: the shifts below are arithmetic).
        let ox = clip.x, oy = clip.y
        let row0 = oy >> first.hSub
        let rowEnd = ceilShift(oy + clip.height, first.hSub)
        let byte0 = (ox >> first.wSub) * first.pixelStride
        var byteEnd = byte0
        for (_, c) in comps {
            let lastSample = (ox + clip.width - 1) >> c.wSub
            byteEnd = max(byteEnd, c.offset + lastSample * c.pixelStride + c.sampleBytes)
        }
        guard rowEnd > row0, byteEnd > byte0 else { return nil }
        firstRow = row0
        firstByte = byte0
        rows = rowEnd - row0
        rowBytes = wide ? (byteEnd - byte0) & ~1 : byteEnd - byte0
        rowSamples = wide ? rowBytes / 2 : rowBytes
        let depth = first.depth, shift = first.shift
        maxCode = UInt32((1 << depth) - 1) << UInt32(shift)
        codeMask = UInt16(truncatingIfNeeded: maxCode)

        let count = rows * rowSamples
        var inverseAlpha = [UInt8](repeating: 255, count: count)
        var value16 = wide ? [UInt16](repeating: 0, count: count) : []
        var value8 = wide ? [] : [UInt8](repeating: 0, count: count)

        let ow = clip.width, oh = clip.height
        let srcX = clip.x - overlay.rect.x, srcY = clip.y - overlay.rect.y
        let srcW = overlay.rect.width, srcH = overlay.rect.height
        // The clipped pixels as (a, r, g, b) vectors, premultiplied, 0...255; pixels of
        // the clip outside the overlay (alignment) stay transparent.
        var pixels = [SIMD4<Float>](repeating: SIMD4<Float>(), count: ow * oh)
        let xFrom = max(0, -srcX), xTo = min(ow, srcW - srcX)
        overlay.pixels.withUnsafeBufferPointer { src in
            guard src.count >= srcW * srcH else { return }
            for y in 0..<oh where y + srcY >= 0 && y + srcY < srcH && xFrom < xTo {
                let srcRow = (y + srcY) * srcW + srcX
                for x in xFrom..<xTo {
                    let p = src[srcRow + x]
                    pixels[y * ow + x] = SIMD4<Float>(Float(p >> 24), Float((p >> 16) & 0xFF), Float((p >> 8) & 0xFF), Float(p & 0xFF))
                }
            }
        }
        for (index, c) in comps {
            let map = ComponentMap(family: layout.family, component: index, depth: c.depth, encoding: encoding)
            let coeff = SIMD4<Float>(Float(map.c0), Float(map.c1), Float(map.c2), Float(map.c3))
            let bw = 1 << c.wSub, bh = 1 << c.hSub
            let scale = 1 / Float(bw * bh)
            let s0x = ox >> c.wSub, s1x = (ox + ow - 1) >> c.wSub
            let s0y = oy >> c.hSub, s1y = (oy + oh - 1) >> c.hSub
            let codeLimit = Float(maxCode >> UInt32(shift))
            pixels.withUnsafeBufferPointer { px in
                guard let p0 = px.baseAddress else { return }
                for sy in s0y...s1y {
                    let r = sy - row0
                    if r < 0 || r >= rows { continue }
                    let y0 = max(sy * bh, oy) - oy, y1 = min((sy + 1) * bh, oy + oh) - oy
                    for sx in s0x...s1x {
                        let byte = c.offset + sx * c.pixelStride - byte0
                        if byte < 0 || byte + c.sampleBytes > rowBytes { continue }
                        // Average the premultiplied pixels the sample covers; pixels outside
                        // the overlay count as transparent.
                        let x0 = max(sx * bw, ox) - ox, x1 = min((sx + 1) * bw, ox + ow) - ox
                        var sum = SIMD4<Float>()
                        for yy in y0..<y1 {
                            let row = p0 + yy * ow
                            for xx in x0..<x1 { sum += row[xx] }
                        }
                        let mean = sum * scale
                        // floor(x + 0.5) is round-half-up for the non-negative values here.
                        let alpha = min(255, (mean[0] + 0.5).rounded(.down))
                        if alpha <= 0 { continue }
                        let value = max(0, ((coeff * mean).sum() + 0.5).rounded(.down))
                        let i = r * rowSamples + (wide ? byte / 2 : byte)
                        inverseAlpha[i] = UInt8(255 - alpha)
                        if wide {
                            value16[i] = UInt16(truncatingIfNeeded: UInt32(min(value, codeLimit)) << UInt32(shift))
                        } else {
                            value8[i] = UInt8(min(255, value))
                        }
                    }
                }
            }
        }
        // Pack the covered stretches: transparent gaps shorter than `mergeGap` stay inside
        // a run (cheaper than starting a new one); opaque stretches of at least
        // `opaqueRun` samples become runs of their own that are copied, not blended.
        let mergeGap = 8, opaqueRun = 16
        for r in 0..<rows {
            let base = r * rowSamples
            var i = 0
            while i < rowSamples {
                if inverseAlpha[base + i] == 255 { i += 1; continue }
                var end = i + 1
                var gap = 0
                var j = i + 1
                while j < rowSamples && gap <= mergeGap {
                    if inverseAlpha[base + j] == 255 { gap += 1 } else { gap = 0; end = j + 1 }
                    j += 1
                }
                // Split [i, end) into opaque stretches and the rest.
                var k = i
                var pending = i
                while k < end {
                    if inverseAlpha[base + k] == 0 {
                        var o = k
                        while o < end && inverseAlpha[base + o] == 0 { o += 1 }
                        if o - k >= opaqueRun {
                            if pending < k { append(row: r, start: pending, end: k, opaque: false) }
                            append(row: r, start: k, end: o, opaque: true)
                            pending = o
                        }
                        k = o
                    } else {
                        k += 1
                    }
                }
                if pending < end { append(row: r, start: pending, end: end, opaque: false) }
                i = end
            }
        }

        func append(row: Int, start: Int, end: Int, opaque: Bool) {
            let from = row * rowSamples + start, to = row * rowSamples + end
            runs.append(Run(row: Int32(row), start: Int32(start), count: Int32(end - start),
                            offset: Int32(self.inverseAlpha.count), opaque: opaque))
            self.inverseAlpha.append(contentsOf: inverseAlpha[from..<to])
            if wide { self.value16.append(contentsOf: value16[from..<to]) } else { self.value8.append(contentsOf: value8[from..<to]) }
        }
    }

    /// A stretch of one overlay row: `count` samples from sample `start`, stored at
    /// `offset` in the packed arrays. `opaque`: every sample has alpha 255.
    struct Run: Sendable {
        var row: Int32
        var start: Int32
        var count: Int32
        var offset: Int32
        var opaque: Bool
    }

    /// The part of `run` inside the frame when the overlay is moved by `rowShift` rows and
    /// `sampleShift` samples: its frame row, first frame sample, and the range of the
    /// run's own samples to write; nil when none of it is inside.
    @inline(__always)
    private func clipped(_ run: Run, rowShift: Int, sampleShift: Int, validRows: Int,
                         validSamples: Int) -> (row: Int, sample: Int, from: Int, to: Int)? {
        let row = firstRow + Int(run.row) + rowShift
        guard row >= 0, row < validRows else { return nil }
        let sample = (wide ? firstByte / 2 : firstByte) + Int(run.start) + sampleShift
        let from = max(0, -sample), to = min(Int(run.count), validSamples - sample)
        return from < to ? (row, sample, from, to) : nil
    }

    func blend(base: UnsafeMutablePointer<UInt8>, stride: Int, opacity: Double, dx: Int, dy: Int,
               validRows: Int, validBytes: Int) {
        let op = opacity.isFinite ? UInt32((min(max(opacity, 0), 1) * 256).rounded()) : 256
        if op == 0 { return }
        let rowShift = dy >> hSub
        let byteShift = (dx >> wSub) * pixelStride
        let sampleShift = wide ? byteShift / 2 : byteShift
        let validSamples = wide ? validBytes / 2 : validBytes
        value8.withUnsafeBufferPointer { vbuf in
        value16.withUnsafeBufferPointer { wbuf in
        inverseAlpha.withUnsafeBufferPointer { abuf in
            guard let a0 = abuf.baseAddress else { return }
            for run in runs {
                guard let c = clipped(run, rowShift: rowShift, sampleShift: sampleShift,
                                      validRows: validRows, validSamples: validSamples) else { continue }
                let rowBase = base + c.row * stride
                let ia = a0 + Int(run.offset) + c.from, n = c.to - c.from
                if wide {
                    guard let v0 = wbuf.baseAddress else { return }
                    let raw = UnsafeMutableRawPointer(rowBase) + (c.sample + c.from) * 2
                    Self.blend16(raw, v0 + Int(run.offset) + c.from, ia, n, op: op, maxCode: maxCode, mask: codeMask)
                } else {
                    guard let v0 = vbuf.baseAddress else { return }
                    let dst = rowBase + c.sample + c.from, v = v0 + Int(run.offset) + c.from
                    if op >= 256 {
                        if run.opaque { dst.update(from: v, count: n) } else { Self.blend8(dst, v, ia, n) }
                    } else {
                        Self.blend8(dst, v, ia, n, op: UInt16(op))
                    }
                }
            }
        }
        }
        }
    }

    @inline(__always)
    private static func div255(_ t: UInt16) -> UInt16 {
        // Exact round(x / 255) for x in 0...65025 (t = x + 128).
        (t &+ (t >> 8)) >> 8
    }

    @inline(__always)
    private static func blend8(_ dst: UnsafeMutablePointer<UInt8>, _ v: UnsafePointer<UInt8>,
                               _ ia: UnsafePointer<UInt8>, _ n: Int) {
        for i in 0..<n {
            let t = UInt16(dst[i]) &* UInt16(ia[i]) &+ 128
            dst[i] = UInt8(truncatingIfNeeded: min(UInt16(v[i]) &+ div255(t), 255))
        }
    }

    @inline(__always)
    private static func blend8(_ dst: UnsafeMutablePointer<UInt8>, _ v: UnsafePointer<UInt8>,
                               _ ia: UnsafePointer<UInt8>, _ n: Int, op: UInt16) {
        for i in 0..<n {
            let a = ((255 &- UInt16(ia[i])) &* op) >> 8
            let vv = (UInt16(v[i]) &* op) >> 8
            let t = UInt16(dst[i]) &* (255 &- a) &+ 128
            dst[i] = UInt8(truncatingIfNeeded: min(vv &+ div255(t), 255))
        }
    }

    @inline(__always)
    private static func blend16(_ raw: UnsafeMutableRawPointer, _ v: UnsafePointer<UInt16>,
                                _ ia: UnsafePointer<UInt8>, _ n: Int, op: UInt32, maxCode: UInt32, mask: UInt16) {
        for i in 0..<n {
            let a = ((255 &- UInt32(ia[i])) &* op) >> 8
            let vv = (UInt32(v[i]) &* op) >> 8
            let d = UInt32(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)))
            let out = min(vv &+ (d &* (255 &- a) &+ 127) / 255, maxCode)
            raw.storeBytes(of: (UInt16(truncatingIfNeeded: out) & mask).littleEndian,
                           toByteOffset: i * 2, as: UInt16.self)
        }
    }
}

/// The linear map from premultiplied (a, r, g, b) in 0...255 to one component's
/// premultiplied code value: `c0·a + c1·r + c2·g + c3·b`.
struct ComponentMap {
    var c0 = 0.0, c1 = 0.0, c2 = 0.0, c3 = 0.0

    init(family: ColorFamily, component: Int, depth: Int, encoding e: YUVEncoding) {
        let maxCode = Double((1 << depth) - 1)
        let unit = maxCode / 255
        if component == 3 {
            c0 = unit
            return
        }
        switch family {
        case .rgb:
            switch component {
            case 0: c1 = unit
            case 1: c2 = unit
            default: c3 = unit
            }
        case .yuv, .gray:
            let scale = Double(1 << (depth - 8))
            let kg = 1 - e.kr - e.kb
            let ySpan = e.fullRange ? maxCode : 219 * scale
            let cSpan = e.fullRange ? maxCode : 224 * scale
            let yOff = e.fullRange ? 0 : 16 * scale
            let mid = Double(1 << (depth - 1))
            switch component {
            case 0:
                c0 = yOff / 255
                (c1, c2, c3) = (ySpan * e.kr / 255, ySpan * kg / 255, ySpan * e.kb / 255)
            case 1:
                let k = cSpan / 255 / (2 * (1 - e.kb))
                c0 = mid / 255
                (c1, c2, c3) = (-e.kr * k, -kg * k, (1 - e.kb) * k)
            default:
                let k = cSpan / 255 / (2 * (1 - e.kr))
                c0 = mid / 255
                (c1, c2, c3) = ((1 - e.kr) * k, -kg * k, -e.kb * k)
            }
        }
    }

    @inline(__always)
    func apply(a: Double, r: Double, g: Double, b: Double) -> Double {
        c0 * a + c1 * r + c2 * g + c3 * b
    }
}
