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

/// Times in a data file: seconds (`12.5`), `[h:]mm:ss[.fff]`, or ISO 8601 date and time
/// (`2026-05-01T10:00:00.250Z`, `+02:00` offsets; without one, UTC).
package enum DataTime {
    /// The time and whether it is absolute (seconds since the Unix epoch).
    package static func parse(_ text: String) -> (Double, Bool)? {
        let s = text.trimmingSpaces
        if let v = Double(s), v.isFinite, s.contains(where: \.isNumber) { return (v, false) }
        if let v = clock(s) { return (v, false) }
        if let v = iso8601(s) { return (v, true) }
        return nil
    }

    /// `mm:ss[.fff]` or `h:mm:ss[.fff]` as seconds.
    static func clock(_ s: String) -> Double? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, !s.contains("-"), !s.contains("T") else { return nil }
        var total = 0.0
        for (i, p) in parts.enumerated() {
            let last = i == parts.count - 1
            guard !p.isEmpty, p.allSatisfy({ $0.isASCII && ($0.isNumber || (last && $0 == ".")) }),
                let v = Double(p), v.isFinite
            else { return nil }
            if i > 0 && v >= 60 { return nil }
            total = total * 60 + v
        }
        return total
    }

    /// Seconds since the Unix epoch of `YYYY-MM-DD[T ]hh:mm[:ss[.fff]][Z|±hh[:]mm]`.
    package static func iso8601(_ s: String) -> Double? {
        let u = Array(s.utf8)
        var i = 0
        func number(_ count: Int) -> Int? {
            guard i + count <= u.count else { return nil }
            var v = 0
            for k in 0..<count {
                let c = u[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += count
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < u.count, u[i] == c.asciiValue else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        guard i < u.count, u[i] == UInt8(ascii: "T") || u[i] == UInt8(ascii: " ") else { return nil }
        i += 1
        guard let hour = number(2), expect(":"), let minute = number(2), hour < 24, minute < 60 else { return nil }
        var second = 0.0
        if expect(":") {
            guard let whole = number(2), whole <= 60 else { return nil }
            second = Double(whole)
            if i < u.count, u[i] == UInt8(ascii: ".") || u[i] == UInt8(ascii: ",") {
                i += 1
                var scale = 0.1
                let start = i
                while i < u.count, u[i] >= 48, u[i] <= 57, i - start < 9 {
                    second += Double(u[i] - 48) * scale
                    scale /= 10
                    i += 1
                }
                guard i > start else { return nil }
            }
        }
        var zone = 0
        if i < u.count {
            if u[i] == UInt8(ascii: "Z") {
                i += 1
            } else if u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") {
                let sign = u[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let zh = number(2), zh <= 14 else { return nil }
                _ = expect(":")
                let zm = number(2) ?? 0
                guard zm < 60 else { return nil }
                zone = sign * (zh * 3600 + zm * 60)
            } else {
                return nil
            }
        }
        guard i == u.count else { return nil }
        var t = tm()
        t.tm_year = Int32(year - 1900)
        t.tm_mon = Int32(month - 1)
        t.tm_mday = Int32(day)
        t.tm_hour = Int32(hour)
        t.tm_min = Int32(minute)
        t.tm_sec = 0
        let epoch = timegm(&t)
        guard epoch != -1 || (year == 1969 && month == 12 && day == 31) else { return nil }
        return Double(epoch) + second - Double(zone)
    }
}

/// Splits a data file into rows of cells: CSV (RFC 4180: a header row, quoted cells with
/// `""` for a quote, `,` or else `;` or a tab as the separator, `#` comment lines) or JSON
/// Lines (one object per line; nested objects give `outer.inner` names).
struct DataRows {
    let bytes: [UInt8]
    let file: String
    var names: [String] = []
    var known: Set<String> = []

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    func fail(_ line: Int, _ column: Int, _ message: String) -> ConfigError {
        ConfigError(file: file, line: line, column: column, message: message)
    }

    /// The lines of the file: (1-based number, byte range without the line break).
    func lines() -> [(number: Int, start: Int, end: Int)] {
        var out: [(Int, Int, Int)] = []
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var i = start
        while i <= bytes.count {
            if i == bytes.count || bytes[i] == 0x0A {
                var end = i
                if end > start, bytes[end - 1] == 0x0D { end -= 1 }
                if !(i == bytes.count && start == i) { out.append((line, start, end)) }
                line += 1
                start = i + 1
            }
            i += 1
        }
        return out
    }

    mutating func read() throws(ConfigError) -> DataTable.Rows {
        let first = bytes.first {
            $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF
        }
        return first == UInt8(ascii: "{") ? try jsonLines() : try csv()
    }

    // MARK: JSON Lines

    private mutating func jsonLines() throws(ConfigError) -> DataTable.Rows {
        var rows: [[String: DataTable.Cell]] = []
        var rowLines: [Int] = []
        for (number, start, end) in lines() {
            let line = Array(bytes[start..<end])
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let node: JSONNode
            do {
                node = try JSONReader.parse(line)
            } catch {
                throw fail(number, error.column, error.message)
            }
            guard case .object = node.value else {
                throw fail(number, node.column, "expected an object, found \(node.typeName)")
            }
            var row: [String: DataTable.Cell] = [:]
            try flatten(node, prefix: "", line: number, into: &row)
            rows.append(row)
            rowLines.append(number)
        }
        return DataTable.Rows(names: names, rows: rows, rowLines: rowLines)
    }

    private mutating func flatten(
        _ node: JSONNode, prefix: String, line: Int, into row: inout [String: DataTable.Cell]
    ) throws(ConfigError) {
        guard case .object(let members) = node.value else { return }
        for (key, value) in members {
            let name = prefix + key
            let cell: DataTable.Cell.Value
            switch value.value {
            case .object:
                try flatten(value, prefix: name + ".", line: line, into: &row)
                continue
            case .null: continue
            case .number(let n): cell = .number(n)
            case .string(let s): cell = .text(s)
            case .bool(let b): cell = .text(b ? "true" : "false")
            case .array:
                throw ConfigError(
                    file: file, line: line, column: value.column, field: name,
                    message: "an array (a field is a number or a string; objects give outer.inner names)")
            }
            if known.insert(name).inserted {
                guard names.count < DataTable.maxFields + 1 else {
                    throw fail(line, value.column, "more than \(DataTable.maxFields) fields")
                }
                names.append(name)
            }
            row[name] = DataTable.Cell(value: cell, line: line, column: value.column)
        }
    }

    // MARK: CSV

    private mutating func csv() throws(ConfigError) -> DataTable.Rows {
        var header: [String]?
        var separator = UInt8(ascii: ",")
        var rows: [[String: DataTable.Cell]] = []
        var rowLines: [Int] = []
        var records = CSVRecords(bytes: bytes)
        while let record = try records.next(file: file, separator: { separator }) {
            guard let h = header else {
                // The header chooses the separator: a comma, else a semicolon or a tab.
                let text = record.cells.map(\.text)
                if separator == UInt8(ascii: ","), text.count == 1, let only = text.first, !record.cells[0].quoted {
                    if only.contains(";") {
                        separator = UInt8(ascii: ";")
                    } else if only.contains("\t") {
                        separator = 0x09
                    }
                    if separator != UInt8(ascii: ",") {
                        records = CSVRecords(bytes: bytes)
                        continue
                    }
                }
                var seen = Set<String>()
                for cell in record.cells {
                    let name = cell.text.trimmingSpaces
                    guard !name.isEmpty else { throw fail(record.line, cell.column, "a column without a name") }
                    guard seen.insert(name).inserted else {
                        throw fail(record.line, cell.column, "column \"\(name)\" twice")
                    }
                }
                guard record.cells.count <= DataTable.maxFields + 1 else {
                    throw fail(record.line, 1, "\(record.cells.count) columns; at most \(DataTable.maxFields + 1)")
                }
                header = record.cells.map { $0.text.trimmingSpaces }
                names = header ?? []
                continue
            }
            guard record.cells.count == h.count else {
                throw fail(
                    record.line, record.cells.last?.column ?? 1,
                    "\(record.cells.count) cells; the header has \(h.count)")
            }
            var row: [String: DataTable.Cell] = [:]
            for (name, cell) in zip(h, record.cells) {
                let text = cell.quoted ? cell.text : cell.text.trimmingSpaces
                if text.isEmpty { continue }
                row[name] = DataTable.Cell(value: .text(text), line: record.line, column: cell.column)
            }
            rows.append(row)
            rowLines.append(record.line)
        }
        guard header != nil else { throw fail(1, 1, "empty (expected a header row)") }
        return DataTable.Rows(names: names, rows: rows, rowLines: rowLines)
    }
}

/// CSV records, one at a time; a quoted cell may span lines.
struct CSVRecords {
    struct Record {
        var line: Int
        var cells: [(text: String, column: Int, quoted: Bool)]
    }

    let bytes: [UInt8]
    var i: Int
    var line = 1
    var lineStart: Int

    init(bytes: [UInt8]) {
        self.bytes = bytes
        i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        lineStart = i
    }

    mutating func newline() {
        line += 1
        lineStart = i
    }

    /// The next record that is not blank or a `#` comment; nil at the end.
    mutating func next(file: String, separator: () -> UInt8) throws(ConfigError) -> Record? {
        let sep = separator()
        while i < bytes.count {
            // Blank lines and comments.
            if bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == UInt8(ascii: "#") {
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
                if i < bytes.count {
                    i += 1
                    newline()
                }
                continue
            }
            let recordLine = line
            var cells: [(String, Int, Bool)] = []
            var cell: [UInt8] = []
            var column = i - lineStart + 1
            var quoted = false
            while true {
                if i >= bytes.count || bytes[i] == 0x0A
                    || (bytes[i] == 0x0D && (i + 1 >= bytes.count || bytes[i + 1] == 0x0A))
                {
                    cells.append((String(decoding: cell, as: UTF8.self), column, quoted))
                    if i < bytes.count {
                        i += bytes[i] == 0x0D ? 2 : 1
                        newline()
                    }
                    return Record(line: recordLine, cells: cells)
                }
                let c = bytes[i]
                if c == sep {
                    cells.append((String(decoding: cell, as: UTF8.self), column, quoted))
                    cell.removeAll(keepingCapacity: true)
                    quoted = false
                    i += 1
                    column = i - lineStart + 1
                } else if c == UInt8(ascii: "\"") && cell.allSatisfy({ $0 == 0x20 }) && !quoted {
                    // A quoted cell: up to the closing quote, `""` for a quote.
                    let openLine = line, openColumn = i - lineStart + 1
                    cell.removeAll()
                    quoted = true
                    i += 1
                    var closed = false
                    while i < bytes.count {
                        if bytes[i] == UInt8(ascii: "\"") {
                            if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") {
                                cell.append(UInt8(ascii: "\""))
                                i += 2
                                continue
                            }
                            i += 1
                            closed = true
                            break
                        }
                        if bytes[i] == 0x0A {
                            cell.append(0x0A)
                            i += 1
                            newline()
                            continue
                        }
                        cell.append(bytes[i])
                        i += 1
                    }
                    guard closed else {
                        throw ConfigError(
                            file: file, line: openLine, column: openColumn, message: "a quote that is not closed")
                    }
                    while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 && sep != 0x09 { i += 1 }
                    if i < bytes.count, bytes[i] != sep, bytes[i] != 0x0A, bytes[i] != 0x0D {
                        throw ConfigError(
                            file: file, line: line, column: i - lineStart + 1,
                            message: "text after a quoted cell (a quote inside a cell is written \"\")")
                    }
                } else {
                    cell.append(c)
                    i += 1
                }
            }
        }
        return nil
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let u = utf8
        guard let first = u.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
            let last = u.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
        else { return "" }
        return String(self[first...last])
    }
}
