// Marks that move on their own: bouncing around the frame, or jumping to a new place every
// few seconds. Positions are pure functions of stream time (seeks and pauses give the same
// picture as playing through, and nothing drifts over hours); the layer is rendered once
// and blended at the new place.

/// How a layer moves.
public enum MotionKind: Int, Sendable, Equatable, CaseIterable {
    case none, bounce, jump, ticker
}

package struct Motion: Sendable, Equatable {
    package var kind = MotionKind.none
    /// Bounce: fraction of the frame's diagonal per second. Ticker: fraction of the frame's
    /// width per second.
    package var speed: Double = WatermarkProperties.motionSpeed.defaultValue
    /// Jump: seconds between jumps.
    package var interval: Double = WatermarkProperties.motionInterval.defaultValue
    /// Jump: the sequence of places (the same seed gives the same places in every export).
    package var seed: UInt32 = WatermarkProperties.motionSeed.defaultValue

    package init() {}

    /// Where the block's top-left corner is at `time` seconds after the layer started, for
    /// a `block`-sized block in a `frame`-sized frame whose own placement puts it at `start`;
    /// `margin` keeps it that far from every edge (pixels).
    package func origin(
        at time: Double?, start: (x: Int, y: Int), block: (width: Int, height: Int),
        frame: (width: Int, height: Int), margin: (x: Int, y: Int)
    ) -> (x: Int, y: Int) {
        let lo = (x: Double(margin.x), y: Double(margin.y))
        let hi = (x: Double(frame.width - margin.x - block.width), y: Double(frame.height - margin.y - block.height))
        guard kind != .none, let time, time.isFinite else { return start }
        let t = max(0, time)
        switch kind {
        case .none, .ticker:
            return start
        case .bounce:
            // 45° towards the frame's centre, at `speed` diagonals per second, reflecting off
            // the margins: a triangle wave per axis.
            let diagonal = (Double(frame.width * frame.width + frame.height * frame.height)).squareRoot()
            let step = (speed.isFinite ? max(0, speed) : 0) * diagonal / 2.0.squareRoot() * t
            let dirX: Double = Double(start.x) + Double(block.width) / 2 < Double(frame.width) / 2 ? 1 : -1
            let dirY: Double = Double(start.y) + Double(block.height) / 2 < Double(frame.height) / 2 ? 1 : -1
            return (
                Self.reflect(Double(start.x) + dirX * step, lo: lo.x, hi: hi.x),
                Self.reflect(Double(start.y) + dirY * step, lo: lo.y, hi: hi.y)
            )
        case .jump:
            let every = interval.isFinite ? max(0.1, interval) : 3
            let slot = UInt64(min(t / every, 1e15).rounded(.down))
            let s = UInt64(seed)
            let h = Self.mix(s &* 0x9E37_79B9_7F4A_7C15 &+ slot)
            let fx = Double(h & 0xFFFF_FFFF) / 4_294_967_296, fy = Double(h >> 32) / 4_294_967_296
            return (
                clampToInt((lo.x + fx * max(0, hi.x - lo.x)).rounded(.down)),
                clampToInt((lo.y + fy * max(0, hi.y - lo.y)).rounded(.down))
            )
        }
    }

    /// Ticker: the left edges of the copies of a `blockWidth`-wide block visible at `time`
    /// seconds after the layer started, in a `frameWidth`-wide frame. The first copy enters
    /// at the right edge at time 0 and moves left at `speed` frame widths per second; each
    /// next copy follows `tickerGap(frameWidth)` pixels after the one before. Whole pixels:
    /// the distance travelled is rounded once, so a speed of whole pixels per frame moves
    /// exactly that many every frame.
    package func tickerLefts(at time: Double?, blockWidth: Int, frameWidth: Int) -> [Int] {
        guard let u = tickerTravelled(at: time, frameWidth: frameWidth) else { return [] }
        return Self.tickerLefts(travelled: u, origin: 0, end: nil, blockWidth: blockWidth, frameWidth: frameWidth)
    }

    /// Ticker: pixels travelled `time` seconds after the layer started (rounded once).
    package func tickerTravelled(at time: Double?, frameWidth: Int) -> Double? {
        guard kind == .ticker, frameWidth > 0, let time, time.isFinite else { return nil }
        return (max(0, speed.isFinite ? speed : 0) * Double(frameWidth) * max(0, time)).rounded()
    }

    /// The left edges of one text's copies when `travelled` pixels have gone by: its first
    /// copy entered at the right edge when `origin` had, each next one a period (width and
    /// gap) later, and none enters at or after `end` (where the next text's first copy does).
    package static func tickerLefts(
        travelled: Double, origin: Double, end: Double?, blockWidth: Int, frameWidth: Int
    ) -> [Int] {
        guard blockWidth > 0, frameWidth > 0, travelled.isFinite, origin.isFinite else { return [] }
        let period = Double(blockWidth + tickerGap(frameWidth: frameWidth))
        let u = travelled - origin
        // The first copy whose right edge is still inside: W - u + k·period + width > 0.
        let first = max(0, ((u - Double(frameWidth) - Double(blockWidth)) / period).rounded(.down) + 1)
        var lefts: [Int] = []
        var k = first
        while lefts.count < 64 {
            if let end, origin + k * period >= end { break }
            let left = Double(frameWidth) - u + k * period
            if left >= Double(frameWidth) || !left.isFinite { break }
            if left + Double(blockWidth) > 0 { lefts.append(clampToInt(left)) }
            k += 1
        }
        return lefts
    }

    /// Where the next text's first copy enters: the next copy of the text now showing
    /// that has not entered when `travelled` pixels have gone by (so a new text never
    /// replaces a copy in view).
    package static func tickerNextOrigin(travelled: Double, origin: Double, blockWidth: Int, frameWidth: Int) -> Double
    {
        let period = Double(max(1, blockWidth + tickerGap(frameWidth: frameWidth)))
        let k = max(0, ((travelled - origin) / period).rounded(.up))
        return origin + k * period
    }

    /// Where a ticker's block is rendered: at the left edge of its anchor's row (a line
    /// far wider than the frame is then kept whole up to nine frame widths).
    package static func tickerPlacement(_ p: Placement) -> Placement {
        var q = p
        switch p.anchor {
        case .topLeft, .top, .topRight: q.anchor = .topLeft
        case .left, .center, .right: q.anchor = .left
        case .bottomLeft, .bottom, .bottomRight: q.anchor = .bottomLeft
        }
        q.marginX = 0
        q.x = -1
        return q
    }

    /// Pixels between one ticker copy and the next: a tenth of the frame width.
    package static func tickerGap(frameWidth: Int) -> Int { max(1, frameWidth / 10) }

    /// `p` folded into [lo, hi] as a ball bouncing between them.
    static func reflect(_ p: Double, lo: Double, hi: Double) -> Int {
        let span = hi - lo
        guard span > 0, p.isFinite else { return clampToInt(lo.rounded()) }
        var u = (p - lo).truncatingRemainder(dividingBy: 2 * span)
        if u < 0 { u += 2 * span }
        if u > span { u = 2 * span - u }
        return clampToInt((lo + u).rounded())
    }

    /// SplitMix64's finaliser: a well-spread 64-bit hash of `x`.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// For jumps with fades: the opacity factor at `time` (fading in after each jump over
    /// `fadeIn` and out before the next over `fadeOut`).
    package func jumpFade(at time: Double?, fadeIn: Double, fadeOut: Double) -> Double {
        guard kind == .jump, let time, time.isFinite, fadeIn > 0 || fadeOut > 0 else { return 1 }
        let every = interval.isFinite ? max(0.1, interval) : 3
        let phase = max(0, time).truncatingRemainder(dividingBy: every)
        var f = 1.0
        if fadeIn > 0 { f = min(f, phase / fadeIn) }
        if fadeOut > 0 { f = min(f, (every - phase) / fadeOut) }
        return min(max(f, 0), 1)
    }
}
