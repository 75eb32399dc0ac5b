import Testing
import WatermarkModel

/// A ticker's texts as a value: a 200-pixel text in a 1000-pixel frame, copies a period of
/// 300 pixels apart (the text and a tenth of the frame).
@Suite struct TickerStateTests {
    static let (frame, block) = (1000, 200)

    @Test func oneTextEntersAtTheRightEdgeAndRepeats() {
        var t = TickerState<String>()
        #expect(t.advance(travelled: 100, blockWidth: Self.block, frameWidth: Self.frame) == [900])
        #expect(t.advance(travelled: 700, blockWidth: Self.block, frameWidth: Self.frame) == [300, 600, 900])
        #expect(t.past.isEmpty && t.origin == 0)
    }

    /// A new text never replaces a copy in view: the old text's copies go on, and the new
    /// one enters where the old one's next copy would have.
    @Test func aNewTextTakesOverAtTheNextCopy() {
        var t = TickerState<String>()
        _ = t.advance(travelled: 100, blockWidth: Self.block, frameWidth: Self.frame)
        t.replaced("A", blockX: 0, blockWidth: Self.block, travelled: 100, frameWidth: Self.frame, sameFrame: true)
        #expect(t.origin == 300 && t.past.map(\.text) == ["A"] && t.past[0].end == 300)
        // The new text is not in yet; the old one's copy moves on.
        #expect(t.advance(travelled: 150, blockWidth: Self.block, frameWidth: Self.frame).isEmpty)
        #expect(t.past[0].lefts == [850])
        #expect(t.advance(travelled: 350, blockWidth: Self.block, frameWidth: Self.frame) == [950])
        #expect(t.past[0].lefts == [650])
        // The old text has left: forgotten.
        _ = t.advance(travelled: 1300, blockWidth: Self.block, frameWidth: Self.frame)
        #expect(t.past.isEmpty)
    }

    /// Texts that change before the current one came in replace it; none piles up.
    @Test func textsThatNeverShowedLeaveNothing() {
        var t = TickerState<String>()
        _ = t.advance(travelled: 100, blockWidth: Self.block, frameWidth: Self.frame)
        t.replaced("A", blockX: 0, blockWidth: Self.block, travelled: 100, frameWidth: Self.frame, sameFrame: true)
        for (i, u) in [120.0, 180, 250].enumerated() {
            t.replaced(
                "B\(i)", blockX: 0, blockWidth: Self.block, travelled: u, frameWidth: Self.frame, sameFrame: true)
            _ = t.advance(travelled: u, blockWidth: Self.block, frameWidth: Self.frame)
        }
        #expect(t.past.map(\.text) == ["A"] && t.origin == 300)
        for i in 0..<20 {
            let u = 400 + Double(i) * 300
            t.replaced(
                "C\(i)", blockX: 0, blockWidth: Self.block, travelled: u, frameWidth: Self.frame, sameFrame: true)
        }
        #expect(t.past.count == TickerState<String>.maxPast)
    }

    @Test func aSeekBackOrANewFrameSizeStartsOver() {
        var t = TickerState<String>()
        _ = t.advance(travelled: 100, blockWidth: Self.block, frameWidth: Self.frame)
        t.replaced("A", blockX: 0, blockWidth: Self.block, travelled: 100, frameWidth: Self.frame, sameFrame: true)
        _ = t.advance(travelled: 350, blockWidth: Self.block, frameWidth: Self.frame)
        // Seeking back plays the current text from its start, as playing from there would.
        #expect(t.advance(travelled: 50, blockWidth: Self.block, frameWidth: Self.frame) == [950])
        #expect(t.past.isEmpty && t.origin == 0)
        t.replaced("B", blockX: 0, blockWidth: Self.block, travelled: 400, frameWidth: Self.frame, sameFrame: true)
        t.replaced("C", blockX: 0, blockWidth: Self.block, travelled: 900, frameWidth: 1920, sameFrame: false)
        #expect(t.past.isEmpty && t.origin == 0)
        t.replaced("D", blockX: 0, blockWidth: Self.block, travelled: 500, frameWidth: Self.frame, sameFrame: true)
        #expect(t.hasHistory)
        t.reset()
        #expect(!t.hasHistory)
    }

    /// Positions depend on the distance travelled only: placing twice at one time, or
    /// after clearing, gives the same copies.
    @Test func placesArePureFunctionsOfTheDistance() {
        var a = TickerState<String>(), b = TickerState<String>()
        for u in stride(from: 0.0, through: 3000, by: 37) {
            if u == 370 {
                a.replaced(
                    "old", blockX: 0, blockWidth: Self.block, travelled: u, frameWidth: Self.frame, sameFrame: true)
                b.replaced(
                    "old", blockX: 0, blockWidth: Self.block, travelled: u, frameWidth: Self.frame, sameFrame: true)
            }
            let x = a.advance(travelled: u, blockWidth: Self.block, frameWidth: Self.frame)
            b.clearPlaces()
            #expect(b.advance(travelled: u, blockWidth: Self.block, frameWidth: Self.frame) == x)
            #expect(a.past.map(\.lefts) == b.past.map(\.lefts))
            for left in x { #expect(left < Self.frame && left + Self.block > 0) }
        }
    }
}
