import CGStreamer
import CShim
import Foundation
import GstTestSupport
import Testing

/// Overlay colours in HDR and wide-gamut streams (ITU-R BT.2408 graphics placement). The
/// expected codes are worked out here from the standards' own formulas (BT.2100 PQ and HLG,
/// BT.2087 primaries, BT.2020 non-constant-luminance Y'CbCr), not by the element's code.
@Suite struct HDRTests {
    static let white = GstTest.solidPNG("hdr-white.png", width: 16, height: 16, argb: 0xFFFF_FFFF)
    static let red = GstTest.solidPNG("hdr-red.png", width: 16, height: 16, argb: 0xFFFF_0000)

    enum Transfer { case hlg, pq, sdr }

    static func srgbToLinear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }

    static func linearToSRGB(_ l: Double) -> Double { l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055 }

    /// BT.2100 PQ: display light / 10000 cd/m² → signal.
    static func pq(_ y: Double) -> Double {
        let m1 = 0.1593017578125, m2 = 78.84375, c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875
        let p = pow(y, m1)
        return pow((c1 + c2 * p) / (1 + c3 * p), m2)
    }

    /// BT.2100 HLG OETF: scene light → signal.
    static func hlg(_ e: Double) -> Double {
        let a = 0.17883277, b = 0.28466892, c = 0.55991073
        return e <= 1.0 / 12 ? sqrt(3 * e) : a * log(12 * e - b) + c
    }

    /// Narrow-range Y, Cb, Cr codes at `bits` of an opaque sRGB colour placed in a BT.2020
    /// stream with white at `white` cd/m².
    static func expected(_ rgb: (Double, Double, Double), _ transfer: Transfer, bits: Int, white: Double = 203)
        -> (y: Double, cb: Double, cr: Double)
    {
        let l = (srgbToLinear(rgb.0), srgbToLinear(rgb.1), srgbToLinear(rgb.2))
        // BT.2087: BT.709 linear → BT.2020 linear.
        let r = 0.6274 * l.0 + 0.3293 * l.1 + 0.0433 * l.2
        let g = 0.0691 * l.0 + 0.9195 * l.1 + 0.0114 * l.2
        let b = 0.0164 * l.0 + 0.0880 * l.1 + 0.8956 * l.2
        func signal(_ v: Double) -> Double {
            switch transfer {
            case .pq: pq(v * white / 10000)
            // Scene light of the reference white on a 1000 cd/m² display (OOTF γ 1.2).
            case .hlg: hlg(v * pow(white / 1000, 1 / 1.2))
            case .sdr: linearToSRGB(v)
            }
        }
        let (R, G, B) = (signal(r), signal(g), signal(b))
        let y = 0.2627 * R + 0.6780 * G + 0.0593 * B
        let cb = (B - y) / 1.8814, cr = (R - y) / 1.4746
        let scale = Double(1 << (bits - 8))
        return (16 * scale + 219 * scale * y, 128 * scale + 224 * scale * cb, 128 * scale + 224 * scale * cr)
    }

    /// Luma and chroma codes of pixel (4, 4) of a 4:2:0 / 4:2:2 / 4:4:4 or P010 frame.
    static func sample(_ f: Frame, format: String) -> (y: Int, cb: Int, cr: Int) {
        func word(_ plane: Int, _ row: Int, _ byte: Int) -> Int {
            Int(f.byte(plane: plane, row: row, offset: byte)) | Int(f.byte(plane: plane, row: row, offset: byte + 1))
                << 8
        }
        switch format {
        case "I420":
            return (
                Int(f.byte(plane: 0, row: 4, offset: 4)), Int(f.byte(plane: 1, row: 2, offset: 2)),
                Int(f.byte(plane: 2, row: 2, offset: 2))
            )
        case "P010_10LE": return (word(0, 4, 8) >> 6, word(1, 2, 8) >> 6, word(1, 2, 10) >> 6)
        case "I422_10LE": return (word(0, 4, 8), word(1, 4, 4), word(2, 4, 4))
        case "Y444_10LE": return (word(0, 4, 8), word(1, 4, 8), word(2, 4, 8))
        default: return (word(0, 4, 8), word(1, 2, 4), word(2, 2, 4))
        }
    }

    func overlaid(_ image: String, format: String, colorimetry: String, white: Double = 203) throws -> Frame {
        let h = Harness(
            element: "watermark",
            [
                "image": image, "width": "0", "anchor": "top-left", "margin-x": "0", "margin-y": "0",
                "overlay-mode": "blend", "hdr-reference-white": "\(white)",
            ])
        return try #require(
            h.pushTestFrame(
                caps: "video/x-raw,format=\(format),width=64,height=48,framerate=30/1,colorimetry=\(colorimetry)"))
    }

    static let tenBit = ["I420_10LE", "I422_10LE", "Y444_10LE", "P010_10LE"]

    @Test(arguments: tenBit, ["bt2100-hlg", "bt2100-pq"])
    func whiteAndRedAtTheGraphicsReferenceWhite(format: String, colorimetry: String) throws {
        let transfer: Transfer = colorimetry == "bt2100-pq" ? .pq : .hlg
        for (image, rgb) in [(Self.white, (1.0, 1.0, 1.0)), (Self.red, (1.0, 0.0, 0.0))] {
            let got = Self.sample(try overlaid(image, format: format, colorimetry: colorimetry), format: format)
            let want = Self.expected(rgb, transfer, bits: 10)
            // The overlay is converted through 8-bit R'G'B' codes: within 3 of 876 / 896 steps.
            #expect(abs(Double(got.y) - want.y) <= 3, "\(format) \(colorimetry) \(rgb): Y \(got.y), want \(want.y)")
            #expect(
                abs(Double(got.cb) - want.cb) <= 3, "\(format) \(colorimetry) \(rgb): Cb \(got.cb), want \(want.cb)")
            #expect(
                abs(Double(got.cr) - want.cr) <= 3, "\(format) \(colorimetry) \(rgb): Cr \(got.cr), want \(want.cr)")
        }
    }

    @Test func figuresOfBT2408() throws {
        // White text: PQ 10-bit Y ≈ 573, HLG ≈ 721; 8-bit 143 and 180.
        let pq10 = Self.sample(
            try overlaid(Self.white, format: "P010_10LE", colorimetry: "bt2100-pq"), format: "P010_10LE")
        let hlg10 = Self.sample(
            try overlaid(Self.white, format: "I420_10LE", colorimetry: "bt2100-hlg"), format: "I420_10LE")
        let pq8 = Self.sample(try overlaid(Self.white, format: "I420", colorimetry: "bt2100-pq"), format: "I420")
        let hlg8 = Self.sample(try overlaid(Self.white, format: "I420", colorimetry: "bt2100-hlg"), format: "I420")
        #expect(abs(pq10.y - 573) <= 2 && abs(hlg10.y - 721) <= 2, "\(pq10) \(hlg10)")
        #expect(abs(pq8.y - 143) <= 1 && abs(hlg8.y - 180) <= 1, "\(pq8) \(hlg8)")
    }

    @Test func referenceWhiteMovesTheLevel() throws {
        let f = try overlaid(Self.white, format: "P010_10LE", colorimetry: "bt2100-pq", white: 1000)
        let got = Self.sample(f, format: "P010_10LE").y
        let want = Self.expected((1, 1, 1), .pq, bits: 10, white: 1000).y
        #expect(abs(Double(got) - want) <= 3, "Y \(got), want \(want)")
    }

    @Test func wideGamutSDRConvertsThePrimariesOnly() throws {
        let got = Self.sample(try overlaid(Self.red, format: "I420_10LE", colorimetry: "bt2020"), format: "I420_10LE")
        let want = Self.expected((1, 0, 0), .sdr, bits: 10)
        #expect(abs(Double(got.y) - want.y) <= 3 && abs(Double(got.cr) - want.cr) <= 3, "\(got) want \(want)")
        // Less saturated than sRGB red written as BT.2020 codes (which would be Cr 960).
        #expect(got.cr < 940)
    }

    /// BT.601 / BT.709 streams are not touched by any of this: the frame is byte for byte
    /// what it is with any reference white, and white is the narrow range's 235.
    @Test(arguments: ["bt709", "bt601"])
    func sdrStreamsAreUnchanged(colorimetry: String) throws {
        let a = try overlaid(Self.red, format: "I420", colorimetry: colorimetry, white: 203)
        let b = try overlaid(Self.red, format: "I420", colorimetry: colorimetry, white: 5000)
        let size = gst_buffer_get_size(a.buffer)
        #expect(size == gst_buffer_get_size(b.buffer))
        var x = [UInt8](repeating: 0, count: Int(size)), y = x
        _ = gst_buffer_extract(a.buffer, 0, &x, size)
        _ = gst_buffer_extract(b.buffer, 0, &y, size)
        #expect(x == y)
        let w = Self.sample(try overlaid(Self.white, format: "I420", colorimetry: colorimetry), format: "I420")
        #expect(w.y == 235 && w.cb == 128 && w.cr == 128, "\(w)")
    }

    /// A transfer the overlay is not converted for (a log curve) keeps working with SDR maths
    /// and says so in a warning.
    @Test func unsupportedTransferWarnsAndBlendsAsSDR() {
        let run = Pipeline.run(
            "videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=64,height=48,colorimetry=2:3:9:1"
                + " ! watermark image=\(Self.white) ! fakesink")
        #expect(run.ok, "\(run.errors)")
        #expect(run.warnings.contains { $0.contains("placed as SDR") }, "\(run.warnings)")
    }
}
