import TestSupport
import Testing
import WatermarkModel

@testable import WatermarkBlend

/// A frame in memory with guard bytes around every plane, to catch writes outside it.
struct TestFrame {
    let layout: PixelLayout
    let width: Int, height: Int
    var strides: [Int] = []
    var planes: [[UInt8]] = []
    static let guardBytes = 64
    static let guardValue: UInt8 = 0xA5

    init(layout: PixelLayout, width: Int, height: Int, fill: [UInt8]) {
        self.layout = layout
        self.width = width
        self.height = height
        for p in 0..<layout.planeCount {
            let valid = layout.validBytes(plane: p, frameWidth: width)
            let stride = (valid + 3) & ~3
            let rows = layout.validRows(plane: p, frameHeight: height)
            var data = [UInt8](repeating: Self.guardValue, count: stride * rows + 2 * Self.guardBytes)
            for r in 0..<rows {
                for b in 0..<valid {
                    // Fill each component's samples with its value; padding stays guard.
                    if let c = layout.components.firstIndex(where: {
                        $0.plane == p && b >= $0.offset && (b - $0.offset) % $0.pixelStride < $0.sampleBytes
                    }) {
                        data[Self.guardBytes + r * stride + b] = fill[c]
                    }
                }
            }
            strides.append(stride)
            planes.append(data)
        }
    }

    mutating func blend(_ o: ConvertedOverlay, opacity: Double = 1, dx: Int = 0, dy: Int = 0) {
        for p in 0..<planes.count {
            let stride = strides[p]
            planes[p].withUnsafeMutableBufferPointer { buf in
                guard let base = buf.baseAddress else { return }
                o.blend(
                    planeIndex: p, base: base + Self.guardBytes, stride: stride, frameWidth: width,
                    frameHeight: height, opacity: opacity, dx: dx, dy: dy)
            }
        }
    }

    func sample(plane p: Int, row: Int, byte: Int) -> UInt8 {
        planes[p][Self.guardBytes + row * strides[p] + byte]
    }

    /// Bytes outside the frame's valid area (guards and row padding) are untouched.
    func outsideUntouched() -> Bool {
        for p in 0..<planes.count {
            let valid = layout.validBytes(plane: p, frameWidth: width)
            let rows = layout.validRows(plane: p, frameHeight: height)
            for (i, v) in planes[p].enumerated() {
                let j = i - Self.guardBytes
                let inside = j >= 0 && j < rows * strides[p] && j % strides[p] < valid
                if !inside && v != Self.guardValue { return false }
            }
        }
        return true
    }
}

struct BlendTests {
    @Test func opaqueWhiteAtHalfOpacityOverBlackIsMidGreyInBGRA() {
        var f = TestFrame(layout: .bgra, width: 8, height: 8, fill: [0, 0, 0, 255])
        let o = ConvertedOverlay(
            .solid(.white, rect: PixelRect(x: 2, y: 2, width: 4, height: 4)),
            layout: .bgra, encoding: .bt601, frameWidth: 8, frameHeight: 8)
        f.blend(o, opacity: 0.5)
        for b in 0..<3 {
            let v = f.sample(plane: 0, row: 3, byte: 3 * 4 + b)
            #expect((127...128).contains(v))
        }
        #expect(f.sample(plane: 0, row: 3, byte: 3 * 4 + 3) == 255)
        #expect(f.sample(plane: 0, row: 1, byte: 3 * 4) == 0)
        #expect(f.sample(plane: 0, row: 3, byte: 6 * 4) == 0)
        #expect(f.outsideUntouched())
    }

    @Test func premultipliedAlphaOverGivesTextbookResult() {
        // 50 % red over blue: R = 0.5·255, B = 0.5·255.
        var f = TestFrame(layout: .bgra, width: 4, height: 4, fill: [0, 0, 255, 255])
        let red50 = ARGBColor(alpha: 128, red: 255, green: 0, blue: 0)
        let o = ConvertedOverlay(
            .solid(red50, rect: PixelRect(x: 0, y: 0, width: 4, height: 4)),
            layout: .bgra, encoding: .bt601, frameWidth: 4, frameHeight: 4)
        f.blend(o)
        #expect(abs(Int(f.sample(plane: 0, row: 0, byte: 2)) - 128) <= 1)  // R
        #expect(abs(Int(f.sample(plane: 0, row: 0, byte: 0)) - 127) <= 1)  // B
        #expect(f.sample(plane: 0, row: 0, byte: 1) == 0)
    }

