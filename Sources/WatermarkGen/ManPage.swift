// The man page's OVERLAY OPTIONS: one entry per layer property, as `--help` shows it.

import Foundation
import WatermarkModel

enum ManPage {
    static func overlayOptions() -> String {
        var lines = ["The same names as the element's properties; every command takes them."]
        for p in WatermarkProperties.commandLine {
            lines.append(".TP")
            let arg =
                switch p.type {
                case .bool: ""
                case .double, .uint: " \\fIN\\fR"
                case .color: " \\fICOLOUR\\fR"
                case .string, .counter: p.isPath ? " \\fIFILE\\fR" : " \\fI\(p.name.uppercased())\\fR"
                case .choice: " \\fI\(p.name.uppercased())\\fR"
                }
            lines.append("\\fB\\-\\-\(p.optionName)\\fR\(arg)")
            var text = p.blurb
            if case .choice(let c) = p.type { text += ": " + c.nicks.joined(separator: ", ") }
            if let r = DocText.range(p) { text += "; \(r)" }
            if !p.unit.isEmpty { text += " (\(p.unit))" }
            if p.defaultText != "none" && p.type != .bool { text += ". Default \(p.defaultText)" }
            lines.append(escape(text) + ".")
        }
        return lines.joined(separator: "\n")
    }

    /// roff: backslashes doubled, minus signs escaped, no line starting with a dot or quote.
    static func escape(_ s: String) -> String {
        var out = s.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
