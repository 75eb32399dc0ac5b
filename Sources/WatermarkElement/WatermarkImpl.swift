// Threading invariant: `settings` is the only state shared between the application's
// threads (property setters, image/config loader threads, the text-file watcher) and the
// streaming thread; it is behind a lock (`Locked`) and copied out once per frame. `stream` is touched only by the
// streaming thread (set_info, before_transform, transform) and by start/stop, which
// GStreamer never runs concurrently with streaming. Hence @unchecked Sendable.

import CGStreamer
import CShim
import Glibc
import Synchronization

final class WatermarkImpl: @unchecked Sendable {
    /// The GObject that owns this object (not retained: it outlives us).
    let element: UnsafeMutablePointer<GstWatermark>
    let settings = Locked(WatermarkSettings())
    let running = Atomic<Bool>(false)
    let renderCount = Atomic<UInt64>(0)
    private let watcher = Locked<TextFileWatcher?>(nil)
    private let checkedFonts = Locked(Set<String>())
    private var stream = StreamState()
    /// Renders the next frame's pixels of layers whose text changes with time.
    private let ahead = RenderAhead()

    /// Image and config loads while running, latest first, off the streaming thread.
    private let loads: LatestLoads

    init(element: UnsafeMutablePointer<GstWatermark>) {
        self.element = element
        // A load in progress keeps the element (and so this object) alive.
        let object = UInt(bitPattern: element)
        loads = LatestLoads(retain: { _ = gst_object_ref(UnsafeMutableRawPointer(bitPattern: object)) },
                            release: { gst_object_unref(UnsafeMutableRawPointer(bitPattern: object)) })
    }

    deinit {
        ahead.stop()
        stream.reset()
    }

    // MARK: properties

