// A converted overlay as a GPU kernel blends it: per plane, its packed values, inverse alphas
// and runs, uploaded once, and per blend the few numbers that place it. One kernel thread
// blends one stored sample: it finds its run by binary search over the runs' offsets, places
// it in the frame and clips it, then applies exactly the arithmetic of `BlendKernels`.
// `DeviceBlend.reference` is that thread's work in Swift: the tests hold it to the CPU blend,
// and the CUDA source (`DeviceBlend.cudaSource`) is the same code, line for line.

import WatermarkBlendKernels
import WatermarkModel

/// One plane of a converted overlay in the arrays a kernel reads.
package struct DevicePlane: Sendable {
    package let plane: Int
    package let wide: Bool
    /// The samples, packed run after run: bytes (8-bit) or little-endian 16-bit words.
    package let values: [UInt8]
    package let inverseAlpha: [UInt8]
    /// Four Int32 per run: its overlay row, first sample in the row, sample count, and
    /// offset of its first sample in `values`/`inverseAlpha` (increasing: runs are packed).
    package let runs: [Int32]
    package var runCount: Int { runs.count / 4 }
    package var sampleCount: Int { inverseAlpha.count }
    package let maxCode: UInt32
    package let codeMask: UInt32
    let firstRow: Int, firstSample: Int
    let wSub: Int, hSub: Int, pixelStride: Int
}

/// Where one blend puts a plane and how: what a kernel launch is given besides the arrays.
package struct DevicePlacement: Sendable, Equatable {
    /// Frame row and sample of the overlay plane's first row and sample.
    package var row0: Int32
    package var sample0: Int32
    /// The frame plane's rows and samples a blend may write.
    package var validRows: Int32
    package var validSamples: Int32
    /// Opacity in 256ths (256: opaque).
    package var op: UInt32
}

extension ConvertedOverlay {
    /// Tells this overlay's samples apart from any other's while it is alive: the address of
    /// its first plane's inverse alphas (an array never shared by two different overlays'
    /// samples: a cache that keys by it keeps the overlay, so the address cannot be reused).
    /// nil for an overlay with nothing to blend.
    package var storageKey: Int? {
        if let identity = compositionIdentity { return Int(bitPattern: Unmanaged.passUnretained(identity).toOpaque()) }
        guard let first = planes.first(where: { !$0.inverseAlpha.isEmpty }) else { return nil }
        return first.inverseAlpha.withUnsafeBufferPointer { $0.baseAddress.map { Int(bitPattern: $0) } }
    }

    /// The planes in the form a kernel reads.
    package var devicePlanes: [DevicePlane] {
        planes.map { p in
            var runs: [Int32] = []
            runs.reserveCapacity(p.runs.count * 4)
            for r in p.runs { runs += [r.row, r.start, r.count, r.offset] }
            let values: [UInt8] =
                p.wide
                ? p.value16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] } : p.value8
            return DevicePlane(
                plane: p.plane, wide: p.wide, values: values, inverseAlpha: p.inverseAlpha, runs: runs,
                maxCode: p.maxCode, codeMask: UInt32(p.codeMask), firstRow: p.firstRow,
                firstSample: p.wide ? p.firstByte / 2 : p.firstByte, wSub: p.wSub, hSub: p.hSub,
                pixelStride: p.pixelStride)
        }
    }

    /// Where `plane` goes when the overlay is blended like `blend(planeIndex:…)` into a
    /// `w`×`h` frame at (`dx`, `dy`) and `opacity`; nil when that blend writes nothing.
    package func placement(
        of plane: DevicePlane, frameWidth w: Int, frameHeight h: Int, opacity: Double, dx: Int, dy: Int
    ) -> DevicePlacement? {
        guard w > 0, h > 0, plane.plane < layout.planeCount else { return nil }
        let op = opacity.isFinite ? UInt32((min(max(opacity, 0), 1) * 256).rounded()) : 256
        if op == 0 { return nil }
        let limit = 1 << 30
        let ax = LayerLayout.alignDown(min(max(dx, -limit), limit), to: layout.alignX)
        let ay = LayerLayout.alignDown(min(max(dy, -limit), limit), to: layout.alignY)
        let byteShift = (ax >> plane.wSub) * plane.pixelStride
        let validBytes = layout.validBytes(plane: plane.plane, frameWidth: w)
        let row0 = plane.firstRow + (ay >> plane.hSub)
        let sample0 = plane.firstSample + (plane.wide ? byteShift / 2 : byteShift)
        guard abs(row0) < Int(Int32.max / 2), abs(sample0) < Int(Int32.max / 2) else { return nil }
        return DevicePlacement(
            row0: Int32(row0), sample0: Int32(sample0),
            validRows: Int32(clamping: layout.validRows(plane: plane.plane, frameHeight: h)),
            validSamples: Int32(clamping: plane.wide ? validBytes / 2 : validBytes), op: op)
    }
}

