// The per-run arithmetic of the blend: plain loops over packed overlay samples, which the
// compiler vectorises. This file is compiled twice: as WatermarkBlendKernels for the
// baseline CPU of the target (x86-64: SSE2), and as WatermarkBlendKernelsAVX2 (the same
// file, linked) with AVX2's 256-bit vectors; WatermarkBlend calls the second on CPUs that
// have it. The entry points are never inlined, so each keeps the code of its own build.
//
// Invariant for the unsafe code: every pointer is valid for `n` samples (the caller clips
// each run to the frame first).

package enum BlendKernels {
    @inline(__always)
    package static func div255(_ t: UInt16) -> UInt16 {
        // Exact round(x / 255) for x in 0...65025 (t = x + 128).
        (t &+ (t >> 8)) >> 8
    }

    /// `n` 8-bit samples at opacity 1: dst = v + dst × ia / 255, rounded, at most 255.
    @inline(never)
    package static func blend8(
        _ dst: UnsafeMutablePointer<UInt8>, _ v: UnsafePointer<UInt8>,
        _ ia: UnsafePointer<UInt8>, _ n: Int
    ) {
        for i in 0..<n {
            let t = UInt16(dst[i]) &* UInt16(ia[i]) &+ 128
            dst[i] = UInt8(truncatingIfNeeded: min(UInt16(v[i]) &+ div255(t), 255))
        }
    }

    /// `n` 8-bit samples with the value and alpha scaled by `op`/256 first (a fade).
    @inline(never)
    package static func blend8(
        _ dst: UnsafeMutablePointer<UInt8>, _ v: UnsafePointer<UInt8>,
        _ ia: UnsafePointer<UInt8>, _ n: Int, op: UInt16
    ) {
        for i in 0..<n {
            let a = ((255 &- UInt16(ia[i])) &* op) >> 8
            let vv = (UInt16(v[i]) &* op) >> 8
            let t = UInt16(dst[i]) &* (255 &- a) &+ 128
            dst[i] = UInt8(truncatingIfNeeded: min(vv &+ div255(t), 255))
        }
    }

    /// `n` little-endian 16-bit samples at `raw` (any alignment), scaled by `op`/256 below
    /// 256, clamped to `maxCode` and masked to the format's significant bits.
    @inline(never)
    package static func blend16(
        _ raw: UnsafeMutableRawPointer, _ v: UnsafePointer<UInt16>,
        _ ia: UnsafePointer<UInt8>, _ n: Int, op: UInt32, maxCode: UInt32, mask: UInt16
    ) {
        // Frames' 16-bit planes are 2-byte aligned: typed loads and stores, which the compiler
        // vectorises (the unaligned raw ones it does not). The loop at opacity 1 (every
        // steady opacity after folding) has no per-sample opacity multiply.
        guard Int(bitPattern: raw) & 1 == 0 else {
            blend16Unaligned(raw, v, ia, n, op: op, maxCode: maxCode, mask: mask)
            return
        }
        let dst = raw.assumingMemoryBound(to: UInt16.self)
        if op >= 256 {
            for i in 0..<n {
                let d = UInt32(UInt16(littleEndian: dst[i]))
                let out = min(UInt32(v[i]) &+ (d &* UInt32(ia[i]) &+ 127) / 255, maxCode)
                dst[i] = (UInt16(truncatingIfNeeded: out) & mask).littleEndian
            }
            return
        }
        for i in 0..<n {
            let a = ((255 &- UInt32(ia[i])) &* op) >> 8
            let vv = (UInt32(v[i]) &* op) >> 8
            let d = UInt32(UInt16(littleEndian: dst[i]))
            let out = min(vv &+ (d &* (255 &- a) &+ 127) / 255, maxCode)
            dst[i] = (UInt16(truncatingIfNeeded: out) & mask).littleEndian
        }
    }

    private static func blend16Unaligned(
        _ raw: UnsafeMutableRawPointer, _ v: UnsafePointer<UInt16>,
        _ ia: UnsafePointer<UInt8>, _ n: Int, op: UInt32, maxCode: UInt32, mask: UInt16
    ) {
        for i in 0..<n {
            let a = ((255 &- UInt32(ia[i])) &* op) >> 8
            let vv = (UInt32(v[i]) &* op) >> 8
            let d = UInt32(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)))
            let out = min(vv &+ (d &* (255 &- a) &+ 127) / 255, maxCode)
            raw.storeBytes(
                of: (UInt16(truncatingIfNeeded: out) & mask).littleEndian,
                toByteOffset: i * 2, as: UInt16.self)
        }
    }

    // MARK: masks

    /// The sum of `n` bytes (a pixelated cell's piece of a row).
    @inline(never)
    package static func sum8(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var total: UInt32 = 0
        for i in 0..<n { total &+= UInt32(p[i]) }
        return Int(total)
    }

    /// Adds `n` bytes to `n` column sums.
    @inline(never)
    package static func addRow8(_ sums: UnsafeMutablePointer<Int32>, _ p: UnsafePointer<UInt8>, _ n: Int) {
        for i in 0..<n { sums[i] &+= Int32(p[i]) }
    }

    /// `n` bytes of a blurred row: the mix of two widened rows (values with 4 fractional
    /// bits) at `f`/256 of the way, rounded, at most `maxCode`.
    @inline(never)
    package static func mixRows8(
        _ dst: UnsafeMutablePointer<UInt8>, _ top: UnsafePointer<Int32>, _ bottom: UnsafePointer<Int32>, _ n: Int,
        f: Int32, maxCode: Int32
    ) {
        let g = 256 &- f
        for i in 0..<n {
            dst[i] = UInt8(truncatingIfNeeded: min(maxCode, (top[i] &* g &+ bottom[i] &* f &+ 2048) >> 12))
        }
    }

    /// The forensic mark's activity: adds |row[i + 1] - row[i]| to `acc[i]` for i < `n`
    /// (`row` holds n + 1 bytes).
    @inline(never)
    package static func addDifferences8(_ acc: UnsafeMutablePointer<UInt16>, _ row: UnsafePointer<UInt8>, _ n: Int) {
        for i in 0..<n {
            let d = Int16(row[i]) &- Int16(row[i &+ 1])
            acc[i] = acc[i] &+ UInt16(truncatingIfNeeded: d < 0 ? 0 &- d : d)
        }
    }

    /// The forensic mark into 8-bit samples: `dst[i] += (v[i] · g[i] + 2048) >> 12`, kept in 0…255.
    @inline(never)
    package static func addScaled8(
        _ dst: UnsafeMutablePointer<UInt8>, _ v: UnsafePointer<Int8>, _ g: UnsafePointer<Int16>, _ n: Int
    ) {
        for i in 0..<n {
            let d = (Int32(v[i]) &* Int32(g[i]) &+ 2048) >> 12
            dst[i] = UInt8(truncatingIfNeeded: min(max(Int32(dst[i]) &+ d, 0), 255))
        }
    }
}
