// The streaming thread: per-frame settings, layer updates, and blending or attaching.

import CGStreamer
import CShim
import Glibc
import WatermarkBlend
import WatermarkModel
import WatermarkRender

extension WatermarkImpl {
    /// Per buffer, before the transform: controller values synced (only when a control
    /// binding exists) and passthrough switched (only when it changes). Both take the
    /// object lock, which threads setting properties in a tight loop take for every set (its
    /// notify), so the streaming thread avoids it when it has nothing to do.
    func beforeTransform(_ buffer: UnsafeMutablePointer<GstBuffer>) {
        let pts = gst_watermark_buffer_pts(buffer)
        if pts != GstClockTime.max, gst_watermark_has_control_bindings(element) != 0 {
            let streamTime = gst_segment_to_stream_time(gst_watermark_segment(element), GST_FORMAT_TIME, pts)
            if streamTime != GstClockTime.max {
                gst_object_sync_values(
                    UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self), streamTime)
            }
        }
        let empty = frameSettings().isEmpty
        if stream.passthrough != empty {
            stream.passthrough = empty
            gst_base_transform_set_passthrough(gst_watermark_as_base_transform(element), empty ? 1 : 0)
        }
    }

    /// The settings for this frame. Setters hold the lock only for an assignment each, but
    /// threads setting properties in a tight loop can keep a thread that waits for it from
    /// ever getting it (the mutex is not fair), so the streaming thread does not wait: when
    /// the lock is held it keeps the previous frame's settings, and a change shows a frame
    /// later. Only the first frame after start waits.
    func frameSettings() -> WatermarkSettings {
        let s = settings.withLockIfFree({ $0 }) ?? stream.settings ?? settings.withLock { $0 }
        stream.settings = s
        return s
    }

    func transform(_ frame: UnsafeMutablePointer<GstVideoFrame>) -> GstFlowReturn {
        let s = frameSettings()
        let frameNumber = stream.frameCount
        stream.frameCount &+= 1
        guard !s.isEmpty, let format = stream.format else { return GST_FLOW_OK }
        // Masks and the regions of interest first, under every layer, and into the pixels whatever the overlay mode.
        if Self.hides(s) { paintHiding(s, into: frame, number: frameNumber, format: format) }
        let chips = s.forensic.chips
        defer { if let chips { paintForensic(s.forensic, chips: chips, into: frame, format: format) } }
        let drawn = updateLayers(s, frame: frame, number: frameNumber, format: format)
        // Subtitles over the layers (so they are blended too, never attached).
        let subtitle =
            s.subtitles.document == nil
            ? nil : subtitleOverlay(s, frame: frame, clock: frameClock(frame, number: frameNumber), format: format)
        defer {
            if let subtitle {
                let (width, height) = (Int(frame.pointee.info.width), Int(frame.pointee.info.height))
                let planes = min(Int(frame.pointee.info.finfo?.pointee.n_planes ?? 0), 4)
                blend(subtitle, opacity: 1, dx: 0, dy: 0, into: frame, planes: planes, width: width, height: height)
            }
        }
        if drawn == 0 { return GST_FLOW_OK }
        if stream.needsMetaCheck {
            stream.needsMetaCheck = false
            stream.attach = !s.blendOnly && gst_watermark_downstream_accepts_overlay_meta(element, stream.caps) != 0
            Log.info(
                element,
                stream.attach ? "downstream accepts overlay composition meta: attaching" : "blending into frames")
        }
        // The forensic mark goes over the layers, so they are blended here, not attached.
        if stream.attach && !s.blendOnly && chips == nil && subtitle == nil {
            if let buffer = frame.pointee.buffer { stream.attachComposition(to: buffer) }
        } else {
            blendLayers(into: frame)
        }
        return GST_FLOW_OK
    }

    /// Brings every layer's cache up to this frame (rendering what changed, asking the
    /// worker for what the next frame will need); returns how many layers are visible.
    func updateLayers(
        _ s: WatermarkSettings, frame: UnsafeMutablePointer<GstVideoFrame>, number: Int,
        format: StreamFormat
    ) -> Int {
        let width = Int(frame.pointee.info.width), height = Int(frame.pointee.info.height)
        let layers = s.layers
        if stream.layers.count != layers.count { stream.resizeLayers(layers.count) }

        // Times are only worked out when a time window, keyframes or a placeholder need them.
        let needsClock = layers.contains {
            !$0.layer.timing.isAlwaysOn || $0.layer.changes || !$0.layer.template.isStatic
                || $0.layer.motion.kind != .none || $0.image?.animation != nil
        }
        var clock = needsClock ? frameClock(frame, number: number) : FrameClock(frame: number)
        clock.variables = s.variables
        clock.data = placedData(s.data)
        if clock.cameraClock == nil, !stream.toldNoCameraClock,
            layers.contains(where: { $0.layer.template.showsCameraClock })
        {
            stream.toldNoCameraClock = true
            Log.warning(
                element,
                "{camera-clock}: this frame carries no camera time (a timestamp/x-ntp reference timestamp, e.g. from rtspsrc add-reference-timestamp-meta=true); showing the local clock until one does"
            )
        }
        if s.renderAhead && needsClock && stream.needsLiveCheck {
            stream.needsLiveCheck = false
            stream.live = gst_watermark_upstream_is_live(element) != 0
            Log.info(
                element,
                stream.live
                    ? "live source: rendering changing layers ahead"
                    : "not live: rendering ahead only layers that change now and then")
        }
        var nextClock = s.renderAhead && needsClock ? nextFrameClock(frame, after: clock) : nil
        nextClock?.variables = s.variables
        nextClock?.data = clock.data
        let orientation = s.followOrientation ? stream.orientation : .rotate0
        let live = stream.live

        var drawn = 0
        for (index, (layer, source)) in layers.enumerated() {
            stream.withLayer(index) { $0.visible = false }
            // Mask and follow layers are painted before, into the pixels.
            if layer.hides { continue }
            // An animated logo: the frame showing at the layer's time (decoded at load, or
            // by its window's thread: an export waits for it, a live stream does not).
            let image = source?.frame(at: layer.motionTime(at: clock.streamTime), wait: !live)
            let frames = source?.animation?.keptFrames ?? 0
            var (style, opacity) = layer.state(clock)
            if opacity <= 0 { continue }
            if let file = layer.textFile {
                style.text = s.texts[file] ?? ""
            } else if !layer.template.isStatic {
                style.text = layer.template.expand(clock)
                warnUnset(layer.template, s.variables, clock.data)
            }
            if style.text.isEmpty && image == nil { continue }
            // A ticker with a full-width box: the band is drawn still, the copies without a box.
            var band: OverlayStyle?
            if layer.motion.kind == .ticker {
                style.placement = Motion.tickerPlacement(style.placement)
                if style.caption.hasBox && style.caption.fullWidth {
                    var b = style
                    b.color = ARGBColor(argb: 0)
                    b.outlineColor = ARGBColor(argb: 0)
                    b.shadow = false
                    band = b
                    style.caption.background = ARGBColor(argb: 0)
                    style.caption.fullWidth = false
                }
            }
            let key = RenderKey(
                style: style, moves: layer.moves, image: image, width: width, height: height,
                orientation: orientation, infoGeneration: stream.infoGeneration)
            let generation = stream.infoGeneration
            // Text that changes as the layer plays is drawn again only where it changed.
            let textChanges = !layer.moves && (layer.textFile != nil || !layer.template.isStatic)
            let changed = stream.withLayer(index) { cache -> Bool in
                if textChanges != (cache.changingText != nil) {
                    cache.changingText = textChanges ? ChangingText() : nil
                }
                updateBand(
                    &cache, band, width: width, height: height, format: format, orientation: orientation,
                    generation: generation)
                let changed = update(
                    &cache, layer: index, key: key, style: style, image: image, format: format,
                    orientation: orientation, live: live, motion: layer.motion,
                    motionTime: layer.motionTime(at: clock.streamTime), keep: frames)
                cache.visible = cache.converted != nil
                cache.opacity = opacity
                return changed
            }
            // Not live, frames come back to back: only a layer that stays the same for a while
            // (a clock about to tick) is rendered ahead; one that changes every frame is
            // cheaper rendered in place than handed between threads every frame.
            // A window's next frame, when decoded already, is rendered ahead too.
            let window = source?.animation?.window != nil
            // Text drawn in bands is cheap to hand over: asked for ahead even frame after frame
            // (the streaming thread then only takes the pixels, allocating nothing).
            if let nextClock, live || !changed || textChanges,
                layer.textFile == nil && (!layer.template.isStatic || layer.changes || window)
            {
                let nextImage =
                    window ? source?.animation?.peekFrame(at: layer.motionTime(at: nextClock.streamTime)) : image
                if !window || nextImage != nil {
                    renderNextAhead(
                        layer: layer, index: index, next: nextClock, current: key, image: nextImage, format: format,
                        orientation: orientation)
                }
            }
            drawn += 1
        }
        return drawn
    }

    /// Blends every visible layer into the frame's planes, in order.
    private func blendLayers(into frame: UnsafeMutablePointer<GstVideoFrame>) {
        let width = Int(frame.pointee.info.width), height = Int(frame.pointee.info.height)
        guard let finfo = frame.pointee.info.finfo else { return }
        let planes = min(Int(finfo.pointee.n_planes), 4)
        placeLayers { o, op, x, y in
            blend(o, opacity: op, dx: x, dy: y, into: frame, planes: planes, width: width, height: height)
        }
    }

    /// Every visible layer's overlays in blending order, each with its opacity and offset:
    /// what `blendLayers` blends on the CPU and the CUDA path on the device.
    func placeLayers(_ blendOne: (ConvertedOverlay, Double, Int, Int) -> Void) {
        // Layer by layer (in order), each into every plane: planes are independent.
        for index in stream.layers.indices where stream.layers[index].visible {
            guard let (overlay, opacity) = stream.withLayer(index, { $0.blendable() }) else { continue }
            let layerOpacity = stream.layers[index].opacity
            // At an offset off the chroma grid, the copy converted at that phase (opacity per
            // sample); else `base` at `baseOpacity`.
            func place(
                _ base: ConvertedOverlay, _ baseOpacity: Double, at dx: Int, _ dy: Int,
                _ offGrid: (ConvertedOverlay, Int, Int)?
            ) {
                let (o, op, x, y) = offGrid.map { ($0.0, layerOpacity, $0.1, $0.2) } ?? (base, baseOpacity, dx, dy)
                blendOne(o, op, x, y)
            }
            if let band = stream.layers[index].band?.prepared.converted { place(band, layerOpacity, at: 0, 0, nil) }
            // A ticker's earlier texts still in view, then the current one.
            for entry in stream.layers[index].ticker.past {
                let past = entry.text
                for (dx, dy) in past.offsets {
                    let off = LayerCache.offGrid(source: past.source, phased: &past.phased, dx: dx, dy: dy)
                    place(past.converted, layerOpacity, at: dx, dy, off)
                }
            }
            for (dx, dy) in stream.layers[index].offsets {
                place(overlay, opacity, at: dx, dy, stream.withLayer(index) { $0.offGrid(dx: dx, dy: dy) })
            }
        }
    }

    func blend(
        _ overlay: ConvertedOverlay, opacity: Double, dx: Int, dy: Int, into frame: UnsafeMutablePointer<GstVideoFrame>,
        planes: Int, width: Int, height: Int
    ) {
        for p in 0..<planes {
            guard let base = gst_watermark_frame_plane_data(frame, UInt32(p)) else { continue }
            let stride = Int(gst_watermark_frame_plane_stride(frame, UInt32(p)))
            if !overlay.blend(
                planeIndex: p, base: base, stride: stride, frameWidth: width,
                frameHeight: height, opacity: opacity, dx: dx, dy: dy)
            {
                Log.warning(element, "frame plane \(p) does not match the overlay (stride \(stride)); not blended")
            }
        }
    }

    /// A ticker's band: rendered when its look or the frame changes, dropped without one.
    private func updateBand(
        _ cache: inout LayerCache, _ style: OverlayStyle?, width: Int, height: Int, format: StreamFormat,
        orientation: ImageOrientation, generation: UInt64
    ) {
        guard let style else {
            cache.band = nil
            cache.bandShift = 0
            return
        }
        let key = RenderKey(
            style: style, moves: false, image: nil, width: width, height: height, orientation: orientation,
            infoGeneration: generation)
        if cache.band?.key != key {
            cache.band = TickerBand(
                key: key,
                prepared: PreparedLayer(
                    style: style, image: nil, moves: false, width: width, height: height, format: format,
                    orientation: orientation))
        }
    }

    /// Brings one layer's cached pixels up to date: re-renders only when what it looks
    /// like changed (returns whether it did); a moving layer keeps its pixels and only gets
    /// a new offset: along its ticker row, or where its placement and motion put it.
    private func update(
        _ cache: inout LayerCache, layer: Int, key: RenderKey, style: OverlayStyle, image: DecodedImage?,
        format: StreamFormat, orientation: ImageOrientation, live: Bool, motion: Motion = Motion(),
        motionTime: Double? = nil, keep: Int = 0
    ) -> Bool {
        let shown = orientation.displayedSize(width: key.width, height: key.height)
        let changed = cache.key != key
        let travelled = motion.tickerTravelled(at: motionTime, frameWidth: shown.width)
        cache.ticker.clearPlaces()
        for entry in cache.ticker.past { entry.text.offsets = [] }
        if travelled == nil, cache.ticker.hasHistory { cache.ticker.reset() }
        if changed, let u = travelled, let old = cache.converted, let was = cache.key {
            // A new text (or look) for the ticker: the copies in view keep the old one.
            let sameFrame =
                was.width == key.width && was.height == key.height && was.orientation == key.orientation
                && was.infoGeneration == key.infoGeneration
            cache.ticker.replaced(
                TickerText(rendered: cache.rendered, converted: old, source: cache.phaseSource),
                blockX: cache.blockOrigin.x, blockWidth: cache.blockSize.width, travelled: u, frameWidth: shown.width,
                sameFrame: sameFrame)
        }
        if changed {
            rerender(
                &cache, layer: layer, key: key, style: style, image: image, format: format, orientation: orientation,
                live: live, keep: keep)
        }
        cache.dx = 0
        cache.dy = 0
        cache.copies.removeAll(keepingCapacity: true)
        guard key.moves, cache.rendered != nil else { return changed }
        if motion.kind == .ticker, let u = travelled {
            placeTicker(&cache, travelled: u, shown: shown, orientation: orientation)
        } else {
            placeMoving(
                &cache, style: style, motion: motion, motionTime: motionTime, shown: shown, orientation: orientation)
        }
        return changed
    }

    /// Renders the layer for `key` (or takes what the worker or an animation's kept frames
    /// have ready) into `cache`.
    private func rerender(
        _ cache: inout LayerCache, layer: Int, key: RenderKey, style: OverlayStyle, image: DecodedImage?,
        format: StreamFormat, orientation: ImageOrientation, live: Bool, keep: Int
    ) {
        let (width, height) = (key.width, key.height)
        if !style.text.isEmpty { checkFont(style.fontDesc) }
        // Live: frames come at their pace, so what the worker still renders is nearly done,
        // and waiting for it is cheaper than rendering again. Not live: never wait (a
        // wake-up on a busy machine can take longer than the render), but for text drawn in
        // bands, whose render ahead is short and whose render in place would allocate.
        // An animation's frames are rendered and converted once each, then kept
        // (`keep`: how many frames it has).
        let kept = keep > 0 ? cache.kept.first(where: { $0.key == key })?.prepared : nil
        let taken =
            kept == nil
            ? ahead.take(layer: layer, key: key, wait: live || cache.changingText != nil) : (prepared: nil, late: false)
        // Frames faster than the worker: render in place for a while.
        if taken.late { cache.skipPredictions = Self.predictionBackoff }
        let prepared =
            kept ?? taken.prepared
            ?? PreparedLayer(
                style: style, image: image, moves: key.moves, width: width, height: height,
                format: format, orientation: orientation, changing: cache.changingText)
        if keep > 0, kept == nil {
            cache.kept.append((key, prepared))
            if cache.kept.count > min(keep, 1024) { cache.kept.removeFirst() }
        }
        cache.key = key
        cache.rendered = prepared.rendered
        cache.blockOrigin = (prepared.blockRect.x, prepared.blockRect.y)
        cache.copyTextY = prepared.textRect?.y
        cache.blockSize = (prepared.blockRect.width, prepared.blockRect.height)
        cache.converted = prepared.converted
        cache.phaseSource = prepared.source.map { ($0, format.layout, format.encoding) }
        cache.dropPixels()
        if kept == nil { renderCount.add(1, ordering: .relaxed) }
        Log.debug(
            element,
            "rendered block \(prepared.blockRect) visible \(prepared.rendered?.rect.description ?? "none") for \(width)x\(height)"
        )
    }

    /// A ticker's copies at `travelled` pixels: the earlier texts still in view, then the
    /// current one's, copy after copy along the row the block was rendered in.
    private func placeTicker(
        _ cache: inout LayerCache, travelled u: Double, shown: (width: Int, height: Int),
        orientation: ImageOrientation
    ) {
        // With a band, the copies' text goes where the band's text lines would be.
        cache.bandShift = 0
        if let inBand = cache.band?.prepared.textRect, let copy = cache.copyTextY {
            cache.bandShift = inBand.y - copy
        }
        let lefts = cache.ticker.advance(travelled: u, blockWidth: cache.blockSize.width, frameWidth: shown.width)
        for entry in cache.ticker.past {
            entry.text.offsets = entry.lefts.map {
                orientation.storedOffset(dx: $0 - entry.blockX, dy: cache.bandShift)
            }
        }
        let places = lefts.isEmpty ? [shown.width] : lefts
        for (i, left) in places.enumerated() {
            let d = orientation.storedOffset(dx: left - cache.blockOrigin.x, dy: cache.bandShift)
            if i == 0 {
                (cache.dx, cache.dy) = (d.dx, d.dy)
            } else {
                cache.copies.append(d)
            }
        }
    }

    /// A moving layer keeps its rendered size; only its origin follows the placement (and
    /// the layer's own motion from there).
    private func placeMoving(
        _ cache: inout LayerCache, style: OverlayStyle, motion: Motion, motionTime: Double?,
        shown: (width: Int, height: Int), orientation: ImageOrientation
    ) {
        let placed = LayerLayout.origin(
            blockWidth: cache.blockSize.width, blockHeight: cache.blockSize.height,
            frameWidth: shown.width, frameHeight: shown.height, placement: style.placement)
        let margins = (
            x: clampToInt((style.placement.marginX * Double(shown.width)).rounded()),
            y: clampToInt((style.placement.marginY * Double(shown.height)).rounded())
        )
        let origin =
            motion.kind == .none
            ? placed
            : motion.origin(at: motionTime, start: placed, block: cache.blockSize, frame: shown, margin: margins)
        let d = orientation.storedOffset(dx: origin.x - cache.blockOrigin.x, dy: origin.y - cache.blockOrigin.y)
        cache.dx = d.dx
        cache.dy = d.dy
    }

    /// Asks the worker for the pixels `layer` will need on the next frame (`next`: its
    /// times) if they will differ from this frame's (`current`): new text, or a keyframed
    /// scale, rotation or opacity. A layer whose prediction was wrong (times that jump, a
    /// time code from metadata) or was not ready when its frame came (frames faster than
    /// real time) is not predicted for the next `predictionBackoff` frames.
    private func renderNextAhead(
        layer: LayerSpec, index: Int, next: FrameClock, current: RenderKey, image: DecodedImage?,
        format: StreamFormat, orientation: ImageOrientation
    ) {
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
        var (style, opacity) = layer.state(next)
        if opacity <= 0 { return }
        style.text = layer.template.expand(next)
        if style.text.isEmpty && image == nil { return }
        let key = RenderKey(
            style: style, moves: current.moves, image: image, width: current.width, height: current.height,
            orientation: orientation, infoGeneration: current.infoGeneration)
        if key == current { return }
        let moves = key.moves, width = key.width, height = key.height, nextStyle = style
        let changing = stream.withLayer(index) { $0.changingText }
        let job = RenderAhead.Job(layer: index, key: key) {
            PreparedLayer(
                style: nextStyle, image: image, moves: moves, width: width, height: height,
                format: format, orientation: orientation, changing: changing)
        }
        if ahead.request(job) { stream.withLayer(index) { $0.predicted = key } }
    }

    static let predictionBackoff = 30

    /// Says once per name in the debug log that a text shows a variable nobody has set, or
    /// a data field the data has not (a text set while playing; at start that is an error).
    private func warnUnset(_ template: TextTemplate, _ variables: Variables, _ data: TimedData?) {
        for name in template.variableNames where variables[name] == nil && !stream.unsetVariables.contains(name) {
            stream.unsetVariables.insert(name)
            Log.warning(element, "{var:\(name)} shows nothing: no variable \"\(name)\" is set")
        }
        for field in template.dataFields where data?.table[field.name] == nil {
            guard stream.missingFields.insert(field.name).inserted else { continue }
            Log.warning(
                element,
                data.map { "{data:\(field.name)} shows nothing: \($0.table.file) has no field \"\(field.name)\"" }
                    ?? "{data:\(field.name)} shows nothing: no data file")
        }
    }

    /// The settings' data placed on this stream: dates and times count from its creation
    /// time, or (said once) from the file's first row when it has none.
    private func placedData(_ data: TimedData?) -> TimedData? {
        guard var data else { return nil }
        if data.table.absolute {
            data.origin = stream.creationTime
            if stream.creationTime == nil && !stream.toldNoCreationTime {
                stream.toldNoCreationTime = true
                Log.warning(
                    element,
                    "\(data.table.file) has dates and times but the stream has no creation time (datetime tag): "
                        + "its first row is taken as the stream's start")
            }
        }
        return data
    }

    /// Warns once per font description that is not installed.
    func checkFont(_ fontDesc: String) {
        guard checkedFonts.withLock({ $0.insert(fontDesc).inserted }) else { return }
        if let used = TextLayout.substituteFamily(for: fontDesc) {
            Log.warning(element, "font \"\(fontDesc)\" is not installed; using \"\(used)\" instead")
        }
    }
}
