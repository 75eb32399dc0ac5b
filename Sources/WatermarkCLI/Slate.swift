import CGStreamer
import CGstApp

/// The frame a restream sends while its input is away: black, with the text in the middle
/// (the output's own layers are drawn over it as over any frame).
enum Slate {
    static func frame(caps: UnsafeMutablePointer<GstCaps>?, text: String) -> UnsafeMutablePointer<GstBuffer>? {
        guard let caps else { return nil }
        defer { gst_caps_unref(caps) }
        guard let capsText = gst_caps_to_string(caps) else { return nil }
        let capsString = String(cString: capsText)
        g_free(capsText)
        let description = LaunchDescription([
            Branch([
                Step("videotestsrc", [("num-buffers", "1"), ("pattern", "black")]),
                Step("capsfilter", [("caps", .quoted(capsString))]),
                Step(
                    "watermark",
                    [
                        ("text", .quoted(text)), ("anchor", "center"), ("text-size", "0.08"),
                        ("color", "0xffffffff"),
                    ]),
                Step("appsink", [("name", "s"), ("sync", "false")]),
            ])
        ]).text
        var error: UnsafeMutablePointer<GError>?
        let pipeline = gst_parse_launch(description, &error)
        if let error { g_error_free(error) }
        guard let pipeline else { return nil }
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let sink = gst_bin_get_by_name(bin, "s") else { return nil }
        defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        guard
            let sample = gst_app_sink_try_pull_sample(
                UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstAppSink.self), 5_000_000_000)
        else { return nil }
        defer { gst_sample_unref(sample) }
        guard let buffer = gst_sample_get_buffer(sample) else { return nil }
        gst_buffer_ref(buffer)
        return buffer
    }
}
