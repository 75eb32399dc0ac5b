// Named values a text shows through `{var:NAME}` and `{var:NAME:FORMAT}`: set as a whole
// (the element's `variables` property, a control request, --var), read on the streaming
// thread from the frame's copy of the settings.

import Glibc

/// One variable's value, typed as it was given.
package enum VariableValue: Sendable, Equatable {
    case int(Int64)
    case double(Double)
    case string(String)
    case bool(Bool)

    /// The value as a text shows it: numbers through `format` when there is one (printf
    /// style, `%d`, `%.1f`, `%05.1f`), else integers without a fraction and other numbers in
    /// their shortest exact form; strings and booleans as they are.
    package func text(_ format: NumberFormat?) -> String {
        switch self {
        case .string(let s): s
        case .bool(let b): b ? "true" : "false"
        case .int(let i): format.map { $0.format(Double(i), exact: i) } ?? String(i)
        case .double(let d):
            format.map { $0.format(d, exact: nil) } ?? PropertyDefinition.format(d)
        }
    }

    /// A value as a user types it (`--var score=3`): a whole number, another number,
    /// true/false, or else a string.
    package init(parsing text: String) {
        if let i = Int64(text) {
            self = .int(i)
        } else if let d = Double(text), d.isFinite, text.first.map({ $0.isNumber || $0 == "-" || $0 == "." }) == true {
            self = .double(d)
        } else if text == "true" || text == "false" {
            self = .bool(text == "true")
        } else {
            self = .string(text)
        }
    }
}

/// The variables a frame's texts expand from.
package struct Variables: Sendable, Equatable {
    package private(set) var values: [String: VariableValue] = [:]

    package init(_ values: [String: VariableValue] = [:]) {
        self.values = values.filter { Self.isName($0.key) }
    }

    package subscript(name: String) -> VariableValue? { values[name] }

    package var isEmpty: Bool { values.isEmpty }

    /// These variables with `changes` applied at once: a value sets, nil unsets.
    package func applying(_ changes: [String: VariableValue?]) -> Variables {
        var v = values
        for (name, change) in changes { v[name] = change }
        return Variables(v)
    }

    /// A variable's name: letters, digits, `_`, `-` and `.`, 1 to 64 of them, starting with a
    /// letter or `_`.
    package static func isName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, s.unicodeScalars.count <= 64 else { return false }
        func ascii(_ u: Unicode.Scalar) -> Bool { u.isASCII && (u.properties.isAlphabetic || u == "_") }
        return ascii(first)
            && s.unicodeScalars.allSatisfy {
                ascii($0) || ($0.isASCII && $0.properties.numericType != nil) || $0 == "-" || $0 == "."
            }
    }

    /// As a GstStructure string (`variables, home=(gint64)2, speaker=(string)"Ana"`), names
    /// sorted: what the element's `variables` property reads.
    package var structureText: String {
        var parts = ["variables"]
        for name in values.keys.sorted() {
            guard let v = values[name] else { continue }
            let typed: String =
                switch v {
                case .int(let i): "(gint64)\(i)"
                case .double(let d): "(double)\(d)"
                case .bool(let b): "(boolean)\(b)"
                case .string(let s): "(string)" + LaunchSyntax.quote(s)
                }
            parts.append("\(name)=\(typed)")
        }
        return parts.joined(separator: ", ")
    }

    /// As JSON (`{"home":2,"speaker":"Ana"}`), names sorted: what `GET /api/variables` returns.
    package var json: String {
        JSONText.object(
            values.keys.sorted().compactMap { name in
                guard let v = values[name] else { return nil }
                let text: String =
                    switch v {
                    case .int(let i): String(i)
                    case .double(let d): JSONText.number(d)
                    case .bool(let b): b ? "true" : "false"
                    case .string(let s): JSONText.quoted(s)
                    }
                return (name, text)
            })
    }

    /// The changes of a JSON object (`{"home": 3, "speaker": "Ana", "note": null}`): numbers,
    /// strings and booleans set, null unsets. The error names the member that is neither.
    package static func changes(fromJSON node: JSONNode) -> Result<[String: VariableValue?], VariableError> {
        guard case .object(let members) = node.value else {
            return .failure(VariableError("expected an object of variables, found \(node.typeName)"))
        }
        var changes: [String: VariableValue?] = [:]
        for (name, value) in members {
            guard isName(name) else {
                return .failure(
                    VariableError(
                        "\"\(name)\": not a variable name (letters, digits, _ - and ., starting with a letter or _)"))
            }
            switch value.value {
            case .null: changes[name] = .some(nil)
            case .bool(let b): changes[name] = .bool(b)
            case .string(let s): changes[name] = .string(s)
            case .number(let n):
                changes[name] = n == n.rounded() && abs(n) < 9e15 ? .int(Int64(n)) : .double(n)
            default:
                return .failure(
                    VariableError(
                        "\"\(name)\": expected a number, a string, true, false or null, found \(value.typeName)"))
            }
        }
        return .success(changes)
    }
}

package struct VariableError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// A printf conversion for one number: `%[flags][width][.precision]conversion`, with
/// conversions d i u x X o (whole numbers) and f F e E g G (any number), nothing else in it.
/// Checked when the template is parsed, so formatting never reads a wrong argument.
package struct NumberFormat: Sendable, Equatable {
    /// The C format, the length modifier in place (`%05.1f`, `%lld`).
    let spec: String
    let integral: Bool

    package init?(_ text: String) {
        let u = Array(text.utf8)
        guard u.count >= 2, u.count <= 16, u[0] == UInt8(ascii: "%") else { return nil }
        var i = 1
        while i < u.count, "-+ 0#".utf8.contains(u[i]) { i += 1 }
        /// Skips the digits at `i`; how many there were.
        func digits() -> Int {
            let start = i
            while i < u.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(u[i]) { i += 1 }
            return i - start
        }
        guard digits() <= 3 else { return nil }
        if i < u.count, u[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() <= 2 else { return nil }
        }
        guard i == u.count - 1 else { return nil }
        let conversion = Character(Unicode.Scalar(u[i]))
        let head = String(decoding: u[0..<i], as: UTF8.self)
        switch conversion {
        case "d", "i", "u", "x", "X", "o":
            spec = head + "ll" + String(conversion)
            integral = true
        case "f", "F", "e", "E", "g", "G":
            spec = text
            integral = false
        default: return nil
        }
    }

    /// `value` formatted; a whole-number conversion takes `exact` when the value is one, else
    /// the value rounded toward zero (clamped to 64 bits).
    func format(_ value: Double, exact: Int64?) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let n: Int32
        if integral {
            let whole = exact ?? (value.isFinite ? Int64(max(-9.2e18, min(9.2e18, value.rounded(.towardZero)))) : 0)
            n = withVaList([whole]) { vsnprintf(&buffer, buffer.count, spec, $0) }
        } else {
            n = withVaList([value]) { vsnprintf(&buffer, buffer.count, spec, $0) }
        }
        guard n > 0 else { return "" }
        return String(
            decoding: buffer.prefix(min(Int(n), buffer.count - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
