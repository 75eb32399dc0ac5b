// The element's properties, declared once: each entry gives the name, type, range, default,
// unit and blurb, and where the value lives (a key path into `LayerSpec`, or the element
// setting it stands for). Setting, reading and defaults all come from the entry:
// - the element installs its GObject param specs from `WatermarkProperties.all`;
// - `LayerSpec.set`/`value(of:)` go through the entry's key path;
// - the config parser and serialiser, the CLI's options and --help read it;
// - `wm-gen` writes docs/config.schema.json, the man page's overlay options, the README's
//   table and the Swift API's `WatermarkLayer` from it (a test fails when they drift).
// Adding a property is one entry here (and one line in `all`), then `swift run wm-gen`.

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
        _ blurb: String
    ) {
        /// The string of a string value (nil for a value of another type).
        @Sendable func string(_ v: PropertyValue) -> String?? {
            guard case .string(let s) = v else { return nil }
            return .some(s)
        }
        let role: PropertyRole =
            switch target {
            case .element(let e): .element(e)
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
        definition = PropertyDefinition(
            name, nick, .string, default: .string(value), role: role, isPath: isPath, allowsEmpty: allowsEmpty, blurb)
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

    init(
        _ name: String, _ nick: String, _ type: PropertyType, default value: PropertyValue, unit: String = "",
        role: PropertyRole, controllable: Bool = false, explicitRange: ClosedRange<Double>? = nil,
        isPath: Bool = false, allowsEmpty: Bool = false, _ blurb: String
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

/// The table.
package enum WatermarkProperties {
    package static let maxSeconds = 1e9

    package static let anchorChoice = PropertyChoice(
        typeName: "GstWatermarkAnchor", swiftType: "Anchor",
        values: [
            ("top-left", "Top left corner"), ("top", "Top edge, centred"), ("top-right", "Top right corner"),
            ("left", "Left edge, centred"), ("center", "Centre"), ("right", "Right edge, centred"),
            ("bottom-left", "Bottom left corner"), ("bottom", "Bottom edge, centred"),
            ("bottom-right", "Bottom right corner"),
        ])

    package static let textAlignChoice = PropertyChoice(
        typeName: "GstWatermarkTextAlign", swiftType: "TextAlign",
        values: [
            ("auto", "The anchor's side"), ("left", "Left"), ("center", "Centred"), ("right", "Right"),
        ])

    package static let motionChoice = PropertyChoice(
        typeName: "GstWatermarkMotion", swiftType: "MotionKind",
        values: [
            ("none", "Stays where it is placed"),
            ("bounce", "Bounces around the frame inside the margins"),
            ("jump", "Jumps to a new place inside the margins every motion-interval seconds"),
            ("ticker", "Scrolls right to left across the frame at its row, copy after copy"),
        ])

    package static let overlayModeChoice = PropertyChoice(
        typeName: "GstWatermarkOverlayMode", swiftType: "OverlayMode",
        values: [
            ("auto", "Attach GstVideoOverlayCompositionMeta when downstream accepts it, else blend"),
            ("blend", "Always blend into the frame's pixels"),
        ])

    package static let image = Property<String?>(
        "image", "Image", default: nil, .path(\.imagePath),
        "Path of a PNG, JPEG, SVG, GIF or WebP logo (animated GIF, WebP and PNG play with their own "
            + "delays and loop count from the layer's start); decoded once when set or at start "
            + "(SVG is rendered at the exact target size). Empty or NULL = no image")
    package static let text = Property<String?>(
        "text", "Text", default: nil, .text(\.text), allowsEmpty: true,
        "UTF-8 text drawn with Pango (shaping and per-glyph font fallback). Live "
            + "placeholders: {pts} {stream-time} {running-time} {timecode} {frame} "
            + "{clock:STRFTIME} {camera-clock:STRFTIME} {var:NAME} {var:NAME:FORMAT} {data:FIELD} {data:FIELD:FORMAT} ({{ and }} for braces). Empty or NULL = no text"
    )
    package static let fontDesc = Property<String?>(
        "font-desc", "Font description", default: "Sans Bold", .orDefault(\.style.fontDesc),
        "Pango font description such as \"Sans Bold\" or \"Serif Italic\"; any size "
            + "in it is ignored (see text-size)")
    package static let textSize = Property<Double>(
        "text-size", "Text size", 0.001...1, default: 0.05, unit: "fraction of the frame height", controllable: true,
        .layer(\.style.textSize), "Height of one text line as a fraction of the frame height")
    package static let color = Property<ARGBColor>(
        "color", "Text colour", default: .white, .layer(\.style.color),
        "Text fill colour as 0xAARRGGBB (alpha in the top byte)")
    package static let outlineColor = Property<ARGBColor>(
        "outline-color", "Outline colour", default: .black, .layer(\.style.outlineColor),
        "Text outline colour as 0xAARRGGBB (alpha in the top byte)")
    package static let outlineWidth = Property<Double>(
        "outline-width", "Outline width", 0...1, default: 0.08, unit: "fraction of text-size",
        .layer(\.style.outlineWidth), "Text outline thickness as a fraction of the text size; 0 = no outline")
    package static let shadow = Property<Bool>(
        "shadow", "Shadow", default: false, .layer(\.style.shadow),
        "Draw a soft drop shadow under the text and the image")
    package static let anchor = Property<Anchor>(
        "anchor", "Anchor", anchorChoice, default: .bottomRight, .layer(\.style.placement.anchor),
        "Corner, edge or centre of the frame the overlay is placed at (and the point of "
            + "the overlay that x/y position when they are set)")
    package static let marginX = Property<Double>(
        "margin-x", "Horizontal margin", 0...1, default: 0.03, unit: "fraction of the frame width",
        controllable: true, .layer(\.style.placement.marginX),
        "Distance from the left/right edge named by the anchor, as a fraction of the "
            + "frame width (ignored by anchors centred horizontally)")
    package static let marginY = Property<Double>(
        "margin-y", "Vertical margin", 0...1, default: 0.03, unit: "fraction of the frame height",
        controllable: true, .layer(\.style.placement.marginY),
        "Distance from the top/bottom edge named by the anchor, as a fraction of the "
            + "frame height (ignored by anchors centred vertically)")
    package static let x = Property<Double>(
        "x", "X position", -1...1, default: -1, unit: "fraction of the frame width", controllable: true,
        explicitRange: 0...1, .layer(\.style.placement.x),
        "Horizontal position of the overlay's anchor point as a fraction of the frame "
            + "width (0..1); -1 = unset, place by anchor and margin-x")
    package static let y = Property<Double>(
        "y", "Y position", -1...1, default: -1, unit: "fraction of the frame height", controllable: true,
        explicitRange: 0...1, .layer(\.style.placement.y),
        "Vertical position of the overlay's anchor point as a fraction of the frame "
            + "height (0..1); -1 = unset, place by anchor and margin-y")
    package static let width = Property<Double>(
        "width", "Image width", 0...1, default: 0.12, unit: "fraction of the frame width", controllable: true,
        .layer(\.style.imageWidth),
        "Image width as a fraction of the frame width (height keeps the aspect "
            + "ratio); 0 = the image's own pixel size")
    package static let opacity = Property<Double>(
        "opacity", "Opacity", 0...1, default: 1, controllable: true, .layer(\.opacity),
        "Multiplies the overlay's own alpha: 0 = invisible, 1 = as drawn")
    package static let overlayMode = Property<OverlayMode>(
        "overlay-mode", "Overlay mode", overlayModeChoice, default: .auto, .element(.overlayMode),
        "auto: attach a GstVideoOverlayCompositionMeta when downstream accepts "
            + "it (GL, VA, Vulkan sinks) and leave the pixels alone, else blend; "
            + "blend: always blend into the pixels")
    package static let start = Property<Double>(
        "start", "Start", 0...maxSeconds, default: 0, unit: "seconds", .layer(\.timing.start),
        "Stream time in seconds at which the overlay appears; 0 = from the start")
    package static let end = Property<Double>(
        "end", "End", -1...maxSeconds, default: -1, unit: "seconds", explicitRange: 0...maxSeconds,
        .layer(\.timing.end), adjust: { $0 < 0 ? -1 : $0 },
        "Stream time in seconds at which the overlay disappears; -1 = never")
    package static let fadeIn = Property<Double>(
        "fade-in", "Fade in", 0...maxSeconds, default: 0, unit: "seconds", .layer(\.timing.fadeIn),
        "Seconds over which the overlay fades in after start; 0 = appears at once")
    package static let fadeOut = Property<Double>(
        "fade-out", "Fade out", 0...maxSeconds, default: 0, unit: "seconds", .layer(\.timing.fadeOut),
        "Seconds over which the overlay fades out before end; 0 = disappears at once")
    package static let config = Property<String?>(
        "config", "Config file", default: nil, .element(.config),
        "Path to a JSON file listing any number of layers (text, image, timing, "
            + "keyframes, rotation), drawn in order under the single layer the other "
            + "properties describe. Setting it again while playing reloads the file "
            + "atomically; a bad file then keeps the old layers and posts a warning")
    package static let configData = Property<String?>(
        "config-data", "Config data", default: nil, .element(.configData),
        "The same JSON document as a config file, given as text instead of a path (for "
            + "applications and remote control); used instead of config when set. Relative "
            + "paths in it are relative to the current directory. Setting it while playing "
            + "swaps all layers at once on one frame; a bad document keeps the old layers "
            + "and posts a warning")
    package static let textFile = Property<String?>(
        "text-file", "Text file", default: nil, .path(\.textFile),
        "Path to a UTF-8 text file whose contents are shown instead of text; the "
            + "file is watched and the text follows it (whole-file updates only)")
    package static let rotation = Property<Double>(
        "rotation", "Rotation", -3600...3600, default: 0, unit: "degrees", controllable: true,
        .layer(\.style.rotation), "Clockwise rotation of the logo/text block about its centre, in degrees")
    package static let backgroundColor = Property<ARGBColor>(
        "background-color", "Background colour", default: ARGBColor(argb: 0), .layer(\.style.caption.background),
        "Colour of a box behind the text lines as 0xAARRGGBB (0x80000000: half-transparent black); "
            + "alpha 0 = no box")
    package static let backgroundPadding = Property<Double>(
        "background-padding", "Background padding", 0...2, default: 0.25, unit: "fraction of text-size",
        .layer(\.style.caption.padding),
        "Space between the text and the edge of its box, as a fraction of text-size")
    package static let backgroundRadius = Property<Double>(
        "background-radius", "Background radius", 0...2, default: 0, unit: "fraction of text-size",
        .layer(\.style.caption.radius), "Corner radius of the box as a fraction of text-size; 0 = square corners")
    package static let backgroundFullWidth = Property<Bool>(
        "background-full-width", "Full-width background", default: false, .layer(\.style.caption.fullWidth),
        "The box spans the frame's whole width (a lower-third band); the text sits in it by anchor, "
            + "text-align and margin-x")
    package static let textAlign = Property<TextAlign>(
        "text-align", "Text alignment", textAlignChoice, default: .auto, .layer(\.style.caption.align),
        "Alignment of the lines of multi-line or wrapped text; auto = the anchor's side")
    package static let wrapWidth = Property<Double>(
        "wrap-width", "Wrap width", 0...1, default: 0, unit: "fraction of the frame width",
        .layer(\.style.caption.wrapWidth),
        "Wrap text at word boundaries (per character for CJK) to this fraction of the frame width; "
            + "0 = no wrapping")
    package static let lineSpacing = Property<Double>(
        "line-spacing", "Line spacing", -0.5...5, default: 0, unit: "fraction of text-size",
        .layer(\.style.caption.lineSpacing), "Extra space between lines as a fraction of text-size")
    package static let letterSpacing = Property<Double>(
        "letter-spacing", "Letter spacing", -0.5...2, default: 0, unit: "fraction of text-size",
        .layer(\.style.caption.letterSpacing), "Extra space between letters as a fraction of text-size")
    package static let fontFeatures = Property<String?>(
        "font-features", "Font features", default: nil, .optional(\.style.caption.fontFeatures), allowsEmpty: true,
        "OpenType features, comma-separated as in CSS font-feature-settings (\"tnum\", \"smcp, onum\"); "
            + "NULL = tnum for text with live placeholders (steady digits), none otherwise; empty = none")
    package static let motion = Property<MotionKind>(
        "motion", "Motion", motionChoice, default: .none, .layer(\.motion.kind),
        "How the layer moves on its own: none; bounce (from its place, at 45° towards the centre, off "
            + "the margins); jump (to a new place every motion-interval seconds, from motion-seed); "
            + "ticker (scrolls right to left at its row, the next copy a tenth of the frame width behind)")
    package static let motionSpeed = Property<Double>(
        "motion-speed", "Motion speed", 0...10, default: 0.1,
        unit: "frame diagonals (bounce) or widths (ticker) per second", .layer(\.motion.speed),
        "Bounce speed in frame diagonals per second; ticker speed in frame widths per second")
    package static let motionInterval = Property<Double>(
        "motion-interval", "Motion interval", 0.1...3600, default: 3, unit: "seconds", .layer(\.motion.interval),
        "Seconds between jumps; with fade-in/fade-out the layer fades in after each jump and out before the next")
    package static let motionSeed = Property<UInt32>(
        "motion-seed", "Motion seed", 0...UInt32.max, default: 0, .layer(\.motion.seed),
        "Chooses the sequence of jump places: the same seed gives the same places in every export")
    package static let hdrReferenceWhite = Property<Double>(
        "hdr-reference-white", "HDR reference white", 1...10000, default: 203, unit: "cd/m²",
        .layer(\.style.hdrReferenceWhite),
        "Luminance in cd/m² that the overlay's white is shown at in PQ and HLG streams (ITU-R BT.2408 "
            + "graphics white: 203); SDR streams ignore it")
    package static let followOrientation = Property<Bool>(
        "follow-orientation", "Follow orientation", default: true, .element(.followOrientation),
        "Honour the stream's image-orientation tag: place and turn every layer so "
            + "that it is upright at its anchor in the picture a player displays")
    package static let renderCount = Property<UInt64>(
        "render-count", "Render count", .renderCount,
        "Number of times a layer has been rendered (text shaped, image scaled) since "
            + "start; static layers render once per caps change (diagnostics)")
    package static let renderAhead = Property<Bool>(
        "render-ahead", "Render ahead", default: true, .element(.renderAhead),
        "Render layers that change with time (placeholders, animated style) one "
            + "frame ahead on a worker thread, off the streaming thread (with a source "
            + "that is not live, only layers that change now and then)")

    package static let variables = Property<String?>(
        "variables", "Variables", default: nil, .element(.variables),
        "Values for {var:NAME} placeholders as a GstStructure (\"v, home=(int)2, speaker=\\\"Ana\\\"\"); "
            + "setting it replaces them all, shown together from the next frame. NULL = none")

    package static let dataFile = Property<String?>(
        "data-file", "Data file", default: nil, .element(.dataFile),
        "CSV (with a header row) or JSON Lines file of timed values that {data:FIELD} shows and "
            + "data: bindings follow: each row has a time (seconds from the stream's start, or "
            + "ISO 8601 aligned to the stream's creation time); numbers are interpolated to each "
            + "frame's stream time. Read whole at start; used instead of a config's \"data\". NULL = none")
    package static let dataOffset = Property<Double>(
        "data-offset", "Data offset", -1e9...1e9, default: 0, unit: "seconds", .element(.dataOffset),
        "Seconds added to the data file's times: a row at 2 s shows at 2 s + data-offset of stream time")
    package static let dataTimeColumn = Property<String?>(
        "data-time-column", "Data time column", default: nil, .element(.dataTimeColumn),
        "The data file's column (or JSON Lines field) that holds each row's time; NULL = the first "
            + "named time, t, timestamp, seconds or elapsed")
    package static let dataStep = Property<String?>(
        "data-step", "Data step fields", default: nil, .element(.dataStep),
        "Comma-separated data fields held from one row to the next instead of interpolated "
            + "(a gear, a lap number); NULL = every number is interpolated")

    /// Every property in installation order; a property's GObject id is its index + 1.
    package static let all: [PropertyDefinition] = [
        image.definition, text.definition, fontDesc.definition, textSize.definition, color.definition,
        outlineColor.definition, outlineWidth.definition, shadow.definition, anchor.definition, marginX.definition,
        marginY.definition, x.definition, y.definition, width.definition, opacity.definition, overlayMode.definition,
        start.definition, end.definition, fadeIn.definition, fadeOut.definition, config.definition,
        configData.definition, textFile.definition, rotation.definition, backgroundColor.definition,
        backgroundPadding.definition, backgroundRadius.definition, backgroundFullWidth.definition,
        textAlign.definition, wrapWidth.definition, lineSpacing.definition, letterSpacing.definition,
        fontFeatures.definition, motion.definition, motionSpeed.definition, motionInterval.definition,
        motionSeed.definition, hdrReferenceWhite.definition, followOrientation.definition, renderCount.definition,
        renderAhead.definition, variables.definition, dataFile.definition, dataOffset.definition,
        dataTimeColumn.definition, dataStep.definition,
    ]

    /// The properties that describe a layer (config fields and CLI options).
    package static let layer = all.filter { $0.scope == .layer }

    private static let byName: [String: Int] = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.name, $0) })

    /// The property a user names (a config field, an option, a control request).
    package static func named(_ name: String) -> PropertyDefinition? { byName[name].map { all[$0] } }
}

extension LayerSpec {
    /// Sets layer property `property` through its key path, with the value made safe
    /// (`PropertyDefinition.safe`). Element properties and values of another type are
    /// ignored.
    package mutating func set(_ property: PropertyDefinition, _ value: PropertyValue) {
        guard let field = property.field, let v = property.safe(value) else { return }
        field.set(&self, v)
    }

    /// The layer property's current value (nil for an element property).
    package func value(of property: PropertyDefinition) -> PropertyValue? {
        property.field?.get(self)
    }
}
