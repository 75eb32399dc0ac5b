import CGStreamer
import CShim
import GstTestSupport
import Testing
import WatermarkModel

/// `{var:…}` through the element's `variables` property: what a frame shows is, pixel for
/// pixel, the same text written out, and a new set of variables shows whole on the next frame.
@Suite struct VariableElementTests {
    static let caps = "video/x-raw,format=I420,width=640,height=360,framerate=30/1"
    static let common = "overlay-mode=blend render-ahead=false anchor=top-left text-size=0.1"

    static func harness(_ text: String, extra: String = "") -> Harness {
        Harness(
            "watermark name=wm \(common) text=\"\(text)\" \(extra) ! videoconvert ! capsfilter caps=video/x-raw,format=BGRA"
        )
    }

    /// The harness's watermark (the element itself, or the one named `wm` in its bin).
    static func watermark(_ h: Harness) throws -> UnsafeMutablePointer<GObject> {
        let type = h.element.pointee.object.object.g_type_instance.g_class.pointee.g_type
        guard g_type_is_a(type, gst_bin_get_type()) != 0 else { return gst_watermark_as_object(h.element) }
        let bin = UnsafeMutableRawPointer(h.element).assumingMemoryBound(to: GstBin.self)
        let wm = try #require(gst_bin_get_by_name(bin, "wm"))
        gst_object_unref(UnsafeMutableRawPointer(wm))  // the bin keeps it
        return gst_watermark_as_object(wm)
    }

    /// Sets `variables` as an application does: a GstStructure made from the text
    /// (Python's `Gst.Structure.new_from_string`), or NULL.
    static func set(_ h: Harness, _ name: String, _ text: String?) throws {
        var v = GValue()
        g_value_init(&v, gst_structure_get_type())
        if let text { g_value_take_boxed(&v, try #require(gst_structure_from_string(text, nil))) }
        g_object_set_property(try watermark(h), name, &v)
        g_value_unset(&v)
    }

    /// Reads `variables` back as an application does: a GstStructure (here, its text).
    static func get(_ h: Harness, _ name: String) throws -> String? {
        var v = GValue()
        g_value_init(&v, gst_structure_get_type())
        defer { g_value_unset(&v) }
        g_object_get_property(try watermark(h), name, &v)
        guard let boxed = g_value_get_boxed(&v),
            let text = gst_structure_to_string(boxed.assumingMemoryBound(to: GstStructure.self))
        else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// The same text written out, with the digits a changing text gets (tnum).
    static func expected(_ text: String) throws -> Frame {
        try #require(harness(text, extra: "font-features=tnum").pushTestFrame(caps: caps))
    }

    static func same(_ a: Frame, _ b: Frame) -> Bool { Frame.same(a, b) }

    static func lit(_ f: Frame) -> Int { f.litPixels }

    @Test func aScoreboardShowsItsVariablesAndTheirChangesTogether() throws {
        let h = Self.harness("HOME {var:home} – {var:away} AWAY")
        try Self.set(h, "variables", "v, home=(int)2, away=(int)1")
        let first = try #require(h.pushTestFrame(caps: Self.caps))
        #expect(Self.lit(first) > 100)
        #expect(Self.same(first, try Self.expected("HOME 2 – 1 AWAY")))
        // Both change in one set: the next frame shows both.
        try Self.set(h, "variables", "v, home=(int)3, away=(int)2")
        let second = try #require(h.pushTestFrame(caps: Self.caps))
        #expect(Self.same(second, try Self.expected("HOME 3 – 2 AWAY")))
        #expect(!Self.same(first, second))
    }

    @Test func formatsAndStrings() throws {
        let h = Self.harness("{var:speaker}: {var:temp:%05.1f} C")
        try Self.set(h, "variables", #"v, speaker="Ana Lima", temp=(double)21.456"#)
        let f = try #require(h.pushTestFrame(caps: Self.caps))
        #expect(Self.same(f, try Self.expected("Ana Lima: 021.5 C")))
    }

    /// A variable nobody set shows nothing; a text that is not a structure is refused where
    /// it is parsed (gst-launch, gst_util_set_object_arg) and the old values stay; reading
    /// the property gives the structure that was set; NULL unsets them all.
    @Test func unsetAndBadValues() throws {
        let h = Self.harness("[{var:missing}{var:n}]")
        try Self.set(h, "variables", "v, n=(int)7")
        let f = try #require(h.pushTestFrame(caps: Self.caps))
        #expect(Self.same(f, try Self.expected("[7]")))
        #expect(try Self.get(h, "variables") == "v, n=(int)7;")
        gst_util_set_object_arg(try Self.watermark(h), "variables", "not a structure, =")
        let g = try #require(h.pushTestFrame(caps: Self.caps))
        #expect(Self.same(g, try Self.expected("[7]")))
        #expect(try Self.get(h, "variables") == "v, n=(int)7;")
        // The text form, as gst-launch and the Swift API give it.
        gst_util_set_object_arg(try Self.watermark(h), "variables", "v, n=(int)8")
        #expect(Self.same(try #require(h.pushTestFrame(caps: Self.caps)), try Self.expected("[8]")))
        try Self.set(h, "variables", nil)
        #expect(Self.same(try #require(h.pushTestFrame(caps: Self.caps)), try Self.expected("[]")))
        #expect(try Self.get(h, "variables") == nil)
    }

    /// A config document's variables show; the `variables` property's win over them, and
    /// without it the document's show again. (The document is set before the element starts,
    /// so it is loaded before the first frame.)
    @Test func theConfigsVariablesAndThePropertysOverThem() throws {
        let bgra = "video/x-raw,format=BGRA,width=640,height=360,framerate=30/1"
        func harness(_ text: String, _ extra: String = "") -> Harness {
            Harness(
                element: "watermark",
                [
                    "overlay-mode": "blend", "render-ahead": "false",
                    "config-data":
                        #"{ "layers": [ { "text": "\#(text)", "anchor": "top-left", "text-size": 0.1\#(extra) } ], "variables": { "a": 1, "b": "x" } }"#,
                ])
        }
        func expected(_ text: String) throws -> Frame {
            try #require(harness(text, #", "font-features": "tnum""#).pushTestFrame(caps: bgra))
        }
        let h = harness("{var:a}-{var:b}")
        let shown = try #require(h.pushTestFrame(caps: bgra))
        #expect(Self.lit(shown) > 50)
        #expect(Self.same(shown, try expected("1-x")))
        h.set("variables", "v, b=(string)y")
        #expect(Self.same(try #require(h.pushTestFrame(caps: bgra)), try expected("1-y")))
        try Self.set(h, "variables", nil)
        #expect(Self.same(try #require(h.pushTestFrame(caps: bgra)), try expected("1-x")))
    }
}
