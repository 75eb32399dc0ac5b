// Threading invariant: `settings` is the only state shared between the application's
// threads (property setters, image loader threads) and the streaming thread; it is
// behind a Mutex and copied out once per frame. `stream` is touched only by the
// streaming thread (set_info, before_transform, transform) and by start/stop, which
// GStreamer never runs concurrently with streaming. Hence @unchecked Sendable.

import CGStreamer
import CShim
import Glibc
import Synchronization

final class WatermarkImpl: @unchecked Sendable {
    /// The GObject that owns this object (not retained: it outlives us).
    let element: UnsafeMutablePointer<GstWatermark>
    let settings = Mutex(WatermarkSettings())
    let running = Atomic<Bool>(false)
    private var stream = StreamState()

    init(element: UnsafeMutablePointer<GstWatermark>) {
        self.element = element
    }

    deinit {
        stream.reset()
    }

    // MARK: properties

    func setProperty(_ id: GstWatermarkProp, _ value: UnsafePointer<GValue>) {
        switch id {
        case GST_WATERMARK_PROP_IMAGE:
            setImage(string(value))
        case GST_WATERMARK_PROP_TEXT:
            let text = string(value) ?? ""
            let template = TextTemplate(text)
            settings.withLock {
                $0.template = template
                $0.updateStyle { $0.text = text }
            }
        case GST_WATERMARK_PROP_FONT_DESC:
            let font = string(value) ?? ""
            settings.withLock { $0.updateStyle { $0.fontDesc = font.isEmpty ? GST_WATERMARK_DEFAULT_FONT_DESC : font } }
        case GST_WATERMARK_PROP_TEXT_SIZE:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_DEFAULT_TEXT_SIZE)
            settings.withLock { $0.updateStyle { $0.textSize = v } }
        case GST_WATERMARK_PROP_COLOR:
            let c = ARGBColor(argb: UInt32(truncatingIfNeeded: g_value_get_uint(value)))
            settings.withLock { $0.updateStyle { $0.color = c } }
        case GST_WATERMARK_PROP_OUTLINE_COLOR:
            let c = ARGBColor(argb: UInt32(truncatingIfNeeded: g_value_get_uint(value)))
            settings.withLock { $0.updateStyle { $0.outlineColor = c } }
        case GST_WATERMARK_PROP_OUTLINE_WIDTH:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_DEFAULT_OUTLINE_WIDTH)
            settings.withLock { $0.updateStyle { $0.outlineWidth = v } }
        case GST_WATERMARK_PROP_SHADOW:
            let v = g_value_get_boolean(value) != 0
            settings.withLock { $0.updateStyle { $0.shadow = v } }
        case GST_WATERMARK_PROP_ANCHOR:
            let a = Anchor(rawValue: Int(g_value_get_enum(value))) ?? .bottomRight
            settings.withLock { $0.updateStyle { $0.placement.anchor = a } }
        case GST_WATERMARK_PROP_MARGIN_X:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_DEFAULT_MARGIN)
            settings.withLock { $0.updateStyle { $0.placement.marginX = v } }
        case GST_WATERMARK_PROP_MARGIN_Y:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_DEFAULT_MARGIN)
            settings.withLock { $0.updateStyle { $0.placement.marginY = v } }
        case GST_WATERMARK_PROP_X:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_UNSET_POSITION)
            settings.withLock { $0.updateStyle { $0.placement.x = v } }
        case GST_WATERMARK_PROP_Y:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_UNSET_POSITION)
            settings.withLock { $0.updateStyle { $0.placement.y = v } }
        case GST_WATERMARK_PROP_WIDTH:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_DEFAULT_WIDTH)
            settings.withLock { $0.updateStyle { $0.imageWidth = v } }
        case GST_WATERMARK_PROP_OPACITY:
            let v = min(max(finite(g_value_get_double(value), or: 1), 0), 1)
            settings.withLock { $0.opacity = v }
        case GST_WATERMARK_PROP_OVERLAY_MODE:
            let blend = g_value_get_enum(value) == Int32(GST_WATERMARK_OVERLAY_MODE_BLEND.rawValue)
            settings.withLock { $0.blendOnly = blend }
        case GST_WATERMARK_PROP_START:
            let v = max(0, finite(g_value_get_double(value), or: 0))
            settings.withLock { $0.timing.start = v }
        case GST_WATERMARK_PROP_END:
            let v = finite(g_value_get_double(value), or: -1)
            settings.withLock { $0.timing.end = v < 0 ? -1 : v }
        case GST_WATERMARK_PROP_FADE_IN:
            let v = max(0, finite(g_value_get_double(value), or: 0))
            settings.withLock { $0.timing.fadeIn = v }
        case GST_WATERMARK_PROP_FADE_OUT:
            let v = max(0, finite(g_value_get_double(value), or: 0))
            settings.withLock { $0.timing.fadeOut = v }
        default:
            break
        }
    }

    func getProperty(_ id: GstWatermarkProp, _ value: UnsafeMutablePointer<GValue>) {
        let s = settings.withLock { $0 }
        switch id {
        case GST_WATERMARK_PROP_IMAGE: g_value_set_string(value, s.imagePath)
        case GST_WATERMARK_PROP_TEXT: g_value_set_string(value, s.style.text)
        case GST_WATERMARK_PROP_FONT_DESC: g_value_set_string(value, s.style.fontDesc)
        case GST_WATERMARK_PROP_TEXT_SIZE: g_value_set_double(value, s.style.textSize)
        case GST_WATERMARK_PROP_COLOR: g_value_set_uint(value, s.style.color.argb)
        case GST_WATERMARK_PROP_OUTLINE_COLOR: g_value_set_uint(value, s.style.outlineColor.argb)
        case GST_WATERMARK_PROP_OUTLINE_WIDTH: g_value_set_double(value, s.style.outlineWidth)
        case GST_WATERMARK_PROP_SHADOW: g_value_set_boolean(value, s.style.shadow ? 1 : 0)
        case GST_WATERMARK_PROP_ANCHOR: g_value_set_enum(value, Int32(s.style.placement.anchor.rawValue))
        case GST_WATERMARK_PROP_MARGIN_X: g_value_set_double(value, s.style.placement.marginX)
        case GST_WATERMARK_PROP_MARGIN_Y: g_value_set_double(value, s.style.placement.marginY)
        case GST_WATERMARK_PROP_X: g_value_set_double(value, s.style.placement.x)
        case GST_WATERMARK_PROP_Y: g_value_set_double(value, s.style.placement.y)
        case GST_WATERMARK_PROP_WIDTH: g_value_set_double(value, s.style.imageWidth)
        case GST_WATERMARK_PROP_OPACITY: g_value_set_double(value, s.opacity)
        case GST_WATERMARK_PROP_OVERLAY_MODE:
            g_value_set_enum(value, Int32((s.blendOnly ? GST_WATERMARK_OVERLAY_MODE_BLEND : GST_WATERMARK_OVERLAY_MODE_AUTO).rawValue))
        case GST_WATERMARK_PROP_START: g_value_set_double(value, s.timing.start)
        case GST_WATERMARK_PROP_END: g_value_set_double(value, s.timing.end)
        case GST_WATERMARK_PROP_FADE_IN: g_value_set_double(value, s.timing.fadeIn)
        case GST_WATERMARK_PROP_FADE_OUT: g_value_set_double(value, s.timing.fadeOut)
        default: break
        }
    }

    private func string(_ value: UnsafePointer<GValue>) -> String? {
        // String(cString:) repairs invalid UTF-8 from C callers with U+FFFD.
        g_value_get_string(value).map { String(cString: $0) }
    }

    private func finite(_ v: Double, or fallback: Double) -> Double { v.isFinite ? v : fallback }

    // MARK: image loading

    private func setImage(_ path: String?) {
        let path = (path?.isEmpty ?? true) ? nil : path
        settings.withLock { s in
            s.imagePath = path
            if path == nil, s.image != nil {
                s.image = nil
                s.generation &+= 1
            }
        }
        // While running, decode off the streaming thread; start() decodes otherwise.
        if let path, running.load(ordering: .acquiring) {
            ImageLoadJob(impl: self, path: path).spawn()
        }
    }

    /// Installs a decoded image if it is still the one asked for.
    fileprivate func install(_ image: DecodedImage) {
        settings.withLock { s in
            guard s.imagePath == image.path else { return }
            s.image = image
            s.generation &+= 1
        }
    }

    fileprivate func post(_ error: ImageLoadError, fatal: Bool) {
        let code: GstResourceError = switch error.kind {
        case .notFound: GST_RESOURCE_ERROR_NOT_FOUND
        case .unreadable: GST_RESOURCE_ERROR_OPEN_READ
        case .invalid: GST_RESOURCE_ERROR_READ
        }
        if fatal {
            gst_watermark_post_error(element, gst_watermark_resource_error_quark(), Int32(code.rawValue),
                                     error.description, "image property")
        } else {
            gst_watermark_post_warning(element, gst_watermark_resource_error_quark(), Int32(code.rawValue),
                                       error.description + "; keeping the previous image", "image property")
        }
    }

    // MARK: lifecycle

    func start() -> Bool {
        let path = settings.withLock { $0.imagePath }
        if let path {
            do {
                install(try DecodedImage.decode(path: path))
            } catch {
                post(error, fatal: true)
                return false
            }
        }
        running.store(true, ordering: .releasing)
        return true
    }

    func stop() -> Bool {
        running.store(false, ordering: .releasing)
        stream.reset()
        return true
    }

    func setInfo(outCaps: UnsafeMutablePointer<GstCaps>?, outInfo: UnsafeMutablePointer<GstVideoInfo>?) -> Bool {
        guard let outInfo, let layout = PixelLayout(info: outInfo.pointee) else {
            Log.error(element, "unsupported video format")
            return false
        }
        stream.layout = layout
        stream.encoding = YUVEncoding(info: outInfo.pointee)
        stream.infoGeneration &+= 1
        stream.setCaps(outCaps)
        stream.needsMetaCheck = true
        Log.debug(element, "configured for \(outInfo.pointee.width)x\(outInfo.pointee.height), \(layout.planeCount) plane(s)")
        return true
    }

    // MARK: streaming

    func beforeTransform(_ buffer: UnsafeMutablePointer<GstBuffer>) {
        let pts = gst_watermark_buffer_pts(buffer)
        if pts != GstClockTime.max {
            let streamTime = gst_segment_to_stream_time(gst_watermark_segment(element), GST_FORMAT_TIME, pts)
            if streamTime != GstClockTime.max {
                gst_object_sync_values(UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self), streamTime)
            }
        }
        let empty = settings.withLock { $0.isEmpty }
        gst_base_transform_set_passthrough(gst_watermark_as_base_transform(element), empty ? 1 : 0)
    }

    func transform(_ frame: UnsafeMutablePointer<GstVideoFrame>) -> GstFlowReturn {
        var s = settings.withLock { $0 }
        let frameNumber = stream.frameCount
        stream.frameCount &+= 1
        guard !s.isEmpty, let layout = stream.layout else { return GST_FLOW_OK }
        let width = Int(frame.pointee.info.width), height = Int(frame.pointee.info.height)

        // Times are only worked out when a time window or a placeholder needs them.
        let timed = !s.timing.isAlwaysOn, live = !s.template.isStatic
        let clock = timed || live ? frameClock(frame, number: frameNumber) : FrameClock(frame: frameNumber)

        // Time: the layer's window and fades, from the buffer's stream time.
        if timed {
            let visibility = s.timing.factor(at: clock.streamTime)
            if visibility <= 0 { return GST_FLOW_OK }
            s.opacity *= visibility
        }

        // Live text: re-render only when the expanded text actually changes.
        if live {
            let expanded = s.template.expand(clock)
            if expanded != stream.expandedText {
                stream.expandedText = expanded
                stream.expandedGeneration &+= 1
            }
            s.style.text = expanded
        }
        if stream.renderedGeneration != s.generation || stream.renderedInfoGeneration != stream.infoGeneration
            || stream.renderedExpandedGeneration != stream.expandedGeneration || stream.frameSize != (width, height) {
            rebuild(s, layout: layout, width: width, height: height)
        }
        if stream.needsMetaCheck {
            stream.needsMetaCheck = false
            stream.attach = !s.blendOnly && gst_watermark_downstream_accepts_overlay_meta(element, stream.caps) != 0
            Log.info(element, stream.attach ? "downstream accepts overlay composition meta: attaching" : "blending into frames")
        }
        if stream.attach && !s.blendOnly {
            if let buffer = frame.pointee.buffer { stream.attachComposition(to: buffer, opacity: s.opacity) }
            return GST_FLOW_OK
        }
        guard let converted = stream.converted, let finfo = frame.pointee.info.finfo else { return GST_FLOW_OK }
        for p in 0..<min(Int(finfo.pointee.n_planes), 4) {
            guard let base = gst_watermark_frame_plane_data(frame, UInt32(p)) else { continue }
            let stride = Int(gst_watermark_frame_plane_stride(frame, UInt32(p)))
            if !converted.blend(planeIndex: p, base: base, stride: stride, frameWidth: width,
                                frameHeight: height, opacity: s.opacity) {
                Log.warning(element, "frame plane \(p) does not match the overlay (stride \(stride)); not blended")
            }
        }
        return GST_FLOW_OK
    }

    /// The frame's times for placeholders and timing, from its PTS and the segment.
    private func frameClock(_ frame: UnsafeMutablePointer<GstVideoFrame>, number: Int) -> FrameClock {
        var clock = FrameClock(frame: number)
        let info = frame.pointee.info
        if info.fps_d > 0 { clock.fps = Double(info.fps_n) / Double(info.fps_d) }
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        clock.wallClock = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        guard let buffer = frame.pointee.buffer else { return clock }
        let pts = gst_watermark_buffer_pts(buffer)
        guard pts != GstClockTime.max else { return clock }
        clock.pts = Double(pts) / 1e9
        let segment = gst_watermark_segment(element)
        let st = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, pts)
        if st != GstClockTime.max { clock.streamTime = Double(st) / 1e9 }
        let rt = gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts)
        if rt != GstClockTime.max { clock.runningTime = Double(rt) / 1e9 }
        return clock
    }

    private func rebuild(_ s: WatermarkSettings, layout: PixelLayout, width: Int, height: Int) {
        if !s.style.text.isEmpty, stream.checkedFont != s.style.fontDesc {
            stream.checkedFont = s.style.fontDesc
            checkFont(s.style.fontDesc)
        }
        let result = BlockRenderer.render(style: s.style, image: s.image, frameWidth: width, frameHeight: height,
                                          alignX: layout.alignX, alignY: layout.alignY)
        stream.rendered = result.overlay
        stream.converted = result.overlay.map {
            ConvertedOverlay($0, layout: layout, encoding: stream.encoding, frameWidth: width, frameHeight: height)
        }
        stream.dropComposition()
        stream.renderedGeneration = s.generation
        stream.renderedInfoGeneration = stream.infoGeneration
        stream.renderedExpandedGeneration = stream.expandedGeneration
        stream.frameSize = (width, height)
        Log.debug(element, "rendered block \(result.blockRect) visible \(result.overlay?.rect.description ?? "none") for \(width)x\(height)")
    }

    private func checkFont(_ fontDesc: String) {
        let generic: Set<String> = ["sans", "sans-serif", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy"]
        guard let requested = TextLayout.requestedFamilies(of: fontDesc), !requested.isEmpty else { return }
        if requested.contains(where: { generic.contains($0) }) { return }
        guard let resolved = TextLayout.resolvedFamily(of: fontDesc)?.lowercased() else { return }
        if !requested.contains(where: { resolved.contains($0) }) {
            Log.warning(element, "font \"\(fontDesc)\" is not installed; using \"\(resolved)\" instead")
        }
    }
}

