import Foundation
import TestSupport
import Testing
import WatermarkModel

/// The config file, easing, keyframes and orientation as pure values.
struct LayerModelTests {
    static func parse(_ text: String) throws(ConfigError) -> [LayerSpec] {
        try LayerConfig.parse(Array(text.utf8), file: "wm.json", directory: "/cfg")
    }

    static func error(_ text: String) -> ConfigError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func threeLayersWithEveryKindOfField() throws {
        let layers = try Self.parse(
            """
            { "layers": [
              { "image": "logo.svg", "anchor": "top-left", "width": 0.1, "opacity": 0.8 },
              { "text": "Sponsor", "color": "#FFCC00", "start": 6, "end": 10, "fade-in": 0.5, "fade-out": 0.5, "shadow": true },
              { "text": "{clock:%H:%M:%S}", "font-desc": "Mono", "text-size": 0.04, "rotation": -10,
                "keyframes": [ { "time": 0, "x": 0.1, "easing": "ease-in-out" }, { "time": 5, "x": 0.9 } ] }
            ] }
            """)
        #expect(layers.count == 3)
        #expect(layers[0].imagePath == "/cfg/logo.svg")
        #expect(layers[0].style.placement.anchor == .topLeft)
        #expect(layers[0].opacity == 0.8)
        #expect(layers[1].style.color == ARGBColor(red: 0xFF, green: 0xCC, blue: 0))
        #expect(layers[1].timing == LayerTiming(start: 6, end: 10, fadeIn: 0.5, fadeOut: 0.5))
        #expect(layers[1].style.shadow)
        #expect(!layers[2].template.isStatic)
        #expect(layers[2].style.rotation == -10)
        #expect(layers[2].moves)
        #expect(layers[2].keyframes.value(.x, at: 2.5) == 0.5)
    }

    /// Every error names the place: line and column, layer index and field.
    @Test(arguments: [
        ("{ \"layers\": [ { \"text\": \"a\" } ", "wm.json:1:31: expected ',' or ']', found end of file"),
        (
            "{ \"layers\": [\n  { \"text\": \"a\",, } ] }",
            "wm.json:2:17: expected a member name in double quotes, found ','"
        ),
        (
            "{ \"layers\": [\n  { \"text\": \"a\", \"opacity\": 2.5 } ] }",
            "wm.json:2:29: layer 0: \"opacity\": 2.5 is out of range 0…1"
        ),
        (
            "{ \"layers\": [ {\"text\": \"a\"},\n {\"text\": \"b\", \"anchor\": \"middle\"} ] }",
            "wm.json:2:26: layer 1: \"anchor\": unknown anchor \"middle\""
        ),
        (
            "{ \"layers\": [ { \"opacity\": 1 } ] }",
            "wm.json:1:15: layer 0: needs \"image\", \"text\", \"text-file\", \"mask\" or \"follow\""
        ),
        (
            "{ \"layers\": [ { \"text\": \"a\", \"colour\": \"red\" } ] }",
            "wm.json:1:40: layer 0: \"colour\": unknown field"
        ),
        (
            "{ \"layers\": [ { \"text\": \"a\", \"color\": \"blurple\" } ] }",
            "layer 0: \"color\": \"blurple\" is not a colour"
        ),
        (
            "{ \"layers\": [ { \"text\": \"a\", \"keyframes\": [ { \"x\": 0.5 } ] } ] }",
            "layer 0: \"keyframes[0]\": missing \"time\""
        ),
        (
            "{ \"layers\": [ { \"text\": \"a\", \"keyframes\": [ { \"time\": 1, \"easing\": \"bounce\" } ] } ] }",
            "layer 0: \"keyframes[0].easing\": unknown easing \"bounce\""
        ),
        (
            "{ \"layers\": [ { \"text\": \"a\", \"start\": 5, \"end\": 2 } ] }",
            "layer 0: \"end\": 2 is not after start (5)"
        ),
        ("{ \"layers\": [ { \"text\": 5 } ] }", "layer 0: \"text\": expected a string, found a number"),
        ("{ \"layers\": {} }", "\"layers\": expected an array, found an object"),
        ("[]", "wm.json:1:1: expected an object with \"layers\", found an array"),
        ("{ \"layers\": [], \"layers\": [] }", "wm.json:1:17: duplicate member \"layers\""),
        ("{ \"layers\": [ { \"text\": \"a\", \"x\": NaN } ] }", "expected a value, found 'N'"),
        ("{ \"layers\": [ { \"text\": \"a\", \"x\": 1e999 } ] }", "out of range"),
        ("", "wm.json:1:1: expected a value, found end of file"),
        ("{ \"layers\": [ { \"text\": \"a\n\" } ] }", "line break inside a string"),
    ])
    func errorsSayWhereAndWhat(text: String, expected: String) {
        let e = Self.error(text)
        #expect(e?.description.contains(expected) == true, "got: \(e?.description ?? "no error")")
    }

