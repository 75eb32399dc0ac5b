// Invariant for the unsafe code in this file: `blend` writes only inside rows
// [0, validRows) and bytes [0, validBytes) of the frame plane it is given (the caller,
// ConvertedOverlay.blend, works both out from the frame's own size and refuses short
// strides); every run is clipped to them before anything is written, wherever the overlay
// is placed. Prefetches may name any address: they never fault.

import CPrefetch
import WatermarkBlendKernels
import WatermarkBlendKernelsAVX2

/// Whether this CPU runs the kernels built for AVX2 (256-bit vectors: twice the samples an
/// instruction of the baseline build's SSE2 handles). Asked of the CPU once, without I/O.
let hasAVX2 = wm_cpu_has_avx2() != 0

extension OverlayPlane {
    /// How many rows ahead of the one being blended the frame's cache lines are requested.
    /// A large frame arrives from memory, not from the cache (a source that copies it with
    /// glibc's memcpy leaves it there: non-temporal stores), and the hardware prefetcher
    /// does not cross into the next row, so without this every row starts with a full
    /// memory latency. blend-bench's "fresh" column measures this case.
    static let prefetchRows = 8

    /// Requests the covered cache lines of the overlay rows from `next` up to `prefetchRows`
    /// past `row` (the one about to be blended), and moves `next` past them. `origin`: the
    /// frame address of the overlay's first row and byte; rows outside [0, `rows`) or, moved
    /// by `rowShift`, outside the frame's rows are skipped.
    @inline(__always)
    private func prefetch(
        through row: Int, next: inout Int, origin: UnsafeRawPointer, stride: Int,
        rowShift: Int = 0, validRows: Int = .max
    ) {
        while next <= row + Self.prefetchRows {
            let r = next
            next += 1
            guard r < rows, r + firstRow + rowShift < validRows, r + firstRow + rowShift >= 0 else { continue }
            let span = rowSpans[r], rowStart = origin + r * stride
            var line = Int(span.start) & ~63
            while line < Int(span.end) {
                wm_prefetch_for_write(rowStart + line)
                line += 64
            }
        }
    }

    /// The part of `run` inside the frame when the overlay is moved by `rowShift` rows and
    /// `sampleShift` samples: its frame row, first frame sample, and the range of the
    /// run's own samples to write; nil when none of it is inside.
    @inline(__always)
    private func clipped(
        _ run: Run, rowShift: Int, sampleShift: Int, validRows: Int,
        validSamples: Int
    ) -> (row: Int, sample: Int, from: Int, to: Int)? {
        let row = firstRow + Int(run.row) + rowShift
        guard row >= 0, row < validRows else { return nil }
        let sample = (wide ? firstByte / 2 : firstByte) + Int(run.start) + sampleShift
        let from = max(0, -sample), to = min(Int(run.count), validSamples - sample)
        return from < to ? (row, sample, from, to) : nil
    }

    /// This plane with every sample's value and alpha scaled by `step`/256, as `blend8` /
    /// `blend16` do per frame at that opacity; no run stays opaque.
    func scaled(by step: UInt32) -> OverlayPlane {
        var p = self
        p.inverseAlpha = inverseAlpha.map { UInt8(truncatingIfNeeded: 255 &- ((255 &- UInt32($0)) &* step) >> 8) }
        if wide {
            p.value16 = value16.map { UInt16(truncatingIfNeeded: (UInt32($0) &* step) >> 8) }
        } else {
            p.value8 = value8.map { UInt8(truncatingIfNeeded: (UInt32($0) &* step) >> 8) }
        }
        p.runs = runs.map { run in
            var r = run
            r.opaque = false
            return r
        }
        return p
    }

    func blend(
        base: UnsafeMutablePointer<UInt8>, stride: Int, opacity: Double, dx: Int, dy: Int,
        validRows: Int, validBytes: Int
    ) {
        let op = opacity.isFinite ? UInt32((min(max(opacity, 0), 1) * 256).rounded()) : 256
        if op == 0 { return }
        let rowShift = dy >> hSub
        let byteShift = (dx >> wSub) * pixelStride
        let sampleShift = wide ? byteShift / 2 : byteShift
        let validSamples = wide ? validBytes / 2 : validBytes
        // The usual case: the whole overlay plane inside the frame, nothing to clip.
        let top = firstRow + rowShift, left = firstByte + byteShift
        if !wide, top >= 0, top + rows <= validRows, left >= 0, left + rowBytes <= validBytes {
            blendInside8(base + top * stride + left, stride: stride, op: op)
            return
        }
        // Partly outside (a ticker's copies coming in and going out, a bounce at an edge): the
        // rows in view, each run clipped to the row's bytes, in a loop as lean as the one above.
        if !wide {
            blendClipped8(
                base, top: top, left: left, validRows: validRows, validBytes: validBytes, stride: stride, op: op)
            return
        }
        value16.withUnsafeBufferPointer { wbuf in
            inverseAlpha.withUnsafeBufferPointer { abuf in
                guard let v0 = wbuf.baseAddress, let a0 = abuf.baseAddress else { return }
                let shiftedOrigin = UnsafeRawPointer(base) + (firstRow + rowShift) * stride + firstByte + byteShift
                var ahead = 0
                let avx2 = hasAVX2
                for run in runs {
                    prefetch(
                        through: Int(run.row), next: &ahead, origin: shiftedOrigin, stride: stride,
                        rowShift: rowShift, validRows: validRows)
                    guard
                        let c = clipped(
                            run, rowShift: rowShift, sampleShift: sampleShift,
                            validRows: validRows, validSamples: validSamples)
                    else { continue }
                    let raw = UnsafeMutableRawPointer(base + c.row * stride) + (c.sample + c.from) * 2
                    let v = v0 + Int(run.offset) + c.from, a = a0 + Int(run.offset) + c.from, n = c.to - c.from
                    if avx2 {
                        WatermarkBlendKernelsAVX2.BlendKernels.blend16(
                            raw, v, a, n, op: op, maxCode: maxCode, mask: codeMask)
                    } else {
                        WatermarkBlendKernels.BlendKernels.blend16(
                            raw, v, a, n, op: op, maxCode: maxCode, mask: codeMask)
                    }
                }
            }
        }
    }