    @Test(arguments: [(YUVEncoding.bt601, 81, 90, 240), (.bt709, 63, 102, 240), (.bt2020, 74, 97, 240)])
    func redInI420UsesTheMatrix(encoding: YUVEncoding, y: Int, u: Int, v: Int) {
        var f = TestFrame(layout: .i420, width: 16, height: 16, fill: [16, 128, 128])
        let o = ConvertedOverlay(
            .solid(ARGBColor(red: 255, green: 0, blue: 0), rect: PixelRect(x: 4, y: 4, width: 8, height: 8)),
            layout: .i420, encoding: encoding, frameWidth: 16, frameHeight: 16)
        f.blend(o)
        #expect(abs(Int(f.sample(plane: 0, row: 6, byte: 6)) - y) <= 1)
        #expect(abs(Int(f.sample(plane: 1, row: 3, byte: 3)) - u) <= 1)
        #expect(abs(Int(f.sample(plane: 2, row: 3, byte: 3)) - v) <= 1)
        #expect(f.sample(plane: 0, row: 2, byte: 2) == 16)
        #expect(f.sample(plane: 1, row: 1, byte: 1) == 128)
    }

    @Test func whiteIsLimitedRangeY235AndFullRangeY255() {
        for (enc, white) in [(YUVEncoding.bt709, 235), (YUVEncoding(kr: 0.2126, kb: 0.0722, fullRange: true), 255)] {
            var f = TestFrame(layout: .nv12, width: 6, height: 6, fill: [16, 128, 128])
            let o = ConvertedOverlay(
                .solid(.white, rect: PixelRect(x: 0, y: 0, width: 6, height: 6)),
                layout: .nv12, encoding: enc, frameWidth: 6, frameHeight: 6)
            f.blend(o)
            #expect(Int(f.sample(plane: 0, row: 5, byte: 5)) == white)
            #expect(Int(f.sample(plane: 1, row: 2, byte: 4)) == 128)
        }
    }

    @Test(arguments: [PixelLayout.i420, .nv12, .yuy2, .bgra])
    func oddFramesAndOverlaysPastTheEdgeStayInBounds(layout: PixelLayout) {
        for (w, h) in [(1919, 1079), (1, 1), (2, 2), (3, 5), (17, 9)] {
            var f = TestFrame(layout: layout, width: w, height: h, fill: [0, 128, 128, 255])
            // An overlay bigger than the frame, starting before it: the renderer clips to
            // the frame, but the converter clips again on its own.
            let big = RenderedOverlay.solid(.white, rect: PixelRect(x: -3, y: -3, width: w + 10, height: h + 10))
            let o = ConvertedOverlay(big, layout: layout, encoding: .bt601, frameWidth: w, frameHeight: h)
            f.blend(o)
            #expect(f.outsideUntouched(), "wrote outside a \(w)x\(h) frame")
            #expect(f.sample(plane: 0, row: h - 1, byte: 0) > 200)
        }
    }

    /// A random overlay of up to 90×40 pixels placed partly off a 64×32 frame: a third of its
    /// pixels transparent, the others of random premultiplied colour and alpha (1 in
    /// `opaqueShare` of them opaque, when given).
    static func randomOverlay(_ random: inout TestRandom, opaqueShare: Int = 0) -> RenderedOverlay {
        let w = 1 + random.next(90), h = 1 + random.next(40)
        var pixels = [UInt32](repeating: 0, count: w * h)
        for i in pixels.indices where random.next(3) != 0 {
            let a = opaqueShare > 0 && random.next(opaqueShare) == 0 ? 255 : UInt32(random.next(256))
            let r = UInt32(random.next(Int(a) + 1)), g = UInt32(random.next(Int(a) + 1))
            pixels[i] = a << 24 | r << 16 | g << 8 | UInt32(random.next(Int(a) + 1))
        }
        let rect = PixelRect(x: random.next(60) - 20, y: random.next(30) - 10, width: w, height: h)
        return RenderedOverlay(rect: rect, pixels: pixels)
    }

    /// The vector conversion gives exactly what converting one sample at a time gives, for
    /// random overlays (random alpha, partly transparent) at random places and sizes.
    @Test(arguments: [PixelLayout.i420, .nv12, .yuy2, .bgra])
    func vectorConversionMatchesTheScalarOne(layout: PixelLayout) {
        var random = TestRandom(seed: 0x9E37_79B9_7F4A_7C15)
        for _ in 0..<40 {
            let o = Self.randomOverlay(&random)
            let rect = o.rect
            let fast = ConvertedOverlay(o, layout: layout, encoding: .bt709, clip: rect)
            let slow = ConvertedOverlay(o, layout: layout, encoding: .bt709, clip: rect, vectorised: false)
            var f1 = TestFrame(layout: layout, width: 64, height: 32, fill: [40, 100, 160, 200])
            var f2 = f1
            f1.blend(fast)
            f2.blend(slow)
            #expect(f1.planes == f2.planes, "\(layout) \(rect)")
            #expect(f1.outsideUntouched())
        }
    }

