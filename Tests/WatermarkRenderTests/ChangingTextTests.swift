import Foundation
import GstTestSupport
import Testing
import WatermarkBlend
import WatermarkChangingText
import WatermarkModel
import WatermarkRender

/// A layer whose text changes every frame is drawn again only where it changed
/// (`ChangingTextRenderer`): its pixels, and the frame they are blended into, must be those
/// of drawing and converting the whole block for every text, as the element did before.
@Suite struct ChangingTextTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var texts: [String]
        var logo = true
        var sameShape = true
        var configure: @Sendable (inout OverlayStyle) -> Void = { _ in }
        var testDescription: String { name }
    }

    static func timecodes(_ n: Int, from start: Int = 0) -> [String] {
        (start..<(start + n)).map { f in
            let s = f / 30
            return "\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60)):\(two(f % 30))"
        }
    }

    static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    static let cases: [Case] = [
        Case(name: "timecode, outline, shadow", texts: timecodes(12, from: 1794)) {
            $0.shadow = true
        },
        Case(name: "counter that grows, box", texts: (95...104).map { "© ACME \($0)" }, sameShape: false) {
            $0.shadow = true
            $0.caption.background = ARGBColor(argb: 0xA000_0000)
        },
        Case(name: "right to left", texts: (10..<18).map { "الإطار \($0)" }) {
            $0.shadow = true
            $0.placement.anchor = .topLeft
        },
        Case(name: "CJK and emoji", texts: (0..<8).map { "時刻 \($0 % 3 == 0 ? "🎬" : "⏱") 12:0\($0)" }) {
            $0.shadow = true
        },
        Case(name: "two lines", texts: (0..<6).map { "Camera 2\nframe \(100 + $0 * 3)" }, logo: false) {
            $0.shadow = true
            $0.outlineWidth = 0.15
        },
        Case(name: "turned", texts: timecodes(5), sameShape: false) {
            $0.shadow = true
            $0.rotation = 12
        },
    ]

    static let layouts: [(String, PixelLayout)] = [
        ("I420", .i420), ("NV12", .nv12), ("BGRA", .bgra), ("YUY2", .yuy2), ("I420_10LE", .i420p10),
        ("P010", .p010),
    ]

    @Test(arguments: cases)
    func bandsGiveTheWholeDrawing(_ c: Case) throws {
        let logo = c.logo ? try DecodedImage.decode(path: TestEnv.root + "/assets/logo.png") : nil
        for (name, layout) in Self.layouts {
            var renderer = ChangingTextRenderer()
            let (w, h) = name == "NV12" ? (1920, 1080) : (1280, 720)
            // P010 as an HDR (PQ) stream: the bands are converted to its signal too.
            let signal = name == "P010" ? OverlaySignal(transfer: .pq, primaries: .bt2020) : OverlaySignal.sdr
            let wide = name == "P010" || name == "I420_10LE"
            for text in c.texts {
                var style = OverlayStyle()
                style.text = text
                c.configure(&style)
                let banded = renderer.render(
                    style: style, image: logo, frameWidth: w, frameHeight: h, layout: layout, encoding: .bt709,
                    signal: signal)
                let whole = BlockRenderer.render(
                    style: style, image: logo, frameWidth: w, frameHeight: h, alignX: layout.alignX,
                    alignY: layout.alignY)
                let rendered = try #require(whole.overlay)
                let got = try #require(banded.rendered)
                #expect(got.rect == rendered.rect, "\(c.name) \(name) \(text)")
                let worst = zip(got.pixels, rendered.pixels).map { a, b in Self.maxComponentDifference(a, b) }.max()
                #expect((worst ?? 255) <= 1, "\(c.name) \(name) \(text): pixels differ by \(worst ?? -1)")
                let reference = ConvertedOverlay(
                    signal.convert(rendered), layout: layout, encoding: .bt709, frameWidth: w, frameHeight: h)
                let converted = try #require(banded.converted)
                var a = TestFrame(layout: layout, width: w, height: h)
                var b = a
                a.blend(converted)
                b.blend(reference)
                let planeWorst = zip(a.planes, b.planes).map { x, y in
                    Self.same(x, y) ? 0 : Self.maxSampleDifference(x, y, wide: wide)
                }.max()
                #expect((planeWorst ?? 255) <= 1, "\(c.name) \(name) \(text): frame differs by \(planeWorst ?? -1)")
            }
            // The same extents every time: drawn whole once, then in bands.
            if c.sameShape {
                #expect(renderer.wholeRenders == 1, "\(c.name) \(name): drawn whole \(renderer.wholeRenders) times")
                #expect(renderer.drawnBands > 0, "\(c.name) \(name): no band drawn")
            }
        }
    }

    /// A time code repeats its digits: after its frames' digits have all been seen, bands
    /// come from the cache and nothing is drawn.
    @Test func timecodeBandsComeBackFromTheCache() throws {
        let logo = try DecodedImage.decode(path: TestEnv.root + "/assets/logo.png")
        var renderer = ChangingTextRenderer()
        var style = OverlayStyle()
        style.shadow = true
        let signal = OverlaySignal.sdr
        for text in Self.timecodes(60) {
            style.text = text
            _ = renderer.render(
                style: style, image: logo, frameWidth: 1920, frameHeight: 1080, layout: .nv12, encoding: .bt709,
                signal: signal)
        }
        let drawn = renderer.drawnBands, cached = renderer.cachedBands
        // Back to 00:00:00:00 (a loop): every band was drawn before.
        for text in Self.timecodes(30) {
            style.text = text
            _ = renderer.render(
                style: style, image: logo, frameWidth: 1920, frameHeight: 1080, layout: .nv12, encoding: .bt709,
                signal: signal)
        }
        #expect(renderer.wholeRenders == 1)
        #expect(renderer.drawnBands == drawn, "the second pass drew \(renderer.drawnBands - drawn) bands")
        #expect(renderer.cachedBands > cached)
    }

    static func same(_ x: [UInt8], _ y: [UInt8]) -> Bool {
        x.count == y.count
            && x.withUnsafeBytes { a in
                y.withUnsafeBytes { b in
                    guard let p = a.baseAddress, let q = b.baseAddress else { return a.count == 0 }
                    return memcmp(p, q, a.count) == 0
                }
            }
    }

    /// The largest difference between two planes' samples (16-bit words when `wide`).
    static func maxSampleDifference(_ x: [UInt8], _ y: [UInt8], wide: Bool) -> Int {
        guard wide else { return zip(x, y).map { abs(Int($0) - Int($1)) }.max() ?? 0 }
        var worst = 0
        for i in stride(from: 0, to: min(x.count, y.count) - 1, by: 2) {
            let a = Int(x[i]) | Int(x[i + 1]) << 8
            let b = Int(y[i]) | Int(y[i + 1]) << 8
            worst = max(worst, abs(a - b))
        }
        return worst
    }

    static func maxComponentDifference(_ a: UInt32, _ b: UInt32) -> Int {
        var worst = 0
        for shift: UInt32 in [0, 8, 16, 24] {
            let x = Int((a >> shift) & 0xFF), y = Int((b >> shift) & 0xFF)
            worst = max(worst, abs(x - y))
        }
        return worst
    }
}

