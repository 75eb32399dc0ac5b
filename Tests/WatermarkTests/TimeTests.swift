import CGStreamer
import CGstCheck
import Testing
@testable import WatermarkElement

struct TimingModelTests {
    @Test func windowAndFades() {
        let t = LayerTiming(start: 1, end: 3, fadeIn: 0.5, fadeOut: 1)
        #expect(t.factor(at: 0.9) == 0)
        #expect(abs(t.factor(at: 1.25) - 0.5) < 1e-9)
        #expect(t.factor(at: 1.5) == 1)
        #expect(abs(t.factor(at: 2.5) - 0.5) < 1e-9)
        #expect(t.factor(at: 3) == 0)
        #expect(t.factor(at: nil) == 1)
        #expect(LayerTiming().isAlwaysOn && LayerTiming().factor(at: 1e9) == 1)
    }

    @Test func placeholdersExpand() {
        let clock = FrameClock(pts: 3723.5, streamTime: 61.04, runningTime: 0.25, frame: 42, fps: 25, wallClock: 0)
        #expect(TextTemplate("{frame}").expand(clock) == "42")
        #expect(TextTemplate("{pts}").expand(clock) == "1:02:03.500")
        #expect(TextTemplate("{stream-time}|{running-time}").expand(clock) == "0:01:01.040|0:00:00.250")
        #expect(TextTemplate("{timecode}").expand(clock) == "00:01:01:01")
        #expect(TextTemplate("{{frame}} {unknown} {").expand(clock) == "{frame} {unknown} {")
        #expect(TextTemplate("plain").isStatic && !TextTemplate("n={frame}").isStatic)
        #expect(TextTemplate("{pts}").expand(FrameClock()) == "-:--:--.---")
    }

    @Test func clockUsesStrftimeWithMilliseconds() {
        setenv("TZ", "UTC", 1)
        tzset()
        let clock = FrameClock(wallClock: 86_400 + 3 * 3600 + 4 * 60 + 5.678)
        #expect(TextTemplate("{clock:%Y-%m-%d %H:%M:%S.%f}").expand(clock) == "1970-01-02 03:04:05.678")
    }
}

/// The element with explicit timestamps.
@Suite struct TimeElementTests {
    static let white = GstTest.solidPNG("time-white.png", width: 16, height: 16, argb: 0xFFFF_FFFF)

    /// Pushes a black 32×32 BGRx frame stamped `seconds` and returns the red value at (4, 4).
    static func push(_ h: Harness, at seconds: Double) throws -> Int {
        let out = try #require(h.pushZeroed(bytes: 32 * 32 * 4, pts: GstClockTime(seconds * 1e9), duration: GstClockTime(1e9 / 30)))
        return out.bgra(4, 4).r
    }

    @Test func startEndAndFadeIn() throws {
        let h = Harness(element: "watermark", ["image": Self.white, "width": "0", "anchor": "top-left", "margin-x": "0",
                                               "margin-y": "0", "start": "1", "end": "3", "fade-in": "0.5"])
        gst_harness_set_src_caps_str(h.h, "video/x-raw,format=BGRx,width=32,height=32,framerate=30/1")
        #expect(try Self.push(h, at: 0.9) == 0)
        #expect(abs(try Self.push(h, at: 1.25) - 128) <= 2)
        #expect(try Self.push(h, at: 2) == 255)
        #expect(try Self.push(h, at: 3.1) == 0)
    }

    /// Live placeholders render different pixels on consecutive frames.
    @Test(arguments: ["{frame}", "{timecode}"])
    func livePlaceholdersRenderNewTextEachFrame(text: String) throws {
        func sum(_ f: Frame) -> Int {
            var s = 0
            for y in 0..<60 { for x in 0..<200 { s += f.bgra(x, y).r } }
            return s
        }
        let live = Harness(element: "watermark", ["text": text, "anchor": "top-left"])
        gst_harness_set_src_caps_str(live.h, "video/x-raw,format=BGRx,width=320,height=240,framerate=30/1")
        var sums: [Int] = []
        for i in 0..<3 {
            sums.append(sum(try #require(live.pushZeroed(bytes: 320 * 240 * 4, pts: GstClockTime(Double(i) / 30 * 1e9)))))
        }
        #expect(Set(sums).count == 3, "\(text): frames 0, 1, 2 must show different text: \(sums)")
    }
}
