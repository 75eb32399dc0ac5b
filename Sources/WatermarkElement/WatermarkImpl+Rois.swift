// Overlays that follow detections, on the streaming thread: each frame's
// GstVideoRegionOfInterestMetas and GStreamer's analytics object detections (1.24 and later)
// filled, outlined and labelled where that frame says (the metas stay on the buffer). Labels
// are rendered once per text and kept.

import CAnalytics
import CGStreamer
import CShim
import WatermarkBlend
import WatermarkModel

/// What the regions of interest keep from frame to frame: buffers reused for each frame's
/// regions.
struct RoiState {
    var regions: [(roi: RegionOfInterest, rect: PixelRect)] = []
    var rects: [PixelRect] = []
    /// Told once per stream: a frame with more regions than are drawn.
    var toldTooMany = false
    /// The analytics relation meta's API type, once something in the process registered it.
    var analyticsAPI: GType = 0
    /// Told once per stream: frames carry analytics metadata the library cannot be opened for.
    var toldNoAnalytics = false
}

/// A follow layer's labels rendered for `key` (the look they share), and the order they were
/// made in (the oldest goes first when there are too many).
struct LabelCache {
    var key: LabelKey?
    var labels: [String: PreparedLayer] = [:]
    var order: [String] = []

    static let kept = 64

    struct LabelKey: Equatable {
        var style: OverlayStyle
        var width: Int
        var height: Int
        var orientation: ImageOrientation
        var generation: UInt64
    }
}

extension WatermarkImpl {
    /// Fills, outlines and labels the regions of interest of this frame that `follow` selects
    /// (`quarks`: its types), labels in `labelStyle`.
    func paintRegionsOfInterest(
        _ follow: RoiFollow, quarks: [UInt32]?, labelStyle: OverlayStyle, slot: Int, orientation: ImageOrientation,
        into frame: UnsafeMutablePointer<GstVideoFrame>, format: StreamFormat
    ) {
        let width = Int(frame.pointee.info.width), height = Int(frame.pointee.info.height)
        guard width > 0, height > 0, let finfo = frame.pointee.info.finfo, let buffer = frame.pointee.buffer else {
            return
        }
        collectRegions(follow, quarks: quarks, buffer: buffer, width: width, height: height)
        guard !stream.rois.regions.isEmpty else { return }
        let shown = orientation.displayedSize(width: width, height: height)
        let planes = min(Int(finfo.pointee.n_planes), 4)
        if let fill = follow.fill.maskFill {
            stream.rois.rects.removeAll(keepingCapacity: true)
            for r in stream.rois.regions { stream.rois.rects.append(r.rect) }
            // Apart, each region is hidden on its own: a blur reads only around it.
            for group in RoiFollow.groups(stream.rois.rects) {
                let mask = PreparedMask(
                    MaskSpans(rects: group, width: width, height: height), layout: format.layout,
                    encoding: format.encoding, fill: fill, color: follow.fillColor,
                    cell: Int((follow.cell * Double(shown.width)).rounded()), sigma: follow.radius * Double(shown.width)
                )
                paint(mask, into: frame, planes: planes)
            }
        }
        let thickness = follow.boxThickness(shownHeight: shown.height)
        if thickness > 0 {
            stream.rois.rects.removeAll(keepingCapacity: true)
            for r in stream.rois.regions {
                stream.rois.rects += RoiFollow.box(around: r.rect, thickness: thickness, width: width, height: height)
            }
            let box = PreparedMask(
                MaskSpans(rects: stream.rois.rects, width: width, height: height), layout: format.layout,
                encoding: format.encoding, fill: .solid, color: follow.boxColor, blendsColor: true)
            paint(box, into: frame, planes: planes)
        }
        if let label = follow.label {
            drawLabels(
                label, style: labelStyle, slot: slot, into: frame, format: format, orientation: orientation,
                thickness: thickness, planes: planes)
        }
    }

