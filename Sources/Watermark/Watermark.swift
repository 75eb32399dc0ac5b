// Invariant: a WatermarkOverlay owns one reference to its GstElement, taken in init and
// dropped in deinit; property changes go through GObject, which the element makes safe
// from any thread.

import CGStreamer
import CShim
import WatermarkElement
@_exported import WatermarkModel

extension WatermarkLayer {
    /// `watermark name=value …` for a gst_parse_launch / gst-launch-1.0 description.
    public var launchDescription: String {
        (["watermark"] + properties.map { "\($0.name)=\(LaunchSyntax.quote($0.value))" }).joined(separator: " ")
    }
}

/// The element's thread starter, image check and camera time, for the package's own tools
/// (the CLI starts its threads, checks control-API images and reads a frame's camera time
/// the element's way).
package typealias NamedThread = WatermarkElement.NamedThread
package typealias ImageCheck = WatermarkElement.ImageCheck
package typealias CameraTime = WatermarkElement.CameraTime
package typealias ForensicKey = WatermarkElement.ForensicKey

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

    /// Sets every `{var:NAME}` value at once, from a GstStructure's text as gst-launch writes
    /// it (`v, home=(int)2, speaker="Ana"`); nil unsets them all. The next frame shows them
    /// together. False (and nothing changes) when the text is not a structure.
    @discardableResult
    public func setVariables(_ structure: String?) -> Bool {
        var value = GValue()
        g_value_init(&value, gst_structure_get_type())
        defer { g_value_unset(&value) }
        if let structure {
            guard let parsed = gst_structure_from_string(structure, nil) else { return false }
            g_value_take_boxed(&value, parsed)
        }
        g_object_set_property(gst_watermark_as_object(element), "variables", &value)
        return true
    }

    /// The `{var:NAME}` values set, as the structure's text (nil: none).
    public var variables: String? {
        var value = GValue()
        g_value_init(&value, gst_structure_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(gst_watermark_as_object(element), "variables", &value)
        guard let boxed = g_value_get_boxed(&value),
            let text = gst_structure_to_string(boxed.assumingMemoryBound(to: GstStructure.self))
        else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }
}
