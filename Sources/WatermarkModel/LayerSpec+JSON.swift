// A layer's values as the config file writes them (what a control API reports).

extension PropertyValue {
    /// The value as JSON in a config file for `property`: numbers, booleans, strings,
    /// colours as "0xAARRGGBB", enum values by nick; no value is null.
    package func json(for property: PropertyDefinition) -> String {
        switch self {
        case .string(let s): s.map(JSONText.quoted) ?? "null"
        case .double(let v): JSONText.number(v)
        case .uint(let v): "\(v)"
        case .color(let c): JSONText.quoted(c.hexText)
        case .bool(let b): b ? "true" : "false"
        case .choice(let i):
            if case .choice(let c) = property.type, c.values.indices.contains(i) {
                JSONText.quoted(c.values[i].nick)
            } else {
                "\(i)"
            }
        case .counter(let v): "\(v)"
        }
    }
}

extension LayerSpec {
    /// Every layer property's effective value, in the property table's order, as
    /// (field, JSON text). A number outside the range a config file may set (x, y and end
    /// at -1: unset) is null, which is also how a change sets it back.
    package var jsonFields: [(String, String)] {
        WatermarkProperties.layer.compactMap { property in
            guard let v = value(of: property) else { return nil }
            if case .double(let d) = v, let range = property.explicitRange, !range.contains(d) {
                return (property.name, "null")
            }
            return (property.name, v.json(for: property))
        }
    }
}