    /// This frame's regions that pass the type filter and the confidence threshold, with
    /// their (grown, clipped) rectangles; zero-sized and outside ones are left out, and
    /// beyond `RoiFollow.maxRegions` the rest (with a warning once per stream).
    private func collectRegions(
        _ follow: RoiFollow, quarks: [UInt32]?, buffer: UnsafeMutablePointer<GstBuffer>, width: Int, height: Int
    ) {
        stream.rois.regions.removeAll(keepingCapacity: true)
        let api = gst_video_region_of_interest_meta_api_get_type()
        var state: gpointer?
        var skipped = 0
        while let meta = gst_buffer_iterate_meta_filtered(buffer, &state, api) {
            let m = UnsafeMutableRawPointer(meta).assumingMemoryBound(to: GstVideoRegionOfInterestMeta.self).pointee
            if let quarks, !quarks.contains(m.roi_type) { continue }
            let confidence = Self.confidence(m.params)
            if !follow.passes(confidence: confidence) { continue }
            let name = g_quark_to_string(m.roi_type).map { String(cString: $0) } ?? ""
            let roi = RegionOfInterest(
                type: name, id: Int64(m.id), x: Int(m.x), y: Int(m.y), width: Int(m.w), height: Int(m.h),
                confidence: confidence)
            guard let rect = follow.rect(roi, width: width, height: height) else { continue }
            if stream.rois.regions.count >= RoiFollow.maxRegions {
                skipped += 1
                continue
            }
            stream.rois.regions.append((roi, rect))
        }
        collectDetections(follow, quarks: quarks, buffer: buffer, width: width, height: height, skipped: &skipped)
        if skipped > 0, !stream.rois.toldTooMany {
            stream.rois.toldTooMany = true
            post(
                "a frame has \(RoiFollow.maxRegions + skipped) regions of interest to draw; only the first "
                    + "\(RoiFollow.maxRegions) are drawn", code: GST_RESOURCE_ERROR_SETTINGS, fatal: false,
                debug: "roi properties")
        }
    }

    /// This frame's object detections in GStreamer's analytics metadata that pass the type
    /// filter (their class) and the confidence threshold, after its regions of interest: a
    /// detection that is the same object as one of those (a producer attaching both kinds for
    /// one object: `RegionOfInterest.isSameObject`) is left out.
    private func collectDetections(
        _ follow: RoiFollow, quarks: [UInt32]?, buffer: UnsafeMutablePointer<GstBuffer>, width: Int, height: Int,
        skipped: inout Int
    ) {
        if stream.rois.analyticsAPI == 0 {
            stream.rois.analyticsAPI = g_type_from_name(AnalyticsLibrary.apiName)
            if stream.rois.analyticsAPI == 0 { return }
        }
        var state: gpointer?
        var meta = gst_buffer_iterate_meta_filtered(buffer, &state, stream.rois.analyticsAPI)
        guard meta != nil else { return }
        let analytics: AnalyticsLibrary
        switch AnalyticsLibrary.shared {
        case .success(let lib): analytics = lib
        case .failure(let why):
            if !stream.rois.toldNoAnalytics {
                stream.rois.toldNoAnalytics = true
                Log.warning(element, "frames carry GStreamer analytics metadata that cannot be read: \(why.reason)")
            }
            return
        }
        let fromRoiMetas = stream.rois.regions.count
        while let m = meta {
            let relations = UnsafeMutableRawPointer(m)
            var entries: UnsafeMutableRawPointer?
            var od = WMAnalyticsMtd()
            while analytics.iterate(relations, &entries, analytics.odType, &od) != 0 {
                guard let (roi, quark) = analytics.detection(od, in: relations) else { continue }
                if let quarks, !quarks.contains(quark) { continue }
                if !follow.passes(confidence: roi.confidence) { continue }
                if stream.rois.regions[..<fromRoiMetas].contains(where: { $0.roi.isSameObject(as: roi) }) { continue }
                guard let rect = follow.rect(roi, width: width, height: height) else { continue }
                if stream.rois.regions.count >= RoiFollow.maxRegions {
                    skipped += 1
                    continue
                }
                stream.rois.regions.append((roi, rect))
            }
            meta = gst_buffer_iterate_meta_filtered(buffer, &state, stream.rois.analyticsAPI)
        }
    }

