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
        // No samples: the empty array. (Initialising one of capacity 0 writes the count of
        // the runtime's one shared empty array, which other threads read.)
        guard count > 0 else { return [] }
        return [T](unsafeUninitializedCapacity: count) { out, initialized in
            guard let d0 = out.baseAddress else { return }
            for run in runs {
                (d0 + Int(run.offset)).initialize(
                    from: dense + Int(run.row) * rowSamples + Int(run.start), count: Int(run.count))
            }
            initialized = count
        }
    }

    /// Transparent samples that end a run: a shorter gap stays inside it. Blending a
    /// transparent sample leaves the frame as it was and costs a fraction of what a run's
    /// start costs (its loop's set-up and the branch that ends it, which no predictor learns
    /// when a moving copy's runs are clipped differently every frame).
    static let runGap = 32
    /// Opaque samples (inverse alpha 0) in a row that become a run of their own, copied
    /// instead of blended: long enough that copying repays the run's start (a logo's body,
    /// not a glyph's stem). A multiple of 8: `findRuns` checks it a word at a time.
    static let opaqueRunMinimum = 64

    /// The stretches of each row that are not fully transparent (inverse alpha 255), eight
    /// samples at a time: a run goes on until `runGap` transparent samples or the row's end
    /// follow its last covered sample, so its ends are exact and shorter gaps stay inside it.
    /// Within a run, opaque stretches of at least `opaqueRunMinimum` samples become runs of
    /// their own. Returns the runs and how many samples they hold.
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
                        if covered == 0 {
                            // Transparent: the run ends if the gap reaches `runGap` or the row's end.
                            var k = j + 8
                            while k + 8 <= n, k - j < Self.runGap, word(a + k) == UInt64.max { k += 8 }
                            while k < n, k - j < Self.runGap, a[k] == 255 { k += 1 }
                            if k - j >= Self.runGap || k >= n { break }
                            j = k
                            continue
                        }
                        end = j + (63 - covered.leadingZeroBitCount) / 8 + 1
                        j += 8
                    } else {
                        if a[j] != 255 { end = j + 1 }
                        j += 1
                    }
                }
                // Split off opaque stretches.
                let least = Self.opaqueRunMinimum
                var k = i, pending = i
                while k + least <= end {
                    // The last sample of the next `least` that is not opaque: no opaque stretch
                    // that long holds it, so the next one can start only after it.
                    var q = least - 8, notOpaque = -1
                    while q >= 0 {
                        let w = word(a + k + q)
                        if w != 0 {
                            notOpaque = q + lastNonZeroByte(w)
                            break
                        }
                        q -= 8
                    }
                    guard notOpaque < 0 else {
                        k += notOpaque + 1
                        continue
                    }
                    var o = k + least
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
