// The element's properties, declared once: name, type, default, range, unit and blurb.
// The element installs its GObject param specs from this table; the config parser, the
// CLI's options and --help, and the README's table read it too, and tests check the
// param specs and docs/config.schema.json against it. A default changed here changes
// everywhere.

/// A property's value, in the type the table gives it.
package enum PropertyValue: Sendable, Equatable {
    /// nil: NULL (no value).
    case string(String?)
    case double(Double)
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

package struct PropertyDefinition: Sendable {
    package let name: String
    package let nick: String
    package let type: PropertyType
    package let defaultValue: PropertyValue
    /// What the number means, for tables ("fraction of the frame height", "seconds").
    package let unit: String
    /// One or two sentences: what it does and what 0 / -1 / empty mean.
    package let blurb: String
    package let scope: PropertyScope
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
        scope: PropertyScope = .layer, controllable: Bool = false, explicitRange: ClosedRange<Double>? = nil,
        isPath: Bool = false, allowsEmpty: Bool = false, _ blurb: String
    ) {
        self.name = name
        self.nick = nick
        self.type = type
        defaultValue = value
        self.unit = unit
        self.blurb = blurb
        self.scope = scope
        self.controllable = controllable
        self.explicitRange = explicitRange
        self.isPath = isPath
        self.allowsEmpty = allowsEmpty
    }

    /// The range a config file or CLI value must be in (doubles only).
    package var userRange: ClosedRange<Double>? {
        if let explicitRange { return explicitRange }
        if case .double(let r) = type { return r }
        return nil
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

    /// `v` if it is inside the user range.
    package func checked(_ v: Double) -> Result<PropertyValue, PropertyValueError> {
        if let r = userRange, !r.contains(v) {
            return .failure(
                PropertyValueError(
                    "\(Self.format(v)) is out of range \(Self.format(r.lowerBound))…\(Self.format(r.upperBound))"))
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
    static func name(of c: ARGBColor) -> String? {
        named.filter { $0.value == c.argb }.map(\.key).sorted().first
    }
}

/// The table.
package enum WatermarkProperties {
    package static let maxSeconds = 1e9

    package static let anchor = PropertyChoice(
        typeName: "GstWatermarkAnchor",
        values: [
            ("top-left", "Top left corner"), ("top", "Top edge, centred"), ("top-right", "Top right corner"),
            ("left", "Left edge, centred"), ("center", "Centre"), ("right", "Right edge, centred"),
            ("bottom-left", "Bottom left corner"), ("bottom", "Bottom edge, centred"),
            ("bottom-right", "Bottom right corner"),
        ])

    package static let textAlign = PropertyChoice(
        typeName: "GstWatermarkTextAlign",
        values: [
            ("auto", "The anchor's side"), ("left", "Left"), ("center", "Centred"), ("right", "Right"),
        ])

    package static let motion = PropertyChoice(
        typeName: "GstWatermarkMotion",
        values: [
            ("none", "Stays where it is placed"),
            ("bounce", "Bounces around the frame inside the margins"),
            ("jump", "Jumps to a new place inside the margins every motion-interval seconds"),
            ("ticker", "Scrolls right to left across the frame at its row, copy after copy"),
        ])

    package static let overlayMode = PropertyChoice(
        typeName: "GstWatermarkOverlayMode",
        values: [
            ("auto", "Attach GstVideoOverlayCompositionMeta when downstream accepts it, else blend"),
            ("blend", "Always blend into the frame's pixels"),
        ])

    /// Every property in installation order; a property's GObject id is its index + 1.
    package static let all: [PropertyDefinition] = [
        PropertyDefinition(
            "image", "Image", .string, default: .string(nil), isPath: true,
            "Path of a PNG, JPEG, SVG, GIF or WebP logo (animated GIF, WebP and PNG play with their own "
                + "delays and loop count from the layer's start); decoded once when set or at start "
                + "(SVG is rendered at the exact target size). Empty or NULL = no image"),
        PropertyDefinition(
            "text", "Text", .string, default: .string(nil), allowsEmpty: true,
            "UTF-8 text drawn with Pango (shaping and per-glyph font fallback). Live "
                + "placeholders: {pts} {stream-time} {running-time} {timecode} {frame} "
                + "{clock:STRFTIME} ({{ and }} for braces). Empty or NULL = no text"),
        PropertyDefinition(
            "font-desc", "Font description", .string, default: .string("Sans Bold"),
            "Pango font description such as \"Sans Bold\" or \"Serif Italic\"; any size "
                + "in it is ignored (see text-size)"),
        PropertyDefinition(
            "text-size", "Text size", .double(0.001...1), default: .double(0.05),
            unit: "fraction of the frame height", controllable: true,
            "Height of one text line as a fraction of the frame height"),
        PropertyDefinition(
            "color", "Text colour", .color, default: .color(.white),
            "Text fill colour as 0xAARRGGBB (alpha in the top byte)"),
        PropertyDefinition(
            "outline-color", "Outline colour", .color, default: .color(.black),
            "Text outline colour as 0xAARRGGBB (alpha in the top byte)"),
        PropertyDefinition(
            "outline-width", "Outline width", .double(0...1), default: .double(0.08),
            unit: "fraction of text-size",
            "Text outline thickness as a fraction of the text size; 0 = no outline"),
        PropertyDefinition(
            "shadow", "Shadow", .bool, default: .bool(false),
            "Draw a soft drop shadow under the text and the image"),
        PropertyDefinition(
            "anchor", "Anchor", .choice(anchor), default: .choice(Anchor.bottomRight.rawValue),
            "Corner, edge or centre of the frame the overlay is placed at (and the point of "
                + "the overlay that x/y position when they are set)"),
        PropertyDefinition(
            "margin-x", "Horizontal margin", .double(0...1), default: .double(0.03),
            unit: "fraction of the frame width", controllable: true,
            "Distance from the left/right edge named by the anchor, as a fraction of the "
                + "frame width (ignored by anchors centred horizontally)"),
        PropertyDefinition(
            "margin-y", "Vertical margin", .double(0...1), default: .double(0.03),
            unit: "fraction of the frame height", controllable: true,
            "Distance from the top/bottom edge named by the anchor, as a fraction of the "
                + "frame height (ignored by anchors centred vertically)"),
        PropertyDefinition(
            "x", "X position", .double(-1...1), default: .double(-1),
            unit: "fraction of the frame width", controllable: true, explicitRange: 0...1,
            "Horizontal position of the overlay's anchor point as a fraction of the frame "
                + "width (0..1); -1 = unset, place by anchor and margin-x"),
        PropertyDefinition(
            "y", "Y position", .double(-1...1), default: .double(-1),
            unit: "fraction of the frame height", controllable: true, explicitRange: 0...1,
            "Vertical position of the overlay's anchor point as a fraction of the frame "
                + "height (0..1); -1 = unset, place by anchor and margin-y"),
        PropertyDefinition(
            "width", "Image width", .double(0...1), default: .double(0.12),
            unit: "fraction of the frame width", controllable: true,
            "Image width as a fraction of the frame width (height keeps the aspect "
                + "ratio); 0 = the image's own pixel size"),
        PropertyDefinition(
            "opacity", "Opacity", .double(0...1), default: .double(1), controllable: true,
            "Multiplies the overlay's own alpha: 0 = invisible, 1 = as drawn"),
        PropertyDefinition(
            "overlay-mode", "Overlay mode", .choice(overlayMode), default: .choice(0), scope: .element,
            "auto: attach a GstVideoOverlayCompositionMeta when downstream accepts "
                + "it (GL, VA, Vulkan sinks) and leave the pixels alone, else blend; "
                + "blend: always blend into the pixels"),
        PropertyDefinition(
            "start", "Start", .double(0...maxSeconds), default: .double(0), unit: "seconds",
            "Stream time in seconds at which the overlay appears; 0 = from the start"),
        PropertyDefinition(
            "end", "End", .double(-1...maxSeconds), default: .double(-1), unit: "seconds",
            explicitRange: 0...maxSeconds,
            "Stream time in seconds at which the overlay disappears; -1 = never"),
        PropertyDefinition(
            "fade-in", "Fade in", .double(0...maxSeconds), default: .double(0), unit: "seconds",
            "Seconds over which the overlay fades in after start; 0 = appears at once"),
        PropertyDefinition(
            "fade-out", "Fade out", .double(0...maxSeconds), default: .double(0), unit: "seconds",
            "Seconds over which the overlay fades out before end; 0 = disappears at once"),
        PropertyDefinition(
            "config", "Config file", .string, default: .string(nil), scope: .element,
            "Path to a JSON file listing any number of layers (text, image, timing, "
                + "keyframes, rotation), drawn in order under the single layer the other "
                + "properties describe. Setting it again while playing reloads the file "
                + "atomically; a bad file then keeps the old layers and posts a warning"),
        PropertyDefinition(
            "config-data", "Config data", .string, default: .string(nil), scope: .element,
            "The same JSON document as a config file, given as text instead of a path (for "
                + "applications and remote control); used instead of config when set. Relative "
                + "paths in it are relative to the current directory. Setting it while playing "
                + "swaps all layers at once on one frame; a bad document keeps the old layers "
                + "and posts a warning"),
        PropertyDefinition(
            "text-file", "Text file", .string, default: .string(nil), isPath: true,
            "Path to a UTF-8 text file whose contents are shown instead of text; the "
                + "file is watched and the text follows it (whole-file updates only)"),
        PropertyDefinition(
            "rotation", "Rotation", .double(-3600...3600), default: .double(0), unit: "degrees",
            controllable: true, "Clockwise rotation of the logo/text block about its centre, in degrees"),
        PropertyDefinition(
            "background-color", "Background colour", .color, default: .color(ARGBColor(argb: 0)),
            "Colour of a box behind the text lines as 0xAARRGGBB (0x80000000: half-transparent black); "
                + "alpha 0 = no box"
        ),
        PropertyDefinition(
            "background-padding", "Background padding", .double(0...2), default: .double(0.25),
            unit: "fraction of text-size",
            "Space between the text and the edge of its box, as a fraction of text-size"
        ),
        PropertyDefinition(
            "background-radius", "Background radius", .double(0...2), default: .double(0),
            unit: "fraction of text-size", "Corner radius of the box as a fraction of text-size; 0 = square corners"
        ),
        PropertyDefinition(
            "background-full-width", "Full-width background", .bool, default: .bool(false),
            "The box spans the frame's whole width (a lower-third band); the text sits in it by anchor, "
                + "text-align and margin-x"
        ),
        PropertyDefinition(
            "text-align", "Text alignment", .choice(textAlign), default: .choice(0),
            "Alignment of the lines of multi-line or wrapped text; auto = the anchor's side"
        ),
        PropertyDefinition(
            "wrap-width", "Wrap width", .double(0...1), default: .double(0), unit: "fraction of the frame width",
            "Wrap text at word boundaries (per character for CJK) to this fraction of the frame width; "
                + "0 = no wrapping"
        ),
        PropertyDefinition(
            "line-spacing", "Line spacing", .double(-0.5...5), default: .double(0), unit: "fraction of text-size",
            "Extra space between lines as a fraction of text-size"
        ),
        PropertyDefinition(
            "letter-spacing", "Letter spacing", .double(-0.5...2), default: .double(0),
            unit: "fraction of text-size", "Extra space between letters as a fraction of text-size"
        ),
        PropertyDefinition(
            "font-features", "Font features", .string, default: .string(nil), allowsEmpty: true,
            "OpenType features, comma-separated as in CSS font-feature-settings (\"tnum\", \"smcp, onum\"); "
                + "NULL = tnum for text with live placeholders (steady digits), none otherwise; empty = none"
        ),
        PropertyDefinition(
            "motion", "Motion", .choice(motion), default: .choice(0),
            "How the layer moves on its own: none; bounce (from its place, at 45° towards the centre, off "
                + "the margins); jump (to a new place every motion-interval seconds, from motion-seed); "
                + "ticker (scrolls right to left at its row, the next copy a tenth of the frame width behind)"
        ),
        PropertyDefinition(
            "motion-speed", "Motion speed", .double(0...10), default: .double(0.1),
            unit: "frame diagonals (bounce) or widths (ticker) per second",
            "Bounce speed in frame diagonals per second; ticker speed in frame widths per second"
        ),
        PropertyDefinition(
            "motion-interval", "Motion interval", .double(0.1...3600), default: .double(3), unit: "seconds",
            "Seconds between jumps; with fade-in/fade-out the layer fades in after each jump and out before the next"
        ),
        PropertyDefinition(
            "motion-seed", "Motion seed", .double(0...4_294_967_295), default: .double(0),
            "Whole number choosing the sequence of jump places: the same seed gives the same places in every export"
        ),
        PropertyDefinition(
            "hdr-reference-white", "HDR reference white", .double(1...10000), default: .double(203), unit: "cd/m²",
            "Luminance in cd/m² that the overlay's white is shown at in PQ and HLG streams (ITU-R BT.2408 "
                + "graphics white: 203); SDR streams ignore it"
        ),
        PropertyDefinition(
            "follow-orientation", "Follow orientation", .bool, default: .bool(true), scope: .element,
            "Honour the stream's image-orientation tag: place and turn every layer so "
                + "that it is upright at its anchor in the picture a player displays"),
        PropertyDefinition(
            "render-count", "Render count", .counter, default: .counter(0), scope: .element,
            "Number of times a layer has been rendered (text shaped, image scaled) since "
                + "start; static layers render once per caps change (diagnostics)"),
        PropertyDefinition(
            "render-ahead", "Render ahead", .bool, default: .bool(true), scope: .element,
            "Render layers that change with time (placeholders, animated style) one "
                + "frame ahead on a worker thread, off the streaming thread (with a source "
                + "that is not live, only layers that change now and then)"),
    ]

    /// The properties that describe a layer (config fields and CLI options).
    package static let layer = all.filter { $0.scope == .layer }

    private static let byName: [String: Int] = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.name, $0) })

    package static func index(of name: String) -> Int? { byName[name] }

    package static func named(_ name: String) -> PropertyDefinition? { byName[name].map { all[$0] } }

    /// The default of a double property (a table entry that is not one is a programming error
    /// caught by the tests; 0 keeps it from trapping).
    package static func defaultDouble(_ name: String) -> Double {
        if case .double(let v)? = named(name)?.defaultValue { return v }
        return 0
    }

    /// `v` as the double property `name` takes it: within the property's range, and its
    /// default when not finite (`v` itself for a name that is not a double property).
    package static func clamped(_ name: String, _ v: Double) -> Double {
        guard case .double(let range)? = named(name)?.type else { return v }
        return v.isFinite ? min(max(v, range.lowerBound), range.upperBound) : defaultDouble(name)
    }

    package static func defaultString(_ name: String) -> String {
        if case .string(let s?)? = named(name)?.defaultValue { return s }
        return ""
    }

    package static func defaultColor(_ name: String) -> ARGBColor {
        if case .color(let c)? = named(name)?.defaultValue { return c }
        return .white
    }
}