    /// 8-bit blend of every run, `origin` being where the plane's first row and byte go.
    private func blendInside8(_ origin: UnsafeMutablePointer<UInt8>, stride: Int, op: UInt32) {
        value8.withUnsafeBufferPointer { vbuf in
            inverseAlpha.withUnsafeBufferPointer { abuf in
                guard let v0 = vbuf.baseAddress, let a0 = abuf.baseAddress else { return }
                var ahead = 0
                let avx2 = hasAVX2
                for run in runs {
                    prefetch(through: Int(run.row), next: &ahead, origin: UnsafeRawPointer(origin), stride: stride)
                    Self.blendRun8(
                        origin + Int(run.row) * stride + Int(run.start), v0 + Int(run.offset),
                        a0 + Int(run.offset), Int(run.count), op: op, opaque: run.opaque, avx2: avx2)
                }
            }
        }
    }

    /// 8-bit blend of the runs in view: rows [0, `validRows`) and bytes [0, `validBytes`) of
    /// each, the plane's first row going to frame row `top` and its first byte to byte `left`
    /// (either may be negative or past the frame when the plane sticks out). Only the rows
    /// and, row by row, the runs in view are visited (a ticker's copy going out of view costs
    /// what is left of it in view, not all its runs).
    private func blendClipped8(
        _ base: UnsafeMutablePointer<UInt8>, top: Int, left: Int, validRows: Int, validBytes: Int, stride: Int,
        op: UInt32
    ) {
        // The plane's rows and columns in view: [firstRow, endRow) and [lo, hi).
        let firstRow = max(0, 0 &- top), endRow = min(rows, validRows &- top)
        let lo = max(0, 0 &- left), hi = min(rowBytes, validBytes &- left)
        guard firstRow < endRow, lo < hi, rowRuns.count == rows + 1, rowSpans.count == rows else { return }
        value8.withUnsafeBufferPointer { vbuf in
            inverseAlpha.withUnsafeBufferPointer { abuf in
                runs.withUnsafeBufferPointer { rbuf in
                    rowRuns.withUnsafeBufferPointer { first in
                        guard let v0 = vbuf.baseAddress, let a0 = abuf.baseAddress, let r0 = rbuf.baseAddress,
                            let f0 = first.baseAddress
                        else { return }
                        var ahead = firstRow
                        let avx2 = hasAVX2
                        for row in firstRow..<endRow {
                            // The covered lines in view of the rows coming up, fetched ahead.
                            while ahead < endRow && ahead <= row &+ Self.prefetchRows {
                                let span = rowSpans[ahead]
                                var line = (left &+ max(Int(span.start), lo)) & ~63
                                let end = left &+ min(Int(span.end), hi)
                                let rowStart = base + (top &+ ahead) &* stride
                                while line < end {
                                    wm_prefetch_for_write(rowStart + line)
                                    line &+= 64
                                }
                                ahead &+= 1
                            }
                            var k = Int(f0[row])
                            let last = Int(f0[row &+ 1])
                            // The first run ending past `lo` (runs of a row are in column order).
                            var end = last
                            while k < end {
                                let mid = (k &+ end) >> 1
                                if Int(r0[mid].start) &+ Int(r0[mid].count) <= lo { k = mid &+ 1 } else { end = mid }
                            }
                            let rowBase = base + (top &+ row) &* stride
                            while k < last {
                                let run = r0[k]
                                k &+= 1
                                let s = Int(run.start)
                                if s >= hi { break }
                                let from = max(s, lo), to = min(s &+ Int(run.count), hi)
                                let offset = Int(run.offset) &+ (from &- s)
                                Self.blendRun8(
                                    rowBase + (left &+ from), v0 + offset, a0 + offset, to &- from, op: op,
                                    opaque: run.opaque, avx2: avx2)
                            }
                        }
                    }
                }
            }
        }
    }

    /// One 8-bit run: copied when opaque at full opacity, else blended (scaled by `op`/256).
    @inline(__always)
    private static func blendRun8(
        _ dst: UnsafeMutablePointer<UInt8>, _ v: UnsafePointer<UInt8>,
        _ ia: UnsafePointer<UInt8>, _ n: Int, op: UInt32, opaque: Bool, avx2: Bool
    ) {
        if op < 256 {
            if avx2 {
                WatermarkBlendKernelsAVX2.BlendKernels.blend8(dst, v, ia, n, op: UInt16(op))
            } else {
                WatermarkBlendKernels.BlendKernels.blend8(dst, v, ia, n, op: UInt16(op))
            }
        } else if opaque {
            dst.update(from: v, count: n)
        } else if avx2 {
            WatermarkBlendKernelsAVX2.BlendKernels.blend8(dst, v, ia, n)
        } else {
            WatermarkBlendKernels.BlendKernels.blend8(dst, v, ia, n)
        }
    }
}
