// Subtitle files read for burning in: SRT and WebVTT are parsed here into cues whose text is
// already in ASS's override syntax (libass renders them with a style made from the layer's
// text properties); an ASS/SSA file is kept whole for libass and only checked here, so that a
// broken file is an error at start that names its line, not a silent gap on screen.

/// What kind of subtitle file a text is, recognised by its content (not its name).
package enum SubtitleFormat: String, Sendable, Equatable {
    case srt = "SubRip"
    case webvtt = "WebVTT"
    case ass = "ASS"
}

/// One cue of an SRT or WebVTT file: when it shows (milliseconds of stream time, before the
/// offset) and its text as an ASS event's Text field.
package struct SubtitleCue: Sendable, Equatable {
    package var start: Int64
    package var end: Int64
    package var text: String

    package init(start: Int64, end: Int64, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// A subtitle file read and checked: the cues of an SRT or WebVTT file, or an ASS script
/// whole, and the font families it names (for the one-line warnings about missing ones).
package struct SubtitleDocument: Sendable, Equatable {
    package var format: SubtitleFormat
    /// The script as libass reads it (ASS only).
    package var script: String
    /// The cues (SRT and WebVTT), in file order.
    package var cues: [SubtitleCue]
    /// Events (ASS) or cues (SRT, WebVTT).
    package var eventCount: Int
    /// Families the styles and `\fn` overrides name, in order of first use.
    package var fontFamilies: [String]
    /// Font files the script embeds (its [Fonts] section).
    package var embeddedFonts = 0
}

/// A file that is not a subtitle file, or a fault in one: `file:line: what` (line 1-based).
package struct SubtitleError: Error, Sendable, Equatable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var message: String

    package var description: String { "\(file):\(line): \(message)" }
}

package enum SubtitleParser {
    /// Reads `bytes` (the contents of `file`, which names it in errors).
    package static func parse(_ bytes: [UInt8], file: String) throws(SubtitleError) -> SubtitleDocument {
        if bytes.isEmpty { throw SubtitleError(file: file, line: 1, message: "the file is empty") }
        if let nul = bytes.firstIndex(of: 0) {
            // Lines end at LF, CRLF or CR (as splitLines counts them).
            var line = 1
            for (i, b) in bytes[..<nul].enumerated() where b == 0x0A || (b == 0x0D && bytes[i + 1] != 0x0A) {
                line += 1
            }
            throw SubtitleError(
                file: file, line: line, message: "not a subtitle file (binary data; expected SRT, WebVTT or ASS text)")
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let text = String(decoding: body, as: UTF8.self)
        let lines = splitLines(text)
        guard let first = lines.firstIndex(where: { !$0.allSatisfy(\.isWhitespace) }) else {
            throw SubtitleError(file: file, line: 1, message: "the file holds no subtitles (only blank lines)")
        }
        let head = lines[first].trimmingSpaces
        if head.hasPrefix("WEBVTT") { return try parseCues(lines, file: file, format: .webvtt) }
        if head.lowercased() == "[script info]" { return try checkASS(text, lines: lines, file: file) }
        if head.allSatisfy(\.isNumber) || Substring(head).byteRange(of: "-->") != nil {
            return try parseCues(lines, file: file, format: .srt)
        }
        throw SubtitleError(
            file: file, line: first + 1,
            message: "not a subtitle file: \"\(head.prefix(40))\" starts neither SRT (a cue number), WebVTT (WEBVTT) "
                + "nor ASS ([Script Info])")
    }

    /// Lines split at LF, CRLF or CR.
    static func splitLines(_ text: String) -> [Substring] {
        var out: [Substring] = []
        var start = text.startIndex
        var i = start
        while i < text.endIndex {
            let c = text[i]
            if c == "\n" || c == "\r" || c == "\r\n" {
                out.append(text[start..<i])
                start = text.index(after: i)
            }
            i = text.index(after: i)
        }
        out.append(text[start..<text.endIndex])
        return out
    }

    // MARK: SRT and WebVTT

    private static func parseCues(
        _ lines: [Substring], file: String, format: SubtitleFormat
    ) throws(SubtitleError) -> SubtitleDocument {
        var cues: [SubtitleCue] = []
        var i = 0
        if format == .webvtt {
            // The header block (WEBVTT and what follows it up to a blank line).
            while i < lines.count, isBlank(lines[i]) { i += 1 }
            while i < lines.count, !isBlank(lines[i]) { i += 1 }
        }
        while i < lines.count {
            if isBlank(lines[i]) {
                i += 1
                continue
            }
            let blockStart = i
            var block: [Substring] = []
            while i < lines.count, !isBlank(lines[i]) {
                block.append(lines[i])
                i += 1
            }
            if format == .webvtt, let word = block.first?.trimmingSpaces,
                word.hasPrefix("NOTE") || word == "STYLE" || word == "REGION"
            {
                continue
            }
            // The cue's timing line: the first or (after a number or an id) the second line.
            guard let timing = block.prefix(2).firstIndex(where: { $0.byteRange(of: "-->") != nil }) else {
                if format == .srt, block.count == 1, block[0].trimmingSpaces.allSatisfy(\.isNumber) {
                    continue  // a number with no cue after it (a file cut short)
                }
                // After a cue number, the fault is the line that should have been its times.
                let at = block.count > 1 && block[0].trimmingSpaces.allSatisfy(\.isNumber) ? 1 : 0
                throw SubtitleError(
                    file: file, line: blockStart + at + 1,
                    message:
                        "expected a cue's times (\"00:00:01,000 --> 00:00:02,500\"), found \"\(block[at].prefix(40))\""
                )
            }
            let line = blockStart + timing + 1
            let (start, end) = try cueTimes(block[timing], file: file, line: line, format: format)
            if end < start {
                throw SubtitleError(file: file, line: line, message: "the cue ends before it starts")
            }
            let textLines = block[(timing + 1)...].map { format == .srt ? srtText($0) : vttText($0) }
            if textLines.isEmpty { continue }
            cues.append(SubtitleCue(start: start, end: end, text: textLines.joined(separator: "\\N")))
        }
        return SubtitleDocument(format: format, script: "", cues: cues, eventCount: cues.count, fontFamilies: [])
    }

    private static func isBlank(_ s: Substring) -> Bool { s.allSatisfy(\.isWhitespace) }

    private static func cueTimes(
        _ line: Substring, file: String, line number: Int, format: SubtitleFormat
    ) throws(SubtitleError) -> (Int64, Int64) {
        guard let arrow = line.byteRange(of: "-->") else {
            throw SubtitleError(file: file, line: number, message: "\"\(line.prefix(60))\" is not a cue's times")
        }
        let startText = line[..<arrow.lowerBound].trimmingSpaces
        // WebVTT cue settings (and SRT's rare coordinates) follow the end time.
        let endText =
            line[arrow.upperBound...].trimmingSpaces.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        guard let start = clockTime(startText) else {
            throw SubtitleError(file: file, line: number, message: "\"\(startText)\" is not a time")
        }
        guard let end = clockTime(endText) else {
            throw SubtitleError(file: file, line: number, message: "\"\(endText)\" is not a time")
        }
        return (start, end)
    }

    /// `[HH:]MM:SS[,.]mmm` (SRT and WebVTT; a missing fraction is 0), in milliseconds.
    package static func clockTime(_ text: String) -> Int64? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3 else { return nil }
        var seconds = Substring(fields[fields.count - 1])
        var millis: Int64 = 0
        if let dot = seconds.firstIndex(where: { $0 == "," || $0 == "." }) {
            let fraction = seconds[seconds.index(after: dot)...]
            guard (1...3).contains(fraction.count), let f = digits(fraction) else { return nil }
            millis = f * [100, 10, 1][fraction.count - 1]
            seconds = seconds[..<dot]
        }
        guard let s = digits(seconds), seconds.count <= 2, s < 60 else { return nil }
        guard let m = digits(fields[fields.count - 2]), m < 60 || fields.count == 2 else { return nil }
        let h = fields.count == 3 ? digits(fields[0]) : 0
        guard let h, h < 1_000_000 else { return nil }
        return ((h * 60 + m) * 60 + s) * 1000 + millis
    }

    private static func digits(_ s: Substring) -> Int64? {
        guard !s.isEmpty, s.count <= 9, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(s)
    }

    // MARK: ASS

    /// Checks an ASS/SSA script: its events have the fields their Format names and times
    /// that are times; collects the fonts its styles and overrides name.
    private static func checkASS(_ text: String, lines: [Substring], file: String) throws(SubtitleError)
        -> SubtitleDocument
    {
        var section = ""
        var format: [String] = []
        var styleFormat: [String] = []
        var families: [String] = []
        var events = 0, embedded = 0
        var hasKind = false
        func addFamily(_ name: Substring) {
            var n = name.trimmingSpaces
            if n.hasPrefix("@") { n.removeFirst() }  // vertical-writing variant
            if !n.isEmpty, !families.contains(n) { families.append(n) }
        }
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingSpaces
            let number = index + 1
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = line.lowercased()
                format = []
                if section == "[v4+ styles]" || section == "[v4 styles]" || section == "[v4 styles+]" { hasKind = true }
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingSpaces.lowercased()
            if section == "[script info]", key == "scripttype" { hasKind = true }
            if section == "[fonts]" {
                if key == "fontname" { embedded += 1 }
                continue
            }
            let value = line[line.index(after: colon)...]
            let isStyles = section == "[v4+ styles]" || section == "[v4 styles]"
            if key == "format" {
                let names = value.split(separator: ",").map { $0.trimmingSpaces.lowercased() }
                if isStyles { styleFormat = names } else { format = names }
                continue
            }
            if isStyles, key == "style" {
                let fields = value.split(separator: ",", omittingEmptySubsequences: false)
                if let i = styleFormat.firstIndex(of: "fontname"), i < fields.count { addFamily(fields[i]) }
                continue
            }
            guard section == "[events]", key == "dialogue" else { continue }
            guard !format.isEmpty else {
                throw SubtitleError(file: file, line: number, message: "a Dialogue line before the events' Format line")
            }
            // Text is the last field and may hold commas.
            let fields = value.split(separator: ",", maxSplits: format.count - 1, omittingEmptySubsequences: false)
            guard fields.count == format.count else {
                throw SubtitleError(
                    file: file, line: number,
                    message: "the event has \(fields.count) field(s), its Format names \(format.count)")
            }
            var start: Int64 = 0
            for (name, field) in zip(format, fields) where name == "start" || name == "end" {
                guard let t = assTime(field.trimmingSpaces) else {
                    throw SubtitleError(file: file, line: number, message: "\"\(field.trimmingSpaces)\" is not a time")
                }
                if name == "start" {
                    start = t
                } else if t < start, format.firstIndex(of: "start") != nil {
                    throw SubtitleError(file: file, line: number, message: "the event ends before it starts")
                }
            }
            if let i = format.firstIndex(of: "text"), i < fields.count {
                for name in overrideFonts(fields[i]) { addFamily(name) }
            }
            events += 1
        }
        let last = lines.lastIndex { !isBlank($0) }.map { $0 + 1 } ?? 1
        if events == 0 && !lines.contains(where: { $0.trimmingSpaces.lowercased() == "[events]" }) {
            throw SubtitleError(file: file, line: last, message: "the script has no [Events] section")
        }
        // libass knows a script's kind from its ScriptType or its styles' section.
        if !hasKind {
            throw SubtitleError(
                file: file, line: last, message: "the script has neither a ScriptType line nor a [V4+ Styles] section")
        }
        var document = SubtitleDocument(
            format: .ass, script: text, cues: [], eventCount: events, fontFamilies: families)
        document.embeddedFonts = embedded
        return document
    }

    /// ASS's `H:MM:SS.cc`, in milliseconds, read as libass reads it: the digits after the
    /// point are centiseconds, however many there are (`.5` is 50 ms).
    package static func assTime(_ text: String) -> Int64? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, let h = digits(fields[0]), let m = digits(fields[1]) else { return nil }
        let sec = fields[2].split(separator: ".", omittingEmptySubsequences: false)
        guard sec.count == 2, let s = digits(sec[0]), sec[1].count <= 3, let cs = digits(sec[1]) else { return nil }
        return ((h * 60 + m) * 60 + s) * 1000 + cs * 10
    }

    /// The families `\fn` overrides name in an event's text.
    static func overrideFonts(_ text: Substring) -> [Substring] {
        var out: [Substring] = []
        var rest = text
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            let block = rest[rest.index(after: open)..<close]
            for tag in block.split(separator: "\\").dropFirst(block.hasPrefix("\\") ? 0 : 1) where tag.hasPrefix("fn") {
                out.append(tag.dropFirst(2))
            }
            rest = rest[rest.index(after: close)...]
        }
        return out
    }
}

extension Substring {
    var trimmingSpaces: String { String(self).trimmingWhitespace() }
}
