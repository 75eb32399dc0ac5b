// A subtitle track read out of a container (its header, its packets, the fonts the file
// carries) written back as the subtitle file it was made from: ASS with its fonts embedded
// (libass reads a [Fonts] section), SRT or WebVTT.

/// What a container's text subtitle track holds, as libavformat gives it.
package struct SubtitleTrackFile: Sendable {
    package enum Kind: Sendable { case ass, srt, webvtt }

    /// One packet: its times in milliseconds and its payload (for ASS, Matroska's
    /// `ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`; else the cue's text).
    package struct Event: Sendable {
        package var start: Int64
        package var end: Int64
        package var payload: String

        package init(start: Int64, end: Int64, payload: String) {
            self.start = start
            self.end = end
            self.payload = payload
        }
    }

    package var kind: Kind
    /// The codec's private data: an ASS track's script header.
    package var header: String
    package var events: [Event]
    /// Fonts attached to the file (name, bytes), embedded in an ASS script.
    package var fonts: [(name: String, data: [UInt8])]

    package init(kind: Kind, header: String, events: [Event], fonts: [(name: String, data: [UInt8])] = []) {
        self.kind = kind
        self.header = header
        self.events = events
        self.fonts = fonts
    }

    /// The file's text.
    package var text: String {
        switch kind {
        case .ass: return assText
        case .srt:
            var out = ""
            for (i, e) in events.enumerated() {
                out += "\(i + 1)\n\(Self.clock(e.start, ",")) --> \(Self.clock(e.end, ","))\n"
                out += Self.cueText(e.payload) + "\n\n"
            }
            return out
        case .webvtt:
            var out = "WEBVTT\n\n"
            for e in events {
                out += "\(Self.clock(e.start, ".")) --> \(Self.clock(e.end, "."))\n" + Self.cueText(e.payload) + "\n\n"
            }
            return out
        }
    }

    /// A cue's text without blank lines (which would end the cue).
    private static func cueText(_ s: String) -> String {
        let lines = SubtitleParser.splitLines(s).filter { !$0.allSatisfy(\.isWhitespace) }
        return lines.isEmpty ? " " : lines.joined(separator: "\n")
    }

    private var assText: String {
        let lines = SubtitleParser.splitLines(header)
        // The fonts go before [Events], whose Format line the header ends with.
        let eventsAt = lines.firstIndex { $0.trimmingSpaces.lowercased() == "[events]" } ?? lines.count
        var all = lines[..<eventsAt].map(String.init)
        if !fonts.isEmpty {
            all += ["", "[Fonts]"]
            for font in fonts {
                all.append("fontname: \(font.name)")
                all += SubtitleParser.splitLines(Self.uuencode(font.data)).filter { !$0.isEmpty }.map(String.init)
            }
            all.append("")
        }
        all += lines[eventsAt...].map(String.init)
        if eventsAt == lines.count {
            all += ["", "[Events]", "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text"]
        }
        var out = all.joined(separator: "\n") + "\n"
        for e in events.sorted(by: { $0.start < $1.start }) {
            // ReadOrder, Layer, then the rest: the Dialogue line takes Start and End after Layer.
            let fields = e.payload.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            out += "Dialogue: \(fields[1]),\(Self.assClock(e.start)),\(Self.assClock(e.end)),\(fields[2])\n"
        }
        return out
    }

    /// `HH:MM:SS,mmm` (SRT) or `HH:MM:SS.mmm` (WebVTT).
    static func clock(_ ms: Int64, _ separator: String) -> String {
        let t = max(0, ms)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let frac = t % 1000
        let f = frac < 10 ? "00\(frac)" : frac < 100 ? "0\(frac)" : "\(frac)"
        return "\(two(t / 3_600_000)):\(two(t / 60000 % 60)):\(two(t / 1000 % 60))\(separator)\(f)"
    }

    /// ASS's `H:MM:SS.cc` (the start rounded down, so a cue never starts late).
    static func assClock(_ ms: Int64) -> String {
        let t = max(0, ms) / 10
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(t / 360_000):\(two(t / 6000 % 60)):\(two(t / 100 % 60)).\(two(t % 100))"
    }

    /// ASS's uuencoding of embedded files: each 6 bits + 33, 80 characters a line.
    package static func uuencode(_ data: [UInt8]) -> String {
        var chars: [UInt8] = []
        chars.reserveCapacity(data.count * 4 / 3 + 4)
        var i = 0
        while i < data.count {
            let n = min(3, data.count - i)
            let b0 = UInt32(data[i]), b1 = n > 1 ? UInt32(data[i + 1]) : 0, b2 = n > 2 ? UInt32(data[i + 2]) : 0
            let word = b0 << 16 | b1 << 8 | b2
            let out = [word >> 18, word >> 12 & 63, word >> 6 & 63, word & 63].prefix(n + 1)
            chars += out.map { UInt8($0 + 33) }
            i += 3
        }
        var text = ""
        var start = 0
        while start < chars.count {
            let end = min(chars.count, start + 80)
            text += String(decoding: chars[start..<end], as: UTF8.self) + "\n"
            start = end
        }
        return text
    }
}
