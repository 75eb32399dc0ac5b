import Testing
import WatermarkModel

@testable import WatermarkBlend

/// The forensic mark on real planes and back: marked, scaled and cropped in the test (no
/// encoder here: CLITests attack real files with ffmpeg), then detected.
@Suite struct ForensicMarkTests {
    static let key = ForensicPattern(digest: Array("a key for tests".utf8))
    static let id: UInt64 = 0x0123_4567_89AB_CDEF

    /// A textured picture that moves by `frame` pixels: smooth noise, a gradient and edges.
    static func picture(_ width: Int, _ height: Int, frame: Int) -> [UInt8] {
        var rng = KeyedGenerator(digest: [7])
        let grid = 24
        let lattice = (0..<(grid * grid)).map { _ in Double(rng.next() % 160) }
        func noise(_ x: Double, _ y: Double) -> Double {
            let fx = x / 40, fy = y / 40
            let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
            let tx = fx - Double(x0), ty = fy - Double(y0)
            func at(_ i: Int, _ j: Int) -> Double {
                lattice[((j % grid + grid) % grid) * grid + (i % grid + grid) % grid]
            }
            let top = at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx
            let bottom = at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx
            return top * (1 - ty) + bottom * ty
        }
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x + 3 * frame), v = Double(y + frame)
                let edge = (Int(u) / 97 + Int(v) / 61) % 2 == 0 ? 30.0 : 0
                out[y * width + x] = UInt8(min(max(noise(u, v) + edge + Double(y) * 40 / Double(height), 0), 255))
            }
        }
        return out
    }

    static func mark(_ luma: inout [UInt8], _ width: Int, _ height: Int, strength: Double = 1) {
        let tile = ForensicTile(chips: key.chips(for: id), cell: ForensicTile.cell(forHeight: height))
        let painter = ForensicPainter(tile: tile, layout: .i420, width: width, height: height, strength: strength)
        luma.withUnsafeMutableBytes { raw in
            painter.paint { p in p == 0 ? (raw.baseAddress!, width) : nil }
        }
    }

    /// Bilinear resampling of `src` (w × h) onto `ow` × `oh`, from the window at (x0, y0) of cw × ch.
    static func resample(
        _ src: [UInt8], _ w: Int, _ h: Int, window: (x0: Double, y0: Double, cw: Double, ch: Double), to ow: Int,
        _ oh: Int
    ) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: ow * oh)
        for y in 0..<oh {
            let sy = min(max(window.y0 + (Double(y) + 0.5) * window.ch / Double(oh) - 0.5, 0), Double(h - 1))
            let y0 = min(Int(sy), h - 2), ty = sy - Double(y0)
            for x in 0..<ow {
                let sx = min(max(window.x0 + (Double(x) + 0.5) * window.cw / Double(ow) - 0.5, 0), Double(w - 1))
                let x0 = min(Int(sx), w - 2), tx = sx - Double(x0)
                let a = Double(src[y0 * w + x0]) * (1 - tx) + Double(src[y0 * w + x0 + 1]) * tx
                let b = Double(src[(y0 + 1) * w + x0]) * (1 - tx) + Double(src[(y0 + 1) * w + x0 + 1]) * tx
                out[y * ow + x] = UInt8((a * (1 - ty) + b * ty).rounded())
            }
        }
        return out
    }

    static func detect(
        frames: Int, _ w: Int, _ h: Int, key: ForensicPattern = key, marked: Bool = true,
        attack: ([UInt8]) -> (pixels: [UInt8], w: Int, h: Int)
    ) -> ForensicVerdict {
        var detector: ForensicDetector?
        for f in 0..<frames {
            var luma = picture(w, h, frame: f)
            if marked { mark(&luma, w, h) }
            let (pixels, ow, oh) = attack(luma)
            if detector == nil { detector = ForensicDetector(pattern: key, width: ow, height: oh) }
            pixels.withUnsafeBufferPointer { detector?.add(luma: $0.baseAddress!, stride: ow) }
        }
        return detector!.detect()
    }

    @Test func codeRoundTripsAndRefusesABitError() {
        let bits = ForensicCode.bits(of: Self.id).map { $0 > 0 }
        #expect(ForensicCode.id(from: bits) == Self.id)
        var flipped = bits
        flipped[70].toggle()
        #expect(ForensicCode.id(from: flipped) == nil)
        #expect(ForensicCode.parseID("0x0123456789ABCDEF") == Self.id)
        #expect(ForensicCode.parseID("0123456789abcdef") == Self.id)
        #expect(ForensicCode.parseID("0123456789abcde") == nil)
        #expect(ForensicCode.parseID("0123456789abcdeg") == nil)
        #expect(ForensicCode.hex(0xAB) == "00000000000000ab")
        // zlib's CRC-32 of the 8 bytes 01 23 45 67 89 ab cd ef.
        #expect(ForensicCode.crc32(Self.id) == 0x28C7_D1AE)
    }

    @Test func markedPlaneStaysCloseToTheSource() {
        let (w, h) = (640, 360)
        let source = Self.picture(w, h, frame: 0)
        var marked = source
        Self.mark(&marked, w, h)
        var squared = 0.0, changed = 0
        for i in source.indices {
            let d = Double(marked[i]) - Double(source[i])
            squared += d * d
            if d != 0 { changed += 1 }
        }
        // PSNR above 42 dB: a mean squared error below 255² / 10^4.2.
        let mse = squared / Double(source.count)
        #expect(mse < 4.1, "mean squared error \(mse)")
        #expect(changed > source.count / 3)
    }

    /// A perfectly flat picture (where a pattern would show) moves by at most one level; one
    /// with a level of noise carries the full peaks (1.8 levels and more).
    @Test func flatAreasGetTheFaintestMark() {
        let (w, h) = (640, 360)
        var flat = [UInt8](repeating: 128, count: w * h)
        Self.mark(&flat, w, h)
        let flatChange = flat.map { abs(Int($0) - 128) }
        #expect(flatChange.max() == 1)
        #expect(flatChange.filter { $0 != 0 }.count > flat.count / 10)
        var rng = KeyedGenerator(digest: [3])
        let noisy = (0..<(w * h)).map { _ in UInt8(127 + Int(rng.next() % 3)) }
        var marked = noisy
        Self.mark(&marked, w, h)
        let noisyChange = zip(marked, noisy).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect((2...3).contains(noisyChange))
    }

    @Test func survivesScalingAndCropping() {
        let (w, h) = (640, 360)
        let plain = Self.detect(frames: 6, w, h) { ($0, w, h) }
        #expect(plain.id == Self.id, "score \(plain.score)")
        let scaled = Self.detect(frames: 6, w, h) {
            (Self.resample($0, w, h, window: (0, 0, Double(w), Double(h)), to: 427, 240), 427, 240)
        }
        #expect(scaled.id == Self.id, "score \(scaled.score)")
        let cropped = Self.detect(frames: 6, w, h) {
            (Self.resample($0, w, h, window: (32, 18, 576, 324), to: 576, 324), 576, 324)
        }
        #expect(cropped.id == Self.id, "score \(cropped.score)")
    }

    @Test func unmarkedAndOtherKeyFindNothing() {
        let (w, h) = (640, 360)
        let unmarked = Self.detect(frames: 6, w, h, marked: false) { ($0, w, h) }
        #expect(unmarked.id == nil && unmarked.score < ForensicDetector.threshold, "score \(unmarked.score)")
        let other = ForensicPattern(digest: Array("another key".utf8))
        let wrongKey = Self.detect(frames: 6, w, h, key: other) { ($0, w, h) }
        #expect(wrongKey.id == nil && wrongKey.score < ForensicDetector.threshold, "score \(wrongKey.score)")
    }
}
