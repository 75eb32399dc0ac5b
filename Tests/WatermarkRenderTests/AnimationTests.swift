import Foundation
import GstTestSupport
import Testing
import WatermarkModel

@testable import WatermarkRender

@Suite struct AnimationTests {
    static func colours(_ a: ImageAnimation) -> [String] { a.frames.map(colour) }

    static func colour(_ f: DecodedImage) -> String {
        f.pixelForTest.map { p in
            switch p & 0xFF_FFFF {
            case 0xFF0000: "red"
            case 0x00FF00: "green"
            case 0x0000FF: "blue"
            default: String(p, radix: 16)
            }
        } ?? "none"
    }

    @Test func gifFramesDelaysAndLoopCount() throws {
        let frames = [(0, 10), (1, 20), (2, 30)]
        let forever = try #require(
            try DecodedImage.decode(path: TestAnimation.gif("anim-forever.gif", frames: frames, loop: 0)).animation)
        #expect(Self.colours(forever) == ["red", "green", "blue"])
        #expect(forever.durations == [0.1, 0.2, 0.3])
        #expect(forever.loops == 0)
        for (t, k) in [(0.0, 0), (0.05, 0), (0.15, 1), (0.35, 2), (0.65, 0), (3600.35, 2)] {
            #expect(forever.index(at: t) == k, "t \(t)")
        }
        // Played once (no loop extension): the last frame stays.
        let once = try #require(
            try DecodedImage.decode(path: TestAnimation.gif("anim-once.gif", frames: frames, loop: nil)).animation)
        #expect(once.loops == 1 && once.frames.count == 3, "\(once.loops) \(once.durations)")
        #expect(once.index(at: 0.65) == 2 && once.index(at: 100) == 2)
        // A loop count of 3 repeats: four plays (as browsers and gdk-pixbuf play it), then the
        // last frame.
        let counted = try #require(
            try DecodedImage.decode(path: TestAnimation.gif("anim-three.gif", frames: frames, loop: 3)).animation)
        #expect(counted.loops == 4, "\(counted.loops)")
        #expect(counted.index(at: 0.65) == 0)
        #expect(counted.index(at: 100) == 2)
        // One frame: a still image.
        #expect(
            try DecodedImage.decode(path: TestAnimation.gif("anim-still.gif", frames: [(1, 0)], loop: 0)).animation
                == nil)
    }

    @Test func webpFramesDelaysAndLoopCount() throws {
        let forever = try #require(
            try DecodedImage.decode(path: try TestAnimation.webp("anim-forever.webp", loop: 0)).animation)
        #expect(Self.colours(forever) == ["red", "green", "blue"])
        #expect(forever.durations == [0.1, 0.2, 0.3])
        #expect(forever.loops == 0)
        #expect(forever.index(at: 0.65) == 0)
        let twice = try #require(
            try DecodedImage.decode(path: try TestAnimation.webp("anim-twice.webp", loop: 2)).animation)
        #expect(twice.loops == 2)
        #expect(twice.index(at: 0.65) == 0 && twice.index(at: 1.25) == 2)
    }

    @Test func apngFramesDelaysAndPlays() throws {
        let frames: [(UInt32, Int)] = [(0xFF00_00FF, 10), (0x00FF_00FF, 20), (0x0000_FFFF, 30)]
        let forever = try #require(
            try DecodedImage.decode(path: TestAnimation.apng("anim-forever.apng", frames: frames, plays: 0)).animation)
        #expect(Self.colours(forever) == ["red", "green", "blue"])
        #expect(forever.durations.map { ($0 * 1000).rounded() } == [100, 200, 300], "\(forever.durations)")
        #expect(forever.loops == 0)
        let twice = try #require(
            try DecodedImage.decode(path: TestAnimation.apng("anim-twice.apng", frames: frames, plays: 2)).animation)
        #expect(twice.loops == 2 && twice.index(at: 0.65) == 0 && twice.index(at: 1.25) == 2)
        // A still PNG stays a still.
        let still = GstTest.solidPNG("anim-still.png", width: 8, height: 8, argb: 0xFFFF_0000)
        #expect(try DecodedImage.decode(path: still).animation == nil)
    }

    @Test func badAnimationsAreClearErrors() throws {
        let junk = TestEnv.write("anim-junk.gif", "GIF89a\u{10}\u{00}\u{10}\u{00} not a gif at all")
        #expect {
            _ = try DecodedImage.decode(path: junk)
        } throws: { error in
            "\(error)".contains("anim-junk.gif")
        }
        let webp = try TestAnimation.webp("anim-cut.webp", loop: 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: webp))
        let cut = TestEnv.path("anim-cut-half.webp")
        FileManager.default.createFile(atPath: cut, contents: bytes.prefix(bytes.count / 2))
        #expect {
            _ = try DecodedImage.decode(path: cut)
        } throws: { error in
            "\(error)".contains("anim-cut-half.webp")
        }
    }

    /// Frames over the budget are not all kept: the first is, and a thread decodes a window
    /// of frames ahead of the one asked for, playing the file again from its start for each
    /// new play or a seek back.
    @Test(arguments: ["gif", "webp", "apng"]) func framesOverTheBudgetAreDecodedAheadInAWindow(format: String) throws {
        let path: String
        switch format {
        case "gif": path = TestAnimation.gif("win.gif", frames: [(0, 10), (1, 20), (2, 30)], loop: 0)
        case "webp": path = try TestAnimation.webp("win.webp", loop: 0)
        default:
            path = TestAnimation.apng(
                "win.apng", frames: [(0xFF00_00FF, 10), (0x00FF_00FF, 20), (0x0000_FFFF, 30)], plays: 0)
        }
        // Three 16×16 frames (1 KiB each) do not fit 2 KiB: a window of two, the least it holds.
        let a = try #require(try DecodedImage.decode(path: path, budget: 2 << 10).animation)
        let window = try #require(a.window)
        #expect(a.frames.isEmpty && a.keptFrames == 0 && window.capacity == 2)
        #expect(a.durations.map { ($0 * 1000).rounded() } == [100, 200, 300], "\(a.durations)")
        #expect(Self.colour(a.first) == "red")
        // Played through, round the loop twice, then seeks back: each time shows its own
        // frame (an export waits for a frame being decoded).
        let names = ["red", "green", "blue"]
        for t in [0.0, 0.15, 0.35, 0.65, 0.75, 0.95, 1.3, 1.5, 0.05, 0.4, 0.2, 0.2, 3600.35] {
            #expect(Self.colour(a.frame(at: t, wait: true)) == names[a.index(at: t)], "t \(t)")
        }
        // The window after frame 2 holds 2 and 0; frame 1 is not kept (and not waited for).
        _ = a.frame(at: 0.35, wait: true)
        #expect(window.peek(1) == nil)
        #expect(a.peekFrame(at: 0.15) == nil)
        let stats = window.stats
        #expect(!stats.failed && stats.late == 0, "\(stats)")
        // Without waiting (live), a frame not decoded yet leaves the last one shown: what
        // comes back is one of the animation's frames, never nothing.
        #expect(names.contains(Self.colour(a.frame(at: 0.15, wait: false))))
    }
}

extension DecodedImage {
    /// The first pixel of a raster still (premultiplied ARGB), for tests.
    var pixelForTest: UInt32? { firstPixel }
}
