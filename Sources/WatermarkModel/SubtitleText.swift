// SRT's and WebVTT's inline markup turned into ASS overrides, and the ASS header that gives
// those files the look of the layer's text properties.

extension SubtitleParser {
    /// An SRT text line: `<i> <b> <u> <s>` and `<font color>` become overrides; `{\an8}`-style
    /// overrides, which many SRT files carry, are kept; other tags are dropped.
    static func srtText(_ line: Substring) -> String {
        convertTags(line, entities: false)
    }

    /// A WebVTT text line: the same tags, entities decoded, and `<c>`, `<v>`, `<lang>`,
    /// `<ruby>` and timestamp tags dropped (their text kept).
    static func vttText(_ line: Substring) -> String {
        convertTags(line, entities: true)
    }

    private static func convertTags(_ line: Substring, entities: Bool) -> String {
        var out = ""
        var i = line.startIndex
        while i < line.endIndex {
            let c = line[i]
            if c == "<", let close = line[i...].firstIndex(of: ">") {
                out += override(for: line[line.index(after: i)..<close])
                i = line.index(after: close)
                continue
            }
            if entities, c == "&", let semi = line[i...].prefix(8).firstIndex(of: ";") {
                if let decoded = entity(line[line.index(after: i)..<semi]) {
                    out += decoded
                    i = line.index(after: semi)
                    continue
                }
            }
            // ASS reads a backslash before n, N or h as a line break or a hard space.
            if c == "\\", let next = line[line.index(after: i)...].first, "nNh".contains(next) {
                out += "\\\u{2060}"
            } else {
                out.append(c)
            }
            i = line.index(after: i)
        }
        return out
    }

    private static func override(for tag: Substring) -> String {
        let t = tag.trimmingSpaces.lowercased()
        switch t {
        case "i", "b", "u", "s": return "{\\\(t)1}"
        case "/i", "/b", "/u", "/s": return "{\\\(t.dropFirst())0}"
        case "/font": return "{\\c}"
        default: break
        }
        if t.hasPrefix("font"), let color = attribute("color", in: tag), let bgr = assColor(color) {
            return "{\\c&H\(bgr)&}"
        }
        return ""
    }

    private static func attribute(_ name: String, in tag: Substring) -> Substring? {
        let lower = Substring(tag.lowercased())
        guard let range = lower.byteRange(of: name + "=") else { return nil }
        var value = lower[range.upperBound...]
        if let q = value.first, q == "\"" || q == "'" {
            value = value.dropFirst()
            return value.prefix { $0 != q }
        }
        return value.prefix { !$0.isWhitespace }
    }

    /// `#RRGGBB` or a basic colour name as ASS's `BBGGRR`.
    static func assColor(_ text: Substring) -> String? {
        let names: [String: String] = [
            "white": "FFFFFF", "black": "000000", "red": "FF0000", "green": "008000", "lime": "00FF00",
            "blue": "0000FF", "yellow": "FFFF00", "cyan": "00FFFF", "aqua": "00FFFF", "magenta": "FF00FF",
            "fuchsia": "FF00FF", "gray": "808080", "grey": "808080", "silver": "C0C0C0", "orange": "FFA500",
        ]
        var hex = text.hasPrefix("#") ? String(text.dropFirst()) : (names[text.lowercased()] ?? "")
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit) else { return nil }
        let h = Array(hex.uppercased())
        return String(h[4...5]) + String(h[2...3]) + String(h[0...1])
    }

    private static func entity(_ name: Substring) -> String? {
        switch name {
        case "amp": "&"
        case "lt": "<"
        case "gt": ">"
        case "nbsp": "\u{00A0}"
        case "quot": "\""
        case "apos": "'"
        case "lrm": "\u{200E}"
        case "rlm": "\u{200F}"
        default: nil
        }
    }
}

/// The style SRT and WebVTT cues are drawn in: the layer's text properties in ASS's terms,
/// for a script whose PlayRes is the frame's size (so sizes are frame pixels).
package struct SubtitleStyle: Sendable, Equatable {
    package var family: String
    package var bold: Bool
    package var italic: Bool
    /// Line height in pixels.
    package var size: Double
    package var color: ARGBColor
    package var outlineColor: ARGBColor
    /// Outline thickness in pixels (each side).
    package var outline: Double
    package var shadow: Bool
    /// A box behind the lines (alpha 0: none) and its padding in pixels.
    package var background: ARGBColor
    package var padding: Double
    /// From the bottom edge, in pixels.
    package var marginV: Int
    package var marginH: Int

    package init(
        family: String, bold: Bool, italic: Bool, size: Double, color: ARGBColor, outlineColor: ARGBColor,
        outline: Double, shadow: Bool, background: ARGBColor, padding: Double, marginV: Int, marginH: Int
    ) {
        self.family = family
        self.bold = bold
        self.italic = italic
        self.size = size
        self.color = color
        self.outlineColor = outlineColor
        self.outline = outline
        self.shadow = shadow
        self.background = background
        self.padding = padding
        self.marginV = marginV
        self.marginH = marginH
    }

    /// `&HAABBGGRR` with ASS's alpha (0 = opaque).
    static func ass(_ c: ARGBColor) -> String {
        func hex(_ v: UInt8) -> String {
            let s = String(v, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }
        return "&H" + hex(255 - c.alpha) + hex(c.blue) + hex(c.green) + hex(c.red)
    }

    /// The script header (Script Info and one style, "Default") for a `width`×`height` frame.
    package func header(width: Int, height: Int) -> String {
        let boxed = background.alpha > 0
        let fields: [String] = [
            "Default", family.replacingAll(",", with: " "), format(size),
            Self.ass(color), Self.ass(color), Self.ass(boxed ? background : outlineColor),
            Self.ass(shadow ? ARGBColor(argb: 0x8000_0000) : ARGBColor(argb: 0)),
            bold ? "-1" : "0", italic ? "-1" : "0", "0", "0", "100", "100", "0", "0",
            boxed ? "3" : "1", format(boxed ? padding : outline), shadow ? format(max(1, size / 20)) : "0",
            "2", String(marginH), String(marginH), String(marginV), "1",
        ]
        return """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: \(width)
            PlayResY: \(height)
            WrapStyle: 0
            ScaledBorderAndShadow: yes
            YCbCr Matrix: None

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, \
            Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, \
            Alignment, MarginL, MarginR, MarginV, Encoding
            Style: \(fields.joined(separator: ","))

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

            """
    }

    private func format(_ v: Double) -> String {
        guard v.isFinite, abs(v) < 1e9 else { return "0" }
        let r = (v * 100).rounded() / 100
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
