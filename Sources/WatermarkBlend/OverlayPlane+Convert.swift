// Invariant for the unsafe code in this file: a SampleGrid owns its three allocations of
// `rows × rowSamples` elements from init to deinit; a ComponentConverter writes grid
// index `r × rowSamples + sample` only for rows r in [0, rows) and sample bytes inside
// [0, rowBytes) (checked in `sample` and bounded by sFirst/sLast in the vector loop), and
// reads source pixels only inside the clip's `width × height` words.

import WatermarkModel

/// One plane's samples before packing, dense: for every sample of the overlay plane's
/// bounding rectangle an inverse alpha (255: untouched) and a premultiplied code.
final class SampleGrid {
    let rows: Int
    let rowSamples: Int
    let wide: Bool
    let inverseAlpha: UnsafeMutablePointer<UInt8>
    /// 8-bit codes (allocated when not `wide`).
    let value8: UnsafeMutablePointer<UInt8>
    /// 16-bit codes, already shifted into place (allocated when `wide`).
    let value16: UnsafeMutablePointer<UInt16>

    init(rows: Int, rowSamples: Int, wide: Bool) {
        self.rows = rows
        self.rowSamples = rowSamples
        self.wide = wide
        let count = rows * rowSamples
        inverseAlpha = .allocate(capacity: max(count, 1))
        inverseAlpha.initialize(repeating: 255, count: max(count, 1))
        value8 = .allocate(capacity: wide ? 1 : max(count, 1))
        value8.initialize(repeating: 0, count: wide ? 1 : max(count, 1))
        value16 = .allocate(capacity: wide ? max(count, 1) : 1)
        value16.initialize(repeating: 0, count: wide ? max(count, 1) : 1)
    }

    deinit {
        inverseAlpha.deallocate()
        value8.deallocate()
        value16.deallocate()
    }
}

/// Converts one colour component of the clipped overlay into a SampleGrid. Integer maths
/// throughout: coefficients in 16.16 fixed point, sums of a block's premultiplied
/// channels, round-half-up divisions; n = bw·bh pixels per sample is a power of two, so
/// every division is a shift.
struct ComponentConverter {
    let k0: Int, k1: Int, k2: Int, k3: Int
    /// Pixels per sample horizontally and vertically, and log2 of their product.
    let bw: Int, bh: Int, n: Int, logN: Int, half: Int
    let codeLimit: Int
    let sampleShift: UInt16
    let offset: Int, pixelStride: Int, sampleBytes: Int
    let wSub: Int, hSub: Int
    /// The clip (pixel origin and size) and the plane rectangle it maps to.
    let ox: Int, oy: Int, ow: Int, oh: Int
    let row0: Int, byte0: Int, rowBytes: Int
    let grid: SampleGrid

    init(
        component c: ComponentLayout, map: ComponentMap, clip: PixelRect, firstRow: Int, firstByte: Int,
        rowBytes: Int, grid: SampleGrid, maxCode: UInt32
    ) {
        k0 = Int((map.c0 * 65536).rounded())
        k1 = Int((map.c1 * 65536).rounded())
        k2 = Int((map.c2 * 65536).rounded())
        k3 = Int((map.c3 * 65536).rounded())
        bw = 1 << c.wSub
        bh = 1 << c.hSub
        n = bw * bh
        logN = c.wSub + c.hSub
        half = n << 15
        codeLimit = Int(maxCode >> UInt32(c.shift))
        sampleShift = UInt16(c.shift)
        offset = c.offset
        pixelStride = c.pixelStride
        sampleBytes = c.sampleBytes
        wSub = c.wSub
        hSub = c.hSub
        (ox, oy, ow, oh) = (clip.x, clip.y, clip.width, clip.height)
        row0 = firstRow
        byte0 = firstByte
        self.rowBytes = rowBytes
        self.grid = grid
    }

