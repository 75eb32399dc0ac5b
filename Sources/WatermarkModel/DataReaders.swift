// Reading a data file: its rows (CSV or JSON Lines) and its times (seconds, clock times,
// ISO 8601). Never traps on any input: a fault is a ConfigError with its line and column.
// What the rows become, and the per-frame lookup: TimedData.swift.

import Glibc

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
