import CGStreamer
import CShim
import Glibc
import GstTestSupport
import Testing

/// `{camera-clock}` reads the frame's `timestamp/x-ntp` reference timestamp (what rtspsrc
/// attaches from a camera's RTCP sender reports): the frame shows, pixel for pixel, that
/// time written out. `%s` (seconds since 1970) keeps the tests free of the time zone.
@Suite struct CameraClockTests {
    static let caps = "video/x-raw,format=I420,width=640,height=360,framerate=30/1"
    static let bytes = 640 * 360 * 3 / 2
    static let common = "overlay-mode=blend render-ahead=false anchor=top-left text-size=0.1"

    static func harness(_ text: String, extra: String = "") -> Harness {
        Harness(
            "watermark \(common) text=\"\(text)\" \(extra) ! videoconvert ! capsfilter caps=video/x-raw,format=BGRA",
            caps: caps)
    }

    /// A frame carrying a reference timestamp of `reference` (a caps name) at `unix` seconds.
    static func frame(_ h: Harness, reference: String? = "timestamp/x-ntp", unix: Double) -> Frame? {
        h.pushZeroed(bytes: bytes, pts: 0) { buffer in
            guard let reference, let caps = gst_caps_new_empty_simple(reference) else { return }
            let epoch = reference == "timestamp/x-ntp" ? 2_208_988_800.0 : 0
            _ = gst_buffer_add_reference_timestamp_meta(
                buffer, caps, GstClockTime((unix + epoch) * 1e9), GstClockTime.max)
            gst_caps_unref(caps)
        }
    }

    /// The same text written out (with the digits a changing text gets).
    static func expected(_ text: String) -> Frame? {
        harness(text, extra: "font-features=tnum").pushZeroed(bytes: bytes, pts: 0)
    }

    @Test func aFrameShowsTheCamerasTime() throws {
        let h = Self.harness("{camera-clock:%s.%f} CAM 1")
        let f = try #require(Self.frame(h, unix: 1_700_000_000.25))
        let e = try #require(Self.expected("1700000000.250 CAM 1"))
        #expect(f.litPixels > 100)
        #expect(Frame.same(f, e))
        // The next frame's time is the next frame's own.
        let g = try #require(Self.frame(h, unix: 1_700_000_003.5))
        #expect(Frame.same(g, try #require(Self.expected("1700000003.500 CAM 1"))))
    }

    /// Without the meta, or with a reference that is not NTP, the local clock shows (the
    /// text equals one written out at one of the seconds around the push).
    @Test(arguments: [nil, "timestamp/x-unix"])
    func otherFramesShowTheLocalClock(reference: String?) throws {
        let h = Self.harness("{camera-clock:%s}")
        let before = time(nil)
        let f = try #require(Self.frame(h, reference: reference, unix: 1_700_000_000))
        let after = time(nil)
        let matches = try (before...after).map { t in Frame.same(f, try #require(Self.expected("\(t)"))) }
        #expect(matches.contains(true))
        #expect(!Frame.same(f, try #require(Self.expected("1700000000"))))
    }
}
