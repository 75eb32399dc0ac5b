// Raster operations on rendered pixels, in place: the drop shadow (a blurred copy of the
// alpha under the content) and the text outline's max filter. Plain loops over arrays and
// caller-owned buffers; the pointer functions touch only `stride × height` bytes.

/// Pixel operations of the renderer that cairo does not offer.
enum Raster {
    /// Puts a blurred, 60 % black copy of the content's alpha under it, offset
    /// down-right.
    static func addShadow(to pixels: inout [UInt32], width: Int, height: Int, offset: Int, radius: Int) {
        let n = width * height
        var alpha = [Int32](repeating: 0, count: n)
        for y in 0..<height {
            let sy = y - offset
            if sy < 0 { continue }
            for x in offset..<max(offset, width) {
                alpha[y * width + x] = Int32(pixels[sy * width + x - offset] >> 24)
            }
        }
        // Two box-blur passes in each direction approximate a Gaussian.
        var tmp = [Int32](repeating: 0, count: n)
        for _ in 0..<2 {
            boxBlur(&alpha, into: &tmp, width: width, height: height, radius: radius, horizontal: true)
            boxBlur(&tmp, into: &alpha, width: width, height: height, radius: radius, horizontal: false)
        }
        for i in 0..<n {
            let sa = UInt32(alpha[i]) * 153 / 255  // 60 %
            let p = pixels[i]
            let a = p >> 24
            // content OVER shadow (shadow colour is black, so only alpha grows).
            let outA = a + sa * (255 - a) / 255
            pixels[i] = outA << 24 | (p & 0x00FF_FFFF)
        }
    }

    static func boxBlur(
        _ src: inout [Int32], into dst: inout [Int32], width: Int, height: Int,
        radius: Int, horizontal: Bool
    ) {
        let lines = horizontal ? height : width, length = horizontal ? width : height
        let step = horizontal ? 1 : width
        let size = Int32(2 * radius + 1)
        for line in 0..<lines {
            let base = horizontal ? line * width : line
            var sum: Int32 = 0
            for k in -radius...radius where k >= 0 && k < length { sum += src[base + k * step] }
            for i in 0..<length {
                dst[base + i * step] = sum / size
                let out = i - radius, inn = i + radius + 1
                if out >= 0 { sum -= src[base + out * step] }
                if inn < length { sum += src[base + inn * step] }
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