    func setProperty(_ id: GstWatermarkProp, _ value: UnsafePointer<GValue>) {
        switch id {
        case GST_WATERMARK_PROP_IMAGE:
            setImage(string(value))
        case GST_WATERMARK_PROP_TEXT:
            let text = string(value) ?? ""
            settings.withLock { $0.shorthand.text = text }
        case GST_WATERMARK_PROP_TEXT_FILE:
            setTextFile(string(value))
        case GST_WATERMARK_PROP_CONFIG:
            setConfig(string(value))
        case GST_WATERMARK_PROP_FONT_DESC:
            let font = string(value) ?? ""
            settings.withLock { $0.shorthand.style.fontDesc = font.isEmpty ? GST_WATERMARK_DEFAULT_FONT_DESC : font }
        case GST_WATERMARK_PROP_TEXT_SIZE:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_DEFAULT_TEXT_SIZE)
            settings.withLock { $0.shorthand.style.textSize = v }
        case GST_WATERMARK_PROP_COLOR:
            let c = ARGBColor(argb: UInt32(truncatingIfNeeded: g_value_get_uint(value)))
            settings.withLock { $0.shorthand.style.color = c }
        case GST_WATERMARK_PROP_OUTLINE_COLOR:
            let c = ARGBColor(argb: UInt32(truncatingIfNeeded: g_value_get_uint(value)))
            settings.withLock { $0.shorthand.style.outlineColor = c }
        case GST_WATERMARK_PROP_OUTLINE_WIDTH:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_DEFAULT_OUTLINE_WIDTH)
            settings.withLock { $0.shorthand.style.outlineWidth = v }
        case GST_WATERMARK_PROP_SHADOW:
            let v = g_value_get_boolean(value) != 0
            settings.withLock { $0.shorthand.style.shadow = v }
        case GST_WATERMARK_PROP_ANCHOR:
            let a = Anchor(rawValue: Int(g_value_get_enum(value))) ?? .bottomRight
            settings.withLock { $0.shorthand.style.placement.anchor = a }
        case GST_WATERMARK_PROP_MARGIN_X:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_DEFAULT_MARGIN)
            settings.withLock { $0.shorthand.style.placement.marginX = v }
        case GST_WATERMARK_PROP_MARGIN_Y:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_DEFAULT_MARGIN)
            settings.withLock { $0.shorthand.style.placement.marginY = v }
        case GST_WATERMARK_PROP_X:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_UNSET_POSITION)
            settings.withLock { $0.shorthand.style.placement.x = v }
        case GST_WATERMARK_PROP_Y:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_UNSET_POSITION)
            settings.withLock { $0.shorthand.style.placement.y = v }
        case GST_WATERMARK_PROP_WIDTH:
            let v = finite(g_value_get_double(value), or: GST_WATERMARK_DEFAULT_WIDTH)
            settings.withLock { $0.shorthand.style.imageWidth = v }
        case GST_WATERMARK_PROP_ROTATION:
            let v = finite(g_value_get_double(value), or: 0)
            settings.withLock { $0.shorthand.style.rotation = v }
        case GST_WATERMARK_PROP_OPACITY:
            let v = min(max(finite(g_value_get_double(value), or: 1), 0), 1)
            settings.withLock { $0.shorthand.opacity = v }
        case GST_WATERMARK_PROP_OVERLAY_MODE:
            let blend = g_value_get_enum(value) == Int32(GST_WATERMARK_OVERLAY_MODE_BLEND.rawValue)
            settings.withLock { $0.blendOnly = blend }
        case GST_WATERMARK_PROP_FOLLOW_ORIENTATION:
            let v = g_value_get_boolean(value) != 0
            settings.withLock { $0.followOrientation = v }
        case GST_WATERMARK_PROP_RENDER_AHEAD:
            let v = g_value_get_boolean(value) != 0
            settings.withLock { $0.renderAhead = v }
        case GST_WATERMARK_PROP_START:
            let v = max(0, finite(g_value_get_double(value), or: 0))
            settings.withLock { $0.shorthand.timing.start = v }
        case GST_WATERMARK_PROP_END:
            let v = finite(g_value_get_double(value), or: -1)
            settings.withLock { $0.shorthand.timing.end = v < 0 ? -1 : v }
        case GST_WATERMARK_PROP_FADE_IN:
            let v = max(0, finite(g_value_get_double(value), or: 0))
            settings.withLock { $0.shorthand.timing.fadeIn = v }
        case GST_WATERMARK_PROP_FADE_OUT:
            let v = max(0, finite(g_value_get_double(value), or: 0))
            settings.withLock { $0.shorthand.timing.fadeOut = v }
        default:
            break
        }
    }

    func getProperty(_ id: GstWatermarkProp, _ value: UnsafeMutablePointer<GValue>) {
        let s = settings.withLock { $0 }
        let l = s.shorthand
        switch id {
        case GST_WATERMARK_PROP_IMAGE: g_value_set_string(value, l.imagePath)
        case GST_WATERMARK_PROP_TEXT: g_value_set_string(value, l.style.text)
        case GST_WATERMARK_PROP_TEXT_FILE: g_value_set_string(value, l.textFile)
        case GST_WATERMARK_PROP_CONFIG: g_value_set_string(value, s.configPath)
        case GST_WATERMARK_PROP_FONT_DESC: g_value_set_string(value, l.style.fontDesc)
        case GST_WATERMARK_PROP_TEXT_SIZE: g_value_set_double(value, l.style.textSize)
        case GST_WATERMARK_PROP_COLOR: g_value_set_uint(value, l.style.color.argb)
        case GST_WATERMARK_PROP_OUTLINE_COLOR: g_value_set_uint(value, l.style.outlineColor.argb)
        case GST_WATERMARK_PROP_OUTLINE_WIDTH: g_value_set_double(value, l.style.outlineWidth)
        case GST_WATERMARK_PROP_SHADOW: g_value_set_boolean(value, l.style.shadow ? 1 : 0)
        case GST_WATERMARK_PROP_ANCHOR: g_value_set_enum(value, Int32(l.style.placement.anchor.rawValue))
        case GST_WATERMARK_PROP_MARGIN_X: g_value_set_double(value, l.style.placement.marginX)
        case GST_WATERMARK_PROP_MARGIN_Y: g_value_set_double(value, l.style.placement.marginY)
        case GST_WATERMARK_PROP_X: g_value_set_double(value, l.style.placement.x)
        case GST_WATERMARK_PROP_Y: g_value_set_double(value, l.style.placement.y)
        case GST_WATERMARK_PROP_WIDTH: g_value_set_double(value, l.style.imageWidth)
        case GST_WATERMARK_PROP_ROTATION: g_value_set_double(value, l.style.rotation)
        case GST_WATERMARK_PROP_OPACITY: g_value_set_double(value, l.opacity)
        case GST_WATERMARK_PROP_OVERLAY_MODE:
            g_value_set_enum(value, Int32((s.blendOnly ? GST_WATERMARK_OVERLAY_MODE_BLEND : GST_WATERMARK_OVERLAY_MODE_AUTO).rawValue))
        case GST_WATERMARK_PROP_FOLLOW_ORIENTATION: g_value_set_boolean(value, s.followOrientation ? 1 : 0)
        case GST_WATERMARK_PROP_RENDER_AHEAD: g_value_set_boolean(value, s.renderAhead ? 1 : 0)
        case GST_WATERMARK_PROP_RENDER_COUNT: g_value_set_uint64(value, guint64(renderCount.load(ordering: .relaxed)))
        case GST_WATERMARK_PROP_START: g_value_set_double(value, l.timing.start)
        case GST_WATERMARK_PROP_END: g_value_set_double(value, l.timing.end)
        case GST_WATERMARK_PROP_FADE_IN: g_value_set_double(value, l.timing.fadeIn)
        case GST_WATERMARK_PROP_FADE_OUT: g_value_set_double(value, l.timing.fadeOut)
        default: break
        }
    }

    private func string(_ value: UnsafePointer<GValue>) -> String? {
        // String(cString:) repairs invalid UTF-8 from C callers with U+FFFD.
        g_value_get_string(value).map { String(cString: $0) }
    }

    private func finite(_ v: Double, or fallback: Double) -> Double { v.isFinite ? v : fallback }

    /// `path` made absolute against the current directory (watchers and background
    /// loads must not depend on a later chdir).
    private func absolute(_ path: String?) -> String? {
        guard let path, !path.isEmpty else { return nil }
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }

    // MARK: images, config and text files

    private func setImage(_ path: String?) {
        let path = (path?.isEmpty ?? true) ? nil : path
        settings.withLock { s in
            s.shorthand.imagePath = path
            if path == nil { s.shorthandImage = nil }
        }
        // While running, decode off the streaming thread; start() decodes otherwise.
        if let path, running.load(ordering: .acquiring) {
            loads.submit("image") { [self] in
                switch Result(catching: { () throws(ImageLoadError) in try DecodedImage.decode(path: path) }) {
                case .success(let image): installShorthand(image)
                case .failure(let error): post(error, fatal: false)
                }
            }
        }
    }

    /// Installs a decoded image if it is still the one asked for.
    private func installShorthand(_ image: DecodedImage) {
        settings.withLock { s in
            guard s.shorthand.imagePath == image.path else { return }
            s.shorthandImage = image
        }
    }

    private func post(_ error: ImageLoadError, fatal: Bool) {
        let code: GstResourceError = switch error.kind {
        case .notFound: GST_RESOURCE_ERROR_NOT_FOUND
        case .unreadable: GST_RESOURCE_ERROR_OPEN_READ
        case .invalid: GST_RESOURCE_ERROR_READ
        }
        post(error.description + (fatal ? "" : "; keeping the previous image"), code: code, fatal: fatal, debug: "image property")
    }

    private func post(_ message: String, code: GstResourceError, fatal: Bool, debug: String) {
        if fatal {
            gst_watermark_post_error(element, gst_watermark_resource_error_quark(), Int32(code.rawValue), message, debug)
        } else {
            gst_watermark_post_warning(element, gst_watermark_resource_error_quark(), Int32(code.rawValue), message, debug)
        }
    }

    private func setTextFile(_ path: String?) {
        let path = absolute(path)
        settings.withLock { $0.shorthand.textFile = path }
        if running.load(ordering: .acquiring) {
            if let path, case .success(let text) = readTextFile(path) { settings.withLock { $0.texts[path] = text } }
            restartWatcher()
        }
    }

    private func setConfig(_ path: String?) {
        let path = absolute(path)
        let request = settings.withLock { s -> UInt64 in
            s.configPath = path
            s.configRequest &+= 1
            if path == nil { s.config = nil }
            return s.configRequest
        }
        // While running, load off the streaming thread and swap in one step; a bad file
        // keeps the layers in use. start() loads otherwise (and fails on a bad file).
        guard let path, running.load(ordering: .acquiring) else { return }
        loads.submit("config") { [self] in
            switch Self.loadConfig(path) {
            case .success(let (set, texts)):
                let installed = settings.withLock { s -> Bool in
                    guard s.configRequest == request else { return false }
                    s.config = set
                    s.texts.merge(texts) { $1 }
                    return true
                }
                if installed {
                    restartWatcher()
                    Log.info(element, "config \(path) loaded: \(set.layers.count) layer(s)")
                }
            case .failure(let message):
                post(message.text + "; keeping the previous layers", code: message.code, fatal: false, debug: "config property")
            }
        }
    }

    struct LoadFailure: Error {
        var text: String
        var code: GstResourceError
    }

    /// Reads, validates and decodes everything a config file needs.
    static func loadConfig(_ path: String) -> Result<(ConfigSet, [String: String]), LoadFailure> {
        let layers: [LayerSpec]
        do {
            layers = try LayerConfig.load(path: path)
        } catch {
            let code = error.line == 0 ? GST_RESOURCE_ERROR_OPEN_READ : GST_RESOURCE_ERROR_SETTINGS
            return .failure(LoadFailure(text: "Invalid config " + error.description, code: code))
        }
        var images: [String: DecodedImage] = [:]
        var texts: [String: String] = [:]
        for (index, layer) in layers.enumerated() {
            if let p = layer.imagePath, images[p] == nil {
                do {
                    images[p] = try DecodedImage.decode(path: p)
                } catch {
                    return .failure(LoadFailure(text: "Invalid config \(path): layer \(index): \"image\": \(error.description)",
                                                code: GST_RESOURCE_ERROR_NOT_FOUND))
                }
            }
            if let f = layer.textFile {
                switch readTextFile(f) {
                case .success(let t): texts[f] = t
                case .failure(let e):
                    return .failure(LoadFailure(text: "Invalid config \(path): layer \(index): \"text-file\": \(f): \(e.reason)",
                                                code: GST_RESOURCE_ERROR_NOT_FOUND))
                }
            }
        }
        return .success((ConfigSet(path: path, layers: layers, images: images), texts))
    }

    /// Follows the text files the current layers name (one watcher thread).
    private func restartWatcher() {
        let files = settings.withLock { $0.textFiles }
        let old = watcher.withLock { w -> TextFileWatcher? in
            let o = w
            w = nil
            return o
        }
        old?.stop()
        guard running.load(ordering: .acquiring), !files.isEmpty else { return }
        let w = TextFileWatcher(paths: files) { [weak self] path in
            guard let self, case .success(let text) = readTextFile(path) else { return }
            settings.withLock { $0.texts[path] = text }
        }
        watcher.withLock { $0 = w }
    }

    // MARK: lifecycle

    func start() -> Bool {
        let (imagePath, configPath, textFile) = settings.withLock { ($0.shorthand.imagePath, $0.configPath, $0.shorthand.textFile) }
        if let imagePath {
            do {
                installShorthand(try DecodedImage.decode(path: imagePath))
            } catch {
                post(error, fatal: true)
                return false
            }
        }
        if let configPath {
            switch Self.loadConfig(configPath) {
            case .success(let (set, texts)):
                settings.withLock {
                    $0.config = set
                    $0.texts.merge(texts) { $1 }
                }
            case .failure(let f):
                post(f.text, code: f.code, fatal: true, debug: "config property")
                return false
            }
        }
        if let textFile {
            switch readTextFile(textFile) {
            case .success(let t): settings.withLock { $0.texts[textFile] = t }
            case .failure(let e):
                post("Could not read text-file \"\(textFile)\": \(e.reason)", code: GST_RESOURCE_ERROR_NOT_FOUND,
                     fatal: true, debug: "text-file property")
                return false
            }
        }
        renderCount.store(0, ordering: .relaxed)
        running.store(true, ordering: .releasing)
        restartWatcher()
        return true
    }

    func stop() -> Bool {
        running.store(false, ordering: .releasing)
        restartWatcher()
        ahead.stop()
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
        stream.needsLiveCheck = true
        Log.debug(element, "configured for \(outInfo.pointee.width)x\(outInfo.pointee.height), \(layout.planeCount) plane(s)")
        return true
    }

    /// Tag events: the stream's image-orientation (only on the streaming thread).
    func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) {
        switch event.pointee.type {
        case GST_EVENT_TAG:
            var list: UnsafeMutablePointer<GstTagList>?
            gst_event_parse_tag(event, &list)
            var value: UnsafeMutablePointer<gchar>?
            guard let list, gst_tag_list_get_string(list, "image-orientation", &value) != 0, let value else { return }
            let name = String(cString: value)
            g_free(value)
            let o = ImageOrientation(rawValue: name) ?? .rotate0
            if o != stream.orientation {
                stream.orientation = o
                stream.infoGeneration &+= 1
                Log.info(element, "image-orientation \(name)")
            }
        case GST_EVENT_STREAM_START:
            stream.orientation = .rotate0
        default:
            break
        }
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
        let empty = frameSettings().isEmpty
        gst_base_transform_set_passthrough(gst_watermark_as_base_transform(element), empty ? 1 : 0)
    }

    /// The settings for this frame. Setters hold the lock only for an assignment each, but
    /// threads setting properties in a tight loop can keep a thread that waits for it from
    /// ever getting it (the mutex is not fair), so the streaming thread does not wait: when
    /// the lock is held it keeps the previous frame's settings, and a change shows a frame
    /// later. Only the first frame after start waits.
    private func frameSettings() -> WatermarkSettings {
        let s = settings.withLockIfFree({ $0 }) ?? stream.settings ?? settings.withLock { $0 }
        stream.settings = s
        return s
    }

    func transform(_ frame: UnsafeMutablePointer<GstVideoFrame>) -> GstFlowReturn {
        let s = frameSettings()
        let frameNumber = stream.frameCount
        stream.frameCount &+= 1
        guard !s.isEmpty, let layout = stream.layout else { return GST_FLOW_OK }
        let width = Int(frame.pointee.info.width), height = Int(frame.pointee.info.height)
        let configLayers = s.config?.layers ?? []
        let count = configLayers.count + (s.shorthandIsEmpty ? 0 : 1)
        if stream.layers.count != count { stream.resizeLayers(count) }

        // Times are only worked out when a time window, keyframes or a placeholder need them.
        var needsClock = false
        for l in configLayers where !l.timing.isAlwaysOn || !l.keyframes.isEmpty || !l.template.isStatic { needsClock = true }
        if !s.shorthandIsEmpty && (!s.shorthand.timing.isAlwaysOn || !s.shorthand.template.isStatic) { needsClock = true }
        let clock = needsClock ? frameClock(frame, number: frameNumber) : FrameClock(frame: frameNumber)
        if s.renderAhead && needsClock && stream.needsLiveCheck {
            stream.needsLiveCheck = false
            stream.live = gst_watermark_upstream_is_live(element) != 0
            Log.info(element, stream.live ? "live source: rendering changing layers ahead"
                                          : "not live: rendering ahead only layers that change now and then")
        }
        let nextClock = s.renderAhead && needsClock ? nextFrameClock(frame, after: clock) : nil
        let orientation = s.followOrientation ? stream.orientation : .rotate0

        var drawn = 0
        for index in 0..<count {
            let layer = index < configLayers.count ? configLayers[index] : s.shorthand
            let image = index < configLayers.count ? layer.imagePath.flatMap { s.config?.images[$0] } : s.shorthandImage
            stream.withLayer(index) { $0.visible = false }
            var (style, opacity) = layer.state(at: clock.streamTime)
            if opacity <= 0 { continue }
            if let file = layer.textFile {
                style.text = s.texts[file] ?? ""
            } else if !layer.template.isStatic {
                style.text = layer.template.expand(clock)
            }
            if style.text.isEmpty && image == nil { continue }
            let key = RenderKey(style: style, moves: layer.moves, image: image, width: width, height: height,
                                orientation: orientation, infoGeneration: stream.infoGeneration)
            let encoding = stream.encoding, live = stream.live
            let changed = stream.withLayer(index) { cache -> Bool in
                let changed = update(&cache, layer: index, key: key, style: style, image: image, layout: layout,
                                     encoding: encoding, orientation: orientation, live: live)
                cache.visible = cache.converted != nil
                cache.opacity = opacity
                return changed
            }
            // Not live, frames come back to back: only a layer that stays the same for a while
            // (a clock about to tick) is rendered ahead; one that changes every frame is
            // cheaper rendered in place than handed between threads every frame.
            if let nextClock, stream.live || !changed,
               layer.textFile == nil && (!layer.template.isStatic || !layer.keyframes.isEmpty) {
                renderNextAhead(layer: layer, index: index, next: nextClock, current: key, image: image, layout: layout,
                                encoding: encoding, orientation: orientation)
            }
            drawn += 1
        }
        if drawn == 0 { return GST_FLOW_OK }

        if stream.needsMetaCheck {
            stream.needsMetaCheck = false
            stream.attach = !s.blendOnly && gst_watermark_downstream_accepts_overlay_meta(element, stream.caps) != 0
            Log.info(element, stream.attach ? "downstream accepts overlay composition meta: attaching" : "blending into frames")
        }
        if stream.attach && !s.blendOnly {
            if let buffer = frame.pointee.buffer { stream.attachComposition(to: buffer) }
            return GST_FLOW_OK
        }
        guard let finfo = frame.pointee.info.finfo else { return GST_FLOW_OK }
        for p in 0..<min(Int(finfo.pointee.n_planes), 4) {
            guard let base = gst_watermark_frame_plane_data(frame, UInt32(p)) else { continue }
            let stride = Int(gst_watermark_frame_plane_stride(frame, UInt32(p)))
            for cache in stream.layers where cache.visible {
                guard let converted = cache.converted else { continue }
                if !converted.blend(planeIndex: p, base: base, stride: stride, frameWidth: width,
                                    frameHeight: height, opacity: cache.opacity, dx: cache.dx, dy: cache.dy) {
                    Log.warning(element, "frame plane \(p) does not match the overlay (stride \(stride)); not blended")
                }
            }
        }
        return GST_FLOW_OK
    }

    /// Brings one layer's cached pixels up to date: re-renders only when what it looks
    /// like changed (returns whether it did); a moving layer keeps its pixels and only gets
    /// a new offset.
    private func update(_ cache: inout LayerCache, layer: Int, key: RenderKey, style: OverlayStyle, image: DecodedImage?,
                        layout: PixelLayout, encoding: YUVEncoding, orientation: ImageOrientation, live: Bool) -> Bool {
        let moves = key.moves, width = key.width, height = key.height
        let shown = orientation.displayedSize(width: width, height: height)
        let changed = cache.key != key
        if changed {
            if !style.text.isEmpty { checkFont(style.fontDesc) }
            // Live: frames come at their pace, so what the worker still renders is nearly done,
            // and waiting for it is cheaper than rendering again. Not live: never wait (a
            // wake-up on a busy machine can take longer than the render).
            let taken = ahead.take(layer: layer, key: key, wait: live)
            // Frames faster than the worker: render in place for a while.
            if taken.late { cache.skipPredictions = Self.predictionBackoff }
            let prepared = taken.prepared
                ?? PreparedLayer(style: style, image: image, moves: moves, width: width, height: height,
                                 layout: layout, encoding: encoding, orientation: orientation)
            cache.key = key
            cache.rendered = prepared.rendered
            cache.blockOrigin = (prepared.blockRect.x, prepared.blockRect.y)
            cache.blockSize = (prepared.blockRect.width, prepared.blockRect.height)
            cache.converted = prepared.converted
            cache.dropPixels()
            renderCount.add(1, ordering: .relaxed)
            Log.debug(element, "rendered block \(prepared.blockRect) visible \(prepared.rendered?.rect.description ?? "none") for \(width)x\(height)")
        }
        cache.dx = 0
        cache.dy = 0
        if moves, cache.rendered != nil {
            // The block keeps its rendered size; only its origin follows the placement.
            let origin = LayerLayout.origin(blockWidth: cache.blockSize.width, blockHeight: cache.blockSize.height,
                                            frameWidth: shown.width, frameHeight: shown.height, placement: style.placement)
            let d = orientation.storedOffset(dx: origin.x - cache.blockOrigin.x, dy: origin.y - cache.blockOrigin.y)
            cache.dx = d.dx
            cache.dy = d.dy
        }
        return changed
    }

    /// Asks the worker for the pixels `layer` will need on the next frame (`next`: its
    /// times) if they will differ from this frame's (`current`): new text, or a keyframed
    /// scale, rotation or opacity. A layer whose prediction was wrong (times that jump, a
    /// time code from metadata) or was not ready when its frame came (frames faster than
    /// real time) is not predicted for the next `predictionBackoff` frames.
    private func renderNextAhead(layer: LayerSpec, index: Int, next: FrameClock, current: RenderKey, image: DecodedImage?,
                                 layout: PixelLayout, encoding: YUVEncoding, orientation: ImageOrientation) {
        let proceed = stream.withLayer(index) { cache -> Bool in
            if let predicted = cache.predicted, predicted != current { cache.skipPredictions = Self.predictionBackoff }
            cache.predicted = nil
            if cache.skipPredictions > 0 {
                cache.skipPredictions -= 1
                return false
            }
            return true
        }
        guard proceed else { return }
        var (style, opacity) = layer.state(at: next.streamTime)
        if opacity <= 0 { return }
        style.text = layer.template.expand(next)
        if style.text.isEmpty && image == nil { return }
        let key = RenderKey(style: style, moves: current.moves, image: image, width: current.width, height: current.height,
                            orientation: orientation, infoGeneration: current.infoGeneration)
        if key == current { return }
        let moves = key.moves, width = key.width, height = key.height, nextStyle = style
        let job = RenderAhead.Job(layer: index, key: key) {
            PreparedLayer(style: nextStyle, image: image, moves: moves, width: width, height: height,
                          layout: layout, encoding: encoding, orientation: orientation)
        }
        if ahead.request(job) { stream.withLayer(index) { $0.predicted = key } }
    }

    static let predictionBackoff = 30

    /// The frame's times for placeholders and timing, from its PTS and the segment.
    private func frameClock(_ frame: UnsafeMutablePointer<GstVideoFrame>, number: Int) -> FrameClock {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let wall = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        guard let buffer = frame.pointee.buffer else { return frameClock(frame.pointee.info, number: number, pts: .max, wall: wall) }
        var clock = frameClock(frame.pointee.info, number: number, pts: gst_watermark_buffer_pts(buffer), wall: wall)
        if let meta = gst_buffer_get_meta(buffer, gst_video_time_code_meta_api_get_type()) {
            let tc = UnsafeMutableRawPointer(meta).assumingMemoryBound(to: GstVideoTimeCodeMeta.self)
            if let s = gst_video_time_code_to_string(&tc.pointee.tc) {
                clock.timecode = String(cString: s)
                g_free(s)
            }
        }
        return clock
    }

    /// The times of a frame stamped `pts` (`GstClockTime.max`: none) in the current segment.
    private func frameClock(_ info: GstVideoInfo, number: Int, pts: GstClockTime, wall: Double) -> FrameClock {
        var clock = FrameClock(frame: number)
        if info.fps_d > 0 { clock.fps = Double(info.fps_n) / Double(info.fps_d) }
        clock.wallClock = wall
        guard pts != GstClockTime.max else { return clock }
        clock.pts = Double(pts) / 1e9
        let segment = gst_watermark_segment(element)
        let st = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, pts)
        if st != GstClockTime.max { clock.streamTime = Double(st) / 1e9 }
        let rt = gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts)
        if rt != GstClockTime.max { clock.runningTime = Double(rt) / 1e9 }
        return clock
    }

    /// The next frame's times if the stream keeps its pace: stamped this frame's PTS plus its
    /// duration (or one frame at the caps' rate), worked out in nanoseconds as the next frame's
    /// own will be. A time code from metadata cannot be predicted and is kept.
    private func nextFrameClock(_ frame: UnsafeMutablePointer<GstVideoFrame>, after clock: FrameClock) -> FrameClock {
        let info = frame.pointee.info
        let buffer = frame.pointee.buffer
        let pts = buffer.map { gst_watermark_buffer_pts($0) } ?? .max
        var duration = buffer.map { $0.pointee.duration } ?? .max
        if duration == GstClockTime.max && info.fps_n > 0 && info.fps_d > 0 {
            duration = gst_util_uint64_scale_int(GstClockTime(1_000_000_000), info.fps_d, info.fps_n)
        }
        let known = pts != GstClockTime.max && duration != GstClockTime.max && pts <= GstClockTime.max - 1 - duration
        let seconds = duration != GstClockTime.max ? Double(duration) / 1e9 : 0
        var next = frameClock(info, number: clock.frame &+ 1, pts: known ? pts + duration : .max, wall: clock.wallClock + seconds)
        next.timecode = clock.timecode
        return next
    }

    /// Warns once per font description that is not installed.
    private func checkFont(_ fontDesc: String) {
        guard checkedFonts.withLock({ $0.insert(fontDesc).inserted }) else { return }
        let generic: Set<String> = ["sans", "sans-serif", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy"]
        guard let requested = TextLayout.requestedFamilies(of: fontDesc), !requested.isEmpty else { return }
        if requested.contains(where: { generic.contains($0) }) { return }
        guard let resolved = TextLayout.resolvedFamily(of: fontDesc)?.lowercased() else { return }
        if !requested.contains(where: { Substring(resolved).firstRange(of: $0) != nil }) {
            Log.warning(element, "font \"\(fontDesc)\" is not installed; using \"\(resolved)\" instead")
        }
    }
}

