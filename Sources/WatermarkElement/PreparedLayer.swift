import WatermarkBlend
import WatermarkChangingText
import WatermarkModel
import WatermarkRender

/// A layer's pixels for one `RenderKey`: rendered with cairo/pango, turned to the stream's
/// orientation and converted to its format and signal. Pure: made on the streaming thread or ahead
/// of time on the `RenderAhead` worker.
struct PreparedLayer: Sendable {
    var rendered: RenderedOverlay?
    var converted: ConvertedOverlay?
    /// A moving layer's pixels as `converted` was made from them (the stream's signal, its
    /// stored orientation), for the copies converted at offsets off the chroma grid.
    var source: RenderedOverlay?
    var blockRect: PixelRect
    /// Where the text lines are in the frame (displayed; nil when turned or without text).
    var textRect: PixelRect?

    /// `changing`: the layer's text changes as it plays; a layer that does not move, in a
    /// stream shown as stored, is then drawn again only where its text changed.
    init(
        style: OverlayStyle, image: DecodedImage?, moves: Bool, width: Int, height: Int,
        format: StreamFormat, orientation: ImageOrientation, changing: ChangingText? = nil
    ) {
        let layout = format.layout, encoding = format.encoding
        if let changing, !moves, orientation == .rotate0 {
            let out = changing.render(
                style: style, image: image, width: width, height: height, format: format,
                signal: format.signal(referenceWhite: style.hdrReferenceWhite))
            rendered = out.rendered
            converted = out.converted
            source = nil
            blockRect = out.blockRect
            textRect = out.textRect
            return
        }
        let shown = orientation.displayedSize(width: width, height: height)
        let result = BlockRenderer.render(
            style: style, image: image, frameWidth: shown.width, frameHeight: shown.height,
            alignX: orientation == .rotate0 ? layout.alignX : 1,
            alignY: orientation == .rotate0 ? layout.alignY : 1, clip: !moves)
        let rendered = result.overlay.map { orientation.storedOverlay($0, width: width, height: height) }
        self.rendered = rendered
        blockRect = result.blockRect
        textRect = result.textRect
        // The blended copy in the stream's signal (HDR, wide gamut); the composition meta keeps
        // the sRGB pixels, which the sink composites itself.
        let signal = format.signal(referenceWhite: style.hdrReferenceWhite)
        let signalled = rendered.map(signal.convert)
        source = moves ? signalled : nil
        converted = signalled.map {
            moves
                ? ConvertedOverlay($0, layout: layout, encoding: encoding)
                : ConvertedOverlay($0, layout: layout, encoding: encoding, frameWidth: width, frameHeight: height)
        }
    }
}

/// A layer's `ChangingTextRenderer` (its bands and their cache), shared by the streaming
/// thread and the render-ahead worker, one render at a time.
final class ChangingText: Sendable {
    private let renderer = Locked(ChangingTextRenderer())

    func render(
        style: OverlayStyle, image: DecodedImage?, width: Int, height: Int, format: StreamFormat, signal: OverlaySignal
    ) -> ChangingTextRenderer.Output {
        renderer.withLock {
            $0.render(
                style: style, image: image, frameWidth: width, frameHeight: height, layout: format.layout,
                encoding: format.encoding, signal: signal)
        }
    }
}
