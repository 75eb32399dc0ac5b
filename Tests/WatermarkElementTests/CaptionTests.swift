import CGStreamer
import CShim
import Foundation
import GstTestSupport
import Testing
import WatermarkModel

/// Captions: the box behind text, alignment, wrapping, spacing, steady digits, colour
/// emoji. Frames are black; the element's output is read back as BGRA.
@Suite struct CaptionTests {
    static let width = 640, height = 360

    /// One black frame of `format` through the element with `properties`, as BGRA.
    static func render(_ properties: [String: String], format: String = "BGRA") throws -> Frame {
        let props = properties.map { "\($0.key)=\"\($0.value)\"" }.sorted().joined(separator: " ")
        let h = Harness(
            "watermark overlay-mode=blend outline-width=0 \(props) ! videoconvert ! capsfilter caps=video/x-raw,format=BGRA"
        )
        return try #require(
            h.pushTestFrame(caps: "video/x-raw,format=\(format),width=\(width),height=\(height),framerate=30/1"))
    }

    static func isBlack(_ p: (b: Int, g: Int, r: Int, a: Int)) -> Bool { p.r < 24 && p.g < 24 && p.b < 24 }
    static func isWhite(_ p: (b: Int, g: Int, r: Int, a: Int)) -> Bool { p.r > 200 && p.g > 200 && p.b > 200 }

    /// Rows of bright text, grouped into lines (runs of rows separated by empty rows), each
    /// with its leftmost and rightmost bright column.
    static func lines(_ f: Frame, in cols: Range<Int> = 0..<CaptionTests.width) -> [(top: Int, left: Int, right: Int)] {
        var out: [(Int, Int, Int)] = []
        var current: (top: Int, left: Int, right: Int)?
        for y in 0..<f.height {
            let xs = cols.filter { isWhite(f.bgra($0, y)) }
            if let first = xs.first, let last = xs.last {
                current = current.map { ($0.top, min($0.left, first), max($0.right, last)) } ?? (y, first, last)
            } else if let c = current {
                out.append(c)
                current = nil
            }
        }
        if let c = current { out.append(c) }
        return out
    }

    /// Extent of the box colour along row `y` from x = `x0` rightwards.
    static func run(_ f: Frame, y: Int, from x0: Int, while test: ((b: Int, g: Int, r: Int, a: Int)) -> Bool) -> Int {
        var x = x0
        while x < f.width, test(f.bgra(x, y)) { x += 1 }
        return x
    }

    @Test(arguments: ["I420", "NV12", "BGRA", "P010_10LE"])
    func boxIsDrawnInsideItsPaddingAndNothingOutside(format: String) throws {
        let f = try Self.render(
            [
                "text": "Hi", "background-color": "0xFF0000FF", "background-padding": "0.5", "anchor": "top-left",
                "margin-x": "0", "margin-y": "0",
            ], format: format)
        let blue = { (p: (b: Int, g: Int, r: Int, a: Int)) in p.b > 200 && p.r < 40 && p.g < 40 }
        #expect(blue(f.bgra(1, 1)), "\(format) box corner \(f.bgra(1, 1))")
        let right = Self.run(f, y: 2, from: 0, while: blue)
        var bottom = 2
        while bottom < f.height, blue(f.bgra(2, bottom)) { bottom += 1 }
        // Padding of half a line (9 px at 360p, where a line is 18 px) around two glyphs.
        #expect((30...60).contains(right) && abs(bottom - 36) <= 2, "\(format): box \(right)×\(bottom)")
        let text = Self.lines(f).first
        #expect(
            text.map { abs($0.left - 9) <= 3 && abs($0.top - 9) <= 5 } ?? false,
            "\(format): text at \(String(describing: text))")
        #expect(Self.isBlack(f.bgra(right + 3, 2)) && Self.isBlack(f.bgra(2, bottom + 3)), "\(format) outside")
        #expect(Self.isBlack(f.bgra(right + 3, bottom + 3)))
    }

    @Test func halfTransparentBoxHalvesTheColour() throws {
        let f = try Self.render([
            "text": "Hi", "background-color": "0x80FF0000", "anchor": "top-left", "margin-x": "0",
            "margin-y": "0",
        ])
        let p = f.bgra(1, 1)
        #expect((118...138).contains(p.r) && p.g < 10 && p.b < 10, "\(p)")
    }

    @Test func roundedCornersLeaveTheCornerPixels() throws {
        let f = try Self.render(
            [
                "text": "Rounded", "background-color": "0xFFFFFFFF", "background-radius": "0.5", "anchor": "top-left",
                "margin-x": "0", "margin-y": "0",
            ])
        #expect(Self.isBlack(f.bgra(0, 0)) && Self.isBlack(f.bgra(1, 1)), "\(f.bgra(0, 0))")
        #expect(Self.isWhite(f.bgra(30, 0)) && Self.isWhite(f.bgra(0, 15)))
    }

    @Test func fullWidthBandSpansTheFrame() throws {
        let f = try Self.render(
            [
                "text": "Breaking news", "background-color": "0xFF0000FF", "background-full-width": "true",
                "anchor": "bottom",
            ])
        let blue = { (p: (b: Int, g: Int, r: Int, a: Int)) in p.b > 200 && p.r < 40 }
        let y = Self.height - Int(Double(Self.height) * 0.03) - 3
        #expect(blue(f.bgra(0, y)) && blue(f.bgra(Self.width - 1, y)), "\(f.bgra(0, y)) \(f.bgra(Self.width - 1, y))")
        #expect(Self.isBlack(f.bgra(0, 2)))
    }

    @Test(arguments: ["center", "right", "left"])
    func multiLineTextIsAligned(align: String) throws {
        let f = try Self.render(["text": "H\nHHHHHH\nHHH", "text-align": align, "anchor": "center", "text-size": "0.1"])
        let l = Self.lines(f)
        #expect(l.count == 3, "\(l)")
        guard l.count == 3 else { return }
        switch align {
        case "center":
            let centres = l.map { Double($0.left + $0.right) / 2 }
            #expect(centres.allSatisfy { abs($0 - centres[0]) <= 1 }, "\(l)")
        case "right": #expect(l.allSatisfy { abs($0.right - l[0].right) <= 1 }, "\(l)")
        default: #expect(l.allSatisfy { abs($0.left - l[0].left) <= 1 }, "\(l)")
        }
        #expect(l[1].right - l[1].left > l[2].right - l[2].left, "lines out of order: \(l)")
    }

    @Test func wrapWidthWrapsLongText() throws {
        let f = try Self.render([
            "text": "A long sentence that cannot fit into a third of the frame, so it wraps at its spaces",
            "wrap-width": "0.3", "anchor": "top-left",
        ])
        let l = Self.lines(f)
        #expect(l.count >= 3, "\(l)")
        #expect(l.allSatisfy { $0.right - $0.left + 1 <= Int(0.3 * Double(Self.width)) + 2 }, "\(l)")
    }

    @Test func cjkWrapsPerCharacter() throws {
        let f = try Self.render([
            "text": String(repeating: "水印文字测试", count: 6), "wrap-width": "0.3", "anchor": "top-left",
        ])
        let l = Self.lines(f)
        #expect(l.count >= 3, "\(l)")
        #expect(l.allSatisfy { $0.right - $0.left + 1 <= Int(0.3 * Double(Self.width)) + 2 }, "\(l)")
    }

    /// Right-to-left text at a right anchor is right-aligned (not mirrored to the left).
    @Test func arabicIsRightAlignedAtARightAnchor() throws {
        let f = try Self.render(["text": "مرحبا بالعالم\nسلام", "anchor": "bottom-right", "text-size": "0.08"])
        let l = Self.lines(f)
        #expect(l.count == 2, "\(l)")
        if l.count == 2 {
            #expect(abs(l[0].right - l[1].right) <= 2, "\(l)")
            #expect(l[1].left - l[0].left > 20, "the shorter line starts further right: \(l)")
        }
    }

    @Test func lineAndLetterSpacingSpreadTheText() throws {
        let plain = Self.lines(try Self.render(["text": "HHH\nHHH", "anchor": "top-left"]))
        let spaced = Self.lines(
            try Self.render(["text": "HHH\nHHH", "anchor": "top-left", "line-spacing": "1", "letter-spacing": "0.5"]))
        #expect(plain.count == 2 && spaced.count == 2)
        guard plain.count == 2, spaced.count == 2 else { return }
        // One text size (18 px at 360p) more between the lines, 2 × 9 px more across three letters.
        #expect(abs((spaced[1].top - spaced[0].top) - (plain[1].top - plain[0].top) - 18) <= 2, "\(plain) \(spaced)")
        #expect(
            abs((spaced[0].right - spaced[0].left) - (plain[0].right - plain[0].left) - 18) <= 3, "\(plain) \(spaced)")
    }

    /// A counter in a box at a right anchor keeps its box and its first glyph in place as its
    /// digits change (tnum, and the box measured on the text's advance).
    @Test func changingDigitsDoNotMoveTheBox() throws {
        let h = Harness(
            "watermark overlay-mode=blend outline-width=0 text=\"{frame}\" background-color=0xFF0000FF "
                + "anchor=bottom-right render-ahead=false ! videoconvert ! capsfilter caps=video/x-raw,format=BGRA")
        var frames: [Int: Frame] = [:]
        for n in 0..<19 {
            let f = try #require(
                h.pushTestFrame(
                    caps: "video/x-raw,format=BGRA,width=\(Self.width),height=\(Self.height),framerate=30/1"))
            if n == 10 || n == 18 { frames[n] = f }
        }
        let y = Self.height - Int(Double(Self.height) * 0.03) - 8
        func edges(_ f: Frame) -> (box: Int, glyph: Int) {
            let box = (0..<Self.width).first { f.bgra($0, y).b > 200 && f.bgra($0, y).r < 40 } ?? -1
            let glyph = (0..<Self.width).first { x in (0..<Self.height).contains { Self.isWhite(f.bgra(x, $0)) } } ?? -1
            return (box, glyph)
        }
        let a = edges(try #require(frames[10])), b = edges(try #require(frames[18]))
        #expect(a.box > 0 && a == b, "frame 10 \(a), frame 18 \(b)")
    }

    @Test func placeholdersGetTabularDigitsByDefault() {
        var layer = LayerSpec()
        layer.text = "{clock:%H:%M:%S}"
        #expect(layer.state(at: nil).style.caption.fontFeatures == "tnum")
        layer.text = "static"
        #expect(layer.state(at: nil).style.caption.fontFeatures == nil)
        layer.text = "{frame}"
        layer.set(WatermarkProperties.fontFeatures.definition, .string(""))
        #expect(layer.state(at: nil).style.caption.fontFeatures == "")
    }

    /// With a colour emoji font installed (scripts/install-deps), emoji are drawn in colour.
    @Test func emojiAreDrawnInColour() throws {
        let f = try Self.render(["text": "LIVE 🔴", "anchor": "top-left", "text-size": "0.15"])
        var red = 0
        for y in 0..<80 {
            for x in 0..<320 {
                let p = f.bgra(x, y)
                if p.r > 180 && p.g < 90 && p.b < 90 { red += 1 }
            }
        }
        #expect(red > 200, "\(red) red pixels")
    }

    /// Hostile sizes never make a box bigger than the frame or crash.
    @Test func hugeAndInvalidValuesAreSafe() throws {
        let f = try Self.render([
            "text": "x", "background-color": "0xFFFFFFFF", "background-padding": "2", "background-radius": "2",
            "text-size": "1", "letter-spacing": "2", "line-spacing": "5", "wrap-width": "0.01",
        ])
        #expect(f.width == Self.width && f.height == Self.height)
        var layer = LayerSpec()
        layer.set(WatermarkProperties.backgroundPadding.definition, .double(.nan))
        layer.set(WatermarkProperties.lineSpacing.definition, .double(-1e308))
        #expect(layer.style.caption.padding == 0.25 && layer.style.caption.lineSpacing == -0.5)
    }
}
