// Invariant: `findRuns` reads `rows × samplesPerRow` bytes from its pointer, words of
// eight only where eight remain in the row; `pack` copies from the grid only the samples
// of the runs `findRuns` returned, into arrays sized by the count it returned.

extension OverlayPlane {
    /// Finds the grid's covered stretches and keeps only their samples, packed run after
    /// run, with each row's covered byte span for prefetching.
    mutating func pack(_ grid: SampleGrid) {
        let (found, packedCount) = Self.findRuns(grid.inverseAlpha, rows: grid.rows, samplesPerRow: grid.rowSamples)
        runs = found
        var spans = [RowSpan](repeating: RowSpan(start: 0, end: 0), count: grid.rows)
        let bytesPerSample: Int32 = wide ? 2 : 1
        for run in found {
            let r = Int(run.row), start = run.start * bytesPerSample, end = (run.start + run.count) * bytesPerSample
            if spans[r].start == spans[r].end { spans[r] = RowSpan(start: start, end: end) } else { spans[r].end = end }
        }
        rowSpans = spans
        var first = [Int32](repeating: Int32(found.count), count: grid.rows + 1)
        for (k, run) in found.enumerated().reversed() { first[Int(run.row)] = Int32(k) }
        // A row without runs starts where the next row's runs do.
        for r in stride(from: grid.rows - 1, through: 0, by: -1) where first[r] > first[r + 1] {
            first[r] = first[r + 1]
        }
        rowRuns = first
        inverseAlpha = Self.gather(grid.inverseAlpha, found, count: packedCount, rowSamples: grid.rowSamples)
        if wide {
            value16 = Self.gather(grid.value16, found, count: packedCount, rowSamples: grid.rowSamples)
        } else {
            value8 = Self.gather(grid.value8, found, count: packedCount, rowSamples: grid.rowSamples)
        }
    }

    /// The samples of `runs` from a dense grid, packed in run order.
    static func gather<T: FixedWidthInteger>(_ dense: UnsafePointer<T>, _ runs: [Run], count: Int, rowSamples: Int)
        -> [T]
    {
        [T](unsafeUninitializedCapacity: count) { out, initialized in
            guard let d0 = out.baseAddress else { return }
            for run in runs {
                (d0 + Int(run.offset)).initialize(
                    from: dense + Int(run.row) * rowSamples + Int(run.start), count: Int(run.count))
            }
            initialized = count
        }
    }

    /// The stretches of each row that are not fully transparent (inverse alpha 255), eight
    /// samples at a time: a run goes on while the next eight samples are not all transparent,
    /// so gaps shorter than that stay inside it (blending a transparent sample leaves the
    /// frame as it was, and is cheaper than starting a new run); its ends are exact. Within a
    /// run, stretches of at least two all-opaque words (16 samples, inverse alpha 0) become
    /// runs of their own that are copied, not blended. Returns the runs and how many samples
    /// they hold.
    static func findRuns(_ a0: UnsafePointer<UInt8>, rows: Int, samplesPerRow n: Int) -> ([Run], Int) {
        var found: [Run] = []
        var packed = 0
        func add(row r: Int, _ start: Int, _ end: Int, opaque: Bool) {
            found.append(
                Run(
                    row: Int32(r), start: Int32(start), count: Int32(end - start), offset: Int32(packed), opaque: opaque
                ))
            packed += end - start
        }
        for r in 0..<rows {
            let a = a0 + r * n
            var i = 0
            while i < n {
                while i + 8 <= n, word(a + i) == UInt64.max { i += 8 }
                while i < n, a[i] == 255 { i += 1 }
                if i >= n { break }
                // [i, end): up to the last covered sample before eight transparent ones.
                var end = i + 1, j = i + 1
                while j < n {
                    if j + 8 <= n {
                        let covered = ~word(a + j)
                        if covered == 0 { break }
                        end = j + (63 - covered.leadingZeroBitCount) / 8 + 1
                        j += 8
                    } else {
                        if a[j] != 255 { end = j + 1 }
                        j += 1
                    }
                }
                // Split off opaque stretches of whole words.
                var k = i, pending = i
                while k + 16 <= end {
                    let w = word(a + k), w2 = word(a + k + 8)
                    guard w == 0, w2 == 0 else {
                        // No opaque stretch of 16 can hold a sample that is not opaque: go
                        // past the last one of these sixteen.
                        k += w2 != 0 ? 8 + lastNonZeroByte(w2) + 1 : lastNonZeroByte(w) + 1
                        continue
                    }
                    var o = k + 16
                    while o + 8 <= end, word(a + o) == 0 { o += 8 }
                    while o < end, a[o] == 0 { o += 1 }
                    if pending < k { add(row: r, pending, k, opaque: false) }
                    add(row: r, k, o, opaque: true)
                    pending = o
                    k = o
                }
                if pending < end { add(row: r, pending, end, opaque: false) }
                i = end
            }
        }
        return (found, packed)
    }
}