package enum DeviceBlend {
    /// What kernel thread `i` does (`i` < `plane.sampleCount`), on a plane whose rows are
    /// `stride` bytes apart. Returns false when the sample falls outside the frame (nothing
    /// written).
    @discardableResult
    package static func reference(
        thread i: Int, plane: DevicePlane, at p: DevicePlacement, dst: UnsafeMutablePointer<UInt8>, stride: Int
    ) -> Bool {
        let runs = plane.runs, n = plane.runCount
        guard i >= 0, i < plane.sampleCount, n > 0 else { return false }
        // The last run whose offset is at most i.
        var lo = 0, hi = n - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if Int(runs[mid * 4 + 3]) <= i { lo = mid } else { hi = mid - 1 }
        }
        let k = i - Int(runs[lo * 4 + 3])
        guard k < Int(runs[lo * 4 + 2]) else { return false }
        let row = Int(p.row0) + Int(runs[lo * 4]), s = Int(p.sample0) + Int(runs[lo * 4 + 1]) + k
        guard row >= 0, row < Int(p.validRows), s >= 0, s < Int(p.validSamples) else { return false }
        let inv = UInt32(plane.inverseAlpha[i])
        if !plane.wide {
            let d = UInt32(dst[row * stride + s]), v = UInt32(plane.values[i])
            var out: UInt32
            if p.op >= 256 {
                let t = d * inv + 128
                out = v + ((t + (t >> 8)) >> 8)
            } else {
                let a = ((255 - inv) * p.op) >> 8, vv = (v * p.op) >> 8
                let t = d * (255 - a) + 128
                out = vv + ((t + (t >> 8)) >> 8)
            }
            dst[row * stride + s] = UInt8(min(out, 255))
            return true
        }
        let at = row * stride + s * 2
        let d = UInt32(dst[at]) | UInt32(dst[at + 1]) << 8
        let v = UInt32(plane.values[i * 2]) | UInt32(plane.values[i * 2 + 1]) << 8
        var out: UInt32
        if p.op >= 256 {
            out = v + (d * inv + 127) / 255
        } else {
            let a = ((255 - inv) * p.op) >> 8, vv = (v * p.op) >> 8
            out = vv + (d * (255 - a) + 127) / 255
        }
        out = min(out, plane.maxCode) & plane.codeMask
        dst[at] = UInt8(truncatingIfNeeded: out)
        dst[at + 1] = UInt8(truncatingIfNeeded: out >> 8)
        return true
    }

    /// The kernel, compiled at run time (NVRTC) for the device's own compute capability.
    /// The same steps as `reference`, in the same order.
    package static let cudaSource = """
        extern "C" __global__ void wm_blend(
            unsigned char *dst, int stride, const unsigned char *values, const unsigned char *ia,
            const int *runs, int nRuns, int total, int wide, unsigned int maxCode, unsigned int mask,
            int row0, int sample0, int validRows, int validSamples, unsigned int op)
        {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i >= total || nRuns <= 0) return;
            int lo = 0, hi = nRuns - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) / 2;
                if (runs[mid * 4 + 3] <= i) lo = mid; else hi = mid - 1;
            }
            int k = i - runs[lo * 4 + 3];
            if (k >= runs[lo * 4 + 2]) return;
            int row = row0 + runs[lo * 4], s = sample0 + runs[lo * 4 + 1] + k;
            if (row < 0 || row >= validRows || s < 0 || s >= validSamples) return;
            unsigned int inv = ia[i];
            if (!wide) {
                unsigned char *p = dst + (long long)row * stride + s;
                unsigned int d = *p, v = values[i], out;
                if (op >= 256) {
                    unsigned int t = d * inv + 128;
                    out = v + ((t + (t >> 8)) >> 8);
                } else {
                    unsigned int a = ((255 - inv) * op) >> 8, vv = (v * op) >> 8;
                    unsigned int t = d * (255 - a) + 128;
                    out = vv + ((t + (t >> 8)) >> 8);
                }
                *p = (unsigned char)(out > 255 ? 255 : out);
                return;
            }
            unsigned char *p = dst + (long long)row * stride + (long long)s * 2;
            unsigned int d = p[0] | (p[1] << 8), v = values[i * 2] | (values[i * 2 + 1] << 8), out;
            if (op >= 256) {
                out = v + (d * inv + 127) / 255;
            } else {
                unsigned int a = ((255 - inv) * op) >> 8, vv = (v * op) >> 8;
                out = vv + (d * (255 - a) + 127) / 255;
            }
            out = (out > maxCode ? maxCode : out) & mask;
            p[0] = (unsigned char)out;
            p[1] = (unsigned char)(out >> 8);
        }
        """
}
