import CGStreamer
import CGstCheck
import CShim
import GstTestSupport
import Testing

/// Mask and follow layers of a config document, drawn by the element: a mask moved by its
/// keyframes and shown in its time window, and two follow layers with their own types.
@Suite struct HidingLayerElementTests {
    typealias Roi = RoiElementTests.Roi

    /// An 80×60 white mask of 0.25 × 0.5 of the frame (20×30 pixels), moved right by 0.25
    /// (20 pixels) at 1 s and shown from 0 to 2 s.
    @Test func aMaskLayerMovesWithItsKeyframesAndKeepsItsWindow() throws {
        let config = """
            { "layers": [ { "mask": [0.125, 0.25, 0.25, 0.5], "color": "#FFFFFF", "end": 2,
              "keyframes": [ { "time": 0, "x": 0 }, { "time": 1, "x": 0.25 } ] } ] }
            """
        let h = RoiElementTests.bgraHarness(["config-data": config])
        for (t, left) in [(0.0, 10), (1.0, 30), (1.5, 30), (2.5, -1)] {
            let frame = try #require(
                h.pushZeroed(bytes: 80 * 60 * 4, pts: GstClockTime(t * 1e9)) { _ in })
            for y in 0..<60 {
                for x in 0..<80 {
                    let inside = left >= 0 && (left..<left + 20).contains(x) && (15..<45).contains(y)
                    #expect(frame.bgra(x, y).g == (inside ? 255 : 0), "t \(t) at \(x),\(y)")
                }
            }
        }
    }

    /// Two follow layers: faces filled white, cars outlined in green; a layer drawn after
    /// them (text) is on top of the fill.
    @Test func followLayersDrawTheirOwnTypes() throws {
        let config = """
            { "layers": [
              { "follow": "roi", "roi-types": ["face"], "fill": "solid", "color": "#FFFFFF" },
              { "follow": "roi", "roi-types": ["car"], "box-color": "0xFF00FF00", "box-width": 0.05 }
            ] }
            """
        let h = RoiElementTests.bgraHarness(["config-data": config])
        for n in 0..<2 {
            let face = Roi("face", UInt32(5 + 10 * n), 10, 12, 12), car = Roi("car", 45, UInt32(20 + 6 * n), 20, 10)
            let frame = try #require(RoiElementTests.push(h, [face, car], frame: n))
            for y in 0..<60 {
                for x in 0..<80 {
                    let filled = (Int(face.x)..<Int(face.x + face.w)).contains(x) && (10..<22).contains(y)
                    let boxed = RoiElementTests.inBox(x, y, car, 3)
                    let p = frame.bgra(x, y)
                    #expect(p.g == (filled || boxed ? 255 : 0), "frame \(n) at \(x),\(y)")
                    #expect(p.r == (filled ? 255 : 0), "frame \(n) at \(x),\(y)")
                }
            }
        }
    }
}
