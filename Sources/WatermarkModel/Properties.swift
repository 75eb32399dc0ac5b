// The element's properties, declared once: each entry gives the name, type, range, default,
// unit and blurb, and where the value lives (a key path into `LayerSpec`, or the element
// setting it stands for). Setting, reading and defaults all come from the entry:
// - the element installs its GObject param specs from `WatermarkProperties.all`;
// - `LayerSpec.set`/`value(of:)` go through the entry's key path;
// - the config parser and serialiser, the CLI's options and --help read it;
// - `wm-gen` writes docs/config.schema.json, the man page's overlay options, the README's
//   table and the Swift API's `WatermarkLayer` from it (a test fails when they drift).
// This file holds the types entries are written in; PropertyTable.swift holds the entries.

/// A property's value, in the type the table gives it.
package enum PropertyValue: Sendable, Equatable {
    /// nil: NULL (no value).
    case string(String?)
    case double(Double)
    case uint(UInt32)
    case color(ARGBColor)
    case bool(Bool)
    /// Index into the choice's values.
    case choice(Int)
    case counter(UInt64)

    /// The value as gst-launch and gst_util_set_object_arg read it.
    package var launchText: String {
        switch self {
        case .string(let s): s ?? ""
        case .double(let v): "\(v)"
        case .uint(let v): "\(v)"
        case .color(let c): "0x" + String(c.argb, radix: 16, uppercase: true)
        case .bool(let b): b ? "true" : "false"
        case .choice(let i): "\(i)"
        case .counter(let v): "\(v)"
        }
    }
}

/// An enum property's values, in GObject value order.
package struct PropertyChoice: Sendable, Equatable {
    /// GType name of the registered enum (GstWatermarkAnchor).
    package let typeName: String
    /// The Swift enum the Swift API gives it (Anchor).
    package let swiftType: String
    /// (nick, description) per value; the nick is what users type.
    package let values: [(nick: String, description: String)]

    package static func == (a: Self, b: Self) -> Bool {
        a.typeName == b.typeName && a.values.map(\.nick) == b.values.map(\.nick)
            && a.values.map(\.description) == b.values.map(\.description)
    }

    package var nicks: [String] { values.map(\.nick) }

    package func index(of nick: String) -> Int? { values.firstIndex { $0.nick == nick } }
}

package enum PropertyType: Sendable, Equatable {
    case string
    /// A double within `range` (the param spec's minimum and maximum).
    case double(ClosedRange<Double>)
    /// A guint within `range`.
    case uint(ClosedRange<UInt32>)
    /// 0xAARRGGBB as a uint; config files and the CLI also take names and #RRGGBB[AA].
    case color
    case bool
    case choice(PropertyChoice)
    /// Read-only uint64.
    case counter
}

/// Where a property applies.
package enum PropertyScope: Sendable, Equatable {
    /// Describes a layer: an element property, a config file field and a CLI option.
    case layer
    /// An element property only (how the element works, not what it draws).
    case element
}

/// The element setting an element-scope property stands for (the element switches over
/// these, exhaustively).
package enum ElementSetting: Sendable, Equatable {
    case config, configData, overlayMode, followOrientation, renderAhead, renderCount, variables
    case dataFile, dataOffset, dataTimeColumn, dataStep
    case mask, maskFill, maskColor, maskCell, maskRadius
    case roiTypes, roiFill, roiBoxColor, roiBoxWidth, roiLabel, roiMinConfidence, roiGrow
    case forensicId, forensicKey, forensicStrength
    case subtitleFile, subtitleOffset
}

/// How a layer property reads and writes its field of `LayerSpec`. `set` receives a value
/// already checked against the property's type and made safe (see `PropertyDefinition.safe`).
package struct LayerField: Sendable {
    package let get: @Sendable (LayerSpec) -> PropertyValue
    package let set: @Sendable (inout LayerSpec, PropertyValue) -> Void
}

package enum PropertyRole: Sendable {
    case layer(LayerField)
    case element(ElementSetting)
}

/// Where a typed entry's value lives.
package enum PropertyTarget<Stored: Sendable>: Sendable {
    case layer(WritableKeyPath<LayerSpec, Stored> & Sendable)
    case element(ElementSetting)
}

extension PropertyTarget {
    /// The role of a property stored at this target: `read` gives a stored value as the
    /// table's value, `write` the stored value for a table value (nil: a value of another
    /// type, ignored).
    func role(
        read: @escaping @Sendable (Stored) -> PropertyValue, write: @escaping @Sendable (PropertyValue) -> Stored?
    ) -> PropertyRole {
        switch self {
        case .element(let e): .element(e)
        case .layer(let kp):
            .layer(
                LayerField(
                    get: { read($0[keyPath: kp]) },
                    set: { spec, v in if let stored = write(v) { spec[keyPath: kp] = stored } }))
        }
    }
}

