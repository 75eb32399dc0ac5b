// Regions of interest that move on every frame, as a detector attaches them: a pad probe on
// the test source puts GstVideoRegionOfInterestMetas on each buffer (ten, each moving a few
// pixels per frame, types "face" and "car", a confidence param), then the case runs after
// it. Prints, per round, the wall time of the `identity` baseline and of each case, as
// `case<TAB>seconds` lines that Benchmarks/bench.py --hiding reads.
//
//   roi-bench FRAMES ROUNDS 'WATERMARK PROPERTIES' …     (GST_PLUGIN_PATH: the release build)

import CGStreamer
import Glibc

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// What the probe needs: the frame number.
final class Tagger {
    var frame = 0
    static let count = 10

    func tag(_ buffer: UnsafeMutablePointer<GstBuffer>) {
        let n = frame
        frame += 1
        for i in 0..<Self.count {
            // Ten boxes of 160×120 on a 5 × 2 grid, each drifting on its own path.
            let x = 40 + (i % 5) * 360 + (n * (3 + i)) % 160
            let y = 100 + (i / 5) * 480 + (n * (2 + i)) % 200
            guard
                let meta = gst_buffer_add_video_region_of_interest_meta(
                    buffer, i % 3 == 0 ? "car" : "face", UInt32(x), UInt32(y), 160, 120)
            else { continue }
            let c = 0.5 + Double((i * 7) % 5) / 10
            gst_video_region_of_interest_meta_add_param(
                meta, gst_structure_new_from_string("detection, confidence=(double)\(c)"))
        }
    }
}

/// A line on standard error.
func complain(_ text: String) {
    let line = "roi-bench: " + text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

func run(_ frames: Int, _ element: String) -> Double? {
    let description =
        "videotestsrc name=src num-buffers=\(frames) pattern=black "
        + "! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 ! \(element) ! fakesink sync=false"
    var error: UnsafeMutablePointer<GError>?
    guard let pipeline = gst_parse_launch(description, &error) else {
        complain(error.map { String(cString: $0.pointee.message) } ?? description)
        return nil
    }
    defer { gst_object_unref(pipeline) }
    let tagger = Tagger()
    let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
    if let src = gst_bin_get_by_name(bin, "src"), let pad = gst_element_get_static_pad(src, "src") {
        gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_BUFFER,
            { _, info, data in
                guard let info, let data, let b = info.pointee.data else { return GST_PAD_PROBE_OK }
                let buffer = b.assumingMemoryBound(to: GstBuffer.self)
                // The source's buffer is ours alone here: metas can be added.
                guard
                    gst_mini_object_is_writable(
                        UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self)) != 0
                else {
                    return GST_PAD_PROBE_OK
                }
                Unmanaged<Tagger>.fromOpaque(data).takeUnretainedValue().tag(buffer)
                return GST_PAD_PROBE_OK
            }, Unmanaged.passUnretained(tagger).toOpaque(), nil)
        gst_object_unref(pad)
        gst_object_unref(src)
    }
    let bus = gst_element_get_bus(pipeline)
    defer { gst_object_unref(bus) }
    gst_element_set_state(pipeline, GST_STATE_PAUSED)
    gst_element_get_state(pipeline, nil, nil, GstClockTime.max)
    let start = now()
    gst_element_set_state(pipeline, GST_STATE_PLAYING)
    let msg = gst_bus_timed_pop_filtered(
        bus, 300 * 1_000_000_000, GstMessageType(rawValue: GST_MESSAGE_EOS.rawValue | GST_MESSAGE_ERROR.rawValue))
    let elapsed = now() - start
    gst_element_set_state(pipeline, GST_STATE_NULL)
    defer { if let msg { gst_message_unref(msg) } }
    guard let msg, msg.pointee.type == GST_MESSAGE_EOS, tagger.frame == frames else {
        complain("\(element) did not finish (\(tagger.frame) frames tagged)")
        return nil
    }
    return elapsed
}

let args = CommandLine.arguments
guard args.count >= 4, let frames = Int(args[1]), let rounds = Int(args[2]) else {
    complain("usage: roi-bench FRAMES ROUNDS 'watermark …' …")
    exit(2)
}
gst_init(nil, nil)
let cases = ["identity"] + args[3...]
_ = run(30, cases[1])  // warm-up: fonts, plugins
for _ in 0..<rounds {
    for c in cases {
        guard let t = run(frames, c) else { exit(1) }
        print("\(c)\t\(t)")
    }
}
