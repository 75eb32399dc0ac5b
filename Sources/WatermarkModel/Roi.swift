// Overlays that follow detections: the regions of interest analytics elements attach to each
// frame (GstVideoRegionOfInterestMeta), which are filled (anonymised), outlined and labelled
// where they are, frame by frame. Rectangles are in the buffer's stored pixels, as the meta
// gives them.

/// How a follow layer fills each region of interest.
public enum RoiFill: Int, Sendable, Equatable, CaseIterable {
    /// Nothing: the picture inside stays (a box or a label only).
    case none
    /// The mask colour (opaque).
    case solid
    /// A mosaic of square cells, each the mean of the source inside the rectangle.
    case pixelate
    /// A Gaussian blur (three box passes).
    case blur

    /// The mask fill it stands for (nil: none).
    package var maskFill: MaskFill? {
        switch self {
        case .none: nil
        case .solid: .solid
        case .pixelate: .pixelate
        case .blur: .blur
        }
    }
}

/// One region of interest of a frame: its type (the meta's `roi_type` name, or an analytics
/// detection's class), id (the meta's, or the detection's tracking id), rectangle in the
/// buffer's pixels and confidence (0…1; nil when no param structure has one).
package struct RegionOfInterest: Sendable, Equatable {
    package var type: String
    package var id: Int64
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int
    package var confidence: Double?

    package init(type: String, id: Int64 = 0, x: Int, y: Int, width: Int, height: Int, confidence: Double? = nil) {
        self.type = type
        self.id = id
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.confidence = confidence
    }
}

extension RegionOfInterest {
    /// Whether `other` describes the same object: boxes that overlap by 90 % or more of their
    /// union (intersection over union). A producer that attaches both a region-of-interest meta
    /// and an analytics detection for one object gives both the same box (DL Streamer does);
    /// two objects that distinct boxes describe are never this close.
    package func isSameObject(as other: RegionOfInterest) -> Bool {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(x + width, other.x + other.width), y1 = min(y + height, other.y + other.height)
        guard x1 > x0, y1 > y0, width > 0, height > 0, other.width > 0, other.height > 0 else { return false }
        let common = Double(x1 - x0) * Double(y1 - y0)
        let union = Double(width) * Double(height) + Double(other.width) * Double(other.height) - common
        return common >= 0.9 * union
    }
}

/// A label's text with `{roi:type}`, `{roi:id}`, `{roi:confidence}` and
/// `{roi:confidence:FORMAT}` (0…100, one printf number conversion; empty for a region without
/// a confidence); `{{` and `}}` are braces, anything else is kept as written.
package struct RoiLabel: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case type, id
        case confidence(NumberFormat?)
    }

    let parts: [Part]
    /// The text as written.
    package let source: String

    package init(_ text: String) {
        source = text
        var parts: [Part] = []
        var literal = ""
        var i = text.startIndex
        func flush() {
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
        }
        while i < text.endIndex {
            let c = text[i], next = text.index(after: i)
            if c == "{" || c == "}", next < text.endIndex, text[next] == c {
                literal.append(c)
                i = text.index(after: next)
                continue
            }
            if c == "{", let close = text[next...].firstIndex(of: "}"), let part = Self.part(text[next..<close]) {
                flush()
                parts.append(part)
                i = text.index(after: close)
                continue
            }
            literal.append(c)
            i = next
        }
        flush()
        self.parts = parts
    }

    private static func part(_ name: Substring) -> Part? {
        switch name {
        case "roi:type": return .type
        case "roi:id": return .id
        case "roi:confidence": return .confidence(nil)
        default:
            guard name.hasPrefix("roi:confidence:"), let f = NumberFormat(String(name.dropFirst(15))) else {
                return nil
            }
            return .confidence(f)
        }
    }

    /// Whether the text is the same for every region.
    package var isStatic: Bool { parts.allSatisfy { if case .literal = $0 { true } else { false } } }

    /// Whether the text names the region's type (the element then reads its name).
    package var usesType: Bool { parts.contains(.type) }

    /// The label of `roi`.
    package func text(for roi: RegionOfInterest) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let s): out += s
            case .type: out += roi.type
            case .id: out += String(roi.id)
            case .confidence(let format):
                guard let c = roi.confidence, c.isFinite else { continue }
                let percent = c * 100
                out += format?.format(percent, exact: nil) ?? String(Int(percent.rounded()))
            }
        }
        return out
    }
}

