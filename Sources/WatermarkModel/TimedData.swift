// Timed data: values recorded beside a video (a temperature log, lap times, a car's CAN
// data), read once from CSV or JSON Lines into one series per field, and looked up per
// frame at the frame's stream time. Pure values; the reader never traps on any input.

import Glibc

/// One field's values over time, sorted by time. Numbers are interpolated (or stepped),
/// strings hold; before the first sample and after the last, the first and last hold.
package struct DataSeries: Sendable {
    package enum Values: Sendable {
        case numbers([Double])
        case strings([String])
    }

    /// Numbers that are times of day (seconds since the Unix epoch), shown as `%H:%M:%S`
    /// unless a format says otherwise: in local time, or (`asWritten`) as the source wrote
    /// them, when it gave no zone.
    package enum Clock: Sendable { case local, asWritten }

    package let times: [Double]
    package let values: Values
    /// Held from one sample to the next instead of interpolated.
    package var stepped = false
    /// Where the first value that is not a number is (for a numeric format's error).
    package let firstText: (line: Int, column: Int, text: String)?
    package var clock: Clock?

    init(times: [Double], values: Values, firstText: (line: Int, column: Int, text: String)?) {
        self.times = times
        self.values = values
        self.firstText = firstText
    }

    /// A numeric series (`times` sorted, as many as `numbers`).
    package init(times: [Double], numbers: [Double], clock: Clock? = nil) {
        let n = min(times.count, numbers.count)
        self.init(times: Array(times.prefix(n)), values: .numbers(Array(numbers.prefix(n))), firstText: nil)
        self.clock = clock
    }

    /// The value at `t` as a text shows it: through `format` (a number or, for a time of
    /// day, strftime conversion), a time of day as `%H:%M:%S`, else as `VariableValue.text`.
    package func text(at t: Double, _ format: DataFormat?) -> String {
        guard let v = value(at: t) else { return "" }
        switch (format, v) {
        case (.number(let f), _): return v.text(f)
        case (.clock(let f), .double(let d)):
            return clock == .asWritten ? TextTemplate.utcClock(d, format: f) : TextTemplate.wallClock(d, format: f)
        case (nil, .double(let d)) where clock != nil:
            return clock == .asWritten
                ? TextTemplate.utcClock(d, format: "%H:%M:%S") : TextTemplate.wallClock(d, format: "%H:%M:%S")
        default: return v.text(nil)
        }
    }

    package var isNumeric: Bool { if case .numbers = values { true } else { false } }

    /// The value at data time `t`.
    package func value(at t: Double) -> VariableValue? {
        guard let last = times.indices.last else { return nil }
        // The last sample at or before t (0 before the first).
        var lo = 0, hi = last
        if t >= times[last] {
            lo = last
        } else {
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if times[mid] <= t { lo = mid } else { hi = mid - 1 }
            }
        }
        switch values {
        case .strings(let s): return .string(s[lo])
        case .numbers(let v):
            guard !stepped, lo < last, t > times[lo], t.isFinite else { return .double(v[lo]) }
            let span = times[lo + 1] - times[lo]
            guard span > 0 else { return .double(v[lo]) }
            let p = (t - times[lo]) / span
            return .double(v[lo] + (v[lo + 1] - v[lo]) * p)
        }
    }
}

