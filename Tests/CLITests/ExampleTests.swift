import CGStreamer
import CShim
import Foundation
import GstTestSupport
import Testing
import Watermark

/// The embedding examples under examples/ build and run against the built plugin.
@Suite(.serialized) struct ExampleTests {
    static var pluginEnv: [String: String] {
        let dir = CLI.binary.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } ?? ""
        return ["GST_PLUGIN_PATH": dir, "GST_REGISTRY": TestEnv.path("examples-registry.bin")]
    }

    /// Frames 0 and 60 of `path`, decoded to PNG files.
    static func frames(_ path: String) -> (first: PNGPixels?, later: PNGPixels?) {
        let pattern = TestEnv.path(URL(fileURLWithPath: path).lastPathComponent + "-%03d.png")
        _ = Pipeline.run(
            """
            filesrc location=\(path) ! qtdemux ! h264parse ! avdec_h264 ! videoconvert ! video/x-raw,format=RGB ! \
            pngenc ! multifilesink location=\(pattern)
            """)
        func frame(_ i: Int) -> PNGPixels? {
            PNGPixels(path: pattern.replacingOccurrences(of: "%03d", with: String(format: "%03d", i)))
        }
        return (frame(0), frame(60))
    }

    @Test func cExampleBuildsRunsAndUpdatesTheCaption() throws {
        let exe = TestEnv.path("watermark-app")
        let (built, log) = TestEnv.run([
            "sh", "-c",
            "cc '\(TestEnv.root)/examples/c/watermark-app.c' $(pkg-config --cflags --libs gstreamer-1.0) -o '\(exe)'",
        ])
        #expect(built == 0, "\(log)")
        let out = TestEnv.path("c-app.mp4")
        let (status, output) = TestEnv.run([exe, out, TestEnv.root + "/assets/logo.svg"], environment: Self.pluginEnv)
        #expect(status == 0, "\(output)")
        #expect(output.contains("caption: LIVE - 17 viewers"), "\(output)")
        #expect(MediaCount.of(out)?.videoFrames == 90)
    }

    /// examples/python/analytics_follow.py attaches analytics metadata (a detection, its class
    /// and its track) to the frames it pushes, with Python's GstAnalytics bindings: the box is
    /// blurred, outlined and labelled where each frame puts it; elsewhere the frame is the
    /// same as without the metadata.
    @Test(.enabled(if: GstTest.runningAtLeast(1, 24), "GStreamer 1.24 or later (its analytics library)"))
    func pythonAnalyticsExampleIsFollowed() throws {
        let with = TestEnv.path("analytics-with"), without = TestEnv.path("analytics-without")
        for (dir, extra) in [(with, [String]()), (without, ["--no-meta"])] {
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let (status, output) = TestEnv.run(
                ["/usr/bin/python3", TestEnv.root + "/examples/python/analytics_follow.py", dir, "--frames", "5"]
                    + extra, environment: Self.pluginEnv)
            #expect(status == 0, "\(output)")
            if extra.isEmpty { #expect(output.contains("box 4: 56 60 64 48"), "\(output)") }
        }
        for n in [0, 4] {
            let name = String(format: "/frame-%03d.png", n)
            let a = try #require(PNGPixels(path: with + name)), b = try #require(PNGPixels(path: without + name))
            let x = 40 + 4 * n
            func differs(_ px: Int, _ py: Int) -> Bool {
                let p = a.pixel(px, py), q = b.pixel(px, py)
                return abs(p.r - q.r) + abs(p.g - q.g) + abs(p.b - q.b) > 60
            }
            // Inside the 64×48 box at (x, 60): the checkerboard blurred to grey.
            var blurred = 0
            for py in stride(from: 64, to: 104, by: 2) {
                for px in stride(from: x + 4, to: x + 60, by: 2) where differs(px, py) { blurred += 1 }
            }
            #expect(blurred > 300, "frame \(n): \(blurred) of 560 samples inside the box changed")
            // The green outline just outside it, the label's white text above it.
            let edge = a.pixel(x - 1, 80)
            #expect(edge.g > 180 && edge.r < 90, "frame \(n): outline \(edge)")
            var label = 0
            for py in 40..<58 { for px in x..<(x + 60) where differs(px, py) { label += 1 } }
            #expect(label > 20, "frame \(n): \(label) label pixels")
            // Far from it, untouched.
            for (px, py) in [(300, 200), (10, 220), (250, 20)] {
                #expect(!differs(px, py), "frame \(n) at \(px),\(py)")
            }
        }
    }

    @Test func pythonExampleFadesInWithAController() throws {
        let out = TestEnv.path("py-app.mp4")
        let (status, output) = TestEnv.run(
            ["/usr/bin/python3", TestEnv.root + "/examples/python/watermark_app.py", out],
            environment: Self.pluginEnv)
        #expect(status == 0, "\(output)")
        #expect(output.contains("variables: v, total=(int)5;"), "\(output)")
        // Opacity is 0 at t=0 and 1 from t=1 s: the caption (bottom-left, white) appears.
        let (first, later) = Self.frames(out)
        let f0 = try #require(first), f60 = try #require(later)
        // The same test picture without the element, as a reference.
        let refPath = TestEnv.path("py-reference.png")
        _ = Pipeline.run(
            """
            videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=640,height=360 ! videoconvert ! video/x-raw,format=RGB ! \
            pngenc ! filesink location=\(refPath)
            """)
        let ref = try #require(PNGPixels(path: refPath))
        // Pixels of the static bottom-left bands that differ clearly from the reference.
        func changed(_ f: PNGPixels) -> Int {
            var n = 0
            for y in 290..<360 {
                for x in 0..<320 {
                    let a = f.pixel(x, y), b = ref.pixel(x, y)
                    if abs(a.r - b.r) + abs(a.g - b.g) + abs(a.b - b.b) > 150 { n += 1 }
                }
            }
            return n
        }
        // (a few pixels differ at band edges from compression alone)
        let before = changed(f0), after = changed(f60)
        #expect(before < 200, "overlay visible at t=0: \(before) pixels")
        #expect(after > 3 * max(before, 100), "caption missing at t=2 s: \(after) vs \(before) pixels")
    }

    @Test func swiftExampleRunsWithTheTypedAPI() throws {
        let dir = try #require(CLI.binary.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path })
        let exe = dir + "/watermark-swift-example"
        try #require(FileManager.default.isExecutableFile(atPath: exe), "run `swift build` first")
        let out = TestEnv.path("swift-app.mp4")
        // The library registers the element itself: no GST_PLUGIN_PATH.
        let (status, output) = TestEnv.run([
            "env", "-u", "GST_PLUGIN_PATH", exe, out, TestEnv.root + "/assets/logo.svg",
        ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("caption: Swift · 500 viewers"), "\(output)")
        #expect(MediaCount.of(out)?.videoFrames == 90)
    }

    @Test func layerValuesBecomeProperties() throws {
        let layer = WatermarkLayer(
            image: "/a b/logo \"1\".svg", text: "© ACME", color: ARGBColor(parsing: "#FF000080"),
            shadow: true, anchor: .topLeft, marginX: 0.1, opacity: 0.5)
        #expect(
            layer.launchDescription
                == #"watermark image="/a b/logo \"1\".svg" text="© ACME" color="0x80FF0000" shadow="true" anchor="top-left" margin-x="0.1" opacity="0.5""#
        )
        let overlay = try #require(WatermarkOverlay(layer))
        var value = GValue()
        g_value_init(&value, GType(16 << 2))  // G_TYPE_STRING
        g_object_get_property(
            UnsafeMutableRawPointer(overlay.element).assumingMemoryBound(to: GObject.self), "text", &value)
        #expect(String(cString: g_value_get_string(&value)) == "© ACME")
        g_value_unset(&value)
        overlay.setText("changed")
        g_value_init(&value, GType(16 << 2))
        g_object_get_property(
            UnsafeMutableRawPointer(overlay.element).assumingMemoryBound(to: GObject.self), "text", &value)
        #expect(String(cString: g_value_get_string(&value)) == "changed")
        g_value_unset(&value)
        // Opacity set through the typed API reads back.
        var d = GValue()
        g_value_init(&d, GType(15 << 2))  // G_TYPE_DOUBLE
        g_object_get_property(
            UnsafeMutableRawPointer(overlay.element).assumingMemoryBound(to: GObject.self), "opacity", &d)
        #expect(g_value_get_double(&d) == 0.5)
        // Variables: a GstStructure set from its text, read back as one; a text that is not a
        // structure changes nothing; nil unsets.
        #expect(overlay.setVariables(#"v, home=(int)2, speaker="Ana Lima""#))
        #expect(overlay.variables == #"v, home=(int)2, speaker=(string)"Ana\ Lima";"#)
        #expect(!overlay.setVariables("v, home=(int)"))
        #expect(overlay.variables?.hasPrefix("v, home=(int)2") == true)
        #expect(overlay.setVariables(nil))
        #expect(overlay.variables == nil)
    }

    /// The Swift API has a field for every layer property (it is generated from the table),
    /// and the new ones reach the element: a background box, ticker motion and its seed.
    @Test func everyLayerPropertyIsAFieldOfWatermarkLayer() throws {
        let fields = Set(Mirror(reflecting: WatermarkLayer()).children.compactMap(\.label))
        for p in WatermarkProperties.layer {
            let words = p.name.split(separator: "-")
            let swiftName = ([String(words[0])] + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() })
                .joined()
            #expect(fields.contains(swiftName), "WatermarkLayer lacks \(swiftName)")
        }
        let layer = WatermarkLayer(
            text: "LIVE", backgroundColor: ARGBColor(parsing: "#00000080"), backgroundFullWidth: true,
            textAlign: .center, motion: .bounce, motionSeed: 4_000_000_000, hdrReferenceWhite: 100)
        let overlay = try #require(WatermarkOverlay(layer))
        let object = UnsafeMutableRawPointer(overlay.element).assumingMemoryBound(to: GObject.self)
        func read(_ name: String, _ type: GType, _ get: (UnsafeMutablePointer<GValue>) -> UInt64) -> UInt64 {
            var v = GValue()
            g_value_init(&v, type)
            defer { g_value_unset(&v) }
            g_object_get_property(object, name, &v)
            return get(&v)
        }
        let uint = GType(7 << 2)  // G_TYPE_UINT
        #expect(read("background-color", uint) { UInt64(g_value_get_uint($0)) } == 0x8000_0000)
        #expect(read("motion-seed", uint) { UInt64(g_value_get_uint($0)) } == 4_000_000_000)
        let motionType = g_type_from_name("GstWatermarkMotion")
        #expect(read("motion", motionType) { UInt64(g_value_get_enum($0)) } == UInt64(MotionKind.bounce.rawValue))
        let alignType = g_type_from_name("GstWatermarkTextAlign")
        #expect(read("text-align", alignType) { UInt64(g_value_get_enum($0)) } == UInt64(TextAlign.center.rawValue))
        #expect(read("background-full-width", GType(5 << 2)) { UInt64(g_value_get_boolean($0)) } == 1)
        #expect(
            layer.launchDescription
                == #"watermark text="LIVE" background-color="0x80000000" background-full-width="true" text-align="center" motion="bounce" motion-seed="4000000000" hdr-reference-white="100.0""#
        )
    }
}
