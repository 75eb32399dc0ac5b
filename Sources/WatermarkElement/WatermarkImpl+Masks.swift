// Privacy masks and follow layers on the streaming thread: the mask properties' and every
// config mask layer's regions made ready once per change of the regions, the fill, the caps
// or the orientation, then painted into every frame's planes; then each follow layer's
// regions of interest. All of it goes into the pixels, under every drawn layer.

import CGStreamer
import CShim
import WatermarkBlend
import WatermarkModel

/// What a prepared mask was made from.
struct MaskKey: Equatable {
    var regions: [MaskRegion]
    var fill: MaskFill
    var color: ARGBColor
    var cell: Double
    var radius: Double
    var width: Int
    var height: Int
    var orientation: ImageOrientation
    var generation: UInt64
}

/// What one mask or follow layer keeps from frame to frame.
struct HidingCache {
    /// The slot of the layer the mask and roi properties describe (config layers use their index).
    static let propertySlot = -1

    var mask: PreparedMask?
    var maskKey: MaskKey?
    var labels = LabelCache()
    /// A follow layer's types, and their quarks (made once, not per frame).
    var types: [String]?
    var quarks: [UInt32]?
}

extension WatermarkImpl {
    /// Whether a frame with these settings has anything to hide or follow.
    static func hides(_ s: WatermarkSettings) -> Bool {
        !s.mask.regions.isEmpty || s.roi.drawsAnything || (s.config?.layers.contains(where: \.hides) ?? false)
    }

    /// Paints the mask properties' regions, the roi properties' follow layer, then the config's
    /// mask and follow layers in their order (those shown at the frame's stream time).
    func paintHiding(
        _ s: WatermarkSettings, into frame: UnsafeMutablePointer<GstVideoFrame>, number: Int, format: StreamFormat
    ) {
        let slot = HidingCache.propertySlot
        let o = s.followOrientation ? stream.orientation : .rotate0
        if !s.mask.regions.isEmpty {
            paintMask(s.mask, regions: s.mask.regions, slot: slot, orientation: o, into: frame, format: format)
        }
        if s.roi.drawsAnything {
            paintRegionsOfInterest(
                s.roi, quarks: s.roiTypeQuarks, labelStyle: propertyLabelStyle(s), slot: slot, orientation: o,
                into: frame, format: format)
        }
        guard let layers = s.config?.layers, layers.contains(where: \.hides) else { return }
        // A config layer's slot outlives a shorter config only until the next frame.
        if stream.hiding.keys.contains(where: { $0 >= layers.count }) {
            stream.hiding = stream.hiding.filter { $0.key < layers.count }
        }
        let timed = layers.contains { $0.hides && (!$0.timing.isAlwaysOn || !$0.keyframes.isEmpty) }
        let t = timed ? frameClock(frame, number: number).streamTime : nil
        for (index, layer) in layers.enumerated() {
            if let mask = layer.mask {
                let regions = layer.maskRegions(at: t)
                if !regions.isEmpty {
                    paintMask(mask, regions: regions, slot: index, orientation: o, into: frame, format: format)
                }
            } else if let follow = layer.follow, layer.timing.factor(at: t) > 0 {
                var cache = stream.hiding[index] ?? HidingCache()
                if cache.types != follow.types || (follow.types != nil && cache.quarks == nil) {
                    cache.types = follow.types
                    cache.quarks = follow.types?.map { g_quark_from_string($0) }
                    stream.hiding[index] = cache
                }
                var style = layer.style
                style.text = ""
                paintRegionsOfInterest(
                    follow, quarks: cache.quarks, labelStyle: style, slot: index, orientation: o, into: frame,
                    format: format)
            }
        }
    }

    /// The roi-label's look: the text properties', above the box's top-left corner.
    private func propertyLabelStyle(_ s: WatermarkSettings) -> OverlayStyle {
        var style = s.shorthand.style
        style.placement.anchor = .topLeft
        return style
    }

    /// Hides `regions` (the mask's, moved where its keyframes say) with the mask's fill.
    private func paintMask(
        _ m: MaskLayer, regions: [MaskRegion], slot: Int, orientation: ImageOrientation,
        into frame: UnsafeMutablePointer<GstVideoFrame>, format: StreamFormat
    ) {
        let width = Int(frame.pointee.info.width), height = Int(frame.pointee.info.height)
        guard width > 0, height > 0, let finfo = frame.pointee.info.finfo else { return }
        let key = MaskKey(
            regions: regions, fill: m.fill, color: m.color, cell: m.cell, radius: m.radius,
            width: width, height: height, orientation: orientation, generation: stream.infoGeneration)
        var cache = stream.hiding[slot] ?? HidingCache()
        if cache.maskKey != key {
            // Sizes are the picture's as displayed (cells and blur follow its width).
            let shown = Double(orientation.displayedSize(width: width, height: height).width)
            let spans = MaskSpans(regions, width: width, height: height, orientation: orientation)
            cache.mask = PreparedMask(
                spans, layout: format.layout, encoding: format.encoding, fill: m.fill, color: m.color,
                cell: Int((m.cell * shown).rounded()), sigma: m.radius * shown)
            cache.maskKey = key
            stream.hiding[slot] = cache
        }
        if let mask = cache.mask { paint(mask, into: frame, planes: min(Int(finfo.pointee.n_planes), 4)) }
    }

    /// Paints a prepared mask (or a box's outline) into the frame's first `planes` planes.
    func paint(_ mask: PreparedMask, into frame: UnsafeMutablePointer<GstVideoFrame>, planes: Int) {
        guard !mask.isEmpty else { return }
        for p in 0..<planes {
            guard let base = gst_watermark_frame_plane_data(frame, UInt32(p)) else { continue }
            let stride = Int(gst_watermark_frame_plane_stride(frame, UInt32(p)))
            mask.paint(planeIndex: p, base: base, stride: stride, scratch: stream.maskScratch)
        }
    }
}
