/// Placement maths: where a block of a given pixel size goes in a frame. Pure values,
/// no GStreamer; every number is derived from the negotiated output frame size.

/// The corner, edge or centre of the frame a watermark is placed at. Raw values are the
/// `anchor` property's enum values (`WatermarkProperties.anchorChoice`).
public enum Anchor: Int, CaseIterable, Sendable {
    case topLeft = 0
    case top, topRight, left, center, right, bottomLeft, bottom, bottomRight

    /// Horizontal fraction of the anchor point within a box: 0 left, 0.5 centre, 1 right.
    public var fx: Double {
        switch self {
        case .topLeft, .left, .bottomLeft: 0
        case .top, .center, .bottom: 0.5
        case .topRight, .right, .bottomRight: 1
        }
    }

    /// Vertical fraction of the anchor point within a box: 0 top, 0.5 centre, 1 bottom.
    public var fy: Double {
        switch self {
        case .topLeft, .top, .topRight: 0
        case .left, .center, .right: 0.5
        case .bottomLeft, .bottom, .bottomRight: 1
        }
    }

    /// The name users type (`bottom-right`), from the property table.
    public var name: String { WatermarkProperties.anchorChoice.values[rawValue].nick }

    public init?(name: String) {
        guard let a = Anchor.allCases.first(where: { $0.name == name }) else { return nil }
        self = a
    }
}

/// An integer rectangle in frame pixels.
package struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    package var maxX: Int { x + width }
    package var maxY: Int { y + height }
    package var isEmpty: Bool { width <= 0 || height <= 0 }

    package func intersection(_ o: PixelRect) -> PixelRect {
        let x0 = max(x, o.x), y0 = max(y, o.y)
        let x1 = min(maxX, o.maxX), y1 = min(maxY, o.maxY)
        if x1 <= x0 || y1 <= y0 { return PixelRect(x: x0, y: y0, width: 0, height: 0) }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    package func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        let x0 = min(x, o.x), y0 = min(y, o.y)
        return PixelRect(x: x0, y: y0, width: max(maxX, o.maxX) - x0, height: max(maxY, o.maxY) - y0)
    }

    package func offsetBy(dx: Int, dy: Int) -> PixelRect {
        PixelRect(x: x + dx, y: y + dy, width: width, height: height)
    }

    package var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// How a layer is positioned: by anchor and margins, or by an explicit relative point.
package struct Placement: Hashable, Sendable {
    package var anchor: Anchor
    /// Fraction of the frame width/height between the anchored edge and the block.
    package var marginX: Double
    package var marginY: Double
    /// Relative position (0...1) of the block's anchor point; negative = unset.
    package var x: Double
    package var y: Double

    package init(
        anchor: Anchor = .bottomRight, marginX: Double = WatermarkProperties.marginX.defaultValue,
        marginY: Double = WatermarkProperties.marginY.defaultValue,
        x: Double = WatermarkProperties.x.defaultValue, y: Double = WatermarkProperties.y.defaultValue
    ) {
        self.anchor = anchor
        self.marginX = marginX
        self.marginY = marginY
        self.x = x
        self.y = y
    }
}

package enum LayerLayout {
    /// Top-left corner of a `blockWidth`×`blockHeight` block in a frame.
    ///
    /// With margins, the anchored edge of the block sits `margin × frame size` from the
    /// matching frame edge; a centred axis ignores its margin. With `x`/`y` set, the
    /// block's anchor point (its corner, edge middle or centre) lands on
    /// `(x × width, y × height)`. Values that are not finite count as unset / zero.
    package static func origin(
        blockWidth: Int, blockHeight: Int, frameWidth: Int, frameHeight: Int,
        placement p: Placement
    ) -> (x: Int, y: Int) {
        let ox = axisOrigin(
            block: blockWidth, frame: frameWidth, fraction: p.anchor.fx,
            margin: p.marginX, position: p.x)
        let oy = axisOrigin(
            block: blockHeight, frame: frameHeight, fraction: p.anchor.fy,
            margin: p.marginY, position: p.y)
        return (ox, oy)
    }

    static func axisOrigin(block: Int, frame: Int, fraction: Double, margin: Double, position: Double) -> Int {
        let b = Double(block), f = Double(frame)
        let value: Double
        if position.isFinite, position >= 0 {
            value = position * f - fraction * b
        } else {
            let m = margin.isFinite ? margin * f : 0
            switch fraction {
            case 0: value = m
            case 1: value = f - m - b
            default: value = (f - b) / 2
            }
        }
        return clampToInt(value.rounded())
    }

    /// Rounds `x` down to a multiple of `step` (a power of two), also for negatives.
    package static func alignDown(_ x: Int, to step: Int) -> Int {
        step <= 1 ? x : x & ~(step - 1)
    }
}

/// A logo and its caption stacked into one block: image above text, aligned on the
/// side the anchor names, separated by `gap` pixels. Sizes in pixels.
package struct BlockLayout: Hashable, Sendable {
    package var bounds: PixelRect
    package var image: PixelRect?
    package var text: PixelRect?

    package init(
        image: (width: Int, height: Int)?, text: (width: Int, height: Int)?, gap: Int,
        alignment: Double
    ) {
        let iw = image?.width ?? 0, ih = image?.height ?? 0
        let tw = text?.width ?? 0, th = text?.height ?? 0
        let width = max(iw, tw)
        let g = (image != nil && text != nil) ? max(0, gap) : 0
        func left(_ w: Int) -> Int { Int((Double(width - w) * alignment).rounded()) }
        self.image = image.map { PixelRect(x: left($0.width), y: 0, width: $0.width, height: $0.height) }
        self.text = text.map { PixelRect(x: left($0.width), y: ih + g, width: $0.width, height: $0.height) }
        bounds = PixelRect(x: 0, y: 0, width: width, height: ih + g + th)
    }
}

/// Converts a Double to Int without trapping: NaN becomes 0, out-of-range values clamp.
@inline(__always)
package func clampToInt(_ v: Double, limit: Double = 1_073_741_824) -> Int {
    guard v.isFinite else { return 0 }
    return Int(min(max(v, -limit), limit))
}