/// A data file's fields, by name, each a series over the file's time column.
package final class DataTable: Sendable {
    package let file: String
    /// Field names in the file's order (the time column is not one).
    package let names: [String]
    package let series: [String: DataSeries]
    /// The time column's name.
    package let timeColumn: String
    /// Times are seconds since the Unix epoch (ISO 8601 in the file), not from the video's start.
    package let absolute: Bool
    /// The first row's time.
    package let firstTime: Double
    package let rowCount: Int

    package init(
        file: String, names: [String], series: [String: DataSeries], timeColumn: String, absolute: Bool,
        firstTime: Double, rowCount: Int
    ) {
        self.file = file
        self.names = names
        self.series = series
        self.timeColumn = timeColumn
        self.absolute = absolute
        self.firstTime = firstTime
        self.rowCount = rowCount
    }

    package static let maxFileBytes = 256 << 20
    package static let maxFields = 1024
    /// Names a time column is found by, in order, when none is named.
    package static let timeNames = ["time", "t", "timestamp", "seconds", "elapsed"]

    package subscript(field: String) -> DataSeries? { series[field] }

    /// Reads a CSV or JSON Lines file (chosen by its first character that is not a space:
    /// `{` for JSON Lines); `step` names the fields held between rows.
    package static func load(
        path: String, timeColumn: String? = nil, step: Set<String> = []
    ) throws(ConfigError) -> DataTable {
        let bytes: [UInt8]
        switch readFile(path, limit: maxFileBytes) {
        case .success(let b): bytes = b
        case .failure(let e): throw ConfigError(file: path, line: 0, column: 0, message: e.reason)
        }
        return try parse(bytes, file: path, timeColumn: timeColumn, step: step)
    }

    package static func parse(
        _ bytes: [UInt8], file: String, timeColumn: String? = nil, step: Set<String> = []
    ) throws(ConfigError) -> DataTable {
        var reader = DataRows(bytes: bytes, file: file)
        let rows = try reader.read()
        return try build(rows, file: file, timeColumn: timeColumn, step: step)
    }

    /// One cell as read: its text (or JSON value) and where it starts.
    struct Cell {
        enum Value {
            case text(String)
            case number(Double)
        }
        var value: Value
        var line: Int
        var column: Int
    }

    /// The rows of a file: the field names (in first-seen order) and each row's cells by name.
    struct Rows {
        var names: [String]
        var rows: [[String: Cell]]
        /// Where each row starts (for a row without a time).
        var rowLines: [Int]
    }

    private static func build(
        _ rows: Rows, file: String, timeColumn: String?, step: Set<String>
    ) throws(ConfigError) -> DataTable {
        func fail(_ line: Int, _ column: Int, _ field: String?, _ message: String) -> ConfigError {
            ConfigError(file: file, line: line, column: column, field: field, message: message)
        }
        let columns = rows.names.joined(separator: ", ")
        let time: String
        if let timeColumn {
            guard rows.names.contains(timeColumn) else {
                throw fail(1, 1, nil, "no time column \"\(timeColumn)\" (columns: \(columns))")
            }
            time = timeColumn
        } else {
            guard
                let found = timeNames.lazy.compactMap({ n in rows.names.first { $0.lowercased() == n } }).first
            else {
                throw fail(
                    1, 1, nil,
                    "no time column (one named \(timeNames.joined(separator: ", ")), or name it; columns: \(columns))")
            }
            time = found
        }
        guard !rows.rows.isEmpty else { throw fail(1, 1, nil, "no rows of data") }
        for name in step where !rows.names.contains(name) || name == time {
            throw fail(0, 0, nil, "step: no field \"\(name)\" (columns: \(columns))")
        }
        // Every row's time, all of one kind (seconds or ISO 8601).
        var times: [Double] = []
        times.reserveCapacity(rows.rows.count)
        var absolute: Bool?
        for (r, row) in rows.rows.enumerated() {
            guard let cell = row[time] else {
                throw fail(rows.rowLines[r], 1, time, "row without a time")
            }
            let parsed: (Double, Bool)?
            switch cell.value {
            case .number(let n): parsed = n.isFinite ? (n, false) : nil
            case .text(let s): parsed = DataTime.parse(s)
            }
            guard let (t, isAbsolute) = parsed else {
                throw fail(
                    cell.line, cell.column, time,
                    "\(quoted(cell)) is not a time (seconds, [h:]mm:ss.fff or ISO 8601 like 2026-05-01T10:00:00Z)")
            }
            if let absolute, absolute != isAbsolute {
                throw fail(
                    cell.line, cell.column, time,
                    "\(quoted(cell)) mixes \(isAbsolute ? "a date and time" : "seconds") with the \(absolute ? "dates and times" : "seconds") of the rows above"
                )
            }
            absolute = isAbsolute
            times.append(t)
        }
        // Rows in time order (stable, so equal times keep the file's order).
        let order = times.indices.sorted { times[$0] < times[$1] || (times[$0] == times[$1] && $0 < $1) }
        let names = rows.names.filter { $0 != time }
        guard names.count <= maxFields else { throw fail(1, 1, nil, "\(names.count) fields; at most \(maxFields)") }
        var series: [String: DataSeries] = [:]
        for name in names {
            var t: [Double] = [], numbers: [Double] = [], texts: [String] = []
            var firstText: (line: Int, column: Int, text: String)?
            for r in order {
                guard let cell = rows.rows[r][name] else { continue }
                t.append(times[r])
                switch cell.value {
                case .number(let n):
                    numbers.append(n)
                    texts.append(PropertyDefinition.format(n))
                case .text(let s):
                    if let n = Double(s.trimmingSpaces), n.isFinite, s.contains(where: \.isNumber) {
                        numbers.append(n)
                    } else if firstText == nil {
                        firstText = (cell.line, cell.column, s)
                    }
                    texts.append(s)
                }
            }
            guard !t.isEmpty else { continue }
            let values: DataSeries.Values = firstText == nil ? .numbers(numbers) : .strings(texts)
            var s = DataSeries(times: t, values: values, firstText: firstText)
            s.stepped = step.contains(name)
            series[name] = s
        }
        let sortedTimes = order.map { times[$0] }
        return DataTable(
            file: file, names: names, series: series, timeColumn: time, absolute: absolute ?? false,
            firstTime: sortedTimes.first ?? 0, rowCount: rows.rows.count)
    }

    static func quoted(_ cell: Cell) -> String {
        switch cell.value {
        case .number(let n): PropertyDefinition.format(n)
        case .text(let s): "\"\(s)\""
        }
    }

    /// What a text or a binding asks of the file: every field it names exists, and one
    /// shown through a number format, or bound, holds only numbers. The error is positioned
    /// at the first cell that is not a number, or lists the fields that exist.
    package func check(field: String, numeric: Bool, usedBy: String) -> ConfigError? {
        guard let s = series[field] else {
            return ConfigError(
                file: file, line: 0, column: 0,
                message:
                    "\(usedBy): no field \"\(field)\" (fields: \(names.joined(separator: ", ")))")
        }
        if numeric, let first = s.firstText {
            return ConfigError(
                file: file, line: first.line, column: first.column, field: field,
                message: "\"\(first.text)\" is not a number (\(usedBy) needs numbers)")
        }
        return nil
    }
}

