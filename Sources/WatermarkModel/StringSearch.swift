// String helpers the model needs without Foundation or the string-processing module.

extension String {
    /// Every occurrence of `target` replaced (no Foundation needed).
    package func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.byteRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

extension Substring {
    /// Where `target` first occurs, compared byte by byte (UTF-8 text matches exactly where
    /// its bytes do; the string-processing module's version is not linked in).
    package func byteRange(of target: String) -> Range<String.Index>? {
        let t = Array(target.utf8)
        guard let first = t.first else { return nil }
        var i = utf8.startIndex
        while let start = utf8[i...].firstIndex(of: first) {
            if let end = utf8.index(start, offsetBy: t.count, limitedBy: utf8.endIndex),
                utf8[start..<end].elementsEqual(t)
            {
                return start..<end
            }
            i = utf8.index(after: start)
        }
        return nil
    }
}

extension String {
    package func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let f = scalars.first, f.isWhitespace { scalars = scalars.dropFirst() }
        while let l = scalars.last, l.isWhitespace { scalars = scalars.dropLast() }
        return String(scalars)
    }
}

package enum LaunchSyntax {
    /// Quotes a value for a gst-launch / gst_parse_launch description or a GstStructure
    /// string (both read `\"` and `\\` back).
    package static func quote(_ s: String) -> String {
        var out = "\""
        for ch in s {
            if ch == "\\" || ch == "\"" { out.append("\\") }
            out.append(ch)
        }
        return out + "\""
    }
}
