import Testing
import WatermarkModel

/// Mask regions: the text the `mask` property reads, and which pixels a region covers.
@Suite struct MaskModelTests {
    @Test func rectanglesAndPolygonsAreRead() throws {
        let regions = try MaskRegion.parseList("0.1,0.2,0.3,0.4; 0.5,0.5 0.9,0.6  0.7,0.9;").get()
        #expect(
            regions == [
                .rectangle(x: 0.1, y: 0.2, width: 0.3, height: 0.4),
                .polygon([MaskPoint(0.5, 0.5), MaskPoint(0.9, 0.6), MaskPoint(0.7, 0.9)]),
            ])
        #expect(try MaskRegion.parseList("").get().isEmpty)
        #expect(try MaskRegion.parseList("  ").get().isEmpty)
        // Text written back reads the same.
        let text = regions.map(\.text).joined(separator: ";")
        #expect(try MaskRegion.parseList(text).get() == regions)
    }

    @Test func faultsNameTheirPosition() {
        func fault(_ text: String) -> MaskSyntaxError? {
            if case .failure(let e) = MaskRegion.parseList(text) { return e }
            return nil
        }
        #expect(fault("0.1,0.1,0.3")?.position == 1)
        #expect(fault("0.1,0.1,0.3")?.message.contains("found 3 numbers") == true)
        #expect(fault("0,0,1,1;0.1,x,0.2,0.2")?.position == 13)
        #expect(fault("0,0,1,1;0.1,x,0.2,0.2")?.description.contains("\"x\" is not a number") == true)
        #expect(fault("0,0 1,1")?.message.contains("three or more points") == true)
        #expect(fault("0,0 1,1 1")?.position == 9)
        #expect(fault(";0,0,1,1")?.message == "an empty region")
        #expect(fault("0,0,0,1")?.message.contains("above 0") == true)
        #expect(fault("0,0,,1")?.position == 5)
        #expect(fault("0,0,nan,1") != nil)
        #expect(fault("0,0,1e300,1") != nil)
    }

    /// A pixel is inside when its centre is: a rectangle's edges at fractional positions.
    @Test func rectangleCoversThePixelsWhoseCentresAreInside() {
        // 0.1 × 20 = 2 … 0.5 × 20 = 10: pixels 2..<10 (centres 2.5 … 9.5); rows 0.25 × 8 = 2 … 6.
        let spans = MaskSpans([.rectangle(x: 0.1, y: 0.25, width: 0.4, height: 0.5)], width: 20, height: 8)
        #expect(spans.spans == (2..<6).map { MaskSpan(y: $0, x0: 2, x1: 10) })
        // 0.13 × 20 = 2.6: pixel 2's centre (2.5) is outside, 3's inside.
        let off = MaskSpans([.rectangle(x: 0.13, y: 0, width: 0.1, height: 1)], width: 20, height: 1)
        #expect(off.spans == [MaskSpan(y: 0, x0: 3, x1: 5)])
    }

    @Test func regionsPastTheEdgeAreClippedAndOverlapsMerged() {
        let spans = MaskSpans(
            [.rectangle(x: -0.5, y: -0.5, width: 1, height: 1), .rectangle(x: 0.25, y: 0, width: 0.5, height: 0.25)],
            width: 8, height: 8)
        #expect(spans.spans.first == MaskSpan(y: 0, x0: 0, x1: 6))
        #expect(spans.spans.count == 4)
        #expect(spans.area == 6 + 6 + 4 + 4)
        #expect(MaskSpans([.rectangle(x: 2, y: 2, width: 1, height: 1)], width: 8, height: 8).spans.isEmpty)
    }

    /// A triangle covers exactly the pixels whose centres are inside it.
    @Test func triangleCoversExactlyTheCentresInside() {
        let (w, h) = (97, 61)
        let t = [MaskPoint(0.113, 0.071), MaskPoint(0.871, 0.337), MaskPoint(0.289, 0.943)]
        let spans = MaskSpans([.polygon(t)], width: w, height: h)
        let p = t.map { (x: $0.x * Double(w), y: $0.y * Double(h)) }
        func side(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double), _ x: Double, _ y: Double) -> Double {
            (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x)
        }
        var inside = 0
        for y in 0..<h {
            for x in 0..<w {
                let (cx, cy) = (Double(x) + 0.5, Double(y) + 0.5)
                let s = [side(p[0], p[1], cx, cy), side(p[1], p[2], cx, cy), side(p[2], p[0], cx, cy)]
                let isInside = s.allSatisfy { $0 > 0 } || s.allSatisfy { $0 < 0 }
                if isInside { inside += 1 }
                #expect(spans.contains(x: x, y: y) == isInside, "pixel \(x),\(y)")
            }
        }
        #expect(inside > 1000 && spans.area == inside)
    }

    /// Coordinates are the displayed picture's: on a frame shown turned, the region lands on
    /// the stored pixels that show there.
    @Test func regionsFollowTheOrientation() {
        let (w, h) = (12, 8)
        let region = MaskRegion.rectangle(x: 0.0, y: 0.0, width: 0.5, height: 0.25)
        for o in [ImageOrientation.rotate90, .rotate180, .rotate270, .flipRotate0, .flipRotate90] {
            let spans = MaskSpans([region], width: w, height: h, orientation: o)
            let shown = o.displayedSize(width: w, height: h)
            let plain = MaskSpans([region], width: shown.width, height: shown.height)
            var count = 0
            for v in 0..<shown.height {
                for u in 0..<shown.width where plain.contains(x: u, y: v) {
                    let s = o.stored(x: u, y: v, width: w, height: h)
                    #expect(spans.contains(x: s.x, y: s.y), "\(o): displayed \(u),\(v)")
                    count += 1
                }
            }
            #expect(spans.area == count, "\(o)")
        }
    }
}