/// How a string property's field stores it.
package enum StringTarget: Sendable {
    /// NULL and "" are kept apart (font-features: NULL = automatic, "" = none).
    case optional(WritableKeyPath<LayerSpec, String?> & Sendable)
    /// A file path: "" is NULL (none).
    case path(WritableKeyPath<LayerSpec, String?> & Sendable)
    /// Stored as a plain string, NULL as ""; "" reads back as NULL.
    case text(WritableKeyPath<LayerSpec, String> & Sendable)
    /// Stored as a plain string; NULL or "" is the default.
    case orDefault(WritableKeyPath<LayerSpec, String> & Sendable)
    case element(ElementSetting)
    /// An element setting that is a file path ("" is NULL).
    case elementPath(ElementSetting)
}

/// A table entry with its value's Swift type: `WatermarkProperties.textSize.defaultValue`
/// is a `Double`, so code reads defaults without looking names up.
package struct Property<Value: Sendable>: Sendable {
    package let definition: PropertyDefinition
    package let defaultValue: Value
    /// The Swift value as the table's value.
    package let encode: @Sendable (Value) -> PropertyValue

    package var name: String { definition.name }

    /// `value` as gst-launch and gst_util_set_object_arg read it (enum values by nick).
    package func launchText(_ value: Value) -> String { definition.launchText(encode(value)) }

    /// (name, launch text) of `value`, for `gst_util_set_object_arg`.
    package func pair(_ value: Value) -> (name: String, value: String) { (name, launchText(value)) }
}

extension Property where Value == Double {
    init(
        _ name: String, _ nick: String, _ range: ClosedRange<Double>, default value: Double, unit: String = "",
        controllable: Bool = false, explicitRange: ClosedRange<Double>? = nil, _ target: PropertyTarget<Double>,
        adjust: (@Sendable (Double) -> Double)? = nil, _ blurb: String
    ) {
        let role = target.role(
            read: { .double($0) },
            write: {
                guard case .double(let d) = $0 else { return nil }
                return adjust?(d) ?? d
            })
        definition = PropertyDefinition(
            name, nick, .double(range), default: .double(value), unit: unit, role: role, controllable: controllable,
            explicitRange: explicitRange, blurb)
        defaultValue = value
        encode = { .double($0) }
    }

    /// `v` as the property takes it: within its range, and its default when not finite.
    package func clamped(_ v: Double) -> Double {
        guard case .double(let safe)? = definition.safe(.double(v)) else { return v }
        return safe
    }
}

extension Property where Value == UInt32 {
    init(
        _ name: String, _ nick: String, _ range: ClosedRange<UInt32>, default value: UInt32,
        _ target: PropertyTarget<UInt32>, _ blurb: String
    ) {
        let role = target.role(
            read: { .uint($0) },
            write: {
                guard case .uint(let u) = $0 else { return nil }
                return u
            })
        definition = PropertyDefinition(name, nick, .uint(range), default: .uint(value), role: role, blurb)
        defaultValue = value
        encode = { .uint($0) }
    }
}

extension Property where Value == String? {
    init(
        _ name: String, _ nick: String, default value: String?, _ target: StringTarget, allowsEmpty: Bool = false,
        isStructure: Bool = false, _ blurb: String
    ) {
        /// The string of a string value (nil for a value of another type).
        @Sendable func string(_ v: PropertyValue) -> String?? {
            guard case .string(let s) = v else { return nil }
            return .some(s)
        }
        let role: PropertyRole =
            switch target {
            case .element(let e), .elementPath(let e): .element(e)
            case .optional(let kp):
                PropertyTarget.layer(kp).role(read: { .string($0) }, write: string)
            case .path(let kp):
                PropertyTarget.layer(kp).role(
                    read: { .string($0) }, write: { string($0).map { ($0?.isEmpty ?? true) ? nil : $0 } })
            case .text(let kp):
                PropertyTarget.layer(kp).role(
                    read: { .string($0.isEmpty ? nil : $0) }, write: { string($0).map { $0 ?? "" } })
            case .orDefault(let kp):
                PropertyTarget.layer(kp).role(
                    read: { .string($0) },
                    write: { string($0).map { ($0?.isEmpty ?? true) ? value ?? "" : $0 ?? "" } })
            }
        var isPath = false
        if case .path = target { isPath = true }
        if case .elementPath = target { isPath = true }
        definition = PropertyDefinition(
            name, nick, .string, default: .string(value), role: role, isPath: isPath, allowsEmpty: allowsEmpty,
            isStructure: isStructure, blurb)
        defaultValue = value
        encode = { .string($0) }
    }
}

