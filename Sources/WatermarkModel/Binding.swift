// Layer fields driven by values: a config layer's `"bind"` maps a variable or a timed-data
// field linearly onto x, y, opacity, rotation or scale. Pure values.

/// Where a bound value comes from.
package enum BoundValue: Sendable, Equatable {
    /// `var:NAME`
    case variable(String)
    /// `data:FIELD`
    case data(String)

    /// `var:NAME` or `data:FIELD`.
    package init?(_ text: String) {
        if text.hasPrefix("var:"), Variables.isName(String(text.dropFirst(4))) {
            self = .variable(String(text.dropFirst(4)))
        } else if text.hasPrefix("data:"), text.count > 5 {
            self = .data(String(text.dropFirst(5)))
        } else {
            return nil
        }
    }

    package var text: String {
        switch self {
        case .variable(let n): "var:" + n
        case .data(let f): "data:" + f
        }
    }

    /// The number it has on a frame (booleans are 0 and 1; strings and unset names none).
    package func number(_ clock: FrameClock) -> Double? {
        let value: VariableValue? =
            switch self {
            case .variable(let name): clock.variables[name]
            case .data(let field): clock.data?.value(field, at: clock.streamTime ?? clock.pts)
            }
        switch value {
        case .int(let i): return Double(i)
        case .double(let d): return d.isFinite ? d : nil
        case .bool(let b): return b ? 1 : 0
        case .string, nil: return nil
        }
    }
}

/// One bound field: the value mapped from `from` to `to`, linearly, clamped at the ends.
package struct Binding: Sendable, Equatable {
    package var field: AnimatedProperty
    package var value: BoundValue
    package var from: (Double, Double)
    package var to: (Double, Double)
    /// Neither range was given: the value as it is (still kept within the field's range).
    package var identity: Bool

    package init(field: AnimatedProperty, value: BoundValue, from: (Double, Double)?, to: (Double, Double)?) {
        self.field = field
        self.value = value
        identity = from == nil && to == nil
        self.from = from ?? to ?? (0, 1)
        self.to = to ?? from ?? (0, 1)
    }

    package static func == (a: Binding, b: Binding) -> Bool {
        a.field == b.field && a.value == b.value && a.from == b.from && a.to == b.to && a.identity == b.identity
    }

    /// The field's value for input `v`.
    package func map(_ v: Double) -> Double {
        var out = v
        if !identity {
            let span = from.1 - from.0
            let p = span == 0 ? 0 : min(max((v - from.0) / span, 0), 1)
            out = to.0 + (to.1 - to.0) * p
        }
        guard let range = field.range else { return out }
        return min(max(out, range.lowerBound), range.upperBound)
    }
}
