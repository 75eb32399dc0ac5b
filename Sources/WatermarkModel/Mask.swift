// Privacy masks: regions of the picture hidden in every frame. A region is a rectangle or a
// polygon in fractions of the picture as displayed; it becomes, once per frame size and
// orientation, the runs of stored pixels whose centres lie inside it (`MaskSpans`), which
// the blend layer fills, pixelates or blurs.

/// How a mask hides what is under it.
public enum MaskFill: Int, Sendable, Equatable, CaseIterable {
    /// The mask's colour (opaque).
    case solid
    /// A mosaic of square cells, each the mean of the source inside the region.
    case pixelate
    /// A Gaussian blur (three box passes).
    case blur
}

/// A region, in fractions of the displayed frame.
package enum MaskRegion: Sendable, Equatable {
    case rectangle(x: Double, y: Double, width: Double, height: Double)
    /// Three or more points, in order (the edges join each to the next and the last to the first).
    case polygon([MaskPoint])

    /// The region's outline as a polygon.
    package var points: [MaskPoint] {
        switch self {
        case .rectangle(let x, let y, let w, let h):
            [MaskPoint(x, y), MaskPoint(x + w, y), MaskPoint(x + w, y + h), MaskPoint(x, y + h)]
        case .polygon(let p): p
        }
    }

    /// The region moved by (dx, dy), fractions of the frame.
    package func offset(dx: Double, dy: Double) -> MaskRegion {
        switch self {
        case .rectangle(let x, let y, let w, let h): .rectangle(x: x + dx, y: y + dy, width: w, height: h)
        case .polygon(let p): .polygon(p.map { MaskPoint($0.x + dx, $0.y + dy) })
        }
    }

    /// The text `parse` reads back.
    package var text: String {
        func n(_ v: Double) -> String {
            v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
        }
        switch self {
        case .rectangle(let x, let y, let w, let h): return "\(n(x)),\(n(y)),\(n(w)),\(n(h))"
        case .polygon(let p): return p.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " ")
        }
    }
}

package struct MaskPoint: Sendable, Equatable {
    package var x: Double
    package var y: Double
    package init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// What is wrong with a mask string, and where (1-based character position).
package struct MaskSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    package var position: Int
    package var message: String
    package var description: String { "at character \(position): \(message)" }
}

extension MaskRegion {
    /// Regions separated by `;`, each `x,y,w,h` (a rectangle) or `x1,y1 x2,y2 x3,y3 …` (a
    /// polygon of three or more points), in fractions of the frame. Empty text: no regions.
    package static func parseList(_ text: String) -> Result<[MaskRegion], MaskSyntaxError> {
        let chars = Array(text.unicodeScalars)
        var regions: [MaskRegion] = []
        var start = 0
        while start <= chars.count {
            var end = start
            while end < chars.count && chars[end] != ";" { end += 1 }
            switch parseOne(chars, start, end) {
            case .success(let r?): regions.append(r)
            case .success(nil):
                // Nothing between two separators, or before the first (after the last is fine).
                if end < chars.count {
                    return .failure(MaskSyntaxError(position: start + 1, message: "an empty region"))
                }
            case .failure(let e): return .failure(e)
            }
            start = end + 1
        }
        return .success(regions)
    }

    /// One region from `chars[start..<end]`; nil when it holds only spaces.
    private static func parseOne(_ chars: [Unicode.Scalar], _ start: Int, _ end: Int)
        -> Result<MaskRegion?, MaskSyntaxError>
    {
        // Tokens separated by spaces, each a comma-separated list of numbers.
        var tokens: [(position: Int, numbers: [Double])] = []
        var i = start
        while i < end {
            if chars[i] == " " || chars[i] == "\t" {
                i += 1
                continue
            }
            let tokenStart = i
            var numbers: [Double] = []
            var numberStart = i
            while true {
                if i == end || chars[i] == " " || chars[i] == "\t" || chars[i] == "," {
                    let word = String(String.UnicodeScalarView(chars[numberStart..<i]))
                    guard let v = Double(word), v.isFinite, abs(v) <= 1e6 else {
                        let what = word.isEmpty ? "a number is missing" : "\"\(word)\" is not a number"
                        return .failure(MaskSyntaxError(position: numberStart + 1, message: what))
                    }
                    numbers.append(v)
                    if i < end && chars[i] == "," {
                        i += 1
                        numberStart = i
                        continue
                    }
                    break
                }
                i += 1
            }
            tokens.append((tokenStart + 1, numbers))
        }
        if tokens.isEmpty { return .success(nil) }
        if tokens.count == 1 {
            let t = tokens[0]
            guard t.numbers.count == 4 else {
                return .failure(
                    MaskSyntaxError(
                        position: t.position,
                        message:
                            "a rectangle is x,y,w,h (4 numbers), and a polygon's points x,y are separated by spaces; "
                            + "found \(t.numbers.count) number\(t.numbers.count == 1 ? "" : "s")"))
            }
            let (x, y, w, h) = (t.numbers[0], t.numbers[1], t.numbers[2], t.numbers[3])
            guard w > 0, h > 0 else {
                return .failure(
                    MaskSyntaxError(position: t.position, message: "a rectangle's width and height must be above 0"))
            }
            return .success(.rectangle(x: x, y: y, width: w, height: h))
        }
        guard tokens.count >= 3 else {
            return .failure(
                MaskSyntaxError(position: tokens[0].position, message: "a polygon needs three or more points x,y"))
        }
        var points: [MaskPoint] = []
        for t in tokens {
            guard t.numbers.count == 2 else {
                return .failure(
                    MaskSyntaxError(
                        position: t.position, message: "a polygon's point is x,y; found \(t.numbers.count) numbers"))
            }
            points.append(MaskPoint(t.numbers[0], t.numbers[1]))
        }
        return .success(.polygon(points))
    }
}