extension Property where Value == ARGBColor {
    init(_ name: String, _ nick: String, default value: ARGBColor, _ target: PropertyTarget<ARGBColor>, _ blurb: String)
    {
        let role = target.role(
            read: { .color($0) },
            write: {
                guard case .color(let c) = $0 else { return nil }
                return c
            })
        definition = PropertyDefinition(name, nick, .color, default: .color(value), role: role, blurb)
        defaultValue = value
        encode = { .color($0) }
    }
}

extension Property where Value == Bool {
    init(_ name: String, _ nick: String, default value: Bool, _ target: PropertyTarget<Bool>, _ blurb: String) {
        let role = target.role(
            read: { .bool($0) },
            write: {
                guard case .bool(let b) = $0 else { return nil }
                return b
            })
        definition = PropertyDefinition(name, nick, .bool, default: .bool(value), role: role, blurb)
        defaultValue = value
        encode = { .bool($0) }
    }
}

extension Property where Value == UInt64 {
    /// A read-only counter of the element.
    init(_ name: String, _ nick: String, _ setting: ElementSetting, _ blurb: String) {
        definition = PropertyDefinition(name, nick, .counter, default: .counter(0), role: .element(setting), blurb)
        defaultValue = 0
        encode = { .counter($0) }
    }
}

/// The Swift enum of a choice property: its raw value is the GObject enum value.
package protocol PropertyChoiceValue: RawRepresentable<Int>, Sendable, Equatable {}

extension Property where Value: PropertyChoiceValue {
    init(
        _ name: String, _ nick: String, _ choice: PropertyChoice, default value: Value, _ target: PropertyTarget<Value>,
        _ blurb: String
    ) {
        let role = target.role(
            read: { .choice($0.rawValue) },
            write: {
                guard case .choice(let i) = $0 else { return nil }
                return Value(rawValue: i) ?? value
            })
        definition = PropertyDefinition(
            name, nick, .choice(choice), default: .choice(value.rawValue), role: role, blurb)
        defaultValue = value
        encode = { .choice($0.rawValue) }
    }
}

extension Anchor: PropertyChoiceValue {}
extension TextAlign: PropertyChoiceValue {}
extension MotionKind: PropertyChoiceValue {}
extension MaskFill: PropertyChoiceValue {}
extension RoiFill: PropertyChoiceValue {}

/// How the element hands overlays downstream.
package enum OverlayMode: Int, Sendable, Equatable, CaseIterable, PropertyChoiceValue {
    /// Attach the composition meta when downstream accepts it, else blend.
    case auto
    /// Always blend into the pixels.
    case blend
}

