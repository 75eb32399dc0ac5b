import Testing
import WatermarkModel

@testable import WatermarkBlend

/// Privacy masks on a frame's planes, every component of I420, NV12, BGRA and P010: solid,
/// pixelated and blurred regions, the chroma rule, and nothing touched outside.
@Suite struct MaskPainterTests {
    /// A frame with padded rows (the padding must stay as it is) and a pattern in every sample.
    struct Planes {
        let layout: PixelLayout
        let width: Int, height: Int
        var strides: [Int] = []
        var data: [[UInt8]] = []

        init(_ layout: PixelLayout, _ width: Int, _ height: Int, sample: (Int, Int, Int) -> Int) {
            self.layout = layout
            self.width = width
            self.height = height
            for p in 0..<layout.planeCount {
                let stride = layout.validBytes(plane: p, frameWidth: width) + 5
                strides.append(stride)
                data.append([UInt8](repeating: 0x5A, count: stride * layout.validRows(plane: p, frameHeight: height)))
            }
            for (i, c) in layout.components.enumerated() {
                for y in 0..<ceilShift(height, c.hSub) {
                    for x in 0..<ceilShift(width, c.wSub) { set(i, x, y, sample(i, x, y) & ((1 << c.depth) - 1)) }
                }
            }
        }

        func get(_ i: Int, _ x: Int, _ y: Int) -> Int {
            let c = layout.components[i]
            let at = y * strides[c.plane] + c.offset + x * c.pixelStride
            if c.sampleBytes == 1 { return Int(data[c.plane][at]) }
            return (Int(data[c.plane][at]) | Int(data[c.plane][at + 1]) << 8) >> c.shift
        }

        mutating func set(_ i: Int, _ x: Int, _ y: Int, _ v: Int) {
            let c = layout.components[i]
            let at = y * strides[c.plane] + c.offset + x * c.pixelStride
            if c.sampleBytes == 1 {
                data[c.plane][at] = UInt8(v)
            } else {
                let s = v << c.shift
                data[c.plane][at] = UInt8(s & 0xFF)
                data[c.plane][at + 1] = UInt8(s >> 8 & 0xFF)
            }
        }

        mutating func paint(_ mask: PreparedMask) {
            let scratch = MaskScratch()
            for p in data.indices {
                let ok = data[p].withUnsafeMutableBufferPointer {
                    mask.paint(planeIndex: p, base: $0.baseAddress!, stride: strides[p], scratch: scratch)
                }
                #expect(ok)
            }
        }

        /// Whether sample (x, y) of component i has one of its pixels inside.
        func touches(_ spans: MaskSpans, _ i: Int, _ x: Int, _ y: Int) -> Bool {
            let c = layout.components[i]
            for py in (y << c.hSub)..<min(height, (y + 1) << c.hSub) {
                for px in (x << c.wSub)..<min(width, (x + 1) << c.wSub) where spans.contains(x: px, y: py) {
                    return true
                }
            }
            return false
        }
    }

    static let formats: [(String, PixelLayout)] = [
        ("I420", .i420), ("NV12", .nv12), ("BGRA", .bgra), ("P010", .p010),
    ]
    static let regions: [MaskRegion] = [
        .rectangle(x: 0.1, y: 0.15, width: 0.33, height: 0.4),
        .polygon([MaskPoint(0.5, 0.5), MaskPoint(0.93, 0.61), MaskPoint(0.71, 1.2)]),
    ]

    static func noise(_ i: Int, _ x: Int, _ y: Int) -> Int { (x &* 2_654_435_761 ^ y &* 40503 ^ i &* 977) >> 3 & 0x3FF }

    /// The fill's code per component: pure red in BT.709 limited range, or in RGB.
    static func red(_ layout: PixelLayout, _ i: Int) -> Int {
        let depth = layout.components[i].depth
        let scale = Double(1 << (depth - 8))
        if layout.family == .rgb { return i == 0 || i == 3 ? (1 << depth) - 1 : 0 }
        let (kr, kb) = (0.2126, 0.0722)
        let v: Double =
            switch i {
            case 0: (16 + 219 * kr) * scale
            case 1: (128 + 224 * (-kr / (2 * (1 - kb)))) * scale
            default: (128 + 224 * 0.5) * scale
            }
        return Int(v.rounded())
    }

