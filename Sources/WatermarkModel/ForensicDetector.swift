// Reading the forensic mark back, without the original: the frames' luma is summed (the
// mark is the same in every frame, the picture is not), the sum's fine detail kept (what
// is left of the picture is mostly edges, clipped so that they do not outweigh the mark),
// the tile's period found across and down from the detail's autocorrelation (scaling and
// cropping change it), the detail folded onto one tile at that period, and the tile's
// origin found as the cyclic shift where the synchronisation chips correlate best. The
// payload chips at that shift give the 96 bits; an id is only reported when the
// correlation stands out of every other shift's by `threshold` standard deviations and the
// CRC agrees.

import Glibc

/// What detection found.
package struct ForensicVerdict: Sendable, Equatable {
    /// The id, when the synchronisation stood out and the CRC agreed.
    package var id: UInt64?
    /// How far the best shift's correlation stands above the others', in standard deviations.
    package var score: Double
    /// Frames summed.
    package var frames: Int

    package init(id: UInt64? = nil, score: Double, frames: Int) {
        self.id = id
        self.score = score
        self.frames = frames
    }
}

package final class ForensicDetector {
    /// The synchronisation score (a z-score over the 16 384 shifts) an id needs besides its
    /// CRC. docs/forensic.md derives the false-alarm rate: the CRC-32 alone, over every word
    /// `detect` may try, bounds it at 5·10⁻⁷ a clip; this threshold divides that further.
    package static let threshold = 6.0

    let pattern: ForensicPattern
    /// The picture's size, the summing grid's (the picture averaged down by `factor`).
    package let width: Int, height: Int
    let factor: Int
    let gridWidth: Int, gridHeight: Int
    private var sum: [Float]
    package private(set) var frames = 0
    private var row: [Float]

    /// Bins per chip side when folding, and per tile side.
    static let binsPerChip = 4
    static let bins = ForensicCode.cells * binsPerChip

    package init(pattern: ForensicPattern, width: Int, height: Int) {
        self.pattern = pattern
        self.width = max(1, width)
        self.height = max(1, height)
        // The grid keeps at least ~3 samples per chip (a chip is 1/135 of the original height).
        factor = max(1, min(self.width, self.height) / 500)
        gridWidth = max(1, self.width / factor)
        gridHeight = max(1, self.height / factor)
        sum = [Float](repeating: 0, count: gridWidth * gridHeight)
        row = [Float](repeating: 0, count: gridWidth)
    }

    /// Adds one frame's 8-bit luma (`stride` bytes a row; rows of at least `width` bytes).
    package func add(luma: UnsafePointer<UInt8>, stride: Int) {
        let f = factor, gw = gridWidth
        sum.withUnsafeMutableBufferPointer { acc in
            row.withUnsafeMutableBufferPointer { r in
                for gy in 0..<gridHeight {
                    for i in 0..<gw { r[i] = 0 }
                    for dy in 0..<f {
                        let line = luma + (gy * f + dy) * stride
                        if f == 1 {
                            for x in 0..<gw { r[x] += Float(line[x]) }
                        } else {
                            for x in 0..<gw {
                                var s: UInt32 = 0
                                for dx in 0..<f { s &+= UInt32(line[x * f + dx]) }
                                r[x] += Float(s)
                            }
                        }
                    }
                    let base = gy * gw
                    for x in 0..<gw { acc[base + x] += r[x] }
                }
            }
        }
        frames += 1
    }

    /// The verdict on the frames added so far.
    package func detect() -> ForensicVerdict {
        guard frames > 0, gridWidth >= 32, gridHeight >= 32 else { return ForensicVerdict(score: 0, frames: frames) }
        var detail = Self.detail(sum, width: gridWidth, height: gridHeight, radius: chipGuess)
        if 16 % factor == 0 && factor < 16 {
            Self.removeBlockGrid(&detail, width: gridWidth, height: gridHeight, period: 16 / factor)
        }
        // A tile is 0.22–0.27 of the marked picture's height (32 chips of height/135, rounded);
        // cropping up to 25 % of the height makes it up to 0.36 of what is left.
        let lo = max(8, Int(Double(gridHeight) * 0.19)), hi = Int(Double(gridHeight) * 0.36)
        let smoothing = max(1, chipGuess / 2)
        let across = Self.periods(
            detail, width: gridWidth, height: gridHeight, lags: lo...min(hi, gridWidth * 2 / 3), vertical: false,
            smoothing: smoothing)
        let down = Self.periods(
            detail, width: gridWidth, height: gridHeight, lags: lo...min(hi, gridHeight * 2 / 3), vertical: true,
            smoothing: smoothing)
        // Pairs of periods of nearly one scale across and down (a tile is square), the strongest first.
        var pairs: [(px: Double, py: Double, strength: Double)] = []
        for x in across {
            for y in down where x.lag / y.lag > 0.8 && x.lag / y.lag < 1.25 {
                pairs.append((x.lag, y.lag, x.value * y.value))
            }
        }
        var best: Alignment?
        for pair in pairs.sorted(by: { $0.strength > $1.strength }).prefix(10) {
            let a = align(detail, px: pair.px, py: pair.py)
            if a.score > best?.score ?? -.infinity { best = a }
        }
        guard let first = best else { return ForensicVerdict(score: 0, frames: frames) }
        // Finer periods: a fold drifts by the period's error times the tiles it spans, and the
        // autocorrelation's peak can sit a sample or two off (pulled by a codec's block comb
        // near it). Each axis is scanned over ±1.5 samples, then narrowed.
        var found = first
        var tried = [first]
        for deltas in [[-1.5, -1, -0.5, 0.5, 1, 1.5], [-0.25, 0.25], [-0.125, 0.125]] {
            for vertical in [false, true] {
                let start = found
                for k in deltas {
                    let a = align(detail, px: start.px + (vertical ? 0 : k), py: start.py + (vertical ? k : 0))
                    tried.append(a)
                    if a.score > found.score { found = a }
                }
            }
        }
        // The sync score is noisy near its peak: the best few periods over the threshold are
        // each decoded (docs/forensic.md counts their CRC tries in the false-alarm bound).
        var decoded: [(px: Double, py: Double)] = []
        for a in tried.sorted(by: { $0.score > $1.score }) where a.score >= Self.threshold {
            guard decoded.count < Self.decodedAlignments else { break }
            if decoded.contains(where: { $0.px == a.px && $0.py == a.py }) { continue }
            decoded.append((a.px, a.py))
            if let id = Self.decode(a.soft) { return ForensicVerdict(id: id, score: a.score, frames: frames) }
        }
        return ForensicVerdict(score: found.score, frames: frames)
    }

    /// Alignments decoded per verdict at most (each costs 2^`flippable` CRC tries).
    package static let decodedAlignments = 4

    /// Removes from the detail its mean over each column, and each row, of one phase of a
    /// codec's block grid (every `period` grid samples): the comb the grid leaves in the
    /// autocorrelation, whose peaks near the tile's period would pull its estimate.
    static func removeBlockGrid(_ d: inout [Float], width w: Int, height h: Int, period: Int) {
        guard period >= 2, w >= period, h >= period else { return }
        var columns = [Double](repeating: 0, count: period), rows = [Double](repeating: 0, count: period)
        for y in 0..<h {
            for x in 0..<w {
                columns[x % period] += Double(d[y * w + x])
                rows[y % period] += Double(d[y * w + x])
            }
        }
        for p in 0..<period {
            columns[p] /= Double(h * ((w - p + period - 1) / period))
            rows[p] /= Double(w * ((h - p + period - 1) / period))
        }
        for y in 0..<h {
            for x in 0..<w { d[y * w + x] -= Float(columns[x % period] + rows[y % period]) }
        }
    }

    /// A chip's likely size on the grid: the original height's 1/135, taking the picture as
    /// scaled whole (cropping makes it a little larger, which the filter tolerates).
    var chipGuess: Int { max(1, Int((Double(height) / 135 / Double(factor)).rounded())) }

    /// The sum minus its local mean over (2r+1)², clipped at three times its mean magnitude.
    static func detail(_ s: [Float], width w: Int, height h: Int, radius r: Int) -> [Float] {
        var blurred = s
        boxBlur(&blurred, width: w, height: h, radius: r)
        var d = [Float](repeating: 0, count: w * h)
        var magnitude: Double = 0
        for i in 0..<(w * h) {
            d[i] = s[i] - blurred[i]
            magnitude += Double(abs(d[i]))
        }
        let limit = Float(3 * magnitude / Double(w * h))
        if limit > 0 { for i in 0..<(w * h) { d[i] = min(max(d[i], -limit), limit) } }
        return d
    }

    /// A separable box blur with edges repeated.
    static func boxBlur(_ a: inout [Float], width w: Int, height h: Int, radius r: Int) {
        var line = [Float](repeating: 0, count: max(w, h))
        let n = Float(2 * r + 1)
        func pass(count: Int, lines: Int, index: (Int, Int) -> Int) {
            for l in 0..<lines {
                var acc: Float = 0
                for k in -r...r { acc += a[index(l, min(max(k, 0), count - 1))] }
                for i in 0..<count {
                    line[i] = acc / n
                    acc += a[index(l, min(i + r + 1, count - 1))] - a[index(l, max(i - r, 0))]
                }
                for i in 0..<count { a[index(l, i)] = line[i] }
            }
        }
        pass(count: w, lines: h) { y, x in y * w + x }
        pass(count: h, lines: w) { x, y in y * w + x }
    }

    /// The five lags in `lags` where the detail's autocorrelation along one axis peaks
    /// highest, each refined to a fraction of a sample. The autocorrelation is smoothed over
    /// ±`smoothing` lags first: the tile's peaks are as wide as a chip, the comb a codec's
    /// block grid leaves (every 4 or 8 samples) is narrow.
    static func periods(
        _ d: [Float], width w: Int, height h: Int, lags: ClosedRange<Int>, vertical: Bool, smoothing: Int
    ) -> [(lag: Double, value: Double)] {
        guard lags.lowerBound < lags.upperBound else { return [] }
        let first = max(1, lags.lowerBound - smoothing - 1), last = lags.upperBound + smoothing + 1
        guard last < (vertical ? h : w) else { return [] }
        var ac = [Double](repeating: 0, count: last + 1)
        d.withUnsafeBufferPointer { p in
            for lag in first...last {
                var s: Float = 0
                if vertical {
                    for y in 0..<(h - lag) {
                        let a = y * w, b = (y + lag) * w
                        for x in 0..<w { s += p[a + x] * p[b + x] }
                    }
                    ac[lag] = Double(s) / Double((h - lag) * w)
                } else {
                    for y in 0..<h {
                        let a = y * w
                        for x in 0..<(w - lag) { s += p[a + x] * p[a + x + lag] }
                    }
                    ac[lag] = Double(s) / Double((w - lag) * h)
                }
            }
        }
        var smooth = [Double](repeating: 0, count: last + 1)
        for lag in (first + smoothing)...(last - smoothing) {
            var s = 0.0
            for k in -smoothing...smoothing { s += ac[lag + k] }
            smooth[lag] = s / Double(2 * smoothing + 1)
        }
        var peaks: [(lag: Double, value: Double)] = []
        for lag in lags where smooth[lag] > smooth[lag - 1] && smooth[lag] >= smooth[lag + 1] {
            let (a, b, c) = (smooth[lag - 1], smooth[lag], smooth[lag + 1])
            let denominator = a - 2 * b + c
            let offset = denominator < 0 ? min(max(0.5 * (a - c) / denominator, -0.5), 0.5) : 0
            peaks.append((Double(lag) + offset, max(b, 0)))
        }
        return Array(peaks.sorted { $0.value > $1.value }.prefix(5))
    }

    /// Bits flipped, at most, among the least reliable when the hard decision fails its CRC.
    static let flippable = 5

    /// The id the soft bits carry: the hard decision, else the least costly of the patterns
    /// that flip some of the `flippable` least reliable bits, whose CRC agrees (2^flippable
    /// CRC tries, counted in the false-alarm bound).
    static func decode(_ soft: [Double]) -> UInt64? {
        let hard = soft.map { $0 > 0 }
        if let id = ForensicCode.id(from: hard) { return id }
        let weakest = soft.indices.sorted { abs(soft[$0]) < abs(soft[$1]) }.prefix(flippable)
        let patterns = (1..<(1 << flippable)).map { mask in
            (mask, weakest.enumerated().reduce(0.0) { $0 + (mask >> $1.offset & 1 == 1 ? abs(soft[$1.element]) : 0) })
        }.sorted { $0.1 < $1.1 }
        for (mask, _) in patterns {
            var bits = hard
            for (i, bit) in weakest.enumerated() where mask >> i & 1 == 1 { bits[bit].toggle() }
            if let id = ForensicCode.id(from: bits) { return id }
        }
        return nil
    }

    struct Alignment {
        var px: Double, py: Double
        var score: Double
        var soft: [Double]
    }

    /// Folds the detail onto one tile at periods `px` × `py`, finds the shift where the
    /// synchronisation chips correlate best, and reads the bits there.
    func align(_ d: [Float], px: Double, py: Double) -> Alignment {
        let m = Self.bins, n = ForensicCode.cells
        let ux = (0..<gridWidth).map { x in
            min(m - 1, Int((Double(x) / px - (Double(x) / px).rounded(.down)) * Double(m)))
        }
        let uy = (0..<gridHeight).map { y in
            min(m - 1, Int((Double(y) / py - (Double(y) / py).rounded(.down)) * Double(m)))
        }
        var fold = [Double](repeating: 0, count: m * m)
        var count = [Int](repeating: 0, count: m * m)
        for y in 0..<gridHeight {
            let base = uy[y] * m, src = y * gridWidth
            for x in 0..<gridWidth {
                fold[base + ux[x]] += Double(d[src + x])
                count[base + ux[x]] += 1
            }
        }
        for i in 0..<(m * m) where count[i] > 0 { fold[i] /= Double(count[i]) }
        // A chip covers k × k bins: g is the fold summed over the k × k bins from each bin.
        let k = Self.binsPerChip
        var across = [Double](repeating: 0, count: m * m)
        for v in 0..<m {
            for u in 0..<m {
                var s = 0.0
                for i in 0..<k { s += fold[v * m + (u + i) % m] }
                across[v * m + u] = s
            }
        }
        var g = [Double](repeating: 0, count: m * m)
        for v in 0..<m {
            for u in 0..<m {
                var s = 0.0
                for i in 0..<k { s += across[((v + i) % m) * m + u] }
                g[v * m + u] = s
            }
        }
        let sync = (0..<(n * n)).filter { pattern.bit[$0] < 0 }
        var c = [Double](repeating: 0, count: m * m)
        for sy in 0..<m {
            for sx in 0..<m {
                var s = 0.0
                for chip in sync {
                    let v = (k * (chip / n) + sy) % m, u = (k * (chip % n) + sx) % m
                    s += Double(pattern.sign[chip]) * g[v * m + u]
                }
                c[sy * m + sx] = s
            }
        }
        var peak = 0
        for i in 1..<(m * m) where c[i] > c[peak] { peak = i }
        let (py0, px0) = (peak / m, peak % m)
        // The other shifts' spread, leaving out the peak's neighbours (they see half a chip of it).
        var total = 0.0, squares = 0.0, others = 0.0
        for sy in 0..<m {
            for sx in 0..<m {
                let dy = min((sy - py0 + m) % m, (py0 - sy + m) % m), dx = min((sx - px0 + m) % m, (px0 - sx + m) % m)
                if dy <= k && dx <= k { continue }
                total += c[sy * m + sx]
                squares += c[sy * m + sx] * c[sy * m + sx]
                others += 1
            }
        }
        let mean = total / others, sd = (squares / others - mean * mean).squareRoot()
        let score = sd > 0 ? (c[peak] - mean) / sd : 0
        var soft = [Double](repeating: 0, count: ForensicCode.payloadBits)
        for chip in 0..<(n * n) where pattern.bit[chip] >= 0 {
            let v = (k * (chip / n) + py0) % m, u = (k * (chip % n) + px0) % m
            soft[Int(pattern.bit[chip])] += Double(pattern.sign[chip]) * g[v * m + u]
        }
        return Alignment(px: px, py: py, score: score.isFinite ? score : 0, soft: soft)
    }
}