/// A frame in memory: every byte 90 (dark grey in 8-bit YUV), or in 10-bit formats every
/// sample the code 360 (low bits or high bits, as the layout keeps them).
struct TestFrame {
    let width: Int
    let height: Int
    var planes: [[UInt8]] = []
    var strides: [Int] = []

    init(layout: PixelLayout, width: Int, height: Int) {
        self.width = width
        self.height = height
        for p in 0..<layout.planeCount {
            let stride = layout.validBytes(plane: p, frameWidth: width)
            strides.append(stride)
            var bytes = [UInt8](repeating: 90, count: stride * layout.validRows(plane: p, frameHeight: height))
            if let c = layout.components.first(where: { $0.plane == p }), c.sampleBytes == 2 {
                let word = UInt16(360) << UInt16(c.shift)
                for i in Swift.stride(from: 0, to: bytes.count - 1, by: 2) {
                    bytes[i] = UInt8(truncatingIfNeeded: word)
                    bytes[i + 1] = UInt8(truncatingIfNeeded: word >> 8)
                }
            }
            planes.append(bytes)
        }
    }

    mutating func blend(_ overlay: ConvertedOverlay) {
        for p in planes.indices {
            let stride = strides[p]
            planes[p].withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                _ = overlay.blend(planeIndex: p, base: base, stride: stride, frameWidth: width, frameHeight: height)
            }
        }
    }
}
