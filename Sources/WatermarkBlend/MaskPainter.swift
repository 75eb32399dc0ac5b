// Invariant for the unsafe code in this file: `paint` writes a plane only after checking
// that its stride holds every sample of the frame's width (`PixelLayout.validBytes`), and
// a component's runs lie inside `columns × rows` samples by construction (clipped spans,
// mapped by the component's subsampling); scratch buffers are indexed inside the work
// area they were sized for.

import WatermarkBlendKernels
import WatermarkBlendKernelsAVX2
import WatermarkModel

/// A mask made ready for one stream format and frame size: for each colour component, the
/// runs of its samples inside the regions, and how they are filled. Built when the regions,
/// the fill, the caps or the orientation change; `paint` then touches only those samples.
package final class PreparedMask: @unchecked Sendable {
    struct Component {
        let plane: Int, offset: Int, pixelStride: Int, sampleBytes: Int, shift: Int, maxCode: Int
        let wSub: Int, hSub: Int
        /// The solid fill's code (not shifted).
        let code: Int
        /// Runs in sample coordinates, sorted by row.
        let spans: [MaskSpan]
        /// Samples of the plane across and down, and the runs' bounding box.
        let columns: Int, rows: Int
        let minX: Int, maxX: Int, minY: Int, maxY: Int

        /// Whether the runs fill their bounding box (one whole run a row): a rectangle.
        var isRectangle: Bool {
            spans.count == maxY - minY + 1 && spans.allSatisfy { $0.x0 == minX && $0.x1 == maxX + 1 }
        }
    }

    package let fill: MaskFill
    package let width: Int, height: Int
    let layout: PixelLayout
    let components: [Component]
    /// Pixelate: the cell's side in pixels; blur: the Gaussian's σ in pixels.
    let cell: Int
    let sigma: Double
    /// A solid fill's coverage (0…255).
    let alpha: Int

    /// `cell` in pixels (at least 1), `sigma` in pixels. A colour's alpha is ignored unless
    /// `blendsColor` (a box's outline, not a mask, may be translucent).
    package init(
        _ spans: MaskSpans, layout: PixelLayout, encoding: YUVEncoding, fill: MaskFill, color: ARGBColor,
        cell: Int = 1, sigma: Double = 0, blendsColor: Bool = false
    ) {
        self.fill = fill
        alpha = blendsColor ? Int(color.alpha) : 255
        width = spans.width
        height = spans.height
        self.layout = layout
        self.cell = max(1, cell)
        self.sigma = sigma.isFinite ? min(max(sigma, 0), 1e4) : 0
        // Where each row's runs start in `spans.spans`.
        var firstSpan = [Int](repeating: spans.spans.count, count: spans.height + 1)
        for (i, s) in spans.spans.enumerated().reversed() { firstSpan[s.y] = i }
        for y in stride(from: spans.height - 1, through: 0, by: -1) where firstSpan[y] > firstSpan[y + 1] {
            firstSpan[y] = firstSpan[y + 1]
        }
        var made: [Component] = []
        for (index, c) in layout.components.enumerated() {
            let maxCode = (1 << c.depth) - 1
            let map = ComponentMap(family: layout.family, component: index, depth: c.depth, encoding: encoding)
            let value = map.apply(
                a: 255, r: Double(color.red), g: Double(color.green), b: Double(color.blue))
            let code = Int(min(max(value.rounded(), 0), Double(maxCode)))
            let columns = ceilShift(spans.width, c.wSub), rows = ceilShift(spans.height, c.hSub)
            var out: [MaskSpan] = []
            var row: [(Int, Int)] = []
            var box = (minX: Int.max, maxX: -1, minY: Int.max, maxY: -1)
            for sy in 0..<rows {
                row.removeAll(keepingCapacity: true)
                let y0 = sy << c.hSub, y1 = min(spans.height, (sy + 1) << c.hSub)
                for i in firstSpan[y0]..<firstSpan[y1] {
                    let s = spans.spans[i]
                    // Every sample with at least one of its pixels inside.
                    row.append((s.x0 >> c.wSub, ((s.x1 - 1) >> c.wSub) + 1))
                }
                let first = out.count
                MaskSpan.appendRow(&row, y: sy, limit: columns, to: &out)
                for s in out[first...] {
                    box = (min(box.minX, s.x0), max(box.maxX, s.x1 - 1), min(box.minY, sy), max(box.maxY, sy))
                }
            }
            made.append(
                Component(
                    plane: c.plane, offset: c.offset, pixelStride: c.pixelStride, sampleBytes: c.sampleBytes,
                    shift: c.shift, maxCode: maxCode, wSub: c.wSub, hSub: c.hSub, code: code, spans: out,
                    columns: columns, rows: rows, minX: box.minX, maxX: box.maxX, minY: box.minY, maxY: box.maxY))
        }
        components = made
    }

    /// Whether any sample is inside.
    package var isEmpty: Bool { components.allSatisfy { $0.spans.isEmpty } }

    /// Hides the regions in one plane of a frame of the mask's size. Returns false (and
    /// writes nothing) when the plane index or the stride does not fit the frame.
    @discardableResult
    package func paint(
        planeIndex: Int, base: UnsafeMutablePointer<UInt8>, stride: Int, scratch: MaskScratch
    ) -> Bool {
        guard planeIndex >= 0, planeIndex < layout.planeCount, width > 0, height > 0,
            stride >= layout.validBytes(plane: planeIndex, frameWidth: width)
        else { return false }
        for c in components where c.plane == planeIndex && !c.spans.isEmpty {
            switch fill {
            case .solid: solid(c, base, stride)
            case .pixelate: pixelate(c, base, stride, scratch)
            case .blur: blur(c, base, stride, scratch)
            }
        }
        return true
    }

    // MARK: samples

    @inline(__always)
    private func read(_ c: Component, _ base: UnsafeMutablePointer<UInt8>, _ stride: Int, _ x: Int, _ y: Int) -> Int {
        let p = base + y * stride + c.offset + x * c.pixelStride
        if c.sampleBytes == 1 { return Int(p.pointee) }
        let v = Int(UInt16(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt16.self)))
        return (v >> c.shift) & c.maxCode
    }

    @inline(__always)
    private func write(
        _ c: Component, _ base: UnsafeMutablePointer<UInt8>, _ stride: Int, _ x: Int, _ y: Int, _ v: Int
    ) {
        let p = base + y * stride + c.offset + x * c.pixelStride
        if c.sampleBytes == 1 {
            p.pointee = UInt8(truncatingIfNeeded: v)
        } else {
            UnsafeMutableRawPointer(p).storeBytes(
                of: UInt16(truncatingIfNeeded: v << c.shift).littleEndian, as: UInt16.self)
        }
    }

    private func solid(_ c: Component, _ base: UnsafeMutablePointer<UInt8>, _ stride: Int) {
        if alpha < 255 {
            let a = alpha, code = c.code * alpha
            for s in c.spans {
                for x in s.x0..<s.x1 {
                    write(c, base, stride, x, s.y, (code + read(c, base, stride, x, s.y) * (255 - a) + 127) / 255)
                }
            }
            return
        }
        if c.sampleBytes == 1 && c.pixelStride == 1 {
            let v = UInt8(truncatingIfNeeded: c.code)
            for s in c.spans {
                (base + s.y * stride + c.offset + s.x0).update(repeating: v, count: s.x1 - s.x0)
            }
            return
        }
        for s in c.spans {
            for x in s.x0..<s.x1 { write(c, base, stride, x, s.y, c.code) }
        }
    }

    /// Each cell (on the frame's grid of `cell` pixels) takes the mean of its samples inside.
    /// A run is cut where it crosses a cell's edge; each piece is summed, then filled, in one go.
    private func pixelate(_ c: Component, _ base: UnsafeMutablePointer<UInt8>, _ stride: Int, _ scratch: MaskScratch) {
        let cx0 = (c.minX << c.wSub) / cell, cx1 = (c.maxX << c.wSub) / cell
        let cy0 = (c.minY << c.hSub) / cell, cy1 = (c.maxY << c.hSub) / cell
        let across = cx1 - cx0 + 1, cells = across * (cy1 - cy0 + 1)
        let sums = scratch.buffer(0, count: 2 * cells)
        sums.update(repeating: 0, count: 2 * cells)
        let counts = sums + cells
        let bytes = c.sampleBytes == 1 && c.pixelStride == 1
        if bytes && c.isRectangle {
            pixelateRectangle(c, base, stride, scratch)
            return
        }
        let round = (1 << c.wSub) - 1
        // Each run's pieces, cell by cell (one division per run): `body(i, x, end)`.
        @inline(__always) func pieces(_ s: MaskSpan, _ body: (Int, Int, Int) -> Void) {
            let row = ((s.y << c.hSub) / cell - cy0) * across - cx0
            var cx = (s.x0 << c.wSub) / cell, x = s.x0
            while x < s.x1 {
                // The first sample of the next cell.
                let end = min(s.x1, ((cx + 1) * cell + round) >> c.wSub)
                body(row + cx, x, end)
                x = end
                cx += 1
            }
        }
        let avx2 = hasAVX2
        for s in c.spans {
            let line = base + s.y * stride + c.offset
            pieces(s) { i, x, end in
                var sum = 0
                if bytes {
                    sum =
                        avx2
                        ? WatermarkBlendKernelsAVX2.BlendKernels.sum8(line + x, end - x)
                        : WatermarkBlendKernels.BlendKernels.sum8(line + x, end - x)
                } else {
                    for p in x..<end { sum += read(c, base, stride, p, s.y) }
                }
                sums[i] += sum
                counts[i] += end - x
            }
        }
        for i in 0..<cells where counts[i] > 0 { sums[i] = (sums[i] + counts[i] / 2) / counts[i] }
        for s in c.spans {
            let line = base + s.y * stride + c.offset
            pieces(s) { i, x, end in
                if bytes {
                    (line + x).update(repeating: UInt8(truncatingIfNeeded: sums[i]), count: end - x)
                } else {
                    for p in x..<end { write(c, base, stride, p, s.y, sums[i]) }
                }
            }
        }
    }

    /// `sums` (`count` columns) set to the column sums of `rows` rows of bytes from `start`.
    private static func addRows(
        _ rows: Range<Int>, of start: UnsafeMutablePointer<UInt8>, stride: Int, count: Int,
        into sums: UnsafeMutablePointer<Int32>
    ) {
        sums.update(repeating: 0, count: count)
        let avx2 = hasAVX2
        for r in rows {
            if avx2 {
                WatermarkBlendKernelsAVX2.BlendKernels.addRow8(sums, start + r * stride, count)
            } else {
                WatermarkBlendKernels.BlendKernels.addRow8(sums, start + r * stride, count)
            }
        }
    }

    /// A rectangle of bytes, a band of cells at a time: its rows added up column by column
    /// (vectorised), each cell's mean from those sums, and the band's row of means copied
    /// into each of its rows.
    private func pixelateRectangle(
        _ c: Component, _ base: UnsafeMutablePointer<UInt8>, _ stride: Int, _ scratch: MaskScratch
    ) {
        let x0 = c.minX, w = c.maxX - c.minX + 1
        let columns = scratch.words(1, count: w)
        let pattern = scratch.bytes(0, count: w)
        var y = c.minY
        while y <= c.maxY {
            // The band: the rows of this row of cells.
            let next = (((y << c.hSub) / cell + 1) * cell + (1 << c.hSub) - 1) >> c.hSub
            let end = min(c.maxY + 1, next)
            Self.addRows(y..<end, of: base + c.offset + x0, stride: stride, count: w, into: columns)
            var x = 0
            while x < w {
                let cx = ((x0 + x) << c.wSub) / cell
                let stop = min(w, (((cx + 1) * cell + (1 << c.wSub) - 1) >> c.wSub) - x0)
                var sum = 0
                for i in x..<stop { sum += Int(columns[i]) }
                let n = (stop - x) * (end - y)
                (pattern + x).update(repeating: UInt8(truncatingIfNeeded: (sum + n / 2) / n), count: stop - x)
                x = stop
            }
            for r in y..<end { (base + r * stride + c.offset + x0).update(from: pattern, count: w) }
            y = end
        }
    }

    /// Three box passes each way (a Gaussian of σ, Kovesi's box sizes) over the runs'
    /// bounding box, its edges repeated (nothing outside it is read, as a crop and blur
    /// would do); only the samples inside change. A wide blur runs on the area averaged down
    /// by `k` (a power of two up to 16 that keeps σ/k at 2 samples or more, where nothing of the
    /// picture's detail is left to lose) and is read back bilinearly.
    private func blur(_ c: Component, _ base: UnsafeMutablePointer<UInt8>, _ stride: Int, _ scratch: MaskScratch) {
        let sx = sigma / Double(1 << c.wSub), sy = sigma / Double(1 << c.hSub)
        var shift = 0
        while shift < 4 && Double(2 << shift) * 2 <= min(sx, sy) { shift += 1 }
        let k = 1 << shift
        let bx = Self.boxes(sigma: sx / Double(k)), by = Self.boxes(sigma: sy / Double(k))
        let x0 = c.minX, x1 = c.maxX, y0 = c.minY, y1 = c.maxY
        let w = x1 - x0 + 1, h = y1 - y0 + 1
        guard w > 0, h > 0 else { return }
        let sw = (w + k - 1) / k, sh = (h + k - 1) / k
        var a = scratch.buffer(0, count: sw * sh)
        var b = scratch.buffer(1, count: sw * sh)
        let line = scratch.buffer(2, count: sw)
        let bytes = c.sampleBytes == 1 && c.pixelStride == 1
        // Averaged down (four fractional bits keep the roundings from adding up): bytes a
        // band of k rows at a time, added column by column (vectorised), then k columns.
        let columnSums = scratch.words(1, count: w)
        for j in 0..<sh {
            let r0 = y0 + j * k, r1 = min(y1 + 1, r0 + k)
            let sums = line
            if bytes {
                Self.addRows(r0..<r1, of: base + c.offset + x0, stride: stride, count: w, into: columnSums)
                for i in 0..<sw {
                    var sum = 0
                    for x in (i * k)..<min(w, i * k + k) { sum += Int(columnSums[x]) }
                    sums[i] = sum
                }
            } else {
                sums.update(repeating: 0, count: sw)
                for y in r0..<r1 {
                    for i in 0..<sw {
                        let c0 = x0 + i * k, c1 = min(x1 + 1, c0 + k)
                        for x in c0..<c1 { sums[i] += read(c, base, stride, x, y) }
                    }
                }
            }
            for i in 0..<sw {
                let n = (r1 - r0) * (min(x1 + 1, x0 + i * k + k) - (x0 + i * k))
                a[j * sw + i] = ((sums[i] << 4) + n / 2) / n
            }
        }
        for size in bx {
            for y in 0..<sh { Self.box(a + y * sw, b + y * sw, count: sw, step: 1, size: size) }
            swap(&a, &b)
        }
        for size in by {
            Self.boxDown(a, b, columns: sw, rows: sh, size: size, sums: line)
            swap(&a, &b)
        }
        // Read back: each blurred row widened once (bilinear across, held at the edges), then
        // each output row the mix of its two nearest (8 fractional bits; at k = 1, the row
        // itself).
        let wide = scratch.words(0, count: sh * w)
        for j in 0..<sh { Self.widen(a + j * sw, count: sw, into: wide + j * w, width: w, shift: shift) }
        var lastRow = -1
        var top = wide, bottom = wide, f: Int32 = 0
        for s in c.spans {
            if s.y != lastRow {
                lastRow = s.y
                let v = max(0, min(Double(sh - 1), (Double(s.y - y0) + 0.5) / Double(k) - 0.5))
                let j = min(Int(v), sh - 1)
                f = Int32(((v - Double(j)) * 256).rounded())
                top = wide + j * w - x0
                bottom = wide + min(j + 1, sh - 1) * w - x0
            }
            let p = base + s.y * stride + c.offset
            let g = 256 - f, maxCode = Int32(c.maxCode)
            if bytes {
                let n = s.x1 - s.x0
                if hasAVX2 {
                    WatermarkBlendKernelsAVX2.BlendKernels.mixRows8(
                        p + s.x0, top + s.x0, bottom + s.x0, n, f: f, maxCode: maxCode)
                } else {
                    WatermarkBlendKernels.BlendKernels.mixRows8(
                        p + s.x0, top + s.x0, bottom + s.x0, n, f: f, maxCode: maxCode)
                }
            } else {
                for x in s.x0..<s.x1 {
                    write(c, base, stride, x, s.y, Int(min(maxCode, (top[x] &* g &+ bottom[x] &* f &+ 2048) >> 12)))
                }
            }
        }
    }

    /// `count` values, one per `1 << shift` samples, read back bilinearly into `width`
    /// samples (the edges held), as they are (fractional bits kept).
    private static func widen(
        _ m: UnsafeMutablePointer<Int>, count n: Int, into out: UnsafeMutablePointer<Int32>, width: Int, shift: Int
    ) {
        if shift == 0 {
            for x in 0..<width { out[x] = Int32(truncatingIfNeeded: m[x]) }
            return
        }
        let k = 1 << shift, half = k / 2
        let first = Int32(truncatingIfNeeded: m[0]), last = Int32(truncatingIfNeeded: m[n - 1])
        for x in 0..<min(half, width) { out[x] = first }
        // Between centres i and i + 1 (samples j = 0 … k-1 at (2j + 1) / 2k of the way):
        // the value × 2k, stepped by twice the difference.
        let down = shift + 1, round = k
        var x = half
        var i = 0
        while i < n - 1 && x < width {
            let d = m[i + 1] - m[i]
            var acc = m[i] * 2 * k + d + round
            for j in 0..<min(k, width - x) {
                out[x + j] = Int32(truncatingIfNeeded: acc >> down)
                acc += 2 * d
            }
            x = min(width, x + k)
            i += 1
        }
        while x < width {
            out[x] = last
            x += 1
        }
    }

    /// A box filter of odd `size` down the columns of a `columns × rows` area, row by row
    /// (one running sum per column), the edges repeated.
    private static func boxDown(
        _ src: UnsafeMutablePointer<Int>, _ dst: UnsafeMutablePointer<Int>, columns n: Int, rows: Int, size: Int,
        sums: UnsafeMutablePointer<Int>
    ) {
        let r = size / 2
        guard r > 0 else {
            dst.update(from: src, count: n * rows)
            return
        }
        for x in 0..<n { sums[x] = src[x] * (r + 1) }
        for i in 1...r {
            let row = src + min(i, rows - 1) * n
            for x in 0..<n { sums[x] += row[x] }
        }
        let half = size / 2, divide = Divisor(size)
        for y in 0..<rows {
            let out = dst + y * n
            let add = src + min(y + r + 1, rows - 1) * n, sub = src + max(y - r, 0) * n
            for x in 0..<n {
                out[x] = divide(sums[x] + half)
                sums[x] += add[x] - sub[x]
            }
        }
    }

    /// A box filter of odd `size` along `count` values `step` apart, the edges repeated.
    @inline(__always)
    private static func box(
        _ src: UnsafeMutablePointer<Int>, _ dst: UnsafeMutablePointer<Int>, count n: Int, step: Int, size: Int
    ) {
        let r = size / 2
        if r == 0 {
            for i in 0..<n { dst[i * step] = src[i * step] }
            return
        }
        var acc = src[0] * (r + 1)
        for i in 1...r { acc += src[min(i, n - 1) * step] }
        let half = size / 2, divide = Divisor(size)
        // Near the edges the window is clamped; in between it slides freely.
        let inner = r..<max(r, n - r - 1)
        var i = 0
        while i < n {
            if i == inner.lowerBound && !inner.isEmpty {
                for j in inner {
                    dst[j * step] = divide(acc &+ half)
                    acc = acc &+ src[(j + r + 1) * step] &- src[(j - r) * step]
                }
                i = inner.upperBound
                continue
            }
            dst[i * step] = divide(acc + half)
            acc += src[min(i + r + 1, n - 1) * step] - src[max(i - r, 0) * step]
            i += 1
        }
    }

    /// Odd box sizes whose three passes approximate a Gaussian of `sigma` (Kovesi, "Fast
    /// almost-Gaussian filtering"); 1s for a σ too small to blur.
    static func boxes(sigma: Double) -> [Int] {
        guard sigma >= 0.5 else { return [1, 1, 1] }
        let n = 3.0
        let ideal = (12 * sigma * sigma / n + 1).squareRoot()
        var wl = Int(ideal.rounded(.down))
        if wl % 2 == 0 { wl -= 1 }
        wl = max(1, wl)
        let wu = wl + 2
        let wlD = Double(wl)
        let m = Int(((12 * sigma * sigma - n * wlD * wlD - 4 * n * wlD - 3 * n) / (-4 * wlD - 4)).rounded())
        return (0..<3).map { $0 < m ? wl : wu }
    }
}

