// An export's frames leave the overlay as the output shows them: turned upright by videoflip
// where the input is turned (its display matrix, Matroska's projection). The input's
// `image-orientation` tag still travels downstream with them, and since GStreamer 1.24.13
// and 1.26 `qtmux` writes it as the track's matrix and `matroskamux` as its projection: a
// player would turn the upright frames a second time. (videoflip replaces the tag only in
// its `auto` mode, and only from 1.26.) The tag is taken out of the tag events after the
// overlay, so the file says nothing of turning, on every GStreamer.

import CGStreamer

enum UprightTags {
    /// Removes `image-orientation` from every tag event leaving `element`'s src pad.
    static func attach(after element: UnsafeMutablePointer<GstElement>) {
        guard let pad = gst_element_get_static_pad(element, "src") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        _ = gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
            { _, info, _ in
                guard let info, let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self),
                    event.pointee.type == GST_EVENT_TAG
                else { return GST_PAD_PROBE_OK }
                var list: UnsafeMutablePointer<GstTagList>?
                gst_event_parse_tag(event, &list)
                guard let list, gst_tag_list_get_tag_size(list, "image-orientation") > 0,
                    let copy = gst_tag_list_copy(list)
                else { return GST_PAD_PROBE_OK }
                // The event (and its list) may be shared: a new one carries the copy.
                gst_tag_list_remove_tag(copy, "image-orientation")
                info.pointee.data = UnsafeMutableRawPointer(gst_event_new_tag(copy))
                gst_event_unref(event)
                return GST_PAD_PROBE_OK
            }, nil, nil)
    }
}
