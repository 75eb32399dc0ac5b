// Invariant: the enum value arrays handed to g_enum_register_static, and their strings,
// are allocated once per process (from class_init, which GObject runs once) and never
// freed: GObject keeps pointing at them for the life of the process.

import CGStreamer
import CShim
import WatermarkModel

/// Installs the element's GObject properties from the property table (called from
/// class_init), so gst-inspect-1.0 shows exactly the table's names, defaults, ranges
/// and blurbs.
@_cdecl("gst_watermark_impl_install_properties")
public func watermarkImplInstallProperties(_ klass: UnsafeMutablePointer<GObjectClass>?) {
    guard let klass else { return }
    for (index, property) in WatermarkProperties.all.enumerated() {
        guard let spec = ParamSpecs.make(property) else { continue }
        g_object_class_install_property(klass, guint(index + 1), spec)
    }
}

extension WatermarkProperties {
    /// The property with GObject id `id` (its index + 1).
    static func definition(id: UInt32) -> PropertyDefinition? {
        let index = Int(id) - 1
        return all.indices.contains(index) ? all[index] : nil
    }
}

enum ParamSpecs {
    static func make(_ p: PropertyDefinition) -> UnsafeMutablePointer<GParamSpec>? {
        var flags = G_PARAM_READWRITE.rawValue | gst_watermark_param_mutable_playing().rawValue
        if p.controllable { flags |= gst_watermark_param_controllable().rawValue }
        let rw = GParamFlags(flags)
        if p.isStructure {
            return g_param_spec_boxed(p.name, p.nick, p.blurb, gst_structure_get_type(), rw)
        }
        switch (p.type, p.defaultValue) {
        case (.string, .string(let s)):
            return g_param_spec_string(p.name, p.nick, p.blurb, s, rw)
        case (.double(let range), .double(let v)):
            return g_param_spec_double(p.name, p.nick, p.blurb, range.lowerBound, range.upperBound, v, rw)
        case (.uint(let range), .uint(let v)):
            return g_param_spec_uint(p.name, p.nick, p.blurb, range.lowerBound, range.upperBound, v, rw)
        case (.color, .color(let c)):
            return g_param_spec_uint(p.name, p.nick, p.blurb, 0, UInt32.max, c.argb, rw)
        case (.bool, .bool(let b)):
            return g_param_spec_boolean(p.name, p.nick, p.blurb, b ? 1 : 0, rw)
        case (.choice(let choice), .choice(let i)):
            return g_param_spec_enum(p.name, p.nick, p.blurb, enumType(choice), Int32(i), rw)
        case (.counter, .counter(let v)):
            return g_param_spec_uint64(
                p.name, p.nick, p.blurb, 0, guint64.max, guint64(v), GParamFlags(G_PARAM_READABLE.rawValue))
        default:
            // A default of the wrong type is a mistake in the table; the property tests catch it.
            return nil
        }
    }

    /// The registered GType of an enum property (registered on first use, from class_init).
    static func enumType(_ choice: PropertyChoice) -> GType {
        let existing = g_type_from_name(choice.typeName)
        if existing != 0 { return existing }
        let values = UnsafeMutablePointer<GEnumValue>.allocate(capacity: choice.values.count + 1)
        for (i, v) in choice.values.enumerated() {
            values[i] = GEnumValue(
                value: gint(i), value_name: UnsafePointer(strdup(v.description)),
                value_nick: UnsafePointer(strdup(v.nick)))
        }
        values[choice.values.count] = GEnumValue(value: 0, value_name: nil, value_nick: nil)
        let type = g_enum_register_static(choice.typeName, values)
        gst_type_mark_as_plugin_api(type, GstPluginAPIFlags(rawValue: 0))
        return type
    }
}

extension PropertyValue {
    /// Reads a GValue holding a property of `type`.
    init(_ value: UnsafePointer<GValue>, as type: PropertyType) {
        switch type {
        // A GstStructure property's value is held as its text (gst_structure_to_string).
        case .string where value.pointee.g_type == gst_structure_get_type():
            let structure = g_value_get_boxed(value).map { UnsafePointer<GstStructure>(OpaquePointer($0)) }
            self = .string(
                structure.flatMap { s in gst_structure_to_string(s) }.map { text in
                    defer { g_free(text) }
                    return String(cString: text)
                })
        // String(cString:) repairs invalid UTF-8 from C callers with U+FFFD.
        case .string: self = .string(g_value_get_string(value).map { String(cString: $0) })
        case .double: self = .double(g_value_get_double(value))
        case .uint: self = .uint(UInt32(truncatingIfNeeded: g_value_get_uint(value)))
        case .color: self = .color(ARGBColor(argb: UInt32(truncatingIfNeeded: g_value_get_uint(value))))
        case .bool: self = .bool(g_value_get_boolean(value) != 0)
        case .choice: self = .choice(Int(g_value_get_enum(value)))
        case .counter: self = .counter(UInt64(g_value_get_uint64(value)))
        }
    }

    /// Stores the value into a GValue initialised with the property's type.
    func store(in value: UnsafeMutablePointer<GValue>) {
        switch self {
        case .string(let s) where value.pointee.g_type == gst_structure_get_type():
            // The element only stores texts that parsed as a structure.
            g_value_take_boxed(value, s.flatMap { gst_structure_from_string($0, nil) })
        case .string(let s): g_value_set_string(value, s)
        case .double(let v): g_value_set_double(value, v)
        case .uint(let v): g_value_set_uint(value, v)
        case .color(let c): g_value_set_uint(value, c.argb)
        case .bool(let b): g_value_set_boolean(value, b ? 1 : 0)
        case .choice(let i): g_value_set_enum(value, Int32(i))
        case .counter(let v): g_value_set_uint64(value, guint64(v))
        }
    }
}
