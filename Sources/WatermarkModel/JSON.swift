// A strict JSON (RFC 8259) reader that remembers where every value starts, so that a
// config error can name the line and column of the offending value, not only of syntax
// errors. Nesting depth and document size are bounded, and it never traps on any input.

import Glibc

/// A JSON value and where it starts in the document (1-based line and column).
package struct JSONNode: Sendable {
    package indirect enum Value: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        /// Members in document order (duplicate keys are rejected by the parser).
        case object([(key: String, value: JSONNode)])
    }

    package var value: Value
    package var line: Int
    package var column: Int

    /// A value made rather than read (line and column 0: no place in a document).
    package init(value: Value, line: Int = 0, column: Int = 0) {
        self.value = value
        self.line = line
        self.column = column
    }

    package var typeName: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

package struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    package var message: String
    package var description: String { "\(line):\(column): \(message)" }
}

package enum JSONReader {
    package static let maxDepth = 64

    package static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var p = Parser(bytes: bytes)
        p.skipSpace()
        let node = try p.value(depth: 0)
        p.skipSpace()
        if p.i < bytes.count { throw p.error("unexpected \(p.describe(bytes[p.i])) after the document") }
        return node
    }

    package static func parse(_ text: String) throws(JSONSyntaxError) -> JSONNode {
        try parse(Array(text.utf8))
    }

    private struct Parser {
        let bytes: [UInt8]
        var i = 0
        var line = 1
        var lineStart = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            // A UTF-8 byte order mark is allowed and skipped.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
                i = 3
                lineStart = 3
            }
        }

        var column: Int { i - lineStart + 1 }

        func error(_ message: String) -> JSONSyntaxError {
            JSONSyntaxError(line: line, column: column, message: message)
        }

        func describe(_ b: UInt8) -> String {
            b >= 0x21 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
        }

        var current: String { i < bytes.count ? describe(bytes[i]) : "end of file" }

        mutating func skipSpace() {
            while i < bytes.count {
                switch bytes[i] {
                case 0x20, 0x09, 0x0D: i += 1
                case 0x0A:
                    i += 1
                    line += 1
                    lineStart = i
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONNode {
            guard depth < JSONReader.maxDepth else { throw error("nested deeper than \(JSONReader.maxDepth) levels") }
            let l = line, c = column
            guard i < bytes.count else { throw error("expected a value, found end of file") }
            let v: JSONNode.Value
            switch bytes[i] {
            case UInt8(ascii: "{"): v = try object(depth: depth)
            case UInt8(ascii: "["): v = try array(depth: depth)
            case UInt8(ascii: "\""): v = .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                v = .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                v = .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                v = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): v = .number(try number())
            default: throw error("expected a value, found \(current)")
            }
            return JSONNode(value: v, line: l, column: c)
        }

        mutating func literal(_ word: String) throws(JSONSyntaxError) {
            let w = Array(word.utf8)
            guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else {
                throw error("expected a value, found \(current)")
            }
            i += w.count
        }

        mutating func expect(_ ch: Character, after what: String) throws(JSONSyntaxError) {
            skipSpace()
            guard i < bytes.count, bytes[i] == ch.asciiValue else {
                throw error("expected '\(ch)' \(what), found \(current)")
            }
            i += 1
        }

        mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONNode.Value {
            i += 1
            var members: [(key: String, value: JSONNode)] = []
            var seen = Set<String>()
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                i += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                    throw error("expected a member name in double quotes, found \(current)")
                }
                let kl = line, kc = column
                let key = try string()
                if !seen.insert(key).inserted {
                    throw JSONSyntaxError(line: kl, column: kc, message: "duplicate member \"\(key)\"")
                }
                try expect(":", after: "after member name \"\(key)\"")
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw error("expected ',' or '}', found end of file") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    continue
                }
                if bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    return .object(members)
                }
                throw error("expected ',' or '}', found \(current)")
            }
        }

        mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONNode.Value {
            i += 1
            var items: [JSONNode] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw error("expected ',' or ']', found end of file") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    continue
                }
                if bytes[i] == UInt8(ascii: "]") {
                    i += 1
                    return .array(items)
                }
                throw error("expected ',' or ']', found \(current)")
            }
        }

        mutating func number() throws(JSONSyntaxError) -> Double {
            let start = i
            func digits(_ p: inout Parser) -> Int {
                let s = p.i
                while p.i < p.bytes.count, p.bytes[p.i] >= 0x30, p.bytes[p.i] <= 0x39 { p.i += 1 }
                return p.i - s
            }
            if bytes[i] == UInt8(ascii: "-") { i += 1 }
            let intStart = i
            let n = digits(&self)
            if n == 0 { throw error("expected a digit, found \(current)") }
            if n > 1, bytes[intStart] == UInt8(ascii: "0") {
                i = intStart + 1
                throw error("a number cannot start with 0")
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                i += 1
                if digits(&self) == 0 { throw error("expected a digit after '.', found \(current)") }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                if digits(&self) == 0 { throw error("expected a digit in the exponent, found \(current)") }
            }
            // The token is plain ASCII JSON number syntax, which strtod reads exactly
            // (the C locale of a plugin may differ, but JSON has no grouping or other
            // decimal marks, and strtod_l is not needed for '.' under "C"/"POSIX").
            let token = String(decoding: bytes[start..<i], as: UTF8.self)
            let v = token.withCString { strtod($0, nil) }
            guard v.isFinite else {
                i = start
                throw error("number \(token) is out of range")
            }
            return v
        }

        mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
            guard i + 4 <= bytes.count else { throw error("incomplete \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[i]
                let d: UInt32
                switch b {
                case 0x30...0x39: d = UInt32(b - 0x30)
                case 0x41...0x46: d = UInt32(b - 0x41 + 10)
                case 0x61...0x66: d = UInt32(b - 0x61 + 10)
                default: throw error("expected a hex digit in \\u escape, found \(describe(b))")
                }
                v = v << 4 | d
                i += 1
            }
            return v
        }

        mutating func string() throws(JSONSyntaxError) -> String {
            i += 1
            var out: [UInt8] = []
            while true {
                guard i < bytes.count else { throw error("unterminated string") }
                let b = bytes[i]
                switch b {
                case UInt8(ascii: "\""):
                    i += 1
                    // Invalid UTF-8 is repaired with U+FFFD rather than rejected.
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    i += 1
                    guard i < bytes.count else { throw error("unterminated string") }
                    let e = bytes[i]
                    i += 1
                    switch e {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if scalar >= 0xD800 && scalar < 0xDC00,
                            i + 6 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u")
                        {
                            let save = i
                            i += 2
                            let low = try hex4()
                            if low >= 0xDC00 && low < 0xE000 {
                                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                i = save
                            }
                        }
                        let s = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                        out.append(contentsOf: Array(String(Character(s)).utf8))
                    default:
                        i -= 1
                        throw error("unknown escape \\\(describe(e))")
                    }
                case 0x0A:
                    throw error("line break inside a string")
                case 0..<0x20:
                    throw error("control character \(describe(b)) inside a string")
                default:
                    out.append(b)
                    i += 1
                }
            }
        }
    }
}

/// JSON text for values (what reports and APIs write).
package enum JSONText {
    /// `s` as a JSON string literal: quotes, backslashes and control characters escaped.
    package static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// A JSON object from members in order; values are JSON text already.
    package static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// `node` written back as compact JSON text (numbers in their shortest exact form).
    package static func encode(_ node: JSONNode) -> String {
        switch node.value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let v): number(v)
        case .string(let s): quoted(s)
        case .array(let items): "[" + items.map(encode).joined(separator: ",") + "]"
        case .object(let members): object(members.map { ($0.key, encode($0.value)) })
        }
    }

    /// A finite number as JSON: whole numbers without a fraction; others as Swift prints
    /// them (the shortest text that reads back exactly, valid JSON).
    package static func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }
}
