// Invariant: a WatermarkOverlay owns one reference to its GstElement, taken in init and
// dropped in deinit; property changes go through GObject, which the element makes safe
// from any thread.

import CGStreamer
import CShim
@_exported import WatermarkModel

/// One watermark described in Swift values: what the element's properties say, with
/// nil meaning "the element's default". The CLI builds its pipelines from this too.
public struct WatermarkLayer: Sendable, Equatable {
    public var image: String?
    public var text: String?
    public var fontDesc: String?
    /// Height of one text line as a fraction of the frame height.
    public var textSize: Double?
    public var color: ARGBColor?
    public var outlineColor: ARGBColor?
    /// Outline thickness as a fraction of the text size; 0 = none.
    public var outlineWidth: Double?
    public var shadow: Bool?
    public var anchor: Anchor?
    /// Fractions of the frame width / height.
    public var marginX: Double?
    public var marginY: Double?
    /// Relative position (0...1) of the overlay's anchor point.
    public var x: Double?
    public var y: Double?
    /// Image width as a fraction of the frame width; 0 = natural size.
    public var width: Double?
    public var opacity: Double?
    /// Seconds of stream time: when the overlay appears / disappears, and its fades.
    public var start: Double?
    public var end: Double?
    public var fadeIn: Double?
    public var fadeOut: Double?
    /// Clockwise rotation of the block in degrees.
    public var rotation: Double?
    /// A UTF-8 file whose contents are shown instead of `text`, followed as it changes.
    public var textFile: String?
    /// A JSON layers file (see the README), drawn under this layer.
    public var config: String?

    public init(
        image: String? = nil, text: String? = nil, fontDesc: String? = nil, textSize: Double? = nil,
        color: ARGBColor? = nil, outlineColor: ARGBColor? = nil, outlineWidth: Double? = nil,
        shadow: Bool? = nil, anchor: Anchor? = nil, marginX: Double? = nil, marginY: Double? = nil,
        x: Double? = nil, y: Double? = nil, width: Double? = nil, opacity: Double? = nil
    ) {
        self.image = image
        self.text = text
        self.fontDesc = fontDesc
        self.textSize = textSize
        self.color = color
        self.outlineColor = outlineColor
        self.outlineWidth = outlineWidth
        self.shadow = shadow
        self.anchor = anchor
        self.marginX = marginX
        self.marginY = marginY
        self.x = x
        self.y = y
        self.width = width
        self.opacity = opacity
    }

    /// The set properties as (name, value) in the string form GStreamer deserializes.
    public var properties: [(name: String, value: String)] {
        var p: [(String, String)] = []
        if let image { p.append(("image", image)) }
        if let text { p.append(("text", text)) }
        if let fontDesc { p.append(("font-desc", fontDesc)) }
        if let textSize { p.append(("text-size", "\(textSize)")) }
        if let color { p.append(("color", PropertyValue.color(color).launchText)) }
        if let outlineColor { p.append(("outline-color", PropertyValue.color(outlineColor).launchText)) }
        if let outlineWidth { p.append(("outline-width", "\(outlineWidth)")) }
        if let shadow { p.append(("shadow", shadow ? "true" : "false")) }
        if let anchor { p.append(("anchor", anchor.name)) }
        if let marginX { p.append(("margin-x", "\(marginX)")) }
        if let marginY { p.append(("margin-y", "\(marginY)")) }
        if let x { p.append(("x", "\(x)")) }
        if let y { p.append(("y", "\(y)")) }
        if let width { p.append(("width", "\(width)")) }
        if let opacity { p.append(("opacity", "\(opacity)")) }
        if let start { p.append(("start", "\(start)")) }
        if let end { p.append(("end", "\(end)")) }
        if let fadeIn { p.append(("fade-in", "\(fadeIn)")) }
        if let fadeOut { p.append(("fade-out", "\(fadeOut)")) }
        if let rotation { p.append(("rotation", "\(rotation)")) }
        if let textFile { p.append(("text-file", textFile)) }
        if let config { p.append(("config", config)) }
        return p
    }

    /// `watermark name=value …` for a gst_parse_launch / gst-launch-1.0 description.
    public var launchDescription: String {
        (["watermark"] + properties.map { "\($0.name)=\(LaunchSyntax.quote($0.value))" }).joined(separator: " ")
    }
}

package enum LaunchSyntax {
    /// Quotes a value for a gst-launch / gst_parse_launch description.
    package static func quote(_ s: String) -> String {
        var out = "\""
        for ch in s {
            if ch == "\\" || ch == "\"" { out.append("\\") }
            out.append(ch)
        }
        return out + "\""
    }
}

public enum WatermarkPlugin {
    /// Registers the linked-in `watermark` element with GStreamer (after gst_init), so
    /// an app needs no GST_PLUGIN_PATH. Safe to call more than once.
    @discardableResult
    public static func register() -> Bool {
        gst_watermark_register_static() != 0
    }
}

/// A `watermark` element owned by Swift code, configured with `WatermarkLayer` values and
/// updated live from any thread.
public final class WatermarkOverlay: @unchecked Sendable {
    /// Borrowed by callers: the overlay keeps its own reference until it is deinitialised.
    public let element: UnsafeMutablePointer<GstElement>

    /// Creates a new element (registering the plugin if needed), configured with `layer`.
    public init?(_ layer: WatermarkLayer = WatermarkLayer(), name: String? = nil) {
        WatermarkPlugin.register()
        guard let e = gst_element_factory_make("watermark", name) else { return nil }
        // Own a plain reference whether or not the element is later added to a bin.
        _ = gst_object_ref_sink(UnsafeMutableRawPointer(e))
        element = e
        apply(layer)
    }

    /// Wraps an existing watermark element (e.g. from gst_bin_get_by_name), taking a
    /// reference of its own.
    public init?(wrapping e: UnsafeMutablePointer<GstElement>) {
        guard gst_watermark_from_element(e) != nil else { return nil }
        _ = gst_object_ref(UnsafeMutableRawPointer(e))
        element = e
    }

    deinit {
        gst_object_unref(UnsafeMutableRawPointer(element))
    }

    /// Sets every property the layer sets; the element applies them on its next frame.
    public func apply(_ layer: WatermarkLayer) {
        let object = gst_watermark_as_object(element)
        for (name, value) in layer.properties {
            gst_util_set_object_arg(object, name, value)
        }
    }

    /// Changes the text (a counter, a message) while playing.
    public func setText(_ text: String) {
        apply(WatermarkLayer(text: text))
    }
}
