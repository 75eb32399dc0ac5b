/// Everything about a watermark's look that rendering depends on, as plain values.
/// Opacity is not here: it is applied while blending, so fades never re-render.
/// Defaults are the property table's.
package struct OverlayStyle: Sendable, Equatable {
    package var text: String = ""
    package var fontDesc: String = (WatermarkProperties.fontDesc.defaultValue ?? "")
    /// Height of one text line as a fraction of the frame height.
    package var textSize: Double = WatermarkProperties.textSize.defaultValue
    package var color: ARGBColor = WatermarkProperties.color.defaultValue
    package var outlineColor: ARGBColor = WatermarkProperties.outlineColor.defaultValue
    /// Outline thickness as a fraction of the text size.
    package var outlineWidth: Double = WatermarkProperties.outlineWidth.defaultValue
    package var shadow: Bool = false
    /// Image width as a fraction of the frame width; 0 = natural size.
    package var imageWidth: Double = WatermarkProperties.width.defaultValue
    package var placement = Placement()
    /// cd/m² the overlay's white is shown at in PQ and HLG streams (BT.2408's graphics
    /// white by default); SDR streams ignore it.
    package var hdrReferenceWhite: Double = WatermarkProperties.hdrReferenceWhite.defaultValue
    /// Clockwise rotation of the whole block about its centre, in degrees.
    package var rotation: Double = WatermarkProperties.rotation.defaultValue
    package var caption = CaptionStyle()

    package init() {}
}

/// How text lines are laid out and boxed: alignment, wrapping, spacing, OpenType features
/// and the box behind them. Lengths are fractions of the text size (one line's height),
/// except the wrap width (a fraction of the frame width).
package struct CaptionStyle: Sendable, Equatable {
    /// The box behind the text lines; alpha 0: no box.
    package var background: ARGBColor = WatermarkProperties.backgroundColor.defaultValue
    package var padding: Double = WatermarkProperties.backgroundPadding.defaultValue
    package var radius: Double = WatermarkProperties.backgroundRadius.defaultValue
    /// The box spans the frame's width (a lower-third band).
    package var fullWidth = false
    package var align = TextAlign.auto
    package var wrapWidth: Double = WatermarkProperties.wrapWidth.defaultValue
    package var lineSpacing: Double = WatermarkProperties.lineSpacing.defaultValue
    package var letterSpacing: Double = WatermarkProperties.letterSpacing.defaultValue
    /// OpenType features (`tnum`, `smcp, onum`); nil: `tnum` for text with live
    /// placeholders (so a clock keeps its width), none otherwise.
    package var fontFeatures: String?

    package init() {}

    package var hasBox: Bool { background.alpha > 0 }
}

/// Alignment of multi-line text within its block.
public enum TextAlign: Int, Sendable, Equatable, CaseIterable {
    /// The anchor's side: left for left anchors, centre for centred ones, right for right ones.
    case auto, left, center, right

    /// Horizontal fraction (0 left, 0.5 centre, 1 right) for a block anchored at `anchor`.
    package func fraction(anchor: Anchor) -> Double {
        switch self {
        case .auto: anchor.fx
        case .left: 0
        case .center: 0.5
        case .right: 1
        }
    }
}
