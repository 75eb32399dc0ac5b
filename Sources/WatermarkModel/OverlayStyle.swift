/// Everything about a watermark's look that rendering depends on, as plain values.
/// Opacity is not here: it is applied while blending, so fades never re-render.
/// Defaults are the property table's.
package struct OverlayStyle: Sendable, Equatable {
    package var text: String = ""
    package var fontDesc: String = WatermarkProperties.defaultString("font-desc")
    /// Height of one text line as a fraction of the frame height.
    package var textSize: Double = WatermarkProperties.defaultDouble("text-size")
    package var color: ARGBColor = WatermarkProperties.defaultColor("color")
    package var outlineColor: ARGBColor = WatermarkProperties.defaultColor("outline-color")
    /// Outline thickness as a fraction of the text size.
    package var outlineWidth: Double = WatermarkProperties.defaultDouble("outline-width")
    package var shadow: Bool = false
    /// Image width as a fraction of the frame width; 0 = natural size.
    package var imageWidth: Double = WatermarkProperties.defaultDouble("width")
    package var placement = Placement()
    /// cd/m² the overlay's white is shown at in PQ and HLG streams (BT.2408's graphics
    /// white by default); SDR streams ignore it.
    package var hdrReferenceWhite: Double = WatermarkProperties.defaultDouble("hdr-reference-white")
    /// Clockwise rotation of the whole block about its centre, in degrees.
    package var rotation: Double = WatermarkProperties.defaultDouble("rotation")

    package init() {}
}
