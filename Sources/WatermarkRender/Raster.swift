// Raster operations on rendered pixels, in place: the drop shadow (a blurred copy of the
// alpha under the content) and the text outline's max filter. Plain loops over arrays and
// caller-owned buffers; the pointer functions touch only `stride × height` bytes.

/// Pixel operations of the renderer that cairo does not offer.
enum Raster {
    /// Puts a blurred, 60 % black copy of the content's alpha under it, offset
    /// down-right.
    static func addShadow(to pixels: inout [UInt32], width: Int, height: Int, offset: Int, radius: Int) {
        let n = width * height
        guard width > 0, height > 0, pixels.count >= n, offset >= 0, radius >= 0 else { return }
        let alpha = UnsafeMutablePointer<Int32>.allocate(capacity: n)
        let tmp = UnsafeMutablePointer<Int32>.allocate(capacity: n)
        let sums = UnsafeMutablePointer<Int32>.allocate(capacity: width)
        defer {
            alpha.deallocate()
            tmp.deallocate()
            sums.deallocate()
        }
        alpha.initialize(repeating: 0, count: n)
        pixels.withUnsafeBufferPointer { px in
            guard let p0 = px.baseAddress, offset < width else { return }
            for y in offset..<height {
                let src = p0 + (y - offset) * width, dst = alpha + y * width
                for x in offset..<width { dst[x] = Int32(src[x - offset] >> 24) }
            }
        }
        // Two box-blur passes in each direction approximate a Gaussian.
        for _ in 0..<2 {
            blurRows(alpha, into: tmp, width: width, height: height, radius: radius)
            blurColumns(tmp, into: alpha, width: width, height: height, radius: radius, sums: sums)
        }
        pixels.withUnsafeMutableBufferPointer { px in
            guard let p0 = px.baseAddress else { return }
            for i in 0..<n {
                let sa = UInt32(truncatingIfNeeded: alpha[i]) &* 153 / 255  // 60 %
                let p = p0[i]
                let a = p >> 24
                // content OVER shadow (shadow colour is black, so only alpha grows).
                let outA = a &+ sa &* (255 &- a) / 255
                p0[i] = outA << 24 | (p & 0x00FF_FFFF)
            }
        }
    }

    /// `n / d` as `(n × m) >> 24` with `m = ⌈2²⁴ / d⌉`, exact for every sum of `d` values of
    /// 0…255 when `d` ≤ 129 (the error `n (m d − 2²⁴) < 255 d · d ≤ 2²⁴`) and within 32
    /// bits (`n m ≤ 255 · 2²⁴ + 255 d`): a multiply the compiler can vectorise, where a
    /// division is one sample at a time.
    struct ExactDivision {
        let m: UInt32
        init?(_ d: Int) {
            guard d >= 1, d <= 129 else { return nil }
            m = UInt32(((1 << 24) + d - 1) / d)
        }
        @inline(__always) func divide(_ n: UInt32) -> UInt32 { (n &* m) >> 24 }
    }

    /// A box blur of every row: each value the sum of the `2 radius + 1` around it (those
    /// outside the row count 0) divided by that count.
    static func blurRows(
        _ src: UnsafePointer<Int32>, into dst: UnsafeMutablePointer<Int32>, width: Int, height: Int, radius: Int
    ) {
        let size = 2 * radius + 1
        let div = ExactDivision(size)
        // Where a window's ends are inside the row: [0, r] only adds, [width - r - 1, width)
        // only removes, between both.
        let addUntil = max(0, width - radius - 1), removeFrom = radius + 1
        for y in 0..<height {
            let s = src + y * width, d = dst + y * width
            var sum: Int32 = 0
            for k in 0...radius where k < width { sum &+= s[k] }
            var i = 0
            @inline(__always) func put() {
                d[i] =
                    div.map { Int32(truncatingIfNeeded: $0.divide(UInt32(truncatingIfNeeded: sum))) } ?? sum
                    / Int32(size)
            }
            // Both ends of the window inside the row while i in [removeFrom - 1, addUntil).
            while i < width && (i < removeFrom - 1 || i >= addUntil) {
                put()
                if i - radius >= 0 { sum &-= s[i - radius] }
                if i + radius + 1 < width { sum &+= s[i + radius + 1] }
                i += 1
                if i >= removeFrom - 1 && i < addUntil { break }
            }
            while i < addUntil && i >= removeFrom - 1 {
                put()
                sum &+= s[i + radius + 1] &- s[i - radius]
                i += 1
            }
            while i < width {
                put()
                if i - radius >= 0 { sum &-= s[i - radius] }
                if i + radius + 1 < width { sum &+= s[i + radius + 1] }
                i += 1
            }
        }
    }