/// What the `roi-…` properties (or a follow layer) draw for each region of a frame.
package struct RoiFollow: Sendable, Equatable {
    /// The types followed; nil: all.
    package var types: [String]?
    package var fill = RoiFill.none
    /// A solid fill's colour (alpha ignored), a pixelated fill's cell and a blurred fill's σ
    /// (fractions of the frame width): the mask's.
    package var fillColor = WatermarkProperties.maskColor.defaultValue
    package var cell = WatermarkProperties.maskCell.defaultValue
    package var radius = WatermarkProperties.maskRadius.defaultValue
    /// The outline's colour (alpha 0: no box) and thickness (a fraction of the frame height).
    package var boxColor = ARGBColor(argb: 0)
    package var boxWidth = 0.004
    package var label: RoiLabel?
    package var minConfidence = 0.0
    /// The rectangle grown by this fraction of its size on each side.
    package var grow = 0.0

    package init() {}

    /// Whether anything is drawn for a region.
    package var drawsAnything: Bool { fill != .none || hasBox || label != nil }

    package var hasBox: Bool { boxColor.alpha > 0 && boxWidth > 0 }

    /// Most regions drawn on one frame (the rest are skipped, with a warning).
    package static let maxRegions = 256

    /// Whether `roi` passes the type filter and the confidence threshold (a region without a
    /// confidence always does).
    package func accepts(type: String, confidence: Double?) -> Bool {
        if let types, !types.contains(type) { return false }
        return passes(confidence: confidence)
    }

    /// Whether a region with `confidence` reaches the threshold (one without always does).
    package func passes(confidence: Double?) -> Bool {
        guard let c = confidence else { return true }
        return c >= minConfidence
    }

    /// The region's rectangle grown by `grow` of its size on each side and clipped to the
    /// frame; nil when nothing of it is inside (or it has no area).
    package func rect(_ roi: RegionOfInterest, width: Int, height: Int) -> PixelRect? {
        guard roi.width > 0, roi.height > 0 else { return nil }
        let g = grow.isFinite ? min(max(grow, 0), 100) : 0
        let gx = (Double(roi.width) * g).rounded(), gy = (Double(roi.height) * g).rounded()
        let x0 = max(0, Double(roi.x) - gx), y0 = max(0, Double(roi.y) - gy)
        let x1 = min(Double(width), Double(roi.x) + Double(roi.width) + gx)
        let y1 = min(Double(height), Double(roi.y) + Double(roi.height) + gy)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0))
    }

    /// The box's thickness in pixels on a frame shown `shownHeight` high (at least 1 when
    /// there is a box).
    package func boxThickness(shownHeight: Int) -> Int {
        guard hasBox, boxWidth.isFinite else { return 0 }
        return max(1, Int(min(boxWidth, 1) * Double(shownHeight) + 0.5))
    }

    /// The outline around `rect`: four bands `thickness` thick outside it, its inner edge on
    /// the rectangle's edge, clipped to the frame.
    package static func box(around r: PixelRect, thickness t: Int, width: Int, height: Int) -> [PixelRect] {
        guard t > 0 else { return [] }
        let bands = [
            PixelRect(x: r.x - t, y: r.y - t, width: r.width + 2 * t, height: t),
            PixelRect(x: r.x - t, y: r.y + r.height, width: r.width + 2 * t, height: t),
            PixelRect(x: r.x - t, y: r.y, width: t, height: r.height),
            PixelRect(x: r.x + r.width, y: r.y, width: t, height: r.height),
        ]
        return bands.compactMap { $0.clipped(width: width, height: height) }
    }

    /// Where a label of `size` goes for a box (its outline included) at `outer`, in displayed
    /// pixels: above its top-left corner (`anchor` picks another corner: a bottom anchor puts
    /// it below the box, a right one aligns it with the right edge), moved inside the frame.
    package static func labelOrigin(
        outer: PixelRect, size: (width: Int, height: Int), anchor: Anchor = .topLeft, frame: (width: Int, height: Int)
    ) -> (x: Int, y: Int) {
        let right = anchor.fx == 1, below = anchor.fy == 1
        var x = right ? outer.x + outer.width - size.width : outer.x
        var y = below ? outer.y + outer.height : outer.y - size.height
        x = max(0, min(x, frame.width - size.width))
        y = max(0, min(y, frame.height - size.height))
        return (x, y)
    }
}

extension RoiFollow {
    /// `rects` in groups that overlap (each filled as one region; apart, each is filled on
    /// its own, so a blur reads only around it), in the order of their first rectangle.
    package static func groups(_ rects: [PixelRect]) -> [[PixelRect]] {
        var group = Array(rects.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while group[i] != i {
                group[i] = group[group[i]]
                i = group[i]
            }
            return i
        }
        for i in rects.indices {
            for j in rects.indices where j > i && !rects[i].intersection(rects[j]).isEmpty {
                let a = root(i), b = root(j)
                if a != b { group[max(a, b)] = min(a, b) }
            }
        }
        var out: [[PixelRect]] = []
        var slot: [Int: Int] = [:]
        for i in rects.indices {
            let r = root(i)
            if let k = slot[r] {
                out[k].append(rects[i])
            } else {
                slot[r] = out.count
                out.append([rects[i]])
            }
        }
        return out
    }
}

extension PixelRect {
    /// The part inside a frame of `width × height`; nil when none is.
    package func clipped(width w: Int, height h: Int) -> PixelRect? {
        let inside = intersection(PixelRect(x: 0, y: 0, width: w, height: h))
        return inside.isEmpty ? nil : inside
    }
}

extension MaskSpans {
    /// The pixels of `rects` (clipped to the frame, overlaps merged).
    package init(rects: [PixelRect], width: Int, height: Int) {
        self.init(spans: [], width: width, height: height)
        guard width > 0, height > 0, !rects.isEmpty else { return }
        let clipped = rects.compactMap { $0.clipped(width: width, height: height) }
        guard let top = clipped.map(\.y).min(), let bottom = clipped.map({ $0.y + $0.height }).max() else { return }
        var row: [(Int, Int)] = []
        for y in top..<bottom {
            row.removeAll(keepingCapacity: true)
            for r in clipped where r.y <= y && y < r.y + r.height { row.append((r.x, r.x + r.width)) }
            MaskSpan.appendRow(&row, y: y, limit: width, to: &spans)
        }
    }
}
