import Foundation
import Testing

/// The embedding examples under examples/ build and run against the built plugin.
@Suite(.serialized) struct ExampleTests {
    static var pluginEnv: [String: String] {
        let dir = CLI.binary.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } ?? ""
        return ["GST_PLUGIN_PATH": dir, "GST_REGISTRY": GstTest.path("examples-registry.bin")]
    }

    /// Frames 0 and 60 of `path`, decoded to PNG files.
    static func frames(_ path: String) -> (first: PNGPixels?, later: PNGPixels?) {
        let pattern = GstTest.path(URL(fileURLWithPath: path).lastPathComponent + "-%03d.png")
        _ = Pipeline.run("""
            filesrc location=\(path) ! qtdemux ! h264parse ! avdec_h264 ! videoconvert ! video/x-raw,format=RGB ! \
            pngenc ! multifilesink location=\(pattern)
            """)
        func frame(_ i: Int) -> PNGPixels? {
            PNGPixels(path: pattern.replacingOccurrences(of: "%03d", with: String(format: "%03d", i)))
        }
        return (frame(0), frame(60))
    }

    @Test func cExampleBuildsRunsAndUpdatesTheCaption() throws {
        let exe = GstTest.path("watermark-app")
        let (built, log) = GstTest.run(["sh", "-c",
            "cc '\(GstTest.root)/examples/c/watermark-app.c' $(pkg-config --cflags --libs gstreamer-1.0) -o '\(exe)'"])
        #expect(built == 0, "\(log)")
        let out = GstTest.path("c-app.mp4")
        let (status, output) = GstTest.run([exe, out, GstTest.root + "/assets/logo.svg"], environment: Self.pluginEnv)
        #expect(status == 0, "\(output)")
        #expect(output.contains("caption: LIVE - 17 viewers"), "\(output)")
        #expect(MediaCount.of(out)?.videoFrames == 90)
    }

    @Test func pythonExampleFadesInWithAController() throws {
        let out = GstTest.path("py-app.mp4")
        let (status, output) = GstTest.run(["/usr/bin/python3", GstTest.root + "/examples/python/watermark_app.py", out],
                                           environment: Self.pluginEnv)
        #expect(status == 0, "\(output)")
        #expect(output.contains("caption: Donations: 5 €"), "\(output)")
        // Opacity is 0 at t=0 and 1 from t=1 s: the caption (bottom-left, white) appears.
        let (first, later) = Self.frames(out)
        let f0 = try #require(first), f60 = try #require(later)
        // The same test picture without the element, as a reference.
        let refPath = GstTest.path("py-reference.png")
        _ = Pipeline.run("""
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
}
