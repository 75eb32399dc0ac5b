import CGStreamer
import CMallocTuning
import Glibc
import Synchronization
import Watermark
import WatermarkModel

// MARK: export

/// The options of `export` that describe the output and the processing, not which file
/// goes in or which overlay is burned: `batch` shares them.
package func addExportOptions(_ p: OptionParser) {
    OverlayOptions.add(to: p)
    addEncodingOptions(p)
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
    p.add(
        "burn-subtitles", nil, .optionalInt(default: 1),
        "Burn in the input's own text subtitle track N (1 = the first subtitle track; SubRip, ASS/SSA with the "
            + "file's attached fonts, WebVTT, MP4 timed text); it is not also copied as a track", arg: "N")
}

/// What goes into an export.
package enum ExportSource {
    case file(String)
    case test(width: Int, height: Int, fps: Int, seconds: Double)
}

/// The export options that are the same for every file (`export`'s and `batch`'s).
package struct ExportSettings: Sendable {
    var codec: Codec?
    var encoding: EncoderSettings
    var reframe: Reframe?
    var music: MusicOptions
    var replaceAudio: Bool
    var stripMetadata: Bool
    /// The input's subtitle track burned in (1-based among its subtitle tracks).
    var burnSubtitles: Int?
    /// Threads per encoder; nil lets the encoder choose (all cores). A batch running
    /// several files at a time gives each encoder its share: x264's frame threads cost
    /// memory and page faults (with `threads=1` a 720p export takes ~16 % less CPU time,
    /// system time most), and the files in parallel keep the cores busy instead.
    package var encoderThreads: Int? {
        get { encoding.threads }
        set { encoding.threads = newValue }
    }

    package init(_ p: OptionParser) throws(UsageError) {
        codec = try p.string("codec").map { c throws(UsageError) in try Codec(c) }
        encoding = try EncoderSettings(p)
        reframe = try p.string("reframe").map { r throws(UsageError) in try Reframe(ratio: r) }
        music = try MusicOptions(p)
        replaceAudio = p.flag("replace-audio")
        stripMetadata = p.flag("strip-metadata")
        burnSubtitles = p.int("burn-subtitles")
        // The codec and rate control are checked now, not at the first file.
        try encoding.check(codec: codec ?? .h264)
    }
}