    @Test(arguments: formats) func solidHidesEverySampleTouchingARegionAndNothingElse(
        _ name: String, _ layout: PixelLayout
    ) {
        for (w, h) in [(64, 48), (37, 23)] {
            let spans = MaskSpans(Self.regions, width: w, height: h)
            let before = Planes(layout, w, h, sample: Self.noise)
            var after = before
            after.paint(
                PreparedMask(
                    spans, layout: layout, encoding: .bt709, fill: .solid,
                    color: ARGBColor(red: 255, green: 0, blue: 0),
                    cell: 4, sigma: 2))
            var hidden = 0
            for (i, c) in layout.components.enumerated() {
                for y in 0..<ceilShift(h, c.hSub) {
                    for x in 0..<ceilShift(w, c.wSub) {
                        if before.touches(spans, i, x, y) {
                            #expect(
                                after.get(i, x, y) == Self.red(layout, i),
                                "\(name) \(w)×\(h) component \(i) at \(x),\(y)")
                            hidden += 1
                        } else {
                            #expect(after.get(i, x, y) == before.get(i, x, y), "\(name) component \(i) at \(x),\(y)")
                        }
                    }
                }
            }
            #expect(hidden > 100)
            // Outside every sample (row padding, other bits) nothing changed either: the
            // planes differ only where a sample was hidden.
            var copy = before
            for (i, c) in layout.components.enumerated() {
                for y in 0..<ceilShift(h, c.hSub) {
                    for x in 0..<ceilShift(w, c.wSub) where before.touches(spans, i, x, y) {
                        copy.set(i, x, y, Self.red(layout, i))
                    }
                }
            }
            #expect(copy.data == after.data, "\(name) \(w)×\(h)")
        }
    }

    /// Each cell shows the mean of the source samples it covers inside the region.
    @Test(arguments: formats) func pixelatedCellsAreTheMeanOfTheirInside(_ name: String, _ layout: PixelLayout) {
        // The regions, and one rectangle off the cell grid (painted a band of cells at a time).
        pixelate(name, layout, Self.regions)
        pixelate(name, layout, [.rectangle(x: 0.1, y: 0.15, width: 0.55, height: 0.6)])
    }

    func pixelate(_ name: String, _ layout: PixelLayout, _ regions: [MaskRegion]) {
        let (w, h, cell) = (64, 48, 6)
        let spans = MaskSpans(regions, width: w, height: h)
        let before = Planes(layout, w, h, sample: Self.noise)
        var after = before
        after.paint(
            PreparedMask(spans, layout: layout, encoding: .bt709, fill: .pixelate, color: .black, cell: cell, sigma: 0))
        for (i, c) in layout.components.enumerated() {
            var cells: [Int: (sum: Int, count: Int, values: Set<Int>)] = [:]
            for y in 0..<ceilShift(h, c.hSub) {
                for x in 0..<ceilShift(w, c.wSub) {
                    guard before.touches(spans, i, x, y) else {
                        #expect(after.get(i, x, y) == before.get(i, x, y))
                        continue
                    }
                    let key = ((y << c.hSub) / cell) * 1000 + (x << c.wSub) / cell
                    var e = cells[key] ?? (0, 0, [])
                    e.sum += before.get(i, x, y)
                    e.count += 1
                    e.values.insert(after.get(i, x, y))
                    cells[key] = e
                }
            }
            #expect(cells.count > 20)
            for (key, e) in cells {
                #expect(e.values.count == 1, "\(name) component \(i): cell \(key) is not uniform")
                let mean = Double(e.sum) / Double(e.count)
                #expect(abs(Double(e.values.first ?? -1) - mean) <= 0.5, "\(name) component \(i): cell \(key)")
            }
        }
    }

    /// A blur takes away the fine detail inside the region and keeps its mean, at full
    /// resolution (σ 3) and averaged down (σ 24: every 8 samples of luma become one).
    @Test(arguments: formats) func blurRemovesFineDetailAndKeepsTheMean(_ name: String, _ layout: PixelLayout) {
        for sigma in [3.0, 24.0] { blur(name, layout, sigma: sigma) }
    }

    func blur(_ name: String, _ layout: PixelLayout, sigma: Double) {
        let (w, h) = sigma > 10 ? (200, 130) : (96, 64)
        let region = [MaskRegion.rectangle(x: 0.25, y: 0.25, width: 0.5, height: 0.5)]
        let spans = MaskSpans(region, width: w, height: h)
        // A one-sample checkerboard of 40 and 200 (scaled to the depth) everywhere.
        let before = Planes(layout, w, h) { i, x, y in
            ((x + y) % 2 == 0 ? 40 : 200) << (layout.components[i].depth - 8)
        }
        var after = before
        after.paint(
            PreparedMask(spans, layout: layout, encoding: .bt709, fill: .blur, color: .black, cell: 1, sigma: sigma))
        for (i, c) in layout.components.enumerated() {
            // Outside the region nothing changes.
            for y in 0..<ceilShift(h, c.hSub) {
                for x in 0..<ceilShift(w, c.wSub) where !before.touches(spans, i, x, y) {
                    #expect(after.get(i, x, y) == before.get(i, x, y), "\(name) σ \(sigma) component \(i) at \(x),\(y)")
                }
            }
            func energy(_ f: Planes) -> (hf: Double, mean: Double) {
                var hf = 0.0, sum = 0.0, n = 0.0
                for y in 0..<ceilShift(h, c.hSub) - 1 {
                    for x in 0..<ceilShift(w, c.wSub) - 1
                    where spans.contains(x: x << c.wSub, y: y << c.hSub)
                        && spans.contains(x: (x + 1) << c.wSub, y: (y + 1) << c.hSub)
                    {
                        let v = Double(f.get(i, x, y))
                        hf += pow2(v - Double(f.get(i, x + 1, y))) + pow2(v - Double(f.get(i, x, y + 1)))
                        sum += v
                        n += 1
                    }
                }
                return (hf, sum / n)
            }
            let (e0, m0) = energy(before), (e1, m1) = energy(after)
            #expect(e1 <= 0.1 * e0, "\(name) σ \(sigma) component \(i): \(e1) of \(e0)")
            #expect(
                abs(m1 - m0) <= Double(1 << (c.depth - 8)), "\(name) σ \(sigma) component \(i): mean \(m0) → \(m1)")
        }
    }

    /// A stride too short for the frame: nothing is written.
    @Test func shortStrideWritesNothing() {
        let spans = MaskSpans(Self.regions, width: 64, height: 48)
        let mask = PreparedMask(
            spans, layout: .i420, encoding: .bt709, fill: .solid, color: .black, cell: 4, sigma: 2)
        var plane = [UInt8](repeating: 7, count: 63 * 48)
        let ok = plane.withUnsafeMutableBufferPointer {
            mask.paint(planeIndex: 0, base: $0.baseAddress!, stride: 63, scratch: MaskScratch())
        }
        #expect(!ok && plane.allSatisfy { $0 == 7 })
        #expect(PreparedMask.boxes(sigma: 3).allSatisfy { $0 % 2 == 1 })
    }
}

private func pow2(_ v: Double) -> Double { v * v }
