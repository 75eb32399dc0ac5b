import Glibc
import TestSupport
import Testing
import WatermarkModel

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

    @Test func substringSearchAndReplace() {
        #expect(Substring("abcabc").byteRange(of: "ca").map { "abcabc"[$0] } == "ca")
        #expect(Substring("aab").byteRange(of: "ab") != nil && Substring("ab").byteRange(of: "abc") == nil)
        #expect(Substring("x").byteRange(of: "") == nil)
        #expect("© ACME © 2026".replacingAll("©", with: "(c)") == "(c) ACME (c) 2026")
        #expect("it's".replacingAll("'", with: "'\\''") == "it'\\''s")
        #expect("dejavu sans bold".replacingAll("sans", with: "") == "dejavu  bold")
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

    /// `{camera-clock}` shows the camera's capture time where the frame has one, the wall
    /// clock where it has not; `%s` keeps the test free of the time zone.
    @Test func cameraClockPrefersTheCamerasTime() {
        var clock = FrameClock(wallClock: 1_000_000_000.5)
        let template = TextTemplate("{camera-clock:%s.%f}|{clock:%s}|{camera-clock}")
        #expect(template.showsCameraClock)
        #expect(!TextTemplate("{clock}").showsCameraClock)
        #expect(template.expand(clock).hasPrefix("1000000000.500|1000000000|"))
        clock.cameraClock = 1_700_000_000.25
        #expect(template.expand(clock).hasPrefix("1700000000.250|1000000000|"))
        #expect(TextTemplate("{camera-clock:%s}").parts == [.cameraClock("%s")])
        #expect(TextTemplate("{camera-clock}").parts == [.cameraClock("%H:%M:%S")])
        #expect(TextTemplate("{camera-clocks}").parts == [.literal("{camera-clocks}")])
    }
}

/// The element with explicit timestamps.

/// Keyframes that repeat and alternate (CSS animation-iteration-count and -direction).
struct KeyframeRepeatTests {
    static func track(repeatCount: Int?, alternate: Bool) -> KeyframeTrack {
        KeyframeTrack(
            [Keyframe(time: 1, values: [.x: 0]), Keyframe(time: 3, values: [.x: 1])], repeatCount: repeatCount,
            alternate: alternate)
    }

    @Test func playsOnceByDefault() {
        let t = Self.track(repeatCount: 1, alternate: false)
        #expect(
            t.value(.x, at: 0) == 0 && t.value(.x, at: 2) == 0.5 && t.value(.x, at: 3) == 1 && t.value(.x, at: 9) == 1)
    }

    @Test func repeatsForwardAndHoldsTheEndOfTheLastPlay() {
        let t = Self.track(repeatCount: 2, alternate: false)
        #expect(t.value(.x, at: 2) == 0.5)
        // The second play starts over at the loop boundary…
        #expect(t.value(.x, at: 3.5) == 0.25 && t.value(.x, at: 4) == 0.5)
        // …and after it the track holds its end.
        #expect(t.value(.x, at: 5) == 1 && t.value(.x, at: 100) == 1)
    }

    @Test func alternateRunsEverySecondPlayBackwards() {
        let t = Self.track(repeatCount: 3, alternate: true)
        #expect(t.value(.x, at: 2.5) == 0.75)
        // Continuous at the boundaries: forward to 1, back to 0, forward again.
        #expect(t.value(.x, at: 3) == 1 && t.value(.x, at: 3.5) == 0.75 && t.value(.x, at: 5) == 0)
        #expect(t.value(.x, at: 6) == 0.5)
        // Three plays end forward, at 1; two would end backward, at 0.
        #expect(t.value(.x, at: 50) == 1)
        #expect(Self.track(repeatCount: 2, alternate: true).value(.x, at: 50) == 0)
    }

    @Test func infiniteKeepsLooping() {
        let t = Self.track(repeatCount: nil, alternate: true)
        #expect(t.value(.x, at: 1_000_001) == 0 && t.value(.x, at: 1_000_002) == 0.5)
        let forward = Self.track(repeatCount: nil, alternate: false)
        #expect(forward.value(.x, at: 1_000_002) == 0.5)
    }

    @Test func configTakesRepeatAndAlternate() throws {
        let json =
            #"{ "layers": [ { "text": "a", "repeat": "infinite", "alternate": true,"#
            + #" "keyframes": [ { "time": 0, "x": 0 }, { "time": 1, "x": 1 } ] }, "#
            + #"{ "text": "b", "keyframes": [ { "time": 0, "x": 0 } ], "repeat": 3 } ] }"#
        let layers = try LayerConfig.parse(Array(json.utf8), file: "r.json", directory: "/")
        #expect(layers[0].keyframes.repeatCount == nil && layers[0].keyframes.alternate)
        #expect(layers[1].keyframes.repeatCount == 3 && !layers[1].keyframes.alternate)
        for bad in [#""repeat": 0"#, #""repeat": 2.5"#, #""repeat": "forever""#, #""alternate": 1"#] {
            let doc = #"{ "layers": [ { "text": "a", "# + bad + " } ] }"
            #expect(throws: ConfigError.self) { try LayerConfig.parse(Array(doc.utf8), file: "r.json", directory: "/") }
        }
    }
}