/// One export, planned: the pipeline that writes a temporary file beside OUTPUT, and the
/// steps that turn it into OUTPUT. OUTPUT appears only complete: the rename is the commit.
package struct ExportJob {
    package let output: String
    /// The pipeline, writing `written`.
    package let pipeline: VideoPipeline
    var description: String { pipeline.description.text }
    /// Nanoseconds, for progress.
    let expectedDuration: UInt64?
    /// Lines worth printing before the run (what the video becomes, cautions).
    package let notes: [String]
    /// The file GStreamer writes.
    let written: String
    /// The video encoder element's name (what a status report shows).
    package var encoderName: String { pipeline.encoder.codec.encoder }
    private let metadata: CaptureMetadata
    /// The input's tracks, for their names and the subtitles.
    private let sourceTracks: Remux.SourceTracks?
    private let music: MusicOptions
    /// Threads per video decoder: the encoder's share in a batch; one per four cores for
    /// one export. Each frame thread holds frames of its own (at 1080p one thread instead
    /// of the default two saves 18–28 MB of peak memory), and the encoder, not the decoder,
    /// is what keeps the cores busy: H.264 decodes at several times x264's speed.
    private let decoderThreads: Int
    /// The input's subtitle track the element burns in: written out when the run starts (or
    /// the pipeline is printed) and removed after the run.
    private let burned: (input: String, stream: Int, path: String)?

    /// Probes a file input (a `UsageError` names what is wrong with it) and plans the
    /// pipeline.
    package init(source: ExportSource, output outputPath: String, overlay: Overlay, settings: ExportSettings)
        throws(UsageError)
    {
        var overlay = overlay
        var media: MediaInfo?
        var container: (tags: CaptureMetadata, orientation: ImageOrientation?, tracks: [SourceTrack])?
        // Why the input's capture metadata and tracks could not be read (FFmpeg missing).
        var unread: String?
        if case .file(let input) = source {
            media = try MediaInfo.probe(input)
            if let m = media, !m.hasVideo {
                let missing =
                    !m.missingPlugins.isEmpty
                    ? ": " + missingDecoders(m.missingPlugins)
                    : m.undecodable.isEmpty ? "" : " (no decoder for \(m.undecodable.joined(separator: ", ")))"
                throw UsageError(message: "\(input): has no video stream GStreamer can decode\(missing)")
            }
            do { container = try CaptureMetadata.read(input) } catch { unread = error.reason }
        }
        // The display matrix as libavformat reads it (MP4, MOV, Matroska's projection roll);
        // GStreamer's tag where libavformat has none.
        if let o = container?.orientation { media?.orientation = o }
        let video = VideoPlan(media: media, codec: settings.codec)
        let fps: Double? =
            switch source {
            case .file: media?.framerate
            case .test(_, _, let fps, _): Double(fps)
            }
        let format = try Container(path: outputPath)
        metadata = settings.stripMetadata ? CaptureMetadata() : container?.tags ?? CaptureMetadata()
        written = temporaryPath(for: outputPath)
        var burnedTrack: Int?
        if let number = settings.burnSubtitles {
            guard case .file(let input) = source else {
                throw UsageError(message: "--burn-subtitles needs an input file (not --test-source)")
            }
            if overlay.properties.contains(where: { $0.property.name == WatermarkProperties.subtitleFile.name }) {
                throw UsageError(message: "give --subtitles or --burn-subtitles, not both")
            }
            if let unread { throw UsageError(message: "--burn-subtitles: \(unread)") }
            let track = try BurnSubtitles.choose(number, among: container?.tracks ?? [], input: input)
            let path = temporaryPath(for: outputPath, step: "subtitles") + ".txt"
            overlay.properties.append((WatermarkProperties.subtitleFile.definition, .string(path)))
            burnedTrack = track.index
            burned = (input, track.index, path)
        } else {
            burned = nil
        }
        var encoder = VideoEncoder(codec: video.codec, settings: settings.encoding, fps: fps)
        encoder.rawFormat = video.rawFormat
        encoder.options = video.encoderOptions
        let music = settings.music
        let encodeAudio = Branch(AudioEncode.steps, to: "mux.")
        var expectedDuration: UInt64?
        var plan: VideoPipeline
        let frameSize: (width: Int, height: Int)
        switch source {
        case .file(let input):
            let media = media ?? MediaInfo()
            expectedDuration = media.duration
            frameSize = media.displayedSize
            // AAC goes into MP4/MOV/MKV as it is; anything else is re-encoded to AAC. Only
            // video and audio come out of decodebin: the subtitle tracks are copied from the
            // input when the file is committed, and tracks with no decoder stay inside.
            let passAudio = media.audioIsAAC && music.path == nil
            plan = VideoPipeline(
                source: .file(path: input, audioCaps: passAudio ? "audio/mpeg,mpegversion=(int)4" : "audio/x-raw(ANY)"),
                // Both probes read the file's whole orientation: none found is upright.
                orientation: media.orientation ?? .rotate0, overlay: overlay, encoder: encoder,
                output: .file(path: written, container: format, faststart: true))
            // Every audio track is kept, in order; music is mixed into the first.
            var tracks = settings.replaceAudio ? 0 : media.audioTracks.count
            if let musicPlan = try music.plan(videoDuration: media.duration) {
                plan.audio += musicPlan.branches(
                    original: tracks > 0 ? Branch(from: "d.", [Step("queue")]) : nil, encode: encodeAudio)
                tracks = max(0, tracks - 1)
            }
            let track =
                passAudio ? [Step("queue"), Step("aacparse"), Step("queue")] : [Step("queue")] + AudioEncode.steps
            plan.audio += (0..<tracks).map { _ in Branch(from: "d.", track, to: "mux.") }
        case .test(let w, let h, let fps, let seconds):
            let frames = Int((seconds * Double(fps)).rounded())
            expectedDuration = UInt64(seconds * 1e9)
            frameSize = (w, h)
            plan = VideoPipeline(
                source: .test(width: w, height: h, fps: fps, frames: frames, pattern: "smpte", live: false),
                orientation: .rotate0, overlay: overlay, encoder: encoder,
                output: .file(path: written, container: format, faststart: true))
            plan.afterSource = [Step("videoconvert")]
            // One audio buffer per video frame keeps both streams exactly as long.
            let tone = Branch([
                Step(
                    "audiotestsrc",
                    [
                        ("num-buffers", .number(frames)), ("samplesperbuffer", .number(48_000 / fps)),
                        ("wave", "sine"), ("freq", "440"), ("volume", "0.2"),
                    ]),
                Step.caps("audio/x-raw", [("rate", "48000"), ("channels", "2")]),
            ])
            if let musicPlan = try music.plan(videoDuration: expectedDuration) {
                plan.audio += musicPlan.branches(original: settings.replaceAudio ? nil : tone, encode: encodeAudio)
            } else {
                plan.audio.append(Branch(tone.steps + AudioEncode.steps, to: "mux."))
            }
        }
        // The watermark is placed on the final frame, after turning and any reframing.
        if let reframe = settings.reframe {
            plan.reframe = try reframe.steps(width: frameSize.width, height: frameSize.height)
        }
        if let gpu = settings.encoding.gpu {
            if let media { plan.nvdec = try GPU.decoder(for: media.videoCodec) }
            try GPU.check(plan)
            plan.gpu = gpu
            plan.nvenc = plan.encoder.nvencCapable && GPU.nvenc(plan.encoder.codec)
        }
        self.output = outputPath
        pipeline = plan
        self.expectedDuration = expectedDuration
        self.music = music
        decoderThreads = settings.encoderThreads ?? max(1, BatchRun.cores / 4)
        var notes: [String] = []
        if let unread { notes.append("note: the input's capture metadata and extra tracks are not kept (\(unread))") }
        var tracks: Remux.SourceTracks?
        if case .file(let input) = source, let container, let remux = Remux.Container(path: outputPath) {
            // A burned track is not also copied.
            let t = Remux.SourceTracks(path: input, tracks: container.tracks.filter { $0.index != burnedTrack })
            if t.needsCopy(into: remux) { tracks = t }
            let left = t.notCarried(into: remux)
            if !left.isEmpty { notes.append("not carried: " + left.joined(separator: ", ")) }
        }
        sourceTracks = tracks
        notes.append(video.summary(media: media, encoding: settings.encoding))
        if let note = video.note { notes.append("note: \(note)") }
        self.notes = notes
    }

    package func checkWritable() throws(UsageError) { try OutputCheck.writable(output) }

    /// The pipeline as a launch line that writes OUTPUT itself (what `--print-pipeline`
    /// shows: the temporary name and the rename are this tool's).
    /// The subtitle file of `--burn-subtitles` is written beside OUTPUT (and kept), for the
    /// printed line to run.
    package var printableDescription: String {
        get throws(UsageError) {
            if let burned { try BurnSubtitles.extract(burned.input, stream: burned.stream, to: burned.path) }
            return launchLine
        }
    }

    private var launchLine: String {
        var shown = pipeline
        if case .file(_, let container, let faststart) = shown.output {
            shown.output = .file(path: output, container: container, faststart: faststart)
        }
        return shown.description.text
    }

    /// Runs the pipeline, then commits OUTPUT. Nothing is left behind on failure, or
    /// when the run is interrupted and `keepInterrupted` is false (`batch` redoes such a
    /// file; `export` keeps what was written, finalized, as a recording would).
    /// Returns the number of video frames written.
    package func run(showProgress: Bool, keepInterrupted: Bool = true, control: ControlServer? = nil) throws(RunFailure)
        -> UInt64
    {
        // One malloc arena: the decoder's, the encoder's and the muxer's threads would each
        // keep freed frames in an arena of their own (a few MB at the peak at 1080p).
        // The mmap threshold stays glibc's: a fixed one would map and fault in every frame
        // copy GstVideoDecoder makes (ten times the page faults, 2 % more CPU time).
        wm_limit_malloc_arenas(1)
        defer { if let burned { unlink(burned.path) } }
        if let burned {
            do {
                try BurnSubtitles.extract(burned.input, stream: burned.stream, to: burned.path)
            } catch {
                throw RunFailure(message: error.message)
            }
        }
        var runner = PipelineRunner(description: description, expectedDuration: expectedDuration)
        runner.showProgress = showProgress
        runner.abandonOnInterrupt = !keepInterrupted
        let frames = FrameCounter()
        let fade = music.fadeOut, volume = music.volume, withMusic = music.path != nil
        let threads = decoderThreads
        let end = expectedDuration
        runner.configure = { pipeline in
            // Tags from upstream (the source's encoder, XMP) are not the muxer's to write:
            // the capture metadata is written on purpose, below.
            let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
            if let mux = gst_bin_get_by_name(bin, "mux") {
                gst_tag_setter_set_tag_merge_mode(OpaquePointer(mux), GST_TAG_MERGE_KEEP_ALL)
                gst_object_unref(UnsafeMutableRawPointer(mux))
            }
            if let wm = gst_bin_get_by_name(bin, "wm") {
                frames.attach(to: wm, pad: "src")
                UprightTags.attach(after: wm)
                gst_object_unref(UnsafeMutableRawPointer(wm))
            }
            Self.configureDecoders(bin, threads: threads)
            EncoderFeed.attach(to: bin)
            if withMusic, let end {
                MusicPlan.attachCut(pipeline, end: end)
                if let fade { MusicPlan.attachFadeOut(pipeline, end: end, seconds: fade, volume: volume) }
            }
        }
        control?.observe(&runner)
        do {
            try runner.run()
        } catch {
            unlink(written)
            throw error
        }
        try commit()
        return frames.count
    }

    /// Sets up every libav video decoder decodebin makes:
    /// - `threads` threads: frame threads each hold frames of their own, so a batch running
    ///   files side by side spends memory on them (and how many frames they hold varies from
    ///   file to file), where the files in parallel keep the cores busy anyway;
    /// - no direct rendering. With it, libav decodes into the pipeline's buffers and keeps
    ///   those it refers back to, so GstVideoDecoder (and the overlay, mapping the frame to
    ///   write) copy most frames into freshly allocated memory, which the kernel zeroes page
    ///   by page: 6 % of the export's CPU time at 1080p. Without it, libav decodes into frames
    ///   of its own and each is copied once into a pooled buffer: the same pictures, half the
    ///   page faults, 8 % less CPU time (Benchmarks/README.md, "Exporting a file").
    private static func configureDecoders(_ bin: UnsafeMutablePointer<GstBin>, threads: Int) {
        let added:
            @convention(c) (
                UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<GstElement>?,
                UnsafeMutableRawPointer?
            ) -> Void = { _, _, element, data in
                guard let element, let name = factoryName(element) else { return }
                guard name.hasPrefix("avdec_h26") || name.hasPrefix("avdec_vp") || name.hasPrefix("avdec_av1") else {
                    return
                }
                let object = UnsafeMutablePointer<GObject>(OpaquePointer(element))
                gst_util_set_object_arg(object, "max-threads", "\(Int(bitPattern: data))")
                gst_util_set_object_arg(object, "direct-rendering", "false")
            }
        g_signal_connect_data(
            UnsafeMutableRawPointer(bin), "deep-element-added", unsafeBitCast(added, to: GCallback.self),
            UnsafeMutableRawPointer(bitPattern: threads), nil, GConnectFlags(0))
    }

    /// Moves the written file to OUTPUT, through libavformat when capture metadata is kept
    /// (GStreamer's muxers would write the export's own date) or the input has track names
    /// or subtitles to carry.
    private func commit() throws(RunFailure) {
        defer { unlink(written) }
        var final = written
        if !metadata.isEmpty || sourceTracks != nil {
            guard let container = Remux.Container(path: output) else {
                throw RunFailure(message: "\(output): unknown container")
            }
            final = temporaryPath(for: output, step: "tags")
            do {
                try Remux.copy(
                    from: written, to: final, container: container, tags: metadata.tags(for: container),
                    source: sourceTracks)
            } catch {
                unlink(final)
                throw RunFailure(message: "\(output): keeping the capture metadata and tracks failed: \(error)")
            }
        }
        if rename(final, output) != 0 {
            let reason = systemError()
            unlink(final)
            throw RunFailure(message: "\(output): \(reason)")
        }
    }
}

