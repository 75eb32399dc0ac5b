import TestSupport
import Testing

@testable import WatermarkRender

/// The outline's max filter against the definition: every pixel the maximum over the disc.
@Suite struct DilateTests {
    @Test func dilateIsTheMaximumOverTheDisc() {
        var random = TestRandom(seed: 7)
        for trial in 0..<60 {
            let w = 1 + random.next(40), h = 1 + random.next(30)
            let radius = Double(random.next(70)) / 10
            let srcStride = w + random.next(5)
            var src = [UInt8](repeating: 0, count: srcStride * h)
            for i in src.indices where random.next(6) == 0 { src[i] = UInt8(random.next(256)) }
            let r = Int(radius.rounded())
            var expected = [UInt8](repeating: 0, count: w * h)
            for y in 0..<h {
                for x in 0..<w {
                    var m: UInt8 = 0
                    for dy in -r...r where y + dy >= 0 && y + dy < h {
                        let span = Int(Double(r * r - dy * dy).squareRoot().rounded(.down))
                        for dx in -span...span where x + dx >= 0 && x + dx < w {
                            m = max(m, src[(y + dy) * srcStride + x + dx])
                        }
                    }
                    expected[y * w + x] = m
                }
            }
            var inPlace = src
            inPlace.withUnsafeMutableBufferPointer { b in
                Raster.dilate(b.baseAddress!, width: w, height: h, stride: srcStride, radius: radius)
            }
            let rows = (0..<h).flatMap { y in inPlace[(y * srcStride)..<(y * srcStride + w)] }
            #expect(rows == expected, "trial \(trial): \(w)×\(h), radius \(radius)")
        }
    }
}
