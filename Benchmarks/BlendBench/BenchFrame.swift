import WatermarkBlend
import WatermarkModel

/// A frame in memory for the blend benchmarks: each plane's rows 64-byte aligned, every
/// byte 90.
struct BenchFrame {
    let width: Int
    let height: Int
    var planes: [[UInt8]] = []
    var strides: [Int] = []

    init(layout: PixelLayout, width: Int, height: Int) {
        self.width = width
        self.height = height
        for p in 0..<layout.planeCount {
            let stride = (layout.validBytes(plane: p, frameWidth: width) + 63) & ~63
            strides.append(stride)
            planes.append([UInt8](repeating: 90, count: stride * layout.validRows(plane: p, frameHeight: height)))
        }
    }

    /// Blends `overlay` into every plane once.
    mutating func blend(_ overlay: ConvertedOverlay, opacity: Double = 1, dx: Int = 0, dy: Int = 0) {
        for p in planes.indices {
            let stride = strides[p]
            planes[p].withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                _ = overlay.blend(
                    planeIndex: p, base: base, stride: stride, frameWidth: width, frameHeight: height,
                    opacity: opacity, dx: dx, dy: dy)
            }
        }
    }
}