    /// The `confidence` (a double) of the first param structure that has one.
    private static func confidence(_ params: UnsafeMutablePointer<GList>?) -> Double? {
        var node = params
        while let n = node {
            if let data = n.pointee.data {
                var value = 0.0
                if gst_structure_get_double(data.assumingMemoryBound(to: GstStructure.self), "confidence", &value) != 0
                {
                    return value
                }
            }
            node = n.pointee.next
        }
        return nil
    }

    /// Each region's label above its box's top-left corner (moved inside the frame), in the
    /// style of the text properties; a text is rendered once and kept while the look stays.
    private func drawLabels(
        _ label: RoiLabel, style labelStyle: OverlayStyle, slot: Int, into frame: UnsafeMutablePointer<GstVideoFrame>,
        format: StreamFormat, orientation: ImageOrientation, thickness: Int, planes: Int
    ) {
        let width = Int(frame.pointee.info.width), height = Int(frame.pointee.info.height)
        let shown = orientation.displayedSize(width: width, height: height)
        var style = labelStyle
        let anchor = style.placement.anchor
        style.text = ""
        style.rotation = 0
        style.placement = Placement(anchor: .topLeft, marginX: 0, marginY: 0, x: -1, y: -1)
        let key = LabelCache.LabelKey(
            style: style, width: width, height: height, orientation: orientation, generation: stream.infoGeneration)
        var cache = stream.hiding[slot]?.labels ?? LabelCache()
        defer { stream.hiding[slot, default: HidingCache()].labels = cache }
        if cache.key != key {
            cache.key = key
            cache.labels.removeAll()
            cache.order.removeAll()
            checkFont(style.fontDesc)
        }
        for (roi, rect) in stream.rois.regions {
            let text = label.text(for: roi)
            guard !text.isEmpty else { continue }
            var prepared = cache.labels[text]
            if prepared == nil {
                style.text = text
                let made = PreparedLayer(
                    style: style, image: nil, moves: true, width: width, height: height, format: format,
                    orientation: orientation)
                renderCount.add(1, ordering: .relaxed)
                if cache.order.count >= LabelCache.kept {
                    cache.labels[cache.order.removeFirst()] = nil
                }
                cache.labels[text] = made
                cache.order.append(text)
                prepared = made
            }
            guard let prepared, let converted = prepared.converted else { continue }
            let block = prepared.blockRect
            let outer = Self.displayedRect(
                PixelRect(
                    x: rect.x - thickness, y: rect.y - thickness, width: rect.width + 2 * thickness,
                    height: rect.height + 2 * thickness), orientation: orientation, width: width, height: height)
            let origin = RoiFollow.labelOrigin(
                outer: outer, size: (block.width, block.height), anchor: anchor, frame: (shown.width, shown.height))
            // `blend` puts it on the chroma grid (a label may sit a pixel off where it was placed).
            let d = orientation.storedOffset(dx: origin.x - block.x, dy: origin.y - block.y)
            blend(converted, opacity: 1, dx: d.dx, dy: d.dy, into: frame, planes: planes, width: width, height: height)
        }
    }

    /// A stored rectangle as displayed with `orientation`.
    private static func displayedRect(
        _ r: PixelRect, orientation: ImageOrientation, width: Int, height: Int
    ) -> PixelRect {
        guard orientation != .rotate0 else { return r }
        let a = orientation.displayed(x: r.x, y: r.y, width: width, height: height)
        let b = orientation.displayed(x: r.x + r.width - 1, y: r.y + r.height - 1, width: width, height: height)
        return PixelRect(
            x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x) + 1, height: abs(a.y - b.y) + 1)
    }
}
