import CGStreamer
import CShim
import Glibc
import WatermarkBlend
import WatermarkModel
import WatermarkRender

/// What a layer's pixels depend on. A moving layer's position is not part of it.
struct RenderKey: Equatable, Sendable {
    var style: OverlayStyle
    var moves: Bool
    var image: ObjectIdentifier?
    var width: Int
    var height: Int
    var orientation: ImageOrientation
    var infoGeneration: UInt64

    init(
        style: OverlayStyle, moves: Bool, image: DecodedImage?, width: Int, height: Int,
        orientation: ImageOrientation, infoGeneration: UInt64
    ) {
        var s = style
        if moves {
            s.placement.x = -1
            s.placement.y = -1
        }
        self.style = s
        self.moves = moves
        self.image = image.map { ObjectIdentifier($0) }
        self.width = width
        self.height = height
        self.orientation = orientation
        self.infoGeneration = infoGeneration
    }
}

/// A ticker text a newer one has followed: its pixels, and where its copies go this frame
/// (stored offsets, from `TickerState`'s displayed positions).
final class TickerText {
    let rendered: RenderedOverlay?
    let converted: ConvertedOverlay
    let source: LayerCache.PhaseSource?
    var phased: [Int: ConvertedOverlay] = [:]
    var offsets: [(dx: Int, dy: Int)] = []
    /// The pixels as a buffer for overlay composition meta, made when first needed.
    var pixels: UnsafeMutablePointer<GstBuffer>?

    init(rendered: RenderedOverlay?, converted: ConvertedOverlay, source: LayerCache.PhaseSource?) {
        self.rendered = rendered
        self.converted = converted
        self.source = source
    }

    deinit { if let pixels { gst_buffer_unref(pixels) } }
}

/// A ticker's full-width band (`background-full-width`): the box alone, rendered where the
/// layer's row is and drawn still, under the moving copies (which carry no box of their own).
final class TickerBand {
    let key: RenderKey
    let prepared: PreparedLayer
    /// The pixels as a buffer for overlay composition meta, made when first needed.
    var pixels: UnsafeMutablePointer<GstBuffer>?

    init(key: RenderKey, prepared: PreparedLayer) {
        self.key = key
        self.prepared = prepared
    }

    deinit { if let pixels { gst_buffer_unref(pixels) } }
}

/// One layer's rendered and converted pixels, and where they go this frame.
struct LayerCache {
    var key: RenderKey?
    var rendered: RenderedOverlay?
    var converted: ConvertedOverlay?
    /// Block origin (displayed coordinates) the pixels were rendered at.
    var blockOrigin = (x: 0, y: 0)
    var blockSize = (width: 0, height: 0)
    var visible = false
    var opacity = 1.0
    /// What was requested from `RenderAhead` for the next frame, and for how many more
    /// frames not to ask after a wrong prediction.
    var predicted: RenderKey?
    var skipPredictions = 0
    /// A layer whose text changes as it plays: drawn again where it changed.
    var changingText: ChangingText?
    /// An animated logo's frames as rendered and converted, by key (its frame among them).
    var kept: [(key: RenderKey, prepared: PreparedLayer)] = []
    var dx = 0
    var dy = 0
    /// Further places the same pixels go this frame (a ticker's following copies).
    var copies: [(dx: Int, dy: Int)] = []
    /// Every place the pixels go this frame.
    var offsets: [(dx: Int, dy: Int)] { [(dx, dy)] + copies }
    /// The pixels as a buffer for overlay composition meta, made when first needed.
    var pixels: UnsafeMutablePointer<GstBuffer>?

    /// `converted` with a steady opacity below 1 folded in (see `blendable`), and the
    /// opacity step of the previous frame.
    var folded: ConvertedOverlay?
    var lastOpacityStep: UInt32 = 256

    /// A moving layer's `PreparedLayer.source` and the stream's format, and the copies made
    /// from it by phase: the luma offset's remainder on the chroma grid.
    typealias PhaseSource = (overlay: RenderedOverlay, layout: PixelLayout, encoding: YUVEncoding)
    var phaseSource: PhaseSource?
    var phased: [Int: ConvertedOverlay] = [:]
    /// A ticker's texts: the current one's origin and the earlier ones still in view.
    var ticker = TickerState<TickerText>()
    /// A ticker's band, and how far down the copies go to sit in it (displayed pixels).
    var band: TickerBand?
    var bandShift = 0
    /// The text lines' y (displayed) in the current render.
    var copyTextY: Int?

    mutating func dropPixels() {
        if let pixels { gst_buffer_unref(pixels) }
        pixels = nil
        folded = nil
        phased.removeAll()
    }

