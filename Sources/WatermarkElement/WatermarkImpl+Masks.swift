// Privacy masks on the streaming thread: the regions made ready once per change of the
// regions, the fill, the caps or the orientation, then painted into every frame's planes.

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

extension WatermarkImpl {
    /// Hides the `mask` regions in the frame's pixels.
    func paintMasks(_ s: WatermarkSettings, into frame: UnsafeMutablePointer<GstVideoFrame>, format: StreamFormat) {
        let width = Int(frame.pointee.info.width), height = Int(frame.pointee.info.height)
        guard width > 0, height > 0, let finfo = frame.pointee.info.finfo else { return }
        let orientation = s.followOrientation ? stream.orientation : .rotate0
        let key = MaskKey(
            regions: s.masks, fill: s.maskFill, color: s.maskColor, cell: s.maskCell, radius: s.maskRadius,
            width: width, height: height, orientation: orientation, generation: stream.infoGeneration)
        if stream.maskKey != key {
            // Sizes are the picture's as displayed (cells and blur follow its width).
            let shown = Double(orientation.displayedSize(width: width, height: height).width)
            let spans = MaskSpans(s.masks, width: width, height: height, orientation: orientation)
            stream.mask = PreparedMask(
                spans, layout: format.layout, encoding: format.encoding, fill: s.maskFill, color: s.maskColor,
                cell: Int((s.maskCell * shown).rounded()), sigma: s.maskRadius * shown)
            stream.maskKey = key
        }
        if let mask = stream.mask { paint(mask, into: frame, planes: min(Int(finfo.pointee.n_planes), 4)) }
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
