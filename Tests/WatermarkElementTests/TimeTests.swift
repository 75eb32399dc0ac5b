import CGStreamer
import CGstCheck
import CShim
import Foundation
import Glibc
import GstTestSupport
import Testing
import WatermarkModel

@testable import WatermarkElement

@Suite struct TimeElementTests {
    static let white = GstTest.solidPNG("time-white.png", width: 16, height: 16, argb: 0xFFFF_FFFF)

    /// Pushes a black 32×32 BGRx frame stamped `seconds` and returns the red value at (4, 4).
    static func push(_ h: Harness, at seconds: Double) throws -> Int {
        let out = try #require(
            h.pushZeroed(bytes: 32 * 32 * 4, pts: GstClockTime(seconds * 1e9), duration: GstClockTime(1e9 / 30)))
        return out.bgra(4, 4).r
    }

    @Test func startEndAndFadeIn() throws {
        let h = Harness(
            element: "watermark",
            [
                "image": Self.white, "width": "0", "anchor": "top-left", "margin-x": "0",
                "margin-y": "0", "start": "1", "end": "3", "fade-in": "0.5",
            ])
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
            sums.append(
                sum(try #require(live.pushZeroed(bytes: 320 * 240 * 4, pts: GstClockTime(Double(i) / 30 * 1e9)))))
        }
        #expect(Set(sums).count == 3, "\(text): frames 0, 1, 2 must show different text: \(sums)")
    }
}

/// Text that changes with time is rendered a frame ahead on a worker thread: what comes
/// out must be exactly what rendering on the streaming thread gives, predicted or not.
@Suite struct RenderAheadTests {
    /// A pause after each frame, as between live frames, so that the next frame's pixels
    /// are ready when it comes (frames pushed back to back make the element render in
    /// place instead; the pixels must be the same either way).
    static let livePace: UInt32 = 40_000

    static func bytes(_ f: Frame) -> [UInt8] {
        let size = Int(gst_buffer_get_size(f.buffer))
        var out = [UInt8](repeating: 0, count: size)
        _ = out.withUnsafeMutableBytes { gst_buffer_extract(f.buffer, 0, $0.baseAddress, gsize(size)) }
        return out
    }

    /// Frame by frame, `{frame}` and `{stream-time}` give the pixels of the same text set
    /// as static text; the times jump twice (3.5 s, 10 s), so two predictions are wrong.
    // Sizes as literals (320 × 120 × 3 / 2 and 320 × 120 × 4): Swift 6.0 gives up
    // type-checking the products inside the macro's arguments.
    @Test(arguments: [("I420", 57_600), ("BGRx", 153_600)])
    func predictedFramesEqualFramesRenderedInPlace(format: String, size: Int) throws {
        let caps = "video/x-raw,format=\(format),width=320,height=120,framerate=30/1"
        let times = [0, 1.0 / 30, 2.0 / 30, 3.5, 3.5 + 1.0 / 30, 3.5 + 2.0 / 30, 10, 10 + 1.0 / 30]
        for template in ["{frame}", "t={stream-time}"] {
            let live = Harness(
                element: "watermark",
                [
                    "text": template, "anchor": "top-left", "text-size": "0.25",
                    "outline-width": "2",
                ])
            gst_harness_set_src_caps_str(live.h, caps)
            for (i, t) in times.enumerated() {
                let pts = GstClockTime((t * 1e9).rounded())
                let out = try #require(live.pushZeroed(bytes: size, pts: pts, duration: GstClockTime(1e9 / 30)))
                usleep(Self.livePace)
                let text = TextTemplate(template).expand(
                    FrameClock(
                        pts: Double(pts) / 1e9, streamTime: Double(pts) / 1e9,
                        frame: i, fps: 30))
                let fixed = Harness(
                    element: "watermark",
                    [
                        "text": text, "anchor": "top-left", "text-size": "0.25",
                        "outline-width": "2",
                    ])
                gst_harness_set_src_caps_str(fixed.h, caps)
                let expected = try #require(fixed.pushZeroed(bytes: size, pts: pts, duration: GstClockTime(1e9 / 30)))
                let same = Self.bytes(out) == Self.bytes(expected)
                #expect(same, "\(format) \(template) frame \(i) (\"\(text)\")")
            }
        }
    }