    /// Converts every sample row of the clip from `pixels` (`ow × oh` premultiplied words).
    func convert(from pixels: UnsafePointer<UInt32>, vectorised: Bool) {
        let s0x = ox >> wSub, s1x = (ox + ow - 1) >> wSub
        let s0y = oy >> hSub, s1y = (oy + oh - 1) >> hSub
        // Eight samples at a time in 32-bit lanes (8-bit codes cannot overflow): one pixel
        // per sample (luma, RGB, alpha), or the sum of a 2×1 / 2×2 block (4:2:2 / 4:2:0 chroma).
        let vector = vectorised && !grid.wide && (n == 1 || (wSub == 1 && hSub <= 1))
        for sy in s0y...s1y {
            let r = sy - row0
            if r < 0 || r >= grid.rows { continue }
            let y0 = max(sy * bh, oy) - oy, y1 = min((sy + 1) * bh, oy + oh) - oy
            var sx = s0x
            if vector {
                // Samples whose bytes lie inside the overlay row:
                sx = max(s0x, ceilDiv(byte0 - offset, pixelStride))
                let sLast = min(s1x, floorDiv(rowBytes - sampleBytes + byte0 - offset, pixelStride))
                sx = convertEights(pixels, row: r, y0: y0, y1: y1, from: sx, through: sLast)
                // The rest (row ends, overlay edges) one sample at a time.
                while sx <= sLast {
                    sample(pixels, sx, row: r, y0: y0, y1: y1)
                    sx += 1
                }
                continue
            }
            while sx <= s1x {
                sample(pixels, sx, row: r, y0: y0, y1: y1)
                sx += 1
            }
        }
    }

    /// Stores the sample at `byte` of grid row `r` from the sums of its pixels' channels.
    @inline(__always)
    private func store(_ sa: Int, _ sr: Int, _ sg: Int, _ sb: Int, row r: Int, byte: Int) {
        let alpha = min(255, (2 * sa + n) >> (logN + 1))
        if alpha == 0 { return }
        let v = max(0, k0 * sa + k1 * sr + k2 * sg + k3 * sb)
        let value = min(codeLimit, (v + half) >> (logN + 16))
        let i = r * grid.rowSamples + (grid.wide ? byte >> 1 : byte)
        grid.inverseAlpha[i] = UInt8(truncatingIfNeeded: 255 - alpha)
        if grid.wide {
            grid.value16[i] = UInt16(truncatingIfNeeded: value) << sampleShift
        } else {
            grid.value8[i] = UInt8(truncatingIfNeeded: value)
        }
    }

    /// Converts sample `sx` of grid row `r` (pixel rows y0..<y1): sums the premultiplied
    /// pixels it covers; pixels outside the overlay count as transparent.
    @inline(__always)
    private func sample(_ p0: UnsafePointer<UInt32>, _ sx: Int, row r: Int, y0: Int, y1: Int) {
        let byte = offset + sx * pixelStride - byte0
        if byte < 0 || byte + sampleBytes > rowBytes { return }
        let x0 = max(sx * bw, ox) - ox, x1 = min((sx + 1) * bw, ox + ow) - ox
        var sa = 0, sr = 0, sg = 0, sb = 0
        for yy in y0..<y1 {
            let row = p0 + yy * ow
            for xx in x0..<x1 {
                let p = row[xx]
                sa &+= Int(p >> 24)
                sr &+= Int((p >> 16) & 0xFF)
                sg &+= Int((p >> 8) & 0xFF)
                sb &+= Int(p & 0xFF)
            }
        }
        if sa != 0 { store(sa, sr, sg, sb, row: r, byte: byte) }
    }