/// Which data file a document or the element reads, and how.
package struct DataSpec: Sendable, Equatable {
    package var file: String
    /// Seconds added to the file's times (a row at 2 s shows at 2 s + offset).
    package var offset: Double = 0
    /// The time column's name (nil: the first of `DataTable.timeNames`).
    package var timeColumn: String?
    /// Fields held from one row to the next instead of interpolated.
    package var step: Set<String> = []

    package init(file: String, offset: Double = 0, timeColumn: String? = nil, step: Set<String> = []) {
        self.file = file
        self.offset = offset
        self.timeColumn = timeColumn
        self.step = step
    }

    /// The file read and placed.
    package func load() throws(ConfigError) -> TimedData {
        TimedData(table: try DataTable.load(path: file, timeColumn: timeColumn, step: step), offset: offset)
    }

    /// A comma-separated list of field names (`data-step`, `--data-step`).
    package static func fields(_ text: String?) -> Set<String> {
        Set((text ?? "").split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty })
    }
}

/// Timed data placed on the video's time line: a row at data time `t` shows at stream time
/// `t + offset`, where absolute times count from `origin` (the video's creation time).
package struct TimedData: Sendable {
    package let table: DataTable
    package var offset: Double
    /// Seconds since the Unix epoch of the stream's start, for a file with absolute times
    /// (nil: its first row is the stream's start).
    package var origin: Double?

    package init(table: DataTable, offset: Double = 0, origin: Double? = nil) {
        self.table = table
        self.offset = offset
        self.origin = origin
    }

    /// The data time shown at stream time `t`.
    package func dataTime(_ t: Double) -> Double {
        (table.absolute ? (origin ?? table.firstTime) : 0) + t - offset
    }

    package func value(_ field: String, at streamTime: Double?) -> VariableValue? {
        guard let series = table.series[field] else { return nil }
        return series.value(at: dataTime(streamTime ?? 0))
    }

    package func text(_ field: String, at streamTime: Double?, _ format: DataFormat?) -> String {
        table.series[field]?.text(at: dataTime(streamTime ?? 0), format) ?? ""
    }
}
