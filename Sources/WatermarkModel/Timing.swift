// Time windows, fades and live-text placeholders. Pure values.

/// When a layer is visible: a window of stream time with optional fades. Pure values.
import Glibc

package struct LayerTiming: Sendable, Equatable {
    /// Seconds of stream time; `end` < 0 means until the stream ends.
    package var start: Double = 0
    package var end: Double = -1
    package var fadeIn: Double = 0
    package var fadeOut: Double = 0

    package init(start: Double = 0, end: Double = -1, fadeIn: Double = 0, fadeOut: Double = 0) {
        self.start = start
        self.end = end
        self.fadeIn = fadeIn
        self.fadeOut = fadeOut
    }

    package var isAlwaysOn: Bool { start <= 0 && end < 0 && fadeIn <= 0 && fadeOut <= 0 }

    /// Opacity factor 0...1 at stream time `t` seconds (nil time = visible).
    package func factor(at t: Double?) -> Double {
        guard let t, t.isFinite else { return 1 }
        if t < start { return 0 }
        if end >= 0 && t >= end { return 0 }
        var f = 1.0
        if fadeIn > 0 && t < start + fadeIn { f = min(f, (t - start) / fadeIn) }
        if fadeOut > 0 && end >= 0 && t > end - fadeOut { f = min(f, (end - t) / fadeOut) }
        return min(max(f, 0), 1)
    }
}

/// What a frame's placeholders expand from.
package struct FrameClock: Sendable {
    package var pts: Double?
    package var streamTime: Double?
    package var runningTime: Double?
    package var frame: Int
    /// Frames per second (0 when unknown).
    package var fps: Double
    /// Wall clock, seconds since the Unix epoch.
    package var wallClock: Double
    /// When the camera captured the frame, seconds since the Unix epoch, in the camera's
    /// own clock (a network camera's NTP time: a GstReferenceTimestampMeta); nil when the
    /// frame carries none, and `{camera-clock}` shows the wall clock.
    package var cameraClock: Double?
    /// The frame's own time code (from a GstVideoTimeCodeMeta), which `{timecode}` prefers
    /// over one counted from the stream time.
    package var timecode: String?
    /// What `{var:NAME}` shows.
    package var variables = Variables()
    /// What `{data:FIELD}` shows, at `streamTime`.
    package var data: TimedData?

    package init(
        pts: Double? = nil, streamTime: Double? = nil, runningTime: Double? = nil, frame: Int = 0,
        fps: Double = 0, wallClock: Double = 0
    ) {
        self.pts = pts
        self.streamTime = streamTime
        self.runningTime = runningTime
        self.frame = frame
        self.fps = fps
        self.wallClock = wallClock
    }
}

/// How a `{data:FIELD:FORMAT}` shows its value: one printf conversion for a number (`%.1f`),
/// or strftime conversions for a time of day (`%H:%M:%S`, `%Y-%m-%d`, `%f` for milliseconds).
package enum DataFormat: Sendable, Equatable {
    case number(NumberFormat)
    case clock(String)

    package init?(_ text: String) {
        if let n = NumberFormat(text) {
            self = .number(n)
        } else if text.contains("%"), text.utf8.count <= 64 {
            // strftime: every % starts a conversion letter (or %%).
            let u = Array(text.utf8)
            var i = 0
            while i < u.count {
                if u[i] == UInt8(ascii: "%") {
                    guard i + 1 < u.count, Character(Unicode.Scalar(u[i + 1])).isLetter || u[i + 1] == UInt8(ascii: "%")
                    else { return nil }
                    i += 1
                }
                i += 1
            }
            self = .clock(text)
        } else {
            return nil
        }
    }
}