    /// Converts samples `sx`, `sx + 8`, … eight at a time while eight whole samples fit
    /// before `sLast` and inside the clip; returns the first sample not converted.
    private func convertEights(
        _ p0: UnsafePointer<UInt32>, row r: Int, y0: Int, y1: Int,
        from start: Int, through sLast: Int
    ) -> Int {
        let K0 = SIMD8<Int32>(repeating: Int32(k0)), K1 = SIMD8<Int32>(repeating: Int32(k1))
        let K2 = SIMD8<Int32>(repeating: Int32(k2)), K3 = SIMD8<Int32>(repeating: Int32(k3))
        let H = SIMD8<Int32>(repeating: Int32(half)), limit = SIMD8<Int32>(repeating: Int32(codeLimit))
        let N = SIMD8<Int32>(repeating: Int32(n))
        let aShift = SIMD8<Int32>(repeating: Int32(logN + 1)), vShift = SIMD8<Int32>(repeating: Int32(logN + 16))
        let v0 = grid.value8, a0 = grid.inverseAlpha
        let outRow = r * grid.rowSamples
        let rowA = p0 + y0 * ow, rowB = y1 - y0 > 1 ? p0 + (y0 + 1) * ow : nil
        var sx = start
        while sx <= sLast {
            // Local pixel columns of samples sx ..< sx + 8.
            let lx = sx * bw - ox
            if sx + 8 > sLast + 1 || lx < 0 || lx + 8 * bw > ow { break }
            guard let (sa, sr, sg, sb) = channelSums(rowA + lx, rowB.map { $0 + lx }) else {
                sx += 8
                continue
            }
            // (pointwiseMin/Max and arithmetic vectorise; replace(with:where:) does not.)
            let alpha = pointwiseMin((sa &* 2 &+ N) &>> aShift, SIMD8<Int32>(repeating: 255))
            // One term a statement: Swift 6.0 gives up type-checking the sum as one expression.
            var v = K0 &* sa
            v &+= K1 &* sr
            v &+= K2 &* sg
            v &+= K3 &* sb
            v = pointwiseMax(v, SIMD8<Int32>())
            v = pointwiseMin((v &+ H) &>> vShift, limit)
            // A sample with alpha 0 gets the untouched markers (code 0, inverse 255):
            // (alpha + 255) >> 8 is 0 for alpha 0, else 1.
            v &*= (alpha &+ 255) &>> 8
            let codes = SIMD8<UInt8>(truncatingIfNeeded: v)
            let inverse = SIMD8<UInt8>(repeating: 255) &- SIMD8<UInt8>(truncatingIfNeeded: alpha)
            let byte = offset + sx * pixelStride - byte0
            if pixelStride == 1 {
                UnsafeMutableRawPointer(v0 + outRow + byte).storeBytes(of: codes, as: SIMD8<UInt8>.self)
                UnsafeMutableRawPointer(a0 + outRow + byte).storeBytes(of: inverse, as: SIMD8<UInt8>.self)
            } else {
                for j in 0..<8 {
                    v0[outRow + byte + j * pixelStride] = codes[j]
                    a0[outRow + byte + j * pixelStride] = inverse[j]
                }
            }
            sx += 8
        }
        return sx
    }

    /// Per-sample sums of alpha, red, green and blue of eight samples from pixel row `a`
    /// (and `b`, the second row of a 2×2 block); nil when every pixel read is clear.
    @inline(__always)
    private func channelSums(_ a: UnsafePointer<UInt32>, _ b: UnsafePointer<UInt32>?)
        -> (SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>)?
    {
        if n == 1 {
            if isClear(a, count: 8) { return nil }
            let px = UnsafeRawPointer(a).loadUnaligned(as: SIMD8<UInt32>.self)
            let byteMask = SIMD8<UInt32>(repeating: 0xFF)
            return (
                SIMD8<Int32>(truncatingIfNeeded: px &>> 24),
                SIMD8<Int32>(truncatingIfNeeded: (px &>> 16) & byteMask),
                SIMD8<Int32>(truncatingIfNeeded: (px &>> 8) & byteMask),
                SIMD8<Int32>(truncatingIfNeeded: px & byteMask)
            )
        }
        // Even and odd lanes of 16 pixels, summed in pairs.
        if isClear(a, count: 16) && (b.map { isClear($0, count: 16) } ?? true) { return nil }
        let pa = UnsafeRawPointer(a).loadUnaligned(as: SIMD16<UInt32>.self)
        let pb = b.map { UnsafeRawPointer($0).loadUnaligned(as: SIMD16<UInt32>.self) } ?? SIMD16<UInt32>()
        let mask16 = SIMD16<UInt32>(repeating: 0xFF)
        return (
            pairSums((pa &>> 24) &+ (pb &>> 24)),
            pairSums(((pa &>> 16) & mask16) &+ ((pb &>> 16) & mask16)),
            pairSums(((pa &>> 8) & mask16) &+ ((pb &>> 8) & mask16)),
            pairSums((pa & mask16) &+ (pb & mask16))
        )
    }
}
