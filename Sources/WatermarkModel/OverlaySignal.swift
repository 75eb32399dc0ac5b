// Overlay colours in wide-gamut and HDR streams, placed the way broadcast graphics are
// (ITU-R BT.2408): the overlay's sRGB colours → linear light → BT.2020 primaries (BT.2087)
// → sRGB white scaled to the graphics reference white (203 cd/m² by default) → encoded
// with the stream's transfer (PQ, SMPTE ST 2084; or HLG, ARIB STD-B67). Done once per
// render on the overlay's pixels, never per frame. Pure maths.

import Glibc

/// The transfer characteristic of a stream, as far as overlay colours care.
package enum SignalTransfer: String, Sendable, Hashable {
    /// SDR: overlay codes go in as they are (sRGB values as the stream's own gamma).
    case sdr
    /// SMPTE ST 2084 (PQ): absolute, 10000 cd/m² at signal 1.
    case pq
    /// ARIB STD-B67 (HLG): relative, scene light; a 1000 cd/m² display is assumed for the
    /// reference white's signal level (BT.2408).
    case hlg
}

/// The colour primaries of a stream.
package enum SignalPrimaries: String, Sendable, Hashable {
    /// BT.709 / sRGB and the primaries close to them (BT.601): overlays go in unchanged.
    case bt709
    case bt2020
}

/// How the overlay's sRGB pixels become the stream's signal.
package struct OverlaySignal: Sendable, Hashable {
    package var transfer: SignalTransfer
    package var primaries: SignalPrimaries
    /// cd/m² that the overlay's white is shown at on PQ and HLG streams.
    package var referenceWhite: Double

    package static let defaultReferenceWhite = 203.0
    package static let sdr = OverlaySignal(transfer: .sdr, primaries: .bt709)

    package init(
        transfer: SignalTransfer, primaries: SignalPrimaries,
        referenceWhite: Double = OverlaySignal.defaultReferenceWhite
    ) {
        self.transfer = transfer
        // HDR transfers come with BT.2020 in practice; their graphics white is defined there.
        self.primaries = transfer == .sdr ? primaries : .bt2020
        self.referenceWhite =
            referenceWhite.isFinite ? min(max(referenceWhite, 1), 10000) : OverlaySignal.defaultReferenceWhite
    }

    /// SDR with BT.709 primaries: the pixels go in exactly as rendered.
    package var isIdentity: Bool { transfer == .sdr && primaries == .bt709 }

    /// A short description for logs and progress lines ("HLG, BT.2020").
    package var description: String {
        switch transfer {
        case .sdr: primaries == .bt2020 ? "SDR, BT.2020" : "SDR"
        case .pq: "PQ, BT.2020"
        case .hlg: "HLG, BT.2020"
        }
    }

    /// The stream's non-linear signal (0…1) for one linear BT.2020 component, where 1 is
    /// the overlay's white.
    package func encode(_ linear: Double) -> Double {
        let l = max(0, linear)
        switch transfer {
        case .sdr: return Self.srgbEncode(l)
        case .pq: return Self.pqInverseEOTF(l * referenceWhite / 10000)
        case .hlg:
            // The scene light whose display light (BT.2100 OOTF, γ 1.2 on a 1000 cd/m²
            // display) is the reference white: 203 cd/m² → 0.2647 → signal 0.75.
            return Self.hlgOETF(l * pow(referenceWhite / 1000, 1 / 1.2))
        }
    }

    /// sRGB (BT.709 primaries) linear → BT.2020 linear (BT.2087).
    package static func bt709ToBT2020(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
        (
            0.627403896 * r + 0.329283039 * g + 0.043313065 * b,
            0.069097289 * r + 0.919540395 * g + 0.011362316 * b,
            0.016391439 * r + 0.088013307 * g + 0.895595254 * b
        )
    }

    package static func srgbDecode(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    package static func srgbEncode(_ l: Double) -> Double {
        let v = l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
        return min(max(v, 0), 1)
    }

    /// SMPTE ST 2084 inverse EOTF: display light as a fraction of 10000 cd/m² → signal.
    package static func pqInverseEOTF(_ y: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let p = pow(min(max(y, 0), 1), m1)
        return pow((c1 + c2 * p) / (1 + c3 * p), m2)
    }

    /// ARIB STD-B67 OETF: normalised scene light (0…1) → signal.
    package static func hlgOETF(_ e: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
        let x = min(max(e, 0), 1)
        return x <= 1.0 / 12 ? (3 * x).squareRoot() : a * log(12 * x - b) + c
    }

    /// One premultiplied ARGB pixel (cairo's ARGB32 word) in the stream's signal,
    /// premultiplied again by the same alpha.
    package func convert(_ pixel: UInt32) -> UInt32 {
        let a = pixel >> 24
        if a == 0 { return 0 }
        let alpha = Double(a)
        func straight(_ shift: UInt32) -> Double { min(1, Double((pixel >> shift) & 0xFF) / alpha) }
        var (r, g, b) = (Self.srgbDecode(straight(16)), Self.srgbDecode(straight(8)), Self.srgbDecode(straight(0)))
        if primaries == .bt2020 { (r, g, b) = Self.bt709ToBT2020(r, g, b) }
        func code(_ linear: Double) -> UInt32 { UInt32(min(max((encode(linear) * alpha).rounded(), 0), alpha)) }
        return a << 24 | code(r) << 16 | code(g) << 8 | code(b)
    }

    /// The overlay's pixels in the stream's signal (unchanged for SDR BT.709). Overlays are
    /// mostly runs of one colour (text fill, flat logo areas), so the last pixel's result
    /// is reused.
    package func convert(_ overlay: RenderedOverlay) -> RenderedOverlay {
        if isIdentity { return overlay }
        var last: (UInt32, UInt32) = (0, 0)
        let pixels = overlay.pixels.map { p -> UInt32 in
            if p == last.0 { return last.1 }
            let c = convert(p)
            last = (p, c)
            return c
        }
        return RenderedOverlay(rect: overlay.rect, pixels: pixels)
    }
}
