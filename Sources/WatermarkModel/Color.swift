/// A straight (non-premultiplied) colour with alpha, as users give it: `0xAARRGGBB`,
/// `#RRGGBB`, `#RRGGBBAA` or a common name.
public struct ARGBColor: Hashable, Sendable, CustomStringConvertible {
    public var alpha: UInt8
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(alpha: UInt8 = 255, red: UInt8, green: UInt8, blue: UInt8) {
        self.alpha = alpha
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// From the element's `0xAARRGGBB` integer form.
    public init(argb: UInt32) {
        alpha = UInt8(truncatingIfNeeded: argb >> 24)
        red = UInt8(truncatingIfNeeded: argb >> 16)
        green = UInt8(truncatingIfNeeded: argb >> 8)
        blue = UInt8(truncatingIfNeeded: argb)
    }

    public var argb: UInt32 {
        UInt32(alpha) << 24 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
    }

    public var description: String {
        "#" + [red, green, blue, alpha].map { hex2($0) }.joined()
    }

    /// `0xAARRGGBB`, all eight digits: how config files and the documentation write it.
    package var hexText: String {
        let hex = String(argb, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    public static let white = ARGBColor(red: 255, green: 255, blue: 255)
    public static let black = ARGBColor(red: 0, green: 0, blue: 0)

    static let named: [String: UInt32] = [
        "white": 0xFFFF_FFFF, "black": 0xFF00_0000, "red": 0xFFFF_0000,
        "green": 0xFF00_8000, "lime": 0xFF00_FF00, "blue": 0xFF00_00FF,
        "yellow": 0xFFFF_FF00, "cyan": 0xFF00_FFFF, "magenta": 0xFFFF_00FF,
        "gray": 0xFF80_8080, "grey": 0xFF80_8080, "silver": 0xFFC0_C0C0,
        "orange": 0xFFFF_A500, "purple": 0xFF80_0080, "navy": 0xFF00_0080,
        "teal": 0xFF00_8080, "maroon": 0xFF80_0000, "olive": 0xFF80_8000,
        "pink": 0xFFFF_C0CB, "transparent": 0x0000_0000,
    ]

    /// Parses `#RGB`, `#RRGGBB`, `#RRGGBBAA`, `0xAARRGGBB` (or `0xRRGGBB`, opaque),
    /// a decimal `0xAARRGGBB` value, or a colour name. Returns nil for anything else.
    public init?(parsing text: String) {
        let s = text.trimmingWhitespace().lowercased()
        if s.isEmpty { return nil }
        if let value = ARGBColor.named[s] {
            self.init(argb: value)
            return
        }
        if s.hasPrefix("#") {
            let digits = String(s.dropFirst())
            guard digits.allSatisfy(\.isHexDigit), let v = UInt32(digits, radix: 16) else { return nil }
            switch digits.count {
            case 3:
                let r = UInt8((v >> 8) & 0xF) * 17, g = UInt8((v >> 4) & 0xF) * 17, b = UInt8(v & 0xF) * 17
                self.init(red: r, green: g, blue: b)
            case 6:
                self.init(argb: 0xFF00_0000 | v)
            case 8:
                self.init(argb: (v >> 8) | (v & 0xFF) << 24)
            default:
                return nil
            }
            return
        }
        if s.hasPrefix("0x") {
            let digits = String(s.dropFirst(2))
            guard !digits.isEmpty, digits.count <= 8, digits.allSatisfy(\.isHexDigit),
                let v = UInt32(digits, radix: 16)
            else { return nil }
            self.init(argb: digits.count <= 6 ? 0xFF00_0000 | v : v)
            return
        }
        if s.allSatisfy(\.isNumber), let v = UInt32(s) {
            self.init(argb: v)
            return
        }
        return nil
    }
}

private func hex2(_ v: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(v >> 4)], digits[Int(v & 0xF)]])
}
