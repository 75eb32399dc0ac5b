// Invariant for the unsafe code in this file: `paint` writes a plane only after checking
// that its stride holds every sample of the frame's width (`PixelLayout.validBytes`), and
// a component's runs lie inside `columns × rows` samples by construction (clipped spans,
// mapped by the component's subsampling); scratch buffers are indexed inside the work
// area they were sized for.

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
    private func pixelate(_ c: Component, _ base: UnsafeMutablePointer<UInt8>, _ stride: Int, _ scratch: MaskScratch) {
        let cx0 = (c.minX << c.wSub) / cell, cx1 = (c.maxX << c.wSub) / cell
        let cy0 = (c.minY << c.hSub) / cell, cy1 = (c.maxY << c.hSub) / cell
        let across = cx1 - cx0 + 1, cells = across * (cy1 - cy0 + 1)
        let sums = scratch.buffer(0, count: 2 * cells)
        sums.update(repeating: 0, count: 2 * cells)
        let counts = sums + cells
        for s in c.spans {
            let row = ((s.y << c.hSub) / cell - cy0) * across - cx0
            for x in s.x0..<s.x1 {
                let i = row + (x << c.wSub) / cell
                sums[i] += read(c, base, stride, x, s.y)
                counts[i] += 1
            }
        }
        for s in c.spans {
            let row = ((s.y << c.hSub) / cell - cy0) * across - cx0
            for x in s.x0..<s.x1 {
                let i = row + (x << c.wSub) / cell
                write(c, base, stride, x, s.y, (sums[i] + counts[i] / 2) / counts[i])
            }
        }
    }

    /// Three box passes each way (a Gaussian of σ, Kovesi's box sizes) over the runs'
    /// bounding box and a margin of source around it; only the samples inside change.
    private func blur(_ c: Component, _ base: UnsafeMutablePointer<UInt8>, _ stride: Int, _ scratch: MaskScratch) {
        let bx = Self.boxes(sigma: sigma / Double(1 << c.wSub))
        let by = Self.boxes(sigma: sigma / Double(1 << c.hSub))
        let mx = bx.reduce(0) { $0 + $1 / 2 }, my = by.reduce(0) { $0 + $1 / 2 }
        let x0 = max(0, c.minX - mx), x1 = min(c.columns - 1, c.maxX + mx)
        let y0 = max(0, c.minY - my), y1 = min(c.rows - 1, c.maxY + my)
        let w = x1 - x0 + 1, h = y1 - y0 + 1
        guard w > 0, h > 0 else { return }
        var a = scratch.buffer(0, count: w * h)
        var b = scratch.buffer(1, count: w * h)
        // Four fractional bits keep the six roundings from adding up.
        for y in 0..<h {
            for x in 0..<w { a[y * w + x] = read(c, base, stride, x0 + x, y0 + y) << 4 }
        }
        for size in bx {
            for y in 0..<h { Self.box(a + y * w, b + y * w, count: w, step: 1, size: size) }
            swap(&a, &b)
        }
        for size in by {
            for x in 0..<w { Self.box(a + x, b + x, count: h, step: w, size: size) }
            swap(&a, &b)
        }
        for s in c.spans {
            let row = a + (s.y - y0) * w - x0
            for x in s.x0..<s.x1 { write(c, base, stride, x, s.y, min(c.maxCode, (row[x] + 8) >> 4)) }
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
        let half = size / 2
        for i in 0..<n {
            dst[i * step] = (acc + half) / size
            acc += src[min(i + r + 1, n - 1) * step] - src[max(i - r, 0) * step]
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

    deinit {
        for b in buffers { b.pointer.deallocate() }
    }
}
