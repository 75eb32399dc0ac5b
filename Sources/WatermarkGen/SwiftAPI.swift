// Sources/Watermark/WatermarkLayer.swift: the Swift API's value type, one optional field
// per layer property (and `config`), in the table's order.

import WatermarkModel

enum SwiftAPI {
    struct Field {
        let property: PropertyDefinition
        let swiftName: String
        let swiftType: String
    }

    static var fields: [Field] {
        WatermarkProperties.all.compactMap { p in
            guard WatermarkProperties.commandLine.contains(where: { $0.name == p.name }) || p.setting == .config
            else { return nil }
            let type =
                switch p.type {
                case .string: "String"
                case .double: "Double"
                case .uint: "UInt32"
                case .color: "ARGBColor"
                case .bool: "Bool"
                case .choice(let c): c.swiftType
                case .counter: "UInt64"
                }
            return Field(property: p, swiftName: camelCase(p.name), swiftType: type)
        }
    }

    /// `font-desc` → `fontDesc`: the Swift field, and the table's entry of the same name.
    static func camelCase(_ name: String) -> String {
        let words = name.split(separator: "-")
        return ([String(words[0])] + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }).joined()
    }

    static func text() -> String {
        let fields = fields
        var out = """
            // \(Generated.notice).

            import WatermarkModel

            /// One watermark described in Swift values: every layer property of the element, and
            /// `config`, with nil meaning "the element's default". `WatermarkOverlay.apply` sets the
            /// ones that are not nil.
            public struct WatermarkLayer: Sendable, Equatable {

            """
        for f in fields {
            out += docComment(f.property, indent: "    ")
            out += "    public var \(f.swiftName): \(f.swiftType)?\n"
        }
        out += "\n    public init(\n"
        out += wrapped(fields.map { "\($0.swiftName): \($0.swiftType)? = nil" }, indent: "        ") + "\n"
        out += "    ) {\n"
        for f in fields { out += "        self.\(f.swiftName) = \(f.swiftName)\n" }
        out += "    }\n\n"
        out += """
                /// The set properties as (name, value) in the string form GStreamer deserializes, in
                /// the element's property order.
                public var properties: [(name: String, value: String)] {
                    var p: [(name: String, value: String)] = []

            """
        for f in fields {
            out +=
                "        if let \(f.swiftName) { p.append(WatermarkProperties.\(f.swiftName).pair(\(f.swiftName))) }\n"
        }
        out += "        return p\n    }\n}\n"
        return out
    }

    /// The blurb (with unit and range) as a `///` comment wrapped at 100 columns.
    static func docComment(_ p: PropertyDefinition, indent: String) -> String {
        var text = p.blurb
        if let r = DocText.range(p) { text += " (\(r)\(p.unit.isEmpty ? "" : ", " + p.unit))" }
        text += "."
        var lines: [String] = []
        var line = indent + "///"
        for word in text.split(separator: " ") {
            if line.count + 1 + word.count > 100 {
                lines.append(line)
                line = indent + "///"
            }
            line += " " + word
        }
        lines.append(line)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Items joined by ", " in lines of at most 120 columns (swift-format's width).
    static func wrapped(_ items: [String], indent: String) -> String {
        var lines: [String] = []
        var line = indent
        for (i, item) in items.enumerated() {
            let piece = item + (i == items.count - 1 ? "" : ",")
            if line.count > indent.count && line.count + 1 + piece.count > 120 {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + piece
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
