import Testing
import WatermarkModel

/// Regions of interest: labels, the rectangle grown and clipped, the outline and where a
/// label goes.
@Suite struct RoiModelTests {
    let face = RegionOfInterest(type: "face", id: 7, x: 10, y: 20, width: 40, height: 30, confidence: 0.876)

    @Test func labelPlaceholders() {
        #expect(RoiLabel("{roi:type} #{roi:id}").text(for: face) == "face #7")
        #expect(RoiLabel("{roi:confidence}%").text(for: face) == "88%")
        #expect(RoiLabel("{roi:confidence:%.1f}%").text(for: face) == "87.6%")
        var unsure = face
        unsure.confidence = nil
        #expect(RoiLabel("{roi:type} {roi:confidence}").text(for: unsure) == "face ")
        // Braces, unknown names and a format that is not one conversion stay as written.
        #expect(
            RoiLabel("{{x}} {roi:size} {roi:confidence:%s}").text(for: face) == "{x} {roi:size} {roi:confidence:%s}")
        #expect(RoiLabel("plain").isStatic && !RoiLabel("{roi:id}").isStatic)
        #expect(RoiLabel("{roi:type}").usesType && !RoiLabel("{roi:id}").usesType)
    }

    @Test func filterByTypeAndConfidence() {
        var follow = RoiFollow()
        follow.types = ["face", "license-plate"]
        follow.minConfidence = 0.5
        #expect(follow.accepts(type: "face", confidence: 0.6))
        #expect(!follow.accepts(type: "face", confidence: 0.4))
        #expect(follow.accepts(type: "license-plate", confidence: nil))
        #expect(!follow.accepts(type: "car", confidence: 0.9))
    }

    @Test func rectangleGrownAndClipped() {
        var follow = RoiFollow()
        #expect(follow.rect(face, width: 100, height: 100) == PixelRect(x: 10, y: 20, width: 40, height: 30))
        follow.grow = 0.1
        #expect(follow.rect(face, width: 100, height: 100) == PixelRect(x: 6, y: 17, width: 48, height: 36))
        follow.grow = 0.5
        #expect(follow.rect(face, width: 50, height: 100) == PixelRect(x: 0, y: 5, width: 50, height: 60))
        let outside = RegionOfInterest(type: "face", x: 200, y: 0, width: 10, height: 10)
        #expect(follow.rect(outside, width: 100, height: 100) == nil)
        let flat = RegionOfInterest(type: "face", x: 5, y: 5, width: 10, height: 0)
        #expect(follow.rect(flat, width: 100, height: 100) == nil)
    }

    @Test func boxIsOutsideTheRectangle() {
        let r = PixelRect(x: 10, y: 10, width: 20, height: 10)
        let bands = RoiFollow.box(around: r, thickness: 2, width: 100, height: 100)
        let spans = MaskSpans(rects: bands, width: 100, height: 100)
        for y in 0..<40 {
            for x in 0..<50 {
                let outer = (8..<32).contains(x) && (8..<22).contains(y)
                let inner = (10..<30).contains(x) && (10..<20).contains(y)
                #expect(spans.contains(x: x, y: y) == (outer && !inner), "at \(x),\(y)")
            }
        }
        #expect(spans.area == 24 * 14 - 20 * 10)
        // At the frame's corner the outline is clipped.
        let corner = RoiFollow.box(
            around: PixelRect(x: 0, y: 0, width: 5, height: 5), thickness: 3, width: 100, height: 100)
        #expect(MaskSpans(rects: corner, width: 100, height: 100).area == 8 * 8 - 25)
        var follow = RoiFollow()
        #expect(follow.boxThickness(shownHeight: 1080) == 0)
        follow.boxColor = ARGBColor(argb: 0xFF00_FF00)
        #expect(follow.boxThickness(shownHeight: 1080) == 4)
        #expect(follow.boxThickness(shownHeight: 100) == 1)
    }

    @Test func labelGoesAboveTheBoxInsideTheFrame() {
        let outer = PixelRect(x: 100, y: 50, width: 80, height: 60)
        let frame = (width: 640, height: 360)
        #expect(RoiFollow.labelOrigin(outer: outer, size: (40, 20), frame: frame) == (100, 30))
        #expect(RoiFollow.labelOrigin(outer: outer, size: (40, 20), anchor: .bottomRight, frame: frame) == (140, 110))
        // At the top: moved down into the frame; at the right edge: moved left.
        let top = PixelRect(x: 620, y: 5, width: 20, height: 20)
        #expect(RoiFollow.labelOrigin(outer: top, size: (60, 20), frame: frame) == (580, 0))
    }

    @Test func overlappingRectanglesMerge() {
        let spans = MaskSpans(
            rects: [PixelRect(x: 0, y: 0, width: 10, height: 2), PixelRect(x: 5, y: 1, width: 10, height: 2)],
            width: 12, height: 4)
        #expect(
            spans.spans == [
                MaskSpan(y: 0, x0: 0, x1: 10), MaskSpan(y: 1, x0: 0, x1: 12), MaskSpan(y: 2, x0: 5, x1: 12),
            ])
    }
}

extension RoiModelTests {
    /// Overlapping rectangles are one group (a chain of overlaps included); apart, each its own.
    @Test func regionsThatOverlapAreFilledTogether() {
        let r = [
            PixelRect(x: 0, y: 0, width: 10, height: 10), PixelRect(x: 50, y: 50, width: 10, height: 10),
            PixelRect(x: 8, y: 8, width: 10, height: 10), PixelRect(x: 16, y: 16, width: 4, height: 4),
            PixelRect(x: 100, y: 0, width: 5, height: 5),
        ]
        let groups = RoiFollow.groups(r)
        #expect(groups == [[r[0], r[2], r[3]], [r[1]], [r[4]]])
        #expect(RoiFollow.groups([]).isEmpty)
    }
}

extension RoiModelTests {
    /// One object described by an ROI meta and an analytics detection: the same box, or one
    /// a pixel off at 100 × 80 (IoU ≥ 0.9), whatever the type; neighbours and nested boxes are
    /// other objects.
    @Test func sameObjectIsTheSameBoxWithinTenPercent() {
        let a = RegionOfInterest(type: "face", x: 100, y: 50, width: 100, height: 80)
        func at(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> RegionOfInterest {
            RegionOfInterest(type: "person", id: 9, x: x, y: y, width: w, height: h)
        }
        #expect(a.isSameObject(as: at(100, 50, 100, 80)))
        #expect(a.isSameObject(as: at(101, 51, 100, 80)) && a.isSameObject(as: at(102, 50, 98, 80)))
        #expect(!a.isSameObject(as: at(110, 50, 100, 80)))
        #expect(!a.isSameObject(as: at(120, 60, 60, 50)))
        #expect(!a.isSameObject(as: at(300, 50, 100, 80)) && !a.isSameObject(as: at(100, 50, 0, 0)))
    }
}
