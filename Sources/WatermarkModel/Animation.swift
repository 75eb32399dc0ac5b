// Keyframes and easing curves. Pure values.

/// How a value moves from one keyframe to the next, as in CSS: `progress` 0...1 of the
/// time between the keyframes maps to 0...1 of the way between their values.
package enum Easing: Sendable, Equatable {
    case linear
    case easeIn
    case easeOut
    case easeInOut
    /// Holds the first keyframe's value until the next keyframe's time.
    case step
    /// CSS cubic-bezier(x1, y1, x2, y2); x1 and x2 in 0...1.
    case cubicBezier(Double, Double, Double, Double)

    package init?(name: String) {
        let n = name.lowercased().filter { $0 != " " }
        switch n {
        case "linear": self = .linear
        case "ease-in": self = .easeIn
        case "ease-out": self = .easeOut
        case "ease-in-out": self = .easeInOut
        case "step": self = .step
        default:
            guard n.hasPrefix("cubic-bezier("), n.hasSuffix(")") else { return nil }
            let args = n.dropFirst("cubic-bezier(".count).dropLast().split(
                separator: ",", omittingEmptySubsequences: false)
            let v = args.compactMap { Double($0) }
            guard v.count == 4, args.count == 4, v.allSatisfy(\.isFinite), (0...1).contains(v[0]),
                (0...1).contains(v[2])
            else {
                return nil
            }
            self = .cubicBezier(v[0], v[1], v[2], v[3])
        }
    }

    /// Eased progress for linear progress `p` (clamped to 0...1).
    package func apply(_ p: Double) -> Double {
        let t = p.isFinite ? min(max(p, 0), 1) : 0
        switch self {
        case .linear: return t
        case .step: return t >= 1 ? 1 : 0
        // The CSS keywords are these cubic-bezier curves.
        case .easeIn: return Self.bezier(0.42, 0, 1, 1, t)
        case .easeOut: return Self.bezier(0, 0, 0.58, 1, t)
        case .easeInOut: return Self.bezier(0.42, 0, 0.58, 1, t)
        case let .cubicBezier(x1, y1, x2, y2): return Self.bezier(x1, y1, x2, y2, t)
        }
    }

    /// y on the curve (0,0)-(x1,y1)-(x2,y2)-(1,1) where x = `x`: solve x(s) = x for the
    /// curve parameter s (x(s) is monotonic because x1, x2 are in 0...1), then y(s).
    static func bezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        func coord(_ a: Double, _ b: Double, _ s: Double) -> Double {
            let u = 1 - s
            return 3 * u * u * s * a + 3 * u * s * s * b + s * s * s
        }
        func slope(_ a: Double, _ b: Double, _ s: Double) -> Double {
            let u = 1 - s
            return 3 * u * u * a + 6 * u * s * (b - a) + 3 * s * s * (1 - b)
        }
        var s = x
        // Newton steps, falling back to bisection where the slope is flat.
        for _ in 0..<8 {
            let err = coord(x1, x2, s) - x
            if abs(err) < 1e-9 { return coord(y1, y2, s) }
            let d = slope(x1, x2, s)
            if abs(d) < 1e-6 { break }
            s = min(max(s - err / d, 0), 1)
        }
        var lo = 0.0, hi = 1.0
        s = x
        for _ in 0..<60 {
            let v = coord(x1, x2, s)
            if abs(v - x) < 1e-9 { break }
            if v < x { lo = s } else { hi = s }
            s = (lo + hi) / 2
        }
        return coord(y1, y2, s)
    }
}

/// The properties a keyframe can set.
package enum AnimatedProperty: String, CaseIterable, Sendable {
    case x, y, opacity, scale, rotation

    /// The values a keyframe may give: the range of the layer property of the same name
    /// (scale, keyframes only: `Keyframe.scaleRange`).
    package var range: ClosedRange<Double>? {
        switch self {
        case .x: WatermarkProperties.x.definition.userRange
        case .y: WatermarkProperties.y.definition.userRange
        case .opacity: WatermarkProperties.opacity.definition.userRange
        case .rotation: WatermarkProperties.rotation.definition.userRange
        case .scale: Keyframe.scaleRange
        }
    }
}

package struct Keyframe: Sendable, Equatable {
    /// What `scale` may be: it multiplies text-size and width.
    package static let scaleRange: ClosedRange<Double> = 0...10

    /// Seconds of stream time.
    package var time: Double
    package var values: [AnimatedProperty: Double]
    /// The easing of the segment that starts at this keyframe.
    package var easing: Easing

    package init(time: Double, values: [AnimatedProperty: Double], easing: Easing = .linear) {
        self.time = time
        self.values = values
        self.easing = easing
    }
}

/// A layer's keyframes, sorted by time. A property is interpolated between the
/// keyframes that set it, with the easing of the earlier one; it holds its first value
/// before the first of them and its last value after the last. The keyframes play
/// `repeat` times in all (as CSS `animation-iteration-count`; nil: for ever), every second
/// play backwards with `alternate` (CSS `animation-direction: alternate`); after the last
/// play the track holds where that play ended.
package struct KeyframeTrack: Sendable, Equatable {
    package private(set) var keyframes: [Keyframe]
    /// Plays in all: 1 plays once; nil: infinite.
    package var repeatCount: Int? = 1
    package var alternate = false

    /// The most plays a config may ask for (beyond it, "infinite").
    package static let maxRepeat = 1_000_000

    package init(_ keyframes: [Keyframe] = [], repeatCount: Int? = 1, alternate: Bool = false) {
        // A stable sort: keyframes at the same time keep their order (the later wins).
        self.keyframes = keyframes.enumerated().sorted {
            $0.element.time != $1.element.time ? $0.element.time < $1.element.time : $0.offset < $1.offset
        }.map(\.element)
        self.repeatCount = repeatCount.map { min(max($0, 1), Self.maxRepeat) }
        self.alternate = alternate
    }

    /// Stream time `t` mapped into the first play's span: the plays repeat the span from
    /// the first keyframe to the last, every second one backwards when alternating.
    package func playTime(_ t: Double) -> Double {
        guard repeatCount != 1, let first = keyframes.first?.time, let last = keyframes.last?.time else { return t }
        let span = last - first
        guard span > 0, t > first else { return t }
        let elapsed = t - first
        var play = (elapsed / span).rounded(.down)
        var phase = elapsed - play * span
        if let count = repeatCount, play >= Double(count) {
            // Done: hold the end of the last play.
            play = Double(count - 1)
            phase = span
        }
        let backwards = alternate && play.truncatingRemainder(dividingBy: 2) == 1
        return first + (backwards ? span - phase : phase)
    }

    package var isEmpty: Bool { keyframes.isEmpty }

    package func animates(_ property: AnimatedProperty) -> Bool {
        keyframes.contains { $0.values[property] != nil }
    }

    /// The property's value at time `t`, or nil if no keyframe sets it.
    package func value(_ property: AnimatedProperty, at time: Double) -> Double? {
        let t = playTime(time)
        var previous: Keyframe?
        for k in keyframes {
            guard let v = k.values[property] else { continue }
            if k.time > t {
                guard let p = previous, let pv = p.values[property] else { return v }
                let span = k.time - p.time
                let progress = span > 0 ? (t - p.time) / span : 1
                return pv + (v - pv) * p.easing.apply(progress)
            }
            previous = k
        }
        return previous?.values[property]
    }
}
