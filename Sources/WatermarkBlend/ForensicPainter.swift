// Invariant for the unsafe code in this file: `paint` is handed planes whose rows hold every
// sample of `width` × `height` pixels for the layout (the element checks strides against
// `PixelLayout.validBytes`); tile indices are taken modulo the tile's size, block indices
// are below `blocksAcross`, and the scratch rows are sized for `width` in `init`.

import WatermarkBlendKernels
import WatermarkBlendKernelsAVX2
import WatermarkModel

/// Adds the forensic tile to a picture's luma, scaled per chip by how busy the picture is
/// there: a chip over texture or edges is stronger than one over a flat area, where the eye
/// would see it. A chip's bump is zero at its edges, so neighbouring chips of different
/// strengths meet without a step. For RGB formats the same offset goes into R, G and B
/// (their luma moves by it, their colour does not).
package final class ForensicPainter: @unchecked Sendable {
    package let width: Int, height: Int
    let tile: ForensicTile
    let layout: PixelLayout
    /// Peak offsets (8-bit levels): over a perfectly flat area (a synthetic fill, a
    /// letterbox bar, where a ±2 pattern would show), over an area with a level of noise or
    /// detail and at most; and the rise per level of mean horizontal difference.
    let still: Double, flat: Double, most: Double, slope: Double
    let blocksAcross: Int
    /// Per block of the current band: mean horizontal difference summed; per pixel: the gain.
    private let activity: UnsafeMutablePointer<Int32>
    private let gains: UnsafeMutablePointer<Int16>
    /// Per column of the band: the 8-bit rows' differences summed.
    private let differences: UnsafeMutablePointer<UInt16>

    /// `strength` multiplies the offsets (1 meets the documented picture quality).
    package init(tile: ForensicTile, layout: PixelLayout, width: Int, height: Int, strength: Double = 1) {
        self.tile = tile
        self.layout = layout
        self.width = max(0, width)
        self.height = max(0, height)
        let s = strength.isFinite ? min(max(strength, 0), 8) : 1
        still = 0.9 * s
        flat = 1.8 * s
        most = 3.6 * s
        slope = 0.45 * s
        blocksAcross = (self.width + tile.cell - 1) / tile.cell
        activity = .allocate(capacity: max(1, blocksAcross))
        gains = .allocate(capacity: max(1, self.width))
        differences = .allocate(capacity: self.width + 16)
    }

    deinit {
        activity.deallocate()
        gains.deallocate()
        differences.deallocate()
    }

    /// The components that carry luma: Y (or grey), else R, G and B.
    var lumaComponents: ArraySlice<ComponentLayout> {
        layout.family == .rgb ? layout.components.prefix(3) : layout.components.prefix(1)
    }

    /// Marks the picture; `plane(i)` gives plane i's first byte and stride.
    package func paint(plane: (Int) -> (base: UnsafeMutableRawPointer, stride: Int)?) {
        let comps = lumaComponents
        guard width > 0, height > 0, let probe = comps.last, let source = plane(probe.plane) else { return }
        let c = tile.cell
        // G (or Y) measures how busy each block is.
        let measured = layout.family == .rgb && layout.components.count > 1 ? layout.components[1] : probe
        let measuredPlane = plane(measured.plane) ?? source
        for bandTop in stride(from: 0, to: height, by: c) {
            let bandRows = min(c, height - bandTop)
            measure(measured, base: measuredPlane.base, stride: measuredPlane.stride, top: bandTop, rows: bandRows)
            for component in comps {
                guard let p = plane(component.plane) else { continue }
                for y in bandTop..<(bandTop + bandRows) {
                    let row = p.base + y * p.stride
                    let tileRow = y % tile.size
                    if component.sampleBytes == 1 && component.pixelStride == 1 && component.offset == 0 {
                        addBytes(row.assumingMemoryBound(to: UInt8.self), tileRow: tileRow)
                    } else {
                        addSamples(component, row: row, tileRow: tileRow)
                    }
                }
            }
        }
    }

    /// Per block of `rows` rows from `top`: the mean horizontal difference of `component`
    /// (every other row, in 8-bit levels), turned into each pixel's gain.
    private func measure(
        _ component: ComponentLayout, base: UnsafeMutableRawPointer, stride: Int, top: Int, rows: Int
    ) {
        let c = tile.cell
        for b in 0..<blocksAcross { activity[b] = 0 }
        for x in 0..<(width + 16) { differences[x] = 0 }
        let down = component.depth + component.shift - 8
        for y in Swift.stride(from: top, to: top + rows, by: 2) {
            let row = base + y * stride
            if component.sampleBytes == 1 && component.pixelStride == 1 && component.offset == 0 {
                addDifferences(row.assumingMemoryBound(to: UInt8.self))
            } else {
                var previous = Int32(sample(component, row: row, x: 0) >> down)
                for x in 1..<max(1, width) {
                    let v = Int32(sample(component, row: row, x: x) >> down)
                    activity[x / c] &+= abs(v - previous)
                    previous = v
                }
            }
        }
        // The 8-bit rows' differences, column by column, into their blocks.
        for b in 0..<blocksAcross {
            var s: Int32 = 0
            for x in (b * c)..<min(b * c + c, width) { s &+= Int32(differences[x]) }
            activity[b] &+= s
        }
        let samples = Double(c * ((rows + 1) / 2))
        for b in 0..<blocksAcross {
            let mean = Double(activity[b]) / samples
            // From `still` at no difference to `flat` at a quarter level of it (the faintest
            // noise or grain), then rising.
            let peak = min(still + (flat - still) * min(max(mean * 4, 0), 1) + slope * mean, most)
            // delta = (v · g) >> 12 with v up to 127: g = peak · 4096 / 127.
            let g = Int16(min(32_000 / 127, peak * 4096 / 127 + 0.5))
            let x0 = b * c, x1 = min(x0 + c, width)
            for x in x0..<x1 { gains[x] = g }
        }
    }

    /// Adds |row[x + 1] - row[x]| to `differences[x]`.
    private func addDifferences(_ row: UnsafeMutablePointer<UInt8>) {
        guard width > 1 else { return }
        if hasAVX2 {
            WatermarkBlendKernelsAVX2.BlendKernels.addDifferences8(differences, row, width - 1)
        } else {
            WatermarkBlendKernels.BlendKernels.addDifferences8(differences, row, width - 1)
        }
    }

    /// 8-bit samples one after another (a Y or grey plane).
    private func addBytes(_ row: UnsafeMutablePointer<UInt8>, tileRow: Int) {
        let t = tile.size
        let avx2 = hasAVX2
        tile.values.withUnsafeBufferPointer { values in
            guard let tileBase = values.baseAddress else { return }
            let tileLine = tileBase + tileRow * t
            var x = 0
            while x < width {
                let phase = x % t
                let run = min(t - phase, width - x)
                if avx2 {
                    WatermarkBlendKernelsAVX2.BlendKernels.addScaled8(row + x, tileLine + phase, gains + x, run)
                } else {
                    WatermarkBlendKernels.BlendKernels.addScaled8(row + x, tileLine + phase, gains + x, run)
                }
                x += run
            }
        }
    }

    /// Any other layout: samples read and written one at a time, offsets scaled to the depth.
    private func addSamples(_ component: ComponentLayout, row: UnsafeMutableRawPointer, tileRow: Int) {
        let t = tile.size, up = component.depth - 8
        let maxCode = (1 << component.depth) - 1
        tile.values.withUnsafeBufferPointer { values in
            let line = tileRow * t
            for x in 0..<width {
                let d = (Int(values[line + x % t]) * Int(gains[x]) << max(0, up) + 2048) >> 12
                let v = sample(component, row: row, x: x) >> component.shift
                store(component, row: row, x: x, value: min(max(v + d, 0), maxCode) << component.shift)
            }
        }
    }

    private func sample(_ c: ComponentLayout, row: UnsafeMutableRawPointer, x: Int) -> Int {
        let at = c.offset + (x >> c.wSub) * c.pixelStride
        if c.sampleBytes == 1 { return Int(row.load(fromByteOffset: at, as: UInt8.self)) }
        return Int(UInt16(littleEndian: row.loadUnaligned(fromByteOffset: at, as: UInt16.self)))
    }

    private func store(_ c: ComponentLayout, row: UnsafeMutableRawPointer, x: Int, value: Int) {
        let at = c.offset + (x >> c.wSub) * c.pixelStride
        if c.sampleBytes == 1 {
            row.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: at, as: UInt8.self)
        } else {
            row.storeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, toByteOffset: at, as: UInt16.self)
        }
    }
}
