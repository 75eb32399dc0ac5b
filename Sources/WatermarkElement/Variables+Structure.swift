// The `variables` property's text, a GstStructure as gst-launch writes one
// (`v, home=(int)2, away=(int)1, speaker="Ana Lima"`), read into the model's `Variables`.

import CGStreamer
import WatermarkModel

extension Variables {
    /// The structure's fields as variables: integers, doubles, booleans and strings (other
    /// types are left out); nil when the text is not a structure.
    init?(structure text: String) {
        guard let structure = gst_structure_from_string(text, nil) else { return nil }
        defer { gst_structure_free(structure) }
        var values: [String: VariableValue] = [:]
        for i in 0..<gst_structure_n_fields(structure) {
            guard let name = gst_structure_nth_field_name(structure, UInt32(i)),
                let value = gst_structure_get_value(structure, name)
            else { continue }
            let key = String(cString: name)
            // The fundamental types (gtype.h: G_TYPE_MAKE_FUNDAMENTAL(n) is n << 2).
            switch value.pointee.g_type {
            case GType(5 << 2): values[key] = .bool(g_value_get_boolean(value) != 0)
            case GType(6 << 2): values[key] = .int(Int64(g_value_get_int(value)))
            case GType(7 << 2): values[key] = .int(Int64(g_value_get_uint(value)))
            case GType(8 << 2): values[key] = .int(Int64(g_value_get_long(value)))
            case GType(10 << 2): values[key] = .int(Int64(g_value_get_int64(value)))
            case GType(11 << 2): values[key] = .int(Int64(clamping: g_value_get_uint64(value)))
            case GType(14 << 2): values[key] = .double(Double(g_value_get_float(value)))
            case GType(15 << 2): values[key] = .double(g_value_get_double(value))
            case GType(16 << 2): values[key] = .string(g_value_get_string(value).map { String(cString: $0) } ?? "")
            default: continue
            }
        }
        self.init(values)
    }
}