    /// For an offset off the chroma grid (an odd luma offset in 4:2:0): the pixels converted
    /// as if rendered that many pixels further (chroma samples then average the right pixels
    /// pairs), made once per render and phase, and the offset on the grid to blend them at.
    /// nil on the grid, and for layers that do not move.
    mutating func offGrid(dx: Int, dy: Int) -> (overlay: ConvertedOverlay, dx: Int, dy: Int)? {
        Self.offGrid(source: phaseSource, phased: &phased, dx: dx, dy: dy)
    }

    static func offGrid(
        source: PhaseSource?, phased: inout [Int: ConvertedOverlay], dx: Int, dy: Int
    ) -> (overlay: ConvertedOverlay, dx: Int, dy: Int)? {
        guard let source else { return nil }
        let ax = source.layout.alignX, ay = source.layout.alignY
        let px = ((dx % ax) + ax) % ax, py = ((dy % ay) + ay) % ay
        if px == 0 && py == 0 { return nil }
        let key = px << 8 | py
        if let made = phased[key] { return (made, dx - px, dy - py) }
        let shifted = RenderedOverlay(rect: source.overlay.rect.offsetBy(dx: px, dy: py), pixels: source.overlay.pixels)
        let made = ConvertedOverlay(shifted, layout: source.layout, encoding: source.encoding)
        phased[key] = made
        return (made, dx - px, dy - py)
    }

    /// What to blend this frame and at what opacity. A layer whose opacity below 1 stayed
    /// the same since the previous frame gets its samples scaled once (a copy of the packed
    /// samples) and is then blended at opacity 1, with the cheaper loop; one that fades
    /// (a new opacity every frame) is blended with the opacity applied per sample.
    mutating func blendable() -> (overlay: ConvertedOverlay, opacity: Double)? {
        guard let converted else { return nil }
        let step = ConvertedOverlay.opacityStep(opacity)
        defer { lastOpacityStep = step }
        if step >= 256 { return (converted, 1) }
        if folded?.opacityStep == step, let folded { return (folded, 1) }
        if step == lastOpacityStep {
            let f = converted.withOpacity(opacity)
            folded = f
            return (f, 1)
        }
        return (converted, opacity)
    }
}

/// State of the streaming thread: the negotiated format and the cached layers.
struct StreamState {
    var format: StreamFormat?
    var infoGeneration: UInt64 = 0
    var caps: UnsafeMutablePointer<GstCaps>?
    var needsMetaCheck = true
    var attach = false
    /// Whether upstream is live (asked once per caps): only then is there time between
    /// frames for rendering ahead a layer that changes every frame.
    var needsLiveCheck = true
    /// Variables a text showed unset, each told once in the log.
    var unsetVariables = Set<String>()
    /// Data fields a text showed that the data file has not, each told once in the log.
    var missingFields = Set<String>()
    /// The stream's creation time (its `datetime` tag), seconds since the Unix epoch.
    var creationTime: Double?
    /// Told once: a data file with dates and times, on a stream without a creation time.
    var toldNoCreationTime = false
    /// Told once: `{camera-clock}` on frames without the camera's time (the local clock shows).
    var toldNoCameraClock = false
    var live = false
    /// What the base class was last told about passthrough (nil: not yet this caps).
    var passthrough: Bool?
    /// The settings the last frame used (see `frameSettings`).
    var settings: WatermarkSettings?
    var orientation = ImageOrientation.rotate0
    /// One cache per layer; replaced only through `resizeLayers` (which releases buffers).
    private(set) var layers: [LayerCache] = []
    var composition: OpaquePointer?
    /// What the cached composition shows: per visible layer, pixels, offset and opacity.
    var compositionKey: [CompositionEntry] = []
    var frameCount = 0
    /// What each mask and follow layer keeps from frame to frame (the properties' at
    /// `HidingCache.propertySlot`, a config layer's at its index), and the scratch memory
    /// pixelating and blurring reuse.
    var hiding: [Int: HidingCache] = [:]
    var maskScratch = MaskScratch()
    /// The forensic mark's painter for the current format and size.
    var forensic: ForensicCache?
    /// Frames in CUDA memory: their info, the kernel on the current context, what was said.
    var cuda = false
    var cudaInfo: GstVideoInfo?
    var cudaBlender: CudaBlender?
    var toldCudaFailure = false
    var toldCudaFallback = false
    /// The subtitle renderer and its last picture; the document it could not be made for.
    var subtitles: SubtitleCache?
    var subtitleFailed: UInt64?
    /// The regions of interest of the current frame.
    var rois = RoiState()

    struct CompositionEntry: Equatable {
        var pixels: UnsafeMutablePointer<GstBuffer>
        var rect: PixelRect
        var opacity: Double
    }