/// State of the streaming thread: the negotiated format and the cached overlay.
private struct StreamState {
    var layout: PixelLayout?
    var encoding = YUVEncoding.bt601
    var infoGeneration: UInt64 = 0
    var caps: UnsafeMutablePointer<GstCaps>?
    var needsMetaCheck = true
    var attach = false
    var renderedGeneration: UInt64 = 0
    var renderedInfoGeneration: UInt64 = 0
    var frameSize = (0, 0)
    var rendered: RenderedOverlay?
    var converted: ConvertedOverlay?
    var composition: OpaquePointer?
    var compositionOpacity = -1.0
    var checkedFont: String?
    var frameCount = 0
    var expandedText = ""
    var expandedGeneration: UInt64 = 0
    var renderedExpandedGeneration: UInt64 = 0

    mutating func setCaps(_ newCaps: UnsafeMutablePointer<GstCaps>?) {
        if let newCaps { _ = gst_caps_ref(newCaps) }
        if let caps { gst_caps_unref(caps) }
        caps = newCaps
    }

    mutating func dropComposition() {
        if let composition { gst_video_overlay_composition_unref(composition) }
        composition = nil
    }

    mutating func reset() {
        dropComposition()
        setCaps(nil)
        let keptFont = checkedFont
        self = StreamState()
        checkedFont = keptFont
    }