/// Counts the buffers that pass a pad (on the streaming thread: one atomic add).
final class FrameCounter: Sendable {
    private let counted = Atomic<UInt64>(0)
    var count: UInt64 { counted.load(ordering: .relaxed) }

    func attach(to element: UnsafeMutablePointer<GstElement>, pad name: String) {
        guard let pad = gst_element_get_static_pad(element, name) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        _ = gst_pad_add_probe(
            pad, GST_PAD_PROBE_TYPE_BUFFER,
            { _, _, data in
                if let data {
                    Unmanaged<FrameCounter>.fromOpaque(data).takeUnretainedValue().counted.add(1, ordering: .relaxed)
                }
                return GST_PAD_PROBE_OK
            }, Unmanaged.passRetained(self).toOpaque(),
            { data in if let data { Unmanaged<FrameCounter>.fromOpaque(data).release() } })
    }
}

/// A hidden name beside `path` (same folder, so the rename that commits it stays on one
/// disk): `.NAME.PID.partial.EXT`, or `.NAME.PID.STEP.partial.EXT`.
func temporaryPath(for path: String, step: String? = nil) -> String {
    let (dir, name) = FilePath.split(path)
    let ext = name.split(separator: ".").last.map { "." + $0 } ?? ""
    return "\(dir).\(name).\(getpid())\(step.map { "." + $0 } ?? "").partial\(ext)"
}
