import CGStreamer
import CGstCheck
import CShim
import Foundation
import GstTestSupport
import Testing
import WatermarkModel

/// Element tests through GstHarness: known frames in, exact pixels out.
@Suite struct ElementTests {
    static let formats = [
        "I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "Y41B", "NV16", "NV61", "NV24", "AYUV", "UYVY",
        "YUY2", "YVYU", "BGRA", "BGRx", "RGBA", "RGBx", "ARGB", "xRGB", "ABGR", "xBGR", "RGB", "BGR",
        "GRAY8", "GRAY16_LE", "I420_10LE", "I422_10LE", "Y444_10LE", "P010_10LE",
    ]

    static let redSquare = GstTest.solidPNG("red64.png", width: 64, height: 64, argb: 0xFFFF_0000)
    static let whiteSquare = GstTest.solidPNG("white16.png", width: 16, height: 16, argb: 0xFFFF_FFFF)
    static let halfWhite = GstTest.solidPNG("white16-a50.png", width: 16, height: 16, argb: 0x80FF_FFFF)

    /// Every format: a red 64×64 logo at the top-left corner of a black frame lands
    /// exactly there, in the frame's own format (checked after converting to BGRA).
    @Test(arguments: formats)
    func blendsInEveryFormat(format: String) throws {
        let h = Harness(
            "watermark image=\(Self.redSquare) width=0 anchor=top-left margin-x=0 margin-y=0 overlay-mode=blend"
                + " ! videoconvert ! capsfilter caps=video/x-raw,format=BGRA")
        let out = try #require(
            h.pushTestFrame(caps: "video/x-raw,format=\(format),width=160,height=120,framerate=30/1"))
        #expect(out.width == 160 && out.height == 120)
        let inside = out.bgra(20, 20), edge = out.bgra(62, 62), outside = out.bgra(120, 100), right = out.bgra(70, 30)
        if format.hasPrefix("GRAY") {
            #expect((60...100).contains(inside.r) && inside.r == inside.g, "\(format) inside \(inside)")
        } else {
            #expect(inside.r >= 240 && inside.g <= 16 && inside.b <= 16, "\(format) inside \(inside)")
            #expect(edge.r >= 200, "\(format) edge \(edge)")
        }
        // Black background (videoconvert shows limited-range gray black as 16).
        let black = format.hasPrefix("GRAY") ? 20 : 8
        #expect(outside.r <= black && outside.g <= black && outside.b <= black, "\(format) outside \(outside)")
        #expect(right.r <= black, "\(format) right of the logo \(right)")
    }

    /// A steady opacity below 1 is folded into the overlay after its first frame; the
    /// frames before and after are the same, byte for byte.
    @Test(arguments: ["I420", "BGRA", "P010_10LE"])
    func steadyOpacityGivesTheSameFramesFoldedOrNot(format: String) throws {
        let h = Harness(
            element: "watermark",
            ["image": Self.redSquare, "text": "80 %", "opacity": "0.8", "overlay-mode": "blend"])
        let caps = "video/x-raw,format=\(format),width=160,height=120,framerate=30/1"
        var frames: [[UInt8]] = []
        for _ in 0..<3 {
            let f = try #require(h.pushTestFrame(caps: caps, pattern: "smpte"))
            let size = gst_buffer_get_size(f.buffer)
            var bytes = [UInt8](repeating: 0, count: Int(size))
            _ = gst_buffer_extract(f.buffer, 0, &bytes, size)
            frames.append(bytes)
        }
        #expect(frames[0] == frames[2] && frames[1] == frames[2])
    }

    @Test func exactLumaAndChromaInI420() throws {
        let h = Harness(
            element: "watermark",
            [
                "image": Self.whiteSquare, "width": "0", "anchor": "top-left",
                "margin-x": "0", "margin-y": "0",
            ])
        let out = try #require(h.pushTestFrame(caps: "video/x-raw,format=I420,width=64,height=48,framerate=30/1"))
        #expect(out.byte(plane: 0, row: 0, offset: 0) == 235)
        #expect(out.byte(plane: 0, row: 15, offset: 15) == 235)
        #expect(out.byte(plane: 0, row: 16, offset: 15) == 16)
        #expect(out.byte(plane: 0, row: 15, offset: 16) == 16)
        #expect(out.byte(plane: 1, row: 3, offset: 3) == 128)
        #expect(out.byte(plane: 2, row: 7, offset: 7) == 128)
        #expect(out.byte(plane: 0, row: 40, offset: 60) == 16)
    }

    @Test func opacityHalvesTheOverlay() throws {
        let h = Harness(
            element: "watermark",
            [
                "image": Self.whiteSquare, "width": "0", "anchor": "top-left", "margin-x": "0",
                "margin-y": "0", "opacity": "0.5",
            ])
        let out = try #require(h.pushTestFrame(caps: "video/x-raw,format=BGRA,width=32,height=32,framerate=30/1"))
        let p = out.bgra(8, 8)
        #expect((127...128).contains(p.r) && (127...128).contains(p.g) && (127...128).contains(p.b), "\(p)")
        #expect(out.bgra(20, 20).r == 0)
    }

    @Test func pngAlphaIsKept() throws {
        let h = Harness(
            element: "watermark",
            ["image": Self.halfWhite, "width": "0", "anchor": "top-left", "margin-x": "0", "margin-y": "0"])
        let out = try #require(h.pushTestFrame(caps: "video/x-raw,format=BGRx,width=32,height=32,framerate=30/1"))
        let p = out.bgra(4, 4)
        #expect((127...129).contains(p.r), "\(p)")
    }

    @Test func layoutFollowsCapsChangesMidStream() throws {
        let h = Harness(
            element: "watermark",
            ["image": Self.whiteSquare, "width": "0.25", "anchor": "top-left", "margin-x": "0", "margin-y": "0"])
        let small = try #require(h.pushTestFrame(caps: "video/x-raw,format=BGRA,width=320,height=240,framerate=30/1"))
        #expect(small.bgra(70, 70).r > 200)
        #expect(small.bgra(120, 10).r == 0)
        let large = try #require(h.pushTestFrame(caps: "video/x-raw,format=BGRA,width=640,height=480,framerate=30/1"))
        #expect(large.width == 640)
        #expect(large.bgra(120, 10).r > 200)
        #expect(large.bgra(170, 10).r == 0)
    }

    @Test func attachesCompositionMetaWhenDownstreamAcceptsIt() throws {
        let h = Harness(
            element: "watermark",
            ["image": Self.whiteSquare, "width": "0", "anchor": "top-left", "margin-x": "0", "margin-y": "0"])
        gst_harness_add_propose_allocation_meta(h.h, gst_watermark_overlay_meta_api_type(), nil)
        let out = try #require(h.pushTestFrame(caps: "video/x-raw,format=BGRA,width=32,height=32,framerate=30/1"))
        #expect(out.bgra(4, 4).r == 0, "pixels must be left alone")
        let meta = try #require(gst_buffer_get_meta(out.buffer, gst_watermark_overlay_meta_api_type()))
        let comp = UnsafeMutableRawPointer(meta).assumingMemoryBound(to: GstVideoOverlayCompositionMeta.self).pointee
            .overlay
        #expect(gst_video_overlay_composition_n_rectangles(comp) == 1)
        let rect = gst_video_overlay_composition_get_rectangle(comp, 0)
        var x: Int32 = -1, y: Int32 = -1, w: UInt32 = 0, hh: UInt32 = 0
        _ = gst_video_overlay_rectangle_get_render_rectangle(rect, &x, &y, &w, &hh)
        #expect(x == 0 && y == 0 && w == 16 && hh == 16)
    }

    @Test func blendModeIgnoresTheMeta() throws {
        let h = Harness(
            element: "watermark",
            [
                "image": Self.whiteSquare, "width": "0", "anchor": "top-left", "margin-x": "0",
                "margin-y": "0", "overlay-mode": "blend",
            ])
        gst_harness_add_propose_allocation_meta(h.h, gst_watermark_overlay_meta_api_type(), nil)
        let out = try #require(h.pushTestFrame(caps: "video/x-raw,format=BGRA,width=32,height=32,framerate=30/1"))
        #expect(out.bgra(4, 4).r == 255)
        #expect(!out.hasOverlayMeta())
    }

    @Test func passesThroughWhenNothingIsConfigured() throws {
        let h = Harness(element: "watermark")
        let out = try #require(
            h.pushTestFrame(caps: "video/x-raw,format=I420,width=64,height=48,framerate=30/1", pattern: "smpte"))
        let ref = Harness(element: "identity")
        let expected = try #require(
            ref.pushTestFrame(caps: "video/x-raw,format=I420,width=64,height=48,framerate=30/1", pattern: "smpte"))
        for (x, y) in [(0, 0), (63, 47), (32, 40)] {
            #expect(out.byte(plane: 0, row: y, offset: x) == expected.byte(plane: 0, row: y, offset: x))
        }
        #expect(
            gst_base_transform_is_passthrough(
                UnsafeMutableRawPointer(h.element).assumingMemoryBound(to: GstBaseTransform.self)) != 0)
    }

    @Test func textIsDrawnAtTheBottomRight() throws {
        let h = Harness(element: "watermark", ["text": "ACME"])
        let out = try #require(h.pushTestFrame(caps: "video/x-raw,format=BGRA,width=640,height=360,framerate=30/1"))
        // Some white fill pixels in the bottom-right region, none elsewhere.
        var white = 0, elsewhere = 0
        for y in 0..<360 {
            for x in stride(from: 0, to: 640, by: 2) {
                let p = out.bgra(x, y)
                if p.r > 200 && p.g > 200 && p.b > 200 {
                    if x > 480 && y > 300 { white += 1 } else { elsewhere += 1 }
                }
            }
        }
        #expect(white > 50)
        #expect(elsewhere == 0)
    }

    @Test(arguments: ["I420", "NV12", "YUY2", "BGRA", "RGB", "P010_10LE", "AYUV", "Y41B"])
    func tinyAndOddFramesDoNotCrash(format: String) throws {
        let h = Harness(element: "watermark", ["text": "Hello, world — 你好", "image": Self.redSquare, "shadow": "true"])
        for (w, hgt) in [(1, 1), (2, 2), (3, 3), (1919, 1079), (17, 1)] {
            let out = try #require(
                h.pushTestFrame(caps: "video/x-raw,format=\(format),width=\(w),height=\(hgt),framerate=30/1"))
            #expect(out.width == w && out.height == hgt)
        }
    }

    @Test func hostileTextDoesNotCrash() throws {
        let h = Harness(element: "watermark")
        let caps = "video/x-raw,format=I420,width=320,height=240,framerate=30/1"
        h.set("text", String(repeating: "W", count: 100_000))
        #expect(h.pushTestFrame(caps: caps) != nil)
        h.set("text", "a\u{0}b\u{7}\t\r\n\u{1b}[31m")
        #expect(h.pushTestFrame(caps: caps) != nil)
        // Invalid UTF-8 straight from C.
        let invalid: [CChar] = [0x41, -1, -2, 0x42, -61, 0]
        invalid.withUnsafeBufferPointer {
            gst_util_set_object_arg(gst_watermark_as_object(h.element), "text", $0.baseAddress)
        }
        #expect(h.pushTestFrame(caps: caps) != nil)
        h.set("font-desc", "No Such Font Family 42")
        h.set("text", "fallback")
        #expect(h.pushTestFrame(caps: caps) != nil)
        h.set("text-size", "1.0")
        h.set("outline-width", "1.0")
        #expect(h.pushTestFrame(caps: caps) != nil)
    }

    @Test func badImageWhilePlayingKeepsThePreviousOverlay() throws {
        let h = Harness(
            element: "watermark",
            ["image": Self.whiteSquare, "width": "0", "anchor": "top-left", "margin-x": "0", "margin-y": "0"])
        let bus = gst_bus_new()
        defer { gst_object_unref(bus) }
        gst_element_set_bus(h.element, bus)
        let caps = "video/x-raw,format=BGRA,width=32,height=32,framerate=30/1"
        let first = try #require(h.pushTestFrame(caps: caps))
        #expect(first.bgra(4, 4).r == 255)
        h.set("image", TestEnv.path("does-not-exist.png"))
        let text = try #require(Pipeline.nextWarning(on: bus))
        #expect(text.contains("does-not-exist.png"))
        let second = try #require(h.pushTestFrame(caps: caps))
        #expect(second.bgra(4, 4).r == 255)
    }

    @Test func imageChangedWhilePlayingAppears() throws {
        let h = Harness(
            element: "watermark",
            ["image": Self.whiteSquare, "width": "0", "anchor": "top-left", "margin-x": "0", "margin-y": "0"])
        let caps = "video/x-raw,format=BGRA,width=128,height=128,framerate=30/1"
        #expect(try #require(h.pushTestFrame(caps: caps)).bgra(40, 40).r == 0)
        h.set("image", Self.redSquare)
        // The new image is decoded off the streaming thread; it shows up within a few frames.
        var seen = false
        for _ in 0..<200 where !seen {
            let f = try #require(h.pushTestFrame(caps: caps))
            seen = f.bgra(40, 40).r == 255 && f.bgra(40, 40).g == 0
            if !seen { usleep(10_000) }
        }
        #expect(seen)
    }
}