/// Text with live placeholders, parsed once: `{pts}`, `{stream-time}`, `{running-time}`
/// (h:mm:ss.mmm), `{timecode}` (HH:MM:SS:FF), `{frame}`, `{clock:FORMAT}` (local time,
/// strftime FORMAT plus `%f` for milliseconds), `{camera-clock:FORMAT}` (the same, at the
/// time the camera stamped the frame); `{{` and `}}` are literal braces. Unknown
/// placeholders stay as written.
package struct TextTemplate: Sendable, Equatable {
    package enum Part: Sendable, Equatable {
        case literal(String)
        case pts, streamTime, runningTime, timecode, frame
        case clock(String)
        /// `{camera-clock:FORMAT}`: the camera's capture time where the frame has one.
        case cameraClock(String)
        /// `{var:NAME}`, `{var:NAME:FORMAT}`.
        case variable(String, NumberFormat?)
        /// `{data:FIELD}`, `{data:FIELD:FORMAT}`: a timed-data field at the frame's time.
        case data(String, DataFormat?)
    }

    package let parts: [Part]
    /// The variables the text shows, in order of first use.
    package let variableNames: [String]
    /// The data fields the text shows, and whether through a number format.
    package let dataFields: [(name: String, numeric: Bool)]
    /// Whether the text shows `{camera-clock}`.
    package var showsCameraClock: Bool {
        parts.contains { if case .cameraClock = $0 { true } else { false } }
    }

    package static func == (a: TextTemplate, b: TextTemplate) -> Bool { a.parts == b.parts }

    package init(_ text: String) {
        var parts: [Part] = []
        var literal = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            if c == "{", next < text.endIndex, text[next] == "{" {
                literal.append("{")
                i = text.index(after: next)
                continue
            }
            if c == "}", next < text.endIndex, text[next] == "}" {
                literal.append("}")
                i = text.index(after: next)
                continue
            }
            if c == "{", let close = text[next...].firstIndex(of: "}") {
                let name = String(text[next..<close])
                let part: Part? =
                    switch name {
                    case "pts": .pts
                    case "stream-time": .streamTime
                    case "running-time": .runningTime
                    case "timecode": .timecode
                    case "frame": .frame
                    case "camera-clock": .cameraClock("%H:%M:%S")
                    case _ where name.hasPrefix("camera-clock:"): .cameraClock(String(name.dropFirst(13)))
                    case _ where name.hasPrefix("var:"): Self.variable(name.dropFirst(4))
                    case _ where name.hasPrefix("data:"): Self.dataField(name.dropFirst(5))
                    default:
                        name.hasPrefix("clock:")
                            ? .clock(String(name.dropFirst(6))) : (name == "clock" ? .clock("%H:%M:%S") : nil)
                    }
                if let part {
                    if !literal.isEmpty {
                        parts.append(.literal(literal))
                        literal = ""
                    }
                    parts.append(part)
                    i = text.index(after: close)
                    continue
                }
            }
            literal.append(c)
            i = next
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        var names: [String] = []
        for case .variable(let name, _) in parts where !names.contains(name) { names.append(name) }
        variableNames = names
        var fields: [(name: String, numeric: Bool)] = []
        for case .data(let name, let format) in parts {
            if let k = fields.firstIndex(where: { $0.name == name }) {
                fields[k].numeric = fields[k].numeric || format != nil
            } else {
                fields.append((name, format != nil))
            }
        }
        dataFields = fields
    }

    /// `FIELD` or `FIELD:FORMAT` of a `{data:…}`: a field is named by anything up to the
    /// first `:` (a CSV header may hold spaces); nil for an empty name or a format that is
    /// not a single number conversion.
    static func dataField(_ spec: Substring) -> Part? {
        let pieces = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(pieces[0])
        guard !name.isEmpty, !name.contains("{") else { return nil }
        guard pieces.count == 2 else { return .data(name, nil) }
        guard let format = DataFormat(String(pieces[1])) else { return nil }
        return .data(name, format)
    }

    /// `NAME` or `NAME:FORMAT` of a `{var:…}`; nil (the placeholder stays as written) for a
    /// name that is not one or a format that is not a single number conversion.
    static func variable(_ spec: Substring) -> Part? {
        let pieces = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(pieces[0])
        guard Variables.isName(name) else { return nil }
        guard pieces.count == 2 else { return .variable(name, nil) }
        guard let format = NumberFormat(String(pieces[1])) else { return nil }
        return .variable(name, format)
    }

    /// True when the text has no placeholders (it never changes per frame).
    package var isStatic: Bool { parts.allSatisfy { if case .literal = $0 { true } else { false } } }

    package func expand(_ clock: FrameClock) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let s): out += s
            case .pts: out += Self.hms(clock.pts)
            case .streamTime: out += Self.hms(clock.streamTime)
            case .runningTime: out += Self.hms(clock.runningTime)
            case .frame: out += String(clock.frame)
            case .timecode: out += clock.timecode ?? Self.timecode(clock.streamTime ?? clock.pts, fps: clock.fps)
            case .clock(let format): out += Self.wallClock(clock.wallClock, format: format)
            case .cameraClock(let format): out += Self.wallClock(clock.cameraClock ?? clock.wallClock, format: format)
            case .variable(let name, let format): out += clock.variables[name]?.text(format) ?? ""
            case .data(let name, let format):
                out += clock.data?.text(name, at: clock.streamTime ?? clock.pts, format) ?? ""
            }
        }
        return out
    }

    static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    /// h:mm:ss.mmm ("-:--:--.---" when unknown).
    package static func hms(_ seconds: Double?) -> String {
        // Beyond ~31 700 years the value cannot be a stream time; never convert it to Int.
        guard let s = seconds, s.isFinite, s >= 0, s < 1e12 else { return "-:--:--.---" }
        let ms = Int((s * 1000).rounded(.down))
        let h = ms / 3_600_000, m = ms / 60_000 % 60, sec = ms / 1000 % 60, milli = ms % 1000
        let mmm = milli < 10 ? "00\(milli)" : milli < 100 ? "0\(milli)" : "\(milli)"
        return "\(h):\(two(m)):\(two(sec)).\(mmm)"
    }

    /// HH:MM:SS:FF at `fps` (frames counted from the time).
    package static func timecode(_ seconds: Double?, fps: Double) -> String {
        guard let s = seconds, s.isFinite, s >= 0, s < 1e12, fps > 0, fps < 1e6 else { return "--:--:--:--" }
        let whole = Int(s)
        let rate = Int(fps.rounded())
        let frames = min(rate - 1, Int(((s - Double(whole)) * fps + 1e-6).rounded(.down)))
        return "\(two(whole / 3600)):\(two(whole / 60 % 60)):\(two(whole % 60)):\(two(max(0, frames)))"
    }

    /// strftime in UTC (a time shown as its source wrote it), with `%f` for milliseconds.
    package static func utcClock(_ seconds: Double, format: String) -> String {
        wallClock(seconds, format: format, utc: true)
    }

    /// strftime in local time, with `%f` for milliseconds.
    package static func wallClock(_ seconds: Double, format: String, utc: Bool = false) -> String {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "" }
        var t = time_t(seconds.rounded(.down))
        let millis = min(999, Int(((seconds - Double(t)) * 1000 + 1e-6).rounded(.down)))
        let fmt = format.replacingAll(
            "%f", with: millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)")
        var tmv = tm()
        if utc { gmtime_r(&t, &tmv) } else { localtime_r(&t, &tmv) }
        var buffer = [CChar](repeating: 0, count: 256)
        let n = strftime(&buffer, buffer.count, fmt, &tmv)
        return n > 0 ? String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }
}
