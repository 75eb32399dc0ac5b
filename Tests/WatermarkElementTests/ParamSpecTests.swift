import CGStreamer
import CShim
import GstTestSupport
import Testing
import WatermarkModel

/// The GObject properties gst-inspect-1.0 shows are the property table's, one for one.
@Suite struct ParamSpecTests {
    @Test func paramSpecsAreThePropertyTable() throws {
        #expect(GstTest.ready)
        let element = try #require(gst_element_factory_make("watermark", nil))
        defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
        let object = try #require(gst_watermark_as_object(element))
        let klass = try #require(object.pointee.g_type_instance.g_class)
        var count: guint = 0
        let specs = try #require(
            g_object_class_list_properties(
                UnsafeMutableRawPointer(klass).assumingMemoryBound(to: GObjectClass.self), &count))
        defer { g_free(specs) }
        // GstObject's own `name` and `parent`, and GstBaseTransform's `qos`, come first.
        var ours: [String: UnsafeMutablePointer<GParamSpec>] = [:]
        for i in 0..<Int(count) {
            guard let spec = specs[i], spec.pointee.owner_type == g_type_from_name("GstWatermark") else { continue }
            ours[String(cString: spec.pointee.name)] = spec
        }
        #expect(Set(ours.keys) == Set(WatermarkProperties.all.map(\.name)))
        let controllable = gst_watermark_param_controllable().rawValue
        for p in WatermarkProperties.all {
            let spec = try #require(ours[p.name], "\(p.name) not installed")
            #expect(String(cString: g_param_spec_get_nick(spec)) == p.nick, "\(p.name)")
            #expect(String(cString: g_param_spec_get_blurb(spec)) == p.blurb, "\(p.name)")
            #expect((spec.pointee.flags.rawValue & controllable != 0) == p.controllable, "\(p.name): controllable")
            let writable = spec.pointee.flags.rawValue & G_PARAM_WRITABLE.rawValue != 0
            let defaultValue = try #require(g_param_spec_get_default_value(spec))
            switch (p.type, p.defaultValue) {
            case (.double(let range), .double(let d)):
                let ds = UnsafeMutableRawPointer(spec).assumingMemoryBound(to: GParamSpecDouble.self).pointee
                #expect(ds.minimum == range.lowerBound && ds.maximum == range.upperBound, "\(p.name): range")
                #expect(g_value_get_double(defaultValue) == d, "\(p.name): default")
            case (.string, .string(let d)) where p.isStructure:
                #expect(spec.pointee.value_type == gst_structure_get_type(), "\(p.name): a boxed GstStructure")
                #expect(d == nil && g_value_get_boxed(defaultValue) == nil, "\(p.name): default")
            case (.string, .string(let d)):
                #expect(g_value_get_string(defaultValue).map { String(cString: $0) } == d, "\(p.name): default")
            case (.color, .color(let d)):
                #expect(UInt32(g_value_get_uint(defaultValue)) == d.argb, "\(p.name): default")
            case (.uint(let range), .uint(let d)):
                #expect(UInt32(g_value_get_uint(defaultValue)) == d, "\(p.name): default")
                let u = UnsafeMutableRawPointer(spec).assumingMemoryBound(to: GParamSpecUInt.self)
                #expect(u.pointee.minimum == range.lowerBound && u.pointee.maximum == range.upperBound, "\(p.name)")
            case (.bool, .bool(let d)):
                #expect((g_value_get_boolean(defaultValue) != 0) == d, "\(p.name): default")
            case (.choice(let c), .choice(let d)):
                #expect(Int(g_value_get_enum(defaultValue)) == d, "\(p.name): default")
                let enumClass = try #require(g_type_class_ref(spec.pointee.value_type))
                defer { g_type_class_unref(enumClass) }
                let e = UnsafeMutableRawPointer(enumClass).assumingMemoryBound(to: GEnumClass.self)
                for (i, v) in c.values.enumerated() {
                    let ev = try #require(g_enum_get_value(e, gint(i)))
                    #expect(String(cString: ev.pointee.value_nick) == v.nick, "\(p.name)[\(i)]")
                }
                #expect(Int(e.pointee.n_values) == c.values.count, "\(p.name): value count")
            case (.counter, .counter(let d)):
                #expect(UInt64(g_value_get_uint64(defaultValue)) == d && !writable, "\(p.name)")
            default:
                Issue.record("\(p.name): default of the wrong type")
            }
        }
    }

    /// Every property the table declares reads back what was set through GObject.
    @Test func everyWritablePropertyRoundTrips() {
        let h = Harness(element: "watermark")
        for p in WatermarkProperties.all where p.type != .counter {
            let text: String =
                switch p.type {
                // Files named by element properties read back made absolute.
                case .string where p.isStructure: "v, n=(int)1"
                case .string where p.name == WatermarkProperties.mask.name: "0.1,0.2,0.3,0.4;0,0 1,0 1,1"
                case .string: ["config", "data-file"].contains(p.name) || p.isPath ? "" : "hello"
                case .double(let r): PropertyDefinition.format(r.upperBound)
                case .uint(let r): String(r.upperBound)
                case .color: "0x80123456"
                case .bool: "true"
                case .choice(let c): c.values[c.values.count - 1].nick
                case .counter: ""
                }
            h.set(p.name, text)
            var v = GValue()
            g_value_init(&v, pspecType(h.element, p.name))
            g_object_get_property(gst_watermark_as_object(h.element), p.name, &v)
            let back = PropertyText.of(&v, type: p.type)
            g_value_unset(&v)
            let expected: String? =
                switch p.type {
                case .string where p.isStructure: text + ";"  // gst_structure_to_string's form
                // A secret: written, never read back.
                case .string where p.name == WatermarkProperties.forensicKey.name: nil
                case .string: text.isEmpty ? nil : text
                case .choice(let c): String(c.values.count - 1)
                default: text
                }
            #expect(back == expected, "\(p.name): set \(text), read \(back ?? "nil")")
        }
    }

    private func pspecType(_ element: UnsafeMutablePointer<GstElement>, _ name: String) -> GType {
        let object = gst_watermark_as_object(element)
        guard let klass = object?.pointee.g_type_instance.g_class,
            let spec = g_object_class_find_property(
                UnsafeMutableRawPointer(klass).assumingMemoryBound(to: GObjectClass.self), name)
        else { return 0 }
        return spec.pointee.value_type
    }
}

/// A property's GValue as text, for comparing with what was set.
private enum PropertyText {
    static func of(_ v: UnsafeMutablePointer<GValue>, type: PropertyType) -> String? {
        switch type {
        case .string where v.pointee.g_type == gst_structure_get_type():
            g_value_get_boxed(v).flatMap { gst_structure_to_string($0.assumingMemoryBound(to: GstStructure.self)) }
                .map { text in
                    defer { g_free(text) }
                    return String(cString: text)
                }
        case .string: g_value_get_string(v).map { String(cString: $0) }
        case .double: PropertyDefinition.format(g_value_get_double(v))
        case .uint: String(g_value_get_uint(v))
        case .color: "0x" + String(UInt32(g_value_get_uint(v)), radix: 16)
        case .bool: g_value_get_boolean(v) != 0 ? "true" : "false"
        case .choice: String(g_value_get_enum(v))
        case .counter: String(g_value_get_uint64(v))
        }
    }
}