package struct PropertyDefinition: Sendable {
    package let name: String
    package let nick: String
    package let type: PropertyType
    package let defaultValue: PropertyValue
    /// What the number means, for tables ("fraction of the frame height", "seconds").
    package let unit: String
    /// One or two sentences: what it does and what 0 / -1 / empty mean.
    package let blurb: String
    /// Where the value lives: a layer field, or an element setting.
    package let role: PropertyRole
    /// Can be driven by a GstController (synced per buffer).
    package let controllable: Bool
    /// Values a config file or the CLI may give explicitly, where narrower than the
    /// element's range (x/y: 0…1, while the element also takes -1 for "unset").
    package let explicitRange: ClosedRange<Double>?
    /// A file path: relative paths in a config file are relative to the file.
    package let isPath: Bool
    /// An empty string is a value of its own (text: none), not an error.
    package let allowsEmpty: Bool
    /// A GstStructure: the element's property is a boxed `GstStructure`, and the model,
    /// config files and the CLI hold its text (`v, home=(int)2`), as gst-launch writes it.
    package let isStructure: Bool

    init(
        _ name: String, _ nick: String, _ type: PropertyType, default value: PropertyValue, unit: String = "",
        role: PropertyRole, controllable: Bool = false, explicitRange: ClosedRange<Double>? = nil,
        isPath: Bool = false, allowsEmpty: Bool = false, isStructure: Bool = false, _ blurb: String
    ) {
        self.name = name
        self.nick = nick
        self.type = type
        defaultValue = value
        self.unit = unit
        self.blurb = blurb
        self.role = role
        self.controllable = controllable
        self.explicitRange = explicitRange
        self.isPath = isPath
        self.allowsEmpty = allowsEmpty
        self.isStructure = isStructure
    }

    package var scope: PropertyScope {
        if case .layer = role { return .layer }
        return .element
    }

    /// The layer field, for a layer property.
    package var field: LayerField? {
        if case .layer(let f) = role { return f }
        return nil
    }

    /// The element setting, for an element property.
    package var setting: ElementSetting? {
        if case .element(let s) = role { return s }
        return nil
    }

    /// `value` made safe for this property, whoever gives it: numbers that are not finite
    /// become the default, doubles and uints are clamped to the range. nil for a value of
    /// another type.
    package func safe(_ value: PropertyValue) -> PropertyValue? {
        switch (type, value) {
        case (.double(let range), .double(let v)):
            guard v.isFinite else { return defaultValue }
            return .double(min(max(v, range.lowerBound), range.upperBound))
        case (.uint(let range), .uint(let v)): return .uint(min(max(v, range.lowerBound), range.upperBound))
        case (.string, .string), (.color, .color), (.bool, .bool), (.counter, .counter): return value
        case (.choice(let c), .choice(let i)): return c.values.indices.contains(i) ? value : defaultValue
        default: return nil
        }
    }

    /// The range a config file or CLI value must be in (numbers only).
    package var userRange: ClosedRange<Double>? {
        if let explicitRange { return explicitRange }
        switch type {
        case .double(let r): return r
        case .uint(let r): return Double(r.lowerBound)...Double(r.upperBound)
        default: return nil
        }
    }

    /// `value` as gst-launch and gst_util_set_object_arg read it: enum values by their nick.
    package func launchText(_ value: PropertyValue) -> String {
        if case .choice(let i) = value, case .choice(let c) = type, c.values.indices.contains(i) {
            return c.values[i].nick
        }
        return value.launchText
    }

    /// The default as users read it in tables and --help ("0.05", "white", "bottom-right").
    package var defaultText: String {
        switch (defaultValue, type) {
        case (.string(nil), _): "none"
        case (.string(let s?), _): "\"\(s)\""
        case (.color(let c), _): ARGBColor.name(of: c) ?? "0x" + String(c.argb, radix: 16, uppercase: true)
        case (.choice(let i), .choice(let c)): i < c.values.count ? c.values[i].nick : "\(i)"
        case (.double(let v), _): Self.format(v)
        default: defaultValue.launchText
        }
    }

    /// Reads a value as a user types it on a command line (or in a property table's
    /// string form): checked against the type and the user range. The error names the
    /// problem without the property's name.
    package func parse(_ text: String) -> Result<PropertyValue, PropertyValueError> {
        switch type {
        case .string:
            if text.isEmpty && !allowsEmpty { return .failure(PropertyValueError("must not be empty")) }
            return .success(.string(text))
        case .double:
            guard let v = Double(text), v.isFinite else {
                return .failure(PropertyValueError("\"\(text)\" is not a number"))
            }
            return checked(v)
        case .uint:
            guard let v = Double(text), v.isFinite else {
                return .failure(PropertyValueError("\"\(text)\" is not a whole number"))
            }
            return checked(v)
        case .color:
            guard let c = ARGBColor(parsing: text) else {
                return .failure(
                    PropertyValueError("\"\(text)\" is not a colour (#RRGGBB, #RRGGBBAA, 0xAARRGGBB or a name)"))
            }
            return .success(.color(c))
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return .success(.bool(true))
            case "false", "no", "0": return .success(.bool(false))
            default: return .failure(PropertyValueError("\"\(text)\" is not true or false"))
            }
        case .choice(let c):
            guard let i = c.index(of: text) else {
                return .failure(
                    PropertyValueError("unknown \(name) \"\(text)\" (one of \(c.nicks.joined(separator: ", ")))"))
            }
            return .success(.choice(i))
        case .counter:
            return .failure(PropertyValueError("is read-only"))
        }
    }

    /// The number `v` as this property's value, if it is inside the user range (and whole,
    /// for a uint).
    package func checked(_ v: Double) -> Result<PropertyValue, PropertyValueError> {
        if let r = userRange, !r.contains(v) {
            return .failure(
                PropertyValueError(
                    "\(Self.format(v)) is out of range \(Self.format(r.lowerBound))…\(Self.format(r.upperBound))"))
        }
        if case .uint = type {
            guard v == v.rounded(), let u = UInt32(exactly: v) else {
                return .failure(PropertyValueError("\(Self.format(v)) is not a whole number"))
            }
            return .success(.uint(u))
        }
        return .success(.double(v))
    }

    /// Numbers as people write them: integers without ".0".
    package static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

package struct PropertyValueError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

extension ARGBColor {
    /// The colour's name when it has one (white, black, …).
    package static func name(of c: ARGBColor) -> String? {
        named.filter { $0.value == c.argb }.map(\.key).sorted().first
    }

    /// The names a colour may be given by, sorted.
    package static var names: [String] { named.keys.sorted() }
}
