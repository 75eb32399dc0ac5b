import Testing

@testable import WatermarkRender

/// The drop shadow, made with pointer loops and the vertical blur a row at a time, gives
/// exactly what the plain definition gives: alpha offset, two box blurs each way with the
/// same integer division, 60 % black under the content.
@Suite struct ShadowTests {
    static func reference(_ pixels: [UInt32], width: Int, height: Int, offset: Int, radius: Int) -> [UInt32] {
        let n = width * height
        var alpha = [Int](repeating: 0, count: n)
        for y in 0..<height where y - offset >= 0 {
            for x in 0..<width where x - offset >= 0 {
                alpha[y * width + x] = Int(pixels[(y - offset) * width + x - offset] >> 24)
            }
        }
        func blur(_ a: [Int], horizontal: Bool) -> [Int] {
            var out = a
            for y in 0..<height {
                for x in 0..<width {
                    var sum = 0
                    for k in -radius...radius {
                        let xx = horizontal ? x + k : x, yy = horizontal ? y : y + k
                        if xx >= 0 && xx < width && yy >= 0 && yy < height { sum += a[yy * width + xx] }
                    }
                    out[y * width + x] = sum / (2 * radius + 1)
                }
            }
            return out
        }
        for _ in 0..<2 { alpha = blur(blur(alpha, horizontal: true), horizontal: false) }
        return (0..<n).map { i in
            let sa = UInt32(alpha[i]) * 153 / 255, p = pixels[i], a = p >> 24
            return (a + sa * (255 - a) / 255) << 24 | (p & 0x00FF_FFFF)
        }
    }

    @Test(arguments: [(37, 23, 2, 2), (64, 9, 4, 4), (5, 40, 3, 1), (3, 3, 1, 1), (50, 30, 0, 3)])
    func shadowIsTheDefinition(_ size: (Int, Int, Int, Int)) {
        let (w, h, offset, radius) = size
        var seed: UInt32 = 12345
        let pixels = (0..<(w * h)).map { _ -> UInt32 in
            seed = seed &* 1_103_515_245 &+ 12345
            let a = (seed >> 16) & 0xFF
            return a < 90 ? 0 : a << 24 | (a * 0x010101 & 0xFF_FFFF)
        }
        var made = pixels
        Raster.addShadow(to: &made, width: w, height: h, offset: offset, radius: radius)
        #expect(made == Self.reference(pixels, width: w, height: h, offset: offset, radius: radius))
    }
}
