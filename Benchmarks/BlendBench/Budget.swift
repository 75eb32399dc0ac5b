// The fixed work whose instruction count scripts/instruction-budgets measures under
// valgrind's callgrind (deterministic counts, unlike times on a shared machine). Only
// what runs inside `measured` is counted (callgrind --toggle-collect).

import WatermarkBlend
import WatermarkModel
import WatermarkRender

/// Everything called from `body` is what callgrind counts.
@inline(never)
func measured(_ body: () -> Void) {
    body()
}

enum BudgetCase {
    static let blends = 20
    static let renders = 20

    /// `name`: I420, NV12 or BGRA (20 blends of the reference logo + text into a 1080p
    /// frame), or `render` (20 renders of a text that changes, as `{frame}` does).
    static func run(_ name: String, logo: DecodedImage, style: OverlayStyle) -> Bool {
        if name == "render" {
            var s = OverlayStyle()
            // Fonts are found and cached by the first render, outside the count.
            s.text = "{frame} 9999"
            _ = BlockRenderer.render(style: s, image: nil, frameWidth: 1920, frameHeight: 1080, alignX: 2, alignY: 2)
            measured {
                for i in 0..<renders {
                    s.text = "{frame} \(10000 + i)"
                    _ = BlockRenderer.render(
                        style: s, image: nil, frameWidth: 1920, frameHeight: 1080, alignX: 2, alignY: 2)
                }
            }
            return true
        }
        let layouts: [String: PixelLayout] = ["I420": .i420, "NV12": .nv12, "BGRA": .bgra]
        guard let layout = layouts[name],
            let overlay = BlockRenderer.render(
                style: style, image: logo, frameWidth: 1920, frameHeight: 1080, alignX: layout.alignX,
                alignY: layout.alignY
            ).overlay
        else { return false }
        let converted = ConvertedOverlay(overlay, layout: layout, encoding: .bt709, frameWidth: 1920, frameHeight: 1080)
        var frame = BenchFrame(layout: layout, width: 1920, height: 1080)
        measured {
            for _ in 0..<blends { frame.blend(converted) }
        }
        return true
    }
}
