// A ticker's texts over time, as a value: which text each copy shows while the text changes
// under it. A new text takes over at the next copy that enters, never one in view; copies
// of the texts before it go on until they have left. Positions are pure functions of the
// pixels travelled (see `Motion.tickerTravelled`), so a seek gives what playing gives.

/// The ticker state of one layer. `Text` is what the caller draws a past text with (the
/// element's converted pixels); this type only says where its copies go.
package struct TickerState<Text> {
    /// A text a newer one has followed, and where its copies are this frame.
    package struct Past {
        package let text: Text
        /// Block origin x (displayed) it was rendered at, and its width.
        package let blockX: Int
        package let width: Int
        /// Pixels travelled when its first copy entered, and when the next text's did.
        package let origin: Double
        package let end: Double
        /// The left edges (displayed x) of its copies this frame.
        package var lefts: [Int] = []
    }

    /// At most this many texts are remembered (a text changing every frame would grow
    /// the list without bound; older ones have long left the frame).
    package static var maxPast: Int { 8 }

    /// Pixels travelled when the current text's first copy entered.
    package private(set) var origin = 0.0
    /// The texts before the current one whose copies are still in view, oldest first.
    package private(set) var past: [Past] = []
    /// Pixels travelled at the previous frame (less now: a seek back).
    private var last = 0.0

    package init() {}

    /// Whether any text but the first is remembered (what `reset` forgets).
    package var hasHistory: Bool { !past.isEmpty || origin != 0 }

    /// The layer is no ticker this frame, or has no time: nothing to remember.
    package mutating func reset() {
        past.removeAll()
        origin = 0
        last = 0
    }

    /// Before placing: no copy of any past text is anywhere yet.
    package mutating func clearPlaces() {
        for i in past.indices { past[i].lefts.removeAll(keepingCapacity: true) }
    }

    /// The layer was rendered again (a new text or look) at `travelled` pixels. `previous`
    /// is the text it replaces, rendered at `blockX` with `blockWidth`; `sameFrame` says
    /// the frame's size and orientation did not change (else everything starts over).
    package mutating func replaced(
        _ previous: @autoclosure () -> Text, blockX: Int, blockWidth: Int, travelled u: Double, frameWidth: Int,
        sameFrame: Bool
    ) {
        guard sameFrame else {
            past.removeAll()
            origin = 0
            return
        }
        // The current text has not come in yet: the newer one simply takes its place.
        if u < origin { return }
        let next = Motion.tickerNextOrigin(travelled: u, origin: origin, blockWidth: blockWidth, frameWidth: frameWidth)
        past.append(Past(text: previous(), blockX: blockX, width: blockWidth, origin: origin, end: next))
        if past.count > Self.maxPast { past.removeFirst() }
        origin = next
    }

    /// Places every copy at `travelled` pixels: the past texts' copies go into their
    /// `lefts`, and the current text's left edges are returned (empty: none in view yet).
    package mutating func advance(travelled u: Double, blockWidth: Int, frameWidth: Int) -> [Int] {
        if u < last {
            origin = 0
            past.removeAll()
        }
        last = u
        for i in past.indices {
            past[i].lefts = Motion.tickerLefts(
                travelled: u, origin: past[i].origin, end: past[i].end, blockWidth: past[i].width,
                frameWidth: frameWidth)
        }
        past.removeAll { $0.lefts.isEmpty && u >= $0.end }
        return Motion.tickerLefts(
            travelled: u, origin: origin, end: nil, blockWidth: blockWidth, frameWidth: frameWidth)
    }
}
