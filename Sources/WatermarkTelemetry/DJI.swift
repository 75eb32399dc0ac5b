// DJI drones' per-frame subtitle telemetry (.SRT beside the video): numbered cues, each with
// a time range and lines of values in the variants found in the field:
//   [latitude: 22.5432] [longitude: 113.9458] [rel_alt: 1.2 abs_alt: 469.8]   (one bracket, two pairs)
//   [latitude : 22.5432] [longtitude : 113.9458] [altitude: 12.3]             (spaces, a misspelling)
//   FrameCnt: 12, DiffTime: 33ms  /  SrtCnt : 12, DiffTime : 33ms
//   GPS(113.9458,22.5432,20) BAROMETER:20.5                                   (older models)
// and a date and time line (`2023-04-01 12:00:00.123`, or `2023.04.01 12:00:00`) in the
// drone's local time, shown as written.

import WatermarkModel

package struct DJIPoint: Sendable, Equatable {
    /// Seconds from the video's start (the cue's start).
    package var time: Double
    package var latitude: Double?
    package var longitude: Double?
    package var altitude: Double?
    package var relativeAltitude: Double?
    /// The cue's date and time as written (seconds since the Unix epoch, taken as UTC).
    package var clock: Double?
}

package enum DJI {
    /// Whether the text looks like DJI subtitle telemetry (a cue with coordinates).
    package static func looksLikeDJI(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self).lowercased()
        return head.has("-->") && (head.has("latitude") || head.has("gps("))
    }

    /// The cues' values; cues without coordinates are counted in `skipped`.
    package static func points(_ bytes: [UInt8], file: String) throws(ConfigError) -> (points: [DJIPoint], skipped: Int)
    {
        let text = String(decoding: bytes, as: UTF8.self).replacingAll("\r\n", with: "\n")
        var points: [DJIPoint] = []
        var skipped = 0
        var lineNumber = 0
        var cue: DJIPoint?
        func finish() {
            guard let c = cue else { return }
            if c.latitude != nil && c.longitude != nil { points.append(c) } else { skipped += 1 }
            cue = nil
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = String(raw)
            if line.has("-->") {
                finish()
                guard let start = cueTime(line) else {
                    throw ConfigError(
                        file: file, line: lineNumber, column: 1,
                        message: "\"\(line)\" is not a cue time (00:00:01,000 --> 00:00:01,033)")
                }
                cue = DJIPoint(time: start)
                continue
            }
            guard cue != nil else { continue }
            read(line, into: &cue)
        }
        finish()
        guard !points.isEmpty else {
            throw ConfigError(
                file: file, line: 0, column: 0,
                message: skipped > 0 ? "none of its \(skipped) cue(s) has a latitude and longitude" : "no subtitle cues"
            )
        }
        return (points, skipped)
    }

    /// `HH:MM:SS,mmm --> …`: the start in seconds.
    static func cueTime(_ line: String) -> Double? {
        guard line.has("-->") else { return nil }
        // Cue times hold no '-': the start is everything before the arrow.
        let start = String(line.prefix { $0 != "-" }).trimmingCharacters(in: " \t").replacingAll(",", with: ".")
        return DataTime.parse(start).flatMap { $0.1 ? nil : $0.0 }
    }

    /// The values of one line of a cue.
    static func read(_ line: String, into cue: inout DJIPoint?) {
        var stripped = line
        // Font tags around the text.
        while let open = stripped.firstIndex(of: "<"), let close = stripped[open...].firstIndex(of: ">") {
            stripped.removeSubrange(open...close)
        }
        // A date and time line.
        let trimmed = stripped.trimmingCharacters(in: " \t")
        if let d = dateTime(trimmed) {
            cue?.clock = d
            return
        }
        // key: value pairs, in brackets or not, with or without a space before the colon.
        var pairs: [(String, String)] = []
        let cleaned = stripped.replacingAll("[", with: " ").replacingAll("]", with: " ").replacingAll(" :", with: ":")
            .replacingAll(",", with: " ")
        let words = cleaned.split(separator: " ").map(String.init)
        var i = 0
        while i < words.count {
            let w = words[i]
            if w.hasSuffix(":"), i + 1 < words.count {
                pairs.append((String(w.dropLast()).lowercased(), words[i + 1]))
                i += 2
            } else if let colon = w.firstIndex(of: ":"), colon != w.startIndex {
                pairs.append((String(w[..<colon]).lowercased(), String(w[w.index(after: colon)...])))
                i += 1
            } else {
                i += 1
            }
        }
        for (key, value) in pairs {
            let v = Double(value.filter { $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" })
            switch key {
            case "latitude", "lat": cue?.latitude = v
            case "longitude", "longtitude", "lon", "lng": cue?.longitude = v
            case "abs_alt", "altitude", "alt": cue?.altitude = v
            case "rel_alt": cue?.relativeAltitude = v
            // The older models' barometric altitude is finer than their GPS one.
            case "barometer": cue?.altitude = v
            default: break
            }
        }
        // GPS(lon,lat,alt) of the older models.
        if let r = Substring(stripped).byteRange(of: "GPS("), let close = stripped[r.upperBound...].firstIndex(of: ")")
        {
            let parts = stripped[r.upperBound..<close].split(separator: ",").map {
                Double(String($0).trimmingCharacters(in: " "))
            }
            if parts.count >= 2, let lon = parts[0], let lat = parts[1] {
                cue?.longitude = lon
                cue?.latitude = lat
                if parts.count >= 3, let alt = parts[2], cue?.altitude == nil { cue?.altitude = alt }
            }
        }
    }

    /// The first `2023-04-01 12:00:00.123` or `2023.04.01 12:00:00` in a line.
    static func dateTime(_ s: String) -> Double? {
        let u = Array(s.utf8.prefix(200))
        guard u.count >= 19 else { return nil }
        for start in 0...(u.count - 19) where u[start] >= 48 && u[start] <= 57 {
            var iso = Array(u[start...])
            guard iso[4] == UInt8(ascii: "-") || iso[4] == UInt8(ascii: "."), iso[7] == iso[4],
                iso[10] == UInt8(ascii: " ")
            else { continue }
            iso[4] = UInt8(ascii: "-")
            iso[7] = UInt8(ascii: "-")
            var end = 19
            if end < iso.count, iso[end] == UInt8(ascii: ".") || iso[end] == UInt8(ascii: ",") {
                end += 1
                while end < iso.count, iso[end] >= 48, iso[end] <= 57 { end += 1 }
            }
            if let t = DataTime.iso8601(String(decoding: iso[0..<end], as: UTF8.self)) { return t }
        }
        return nil
    }

    package static func fields(_ points: [DJIPoint]) -> [String: DataSeries] {
        let track = points.compactMap { p -> TrackPoint? in
            guard let lat = p.latitude, let lon = p.longitude, (-90...90).contains(lat), (-180...180).contains(lon),
                lat != 0 || lon != 0
            else { return nil }
            return TrackPoint(time: p.time, latitude: lat, longitude: lon, altitude: p.altitude)
        }
        let clocks = Dictionary(
            points.compactMap { p in p.clock.map { (p.time, $0) } }, uniquingKeysWith: { a, _ in a })
        var series = Track.fields(track, clock: { clocks[$0.time] }, asWritten: true)
        let rel = points.compactMap { p in p.relativeAltitude.map { (p.time, $0) } }.sorted { $0.0 < $1.0 }
        if !rel.isEmpty { series["relative_altitude"] = DataSeries(times: rel.map(\.0), numbers: rel.map(\.1)) }
        return series
    }
}
