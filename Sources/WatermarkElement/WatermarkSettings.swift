import CShim

/// What the properties say, copied out once per frame. `generation` changes with every
/// change that needs a re-render; opacity and overlay mode do not need one.
struct WatermarkSettings: Sendable {
    var imagePath: String?
    /// The decoded `imagePath`, or the previous image while a new one is loading or
    /// after it failed to load.
    var image: DecodedImage?
    var style = OverlayStyle()
    var opacity: Double = GST_WATERMARK_DEFAULT_OPACITY
    var blendOnly = false
    var timing = LayerTiming()
    /// `style.text` parsed for placeholders.
    var template = TextTemplate("")
    var generation: UInt64 = 1

    init() {
        style.fontDesc = GST_WATERMARK_DEFAULT_FONT_DESC
        style.textSize = GST_WATERMARK_DEFAULT_TEXT_SIZE
        style.color = ARGBColor(argb: GST_WATERMARK_DEFAULT_COLOR)
        style.outlineColor = ARGBColor(argb: GST_WATERMARK_DEFAULT_OUTLINE_COLOR)
        style.outlineWidth = GST_WATERMARK_DEFAULT_OUTLINE_WIDTH
        style.imageWidth = GST_WATERMARK_DEFAULT_WIDTH
        style.placement = Placement(anchor: .bottomRight, marginX: GST_WATERMARK_DEFAULT_MARGIN,
                                    marginY: GST_WATERMARK_DEFAULT_MARGIN,
                                    x: GST_WATERMARK_UNSET_POSITION, y: GST_WATERMARK_UNSET_POSITION)
    }

    /// Nothing to draw: the element passes buffers through untouched.
    var isEmpty: Bool { style.text.isEmpty && image == nil }

    /// Applies `change` to the style and bumps the generation if it changed anything.
    mutating func updateStyle(_ change: (inout OverlayStyle) -> Void) {
        var s = style
        change(&s)
        if s != style {
            style = s
            generation &+= 1
        }
    }
}
