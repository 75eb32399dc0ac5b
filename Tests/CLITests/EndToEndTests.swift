import CGStreamer
import CPangoCairo
import CShim
import Foundation
import GstTestSupport
import Testing

/// Real pipelines, real files, checked with real readers.
@Suite(.serialized) struct EndToEndTests {
    /// The acceptance pipeline: 1080p NV12 → watermark → x264 → MP4, read back by
    /// gst-discoverer-1.0, and a decoded frame shows the logo and caption bottom-right.
    @Test func nv12ToMP4WithLogoAndCaption() throws {
        let out = TestEnv.path("e2e.mp4")
        let logo = TestEnv.root + "/assets/logo.png"
        let run = Pipeline.run(
            """
            videotestsrc num-buffers=30 pattern=black ! video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! \
            watermark image="\(logo)" text="© ACME 2026" ! x264enc speed-preset=ultrafast ! mp4mux ! filesink location=\(out)
            """, timeout: 120)
        #expect(run.ok, "\(run.errors)")

        let (status, report) = TestEnv.run(["gst-discoverer-1.0", out])
        #expect(status == 0, "\(report)")
        #expect(report.contains("H.264"), "\(report)")
        #expect(report.contains("1920x1080") || report.contains("Width: 1920"), "\(report)")
        #expect(report.contains("Duration: 0:00:01.0"), "\(report)")

        // Decode the 10th frame to PNG and look at it.
        let png = TestEnv.path("e2e-frame.png")
        let decoded = Pipeline.run(
            """
            filesrc location=\(out) ! qtdemux ! h264parse ! avdec_h264 ! videoconvert ! \
            video/x-raw,format=RGBA ! pngenc snapshot=true ! filesink location=\(png)
            """, timeout: 60)
        #expect(decoded.ok, "\(decoded.errors)")
        let surface = cairo_image_surface_create_from_png(png)
        defer { cairo_surface_destroy(surface) }
        #expect(cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS)
        let data = try #require(cairo_image_surface_get_data(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
            let p = UnsafeRawPointer(data + y * stride + x * 4).load(as: UInt32.self)
            return (Int(p >> 16 & 0xFF), Int(p >> 8 & 0xFF), Int(p & 0xFF))
        }
        // Count logo-coloured (orange/red) and caption (white) pixels by region.
        var logoPixels = 0, caption = 0, stray = 0
        for y in Swift.stride(from: 0, to: 1080, by: 3) {
            for x in Swift.stride(from: 0, to: 1920, by: 3) {
                let p = pixel(x, y)
                let isLogo = p.r > 150 && p.g < 140 && p.b < 140
                let isWhite = p.r > 200 && p.g > 200 && p.b > 200
                let bottomRight = x > 1300 && y > 650
                if (isLogo || isWhite) && !bottomRight { stray += 1 }
                if isLogo && bottomRight && y < 980 { logoPixels += 1 }
                if isWhite && bottomRight && y > 960 { caption += 1 }
            }
        }
        #expect(logoPixels > 300, "logo pixels: \(logoPixels)")
        #expect(caption > 100, "caption pixels: \(caption)")
        #expect(stray == 0, "watermark pixels outside the bottom-right: \(stray)")
    }

    /// Stock GStreamer tools load the plugin from the build directory.
    @Test func gstInspectLoadsThePlugin() throws {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // The test binary lives in <build>/debug/<Package>PackageTests.xctest (or inside it).
        while !FileManager.default.fileExists(atPath: dir.path + "/libgstwatermark.so") && dir.path != "/" {
            dir.deleteLastPathComponent()
        }
        let plugin = dir.path + "/libgstwatermark.so"
        try #require(
            FileManager.default.fileExists(atPath: plugin),
            "libgstwatermark.so not built next to the tests: run `swift build` first")
        let env = ["GST_PLUGIN_PATH": dir.path, "GST_REGISTRY": TestEnv.path("registry.bin")]
        let (status, text) = TestEnv.run(["gst-inspect-1.0", "watermark"], environment: env)
        #expect(status == 0, "\(text)")
        for prop in [
            "image", "text", "font-desc", "text-size", "color", "outline-color", "outline-width", "shadow",
            "anchor", "margin-x", "margin-y", "x ", "y ", "width", "opacity",
        ] {
            #expect(text.contains("\n  \(prop)"), "gst-inspect lacks \(prop)")
        }
        let (launch, log) = TestEnv.run(
            ["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=5", "!", "watermark", "text=hi", "!", "fakesink"],
            environment: env)
        #expect(launch == 0, "\(log)")
    }
}
