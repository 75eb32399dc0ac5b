// The `image-orientation` tag: how a player turns the stored picture before showing it.
// Pure values; every mapping is an exact pixel permutation (no resampling).

package enum ImageOrientation: String, CaseIterable, Sendable {
    case rotate0 = "rotate-0"
    case rotate90 = "rotate-90"
    case rotate180 = "rotate-180"
    case rotate270 = "rotate-270"
    case flipRotate0 = "flip-rotate-0"
    case flipRotate90 = "flip-rotate-90"
    case flipRotate180 = "flip-rotate-180"
    case flipRotate270 = "flip-rotate-270"

    /// Width and height swap on display.
    package var swapsAxes: Bool {
        switch self {
        case .rotate90, .rotate270, .flipRotate90, .flipRotate270: true
        default: false
        }
    }

    /// Size of the displayed picture for a stored `w`×`h` frame.
    package func displayedSize(width w: Int, height h: Int) -> (width: Int, height: Int) {
        swapsAxes ? (h, w) : (w, h)
    }

    /// Where stored pixel (x, y) of a `w`×`h` frame appears on display. rotate-N turns
    /// clockwise; flip-rotate-N is what videoflip's automatic method does for the tag
    /// (horizontal flip, transpose, vertical flip, anti-transpose).
    package func displayed(x: Int, y: Int, width w: Int, height h: Int) -> (x: Int, y: Int) {
        switch self {
        case .rotate0: (x, y)
        case .rotate90: (h - 1 - y, x)
        case .rotate180: (w - 1 - x, h - 1 - y)
        case .rotate270: (y, w - 1 - x)
        case .flipRotate0: (w - 1 - x, y)
        case .flipRotate90: (y, x)
        case .flipRotate180: (x, h - 1 - y)
        case .flipRotate270: (h - 1 - y, w - 1 - x)
        }
    }

    /// The stored pixel of a `w`×`h` frame shown at displayed position (u, v).
    package func stored(x u: Int, y v: Int, width w: Int, height h: Int) -> (x: Int, y: Int) {
        switch self {
        case .rotate0: (u, v)
        case .rotate90: (v, h - 1 - u)
        case .rotate180: (w - 1 - u, h - 1 - v)
        case .rotate270: (w - 1 - v, u)
        case .flipRotate0: (w - 1 - u, v)
        case .flipRotate90: (v, u)
        case .flipRotate180: (u, h - 1 - v)
        case .flipRotate270: (w - 1 - v, h - 1 - u)
        }
    }

    /// A displacement on display as a displacement in the stored frame.
    package func storedOffset(dx: Int, dy: Int) -> (dx: Int, dy: Int) {
        switch self {
        case .rotate0: (dx, dy)
        case .rotate90: (dy, -dx)
        case .rotate180: (-dx, -dy)
        case .rotate270: (-dy, dx)
        case .flipRotate0: (-dx, dy)
        case .flipRotate90: (dy, dx)
        case .flipRotate180: (dx, -dy)
        case .flipRotate270: (-dy, -dx)
        }
    }

    /// An overlay laid out on the displayed picture, as pixels of the stored `w`×`h`
    /// frame that the player will turn into it.
    package func storedOverlay(_ o: RenderedOverlay, width w: Int, height h: Int) -> RenderedOverlay {
        if self == .rotate0 || o.rect.isEmpty { return o }
        let a = stored(x: o.rect.x, y: o.rect.y, width: w, height: h)
        let b = stored(x: o.rect.maxX - 1, y: o.rect.maxY - 1, width: w, height: h)
        let rect = PixelRect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x) + 1, height: abs(a.y - b.y) + 1)
        var out = [UInt32](repeating: 0, count: rect.width * rect.height)
        let ow = o.rect.width, oh = o.rect.height
        o.pixels.withUnsafeBufferPointer { src in
            guard src.count >= ow * oh else { return }
            for y in 0..<rect.height {
                for x in 0..<rect.width {
                    let d = displayed(x: rect.x + x, y: rect.y + y, width: w, height: h)
                    let sx = d.x - o.rect.x, sy = d.y - o.rect.y
                    if sx >= 0, sx < ow, sy >= 0, sy < oh { out[y * rect.width + x] = src[sy * ow + sx] }
                }
            }
        }
        return RenderedOverlay(rect: rect, pixels: out)
    }
}
