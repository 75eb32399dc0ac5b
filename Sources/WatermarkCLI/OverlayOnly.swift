// `export --overlay-only`: the layers alone, over a transparent background, as ProRes 4444
// with alpha in MOV, the overlay file editors (DaVinci Resolve, Premiere, Final Cut) put on a
// track above the footage. The frame's size, rate and length are the input's, or
// --size/--fps/--duration.

import CGStreamer
import Glibc
import WatermarkModel

package struct OverlayOnlyJob {
    package let output: String
    let written: String
    package let description: LaunchDescription
    let expectedDuration: UInt64
    package let notes: [String]

    /// The shape of the clip: the input's (probed), or the given one.
    package init(
        input: String?, size: (width: Int, height: Int), fps: (num: Int, den: Int), seconds: Double, output: String,
        overlay: Overlay
    ) throws(UsageError) {
        guard output.lowercased().hasSuffix(".mov") else {
            throw UsageError(message: "--overlay-only writes ProRes 4444 with alpha in MOV: \(output) must end in .mov")
        }
        var (width, height, rate, duration) = (size.width, size.height, fps, seconds)
        if let input {
            let media = try MediaInfo.probe(input)
            guard media.hasVideo else {
                throw UsageError(message: "\(input): has no video stream GStreamer can decode")
            }
            (width, height) = media.displayedSize
            if let f = media.framerateFraction { rate = f }
            if let d = media.duration { duration = Double(d) / 1e9 }
        }
        guard width > 0, height > 0, rate.num > 0, rate.den > 0, duration > 0 else {
            throw UsageError(message: "--overlay-only: no frame size, rate or length to make (\(width)x\(height))")
        }
        // ProRes takes even sizes.
        width += width % 2
        height += height % 2
        let frames = max(1, Int((duration * Double(rate.num) / Double(rate.den)).rounded()))
        self.output = output
        written = temporaryPath(for: output)
        expectedDuration = UInt64(Double(frames) * Double(rate.den) / Double(rate.num) * 1e9)
        description = LaunchDescription([
            Branch([
                Step(
                    "videotestsrc",
                    [("num-buffers", .number(frames)), ("pattern", "solid-color"), ("foreground-color", "0")]),
                Step.caps(
                    "video/x-raw",
                    [
                        ("format", "BGRA"), ("width", .number(width)), ("height", .number(height)),
                        ("framerate", .bare("\(rate.num)/\(rate.den)")),
                    ]),
                overlay.step,
                Step("videoconvert"), Step.caps("video/x-raw", [("format", "A444_10LE")]),
                Step("avenc_prores_ks", [("profile", "4444")]),
                Step("qtmux"),
                Step("filesink", [("location", .quoted(written))]),
            ])
        ])
        notes = [
            "overlay only: \(width)x\(height) at \(rate.num)/\(rate.den) fps, \(frames) frames → ProRes 4444 with alpha (straight)"
        ]
    }

    package func checkWritable() throws(UsageError) { try OutputCheck.writable(output) }

    /// Runs the pipeline, then moves the file into place (nothing is left on failure).
    package func run(showProgress: Bool) throws(RunFailure) {
        var runner = PipelineRunner(description: description.text, expectedDuration: expectedDuration)
        runner.showProgress = showProgress
        runner.configure = { pipeline in
            let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
            if let wm = gst_bin_get_by_name(bin, "wm") {
                StraightAlpha.attach(to: wm)
                gst_object_unref(UnsafeMutableRawPointer(wm))
            }
        }
        do {
            try runner.run()
        } catch {
            unlink(written)
            throw error
        }
        if rename(written, output) != 0 {
            let reason = systemError()
            unlink(written)
            throw RunFailure(message: "\(output): \(reason)")
        }
    }
}

/// Turns the element's BGRA frames, drawn over transparent black, into straight alpha.
///
/// The element blends as if the frame were opaque: colour = source × α + frame × (1 − α),
/// and likewise alpha. Over transparent black that is premultiplied "over" compositing of
/// every layer, so colour ÷ alpha is the straight colour that ProRes 4444 and editors expect
/// (white at half opacity becomes 255,255,255,128, not 128,128,128,128).
enum StraightAlpha {
    static func attach(to element: UnsafeMutablePointer<GstElement>) {
        guard let pad = gst_element_get_static_pad(element, "src") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        _ = gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_BUFFER,
            { _, info, _ in
                guard let info, var buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else {
                    return GST_PAD_PROBE_OK
                }
                if gst_mini_object_is_writable(
                    UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self))
                    == 0
                {
                    guard
                        let copy = gst_mini_object_make_writable(
                            UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self))
                    else { return GST_PAD_PROBE_OK }
                    buffer = UnsafeMutableRawPointer(copy).assumingMemoryBound(to: GstBuffer.self)
                    info.pointee.data = UnsafeMutableRawPointer(buffer)
                }
                var map = GstMapInfo()
                guard
                    gst_buffer_map(buffer, &map, GstMapFlags(rawValue: GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue))
                        != 0
                else { return GST_PAD_PROBE_OK }
                defer { gst_buffer_unmap(buffer, &map) }
                if let data = map.data { StraightAlpha.unpremultiply(data, count: Int(map.size) / 4) }
                return GST_PAD_PROBE_OK
            }, nil, nil)
    }

    /// BGRA pixels from premultiplied to straight colour, in place.
    static func unpremultiply(_ p: UnsafeMutablePointer<UInt8>, count: Int) {
        for i in 0..<count {
            let px = p + 4 * i
            let a = UInt32(px[3])
            if a == 255 { continue }
            if a == 0 {
                px[0] = 0
                px[1] = 0
                px[2] = 0
                continue
            }
            for c in 0..<3 { px[c] = UInt8(min(255, (UInt32(px[c]) * 255 + a / 2) / a)) }
        }
    }
}