    mutating func setCaps(_ newCaps: UnsafeMutablePointer<GstCaps>?) {
        if let newCaps { _ = gst_caps_ref(newCaps) }
        if let caps { gst_caps_unref(caps) }
        caps = newCaps
    }

    mutating func resizeLayers(_ count: Int) {
        for i in layers.indices { layers[i].dropPixels() }
        layers = Array(repeating: LayerCache(), count: count)
        dropComposition()
    }

    mutating func withLayer<R>(_ i: Int, _ body: (inout LayerCache) -> R) -> R { body(&layers[i]) }

    mutating func dropComposition() {
        if let composition { gst_video_overlay_composition_unref(composition) }
        composition = nil
        compositionKey = []
    }

    mutating func reset() {
        resizeLayers(0)
        setCaps(nil)
        self = StreamState()
    }

    /// Attaches the visible layers as one GstVideoOverlayCompositionMeta; the composition
    /// is rebuilt only when a layer's pixels, position or opacity changed.
    mutating func attachComposition(to buffer: UnsafeMutablePointer<GstBuffer>) {
        var entries: [CompositionEntry] = []
        for i in layers.indices where layers[i].visible {
            guard let rendered = layers[i].rendered, !rendered.rect.isEmpty else { continue }
            if layers[i].pixels == nil { layers[i].pixels = Self.pixelBuffer(rendered) }
            guard let pixels = layers[i].pixels else { continue }
            if let band = layers[i].band, let r = band.prepared.rendered, !r.rect.isEmpty {
                if band.pixels == nil { band.pixels = Self.pixelBuffer(r) }
                if let p = band.pixels {
                    entries.append(CompositionEntry(pixels: p, rect: r.rect, opacity: layers[i].opacity))
                }
            }
            for entry in layers[i].ticker.past {
                let past = entry.text
                guard let r = past.rendered, !r.rect.isEmpty, !past.offsets.isEmpty else { continue }
                if past.pixels == nil { past.pixels = Self.pixelBuffer(r) }
                guard let p = past.pixels else { continue }
                for (dx, dy) in past.offsets {
                    entries.append(
                        CompositionEntry(pixels: p, rect: r.rect.offsetBy(dx: dx, dy: dy), opacity: layers[i].opacity))
                }
            }
            for (dx, dy) in layers[i].offsets {
                entries.append(
                    CompositionEntry(
                        pixels: pixels, rect: rendered.rect.offsetBy(dx: dx, dy: dy), opacity: layers[i].opacity))
            }
        }
        if entries.isEmpty { return }
        if composition == nil || entries != compositionKey {
            dropComposition()
            for entry in entries {
                let r = entry.rect
                guard
                    let rect = gst_video_overlay_rectangle_new_raw(
                        entry.pixels, Int32(clamping: r.x), Int32(clamping: r.y),
                        UInt32(r.width), UInt32(r.height), GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA)
                else { continue }
                gst_video_overlay_rectangle_set_global_alpha(rect, Float(entry.opacity))
                if let composition {
                    gst_video_overlay_composition_add_rectangle(composition, rect)
                } else {
                    composition = gst_video_overlay_composition_new(rect)
                }
                gst_video_overlay_rectangle_unref(rect)
            }
            compositionKey = entries
        }
        if let composition {
            _ = gst_buffer_add_video_overlay_composition_meta(buffer, composition)
        }
    }

    /// cairo's ARGB32 is BGRA in memory on little-endian machines, which is
    /// GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB there.
    static func pixelBuffer(_ rendered: RenderedOverlay) -> UnsafeMutablePointer<GstBuffer>? {
        let size = rendered.pixels.count * 4
        guard let pixels = gst_buffer_new_allocate(nil, gsize(size), nil) else { return nil }
        _ = rendered.pixels.withUnsafeBytes { gst_buffer_fill(pixels, 0, $0.baseAddress, gsize(size)) }
        _ = gst_buffer_add_video_meta(
            pixels, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_BGRA,
            UInt32(rendered.rect.width), UInt32(rendered.rect.height))
        return pixels
    }
}

/// What converting a layer for the negotiated caps depends on: the pixel layout, the YUV
/// matrix and range, and the transfer and primaries the overlay's colours are placed in.
struct StreamFormat: Sendable, Equatable {
    var layout: PixelLayout
    var encoding: YUVEncoding
    var transfer: SignalTransfer
    var primaries: SignalPrimaries

    func signal(referenceWhite: Double) -> OverlaySignal {
        OverlaySignal(transfer: transfer, primaries: primaries, referenceWhite: referenceWhite)
    }
}
