// The README's property table: every element property with its type, default, range and
// unit and its blurb.

import WatermarkModel

enum Readme {
    static func propertyTable() -> String {
        var rows = ["| property | type | default | meaning |", "|---|---|---|---|"]
        for p in WatermarkProperties.all {
            var meaning = p.blurb
            var extra: [String] = []
            if let r = DocText.range(p) { extra.append(r) }
            if !p.unit.isEmpty { extra.append(p.unit) }
            if case .choice(let c) = p.type { extra.append(c.nicks.map { "`\($0)`" }.joined(separator: ", ")) }
            if p.controllable { extra.append("controllable") }
            if !extra.isEmpty { meaning += " (" + extra.joined(separator: "; ") + ")" }
            rows.append("| `\(p.name)` | \(DocText.typeName(p)) | \(defaultCell(p)) | \(cell(meaning)) |")
        }
        return rows.joined(separator: "\n")
    }

    static func defaultCell(_ p: PropertyDefinition) -> String {
        switch p.defaultValue {
        case .string(nil): "none"
        case .string(let s?): "`\(s)`"
        case .color(let c): "`\(c.hexText)`"
        case .choice: "`\(p.defaultText)`"
        default: p.defaultText
        }
    }

    /// Markdown table cell text: pipes escaped.
    static func cell(_ s: String) -> String {
        s.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }
}
