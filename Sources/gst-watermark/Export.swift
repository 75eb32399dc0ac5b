import CGStreamer
import Glibc
import Watermark
import WatermarkModel

// MARK: export

func exportCommand(_ args: [String]) throws(UsageError) -> Int32 {
    let p = OptionParser(
        parameters: "[INPUT] OUTPUT",
        summary: """
            Burns the watermark into a file: decodes INPUT (or a built-in test source with \
            --test-source), re-encodes the video, keeps the audio, and writes OUTPUT \
            (.mp4/.mov with the index at the front, or .mkv). Phone footage comes out as it \
            was shot: turned upright, 10-bit and HDR kept (H.265 Main10 by default for \
            HDR), with its capture date, place, device and title.

            Example:
              gst-watermark export --test-source --image assets/logo.svg --text "(c) ACME" demo.mp4
            """)
    OverlayOptions.add(to: p)
    addEncodingOptions(p)
    addTestSourceOptions(p)
    p.add("duration", "d", .double, "Test source length in seconds (default 10)", arg: "SECONDS")
    p.add(
        "music", nil, .string, "Mix a background track under the audio (looped if shorter, cut if longer)",
        arg: "FILE")
    p.add("music-volume", nil, .double, "Music volume, 0..10 (default 0.3; 1 with --replace-audio)", arg: "N")
    p.add("music-fade-out", nil, .double, "Fade the music out over the last SECONDS", arg: "SECONDS")
    p.add("replace-audio", nil, .flag, "Drop the original audio (use with --music)")
    p.add(
        "reframe", nil, .string, "Change the aspect ratio, e.g. 9:16: centre crop, then scale (no distortion)",
        arg: "W:H")
    p.add(
        "strip-metadata", nil, .flag,
        "Leave out the input's capture date, location, device, title and comment (for sharing)")
    let positional = try p.parse(program: "gst-watermark export", args)
    registerElement()
    verbose = p.flag("verbose")
    let testSource = p.flag("test-source")
    let expected = testSource ? 1 : 2
    guard positional.count == expected else {
        throw UsageError(
            message: testSource
                ? "export --test-source takes one argument: OUTPUT"
                : "export takes INPUT and OUTPUT (or --test-source OUTPUT)")
    }
    var media = testSource ? nil : try MediaInfo.probe(positional[0])
    if let m = media, !m.hasVideo { throw UsageError(message: "\(positional[0]): has no video stream") }
    let container = media == nil ? nil : CaptureMetadata.read(positional[0])
    // The display matrix as libavformat reads it (MP4, MOV, Matroska's projection roll);
    // GStreamer's tag where libavformat has none.
    if let o = container?.orientation { media?.orientation = o }
    let video = VideoPlan(media: media, codec: p.string("codec"))
    let output = try OutputSpec(
        path: positional[expected - 1], codec: video.codec, quality: p.int("quality") ?? 21,
        preset: p.string("preset") ?? "veryfast", live: false, extra: video.encoderOptions)
    // Frames are turned upright before the watermark, which then has nothing to turn.
    let watermark = try OverlayOptions.launchDescription(from: p) + " follow-orientation=false"
    let audio = "audioconvert ! audioresample ! avenc_aac ! aacparse ! queue ! mux."
    let metadata = p.flag("strip-metadata") ? CaptureMetadata() : container?.tags ?? CaptureMetadata()
    // With capture metadata to keep, GStreamer writes a temporary file and libavformat copies
    // it to OUTPUT with the tags (GStreamer's muxers would write the export's own date).
    let written = metadata.isEmpty ? output.path : temporaryPath(for: output.path)
    let sink = "\(output.muxer) ! filesink location=\(LaunchSyntax.quote(written))"
    // The watermark is placed on the final frame, after turning and any reframing.
    func videoChain(width: Int, height: Int) throws(UsageError) -> String {
        var reframe = ""
        if let ratio = p.string("reframe") {
            reframe = try Reframe(ratio: ratio).stage(width: width, height: height) + " ! "
        }
        return "videoconvert ! \(Orientation.upright(media?.orientation)) ! \(reframe)\(watermark) ! videoconvert ! "
            + "video/x-raw,format=\(video.rawFormat) ! \(output.videoEncoder) ! \(output.videoParser) ! queue ! mux."
    }

    let music = try MusicOptions(p)
    var description: String
    var expectedDuration: UInt64?
    if let media {
        let input = positional[0]
        expectedDuration = media.duration
        // AAC goes into MP4/MOV/MKV as it is; anything else is re-encoded to AAC.
        let passAudio = media.hasAudio && media.audioIsAAC && p.string("music") == nil
        let stopAt = passAudio ? " caps=\"video/x-raw(ANY);audio/mpeg,mpegversion=(int)4\"" : ""
        let shown = media.displayedSize
        description =
            "filesrc location=\(LaunchSyntax.quote(input)) ! decodebin name=d\(stopAt) d. ! queue ! "
            + (try videoChain(width: shown.width, height: shown.height))
        if let musicPlan = try music.plan(videoDuration: media.duration) {
            let original = media.hasAudio && !p.flag("replace-audio") ? "d. ! queue" : nil
            description += " " + musicPlan.branches(original: original, encode: audio)
        } else if media.hasAudio {
            description += " d. ! queue ! " + (passAudio ? "aacparse ! queue ! mux." : audio)
        }
        description += " \(sink)"
    } else {
        let (w, h) = try parseSize(p.string("size"))
        let fps = try parseFPS(p)
        let seconds = p.double("duration") ?? 10
        guard seconds > 0, seconds <= 86_400 else { throw UsageError(message: "--duration: \(seconds) must be > 0") }
        let frames = Int((seconds * Double(fps)).rounded())
        // One audio buffer per video frame keeps both streams exactly as long.
        let samples = 48_000 / fps
        expectedDuration = UInt64(seconds * 1e9)
        description =
            "videotestsrc num-buffers=\(frames) pattern=smpte ! video/x-raw,width=\(w),height=\(h),framerate=\(fps)/1 ! "
            + (try videoChain(width: w, height: h))
        let tone =
            "audiotestsrc num-buffers=\(frames) samplesperbuffer=\(samples) wave=sine freq=440 volume=0.2 ! "
            + "audio/x-raw,rate=48000,channels=2"
        if let musicPlan = try music.plan(videoDuration: expectedDuration) {
            description += " " + musicPlan.branches(original: p.flag("replace-audio") ? nil : tone, encode: audio)
        } else {
            description += " \(tone) ! \(audio)"
        }
        description += " \(sink)"
    }
    if p.flag("print-pipeline") {
        printPipeline(description)
        return 0
    }
    try output.checkWritable()
    if let media { printErr(video.summary(media: media)) }
    if let note = video.note { printErr("note: \(note)") }
    var runner = PipelineRunner(description: description, expectedDuration: expectedDuration)
    let fade = music.fadeOut, volume = music.volume, withMusic = music.path != nil
    runner.configure = { pipeline in
        // Tags from upstream (the source's encoder, XMP) are not the muxer's to write:
        // the capture metadata is written on purpose, below.
        if let mux = gst_bin_get_by_name(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self), "mux")
        {
            gst_tag_setter_set_tag_merge_mode(OpaquePointer(mux), GST_TAG_MERGE_KEEP_ALL)
            gst_object_unref(UnsafeMutableRawPointer(mux))
        }
        if withMusic, let end = expectedDuration {
            MusicPlan.attachCut(pipeline, end: end)
            if let fade { MusicPlan.attachFadeOut(pipeline, end: end, seconds: fade, volume: volume) }
        }
    }
    guard runner.runReporting(onFailure: { unlink(written) }) == 0 else { return 1 }
    if written != output.path {
        defer { unlink(written) }
        guard let container = Remux.Container(path: output.path) else { return 1 }
        do {
            try Remux.copy(from: written, to: output.path, container: container, tags: metadata.tags(for: container))
        } catch {
            unlink(output.path)
            printErr("gst-watermark: \(output.path): keeping the capture metadata failed: \(error)")
            return 1
        }
    }
    printErr("wrote \(output.path)")
    return 0
}

