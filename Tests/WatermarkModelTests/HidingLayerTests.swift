import Foundation
import TestSupport
import Testing
import WatermarkModel

/// Mask and follow layers in a config document: their fields, and the positioned errors for
/// what does not apply to them.
struct HidingLayerTests {
    static func parse(_ text: String) throws(ConfigError) -> [LayerSpec] {
        try LayerConfig.parse(Array(text.utf8), file: "wm.json", directory: "/cfg")
    }

    static func error(_ layer: String) -> String {
        do {
            _ = try parse(#"{ "layers": [ "# + layer + " ] }")
            return ""
        } catch {
            return error.description
        }
    }

    @Test func masksAsARectangleAPolygonAndAText() throws {
        let layers = try Self.parse(
            """
            { "layers": [
              { "mask": [0.1, 0.2, 0.3, 0.4], "fill": "pixelate", "cell": 0.05 },
              { "mask": [[0.5, 0.1], [0.9, 0.1], [0.7, 0.6]], "color": "#FF0000", "fill": "solid" },
              { "mask": "0,0,0.1,0.1; 0.2,0.2 0.3,0.2 0.25,0.3", "fill": "blur", "radius": 0.01 }
            ] }
            """)
        #expect(layers.count == 3)
        #expect(layers.allSatisfy { $0.hides })
        #expect(layers[0].mask?.regions == [.rectangle(x: 0.1, y: 0.2, width: 0.3, height: 0.4)])
        #expect(layers[0].mask?.fill == .pixelate && layers[0].mask?.cell == 0.05)
        #expect(layers[1].mask?.regions == [.polygon([MaskPoint(0.5, 0.1), MaskPoint(0.9, 0.1), MaskPoint(0.7, 0.6)])])
        #expect(layers[1].mask?.color == ARGBColor(argb: 0xFFFF_0000) && layers[1].mask?.fill == .solid)
        #expect(layers[2].mask?.regions.count == 2 && layers[2].mask?.fill == .blur && layers[2].mask?.radius == 0.01)
        // Defaults: solid, opaque black.
        let parsed = try Self.parse(#"{ "layers": [ { "mask": [0, 0, 1, 1] } ] }"#)
        let plain = try #require(parsed.first?.mask)
        #expect(plain.fill == .solid && plain.color == ARGBColor(argb: 0xFF00_0000))
    }

    @Test func opacityAndFadesDoNotApplyToAMask() {
        let e = Self.error(#"{ "mask": [0, 0, 0.5, 0.5], "opacity": 0.5 }"#)
        #expect(e == #"wm.json:1:54: layer 0: "opacity": does not apply to a mask (nothing of what it hides may show)"#)
        #expect(
            Self.error(#"{ "mask": [0, 0, 0.5, 0.5], "fade-in": 1 }"#).contains(#""fade-in": does not apply to a mask"#)
        )
        #expect(
            Self.error(#"{ "mask": [0, 0, 0.5, 0.5], "image": "a.png" }"#).contains(
                #""image": does not apply to a mask"#))
        // Keyframes move a mask; nothing else of them applies.
        let k = Self.error(#"{ "mask": [0, 0, 0.5, 0.5], "keyframes": [ { "time": 0, "opacity": 0 } ] }"#)
        #expect(k.contains(#"layer 0: "keyframes[0].opacity": does not apply to a mask"#), "\(k)")
        #expect(k.hasPrefix("wm.json:1:"))
    }

    @Test func malformedMasksAreNamed() {
        #expect(Self.error(#"{ "mask": [0, 0, 0.5] }"#).contains(#""mask": expected [x, y, width, height]"#))
        #expect(Self.error(#"{ "mask": [[0, 0], [1, 0], [1]] }"#).contains("point 3: expected [x, y]"))
        #expect(Self.error(#"{ "mask": "0,0,x,1" }"#).contains(#""mask": at character 5: "x" is not a number"#))
        #expect(Self.error(#"{ "mask": [0, 0, 0, 1] }"#).contains("width and height must be above 0"))
        #expect(Self.error(#"{ "mask": [0, 0, 1, 1], "fill": "smudge" }"#).contains(#""smudge" is not a fill"#))
        #expect(Self.error(#"{ "text": "a", "fill": "blur" }"#).contains(#""fill": applies only to a mask layer"#))
        #expect(Self.error(#"{ "mask": [0, 0, 1, 1], "cell": 5 }"#).contains(#""cell": "#))
    }

    @Test func keyframedOffsetsAndTheTimeWindowMoveAndShowAMask() throws {
        let layer = try #require(
            try Self.parse(
                #"{ "layers": [ { "mask": [0.1, 0.1, 0.2, 0.2], "start": 1, "end": 5, "keyframes": [ { "time": 1, "x": 0, "y": 0 }, { "time": 3, "x": -0.1, "y": 0.4 } ] } ] }"#
            ).first)
        // Only a mask's keyframes are offsets: a text's x stays within the frame.
        #expect(
            Self.error(#"{ "text": "a", "keyframes": [ { "time": 0, "x": -0.3 } ] }"#).contains(
                "-0.3 is out of range 0…1"))
        #expect(layer.maskRegions(at: 0.5).isEmpty)
        #expect(layer.maskRegions(at: 5.5).isEmpty)
        #expect(layer.maskRegions(at: 1) == [.rectangle(x: 0.1, y: 0.1, width: 0.2, height: 0.2)])
        let moved = try #require(layer.maskRegions(at: 4).first)
        guard case .rectangle(let x, let y, _, _) = moved else {
            Issue.record("\(moved)")
            return
        }
        #expect(abs(x - 0.0) < 1e-9 && abs(y - 0.5) < 1e-9)
    }

    @Test func followLayers() throws {
        let layers = try Self.parse(
            """
            { "layers": [
              { "follow": "roi", "roi-types": ["face", "license-plate"], "min-confidence": 0.5, "grow": 0.1,
                "fill": "solid", "color": "#00FF00" },
              { "follow": "roi", "roi-types": "car, bus", "box-color": "0xFFFF0000", "box-width": 0.01,
                "text": "{roi:type} {roi:confidence:%.0f}%", "color": "yellow", "anchor": "bottom-right" }
            ] }
            """)
        let a = try #require(layers[0].follow), b = try #require(layers[1].follow)
        #expect(a.types == ["face", "license-plate"] && a.minConfidence == 0.5 && a.grow == 0.1)
        #expect(a.fill == .solid && a.fillColor == ARGBColor(argb: 0xFF00_FF00) && a.label == nil)
        #expect(b.types == ["car", "bus"] && b.fill == .none && b.hasBox && b.boxWidth == 0.01)
        #expect(
            b.label?.text(for: RegionOfInterest(type: "car", x: 0, y: 0, width: 1, height: 1, confidence: 0.87))
                == "car 87%")
        // Without a solid fill, "color" is the label's.
        #expect(layers[1].style.color == ARGBColor(argb: 0xFFFF_FF00))
        #expect(layers[1].style.placement.anchor == .bottomRight)
        #expect(Self.error(#"{ "follow": "roi" }"#).contains("a follow layer that draws nothing"))
        #expect(Self.error(#"{ "follow": "faces", "fill": "blur" }"#).contains(#""follow": expected "roi""#))
        #expect(
            Self.error(#"{ "follow": "roi", "fill": "blur", "opacity": 0.5 }"#).contains(
                #""opacity": does not apply to a follow layer"#))
        #expect(
            Self.error(#"{ "follow": "roi", "fill": "blur", "mask": [0, 0, 1, 1] }"#).contains(
                #""follow": does not apply to a mask"#))
    }

    /// The control API's change moves a mask: one PATCH, the whole layer validated again.
    @Test func aPatchMovesAMask() throws {
        let path = TestEnv.path("mask-config.json")
        try #"{ "layers": [ { "mask": [0, 0, 0.2, 0.2], "fill": "pixelate" }, { "text": "a" } ] }"#.write(
            toFile: path, atomically: true, encoding: .utf8)
        var doc = try LayerDocument(config: path, values: [:], root: "/", isImage: { _ in nil })
        try doc.patch(0, body: Array(#"{ "mask": [[0.5, 0.5], [0.9, 0.5], [0.7, 0.9]] }"#.utf8))
        let reread = try LayerConfig.parse(Array(doc.document.utf8), file: "d", directory: "/")
        #expect(reread[0].mask?.regions == [.polygon([MaskPoint(0.5, 0.5), MaskPoint(0.9, 0.5), MaskPoint(0.7, 0.9)])])
        #expect(reread[0].mask?.fill == .pixelate)
        #expect(doc.json.contains(#""mask":[[0.5,0.5],[0.9,0.5],[0.7,0.9]]"#), "\(doc.json)")
        #expect(throws: ControlRefusal.self) { try doc.patch(0, body: Array(#"{ "opacity": 0.5 }"#.utf8)) }
    }
}