    /// The same down every column, a row at a time (`sums`: one running sum per column).
    static func blurColumns(
        _ src: UnsafePointer<Int32>, into dst: UnsafeMutablePointer<Int32>, width: Int, height: Int, radius: Int,
        sums: UnsafeMutablePointer<Int32>
    ) {
        let size = 2 * radius + 1
        sums.update(repeating: 0, count: width)
        for k in 0...radius where k < height {
            let s = src + k * width
            for x in 0..<width { sums[x] &+= s[x] }
        }
        let div = ExactDivision(size)
        for i in 0..<height {
            let d = dst + i * width
            if let div {
                let u = UnsafeMutableRawPointer(d).assumingMemoryBound(to: UInt32.self)
                let v = UnsafeMutableRawPointer(sums).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width { u[x] = div.divide(v[x]) }
            } else {
                for x in 0..<width { d[x] = sums[x] / Int32(size) }
            }
            let out = i - radius, inn = i + radius + 1
            if out >= 0 && inn < height {
                let a = src + inn * width, b = src + out * width
                for x in 0..<width { sums[x] &+= a[x] &- b[x] }
            } else if out >= 0 {
                let b = src + out * width
                for x in 0..<width { sums[x] &-= b[x] }
            } else if inn < height {
                let a = src + inn * width
                for x in 0..<width { sums[x] &+= a[x] }
            }
        }
    }

    /// Grows an 8-bit coverage mask in place by a disc of `radius` pixels (max filter). For
    /// every row, its maxima over every half-width 0…r are built level by level (half-width
    /// k = max of the k - 1 maxima left and right); each output row then takes, per pixel,
    /// the maximum over the disc's rows of the level that row's half-width needs. Only the
    /// 2r + 1 rows an output row reads are kept, in a ring (a few KB, not r + 1 copies of
    /// the mask).
    static func dilate(_ data: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int, stride: Int, radius: Double) {
        let r = min(64, max(0, Int(radius.rounded())))
        guard r > 0, w > 0, h > 0 else { return }
        let slots = 2 * r + 1, levelsPerRow = r + 1
        // ring[(yy mod slots) · levelsPerRow · w + k · w + x] = max of source row yy over [x - k, x + k].
        let ring = UnsafeMutablePointer<UInt8>.allocate(capacity: slots * levelsPerRow * w)
        defer { ring.deallocate() }
        func level(_ k: Int, ofRow yy: Int) -> UnsafeMutablePointer<UInt8> {
            ring + ((yy % slots) * levelsPerRow + k) * w
        }
        // Reads row yy; always before output row yy - r is written, so rows still to be
        // read are never overwritten.
        func take(row yy: Int) {
            level(0, ofRow: yy).update(from: data + yy * stride, count: w)
            for k in 1...r {
                let p = level(k - 1, ofRow: yy), o = level(k, ofRow: yy)
                o[0] = max(p[0], w > 1 ? p[1] : 0)
                if w > 1 { o[w - 1] = max(p[w - 1], p[w - 2]) }
                if w > 2 {
                    for x in 1..<(w - 1) { o[x] = max(p[x], max(p[x - 1], p[x + 1])) }
                }
            }
        }
        // Half-width of the disc at each row offset.
        let spans = (0...r).map { dy in Int((Double(r * r - dy * dy)).squareRoot().rounded(.down)) }
        for yy in 0..<min(r, h) { take(row: yy) }
        for y in 0..<h {
            if y + r < h { take(row: y + r) }
            let out = data + y * stride
            let first = max(0, y - r), last = min(h - 1, y + r)
            out.update(from: level(spans[abs(first - y)], ofRow: first), count: w)
            if first < last {
                for yy in (first + 1)...last {
                    let s = level(spans[abs(yy - y)], ofRow: yy)
                    for x in 0..<w { out[x] = max(out[x], s[x]) }
                }
            }
        }
    }
}