/// A run of pixels of one row: `x0..<x1` of row `y`.
package struct MaskSpan: Sendable, Equatable {
    package var y: Int
    package var x0: Int
    package var x1: Int
    package init(y: Int, x0: Int, x1: Int) {
        self.y = y
        self.x0 = x0
        self.x1 = x1
    }
}

extension MaskSpan {
    /// Appends row `y`'s ranges (`x0`, `x1`) to `spans` in order, merged where they overlap or
    /// touch, clipped to `0..<limit` (empty ones left out). Sorts `ranges` in place.
    package static func appendRow(_ ranges: inout [(Int, Int)], y: Int, limit: Int, to spans: inout [MaskSpan]) {
        guard !ranges.isEmpty else { return }
        ranges.sort { $0.0 < $1.0 }
        func add(_ r: (Int, Int)) {
            let x0 = max(0, r.0), x1 = min(limit, r.1)
            if x0 < x1 { spans.append(MaskSpan(y: y, x0: x0, x1: x1)) }
        }
        var current = ranges[0]
        for r in ranges.dropFirst() {
            if r.0 <= current.1 {
                current.1 = max(current.1, r.1)
            } else {
                add(current)
                current = r
            }
        }
        add(current)
    }
}

/// The stored pixels inside some regions: runs sorted by row then column, disjoint and not
/// touching. A pixel is inside when its centre is (even-odd rule for a polygon that crosses
/// itself); what lies outside the frame is clipped.
package struct MaskSpans: Sendable, Equatable {
    package var spans: [MaskSpan]
    package var width: Int
    package var height: Int

    package init(spans: [MaskSpan], width: Int, height: Int) {
        self.spans = spans
        self.width = width
        self.height = height
    }

    /// The regions on a stored frame of `width × height` shown with `orientation`.
    package init(_ regions: [MaskRegion], width: Int, height: Int, orientation: ImageOrientation = .rotate0) {
        self.width = width
        self.height = height
        spans = []
        guard width > 0, height > 0, !regions.isEmpty else { return }
        let shown = orientation.displayedSize(width: width, height: height)
        // Each outline in stored pixel coordinates.
        let outlines: [[(x: Double, y: Double)]] = regions.map { region in
            region.points.map {
                orientation.storedPoint(
                    u: $0.x * Double(shown.width), v: $0.y * Double(shown.height), width: width, height: height)
            }
        }
        var row: [(Int, Int)] = []
        var crossings: [Double] = []
        for y in 0..<height {
            let yc = Double(y) + 0.5
            row.removeAll(keepingCapacity: true)
            for outline in outlines {
                crossings.removeAll(keepingCapacity: true)
                var j = outline.count - 1
                for i in outline.indices {
                    let a = outline[j], b = outline[i]
                    if (a.y <= yc) != (b.y <= yc) {
                        crossings.append(a.x + (yc - a.y) / (b.y - a.y) * (b.x - a.x))
                    }
                    j = i
                }
                crossings.sort()
                var k = 0
                while k + 1 < crossings.count {
                    // Pixels whose centre x + 0.5 lies in [from, to).
                    let x0 = max(0, Self.firstCentre(atOrAfter: crossings[k]))
                    let x1 = min(width, Self.firstCentre(atOrAfter: crossings[k + 1]))
                    if x0 < x1 { row.append((x0, x1)) }
                    k += 2
                }
            }
            MaskSpan.appendRow(&row, y: y, limit: width, to: &spans)
        }
    }

    /// The first pixel whose centre is at or after `x` (clamped far outside the frame).
    private static func firstCentre(atOrAfter x: Double) -> Int {
        let v = (x - 0.5).rounded(.up)
        return Int(min(max(v, -1e9), 1e9))
    }

    /// Whether pixel (x, y) is inside.
    package func contains(x: Int, y: Int) -> Bool {
        spans.contains { $0.y == y && $0.x0 <= x && x < $0.x1 }
    }

    /// Number of pixels inside.
    package var area: Int { spans.reduce(0) { $0 + $1.x1 - $1.x0 } }
}

extension ImageOrientation {
    /// The stored position of the displayed point (u, v), continuous coordinates (a pixel's
    /// centre is at its index + 0.5): the mapping `stored(x:y:)` makes of pixel indices.
    package func storedPoint(u: Double, v: Double, width w: Int, height h: Int) -> (x: Double, y: Double) {
        let (W, H) = (Double(w), Double(h))
        return switch self {
        case .rotate0: (u, v)
        case .rotate90: (v, H - u)
        case .rotate180: (W - u, H - v)
        case .rotate270: (W - v, u)
        case .flipRotate0: (W - u, v)
        case .flipRotate90: (v, u)
        case .flipRotate180: (u, H - v)
        case .flipRotate270: (W - v, H - u)
        }
    }
}