    /// An overlay with its opacity folded in, blended at opacity 1, gives exactly the pixels
    /// of the overlay blended at that opacity (opaque runs included), in 8- and 16-bit layouts.
    @Test(arguments: [PixelLayout.i420, .nv12, .bgra, .p010, .i420p10])
    func foldedOpacityMatchesOpacityPerSample(layout: PixelLayout) {
        var random = TestRandom(seed: 0x51_7CC1_B727_220A)
        for _ in 0..<30 {
            // Half the covered pixels opaque, so that opaque runs (copied at opacity 1) are there too.
            let rendered = Self.randomOverlay(&random, opaqueShare: 2)
            let rect = rendered.rect
            let o = ConvertedOverlay(rendered, layout: layout, encoding: .bt709)
            let opacity = Double(random.next(101)) / 100
            var f1 = TestFrame(layout: layout, width: 64, height: 32, fill: [40, 100, 160, 200])
            var f2 = f1
            f1.blend(o, opacity: opacity)
            f2.blend(o.withOpacity(opacity))
            #expect(f1.planes == f2.planes, "\(layout.planeCount)-plane layout, \(rect), opacity \(opacity)")
        }
    }

    /// The runs cover every sample that is not fully transparent exactly once, in order,
    /// packed back to back; they start and end on covered samples; stretches of one row are
    /// at least `runGap` transparent samples apart; opaque runs hold only opaque samples and
    /// are at least `opaqueRunMinimum` long. Random rows of transparent, opaque and partly
    /// covered stretches.
    @Test func runsCoverEveryCoveredSampleOnce() {
        var random = TestRandom(seed: 0x2545_F491_4F6C_DD1D)
        func next(_ n: Int) -> Int { random.next(n) }
        var opaqueRuns = 0
        for _ in 0..<300 {
            let rows = 1 + next(4), n = 1 + next(300)
            var a = [UInt8](repeating: 255, count: rows * n)
            var i = 0
            while i < a.count {
                let length = 1 + next(next(2) == 0 ? 12 : 90), kind = next(3)
                for j in i..<min(a.count, i + length) { a[j] = kind == 0 ? 255 : kind == 1 ? 0 : UInt8(1 + next(254)) }
                i += length
            }
            let (runs, packed) = a.withUnsafeBufferPointer {
                OverlayPlane.findRuns($0.baseAddress!, rows: rows, samplesPerRow: n)
            }
            var hits = [Int](repeating: 0, count: a.count)
            // (Checked in plain code and expected once: the debug build records every #expect.)
            var offset = 0, last = (row: -1, end: 0), wellFormed = true
            for run in runs {
                let r = Int(run.row), start = Int(run.start), count = Int(run.count)
                guard count > 0, start >= 0, start + count <= n, Int(run.offset) == offset,
                    r > last.row || (r == last.row && start >= last.end)
                else {
                    wellFormed = false
                    break
                }
                offset += count
                last = (r, start + count)
                if run.opaque { opaqueRuns += 1 }
                if run.opaque
                    && (count < OverlayPlane.opaqueRunMinimum
                        || a[(r * n + start)..<(r * n + start + count)].contains { $0 != 0 })
                {
                    wellFormed = false
                }
                for k in 0..<count { hits[r * n + start + k] += 1 }
            }
            #expect(wellFormed, "runs out of bounds, overlapping, not packed back to back, or opaque runs that are not")
            #expect(packed == offset)
            #expect(
                zip(a, hits).allSatisfy { $0.0 == 255 ? $0.1 <= 1 : $0.1 == 1 },
                "a covered sample is missed or counted twice")
            // Runs of one stretch (split only around opaque runs) start and end on covered samples.
            var r = 0, exactEnds = true
            while wellFormed && r < runs.count {
                var e = r
                while e + 1 < runs.count, runs[e + 1].row == runs[e].row,
                    runs[e + 1].start == runs[e].start + runs[e].count
                { e += 1 }
                let row = Int(runs[r].row)
                if a[row * n + Int(runs[r].start)] == 255 || a[row * n + Int(runs[e].start + runs[e].count) - 1] == 255
                {
                    exactEnds = false
                }
                // The next stretch of this row starts `runGap` or more samples later.
                let next = e + 1
                if next < runs.count, runs[next].row == runs[e].row,
                    runs[next].start - (runs[e].start + runs[e].count) < OverlayPlane.runGap
                {
                    exactEnds = false
                }
                r = e + 1
            }
            #expect(exactEnds, "a stretch starts or ends on a transparent sample, or is closer than runGap to the next")
        }
        #expect(opaqueRuns > 0, "no opaque run was split off: the case is not exercised")
    }

    @Test func blendsIntoFramesOfAnotherSizeWithinBounds() {
        var f = TestFrame(layout: .i420, width: 8, height: 8, fill: [16, 128, 128])
        let o = ConvertedOverlay(
            .solid(.white, rect: PixelRect(x: 0, y: 0, width: 16, height: 16)),
            layout: .i420, encoding: .bt601, frameWidth: 16, frameHeight: 16)
        f.blend(o)
        #expect(f.outsideUntouched())
        #expect(f.sample(plane: 0, row: 7, byte: 7) == 235)
    }

    /// A moving layer: one conversion blended at many offsets, in and far out of the frame.
    @Test(arguments: [PixelLayout.i420, .nv12, .yuy2, .bgra])
    func movedOverlayLandsAtItsOffsetAndNeverOutside(layout: PixelLayout) {
        let o = ConvertedOverlay(
            .solid(.white, rect: PixelRect(x: 0, y: 0, width: 6, height: 4)),
            layout: layout, encoding: .bt601)
        for (dx, dy) in [
            (0, 0), (4, 2), (10, 6), (-4, -2), (-6, -4), (14, 8), (-1000, 5), (3, 1_000_000), (Int(Int32.max), -7),
            // Every row inside, sticking out on the left or right (a ticker's copies).
            (-3, 2), (-5, 4), (12, 2), (11, 4), (Int(Int32.max), 2), (Int(Int32.min), 4),
            (Int.max, Int.min),
        ] {
            var f = TestFrame(layout: layout, width: 15, height: 9, fill: [0, 128, 128, 255])
            f.blend(o, dx: dx, dy: dy)
            #expect(f.outsideUntouched(), "\(layout) wrote outside at offset \(dx),\(dy)")
            // The pixel at the aligned offset is white when it is inside the frame.
            let x = LayerLayout.alignDown(dx, to: layout.alignX), y = LayerLayout.alignDown(dy, to: layout.alignY)
            if x >= 0, x < 15, y >= 0, y < 9, layout.components[0].plane == 0 {
                let c = layout.components[0]
                #expect(
                    f.sample(plane: 0, row: y, byte: c.offset + x * c.pixelStride) > 200, "\(layout) at \(dx),\(dy)")
                if x >= 1 { #expect(f.sample(plane: 0, row: y, byte: c.offset + (x - 1) * c.pixelStride) < 50) }
            }
        }
    }

    /// An overlay sticking out at the left or right (a ticker's copies), at the top or bottom,
    /// or both, leaves exactly what the same blend leaves in a frame large enough to hold all
    /// of it: clipping to the frame's rows and columns changes nothing inside them.
    @Test(arguments: [PixelLayout.i420, .nv12, .yuy2, .bgra])
    func clippedEqualsTheSameBlendInALargerFrame(layout: PixelLayout) {
        var random = TestRandom(seed: 0x9E37_79B9_7F4A_7C15)
        // Text-like: short covered stretches of varied alpha and colour, transparent gaps.
        let (w, h) = (48, 6)
        var pixels = [UInt32](repeating: 0, count: w * h)
        var i = 0
        while i < pixels.count {
            let length = 1 + random.next(12)
            if random.next(3) > 0 {
                let a = UInt32(random.next(2) == 0 ? 255 : 1 + random.next(254))
                let c = UInt32(random.next(256)) * a / 255
                for j in i..<min(pixels.count, i + length) { pixels[j] = a << 24 | c << 16 | (a - c / 2) << 8 | c / 3 }
            }
            i += length + random.next(12)
        }
        let o = ConvertedOverlay(
            RenderedOverlay(rect: PixelRect(x: 0, y: 0, width: w, height: h), pixels: pixels), layout: layout,
            encoding: .bt601)
        let fill: [UInt8] = [70, 110, 150, 255]
        let (width, height, pad, padRows) = (30, 8, 60, 8)
        let offsets = [2, -4, -2, 6].flatMap { dy in [-40, -26, -10, -3, 0, 4, 10, 20, 28].map { ($0, dy) } }
        for (dx, dy) in offsets {
            var narrow = TestFrame(layout: layout, width: width, height: height, fill: fill)
            narrow.blend(o, dx: dx, dy: dy)
            var large = TestFrame(layout: layout, width: width + 2 * pad, height: height + 2 * padRows, fill: fill)
            large.blend(o, dx: dx + pad, dy: dy + padRows)
            #expect(narrow.outsideUntouched(), "\(layout) at \(dx),\(dy)")
            var same = true
            for p in 0..<layout.planeCount {
                let bytes = layout.validBytes(plane: p, frameWidth: width)
                let shift = layout.validBytes(plane: p, frameWidth: pad)
                let rowShift = layout.validRows(plane: p, frameHeight: padRows)
                for r in 0..<layout.validRows(plane: p, frameHeight: height) {
                    for b in 0..<bytes
                    where narrow.sample(plane: p, row: r, byte: b)
                        != large.sample(plane: p, row: r + rowShift, byte: b + shift)
                    {
                        same = false
                    }
                }
            }
            #expect(same, "\(layout) at \(dx),\(dy): the clipped blend differs from the unclipped one")
        }
    }

    @Test func transparentPixelsLeaveTheFrameAlone() {
        var f = TestFrame(layout: .i420, width: 8, height: 8, fill: [50, 60, 70])
        let o = ConvertedOverlay(
            .solid(.init(alpha: 0, red: 255, green: 255, blue: 255), rect: PixelRect(x: 0, y: 0, width: 8, height: 8)),
            layout: .i420, encoding: .bt601, frameWidth: 8, frameHeight: 8)
        f.blend(o)
        #expect(f.sample(plane: 0, row: 4, byte: 4) == 50)
        #expect(f.sample(plane: 2, row: 2, byte: 2) == 70)
        #expect(o.planes.allSatisfy { $0.runs.isEmpty })
    }

    @Test func chromaAveragesCoveredPixelsAtAnOddEdge() {
        // A 1-pixel-wide opaque white column at x = 3 covers half of chroma sample 1.
        var f = TestFrame(layout: .i420, width: 8, height: 2, fill: [16, 128, 128])
        let o = ConvertedOverlay(
            .solid(ARGBColor(red: 255, green: 0, blue: 0), rect: PixelRect(x: 2, y: 0, width: 2, height: 2)),
            layout: .i420, encoding: .bt601, frameWidth: 8, frameHeight: 2)
        f.blend(o)
        #expect(f.sample(plane: 2, row: 0, byte: 1) == 240)
        let half = ConvertedOverlay(
            RenderedOverlay(
                rect: PixelRect(x: 2, y: 0, width: 2, height: 2),
                pixels: [0, 0xFFFF_0000, 0, 0xFFFF_0000]),
            layout: .i420, encoding: .bt601, frameWidth: 8, frameHeight: 2)
        var g = TestFrame(layout: .i420, width: 8, height: 2, fill: [16, 128, 128])
        g.blend(half)
        #expect(abs(Int(g.sample(plane: 2, row: 0, byte: 1)) - 184) <= 1)  // (240 + 128) / 2
        #expect(g.sample(plane: 0, row: 0, byte: 2) == 16)
        #expect(abs(Int(g.sample(plane: 0, row: 0, byte: 3)) - 81) <= 1)
    }

    @Test func tenBitP010KeepsLowBitsClear() {
        let p010 = PixelLayout(
            family: .yuv,
            components: [
                ComponentLayout(plane: 0, offset: 0, pixelStride: 2, depth: 10, shift: 6),
                ComponentLayout(plane: 1, offset: 0, pixelStride: 4, wSub: 1, hSub: 1, depth: 10, shift: 6),
                ComponentLayout(plane: 1, offset: 2, pixelStride: 4, wSub: 1, hSub: 1, depth: 10, shift: 6),
            ])
        var f = TestFrame(layout: p010, width: 4, height: 4, fill: [0, 0, 0])
        let o = ConvertedOverlay(
            .solid(.white, rect: PixelRect(x: 0, y: 0, width: 4, height: 4)),
            layout: p010, encoding: .bt709, frameWidth: 4, frameHeight: 4)
        f.blend(o)
        let lo = UInt16(f.sample(plane: 0, row: 1, byte: 2)), hi = UInt16(f.sample(plane: 0, row: 1, byte: 3))
        let y = hi << 8 | lo
        #expect(y >> 6 == 940)
        #expect(y & 0x3F == 0)
    }
}