/// A hidden name beside `path` (same folder, so the final copy stays on one disk).
func temporaryPath(for path: String) -> String {
    let slash = path.lastIndex(of: "/")
    let dir = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    let ext = name.split(separator: ".").last.map { "." + $0 } ?? ""
    return "\(dir).\(name).\(getpid()).partial\(ext)"
}

/// How the video is encoded: bit depth and codec from the input, so 10-bit stays 10-bit and
/// HDR stays HDR.
struct VideoPlan {
    let codec: String
    let rawFormat: String
    /// Extra encoder options (x264's HDR mastering data, which it does not take from caps).
    let encoderOptions: String
    /// A caution printed before the export (H.264 HDR).
    let note: String?

    init(media: MediaInfo?, codec requested: String?) {
        let hdr = media.map { $0.transfer != .sdr } ?? false
        let deep = (media?.bitDepth ?? 8) > 8
        codec = requested ?? (hdr ? "h265" : "h264")
        rawFormat = deep ? "I420_10LE" : "I420"
        var options = ""
        if codec == "h264", let m = media, let md = m.masteringDisplay,
            let x264 = VideoPlan.x264MasteringDisplay(md, cll: m.contentLightLevel)
        {
            options = " option-string=\"\(x264)\""
        }
        encoderOptions = options
        note = hdr && codec == "h264" ? "many players do not show H.264 as HDR; H.265 (the default) is" : nil
    }

