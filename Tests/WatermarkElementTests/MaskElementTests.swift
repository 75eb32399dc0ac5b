import CGStreamer
import CShim
import Foundation
import GstTestSupport
import Testing
import WatermarkModel

/// The `mask…` properties on the element: regions hidden in the frames' pixels, whatever the
/// overlay mode, and a malformed region text reported with its position.
@Suite struct MaskElementTests {
    /// A solid mask on white I420: inside, black in every plane (BT.601 limited, as the
    /// caps say); outside, the frame as it was.
    @Test func solidMaskHidesTheRegionInEveryPlane() throws {
        let h = Harness(element: "watermark", ["mask": "0.25,0.25,0.5,0.5"])
        let caps = "video/x-raw,format=I420,width=64,height=48,framerate=30/1,colorimetry=bt601"
        let frame = try #require(h.pushTestFrame(caps: caps, pattern: "white"))
        for y in 0..<48 {
            for x in 0..<64 {
                let inside = (16..<48).contains(x) && (12..<36).contains(y)
                #expect(frame.byte(plane: 0, row: y, offset: x) == (inside ? 16 : 235), "Y at \(x),\(y)")
            }
        }
        for y in 0..<24 {
            for x in 0..<32 {
                #expect(frame.byte(plane: 1, row: y, offset: x) == 128)
                #expect(frame.byte(plane: 2, row: y, offset: x) == 128)
            }
        }
    }

    /// Pixelated on BGRA: each cell of 0.125 × 64 = 8 pixels is one colour, and the frame
    /// outside is untouched (SMPTE bars, whose cells straddle bar edges).
    @Test func pixelatedMaskOnBGRA() throws {
        let caps = "video/x-raw,format=BGRA,width=64,height=48,framerate=30/1"
        let plain = try #require(
            Harness(element: "watermark", ["text": ""]).pushTestFrame(caps: caps, pattern: "smpte"))
        let h = Harness(element: "watermark", ["mask": "0,0,0.5,0.5", "mask-fill": "pixelate", "mask-cell": "0.125"])
        let frame = try #require(h.pushTestFrame(caps: caps, pattern: "smpte"))
        var cellsMixed = 0
        for cy in 0..<3 {
            for cx in 0..<4 {
                let first = frame.bgra(cx * 8, cy * 8)
                var sum = (0, 0, 0)
                for y in cy * 8..<cy * 8 + 8 {
                    for x in cx * 8..<cx * 8 + 8 {
                        #expect(frame.bgra(x, y) == first, "cell \(cx),\(cy) at \(x),\(y)")
                        let p = plain.bgra(x, y)
                        sum = (sum.0 + p.b, sum.1 + p.g, sum.2 + p.r)
                    }
                }
                #expect(abs(first.b - (sum.0 + 32) / 64) <= 1 && abs(first.r - (sum.2 + 32) / 64) <= 1)
                if plain.bgra(cx * 8, cy * 8) != plain.bgra(cx * 8 + 7, cy * 8) { cellsMixed += 1 }
            }
        }
        #expect(cellsMixed > 0)
        for y in 0..<48 {
            for x in 0..<64 where x >= 32 || y >= 24 { #expect(frame.bgra(x, y) == plain.bgra(x, y)) }
        }
    }

    @Test func malformedMaskIsAnErrorAtStartNamingThePosition() {
        let run = Pipeline.run(
            "videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! watermark mask=\"0,0,1,1;0.2,0.2 0.4\" "
                + "! fakesink", timeout: 20)
        #expect(!run.ok)
        let message = run.errors.first?.message ?? ""
        #expect(message.contains("mask") && message.contains("at character 9"), "\(run.errors)")
    }

    /// While playing, a malformed text is a warning and the masks in use stay.
    @Test func malformedMaskWhilePlayingKeepsThePreviousMasks() throws {
        let h = Harness(element: "watermark", ["mask": "0,0,0.5,1"])
        let caps = "video/x-raw,format=I420,width=32,height=16,framerate=30/1"
        _ = try #require(h.pushTestFrame(caps: caps, pattern: "white"))
        h.set("mask", "0,0,0.5")
        var value = GValue()
        g_value_init(&value, GType(16 << 2))  // G_TYPE_STRING
        g_object_get_property(gst_watermark_as_object(h.element), "mask", &value)
        #expect(String(cString: g_value_get_string(&value)) == "0,0,0.5,1")
        g_value_unset(&value)
        let frame = try #require(h.pushTestFrame(caps: caps, pattern: "white"))
        #expect(frame.byte(plane: 0, row: 8, offset: 4) == 16 && frame.byte(plane: 0, row: 8, offset: 20) == 235)
    }
}
