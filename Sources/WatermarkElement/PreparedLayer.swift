import WatermarkBlend
import WatermarkModel
import WatermarkRender

/// A layer's pixels for one `RenderKey`: rendered with cairo/pango, turned to the stream's
/// orientation and converted to its format. Pure: made on the streaming thread or ahead
/// of time on the `RenderAhead` worker.
struct PreparedLayer: Sendable {
    var rendered: RenderedOverlay?
    var converted: ConvertedOverlay?
    var blockRect: PixelRect

    init(
        style: OverlayStyle, image: DecodedImage?, moves: Bool, width: Int, height: Int,
        layout: PixelLayout, encoding: YUVEncoding, orientation: ImageOrientation
    ) {
        let shown = orientation.displayedSize(width: width, height: height)
        let result = BlockRenderer.render(
            style: style, image: image, frameWidth: shown.width, frameHeight: shown.height,
            alignX: orientation == .rotate0 ? layout.alignX : 1,
            alignY: orientation == .rotate0 ? layout.alignY : 1, clip: !moves)
        let rendered = result.overlay.map { orientation.storedOverlay($0, width: width, height: height) }
        self.rendered = rendered
        blockRect = result.blockRect
        converted = rendered.map {
            moves
                ? ConvertedOverlay($0, layout: layout, encoding: encoding)
                : ConvertedOverlay($0, layout: layout, encoding: encoding, frameWidth: width, frameHeight: height)
        }
    }
}
