// GPX 1.1 tracks (`trkpt` with lat/lon attributes, `ele`, `time`) with Garmin's
// TrackPointExtension (`hr`, `cad`, `atemp`) and power (`power`, any namespace prefix), read
// with GLib's GMarkup. Times are absolute: the track is aligned by the video's creation time.

internal import CGLib
import WatermarkModel

package struct GPXPoint: Sendable, Equatable {
    package var latitude: Double
    package var longitude: Double
    package var elevation: Double?
    package var time: Double?
    package var heartRate: Double?
    package var cadence: Double?
    package var power: Double?
    package var temperature: Double?
    /// The line it starts on.
    package var line: Int
}

package enum GPX {
    /// Every track point of a GPX document; a positioned error for XML that is not well formed
    /// or a point without a usable lat/lon.
    package static func points(_ bytes: [UInt8], file: String) throws(ConfigError) -> [GPXPoint] {
        let state = ParseState(file: file)
        var parser = GMarkupParser()
        parser.start_element = { context, name, names, values, data, _ in
            guard let data, let name else { return }
            let s = Unmanaged<ParseState>.fromOpaque(data).takeUnretainedValue()
            var line: gint = 0, column: gint = 0
            g_markup_parse_context_get_position(context, &line, &column)
            var attributes: [String: String] = [:]
            var i = 0
            while let n = names?[i], let v = values?[i] {
                attributes[String(cString: n)] = String(cString: v)
                i += 1
            }
            s.start(GPX.local(String(cString: name)), attributes, line: Int(line), column: Int(column))
        }
        parser.end_element = { _, name, data, _ in
            guard let data, let name else { return }
            Unmanaged<ParseState>.fromOpaque(data).takeUnretainedValue().end(GPX.local(String(cString: name)))
        }
        parser.text = { _, text, length, data, _ in
            guard let data, let text else { return }
            let s = Unmanaged<ParseState>.fromOpaque(data).takeUnretainedValue()
            s.text += String(decoding: UnsafeRawBufferPointer(start: text, count: Int(length)), as: UTF8.self)
        }
        let box = Unmanaged.passRetained(state)
        defer { box.release() }
        var error: UnsafeMutablePointer<GError>?
        let ok = withUnsafePointer(to: &parser) { p -> Bool in
            guard let context = g_markup_parse_context_new(p, G_MARKUP_TREAT_CDATA_AS_TEXT, box.toOpaque(), nil) else {
                return false
            }
            defer { g_markup_parse_context_free(context) }
            let fed = bytes.withUnsafeBufferPointer { b -> gboolean in
                b.baseAddress.map { base in
                    base.withMemoryRebound(to: gchar.self, capacity: b.count) {
                        g_markup_parse_context_parse(context, $0, gssize(b.count), &error)
                    }
                } ?? 1
            }
            guard fed != 0 else { return false }
            return g_markup_parse_context_end_parse(context, &error) != 0
        }
        if let failure = state.failure { throw failure }
        if !ok {
            // GMarkup's message says "Error on line N char M: …".
            let message = error.map { String(cString: $0.pointee.message) } ?? "not well-formed XML"
            if let error { g_error_free(error) }
            throw ConfigError(file: file, line: 0, column: 0, message: message)
        }
        if !state.sawGPX {
            throw ConfigError(file: file, line: 1, column: 1, message: "not a GPX file (no <gpx> element)")
        }
        return state.points
    }

    /// The local part of a qualified name (`gpxtpx:hr` → `hr`).
    static func local(_ name: String) -> String {
        name.firstIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }

    final class ParseState {
        let file: String
        var points: [GPXPoint] = []
        var current: GPXPoint?
        var text = ""
        var sawGPX = false
        var failure: ConfigError?
        var elementLine = 0

        init(file: String) { self.file = file }

        func start(_ name: String, _ attributes: [String: String], line: Int, column: Int) {
            text = ""
            elementLine = line
            switch name {
            case "gpx": sawGPX = true
            case "trkpt":
                guard failure == nil else { return }
                guard let lat = attributes["lat"].flatMap({ Double($0) }),
                    let lon = attributes["lon"].flatMap({ Double($0) }),
                    (-90...90).contains(lat), (-180...180).contains(lon)
                else {
                    failure = ConfigError(
                        file: file, line: line, column: column, field: "trkpt",
                        message: "lat and lon must be degrees (-90…90, -180…180)")
                    return
                }
                current = GPXPoint(latitude: lat, longitude: lon, line: line)
            default: break
            }
        }

        func end(_ name: String) {
            let value = text.trimmingCharacters(in: " \t\r\n")
            defer { text = "" }
            guard current != nil else { return }
            switch name {
            case "ele": current?.elevation = Double(value)
            case "time": current?.time = DataTime.iso8601(value)
            case "hr": current?.heartRate = Double(value)
            case "cad": current?.cadence = Double(value)
            case "power", "PowerInWatts": current?.power = Double(value)
            case "atemp", "temp": current?.temperature = Double(value)
            case "trkpt":
                if let p = current { points.append(p) }
                current = nil
            default: break
            }
        }
    }

    /// The fields of a track: positions through `Track.fields` (times since the Unix epoch),
    /// and the extensions' heart rate, cadence, power and temperature.
    package static func fields(_ points: [GPXPoint], file: String) throws(ConfigError) -> [String: DataSeries] {
        let timed = points.filter { $0.time != nil }
        guard !timed.isEmpty else {
            throw ConfigError(
                file: file, line: points.first?.line ?? 0, column: 0,
                message: points.isEmpty
                    ? "no track points (trkpt)" : "no track point has a <time>: a track must be timed to follow a video"
            )
        }
        let track = timed.map {
            TrackPoint(time: $0.time ?? 0, latitude: $0.latitude, longitude: $0.longitude, altitude: $0.elevation)
        }
        var series = Track.fields(track, clock: { $0.time })
        func add(_ name: String, _ value: KeyPath<GPXPoint, Double?>) {
            let known = timed.compactMap { p in p[keyPath: value].map { (p.time ?? 0, $0) } }.sorted { $0.0 < $1.0 }
            if !known.isEmpty { series[name] = DataSeries(times: known.map(\.0), numbers: known.map(\.1)) }
        }
        add("heart_rate", \.heartRate)
        add("cadence", \.cadence)
        add("power", \.power)
        add("temperature", \.temperature)
        return series
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        let s = Set(set)
        guard let first = firstIndex(where: { !s.contains($0) }), let last = lastIndex(where: { !s.contains($0) })
        else {
            return ""
        }
        return String(self[first...last])
    }
}

extension String {
    /// Whether `target` occurs in the string (byte by byte).
    func has(_ target: String) -> Bool { Substring(self).byteRange(of: target) != nil }
}
