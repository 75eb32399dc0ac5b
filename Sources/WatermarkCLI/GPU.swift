// `--gpu nvidia`: decode with NVDEC into CUDA memory and draw the overlay there (the element's
// CUDA path); the frames then go into NVENC where the GPU has it, else they are downloaded into
// the usual encoder. Checked before anything runs: without the pieces a one-line error names
// what is missing.

import CGStreamer
import Glibc

package enum GPU: String, Sendable, Equatable {
    case nvidia

    package init(_ text: String) throws(UsageError) {
        guard let g = GPU(rawValue: text.lowercased()) else {
            throw UsageError(message: "--gpu: \"\(text)\" is not a GPU kind (nvidia)")
        }
        self = g
    }

    /// The CUDA caps feature GStreamer's NVIDIA elements use.
    static let memory = "video/x-raw(memory:CUDAMemory)"

    /// A file's video decoded with NVDEC: decodebin stops at the compressed stream (`caps`),
    /// which `parser` hands to `decoder`, asked for CUDA memory. decodebin itself cannot be
    /// asked for CUDA memory: GStreamer 1.22 ranks nvh264dec with avdec_h264, and a decoder
    /// inside decodebin sees no downstream caps, so it would give system memory.
    package struct Decoder: Sendable, Equatable {
        package let caps: String
        package let parser: String
        package let decoder: String

        /// NVDEC's decoder for `codec` (the demuxer's caps name), nil for one it does not take here.
        package init?(codec: String?) {
            switch codec {
            case "video/x-h264": (caps, parser, decoder) = ("video/x-h264", "h264parse", "nvh264dec")
            case "video/x-h265": (caps, parser, decoder) = ("video/x-h265", "h265parse", "nvh265dec")
            default: return nil
            }
        }

        var steps: [Step] { [Step.caps(caps, []), Step(parser), Step(decoder), Step.caps(GPU.memory, [])] }
    }

    /// What the machine lacks for `--gpu nvidia` (nil: nothing), checked with the registry and
    /// the element's own caps (it offers CUDA memory only where CUDA and NVRTC load).
    package static func missing(decoder: Decoder?) -> String? {
        var need = ["cudaupload", "cudadownload"]
        if let decoder { need.append(decoder.decoder) }
        for name in need where gst_element_factory_find(name) == nil {
            return
                "--gpu nvidia: GStreamer has no \(name) (an NVIDIA GPU with its driver, and gstreamer1.0-plugins-bad's nvcodec)"
        }
        guard let wm = gst_element_factory_make("watermark", nil) else { return "--gpu nvidia: no watermark element" }
        defer { gst_object_unref(UnsafeMutableRawPointer(wm)) }
        guard let pad = gst_element_get_static_pad(wm, "sink") else { return "--gpu nvidia: no watermark element" }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        let filter = gst_caps_from_string(memory)
        defer { gst_caps_unref(filter) }
        let caps = gst_pad_query_caps(pad, filter)
        defer { if let caps { gst_caps_unref(caps) } }
        if caps.map({ gst_caps_is_empty($0) != 0 }) ?? true {
            return "--gpu nvidia: the watermark element cannot draw in CUDA memory here (no CUDA device, or no NVRTC: "
                + "libnvrtc from the CUDA toolkit); GST_DEBUG=watermark:4 says which"
        }
        return nil
    }

    /// Whether GStreamer has NVENC for `codec` here (nvcodec registers its encoders only on a GPU
    /// that has the engine: not on an H100 or H200, for instance).
    package static func nvenc(_ codec: Codec) -> Bool {
        guard let factory = gst_element_factory_find(codec.nvencoder) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(factory))
        return true
    }

    /// NVDEC's decoder for a file whose video is `codec` (the demuxer's caps name), or the
    /// one-line error naming the codec.
    package static func decoder(for codec: String?) throws(UsageError) -> Decoder {
        guard let decoder = Decoder(codec: codec) else {
            throw UsageError(
                message: "--gpu nvidia: the input's video is \(codec ?? "of an unknown kind"): NVDEC decodes H.264 and "
                    + "H.265 here")
        }
        return decoder
    }

    /// What `--gpu` cannot do for `plan` yet, as the one-line error; then what the machine lacks
    /// (with the NVDEC decoder the plan's file needs).
    package static func check(_ plan: VideoPipeline) throws(UsageError) {
        if !plan.reframe.isEmpty { throw UsageError(message: "--gpu nvidia: --reframe is not done in GPU memory") }
        if let o = plan.orientation, o != .rotate0 {
            throw UsageError(
                message: "--gpu nvidia: frames that need turning upright (\(o)) are not turned in GPU memory")
        }
        if plan.overlay.filter != nil { throw UsageError(message: "--gpu nvidia: --filter runs in system memory") }
        if let why = missing(decoder: plan.nvdec) { throw UsageError(message: why) }
    }
}
