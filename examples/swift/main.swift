// Embedding the watermark element in a Swift app through the `Watermark` library:
// the layer is described in Swift values, the element is created and linked into a
// pipeline, and the caption is updated live from another thread while it plays.
//
//   swift run watermark-swift-example out.mp4 [logo.svg]

import CGStreamer
import Foundation
import Glibc
import Watermark

let args = CommandLine.arguments
let output = args.count > 1 ? args[1] : "watermark-swift.mp4"
let logo = args.count > 2 ? args[2] : nil

gst_init(nil, nil)
WatermarkPlugin.register()  // linked in: no GST_PLUGIN_PATH needed

var layer = WatermarkLayer(
    text: "Swift", textSize: 0.06, color: ARGBColor(parsing: "#FFD700"), shadow: true,
    anchor: .topRight, backgroundColor: ARGBColor(parsing: "#00000080"), backgroundRadius: 0.3)
layer.image = logo

var error: UnsafeMutablePointer<GError>?
guard
    let pipeline = gst_parse_launch(
        """
        videotestsrc is-live=true num-buffers=90 ! video/x-raw,width=640,height=360,framerate=30/1 ! \
        \(layer.launchDescription) name=wm ! videoconvert ! x264enc tune=zerolatency speed-preset=superfast ! \
        mp4mux ! filesink location=\(LaunchSyntax.quote(output))
        """, &error), error == nil
else {
    print("cannot build the pipeline: \(error.map { String(cString: $0.pointee.message) } ?? "")")
    exit(1)
}
let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
guard let wmElement = gst_bin_get_by_name(bin, "wm"), let overlay = WatermarkOverlay(wrapping: wmElement) else {
    print("no watermark element in the pipeline")
    exit(1)
}
gst_object_unref(UnsafeMutableRawPointer(wmElement))

// A counter updated from its own thread, as an app's network callback would.
let counter = Thread {
    for i in 1...5 {
        usleep(400_000)
        overlay.setText("Swift · \(i * 100) viewers")
        print("caption: Swift · \(i * 100) viewers")
    }
}

gst_element_set_state(pipeline, GST_STATE_PLAYING)
counter.start()
let bus = gst_element_get_bus(pipeline)
let done = gst_bus_timed_pop_filtered(
    bus, GstClockTime.max,
    GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue))
var status: Int32 = 0
if let done, done.pointee.type == GST_MESSAGE_ERROR {
    var err: UnsafeMutablePointer<GError>?
    gst_message_parse_error(done, &err, nil)
    print("error: \(err.map { String(cString: $0.pointee.message) } ?? "unknown")")
    status = 1
}
if let done { gst_message_unref(done) }
gst_object_unref(UnsafeMutableRawPointer(bus))
gst_element_set_state(pipeline, GST_STATE_NULL)
gst_object_unref(UnsafeMutableRawPointer(pipeline))
if status == 0 { print("wrote \(output)") }
exit(status)