/// Division by a small constant as a multiplication: exact for a divisor below 128 and a
/// dividend below 2^28 (a box's sum of samples with four fractional bits), else a division.
struct Divisor {
    let d: Int, m: Int

    init(_ d: Int) {
        self.d = d
        m = d < 128 ? ((1 << 35) + d - 1) / d : 0
    }

    @inline(__always)
    func callAsFunction(_ x: Int) -> Int {
        m != 0 && x < 1 << 28 && x >= 0 ? (x &* m) >> 35 : x / d
    }
}

/// Scratch memory a mask's pixelate and blur reuse from frame to frame (grown, never
/// shrunk), so that painting allocates nothing once the sizes are known.
package final class MaskScratch: @unchecked Sendable {
    private var buffers: [(pointer: UnsafeMutablePointer<Int>, capacity: Int)] = []

    package init() {}

    /// Buffer `index`, holding at least `count` values (their contents undefined).
    func buffer(_ index: Int, count: Int) -> UnsafeMutablePointer<Int> {
        while buffers.count <= index { buffers.append((.allocate(capacity: 1), 1)) }
        if buffers[index].capacity < count {
            buffers[index].pointer.deallocate()
            buffers[index] = (.allocate(capacity: count), count)
        }
        return buffers[index].pointer
    }

    private var words: [(pointer: UnsafeMutablePointer<Int32>, capacity: Int)] = []
    private var byteBuffers: [(pointer: UnsafeMutablePointer<UInt8>, capacity: Int)] = []

    /// Byte buffer `index`, holding at least `count` bytes (their contents undefined).
    func bytes(_ index: Int, count: Int) -> UnsafeMutablePointer<UInt8> {
        while byteBuffers.count <= index { byteBuffers.append((.allocate(capacity: 1), 1)) }
        if byteBuffers[index].capacity < count {
            byteBuffers[index].pointer.deallocate()
            byteBuffers[index] = (.allocate(capacity: count), count)
        }
        return byteBuffers[index].pointer
    }

    /// 32-bit buffer `index`, holding at least `count` values (their contents undefined).
    func words(_ index: Int, count: Int) -> UnsafeMutablePointer<Int32> {
        while words.count <= index { words.append((.allocate(capacity: 1), 1)) }
        if words[index].capacity < count {
            words[index].pointer.deallocate()
            words[index] = (.allocate(capacity: count), count)
        }
        return words[index].pointer
    }

    deinit {
        for b in buffers { b.pointer.deallocate() }
        for b in words { b.pointer.deallocate() }
        for b in byteBuffers { b.pointer.deallocate() }
    }
}
