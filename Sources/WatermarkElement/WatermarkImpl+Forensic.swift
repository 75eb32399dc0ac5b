// The forensic mark on the streaming thread: the id and key are read when set (off the
// streaming thread), checked at start, and made into a tile once; the painter for the
// stream's format and size is made when the caps change, and marks every frame's luma
// after the visible layers are blended.

import CGStreamer
import CShim
import WatermarkBlend
import WatermarkModel

/// The `forensic-…` properties as set, and the chips they give when both are valid.
struct ForensicSettings: Sendable {
    var idText: String?
    var key: String?
    var strength = WatermarkProperties.forensicStrength.defaultValue
    /// The tile's chips for the id under the key (nil: no mark, or an error start reports).
    var chips: [Int8]?

    /// What start reports: an id that is not 16 hexadecimal digits, or one without a key.
    var error: String? {
        guard let idText else { return nil }
        guard ForensicCode.parseID(idText) != nil else {
            return "forensic-id \"\(idText)\" is not 16 hexadecimal digits (a 64-bit id, 0x allowed)"
        }
        guard let key, !key.isEmpty else { return "forensic-id is set but forensic-key is empty: the mark needs a key" }
        return nil
    }

    mutating func update() {
        guard error == nil, let idText, let id = ForensicCode.parseID(idText), let key else {
            chips = nil
            return
        }
        chips = ForensicPattern(digest: ForensicKey.digest(key)).chips(for: id)
    }
}

/// SHA-256 through GLib: the key's digest seeds the pattern; the command line names a copy
/// by the first 64 bits of its text's.
package enum ForensicKey {
    package static func digest(_ text: String) -> [UInt8] {
        guard let checksum = g_checksum_new(G_CHECKSUM_SHA256) else { return [] }
        defer { g_checksum_free(checksum) }
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBufferPointer { g_checksum_update(checksum, $0.baseAddress, gssize($0.count)) }
        var digest = [UInt8](repeating: 0, count: 32)
        var length = gsize(32)
        digest.withUnsafeMutableBufferPointer { g_checksum_get_digest(checksum, $0.baseAddress, &length) }
        return Array(digest.prefix(Int(length)))
    }
}

/// The painter made for the current chips, strength, format and size.
struct ForensicCache {
    var chips: [Int8]
    var strength: Double
    var layout: PixelLayout
    var width: Int, height: Int
    var painter: ForensicPainter
}

extension WatermarkImpl {
    /// Marks the frame's luma; the painter is made again only when what it depends on changes.
    func paintForensic(
        _ f: ForensicSettings, chips: [Int8], into frame: UnsafeMutablePointer<GstVideoFrame>, format: StreamFormat
    ) {
        let width = Int(frame.pointee.info.width), height = Int(frame.pointee.info.height)
        guard width > 0, height > 0, let finfo = frame.pointee.info.finfo else { return }
        if let c = stream.forensic, c.width == width, c.height == height, c.layout == format.layout,
            c.strength == f.strength, c.chips == chips
        {
        } else {
            let tile = ForensicTile(chips: chips, cell: ForensicTile.cell(forHeight: height))
            stream.forensic = ForensicCache(
                chips: chips, strength: f.strength, layout: format.layout, width: width, height: height,
                painter: ForensicPainter(
                    tile: tile, layout: format.layout, width: width, height: height, strength: f.strength))
        }
        guard let painter = stream.forensic?.painter else { return }
        let planes = Int(finfo.pointee.n_planes)
        painter.paint { p in
            guard p < planes, let base = gst_watermark_frame_plane_data(frame, UInt32(p)) else { return nil }
            return (UnsafeMutableRawPointer(base), Int(gst_watermark_frame_plane_stride(frame, UInt32(p))))
        }
    }
}
