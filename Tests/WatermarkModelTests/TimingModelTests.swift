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
}

/// The element with explicit timestamps.
