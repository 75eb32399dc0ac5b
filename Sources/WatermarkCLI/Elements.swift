// Finding elements in a parsed pipeline by the factory that made them.

import CGStreamer

/// The name of the factory that made `element` ("x264enc"), if any.
func factoryName(_ element: UnsafeMutablePointer<GstElement>) -> String? {
    guard let factory = gst_element_get_factory(element),
        let name = gst_object_get_name(UnsafeMutableRawPointer(factory).assumingMemoryBound(to: GstObject.self))
    else { return nil }
    defer { g_free(name) }
    return String(cString: name)
}

/// The elements in `bin`, and in the bins inside it, that one of `factories` made; each
/// comes with a reference the caller drops.
func elements(in bin: UnsafeMutablePointer<GstBin>, madeBy factories: Set<String>) -> [UnsafeMutablePointer<GstElement>]
{
    guard let it = gst_bin_iterate_recurse(bin) else { return [] }
    defer { gst_iterator_free(it) }
    var value = GValue()
    defer { g_value_unset(&value) }
    var found: [UnsafeMutablePointer<GstElement>] = []
    while gst_iterator_next(it, &value) == GST_ITERATOR_OK {
        if let object = g_value_get_object(&value) {
            let element = object.assumingMemoryBound(to: GstElement.self)
            if let name = factoryName(element), factories.contains(name) {
                gst_object_ref(object)
                found.append(element)
            }
        }
        g_value_reset(&value)
    }
    return found
}
