import TestSupport
import Testing
import WatermarkModel

struct LayoutTests {
    static let resolutions = [(640, 360), (1280, 720), (1920, 1080), (1080, 1920), (3840, 2160), (1919, 1079)]

    @Test(arguments: Anchor.allCases)
    func anchorsPlaceBlockByMargins(anchor: Anchor) {
        for (w, h) in Self.resolutions {
            let bw = w / 10, bh = h / 20
            let p = Placement(anchor: anchor, marginX: 0.03, marginY: 0.05)
            let o = LayerLayout.origin(blockWidth: bw, blockHeight: bh, frameWidth: w, frameHeight: h, placement: p)
            let mx = Int((0.03 * Double(w)).rounded()), my = Int((0.05 * Double(h)).rounded())
            switch anchor.fx {
            case 0: #expect(o.x == mx)
            case 1: #expect(abs(o.x + bw - (w - mx)) <= 1)
            default: #expect(abs(o.x - (w - bw) / 2) <= 1)
            }
            switch anchor.fy {
            case 0: #expect(o.y == my)
            case 1: #expect(abs(o.y + bh - (h - my)) <= 1)
            default: #expect(abs(o.y - (h - bh) / 2) <= 1)
            }
        }
    }

    @Test(arguments: Anchor.allCases)
    func explicitPositionPutsAnchorPointThere(anchor: Anchor) {
        let (w, h) = (1920, 1080)
        let p = Placement(anchor: anchor, marginX: 0.4, marginY: 0.4, x: 0.25, y: 0.75)
        let o = LayerLayout.origin(blockWidth: 200, blockHeight: 100, frameWidth: w, frameHeight: h, placement: p)
        // The anchor point of the block (its corner/edge/centre) is at (0.25 W, 0.75 H).
        #expect(Double(o.x) + anchor.fx * 200 == 480)
        #expect(Double(o.y) + anchor.fy * 100 == 810)
    }

    @Test func bottomRightDefaultAt1080p() {
        let o = LayerLayout.origin(
            blockWidth: 230, blockHeight: 80, frameWidth: 1920, frameHeight: 1080, placement: Placement())
        #expect(o.x == 1920 - 58 - 230)
        #expect(o.y == 1080 - 32 - 80)
    }

    @Test func nonFiniteValuesDoNotTrap() {
        let p = Placement(anchor: .bottomRight, marginX: .nan, marginY: .infinity, x: .nan, y: -.infinity)
        let o = LayerLayout.origin(blockWidth: 10, blockHeight: 10, frameWidth: 100, frameHeight: 100, placement: p)
        #expect(o.x == 90)
        #expect(o.y == 90)
        #expect(clampToInt(.nan) == 0)
        #expect(clampToInt(1e300) == 1_073_741_824)
    }

    @Test func blockStacksImageAboveTextAlignedByAnchor() {
        let right = BlockLayout(image: (100, 50), text: (300, 40), gap: 10, alignment: 1)
        #expect(right.bounds == PixelRect(x: 0, y: 0, width: 300, height: 100))
        #expect(right.image == PixelRect(x: 200, y: 0, width: 100, height: 50))
        #expect(right.text == PixelRect(x: 0, y: 60, width: 300, height: 40))
        let centre = BlockLayout(image: (100, 50), text: (300, 40), gap: 10, alignment: 0.5)
        #expect(centre.image?.x == 100)
        let textOnly = BlockLayout(image: nil, text: (300, 40), gap: 10, alignment: 0)
        #expect(textOnly.bounds.height == 40)
        #expect(textOnly.text?.y == 0)
        // Image and text never overlap.
        if let i = right.image, let t = right.text { #expect(i.intersection(t).isEmpty) }
    }

    @Test func rectMaths() {
        let a = PixelRect(x: -10, y: 5, width: 30, height: 10)
        #expect(
            a.intersection(PixelRect(x: 0, y: 0, width: 100, height: 100))
                == PixelRect(x: 0, y: 5, width: 20, height: 10))
        #expect(a.intersection(PixelRect(x: 100, y: 100, width: 5, height: 5)).isEmpty)
        #expect(LayerLayout.alignDown(7, to: 2) == 6)
        #expect(LayerLayout.alignDown(-3, to: 2) == -4)
        #expect(LayerLayout.alignDown(7, to: 1) == 7)
    }
}

struct ColorTests {
    @Test(arguments: [
        ("#FF0000", 0xFFFF_0000 as UInt32), ("#ff000080", 0x80FF_0000), ("#0f0", 0xFF00_FF00),
        ("white", 0xFFFF_FFFF), ("Black", 0xFF00_0000), ("0x80112233", 0x8011_2233),
        ("0x112233", 0xFF11_2233), ("4294967295", 0xFFFF_FFFF), ("  transparent ", 0),
    ])
    func parses(text: String, argb: UInt32) {
        #expect(ARGBColor(parsing: text)?.argb == argb)
    }

    @Test(arguments: ["", "#12345", "#GGGGGG", "0x", "0x123456789", "bluish", "-1", "#"])
    func rejects(text: String) {
        #expect(ARGBColor(parsing: text) == nil)
    }

    @Test func roundTrips() {
        let c = ARGBColor(argb: 0x8012_3456)
        #expect(c.red == 0x12 && c.green == 0x34 && c.blue == 0x56 && c.alpha == 0x80)
        #expect(c.description == "#12345680")
        #expect(ARGBColor(parsing: c.description) == c)
    }
}
