import CGStreamer
import CGstCheck
import CShim
import Foundation
import GstTestSupport
import Synchronization
import Testing
import WatermarkModel

/// Layers, keyframes, text files, orientation and reloads through the element.
@Suite struct LayerElementTests {
    static let red = GstTest.solidPNG("layer-red.png", width: 8, height: 8, argb: 0xFFFF_0000)
    static let green = GstTest.solidPNG("layer-green.png", width: 8, height: 8, argb: 0xFF00_FF00)
    static let blue = GstTest.solidPNG("layer-blue.png", width: 8, height: 8, argb: 0xFF00_00FF)
    static let caps = "video/x-raw,format=BGRx,width=64,height=32,framerate=30/1"

    /// Pushes a black 64×32 BGRx frame stamped `seconds`.
    static func push(_ h: Harness, at seconds: Double, width: Int = 64, height: Int = 32) throws -> Frame {
        try #require(
            h.pushZeroed(bytes: width * height * 4, pts: GstClockTime(seconds * 1e9), duration: GstClockTime(1e9 / 30)))
    }

    /// A `width`×`height` harness in `format` at 30 fps with a white "TICKER" (no outline)
    /// scrolling along the bottom `step` pixels a frame; `extra` properties are set after the
    /// shared ones (replacing any of them), all before the caps.
    static func ticker(
        format: String, step: Double, width w: Int = 320, height: Int = 180,
        _ extra: KeyValuePairs<String, String> = [:]
    ) -> Harness {
        let h = Harness(
            element: "watermark",
            [
                "text": "TICKER", "text-size": "0.2", "anchor": "bottom", "motion": "ticker",
                "motion-speed": "\(step * 30 / Double(w))", "color": "0xFFFFFFFF", "outline-width": "0",
            ])
        for (name, value) in extra { h.set(name, value) }
        gst_harness_set_src_caps_str(h.h, "video/x-raw,format=\(format),width=\(w),height=\(height),framerate=30/1")
        return h
    }

    static func corner(_ image: String, _ anchor: String, marginX: Double = 0) -> String {
        "{ \"image\": \"\(image)\", \"width\": 0, \"anchor\": \"\(anchor)\", \"margin-x\": \(marginX), \"margin-y\": 0 }"
    }

    static func colour(_ f: Frame, _ x: Int, _ y: Int) -> String {
        let p = f.bgra(x, y)
        switch (p.r > 200, p.g > 200, p.b > 200) {
        case (true, false, false): return "red"
        case (false, true, false): return "green"
        case (false, false, true): return "blue"
        case (false, false, false) where p.r < 30 && p.g < 30 && p.b < 30: return "black"
        default: return "(\(p.r),\(p.g),\(p.b))"
        }
    }

    @Test func configLayersAreDrawnInOrderUnderTheShorthand() throws {
        let config = TestEnv.write(
            "layers-order.json",
            """
            { "layers": [ \(Self.corner(Self.red, "top-left")), \(Self.corner(Self.green, "top-left", marginX: 0.0625)),
                          \(Self.corner(Self.blue, "bottom-right")) ] }
            """)
        let h = Harness(
            element: "watermark",
            [
                "config": config, "image": Self.blue, "width": "0", "anchor": "top-left",
                "margin-x": "0", "margin-y": "0", "x": "0.0625", "y": "0.5",
            ])
        gst_harness_set_src_caps_str(h.h, Self.caps)
        let f = try Self.push(h, at: 0)
        #expect(Self.colour(f, 1, 1) == "red")
        #expect(Self.colour(f, 5, 1) == "green")  // drawn after red, overlapping x 4..7
        #expect(Self.colour(f, 60, 28) == "blue")
        #expect(Self.colour(f, 5, 17) == "blue")  // the shorthand layer
        #expect(Self.colour(f, 30, 10) == "black")
    }

    @Test func keyframedXMovesAsComputed() throws {
        // x goes 0 → 0.75 over 0…1 s, linear: the block's left edge is at x·64 px.
        let config = TestEnv.write(
            "layers-move.json",
            """
            { "layers": [ { "image": "\(Self.red)", "width": 0, "anchor": "top-left", "margin-y": 0,
                            "keyframes": [ { "time": 0, "x": 0 }, { "time": 1, "x": 0.75 } ] } ] }
            """)
        let h = Harness(element: "watermark", ["config": config])
        gst_harness_set_src_caps_str(h.h, Self.caps)
        for (t, left) in [(0.0, 0), (0.5, 24), (1.0, 48), (2.0, 48)] {
            let f = try Self.push(h, at: t)
            #expect(Self.colour(f, left, 2) == "red", "t=\(t): left edge at \(left)")
            #expect(Self.colour(f, left + 7, 2) == "red", "t=\(t)")
            if left > 0 { #expect(Self.colour(f, left - 1, 2) == "black", "t=\(t)") }
            #expect(Self.colour(f, left + 8, 2) == "black", "t=\(t)")
        }
        // Moving does not re-render: one render for all four frames.
        var count: UInt64 = 0
        g_object_get_uint64(h.element, "render-count", &count)
        #expect(count == 1)
    }

    @Test func staticTextRendersOnceFrameCounterEveryFrame() throws {
        for (text, expected) in [("static", UInt64(1)), ("{frame}", UInt64(5))] {
            let h = Harness(element: "watermark", ["text": text])
            gst_harness_set_src_caps_str(h.h, Self.caps)
            for i in 0..<5 { _ = try Self.push(h, at: Double(i) / 30) }
            var count: UInt64 = 0
            g_object_get_uint64(h.element, "render-count", &count)
            #expect(count == expected, "\(text)")
        }
    }

    /// `{timecode}` shows a frame's GstVideoTimeCodeMeta when it has one.
    @Test func timecodeComesFromTheTimeCodeMeta() throws {
        func sum(_ text: String, meta: Bool) throws -> Int {
            let h = Harness(element: "watermark", ["text": text, "anchor": "top-left", "text-size": "0.3"])
            gst_harness_set_src_caps_str(h.h, "video/x-raw,format=BGRx,width=320,height=120,framerate=30/1")
            let f = try #require(
                h.pushZeroed(bytes: 320 * 120 * 4, pts: 0) { b in
                    if meta {
                        _ = gst_buffer_add_video_time_code_meta_full(
                            b, 30, 1, nil, GST_VIDEO_TIME_CODE_FLAGS_NONE, 1, 2, 3, 4, 0)
                    }
                })
            var s = 0
            for y in 0..<40 { for x in 0..<300 { s += f.bgra(x, y).r } }
            return s
        }
        let fromMeta = try sum("{timecode}", meta: true)
        let asText = try sum("01:02:03:04", meta: false), withoutMeta = try sum("{timecode}", meta: false)
        #expect(fromMeta == asText)
        #expect(fromMeta != withoutMeta)  // 00:00:00:00 without it
    }

    /// Buffers without timestamps: timed and keyframed layers and time placeholders still
    /// give a frame (shown as if untimed, placeholders as dashes), never a trap.
    @Test func buffersWithoutTimestamps() throws {
        let config = TestEnv.write(
            "layers-untimed.json",
            """
            { "layers": [ { "image": "\(Self.red)", "width": 0, "anchor": "top-left", "margin-x": 0, "margin-y": 0,
                            "start": 1, "end": 2, "keyframes": [ { "time": 0, "x": 0 }, { "time": 1, "x": 0.5 } ] },
                          { "text": "{pts} {stream-time} {timecode} {clock:%T}", "anchor": "bottom" } ] }
            """)
        let h = Harness(
            element: "watermark", ["config": config, "text": "{running-time}", "start": "1", "fade-in": "1"])
        gst_harness_set_src_caps_str(h.h, Self.caps)
        for _ in 0..<3 {
            let f = try #require(h.pushZeroed(bytes: 64 * 32 * 4, pts: GstClockTime.max))
            #expect(Self.colour(f, 2, 2) == "red")
        }
    }

    @Test func badConfigIsAnErrorWithFileLineAndField() {
        let config = TestEnv.write("layers-bad.json", "{ \"layers\": [\n  { \"text\": \"a\", \"opacity\": 2.5 } ] }")
        let run = Pipeline.run("videotestsrc num-buffers=3 ! watermark config=\"\(config)\" ! fakesink", timeout: 20)
        #expect(!run.ok)
        let message = run.errors.first?.message ?? ""
        #expect(message.contains("layers-bad.json:2:29: layer 0: \"opacity\": 2.5 is out of range"), "\(message)")
        let missing = TestEnv.write("layers-missing-image.json", "{ \"layers\": [ { \"image\": \"nope.png\" } ] }")
        let run2 = Pipeline.run("videotestsrc num-buffers=3 ! watermark config=\"\(missing)\" ! fakesink", timeout: 20)
        #expect(run2.errors.first?.message.contains("layer 0: \"image\"") == true, "\(run2.errors)")
        #expect(run2.errors.first?.message.contains("nope.png") == true)
    }

    @Test func reloadSwapsLayersAndABadFileKeepsTheOldOnes() throws {
        let good = TestEnv.write("layers-reload-a.json", "{ \"layers\": [ \(Self.corner(Self.red, "top-left")) ] }")
        let other = TestEnv.write("layers-reload-b.json", "{ \"layers\": [ \(Self.corner(Self.green, "top-left")) ] }")
        let h = Harness(element: "watermark", ["config": good])
        let bus = gst_bus_new()
        defer { gst_object_unref(bus) }
        gst_element_set_bus(h.element, bus)
        gst_harness_set_src_caps_str(h.h, Self.caps)
        #expect(Self.colour(try Self.push(h, at: 0), 2, 2) == "red")
        // A bad file: a warning naming it, and the red layer stays.
        let bad = TestEnv.write("layers-reload-bad.json", "{ \"layers\": [ { \"text\": ")
        h.set("config", bad)
        let text = try #require(Pipeline.nextWarning(on: bus))
        #expect(text.contains("layers-reload-bad.json:1:"), "\(text)")
        #expect(text.contains("keeping the previous layers"))
        #expect(Self.colour(try Self.push(h, at: 0.1), 2, 2) == "red")
        // A good file replaces the layers in one step (loaded off the streaming thread).
        h.set("config", other)
        var seen = "red"
        for i in 0..<200 where seen != "green" {
            seen = Self.colour(try Self.push(h, at: 0.2 + Double(i) / 30), 2, 2)
            #expect(seen == "red" || seen == "green", "never a mix or nothing: \(seen)")
            if seen != "green" { usleep(10_000) }
        }
        #expect(seen == "green")
    }

    /// config-data: the same document as text, used instead of the config file; setting it
    /// while playing swaps every layer on one frame (two layers change together, never one
    /// without the other); a bad document keeps the old layers with a warning naming it.
    @Test func configDataIsUsedInsteadOfTheFileAndSwapsAllLayersAtOnce() throws {
        let file = TestEnv.write("layers-data-file.json", "{ \"layers\": [ \(Self.corner(Self.blue, "top-left")) ] }")
        let first = "{ \"layers\": [ \(Self.corner(Self.red, "top-left")), \(Self.corner(Self.red, "bottom-right")) ] }"
        let h = Harness(element: "watermark", ["config": file, "config-data": first])
        let bus = gst_bus_new()
        defer { gst_object_unref(bus) }
        gst_element_set_bus(h.element, bus)
        gst_harness_set_src_caps_str(h.h, Self.caps)
        var f = try Self.push(h, at: 0)
        #expect(Self.colour(f, 2, 2) == "red")
        #expect(Self.colour(f, 60, 28) == "red")
        h.set("config-data", "{ \"layers\": [ { \"text\": ")
        let text = try #require(Pipeline.nextWarning(on: bus))
        #expect(text.contains("config-data:1:"), "\(text)")
        #expect(text.contains("keeping the previous layers"))
        f = try Self.push(h, at: 0.1)
        #expect(Self.colour(f, 2, 2) == "red" && Self.colour(f, 60, 28) == "red")
        let second =
            "{ \"layers\": [ \(Self.corner(Self.green, "top-left")), \(Self.corner(Self.green, "bottom-right")) ] }"
        h.set("config-data", second)
        var seen = ("red", "red")
        for i in 0..<200 where seen != ("green", "green") {
            f = try Self.push(h, at: 0.2 + Double(i) / 30)
            seen = (Self.colour(f, 2, 2), Self.colour(f, 60, 28))
            #expect(seen == ("red", "red") || seen == ("green", "green"), "half an update: \(seen)")
            if seen != ("green", "green") { usleep(10_000) }
        }
        #expect(seen == ("green", "green"))
        // Cleared: the config file's layers come back.
        h.set("config-data", "")
        for i in 0..<200 where seen.0 != "blue" {
            seen = (Self.colour(try Self.push(h, at: 7 + Double(i) / 30), 2, 2), "")
            if seen.0 != "blue" { usleep(10_000) }
        }
        #expect(seen.0 == "blue")
    }

    @Test func textFileIsFollowedWholeFileAtATime() throws {
        let dir = TestEnv.path("textfile")
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let file = dir + "/viewers.txt"
        try "1".write(toFile: file, atomically: true, encoding: .utf8)
        let h = Harness(element: "watermark", ["text-file": file, "anchor": "top-left", "text-size": "0.5"])
        gst_harness_set_src_caps_str(h.h, "video/x-raw,format=BGRx,width=200,height=64,framerate=30/1")
        func ink(_ f: Frame) -> Int {
            var s = 0
            for y in 0..<40 { for x in 0..<200 { s += f.bgra(x, y).r > 128 ? 1 : 0 } }
            return s
        }
        let one = ink(try Self.push(h, at: 0, width: 200, height: 64))
        #expect(one > 0)
        // Written elsewhere and renamed over the file: the new text appears, whole.
        try "1 000 000".write(toFile: file, atomically: true, encoding: .utf8)
        var now = one
        for i in 0..<300 where now <= one * 3 {
            now = ink(try Self.push(h, at: Double(i + 1) / 30, width: 200, height: 64))
            if now <= one * 3 { usleep(10_000) }
        }
        #expect(now > one * 3, "the longer text must show: \(one) → \(now)")
    }

    @Test func rotate90TagPutsTheMarkAtTheDisplayedBottomRight() throws {
        let h = Harness(
            element: "watermark",
            [
                "image": Self.red, "width": "0", "anchor": "bottom-right",
                "margin-x": "0", "margin-y": "0",
            ])
        gst_harness_set_src_caps_str(h.h, Self.caps)
        let tags = try #require(gst_tag_list_new_from_string("taglist, image-orientation=(string)rotate-90"))
        #expect(gst_harness_push_event(h.h, gst_event_new_tag(tags)) != 0)
        let f = try Self.push(h, at: 0)
        // Stored 64×32 shows as 32×64; its displayed bottom-right is the stored top-right.
        #expect(Self.colour(f, 60, 3) == "red")
        #expect(Self.colour(f, 60, 28) == "black")
        // Without following the tag, the mark is at the stored bottom-right.
        h.set("follow-orientation", "false")
        let g = try Self.push(h, at: 0.1)
        #expect(Self.colour(g, 60, 28) == "red")
        #expect(Self.colour(g, 60, 3) == "black")
    }

    /// `text` set from another thread about 1000 times a second while 1080p frames
    /// stream: every frame comes out, none crashes, the text keeps changing.
    @Test func textChangedAt1kHzWhileStreaming1080p() throws {
        let h = Harness(element: "watermark", ["text": "start", "image": TestEnv.root + "/assets/logo.svg"])
        gst_harness_set_src_caps_str(h.h, "video/x-raw,format=I420,width=1920,height=1080,framerate=30/1")
        let stop = Atomic<Bool>(false)
        let sets = Atomic<Int>(0)
        let element = UInt(bitPattern: gst_watermark_as_object(h.element))
        let setter = ThreadGroup()
        setter.start {
            let obj = UnsafeMutablePointer<GObject>(bitPattern: element)
            var i = 0
            while !stop.load(ordering: .relaxed) {
                gst_util_set_object_arg(obj, "text", "viewers \(i)")
                i += 1
                sets.store(i, ordering: .relaxed)
                usleep(1000)
            }
        }
        let size = 1920 * 1080 * 3 / 2
        var out = 0
        let started = Date()
        var i = 0
        while Date().timeIntervalSince(started) < 3 {
            let b = try #require(gst_harness_create_buffer(h.h, gsize(size)))
            b.pointee.pts = GstClockTime(Double(i) / 30 * 1e9)
            if gst_harness_push(h.h, b) == GST_FLOW_OK, let o = gst_harness_pull(h.h) {
                out += 1
                gst_buffer_unref(o)
            }
            i += 1
        }
        stop.store(true, ordering: .relaxed)
        setter.join()
        #expect(out == i, "every pushed frame comes out")
        #expect(sets.load(ordering: .relaxed) > 1000, "the setter ran: \(sets.load(ordering: .relaxed))")
        var count: UInt64 = 0
        g_object_get_uint64(h.element, "render-count", &count)
        #expect(count > 1)
    }

    /// A bouncing mark after a seek is where it is when played through: its place is a
    /// function of stream time.
    /// A ticker at N px per frame moves exactly N luma pixels every frame in 4:2:0 formats,
    /// odd N too (off the chroma grid it is blended from a copy converted at that phase): no
    /// stutter, no 2-px steps every other frame. It enters from the right edge.
    @Test(arguments: [("I420", 2), ("NV12", 2), ("I420", 1), ("NV12", 3)])
    func tickerMovesWholePixelsEveryFrame(format: String, step: Int) throws {
        let (w, h) = (320, 180)
        let h2 = Self.ticker(format: format, step: Double(step), width: w, height: h)
        // The leftmost luma column with ink in the bottom band, per frame.
        func leftmost(_ f: Frame) -> Int? {
            for x in 0..<w {
                for y in (h / 2)..<h where f.byte(plane: 0, row: y, offset: x) > 128 { return x }
            }
            return nil
        }
        var lefts: [Int?] = []
        for n in 1...60 {
            let f = try #require(
                h2.pushZeroed(
                    bytes: w * h * 3 / 2, pts: GstClockTime(UInt64(n) * 1_000_000_000 / 30), duration: 33_333_333))
            lefts.append(leftmost(f))
        }
        // Entering from the right: ink within the first frames, near the edge, then 2 px a frame.
        let firstInk = try #require(lefts.firstIndex { $0 != nil }, "\(lefts)")
        #expect(firstInk <= 10 / step, "\(lefts.prefix(5))")
        let seen = lefts[firstInk...].compactMap { $0 }
        #expect(seen.count == 60 - firstInk, "\(lefts)")
        #expect(seen.first.map { $0 >= w - 10 } == true, "\(seen.prefix(3))")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 - $1 == step }, "\(seen)")
    }

    /// An animated logo follows the layer's time with the file's own delays (100, 200, 300
    /// ms) and loop count, and each frame is rendered and converted once: after playing
    /// through twice, three renders.
    @Test(arguments: ["gif", "webp", "apng"])
    func animatedLogoFollowsStreamTimeAndRendersEachFrameOnce(kind: String) throws {
        let path =
            switch kind {
            case "gif": TestAnimation.gif("layer-anim.gif", frames: [(0, 10), (1, 20), (2, 30)], loop: 0)
            case "webp": try TestAnimation.webp("layer-anim.webp", loop: 0)
            default:
                TestAnimation.apng(
                    "layer-anim.apng", frames: [(0xFF00_00FF, 10), (0x00FF_00FF, 20), (0x0000_FFFF, 30)], plays: 0)
            }
        let h = Harness(
            element: "watermark", ["image": path, "width": "0", "anchor": "top-left", "margin-x": "0", "margin-y": "0"])
        gst_harness_set_src_caps_str(h.h, Self.caps)
        var seen: [String] = []
        for t in [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.95, 1.15] {
            seen.append(Self.colour(try Self.push(h, at: t), 2, 2))
        }
        #expect(seen == ["red", "green", "green", "blue", "blue", "blue", "red", "green", "blue", "blue"], "\(seen)")
        var count: UInt64 = 0
        g_object_get_uint64(h.element, "render-count", &count)
        #expect(count == 3, "rendered \(count) times")
        // A GIF that repeats three times: four plays, then its last frame.
        if kind == "gif" {
            let counted = TestAnimation.gif("layer-anim-3.gif", frames: [(0, 10), (1, 20), (2, 30)], loop: 3)
            let h2 = Harness(
                element: "watermark",
                ["image": counted, "width": "0", "anchor": "top-left", "margin-x": "0", "margin-y": "0"])
            gst_harness_set_src_caps_str(h2.h, Self.caps)
            #expect(Self.colour(try Self.push(h2, at: 1.85), 2, 2) == "red")  // the fourth play
            #expect(Self.colour(try Self.push(h2, at: 2.45), 2, 2) == "blue")  // after it: held
            #expect(Self.colour(try Self.push(h2, at: 60), 2, 2) == "blue")
        }
    }

    /// A ticker never changes a copy in view: a new look (here the colour, as a new text
    /// would) starts with the next copy that enters; the copy in view keeps the old one until
    /// it has left.
    @Test func tickerChangesTakeOverAtTheNextCopy() throws {
        let (w, hgt) = (320, 180)
        let h = Self.ticker(format: "BGRx", step: 8, width: w, height: hgt)
        func inks(_ f: Frame) -> (white: Int, red: Int) {
            var white = 0, red = 0
            for y in stride(from: hgt / 2, to: hgt, by: 2) {
                for x in stride(from: 0, to: w, by: 2) {
                    let p = f.bgra(x, y)
                    if p.r > 200 && p.g > 200 && p.b > 200 { white += 1 }
                    if p.r > 200 && p.g < 80 && p.b < 80 { red += 1 }
                }
            }
            return (white, red)
        }
        func push(_ n: Int) throws -> (white: Int, red: Int) {
            inks(try Self.push(h, at: Double(n) / 30, width: w, height: hgt))
        }
        for n in 1...20 { _ = try push(n) }
        h.set("color", "0xFFFF0000")
        var seen: [(white: Int, red: Int)] = []
        for n in 21...100 { seen.append(try push(n)) }
        // Until the next copy comes in, only the old colour; then both; the new one stays.
        let firstRed = try #require(seen.firstIndex { $0.red > 0 }, "the new colour never came: \(seen)")
        #expect(firstRed >= 3, "the copy in view changed: \(seen.prefix(5))")
        #expect(seen[..<firstRed].allSatisfy { $0.white > 0 })
        #expect(seen[firstRed...].allSatisfy { $0.red > 0 }, "\(seen)")
        #expect(seen[(firstRed + 1)...].contains { $0.white > 0 && $0.red > 0 }, "old and new copies in view together")
        #expect(seen.last.map { $0.white == 0 } == true, "the old copy should have left: \(seen.suffix(3))")
    }

    /// A ticker with a full-width box: the band stays across the whole width while the text
    /// scrolls through it, its lines inside the band.
    @Test func tickerBandStaysWhileTheTextMoves() throws {
        let (w, hgt) = (320, 180)
        let h = Self.ticker(
            format: "BGRx", step: 8, width: w, height: hgt,
            ["text-size": "0.15", "margin-y": "0", "background-color": "0xFF0000FF", "background-full-width": "true"])
        var bandRows: Set<Int>?
        for n in [1, 2, 10, 25, 40] {
            let f = try Self.push(h, at: Double(n) / 30, width: w, height: hgt)
            // Rows covered from edge to edge (over black frames) by the band or the text on it.
            var rows = Set<Int>()
            for y in 0..<hgt {
                let covered = stride(from: 0, to: w, by: 3).allSatisfy { x in
                    let p = f.bgra(x, y)
                    return max(p.r, p.g, p.b) > 150
                }
                if covered { rows.insert(y) }
            }
            #expect(!rows.isEmpty && rows.max() == hgt - 1, "frame \(n): no band at the bottom")
            if let bandRows { #expect(rows == bandRows, "frame \(n): the band moved") }
            bandRows = rows
            // The text's rows (white ink) are inside the band.
            var ink = Set<Int>()
            for y in 0..<hgt {
                for x in stride(from: 0, to: w, by: 2) {
                    let p = f.bgra(x, y)
                    if p.r > 200 && p.g > 200 && p.b > 200 { ink.insert(y) }
                }
            }
            if n >= 10 {
                #expect(
                    !ink.isEmpty && ink.isSubset(of: rows),
                    "frame \(n): text rows \(ink.sorted().prefix(3))… outside the band")
            }
        }
    }

    @Test func bounceAfterASeekEqualsPlayingThrough() throws {
        let caps = "video/x-raw,format=I420,width=320,height=180,framerate=10/1"
        func frame(at seconds: [Double]) throws -> [UInt8] {
            let h = Harness(
                element: "watermark", ["image": Self.red, "width": "0.1", "motion": "bounce", "motion-speed": "0.3"])
            gst_harness_set_src_caps_str(h.h, caps)
            var last: [UInt8] = []
            for s in seconds {
                let f = try #require(
                    h.pushZeroed(bytes: 320 * 180 * 3 / 2, pts: GstClockTime(s * 1e9), duration: 100_000_000))
                let size = gst_buffer_get_size(f.buffer)
                last = [UInt8](repeating: 0, count: Int(size))
                _ = gst_buffer_extract(f.buffer, 0, &last, size)
            }
            return last
        }
        let played = try frame(at: (0...37).map { Double($0) / 10 })
        let jumped = try frame(at: [3.7])
        let first = try frame(at: [0])
        #expect(played == jumped)
        #expect(played != first, "the mark moved in 3.7 s")
    }
}