    /// Attaches the cached overlay as a GstVideoOverlayCompositionMeta, building the
    /// composition once per render (and per opacity change).
    mutating func attachComposition(to buffer: UnsafeMutablePointer<GstBuffer>, opacity: Double) {
        guard let rendered, !rendered.rect.isEmpty else { return }
        if composition == nil || compositionOpacity != opacity {
            dropComposition()
            let size = rendered.pixels.count * 4
            guard let pixels = gst_buffer_new_allocate(nil, gsize(size), nil) else { return }
            _ = rendered.pixels.withUnsafeBytes { gst_buffer_fill(pixels, 0, $0.baseAddress, gsize(size)) }
            // cairo's ARGB32 is BGRA in memory on little-endian machines, which is
            // GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB there.
            _ = gst_buffer_add_video_meta(pixels, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_BGRA,
                                          UInt32(rendered.rect.width), UInt32(rendered.rect.height))
            guard let rect = gst_video_overlay_rectangle_new_raw(
                pixels, Int32(rendered.rect.x), Int32(rendered.rect.y),
                UInt32(rendered.rect.width), UInt32(rendered.rect.height),
                GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA) else {
                gst_buffer_unref(pixels)
                return
            }
            gst_buffer_unref(pixels)
            gst_video_overlay_rectangle_set_global_alpha(rect, Float(opacity))
            composition = gst_video_overlay_composition_new(rect)
            gst_video_overlay_rectangle_unref(rect)
            compositionOpacity = opacity
        }
        if let composition {
            _ = gst_buffer_add_video_overlay_composition_meta(buffer, composition)
        }
    }
}

/// Decodes an image on its own thread, so that changing `image` while PLAYING never
/// blocks the streaming thread on file I/O.
private final class ImageLoadJob: @unchecked Sendable {
    let impl: WatermarkImpl
    let path: String

    init(impl: WatermarkImpl, path: String) {
        self.impl = impl
        self.path = path
    }

    func spawn() {
        // The element (and so impl) stays alive until the job ends.
        _ = gst_object_ref(UnsafeMutableRawPointer(impl.element))
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { arg in
            guard let arg else { return nil }
            Unmanaged<ImageLoadJob>.fromOpaque(arg).takeRetainedValue().run()
            return nil
        }, context)
        if rc == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<ImageLoadJob>.fromOpaque(context).takeRetainedValue().run()
        }
    }

    func run() {
        do {
            impl.install(try DecodedImage.decode(path: path))
        } catch {
            impl.post(error, fatal: false)
        }
        gst_object_unref(UnsafeMutableRawPointer(impl.element))
    }
}