    @Test func hostileDocumentsAreRejectedNotCrashed() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(Self.error(deep)?.description.contains("nested deeper than 64") == true)
        let many = "{ \"layers\": [" + Array(repeating: "{\"text\": \"a\"}", count: 65).joined(separator: ",") + "] }"
        #expect(Self.error(many)?.description.contains("65 layers; at most 64") == true)
        let keys =
            "{ \"layers\": [ { \"text\": \"a\", \"keyframes\": ["
            + Array(repeating: "{\"time\": 1}", count: 5000).joined(separator: ",") + "] } ] }"
        #expect(Self.error(keys)?.description.contains("at most 4096") == true)
        #expect(Self.error("{ \"layers\": [ { \"text\": \"\\ud800\" } ] }") == nil)  // lone surrogate → U+FFFD
        #expect(Self.error("{ \"layers\": [ { \"text\": \"\u{FF}\u{FE}\" } ] }") == nil)
    }

    @Test func jsonStringsAndNumbers() throws {
        let node = try JSONReader.parse(#"["a\"b\\\/\n\u00e9\ud83d\ude00", -0.5e2, 0, true, null]"#)
        guard case .array(let items) = node.value, items.count == 5 else {
            Issue.record("not an array")
            return
        }
        if case .string(let s) = items[0].value { #expect(s == "a\"b\\/\né😀") } else { Issue.record("no string") }
        if case .number(let n) = items[1].value { #expect(n == -50) } else { Issue.record("no number") }
        #expect(items[4].column == 51)
        #expect(throws: JSONSyntaxError.self) { try JSONReader.parse("01") }
        #expect(throws: JSONSyntaxError.self) { try JSONReader.parse("[1,]") }
        #expect(throws: JSONSyntaxError.self) { try JSONReader.parse("{\"a\":1} x") }
    }

    @Test func easingEndPointsMidpointsAndMonotonicity() throws {
        let all: [Easing] = [
            .linear, .easeIn, .easeOut, .easeInOut, .step,
            try #require(Easing(name: "cubic-bezier(0.1, 0.7, 1.0, 0.1)")),
        ]
        for e in all {
            #expect(e.apply(0) == 0, "\(e)")
            #expect(e.apply(1) == 1, "\(e)")
            #expect(e.apply(-3) == 0 && e.apply(7) == 1 && e.apply(.nan) == 0)
        }
        for e in [Easing.linear, .easeIn, .easeOut, .easeInOut] {
            var last = -1.0
            for i in 0...1000 {
                let v = e.apply(Double(i) / 1000)
                #expect(v >= last - 1e-12, "\(e) not monotonic at \(i)")
                last = v
            }
        }
        #expect(abs(Easing.linear.apply(0.25) - 0.25) < 1e-12)
        #expect(abs(Easing.easeInOut.apply(0.5) - 0.5) < 1e-6)  // symmetric curve
        // CSS reference values (Chrome/Firefox): ease-in(0.5) ≈ 0.3153, ease-out(0.5) ≈ 0.6847.
        #expect(abs(Easing.easeIn.apply(0.5) - 0.3153) < 1e-3)
        #expect(abs(Easing.easeOut.apply(0.5) - 0.6847) < 1e-3)
        #expect(Easing.step.apply(0.999) == 0)
        #expect(Easing(name: "cubic-bezier(1.5, 0, 0, 1)") == nil)  // x1 outside 0…1
        #expect(Easing(name: "cubic-bezier(0,0,1)") == nil)
        #expect(Easing(name: "Ease-In-Out") == .easeInOut)
    }

    @Test func keyframesInterpolateHoldAndUseTheSegmentsEasing() {
        let track = KeyframeTrack([
            Keyframe(time: 4, values: [.x: 0.8, .opacity: 0], easing: .step),
            Keyframe(time: 1, values: [.x: 0.2], easing: .linear),
            Keyframe(time: 2, values: [.opacity: 1], easing: .easeIn),
            Keyframe(time: 6, values: [.x: 0.4]),
        ])
        #expect(track.value(.x, at: 0) == 0.2)  // held before the first
        #expect(abs((track.value(.x, at: 2.5) ?? 0) - 0.5) < 1e-12)  // linear 1→4
        #expect(track.value(.x, at: 5) == 0.8)  // step holds until 6
        #expect(track.value(.x, at: 6) == 0.4)
        #expect(track.value(.x, at: 100) == 0.4)  // held after the last
        #expect(track.value(.opacity, at: 1) == 1)
        #expect(abs((track.value(.opacity, at: 3) ?? 0) - (1 - Easing.easeIn.apply(0.5))) < 1e-12)
        #expect(track.value(.scale, at: 3) == nil)
        #expect(track.animates(.x) && !track.animates(.y))
    }

    @Test func layerStateAppliesKeyframesAndTiming() {
        var l = LayerSpec()
        l.text = "hi"
        l.opacity = 0.5
        l.timing = LayerTiming(start: 1, end: 5, fadeIn: 1)
        l.keyframes = KeyframeTrack([
            Keyframe(time: 0, values: [.scale: 1, .rotation: 0]),
            Keyframe(time: 4, values: [.scale: 2, .rotation: 90]),
        ])
        #expect(l.state(at: 0.5).opacity == 0)
        let s = l.state(at: 1.5)
        #expect(abs(s.opacity - 0.25) < 1e-12)
        #expect(abs(s.style.textSize - l.style.textSize * 1.375) < 1e-9)
        #expect(abs(s.style.rotation - 33.75) < 1e-9)
        #expect(l.state(at: 6).opacity == 0)
    }

    /// For all 8 tags: stored → displayed → stored is the identity, the displayed
    /// bottom-right corner is where the tag says, and overlays map pixel for pixel.
    @Test(arguments: ImageOrientation.allCases)
    func orientationTransforms(o: ImageOrientation) {
        let w = 7, h = 4
        let shown = o.displayedSize(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let d = o.displayed(x: x, y: y, width: w, height: h)
                #expect(d.x >= 0 && d.x < shown.width && d.y >= 0 && d.y < shown.height)
                let back = o.stored(x: d.x, y: d.y, width: w, height: h)
                #expect(back == (x, y), "\(o) \(x),\(y)")
            }
        }
        // Offsets follow the same linear map as points.
        let a = o.stored(x: 1, y: 1, width: w, height: h), b = o.stored(x: 3, y: 2, width: w, height: h)
        #expect(o.storedOffset(dx: 2, dy: 1) == (b.x - a.x, b.y - a.y))
        // A 2×1 overlay at the displayed bottom-right: its pixels land on the stored
        // pixels the player will show there.
        let rect = PixelRect(x: shown.width - 2, y: shown.height - 1, width: 2, height: 1)
        let stored = o.storedOverlay(
            RenderedOverlay(rect: rect, pixels: [0xFF00_0001, 0xFF00_0002]), width: w, height: h)
        for (i, value) in [UInt32(0xFF00_0001), 0xFF00_0002].enumerated() {
            let p = o.stored(x: rect.x + i, y: rect.y, width: w, height: h)
            let local = (p.y - stored.rect.y) * stored.rect.width + (p.x - stored.rect.x)
            #expect(stored.pixels[local] == value, "\(o)")
        }
    }

    /// The README's example is a valid config, and the schema is valid JSON.
    @Test func readmeExampleParsesAndSchemaIsJSON() throws {
        let readme = try String(contentsOfFile: TestEnv.root + "/README.md", encoding: .utf8)
        let fenced = readme.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```")
        let block = try #require(fenced?.first)
        let layers = try LayerConfig.parse(Array(block.utf8), file: "README.md", directory: TestEnv.root)
        #expect(layers.count == 7)
        #expect(layers[3].keyframes.keyframes.count == 3)
        #expect(layers[4].motion.kind == .ticker && layers[5].motion.kind == .bounce && layers[6].motion.kind == .jump)
        let schema = try #require(FileManager.default.contents(atPath: TestEnv.root + "/docs/config.schema.json"))
        _ = try JSONReader.parse([UInt8](schema))
    }

    @Test func rotate90ShowsStoredTopRightAtTheBottomRight() {
        // A player turns a rotate-90 frame clockwise: the stored bottom-left corner shows
        // at the displayed top-left, and the stored top-right at the displayed bottom-right.
        let o = ImageOrientation.rotate90
        #expect(o.displayed(x: 0, y: 3, width: 7, height: 4) == (0, 0))
        #expect(o.displayed(x: 6, y: 0, width: 7, height: 4) == (3, 6))
    }
}
