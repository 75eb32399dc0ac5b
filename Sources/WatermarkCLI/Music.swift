import CGStreamer
import CGstController
import Watermark
import WatermarkModel

/// `--music` and its options.
struct MusicOptions: Sendable {
    package var path: String?
    var volume: Double
    var fadeOut: Double?
    var info: MediaInfo?

    init(_ p: OptionParser) throws(UsageError) {
        path = p.string("music")
        volume = p.double("music-volume") ?? (p.flag("replace-audio") ? 1 : 0.3)
        fadeOut = p.double("music-fade-out")
        guard (0...10).contains(volume) else {
            throw UsageError(message: "--music-volume: \(volume) is out of range (0..10)")
        }
        if let f = fadeOut, !(f > 0) { throw UsageError(message: "--music-fade-out: must be > 0 seconds") }
        if path == nil && (p.double("music-volume") != nil || fadeOut != nil || p.flag("replace-audio")) {
            throw UsageError(message: "--music-volume, --music-fade-out and --replace-audio need --music FILE")
        }
        if let path {
            let media = try MediaInfo.probe(path)
            guard media.hasAudio else { throw UsageError(message: "\(path): has no audio stream") }
            guard let d = media.duration, d > 0 else { throw UsageError(message: "\(path): its duration is unknown") }
            info = media
        }
    }

    func plan(videoDuration: UInt64?) throws(UsageError) -> MusicPlan? {
        guard let path, let musicDuration = info?.duration else { return nil }
        guard let video = videoDuration, video > 0 else {
            throw UsageError(message: "--music: the input's duration is unknown, so the music cannot be fitted to it")
        }
        let loops = Int((Double(video) / Double(musicDuration)).rounded(.up))
        guard loops <= MusicPlan.maxLoops else {
            throw UsageError(
                message:
                    "--music: \(path) is too short to loop under this video (\(loops) loops; at most \(MusicPlan.maxLoops))"
            )
        }
        return MusicPlan(path: path, loops: max(1, loops), duration: video, volume: volume)
    }
}

/// The launch-line branches that mix a looped, cut background track with the
/// original audio: the file is played `loops` times back to back (concat), retimed as
/// one stream, cut to exactly the video's length, scaled, and mixed.
struct MusicPlan {
    static let maxLoops = 100
    package let path: String
    let loops: Int
    /// Nanoseconds.
    let duration: UInt64
    let volume: Double

    /// The mixer, encoded by `encode` (ending in the muxer's pad), the original audio
    /// (`original`, e.g. `d. ! queue`) when kept, and the looped music.
    func branches(original: Branch?, encode: Branch) -> [Branch] {
        let raw = [
            Step("audioconvert"), Step("audioresample"),
            Step.caps("audio/x-raw", [("rate", "48000"), ("channels", "2")]),
        ]
        var branches = [
            Branch(from: encode.from, [Step("audiomixer", [("name", "mix")])] + encode.steps, to: encode.to)
        ]
        if var original {
            original.steps += raw
            original.to = "mix."
            branches.append(original)
        }
        branches.append(
            Branch(
                [Step("concat", [("name", "music_loop")]), Step("identity", [("single-segment", "true")])] + raw + [
                    Step("audiorate"), Step("audiobuffersplit", [("output-buffer-duration", "1/100")]),
                    Step("volume", [("name", "music"), ("volume", .bare("\(volume)"))]),
                ], to: "mix."))
        for _ in 0..<loops {
            branches.append(
                Branch(
                    [Step("filesrc", [("location", .quoted(path))]), Step("decodebin"), Step("audioconvert")],
                    to: "music_loop."))
        }
        return branches
    }

    /// Ends the music at `end` (nanoseconds of its timeline): a probe on the `music`
    /// element's output drops what comes later and sends EOS once, so the mixer stops
    /// with the video. The 10 ms buffers upstream make the cut exact to 10 ms.
    static func attachCut(_ pipeline: UnsafeMutablePointer<GstElement>, end: UInt64) {
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let element = gst_bin_get_by_name(bin, "music") else { return }
        defer { gst_object_unref(element) }
        guard let pad = gst_element_get_static_pad(element, "src") else { return }
        defer { gst_object_unref(pad) }
        let state = UnsafeMutablePointer<UInt64>.allocate(capacity: 2)
        state.initialize(to: end)
        (state + 1).initialize(to: 0)  // 1 once EOS was sent
        _ = gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_BUFFER,
            { pad, info, user in
                guard let info, let user, let buffer = info.pointee.data else { return GST_PAD_PROBE_OK }
                let state = user.assumingMemoryBound(to: UInt64.self)
                let pts = buffer.assumingMemoryBound(to: GstBuffer.self).pointee.pts
                guard pts != GstClockTime.max, UInt64(pts) >= state[0] else { return GST_PAD_PROBE_OK }
                if state[1] == 0 {
                    state[1] = 1
                    _ = gst_pad_push_event(pad, gst_event_new_eos())
                }
                return GST_PAD_PROBE_DROP
            }, state, { $0?.deallocate() })
    }

    /// Ramps the `music` volume element linearly to silence over the last `seconds`.
    static func attachFadeOut(
        _ pipeline: UnsafeMutablePointer<GstElement>, end: UInt64, seconds: Double, volume: Double
    ) {
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let element = gst_bin_get_by_name(bin, "music") else { return }
        defer { gst_object_unref(element) }
        guard let source = gst_interpolation_control_source_new() else { return }
        defer { gst_object_unref(source) }
        gst_util_set_object_arg(UnsafeMutableRawPointer(source).assumingMemoryBound(to: GObject.self), "mode", "linear")
        let timed = UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstTimedValueControlSource.self)
        let fade = UInt64(min(seconds, Double(end) / 1e9) * 1e9)
        _ = gst_timed_value_control_source_set(timed, 0, volume)
        _ = gst_timed_value_control_source_set(timed, GstClockTime(end - fade), volume)
        _ = gst_timed_value_control_source_set(timed, GstClockTime(end), 0)
        let object = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self)
        if let binding = gst_direct_control_binding_new_absolute(object, "volume", source) {
            _ = gst_object_add_control_binding(object, binding)
        }
    }
}
