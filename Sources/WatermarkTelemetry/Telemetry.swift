// One door for every data file: a GoPro recording (its GPMF track), a GPX track, a DJI
// subtitle log, or else a CSV / JSON Lines table. Each becomes a `TimedData` whose fields
// have the same names whatever the source.

import WatermarkModel

package enum Telemetry {
    /// What kind of file a data file is, from its first bytes (and name).
    package enum Kind: Sendable, Equatable {
        case gopro, gpx, dji, table
    }

    package static func kind(of path: String, head: [UInt8]) -> Kind {
        if head.count >= 8, String(decoding: head[4..<8], as: UTF8.self) == "ftyp" { return .gopro }
        let text = String(decoding: head.prefix(1024), as: UTF8.self)
        if text.has("<gpx") || (path.lowercased().hasSuffix(".gpx") && text.has("<?xml")) { return .gpx }
        if DJI.looksLikeDJI(head) { return .dji }
        return .table
    }

    /// The file read and placed; `summary` is a line for the log (nil for a table).
    package static func load(_ spec: DataSpec) throws(ConfigError) -> (data: TimedData, summary: String?) {
        guard let file = FileBytes(path: spec.file) else {
            // The table reader names the reason (not found, a directory, …).
            return (try spec.load(), nil)
        }
        let head = file.read(0, min(file.count, 4096)) ?? []
        switch kind(of: spec.file, head: head) {
        case .table:
            return (try spec.load(), nil)
        case .gopro:
            let found: (packets: [(sample: TrackSample, bytes: [UInt8])], created: Double?)?
            do {
                found = try GoPro.packets(file)
            } catch {
                throw ConfigError(file: spec.file, line: 0, column: 0, message: error.message)
            }
            guard let (packets, created) = found else {
                throw ConfigError(
                    file: spec.file, line: 0, column: 0, message: "has no GoPro telemetry track (gpmd, \"GoPro MET\")")
            }
            let (series, summary) = GoPro.fields(packets, creation: created)
            guard !series.isEmpty else {
                throw ConfigError(
                    file: spec.file, line: 0, column: 0,
                    message: "its telemetry track has no GPS fix or accelerometer samples that can be used")
            }
            return (table(spec, series, absolute: false), summary.line)
        case .gpx:
            guard let bytes = file.read(0, min(file.count, DataTable.maxFileBytes)) else {
                throw ConfigError(file: spec.file, line: 0, column: 0, message: "cannot be read")
            }
            let points = try GPX.points(bytes, file: spec.file)
            let series = try GPX.fields(points, file: spec.file)
            let untimed = points.filter { $0.time == nil }.count
            return (
                table(spec, series, absolute: true),
                "GPX track: \(points.count - untimed) point(s)"
                    + (untimed > 0 ? ", \(untimed) without a time skipped" : "")
            )
        case .dji:
            guard let bytes = file.read(0, min(file.count, DataTable.maxFileBytes)) else {
                throw ConfigError(file: spec.file, line: 0, column: 0, message: "cannot be read")
            }
            let (points, skipped) = try DJI.points(bytes, file: spec.file)
            let series = DJI.fields(points)
            guard !series.isEmpty else {
                throw ConfigError(file: spec.file, line: 0, column: 0, message: "no cue has a usable position")
            }
            return (
                table(spec, series, absolute: false),
                "DJI telemetry: \(points.count) cue(s)" + (skipped > 0 ? ", \(skipped) without a position skipped" : "")
            )
        }
    }

    /// A table of derived fields, the step fields held.
    static func table(_ spec: DataSpec, _ series: [String: DataSeries], absolute: Bool) -> TimedData {
        var series = series
        for name in spec.step { series[name]?.stepped = true }
        let names = series.keys.sorted()
        let first = series.values.compactMap(\.times.first).min() ?? 0
        let rows = series.values.map(\.times.count).max() ?? 0
        return TimedData(
            table: DataTable(
                file: spec.file, names: names, series: series, timeColumn: "time", absolute: absolute, firstTime: first,
                rowCount: rows),
            offset: spec.offset)
    }
}
