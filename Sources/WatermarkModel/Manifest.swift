// A batch's rows (a CSV file with a header row, or JSON Lines), the `{name}`
// placeholders of output names and texts, and which rows a shard takes. Pure values.

import Glibc

/// A problem in a manifest, positioned: `manifest.csv:14: column "opacity": 2.5 is out
/// of range 0…1`. Line 0: the file as a whole.
package struct ManifestError: Error, Sendable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var column: String?
    package var message: String

    package init(file: String, line: Int, column: String? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    package var description: String {
        var d = line > 0 ? "\(file):\(line): " : "\(file): "
        if let column { d += "column \"\(column)\": " }
        return d + message
    }
}

/// One row: its values by column (empty cells and JSON nulls left out) and the line it
/// starts on.
package struct ManifestRow: Sendable, Equatable {
    package var line: Int
    package var values: [String: String]

    package init(line: Int, values: [String: String]) {
        self.line = line
        self.values = values
    }
}

/// The rows of a manifest and its columns in the order they first appear.
package struct ManifestTable: Sendable, Equatable {
    package var columns: [String]
    package var rows: [ManifestRow]

    package init(columns: [String], rows: [ManifestRow]) {
        self.columns = columns
        self.rows = rows
    }

    /// Reads CSV (RFC 4180: a header row, commas, double quotes with `""` inside, LF or
    /// CRLF line ends) or JSON Lines (one object per line; strings, numbers and booleans)
    /// — JSON Lines when the file's name ends in `.jsonl`/`.ndjson` or its first
    /// character is `{`. Blank lines are skipped; a UTF-8 byte-order mark is ignored.
    package static func parse(_ bytes: [UInt8], file: String) throws(ManifestError) -> ManifestTable {
        var bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw ManifestError(file: file, line: 0, "is not UTF-8 text")
        }
        let lower = file.lowercased()
        let first = bytes.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") || first == UInt8(ascii: "{") {
            return try jsonLines(bytes, file: file)
        }
        return try csv(bytes, file: file)
    }

    private static func csv(_ bytes: [UInt8], file: String) throws(ManifestError) -> ManifestTable {
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1
        var recordLine = 1
        var quoted = false
        var wasQuoted = false
        var i = 0
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        func endRecord() {
            endField()
            // A blank line is no record.
            if !(fields.count == 1 && fields[0].isEmpty) { records.append((recordLine, fields)) }
            fields.removeAll()
        }
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "\"") {
                        field.append(b)
                        i += 2
                        continue
                    }
                    quoted = false
                } else {
                    if b == 0x0A { line += 1 }
                    field.append(b)
                }
                i += 1
                continue
            }
            switch b {
            case UInt8(ascii: "\""):
                guard field.isEmpty && !wasQuoted else {
                    throw ManifestError(
                        file: file, line: line,
                        "a double quote inside an unquoted field (quote the whole field and double the quote)")
                }
                quoted = true
                wasQuoted = true
            case UInt8(ascii: ","):
                endField()
            case 0x0D where i + 1 < bytes.count && bytes[i + 1] == 0x0A:
                break
            case 0x0A:
                endRecord()
                line += 1
                recordLine = line
            default:
                if wasQuoted {
                    throw ManifestError(file: file, line: line, "text after a quoted field's closing quote")
                }
                field.append(b)
            }
            i += 1
        }
        if quoted { throw ManifestError(file: file, line: recordLine, "a quoted field is not closed") }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        guard let header = records.first else { throw ManifestError(file: file, line: 0, "is empty") }
        var columns: [String] = []
        for name in header.fields.map({ $0.trimmingWhitespace() }) {
            guard !name.isEmpty else { throw ManifestError(file: file, line: header.line, "a column has no name") }
            guard !columns.contains(name) else {
                throw ManifestError(file: file, line: header.line, "column \"\(name)\" appears twice")
            }
            columns.append(name)
        }
        var rows: [ManifestRow] = []
        for record in records.dropFirst() {
            guard record.fields.count == columns.count else {
                throw ManifestError(
                    file: file, line: record.line,
                    "\(record.fields.count) fields, the header has \(columns.count)")
            }
            var values: [String: String] = [:]
            for (name, value) in zip(columns, record.fields) where !value.isEmpty { values[name] = value }
            rows.append(ManifestRow(line: record.line, values: values))
        }
        return ManifestTable(columns: columns, rows: rows)
    }

    private static func jsonLines(_ bytes: [UInt8], file: String) throws(ManifestError) -> ManifestTable {
        var columns: [String] = []
        var rows: [ManifestRow] = []
        for (n, text) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let line = n + 1
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let node: JSONNode
            do {
                node = try JSONReader.parse(Array(text))
            } catch {
                throw ManifestError(file: file, line: line, "column \(error.column): \(error.message)")
            }
            guard case .object(let members) = node.value else {
                throw ManifestError(file: file, line: line, "a line must be a JSON object, not \(node.typeName)")
            }
            var values: [String: String] = [:]
            for (key, value) in members {
                if !columns.contains(key) { columns.append(key) }
                switch value.value {
                case .null: continue
                case .string(let s): if !s.isEmpty { values[key] = s }
                case .number(let v): values[key] = PropertyDefinition.format(v)
                case .bool(let v): values[key] = v ? "true" : "false"
                case .array, .object:
                    throw ManifestError(
                        file: file, line: line, column: key,
                        "must be a string, a number or a boolean, not \(value.typeName)")
                }
            }
            rows.append(ManifestRow(line: line, values: values))
        }
        if rows.isEmpty { throw ManifestError(file: file, line: 0, "has no rows") }
        return ManifestTable(columns: columns, rows: rows)
    }
}

