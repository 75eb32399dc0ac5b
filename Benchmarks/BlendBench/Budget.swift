// The fixed work whose instruction count scripts/instruction-budgets measures under
// valgrind's callgrind (deterministic counts, unlike times on a shared machine). Only
// what runs inside `measured` is counted (callgrind --toggle-collect).

import WatermarkBlend
import WatermarkChangingText
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
        if name.hasPrefix("timecode") { return timecode(name, logo: logo) }
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

    /// Frames of the changing-text cases: enough that first uses (the block drawn whole,
    /// each band drawn once) are spread as a stream spreads them.
    static let timecodeFrames = 300

    /// The time codes of frames 0..<n at 30 fps.
    static func timecodes(_ n: Int) -> [String] {
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return (0..<n).map { f in "\(two(f / 108_000)):\(two(f / 1800 % 60)):\(two(f / 30 % 60)):\(two(f % 30))" }
    }

    /// `timecode-HEIGHT-FORMAT[-whole]`: a `{timecode}` layer (the logo above one line,
    /// outline, `shadow=true`) over 300 frames, each rendered and blended into a frame of
    /// HEIGHT (1080 or 2160) in FORMAT (I420, NV12, BGRA); `-whole`: drawn and converted
    /// whole every frame, as before bands (30 frames: the count per frame is the same).
    static func timecode(_ name: String, logo: DecodedImage) -> Bool {
        let parts = name.split(separator: "-").map(String.init)
        let layouts: [String: PixelLayout] = ["I420": .i420, "NV12": .nv12, "BGRA": .bgra]
        guard parts.count >= 3, let height = Int(parts[1]), height == 1080 || height == 2160,
            let layout = layouts[parts[2]]
        else { return false }
        let width = height * 16 / 9
        let whole = parts.count > 3 && parts[3] == "whole"
        var s = OverlayStyle()
        s.shadow = true
        let texts = timecodes(whole ? 30 : timecodeFrames)
        var frame = BenchFrame(layout: layout, width: width, height: height)
        var renderer = ChangingTextRenderer()
        // Fonts are found and cached by a first render, outside the count.
        s.text = "99:99:99:99"
        _ = BlockRenderer.render(style: s, image: logo, frameWidth: width, frameHeight: height)
        var blended = 0
        measured {
            for text in texts {
                s.text = text
                let converted: ConvertedOverlay?
                if whole {
                    converted = BlockRenderer.render(
                        style: s, image: logo, frameWidth: width, frameHeight: height, alignX: layout.alignX,
                        alignY: layout.alignY
                    ).overlay.map {
                        ConvertedOverlay($0, layout: layout, encoding: .bt709, frameWidth: width, frameHeight: height)
                    }
                } else {
                    converted =
                        renderer.render(
                            style: s, image: logo, frameWidth: width, frameHeight: height, layout: layout,
                            encoding: .bt709, signal: .sdr
                        ).converted
                }
                if let converted {
                    frame.blend(converted)
                    blended += 1
                }
            }
        }
        print(
            "\(name): \(texts.count) frames, \(blended) blended; drawn whole \(whole ? texts.count : renderer.wholeRenders), "
                + "bands drawn \(renderer.drawnBands) in \(renderer.windows) windows, \(renderer.cachedBands) from the cache"
        )
        return blended == texts.count
    }
}
