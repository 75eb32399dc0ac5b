import TestSupport
import Testing
import WatermarkModel

/// Bouncing and jumping marks: positions are pure functions of time, inside the margins.
struct MotionTests {
    static let frame = (width: 1920, height: 1080), block = (width: 300, height: 120), margin = (x: 58, y: 32)

    static func motion(_ kind: MotionKind, speed: Double = 0.1, interval: Double = 3, seed: UInt32 = 0) -> Motion {
        var m = Motion()
        m.kind = kind
        m.speed = speed
        m.interval = interval
        m.seed = seed
        return m
    }

    static func inside(_ p: (x: Int, y: Int)) -> Bool {
        p.x >= margin.x && p.x <= frame.width - margin.x - block.width && p.y >= margin.y
            && p.y <= frame.height - margin.y - block.height
    }

    @Test(arguments: [MotionKind.bounce, .jump])
    func sameTimeSamePlaceAndAlwaysInsideTheMargins(kind: MotionKind) {
        let m = Self.motion(kind, speed: 0.37)
        let start = (x: 1562, y: 928)
        var random = TestRandom(seed: 42)
        for _ in 0..<2000 {
            let t = Double(random.next(10_000_000)) / 100  // up to ~28 hours
            let a = m.origin(at: t, start: start, block: Self.block, frame: Self.frame, margin: Self.margin)
            let b = m.origin(at: t, start: start, block: Self.block, frame: Self.frame, margin: Self.margin)
            #expect(a == b && Self.inside(a), "\(kind) at \(t): \(a)")
        }
    }

    @Test func bounceStartsAtItsPlaceHeadsForTheCentreAndReflects() {
        let m = Self.motion(.bounce, speed: 0.1)
        let start = (x: 1562, y: 928)  // bottom-right
        let o = { (t: Double) in
            m.origin(at: t, start: start, block: Self.block, frame: Self.frame, margin: Self.margin)
        }
        #expect(o(0) == start)
        // 0.1 diagonals (220 px) per second at 45°: 156 px per axis per second, up and left.
        let one = o(1)
        #expect(abs(one.x - (start.x - 156)) <= 1 && abs(one.y - (start.y - 156)) <= 1, "\(one)")
        // Reaches the top margin (928 - 32 = 896 px up) after 5.74 s and comes back down.
        #expect(o(5.74).y <= Self.margin.y + 2 && o(7).y > o(6).y, "\(o(5.74)) \(o(6)) \(o(7))")
        // Periodic: the same place after a whole round trip on both axes is not required, but
        // no drift: the place at t is the same however it was reached.
        #expect(o(3600 * 10 + 0.5) == o(3600 * 10 + 0.5))
    }

    @Test func jumpsEveryIntervalToPlacesFromTheSeed() {
        let a = Self.motion(.jump, interval: 2, seed: 7), b = Self.motion(.jump, interval: 2, seed: 8)
        let start = (x: 0, y: 0)
        func places(_ m: Motion) -> [[Int]] {
            (0..<20).map { k in
                let p = m.origin(
                    at: Double(k) * 2 + 0.5, start: start, block: Self.block, frame: Self.frame, margin: Self.margin)
                return [p.x, p.y]
            }
        }
        // Within one interval the place holds; the next interval has another.
        #expect(
            a.origin(at: 4.1, start: start, block: Self.block, frame: Self.frame, margin: Self.margin)
                == a.origin(at: 5.9, start: start, block: Self.block, frame: Self.frame, margin: Self.margin))
        #expect(places(a) == places(a) && places(a) != places(b))
        #expect(Set(places(a).map { $0[0] }).count > 10, "places spread: \(places(a))")
    }

    @Test func jumpFadesAroundEachJump() {
        let m = Self.motion(.jump, interval: 4)
        #expect(m.jumpFade(at: 0.25, fadeIn: 0.5, fadeOut: 0.5) == 0.5)
        #expect(m.jumpFade(at: 2, fadeIn: 0.5, fadeOut: 0.5) == 1)
        #expect(m.jumpFade(at: 7.75, fadeIn: 0.5, fadeOut: 0.5) == 0.5)
    }

    @Test func configAndPropertiesSetIt() throws {
        let json = #"{ "layers": [ { "text": "id 42", "motion": "jump", "motion-interval": 5, "motion-seed": 9 } ] }"#
        let layer = try #require(try LayerConfig.parse(Array(json.utf8), file: "m.json", directory: "/").first)
        #expect(layer.motion.kind == .jump && layer.motion.interval == 5 && layer.motion.seed == 9 && layer.moves)
        #expect(throws: ConfigError.self) {
            try LayerConfig.parse(
                Array(#"{ "layers": [ { "text": "x", "motion": "spin" } ] }"#.utf8), file: "m", directory: "/")
        }
    }

    /// A ticker: the first copy enters at the right edge at time 0; copies follow one gap
    /// apart; every copy listed overlaps the frame and none that does is missing; a speed of
    /// whole pixels per frame moves exactly that many every frame, for hours.
    @Test func tickerCopiesEnterFromTheRightOneGapApartInWholePixels() {
        let w = 1280, block = 500
        let gap = Motion.tickerGap(frameWidth: w)
        var m = Self.motion(.ticker, speed: 2.0 * 30 / Double(w))  // 2 px per frame at 30 fps
        #expect(m.tickerLefts(at: 0, blockWidth: block, frameWidth: w).isEmpty)
        #expect(m.tickerLefts(at: 1.0 / 30, blockWidth: block, frameWidth: w) == [w - 2])
        for n in [1, 2, 3, 1000, 1001, 3_000_000] {
            // Frame n's time as a stream's nanosecond timestamps give it.
            let t = Double(UInt64(n) * 1_000_000_000 / 30) / 1e9
            let lefts = m.tickerLefts(at: t, blockWidth: block, frameWidth: w)
            let travelled = 2 * n
            for left in lefts {
                #expect((w - travelled - left) % (block + gap) == 0, "frame \(n): \(left)")
                #expect(left < w && left + block > 0)
            }
            // Every copy that overlaps the frame is listed.
            let expected = (0...(travelled / (block + gap) + 1)).map { w - travelled + $0 * (block + gap) }
                .filter { $0 < w && $0 + block > 0 }
            #expect(lefts == expected, "frame \(n)")
        }
        // A block wider than the frame: one copy at a time until the next one comes in.
        m.speed = 0.5
        let wide = 3000
        for t in stride(from: 0.1, through: 20, by: 0.7) {
            let lefts = m.tickerLefts(at: t, blockWidth: wide, frameWidth: w)
            #expect(!lefts.isEmpty && lefts.count <= 2)
            #expect(zip(lefts, lefts.dropFirst()).allSatisfy { $1 - $0 == wide + gap })
        }
        // Rendered at the left edge of its anchor's row, wherever it was anchored.
        let p = Motion.tickerPlacement(Placement(anchor: .bottomRight, marginX: 0.05, marginY: 0.03, x: 0.7, y: -1))
        #expect(p.anchor == .bottomLeft && p.marginX == 0 && p.x < 0 && p.marginY == 0.03)
    }
}
