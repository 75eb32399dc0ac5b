// Invariant for the unsafe code in this file: `blend` writes only inside rows
// [0, validRows) and bytes [0, validBytes) of each plane of the frame it is given, both
// worked out from that frame's own width and height in `layout`; every run is clipped to
// them before anything is written, wherever the overlay is placed. `blend` refuses
// strides shorter than `validBytes` and plane indexes the layout does not have.

// (CGStreamer before CShim: the GStreamer declarations CShim's header includes are
// then found through CGStreamer in every file of the module.)
import CGStreamer
import CShim

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

    /// Bytes of the planes' bounding rectangles (for cost accounting).
    public var coveredBytes: Int { planes.reduce(0) { $0 + $1.rows * $1.rowBytes } }

    /// Memory traffic of a perfect blend: for every sample the overlay actually covers,
    /// the frame's bytes read and written plus the overlay's value and alpha read.
    public var floorBytes: Int {
        planes.reduce(0) { $0 + $1.inverseAlpha.count * ($1.wide ? 2 * 2 + 2 + 1 : 2 + 1 + 1) }
    }

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

    /// `vectorised: false` converts one sample at a time (the reference the tests compare
    /// the vector path with).
    init(_ overlay: RenderedOverlay, layout: PixelLayout, encoding: YUVEncoding, clip: PixelRect, vectorised: Bool = true) {
        self.layout = layout
        self.encoding = encoding
        // Start on the chroma grid so every component's first sample is exact.
        let ax = LayerLayout.alignDown(clip.x, to: layout.alignX), ay = LayerLayout.alignDown(clip.y, to: layout.alignY)
        rect = clip.isEmpty ? clip : PixelRect(x: ax, y: ay, width: clip.maxX - ax, height: clip.maxY - ay)
        planes = []
        guard !rect.isEmpty, rect.width <= 65536, rect.height <= 65536 else { return }
        for p in 0..<layout.planeCount {
            if let plane = OverlayPlane(overlay, clip: rect, planeIndex: p, layout: layout, encoding: encoding, vectorised: vectorised) {
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
    /// Per overlay row, the byte span from its first run's start to its last run's end
    /// (empty for a row without runs): what is fetched ahead of blending.
    var rowSpans: [RowSpan] = []
    /// Wide formats: largest code value and the mask of significant bits.
    let maxCode: UInt32
    let codeMask: UInt16

    init?(_ overlay: RenderedOverlay, clip: PixelRect, planeIndex: Int, layout: PixelLayout,
          encoding: YUVEncoding, vectorised: Bool = true) {
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
        // The clipped pixels, premultiplied ARGB words; pixels of the clip outside the
        // overlay (alignment) stay transparent. A clip that is the whole overlay (the usual
        // case: a block inside the frame) reads the overlay's own pixels.
        let pixels: [UInt32]
        if srcX == 0 && srcY == 0 && srcW == ow && srcH == oh && overlay.pixels.count >= ow * oh {
            pixels = overlay.pixels
        } else {
            var copy = [UInt32](repeating: 0, count: ow * oh)
            let xFrom = max(0, -srcX), xTo = min(ow, srcW - srcX)
            overlay.pixels.withUnsafeBufferPointer { src in
                copy.withUnsafeMutableBufferPointer { dst in
                    guard src.count >= srcW * srcH, xFrom < xTo, let s0 = src.baseAddress, let d0 = dst.baseAddress else { return }
                    for y in 0..<oh where y + srcY >= 0 && y + srcY < srcH {
                        (d0 + y * ow + xFrom).update(from: s0 + (y + srcY) * srcW + srcX + xFrom, count: xTo - xFrom)
                    }
                }
            }
            pixels = copy
        }
        // Integer maths throughout: coefficients in 16.16 fixed point, sums of a block's
        // premultiplied channels, round-half-up divisions.
        for (index, c) in comps {
            let map = ComponentMap(family: layout.family, component: index, depth: c.depth, encoding: encoding)
            let k0 = Int((map.c0 * 65536).rounded()), k1 = Int((map.c1 * 65536).rounded())
            let k2 = Int((map.c2 * 65536).rounded()), k3 = Int((map.c3 * 65536).rounded())
            let bw = 1 << c.wSub, bh = 1 << c.hSub
            // n = bw·bh is a power of two, so every division is a shift.
            let n = bw * bh, logN = c.wSub + c.hSub, half = n << 15
            let s0x = ox >> c.wSub, s1x = (ox + ow - 1) >> c.wSub
            let s0y = oy >> c.hSub, s1y = (oy + oh - 1) >> c.hSub
            let codeLimit = Int(maxCode >> UInt32(shift))
            let sampleShift = UInt16(shift)
            let offset = c.offset, pixelStride = c.pixelStride, sampleBytes = c.sampleBytes
            let isWide = wide, rs = rowSamples, rb = rowBytes, r0 = row0, b0 = byte0, rowCount = rows
            pixels.withUnsafeBufferPointer { px in
            inverseAlpha.withUnsafeMutableBufferPointer { ia in
            value8.withUnsafeMutableBufferPointer { v8 in
            value16.withUnsafeMutableBufferPointer { v16 in
                guard let p0 = px.baseAddress, let a0 = ia.baseAddress else { return }
                @inline(__always) func store(_ sa: Int, _ sr: Int, _ sg: Int, _ sb: Int, row r: Int, byte: Int) {
                    let alpha = min(255, (2 * sa + n) >> (logN + 1))
                    if alpha == 0 { return }
                    let v = max(0, k0 * sa + k1 * sr + k2 * sg + k3 * sb)
                    let value = min(codeLimit, (v + half) >> (logN + 16))
                    let i = r * rs + (isWide ? byte >> 1 : byte)
                    a0[i] = UInt8(truncatingIfNeeded: 255 - alpha)
                    if isWide {
                        v16[i] = UInt16(truncatingIfNeeded: value) << sampleShift
                    } else {
                        v8[i] = UInt8(truncatingIfNeeded: value)
                    }
                }
                /// Converts sample `sx` of overlay row `r` (pixel rows y0..<y1): sums the
                /// premultiplied pixels it covers; pixels outside the overlay count as transparent.
                @inline(__always) func sample(_ sx: Int, row r: Int, y0: Int, y1: Int) {
                    let byte = offset + sx * pixelStride - b0
                    if byte < 0 || byte + sampleBytes > rb { return }
                    let x0 = max(sx * bw, ox) - ox, x1 = min((sx + 1) * bw, ox + ow) - ox
                    var sa = 0, sr = 0, sg = 0, sb = 0
                    for yy in y0..<y1 {
                        let row = p0 + yy * ow
                        for xx in x0..<x1 {
                            let p = row[xx]
                            sa &+= Int(p >> 24)
                            sr &+= Int((p >> 16) & 0xFF)
                            sg &+= Int((p >> 8) & 0xFF)
                            sb &+= Int(p & 0xFF)
                        }
                    }
                    if sa != 0 { store(sa, sr, sg, sb, row: r, byte: byte) }
                }
                for sy in s0y...s1y {
                    let r = sy - r0
                    if r < 0 || r >= rowCount { continue }
                    let y0 = max(sy * bh, oy) - oy, y1 = min((sy + 1) * bh, oy + oh) - oy
                    if vectorised && !isWide && (n == 1 || (c.wSub == 1 && c.hSub <= 1)) {
                        // Eight samples at a time in 32-bit lanes (8-bit codes cannot overflow):
                        // one pixel per sample (luma, RGB, alpha), or the sum of a 2×1 / 2×2
                        // block (4:2:2 / 4:2:0 chroma: even and odd lanes of 16 pixels).
                        // Samples whose bytes lie inside the overlay row:
                        let sFirst = max(s0x, ceilDiv(b0 - offset, pixelStride))
                        let sLast = min(s1x, floorDiv(rb - sampleBytes + b0 - offset, pixelStride))
                        let K0 = SIMD8<Int32>(repeating: Int32(k0)), K1 = SIMD8<Int32>(repeating: Int32(k1))
                        let K2 = SIMD8<Int32>(repeating: Int32(k2)), K3 = SIMD8<Int32>(repeating: Int32(k3))
                        let H = SIMD8<Int32>(repeating: Int32(half)), limit = SIMD8<Int32>(repeating: Int32(codeLimit))
                        let N = SIMD8<Int32>(repeating: Int32(n)), byteMask = SIMD8<UInt32>(repeating: 0xFF)
                        let mask16 = SIMD16<UInt32>(repeating: 0xFF)
                        let aShift = SIMD8<Int32>(repeating: Int32(logN + 1)), vShift = SIMD8<Int32>(repeating: Int32(logN + 16))
                        guard let v0 = v8.baseAddress else { return }
                        let outRow = r * rs
                        let rowA = p0 + y0 * ow, rowB = y1 - y0 > 1 ? p0 + (y0 + 1) * ow : nil
                        var sx = sFirst
                        while sx <= sLast {
                            // Local pixel columns of samples sx ..< sx + 8.
                            let lx = sx * bw - ox
                            if sx + 8 > sLast + 1 || lx < 0 || lx + 8 * bw > ow { break }
                            var sa: SIMD8<Int32>, sr: SIMD8<Int32>, sg: SIMD8<Int32>, sb: SIMD8<Int32>
                            if n == 1 {
                                let px = UnsafeRawPointer(rowA + lx).loadUnaligned(as: SIMD8<UInt32>.self)
                                if isClear(rowA + lx, count: 8) { sx += 8; continue }
                                sa = SIMD8<Int32>(truncatingIfNeeded: px &>> 24)
                                sr = SIMD8<Int32>(truncatingIfNeeded: (px &>> 16) & byteMask)
                                sg = SIMD8<Int32>(truncatingIfNeeded: (px &>> 8) & byteMask)
                                sb = SIMD8<Int32>(truncatingIfNeeded: px & byteMask)
                            } else {
                                let pa = UnsafeRawPointer(rowA + lx).loadUnaligned(as: SIMD16<UInt32>.self)
                                let pb = rowB.map { UnsafeRawPointer($0 + lx).loadUnaligned(as: SIMD16<UInt32>.self) } ?? SIMD16<UInt32>()
                                if isClear(rowA + lx, count: 16) && (rowB.map { isClear($0 + lx, count: 16) } ?? true) {
                                    sx += 8
                                    continue
                                }
                                let ca = (pa &>> 24) &+ (pb &>> 24)
                                let cr = ((pa &>> 16) & mask16) &+ ((pb &>> 16) & mask16)
                                let cg = ((pa &>> 8) & mask16) &+ ((pb &>> 8) & mask16)
                                let cb = (pa & mask16) &+ (pb & mask16)
                                sa = pairSums(ca)
                                sr = pairSums(cr)
                                sg = pairSums(cg)
                                sb = pairSums(cb)
                            }
                            // (pointwiseMin/Max and arithmetic vectorise; replace(with:where:) does not.)
                            let alpha = pointwiseMin((sa &* 2 &+ N) &>> aShift, SIMD8<Int32>(repeating: 255))
                            var v = pointwiseMax(K0 &* sa &+ K1 &* sr &+ K2 &* sg &+ K3 &* sb, SIMD8<Int32>())
                            v = pointwiseMin((v &+ H) &>> vShift, limit)
                            // A sample with alpha 0 gets the untouched markers (code 0, inverse 255):
                            // (alpha + 255) >> 8 is 0 for alpha 0, else 1.
                            v &*= (alpha &+ 255) &>> 8
                            let codes = SIMD8<UInt8>(truncatingIfNeeded: v)
                            let inverse = SIMD8<UInt8>(repeating: 255) &- SIMD8<UInt8>(truncatingIfNeeded: alpha)
                            let byte = offset + sx * pixelStride - b0
                            if pixelStride == 1 {
                                UnsafeMutableRawPointer(v0 + outRow + byte).storeBytes(of: codes, as: SIMD8<UInt8>.self)
                                UnsafeMutableRawPointer(a0 + outRow + byte).storeBytes(of: inverse, as: SIMD8<UInt8>.self)
                            } else {
                                for j in 0..<8 {
                                    v0[outRow + byte + j * pixelStride] = codes[j]
                                    a0[outRow + byte + j * pixelStride] = inverse[j]
                                }
                            }
                            sx += 8
                        }
                        // The rest (row ends, overlay edges) one sample at a time.
                        while sx <= sLast {
                            sample(sx, row: r, y0: y0, y1: y1)
                            sx += 1
                        }
                        continue
                    }
                    for sx in s0x...s1x { sample(sx, row: r, y0: y0, y1: y1) }
                }
            }
            }
            }
            }
        }
        // Pack the covered stretches (see `findRuns`).
        let samplesPerRow = rowSamples
        let (found, packedCount) = inverseAlpha.withUnsafeBufferPointer { ia in
            ia.baseAddress.map { Self.findRuns($0, rows: rows, samplesPerRow: samplesPerRow) } ?? ([], 0)
        }
        runs = found
        var spans = [RowSpan](repeating: RowSpan(start: 0, end: 0), count: rows)
        let bytesPerSample: Int32 = wide ? 2 : 1
        for run in found {
            let r = Int(run.row), start = run.start * bytesPerSample, end = (run.start + run.count) * bytesPerSample
            if spans[r].start == spans[r].end { spans[r] = RowSpan(start: start, end: end) } else { spans[r].end = end }
        }
        rowSpans = spans
        // Copy the runs' samples into the packed arrays.
        var packedAlpha = [UInt8](repeating: 0, count: packedCount)
        var packed8 = [UInt8](repeating: 0, count: wide ? 0 : packedCount)
        var packed16 = [UInt16](repeating: 0, count: wide ? packedCount : 0)
        inverseAlpha.withUnsafeBufferPointer { ia in
        value8.withUnsafeBufferPointer { v8 in
        value16.withUnsafeBufferPointer { v16 in
        packedAlpha.withUnsafeMutableBufferPointer { pa in
        packed8.withUnsafeMutableBufferPointer { p8 in
        packed16.withUnsafeMutableBufferPointer { p16 in
            for run in found {
                let from = Int(run.row) * samplesPerRow + Int(run.start), n = Int(run.count), to = Int(run.offset)
                guard let src = ia.baseAddress, let dst = pa.baseAddress else { return }
                (dst + to).update(from: src + from, count: n)
                // (An empty array's buffer may still have a base address: go by `wide`.)
                if wide {
                    if let s = v16.baseAddress, let d = p16.baseAddress { (d + to).update(from: s + from, count: n) }
                } else {
                    if let s = v8.baseAddress, let d = p8.baseAddress { (d + to).update(from: s + from, count: n) }
                }
            }
        }
        }
        }
        }
        }
        }
        self.inverseAlpha = packedAlpha
        self.value8 = packed8
        self.value16 = packed16
    }

    /// The stretches of each row that are not fully transparent (inverse alpha 255), eight
    /// samples at a time: a run goes on while the next eight samples are not all transparent,
    /// so gaps shorter than that stay inside it (blending a transparent sample leaves the
    /// frame as it was, and is cheaper than starting a new run); its ends are exact. Within a
    /// run, stretches of at least two all-opaque words (16 samples, inverse alpha 0) become
    /// runs of their own that are copied, not blended. Returns the runs and how many samples
    /// they hold.
    static func findRuns(_ a0: UnsafePointer<UInt8>, rows: Int, samplesPerRow n: Int) -> ([Run], Int) {
        var found: [Run] = []
        var packed = 0
        func add(row r: Int, _ start: Int, _ end: Int, opaque: Bool) {
            found.append(Run(row: Int32(r), start: Int32(start), count: Int32(end - start), offset: Int32(packed), opaque: opaque))
            packed += end - start
        }
        for r in 0..<rows {
            let a = a0 + r * n
            var i = 0
            while i < n {
                while i + 8 <= n, word(a + i) == UInt64.max { i += 8 }
                while i < n, a[i] == 255 { i += 1 }
                if i >= n { break }
                // [i, end): up to the last covered sample before eight transparent ones.
                var end = i + 1, j = i + 1
                while j < n {
                    if j + 8 <= n {
                        let covered = ~word(a + j)
                        if covered == 0 { break }
                        end = j + (63 - covered.leadingZeroBitCount) / 8 + 1
                        j += 8
                    } else {
                        if a[j] != 255 { end = j + 1 }
                        j += 1
                    }
                }
                // Split off opaque stretches of whole words.
                var k = i, pending = i
                while k + 16 <= end {
                    let w = word(a + k), w2 = word(a + k + 8)
                    guard w == 0, w2 == 0 else {
                        // No opaque stretch of 16 can hold a sample that is not opaque: go
                        // past the last one of these sixteen.
                        k += w2 != 0 ? 8 + lastNonZeroByte(w2) + 1 : lastNonZeroByte(w) + 1
                        continue
                    }
                    var o = k + 16
                    while o + 8 <= end, word(a + o) == 0 { o += 8 }
                    while o < end, a[o] == 0 { o += 1 }
                    if pending < k { add(row: r, pending, k, opaque: false) }
                    add(row: r, k, o, opaque: true)
                    pending = o
                    k = o
                }
                if pending < end { add(row: r, pending, end, opaque: false) }
                i = end
            }
        }
        return (found, packed)
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

    /// Bytes [start, end) of one overlay row that its runs cover, from the row's first byte.
    struct RowSpan: Sendable {
        var start: Int32
        var end: Int32
    }

    /// How many rows ahead of the one being blended the frame's cache lines are requested.
    /// A large frame arrives from memory, not from the cache (a source that copies it with
    /// glibc's memcpy leaves it there: non-temporal stores), and the hardware prefetcher
    /// does not cross into the next row, so without this every row starts with a full
    /// memory latency. blend-bench's "fresh" column measures this case.
    static let prefetchRows = 8

    /// Requests the covered cache lines of the overlay rows from `next` up to `prefetchRows`
    /// past `row` (the one about to be blended), and moves `next` past them. `origin`: the
    /// frame address of the overlay's first row and byte; rows outside [0, `rows`) or, moved
    /// by `rowShift`, outside the frame's rows are skipped.
    @inline(__always)
    private func prefetch(through row: Int, next: inout Int, origin: UnsafeRawPointer, stride: Int,
                          rowShift: Int = 0, validRows: Int = .max) {
        while next <= row + Self.prefetchRows {
            let r = next
            next += 1
            guard r < rows, r + firstRow + rowShift < validRows, r + firstRow + rowShift >= 0 else { continue }
            let span = rowSpans[r], rowStart = origin + r * stride
            var line = Int(span.start) & ~63
            while line < Int(span.end) {
                gst_watermark_prefetch(rowStart + line)
                line += 64
            }
        }
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
        // The usual case: the whole overlay plane inside the frame, nothing to clip.
        let top = firstRow + rowShift, left = firstByte + byteShift
        if !wide, top >= 0, top + rows <= validRows, left >= 0, left + rowBytes <= validBytes {
            blendInside8(base + top * stride + left, stride: stride, op: op)
            return
        }
        value8.withUnsafeBufferPointer { vbuf in
        value16.withUnsafeBufferPointer { wbuf in
        inverseAlpha.withUnsafeBufferPointer { abuf in
            guard let a0 = abuf.baseAddress else { return }
            let shiftedOrigin = UnsafeRawPointer(base) + (firstRow + rowShift) * stride + firstByte + byteShift
            var ahead = 0
            for run in runs {
                prefetch(through: Int(run.row), next: &ahead, origin: shiftedOrigin, stride: stride,
                         rowShift: rowShift, validRows: validRows)
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
                    Self.blendRun8(rowBase + c.sample + c.from, v0 + Int(run.offset) + c.from, ia, n, op: op, opaque: run.opaque)
                }
            }
        }
        }
        }
    }

    /// 8-bit blend of every run, `origin` being where the plane's first row and byte go.
    private func blendInside8(_ origin: UnsafeMutablePointer<UInt8>, stride: Int, op: UInt32) {
        value8.withUnsafeBufferPointer { vbuf in
            inverseAlpha.withUnsafeBufferPointer { abuf in
                guard let v0 = vbuf.baseAddress, let a0 = abuf.baseAddress else { return }
                var ahead = 0
                for run in runs {
                    prefetch(through: Int(run.row), next: &ahead, origin: UnsafeRawPointer(origin), stride: stride)
                    Self.blendRun8(origin + Int(run.row) * stride + Int(run.start), v0 + Int(run.offset),
                                   a0 + Int(run.offset), Int(run.count), op: op, opaque: run.opaque)
                }
            }
        }
    }

    /// One 8-bit run: copied when opaque at full opacity, else blended (scaled by `op`/256).
    @inline(__always)
    private static func blendRun8(_ dst: UnsafeMutablePointer<UInt8>, _ v: UnsafePointer<UInt8>,
                                  _ ia: UnsafePointer<UInt8>, _ n: Int, op: UInt32, opaque: Bool) {
        if op < 256 {
            blend8(dst, v, ia, n, op: UInt16(op))
        } else if opaque {
            dst.update(from: v, count: n)
        } else {
            blend8(dst, v, ia, n)
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

/// Eight bytes from `p` as one word.
@inline(__always) func word(_ p: UnsafePointer<UInt8>) -> UInt64 {
    UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
}

/// Index (0–7, in memory order) of the last byte of `x` that is not zero; `x` ≠ 0.
@inline(__always) func lastNonZeroByte(_ x: UInt64) -> Int {
    let low7 = UInt64(0x7F7F_7F7F_7F7F_7F7F)
    let nonZero = (((x & low7) &+ low7) | x) & ~low7
    return (63 - nonZero.leadingZeroBitCount) / 8
}

/// Whether any of the eight bytes of `x` is zero.
@inline(__always) func hasZeroByte(_ x: UInt64) -> Bool {
    (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
}

/// Whether `count` (a multiple of 8) pixels are all fully transparent zero words: ORs of
/// 64-bit loads (SIMD `==` compares lane by lane and does not vectorise).
@inline(__always) func isClear(_ p: UnsafePointer<UInt32>, count: Int) -> Bool {
    let raw = UnsafeRawPointer(p)
    var acc: UInt64 = 0
    for k in 0..<(count / 2) { acc |= raw.loadUnaligned(fromByteOffset: k * 8, as: UInt64.self) }
    return acc == 0
}

/// Sums of neighbouring lanes (0+1, 2+3, …): each pair read as one 64-bit lane, which
/// vectorises where evenHalf/oddHalf do not.
@inline(__always) func pairSums(_ v: SIMD16<UInt32>) -> SIMD8<Int32> {
    let wide = unsafeBitCast(v, to: SIMD8<UInt64>.self)
    return SIMD8<Int32>(truncatingIfNeeded: (wide & SIMD8<UInt64>(repeating: 0xFFFF_FFFF)) &+ (wide &>> 32))
}

/// Integer division rounding toward −∞ / +∞ (`d` > 0).
@inline(__always) func floorDiv(_ a: Int, _ d: Int) -> Int { a >= 0 ? a / d : -((-a + d - 1) / d) }
@inline(__always) func ceilDiv(_ a: Int, _ d: Int) -> Int { -floorDiv(-a, d) }

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