    /// `HDR (HLG, BT.2020) 10-bit, turned upright (rotate-90) → H.265 Main10`.
    func summary(media: MediaInfo) -> String {
        var from: String
        switch media.transfer {
        case .hlg: from = "HDR (HLG, BT.2020)"
        case .pq: from = "HDR (PQ, BT.2020)"
        case .sdr: from = media.colorimetry?.hasPrefix("bt2020") == true ? "SDR (BT.2020)" : "SDR"
        }
        from += " \(media.bitDepth)-bit"
        if let o = media.orientation { from += ", turned upright (\(o))" }
        let deep = rawFormat != "I420"
        let to = codec == "h265" ? (deep ? "H.265 Main10" : "H.265 Main") : (deep ? "H.264 High 10" : "H.264 High")
        return "\(from) → \(to)"
    }

    /// GStreamer's `mastering-display-info` (R, G, B, white point x/y, max, min) and
    /// `content-light-level` in x264's option syntax (G, B, R order).
    static func x264MasteringDisplay(_ info: String, cll: String?) -> String? {
        let v = info.split(separator: ":").compactMap { UInt64($0) }
        guard v.count == 10 else { return nil }
        var s =
            "mastering-display=G(\(v[2]),\(v[3]))B(\(v[4]),\(v[5]))R(\(v[0]),\(v[1]))"
            + "WP(\(v[6]),\(v[7]))L(\(v[8]),\(v[9]))"
        if let cll, case let l = cll.split(separator: ":").compactMap({ UInt64($0) }), l.count == 2 {
            s += ":cll=\(l[0]),\(l[1])"
        }
        return s
    }
}

enum Orientation {
    /// videoflip turning frames stored as `orientation` (an `image-orientation` name) upright;
    /// by the stream's own tag when it is not known beforehand (a camera, a live input).
    static func upright(_ orientation: String?) -> String {
        let method: String =
            switch orientation {
            case "rotate-90": "90r"
            case "rotate-180": "180"
            case "rotate-270": "90l"
            case "flip-rotate-0": "horiz"
            case "flip-rotate-90": "ul-lr"
            case "flip-rotate-180": "vert"
            case "flip-rotate-270": "ur-ll"
            default: "auto"
            }
        return "videoflip video-direction=\(method)"
    }
}
