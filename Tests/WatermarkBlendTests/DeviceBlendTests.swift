import Testing
import WatermarkBlend
import WatermarkModel

/// The GPU kernel's work, done thread by thread on the CPU (`DeviceBlend.reference`, the same
/// steps as the CUDA source), gives exactly the CPU blend's bytes: every format family, odd
/// frame sizes, overlays partly outside the frame, opacities below 1.
struct DeviceBlendTests {
    /// Premultiplied ARGB with transparent, opaque and partial pixels.
    static func overlay(_ rect: PixelRect, seed: UInt32) -> RenderedOverlay {
        var x = seed
        var pixels: [UInt32] = []
        for _ in 0..<(rect.width * rect.height) {
            x = x &* 1_664_525 &+ 1_013_904_223
            let a = [0, 255, 128, UInt32(x >> 24)][Int(x >> 8) & 3]
            func c(_ shift: UInt32) -> UInt32 { (((x >> shift) & 0xFF) * a) / 255 }
            pixels.append(a << 24 | c(16) << 16 | c(8) << 8 | c(3))
        }
        return RenderedOverlay(rect: rect, pixels: pixels)
    }

    @Test(arguments: [PixelLayout.i420, .nv12, .bgra, .yuy2, .p010, .i420p10])
    func kernelMatchesTheCPUBlend(layout: PixelLayout) {
        let (w, h) = (37, 23)
        let placements: [(PixelRect, Int, Int, Double)] = [
            (PixelRect(x: 4, y: 2, width: 17, height: 11), 0, 0, 1),
            (PixelRect(x: 0, y: 0, width: 13, height: 9), 30, 18, 1),  // partly past the right and bottom
            (PixelRect(x: 6, y: 4, width: 15, height: 10), -9, -7, 0.6),  // partly past the left and top
            (PixelRect(x: 2, y: 2, width: 30, height: 18), 1, 1, 0.25),
        ]
        for (n, (rect, dx, dy, opacity)) in placements.enumerated() {
            let converted = ConvertedOverlay(Self.overlay(rect, seed: UInt32(n + 1)), layout: layout, encoding: .bt709)
            for p in 0..<layout.planeCount {
                let stride = layout.validBytes(plane: p, frameWidth: w) + 5
                let rows = layout.validRows(plane: p, frameHeight: h)
                var cpu = (0..<(stride * rows)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ n) }
                var gpu = cpu
                cpu.withUnsafeMutableBufferPointer {
                    _ = converted.blend(
                        planeIndex: p, base: $0.baseAddress!, stride: stride, frameWidth: w, frameHeight: h,
                        opacity: opacity, dx: dx, dy: dy)
                }
                for plane in converted.devicePlanes where plane.plane == p {
                    guard
                        let at = converted.placement(
                            of: plane, frameWidth: w, frameHeight: h, opacity: opacity, dx: dx, dy: dy)
                    else { continue }
                    gpu.withUnsafeMutableBufferPointer { buf in
                        for i in 0..<plane.sampleCount {
                            DeviceBlend.reference(
                                thread: i, plane: plane, at: at, dst: buf.baseAddress!, stride: stride)
                        }
                    }
                }
                #expect(cpu == gpu, "placement \(n), plane \(p)")
            }
        }
    }
}
