import Foundation
import GstTestSupport
import Testing

/// Burned-in subtitles on the element: SRT cues on screen exactly for their frames, bottom
/// centre, italic where marked; `subtitle-offset`; bad files stopping the start with their
/// line; a file of 100 000 cues; and an ASS script against ffmpeg's own libass render.
@Suite(.serialized) struct SubtitleElementTests {
    static let width = 320, height = 240

    /// Runs black 320×240 I420 frames through the element and returns each frame's luma.
    static func lumaFrames(_ properties: String, frames: Int = 90, pattern: String = "black") -> (
        PipelineRun, [[UInt8]]
    ) {
        let out = TestEnv.path("subtitle-frames-\(UUID().uuidString).yuv")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = Pipeline.run(
            "videotestsrc num-buffers=\(frames) pattern=\(pattern) ! video/x-raw,format=I420,width=\(width),"
                + "height=\(height),framerate=30/1 ! watermark \(properties) ! filesink location=\(out)")
        let data = (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()
        let size = width * height * 3 / 2
        let frames = stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<$0 + width * height]) }
        return (run, frames)
    }

    /// The bounding box of the pixels brighter than mid-grey (nil: none).
    static func bright(_ y: [UInt8]) -> (minX: Int, maxX: Int, minY: Int, maxY: Int)? {
        var box: (Int, Int, Int, Int)?
        for row in 0..<height {
            for x in 0..<width where y[row * width + x] > 128 {
                let b = box ?? (x, x, row, row)
                box = (min(b.0, x), max(b.1, x), min(b.2, row), max(b.3, row))
            }
        }
        return box.map { (minX: $0.0, maxX: $0.1, minY: $0.2, maxY: $0.3) }
    }

    /// Every frame inside a cue shows it, every frame outside it is black (one frame of slack
    /// at each end); the lines sit at the bottom, centred.
    static func checkCues(_ frames: [[UInt8]], _ cues: [ClosedRange<Int>]) {
        for (n, frame) in frames.enumerated() {
            let box = bright(frame)
            if cues.contains(where: { ($0.lowerBound + 1...$0.upperBound - 1).contains(n) }) {
                guard let box else {
                    Issue.record("frame \(n): no subtitle")
                    continue
                }
                #expect(abs((box.minX + box.maxX) / 2 - width / 2) <= 3, "frame \(n): \(box)")
                #expect(box.maxY > height * 8 / 10 && box.maxY < height - 4, "frame \(n): \(box)")
            } else if !cues.contains(where: { ($0.lowerBound - 1...$0.upperBound + 1).contains(n) }) {
                #expect(box == nil, "frame \(n): \(String(describing: box))")
            }
        }
    }

    static let srt = TestEnv.write(
        "cues.srt",
        "1\n00:00:00,500 --> 00:00:01,500\nHello\nworld\n\n2\n00:00:01,600 --> 00:00:02,900\n<b>Second</b> cue\n")

    /// 30 fps: 0.5–1.5 s is frames 15–44, 1.6–2.9 s frames 48–86.
    @Test func srtCuesShowFromTheirFirstToTheirLastFrame() {
        let (run, frames) = Self.lumaFrames("subtitle-file=\(Self.srt)")
        #expect(run.ok, "\(run.errors)")
        #expect(frames.count == 90)
        Self.checkCues(frames, [15...44, 48...86])
        // Two lines for the first cue, one for the second.
        if let two = Self.bright(frames[30]), let one = Self.bright(frames[60]) {
            #expect(two.maxY - two.minY > (one.maxY - one.minY) * 3 / 2, "\(two) \(one)")
        }
    }

    @Test func offsetMovesEveryCue() {
        let (run, frames) = Self.lumaFrames("subtitle-file=\(Self.srt) subtitle-offset=1.0", frames: 120)
        #expect(run.ok, "\(run.errors)")
        Self.checkCues(frames, [45...74, 78...116])
        let (early, shifted) = Self.lumaFrames("subtitle-file=\(Self.srt) subtitle-offset=-0.5", frames: 30)
        #expect(early.ok)
        Self.checkCues(shifted, [0...29])
    }

    /// A stream tagged rotate-90 with follow-orientation: the cue is laid out on the picture as
    /// displayed, so once turned (videoflip by the tag) it sits upright at the bottom centre.
    @Test func subtitlesFollowTheOrientation() throws {
        let out = TestEnv.path("subtitle-rotated.gray")
        let run = Pipeline.run(
            "videotestsrc num-buffers=1 pattern=black ! video/x-raw,format=I420,width=320,height=240 ! "
                + "taginject tags=\"image-orientation=rotate-90\" ! watermark subtitle-file=\(Self.srtLong) "
                + "follow-orientation=true ! videoflip video-direction=auto ! videoconvert ! video/x-raw,format=GRAY8 ! "
                + "filesink location=\(out)")
        #expect(run.ok, "\(run.errors)")
        let frame = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        let (w, h) = (240, 320)
        #expect(frame.count == w * h)
        var xs: [Int] = [], ys: [Int] = []
        for y in 0..<h where frame.count == w * h {
            for x in 0..<w where frame[y * w + x] > 128 {
                xs.append(x)
                ys.append(y)
            }
        }
        let box = (minX: xs.min() ?? 0, maxX: xs.max() ?? 0, minY: ys.min() ?? 0, maxY: ys.max() ?? 0)
        #expect(!xs.isEmpty && abs((box.minX + box.maxX) / 2 - w / 2) <= 3, "\(box)")
        // Upright text is wider than tall, at the bottom of the displayed picture.
        #expect(box.maxX - box.minX > 3 * (box.maxY - box.minY) && box.maxY > h * 8 / 10, "\(box)")
    }

    static let srtLong = TestEnv.write("long.srt", "1\n00:00:00,000 --> 00:00:05,000\nUpright words\n")

    /// An `<i>` line leans right: the top of its strokes is further right than their foot.
    @Test func italicLinesLeanRight() {
        func lean(_ text: String) -> Double? {
            let file = TestEnv.write("lean-\(UUID().uuidString).srt", "1\n00:00:00,000 --> 00:00:05,000\n\(text)\n")
            let (run, frames) = Self.lumaFrames("subtitle-file=\(file) text-size=0.15", frames: 1)
            guard run.ok, let frame = frames.first, let box = Self.bright(frame) else { return nil }
            func meanX(_ rows: ClosedRange<Int>) -> Double {
                var sum = 0, count = 0
                for y in rows {
                    for x in box.minX...box.maxX where frame[y * Self.width + x] > 128 {
                        sum += x
                        count += 1
                    }
                }
                return Double(sum) / Double(max(count, 1))
            }
            let h = (box.maxY - box.minY) / 4
            return meanX(box.minY...box.minY + h) - meanX(box.maxY - h...box.maxY)
        }
        let plain = lean("IIIIII"), italic = lean("<i>IIIIII</i>")
        #expect(plain.map { abs($0) < 1 } == true, "\(String(describing: plain))")
        #expect(italic.map { $0 > 3 } == true, "\(String(describing: italic))")
    }

    /// A broken time, a binary file and a file cut short: the start fails, the error names
    /// the file and line, within 20 s.
    @Test func badFilesStopTheStartNamingTheLine() throws {
        let broken = TestEnv.write(
            "broken.srt", "1\n00:00:01,000 --> 00:00:02,000\na\n\n2\n00:01:0x,000 --> 00:01:02,000\nb\n")
        let binary = TestEnv.path("binary.srt")
        var bytes = [UInt8](repeating: 0, count: 4096)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
        FileManager.default.createFile(atPath: binary, contents: Data(bytes))
        let truncated = TestEnv.write("truncated.srt", "1\n00:00:01,000 --> 00:00:02,000\nfine\n\n2\n00:00:0")
        let cases = [
            (broken, "broken.srt:6: \"00:01:0x,000\" is not a time"),
            (binary, "binary.srt:1: not a subtitle file (binary data"),
            (truncated, "truncated.srt:6: expected a cue's times"),
            (TestEnv.path("missing.srt"), "Could not read subtitle-file"),
        ]
        for (file, message) in cases {
            let started = Date()
            let (run, frames) = Self.lumaFrames("subtitle-file=\(file)", frames: 5)
            #expect(!run.ok && frames.isEmpty)
            #expect(run.errors.contains { $0.message.contains(message) }, "\(run.errors)")
            #expect(Date().timeIntervalSince(started) < 20)
        }
    }

    /// WebVTT cues (after a header, a note and a cue id) show for their frames like SRT's.
    @Test func webvttCuesShowForTheirFrames() {
        let vtt = TestEnv.write(
            "cues.vtt",
            "WEBVTT\n\nNOTE timing\n\nfirst\n00:00.500 --> 00:01.500 align:start\n<v Ann>Hello</v>\n\n"
                + "00:00:01.600 --> 00:00:02.900\n<i>Second</i> &amp; last\n")
        let (run, frames) = Self.lumaFrames("subtitle-file=\(vtt)")
        #expect(run.ok, "\(run.errors)")
        Self.checkCues(frames, [15...44, 48...86])
    }

    /// An ASS script of 100 000 events (each 20 ms, all on screen in turn) loads and plays
    /// in well under a minute.
    @Test func aHundredThousandAssEvents() throws {
        var text = """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: 320
            PlayResY: 240

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, Alignment
            Style: Default,DejaVu Sans,24,&H00FFFFFF,2

            [Events]
            Format: Layer, Start, End, Style, Text

            """
        text.reserveCapacity(6_000_000)
        func clock(_ cs: Int) -> String {
            String(format: "%d:%02d:%02d.%02d", cs / 360_000, cs / 6000 % 60, cs / 100 % 60, cs % 100)
        }
        for i in 0..<100_000 { text += "Dialogue: 0,\(clock(i * 2)),\(clock(i * 2 + 2)),Default,Event \(i)\n" }
        let file = TestEnv.write("many.ass", text)
        let started = Date()
        let (run, frames) = Self.lumaFrames("subtitle-file=\(file)", frames: 60)
        #expect(run.ok, "\(run.errors)")
        #expect(frames.count == 60 && frames.allSatisfy { Self.bright($0) != nil })
        #expect(Date().timeIntervalSince(started) < 60)
    }

    /// 100 000 cues of 20 ms: the file loads and renders in well under a minute.
    @Test func aHundredThousandCues() throws {
        var text = ""
        text.reserveCapacity(5_000_000)
        for i in 0..<100_000 {
            let t = i * 20
            func clock(_ ms: Int) -> String {
                String(format: "%02d:%02d:%02d,%03d", ms / 3_600_000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000)
            }
            text += "\(i + 1)\n\(clock(t)) --> \(clock(t + 20))\nCue \(i)\n\n"
        }
        let file = TestEnv.write("many.srt", text)
        let started = Date()
        let (run, frames) = Self.lumaFrames("subtitle-file=\(file)", frames: 60)
        #expect(run.ok, "\(run.errors)")
        #expect(frames.count == 60 && frames.allSatisfy { Self.bright($0) != nil })
        #expect(Date().timeIntervalSince(started) < 60)
    }
}