/// What a layer's pixels depend on. A moving layer's position is not part of it.
struct RenderKey: Equatable, Sendable {
    var style: OverlayStyle
    var moves: Bool
    var image: ObjectIdentifier?
    var width: Int
    var height: Int
    var orientation: ImageOrientation
    var infoGeneration: UInt64

    init(style: OverlayStyle, moves: Bool, image: DecodedImage?, width: Int, height: Int,
         orientation: ImageOrientation, infoGeneration: UInt64) {
        var s = style
        if moves { s.placement.x = -1; s.placement.y = -1 }
        self.style = s
        self.moves = moves
        self.image = image.map { ObjectIdentifier($0) }
        self.width = width
        self.height = height
        self.orientation = orientation
        self.infoGeneration = infoGeneration
    }
}

/// One layer's rendered and converted pixels, and where they go this frame.
private struct LayerCache {
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
    var dx = 0
    var dy = 0
    /// The pixels as a buffer for overlay composition meta, made when first needed.
    var pixels: UnsafeMutablePointer<GstBuffer>?

    mutating func dropPixels() {
        if let pixels { gst_buffer_unref(pixels) }
        pixels = nil
    }
}

/// State of the streaming thread: the negotiated format and the cached layers.
private struct StreamState {
    var layout: PixelLayout?
    var encoding = YUVEncoding.bt601
    var infoGeneration: UInt64 = 0
    var caps: UnsafeMutablePointer<GstCaps>?
    var needsMetaCheck = true
    var attach = false
    /// Whether upstream is live (asked once per caps): only then is there time between
    /// frames for rendering ahead a layer that changes every frame.
    var needsLiveCheck = true
    var live = false
    /// The settings the last frame used (see `frameSettings`).
    var settings: WatermarkSettings?
    var orientation = ImageOrientation.rotate0
    /// One cache per layer; replaced only through `resizeLayers` (which releases buffers).
    private(set) var layers: [LayerCache] = []
    var composition: OpaquePointer?
    /// What the cached composition shows: per visible layer, pixels, offset and opacity.
    var compositionKey: [CompositionEntry] = []
    var frameCount = 0

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
            entries.append(CompositionEntry(pixels: pixels, rect: rendered.rect.offsetBy(dx: layers[i].dx, dy: layers[i].dy),
                                            opacity: layers[i].opacity))
        }
        if entries.isEmpty { return }
        if composition == nil || entries != compositionKey {
            dropComposition()
            for entry in entries {
                let r = entry.rect
                guard let rect = gst_video_overlay_rectangle_new_raw(
                          entry.pixels, Int32(clamping: r.x), Int32(clamping: r.y),
                          UInt32(r.width), UInt32(r.height), GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA) else { continue }
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
        _ = gst_buffer_add_video_meta(pixels, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_BGRA,
                                      UInt32(rendered.rect.width), UInt32(rendered.rect.height))
        return pixels
    }
}