/// `{name}` placeholders filled from a row: `{filename}`, `{stem}`, `{ext}`, `{index}` and
/// the manifest's columns.
package enum BatchPlaceholders {
    /// The names a text uses (`{{` and `}}` are literal braces).
    package static func names(in text: String) -> [String] {
        var names: [String] = []
        _ = scan(text) { name in
            names.append(name)
            return nil
        }
        return names
    }

    /// `text` with the placeholders `values` has replaced. Others stay as written, with
    /// `{{`/`}}` (the element's own placeholders, such as `{clock}`, expand per frame).
    package static func expand(_ text: String, _ values: [String: String]) -> String {
        scan(text) { values[$0] }
    }

    /// An output name: every placeholder must be known, `{{`/`}}` become braces. Returns
    /// the unknown name as the error.
    package static func expandName(_ text: String, _ values: [String: String]) -> Result<String, UnknownName> {
        var unknown: String?
        let s = scan(text, literalBraces: true) { name in
            if let v = values[name] { return v }
            if unknown == nil { unknown = name }
            return nil
        }
        if let unknown { return .failure(UnknownName(name: unknown)) }
        return .success(s)
    }

    package struct UnknownName: Error, Sendable { package var name: String }

    /// The values a file gives: `{filename}` (`clip.mov`), `{stem}` (`clip`), `{ext}`
    /// (`mov`), and `{index}` (the row's number, from 1).
    package static func fileValues(path: String, index: Int) -> [String: String] {
        let filename = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        var stem = filename, ext = ""
        if let dot = filename.lastIndex(of: "."), dot != filename.startIndex {
            stem = String(filename[..<dot])
            ext = String(filename[filename.index(after: dot)...])
        }
        return ["filename": filename, "stem": stem, "ext": ext, "index": String(index)]
    }

    private static func scan(_ text: String, literalBraces: Bool = false, _ value: (String) -> String?) -> String {
        var out = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            if c == "{" || c == "}", next < text.endIndex, text[next] == c {
                if literalBraces { out.append(c) } else { out += String([c, c]) }
                i = text.index(after: next)
                continue
            }
            if c == "{", let close = text[next...].firstIndex(of: "}") {
                let name = String(text[next..<close])
                if !name.isEmpty, !name.contains("{"), let v = value(name) {
                    out += v
                    i = text.index(after: close)
                    continue
                }
            }
            out.append(c)
            i = next
        }
        return out
    }
}
