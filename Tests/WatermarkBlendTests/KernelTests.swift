import CPrefetch
import TestSupport
import Testing
import WatermarkBlendKernels
import WatermarkBlendKernelsAVX2

/// The blend kernels: the formula, sample by sample, in both builds (the baseline one and
/// the AVX2 one the blender calls on CPUs that have it), over lengths that go through the
/// vector loops, their shorter vector steps and the scalar tails.
struct KernelTests {
    typealias Baseline = WatermarkBlendKernels.BlendKernels
    typealias AVX2 = WatermarkBlendKernelsAVX2.BlendKernels

    /// round(x / 255) for a product x of two samples.
    static func round255(_ x: Int) -> Int { (x + 127) / 255 }

    /// The 8-bit blend of one sample: `op` 256 is opacity 1.
    static func expected8(_ d: UInt8, _ v: UInt8, _ ia: UInt8, op: Int) -> UInt8 {
        if op >= 256 { return UInt8(min(Int(v) + round255(Int(d) * Int(ia)), 255)) }
        let a = ((255 - Int(ia)) * op) >> 8, vv = (Int(v) * op) >> 8
        return UInt8(min(vv + round255(Int(d) * (255 - a)), 255))
    }

    /// The 16-bit blend of one sample (`maxCode` and `mask` of 10-bit samples in the high bits).
    static func expected16(_ d: UInt16, _ v: UInt16, _ ia: UInt8, op: Int) -> UInt16 {
        let maxCode = 0xFFC0, mask = 0xFFC0
        if op >= 256 { return UInt16((min(Int(v) + (Int(d) * Int(ia) + 127) / 255, maxCode)) & mask) }
        let a = ((255 - Int(ia)) * op) >> 8, vv = (Int(v) * op) >> 8
        return UInt16((min(vv + (Int(d) * (255 - a) + 127) / 255, maxCode)) & mask)
    }

    /// Runs every kernel of one build over random runs and returns the first sample that is
    /// not the formula's, if any.
    static func firstWrongSample(avx2: Bool, seed: UInt64) -> String? {
        var random = TestRandom(seed: seed)
        for trial in 0..<400 {
            let n = random.next(trial < 200 ? 80 : 400)
            let op = random.next(2) == 0 ? 256 : random.next(256)
            let d8 = (0..<n).map { _ in UInt8(random.next(256)) }
            let ia = (0..<n).map { _ in UInt8(random.next(256)) }
            // Premultiplied values: at most what the alpha allows (plus a few over, for the clamp).
            let v8 = ia.map { UInt8(min(255, 255 - Int($0) + random.next(4))) }
            var out8 = d8
            out8.withUnsafeMutableBufferPointer { o in
                guard let dst = o.baseAddress else { return }
                switch (avx2, op >= 256) {
                case (true, true): AVX2.blend8(dst, v8, ia, n)
                case (true, false): AVX2.blend8(dst, v8, ia, n, op: UInt16(op))
                case (false, true): Baseline.blend8(dst, v8, ia, n)
                case (false, false): Baseline.blend8(dst, v8, ia, n, op: UInt16(op))
                }
            }
            for i in 0..<n where out8[i] != expected8(d8[i], v8[i], ia[i], op: op) {
                return "8-bit, \(n) samples at opacity \(op)/256: sample \(i) is \(out8[i])"
            }
            let d16 = d8.map { UInt16($0) << 8 | 0xC0 }, v16 = v8.map { UInt16($0) << 8 }
            // One byte of slack in front, so that the run can start at an odd address.
            let shift = random.next(2)
            var raw = [UInt8](repeating: 0, count: 2 * n + 1)
            for i in 0..<n {
                raw[shift + 2 * i] = UInt8(d16[i] & 0xFF)
                raw[shift + 2 * i + 1] = UInt8(d16[i] >> 8)
            }
            raw.withUnsafeMutableBytes { r in
                guard let base = r.baseAddress else { return }
                if avx2 {
                    AVX2.blend16(base + shift, v16, ia, n, op: UInt32(op), maxCode: 0xFFC0, mask: 0xFFC0)
                } else {
                    Baseline.blend16(base + shift, v16, ia, n, op: UInt32(op), maxCode: 0xFFC0, mask: 0xFFC0)
                }
            }
            for i in 0..<n {
                let got = UInt16(raw[shift + 2 * i]) | UInt16(raw[shift + 2 * i + 1]) << 8
                if got != expected16(d16[i], v16[i], ia[i], op: op) {
                    return "16-bit, \(n) samples at opacity \(op)/256, offset \(shift): sample \(i) is \(got)"
                }
            }
        }
        return nil
    }

    @Test func theBaselineBuildIsTheFormula() {
        let wrong = Self.firstWrongSample(avx2: false, seed: 0x9E37_79B9_7F4A_7C15)
        #expect(wrong == nil, "\(wrong ?? "")")
    }

    @Test(.enabled(if: wm_cpu_has_avx2() != 0, "this CPU has no AVX2"))
    func theAVX2BuildIsTheFormula() {
        let wrong = Self.firstWrongSample(avx2: true, seed: 0x9E37_79B9_7F4A_7C15)
        #expect(wrong == nil, "\(wrong ?? "")")
    }

    /// The blend's division by 255 is round(x / 255) for every product of two samples.
    @Test func divisionBy255IsExactForEveryProduct() {
        let wrong = (0...65025).filter { Int(Baseline.div255(UInt16($0 + 128))) != Self.round255($0) }
        #expect(wrong.isEmpty, "wrong for \(wrong.prefix(5))")
    }
}