    /// Keyframed scale, rotation and opacity with a `{stream-time}` caption, timestamped
    /// as videotestsrc does (n × 1/30 s, rounded down to the nanosecond; durations the
    /// differences), then a seek-like jump: with render-ahead the output is byte for byte
    /// what rendering everything on the streaming thread gives.
    @Test(arguments: ["I420", "NV12", "BGRA"])
    func renderAheadChangesNoPixel(format: String) throws {
        let config = TestEnv.write(
            "render-ahead-\(format).json",
            """
            { "layers": [ { "text": "t={stream-time} #{frame}", "anchor": "center", "text-size": 0.2,
                            "keyframes": [ { "time": 0, "scale": 0.5, "rotation": 0, "opacity": 1 },
                                           { "time": 0.3, "scale": 1.2, "rotation": 30, "opacity": 0.4 } ] } ] }
            """)
        let (w, h) = (320, 120)
        let size = format == "BGRA" ? w * h * 4 : w * h * 3 / 2
        let caps = "video/x-raw,format=\(format),width=\(w),height=\(h),framerate=30/1"
        let stamps: [GstClockTime] =
            (0..<12).map { GstClockTime($0) * 1_000_000_000 / 30 } + [5_000_000_000, 5_033_333_333]
        var outputs: [[[UInt8]]] = []
        for ahead in ["true", "false"] {
            let harness = Harness(element: "watermark", ["config": config, "render-ahead": ahead])
            gst_harness_set_src_caps_str(harness.h, caps)
            var frames: [[UInt8]] = []
            for (i, pts) in stamps.enumerated() {
                let duration = i + 1 < stamps.count && stamps[i + 1] > pts ? stamps[i + 1] - pts : 33_333_333
                frames.append(Self.bytes(try #require(harness.pushZeroed(bytes: size, pts: pts, duration: duration))))
                usleep(Self.livePace)
            }
            outputs.append(frames)
        }
        for i in stamps.indices {
            let same = outputs[0][i] == outputs[1][i]
            #expect(same, "\(format) frame \(i)")
        }
        #expect(Set(outputs[1]).count == stamps.count, "every frame shows something new")
    }

    /// A source that is not live: a layer that changes every frame is rendered in place, one
    /// that holds still and then changes (here a keyframed scale with a hold, like a clock
    /// about to tick) is rendered ahead. Either way the output is byte for byte what
    /// rendering everything on the streaming thread gives.
    @Test(arguments: ["I420", "BGRA"])
    func notLiveSourceChangesNoPixel(format: String) throws {
        let config = TestEnv.write(
            "render-ahead-not-live-\(format).json",
            """
            { "layers": [ { "text": "caption", "anchor": "center", "text-size": 0.2,
                            "keyframes": [ { "time": 0, "scale": 0.5 }, { "time": 0.1, "scale": 0.5 },
                                           { "time": 0.2, "scale": 1.0 }, { "time": 0.3, "scale": 1.0 },
                                           { "time": 0.34, "scale": 0.7 } ] },
                          { "text": "#{frame}", "anchor": "top-left", "text-size": 0.2 } ] }
            """)
        let (w, h) = (320, 120)
        let size = format == "BGRA" ? w * h * 4 : w * h * 3 / 2
        let caps = "video/x-raw,format=\(format),width=\(w),height=\(h),framerate=30/1"
        var outputs: [[[UInt8]]] = []
        for ahead in ["true", "false"] {
            let harness = Harness(element: "watermark", ["config": config, "render-ahead": ahead])
            gst_harness_set_live(harness.h, 0)
            gst_harness_set_src_caps_str(harness.h, caps)
            var frames: [[UInt8]] = []
            for i in 0..<14 {
                let pts = GstClockTime(i) * 1_000_000_000 / 30
                frames.append(Self.bytes(try #require(harness.pushZeroed(bytes: size, pts: pts, duration: 33_333_333))))
                usleep(Self.livePace)
            }
            outputs.append(frames)
        }
        for i in outputs[0].indices {
            let same = outputs[0][i] == outputs[1][i]
            #expect(same, "\(format) frame \(i)")
        }
    }

    static func key(_ text: String) -> RenderKey {
        var style = OverlayStyle()
        style.text = text
        return RenderKey(
            style: style, moves: false, image: nil, width: 320, height: 120, orientation: .rotate0,
            infoGeneration: 1)
    }

    static func job(_ text: String, layer: Int = 0, delay: UInt32 = 0, thread: Locked<pthread_t?>? = nil)
        -> RenderAhead.Job
    {
        RenderAhead.Job(layer: layer, key: key(text)) {
            if delay > 0 { usleep(delay) }
            thread?.withLock { $0 = pthread_self() }
            var style = OverlayStyle()
            style.text = text
            return PreparedLayer(
                style: style, image: nil, moves: false, width: 320, height: 120,
                format: StreamFormat(layout: .i420, encoding: .bt709, transfer: .sdr, primaries: .bt709),
                orientation: .rotate0)
        }
    }

    /// A request still being rendered is waited for; a key that was not requested, or a
    /// request dropped by `stop()`, gives nil (the caller renders).
    @Test func takeWaitsForWorkInFlightAndOnlyForThat() throws {
        let ahead = RenderAhead()
        let worker = Locked<pthread_t?>(nil)
        #expect(ahead.request(Self.job("slow", delay: 1_000_000, thread: worker)))
        let taken = ahead.take(layer: 0, key: Self.key("slow"), wait: true)
        let prepared = try #require(taken.prepared, "taken after waiting 1 s")
        #expect(prepared.converted != nil)
        #expect(taken.late, "it was still being rendered")
        let ran = try #require(worker.withLock { $0 })
        #expect(pthread_equal(ran, pthread_self()) == 0, "rendered on the worker thread")
        #expect(ahead.take(layer: 0, key: Self.key("slow"), wait: true).prepared == nil, "taken once")
        #expect(ahead.request(Self.job("other")))
        #expect(
            ahead.take(layer: 0, key: Self.key("different"), wait: true).prepared == nil,
            "a wrong prediction is not used")
        #expect(ahead.take(layer: 1, key: Self.key("other"), wait: true).prepared == nil, "nor another layer's")
        #expect(ahead.request(Self.job("late", delay: 200_000)))
        ahead.stop()
        #expect(ahead.take(layer: 0, key: Self.key("late"), wait: true).prepared == nil, "dropped by stop")
        #expect(ahead.request(Self.job("again")), "the worker starts again after stop")
        #expect(ahead.take(layer: 0, key: Self.key("again"), wait: true).prepared != nil)
        // Ready before its frame (a live pace): taken without waiting. (Polled, not slept
        // for: under ThreadSanitizer on a busy machine one render can take longer than any
        // fixed pause.)
        #expect(ahead.request(Self.job("early")))
        var polls = 0
        while !ahead.isReady(layer: 0, key: Self.key("early")) && polls < 30_000 {
            usleep(10_000)
            polls += 1
        }
        let early = ahead.take(layer: 0, key: Self.key("early"), wait: true)
        #expect(early.prepared != nil && !early.late)
    }

    /// Without waiting (a source that is not live): work still in flight gives nothing at
    /// once and says so; once rendered it is taken.
    @Test func takeWithoutWaitingReturnsAtOnce() throws {
        let ahead = RenderAhead()
        #expect(ahead.request(Self.job("slow", delay: 1_000_000)))
        let start = Date()
        let early = ahead.take(layer: 0, key: Self.key("slow"), wait: false)
        #expect(early.prepared == nil && early.late)
        #expect(Date().timeIntervalSince(start) < 0.9, "returned before the render was done")
        let other = ahead.take(layer: 0, key: Self.key("other"), wait: false)
        #expect(other.prepared == nil && !other.late, "not asked for")
        var polls = 0
        while !ahead.isReady(layer: 0, key: Self.key("slow")) && polls < 30_000 {
            usleep(10_000)
            polls += 1
        }
        let ready = ahead.take(layer: 0, key: Self.key("slow"), wait: false)
        #expect(ready.prepared?.converted != nil && !ready.late)
        #expect(ahead.take(layer: 0, key: Self.key("slow"), wait: false).prepared == nil, "taken once")
    }
}
