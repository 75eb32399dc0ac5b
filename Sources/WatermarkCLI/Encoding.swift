/// How a file's video is encoded: what `--quality`, `--bitrate`, `--max-bitrate`,
/// `--keyframe-interval`, `--preset` and `--low-latency` ask for, and nothing else.
///
/// The encoder starts from its own speed preset (what `x264 --preset P` and ffmpeg's
/// libx264/libx265 use) and only what the user asked for is set on top. GStreamer's own
/// property defaults would otherwise change the preset's encoding:
/// - x264enc `pass=qual` also caps the rate at its `bitrate` property (2048 kbit/s) unless
///   the VBV buffer is 0 (x264 then ignores the cap);
/// - x264enc makes a keyframe every 10 s of frames where x264's default is 250 frames;
/// - x264enc writes access unit delimiters, which x264 leaves out;
/// - x265enc tunes for SSIM unless told otherwise, and its `qp` is constant QP, not CRF.
/// `export`, `capture` and `batch` encode with the same settings for the same options.
package struct EncoderSettings: Sendable, Equatable {
    enum Rate: Sendable, Equatable {
        /// Constant quality (CRF), 0 (lossless) … 51.
        case quality(Int)
        /// Average bitrate in kbit/s.
        case average(Int)
    }

    var rate: Rate = .quality(21)
    /// Decode and draw in GPU memory (`--gpu`).
    package var gpu: GPU?
    /// A VBV ceiling in kbit/s, with a buffer of one second at that rate.
    var maxBitrate: Int?
    /// Seconds between keyframes at most; nil: the encoder's own (250 frames).
    var keyframeInterval: Double?
    var preset = "veryfast"
    /// Encoding for a live receiver: no B-frames, no lookahead (x264/x265 `zerolatency`).
    var lowLatency = false
    /// Threads per encoder; nil lets the encoder choose.
    var threads: Int?

    static let presets = [
        "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
    ]
    /// x264's and x265's own default keyframe interval, in frames.
    static let defaultKeyframeFrames = 250
    /// The VBV buffer behind `--max-bitrate`, in milliseconds of the maximum rate.
    var vbvBufferMilliseconds = 1000
    /// Access unit delimiters in the stream (x264enc's default; x264 and ffmpeg leave them out
    /// of files).
    var accessUnitDelimiters = false

    init() {}

    /// A live stream's encoding: low latency at a constant `bitrate` (kbit/s) within x264enc's
    /// own 600 ms VBV buffer, a keyframe every second, access unit delimiters for MPEG-TS
    /// receivers.
    package static func live(bitrate: Int) -> EncoderSettings {
        var s = EncoderSettings()
        s.preset = "ultrafast"
        s.lowLatency = true
        s.rate = .average(bitrate)
        s.maxBitrate = bitrate
        s.vbvBufferMilliseconds = 600
        s.keyframeInterval = 1
        s.accessUnitDelimiters = true
        return s
    }

    package init(_ p: OptionParser) throws(UsageError) {
        gpu = try p.string("gpu").map { g throws(UsageError) in try GPU(g) }
        let quality = p.int("quality")
        let average = p.int("bitrate")
        if quality != nil, average != nil {
            throw UsageError(message: "--quality and --bitrate: give one (constant quality or an average rate)")
        }
        if let average {
            guard (16...500_000).contains(average) else {
                throw UsageError(message: "--bitrate: \(average) kbit/s is out of range (16..500000)")
            }
            rate = .average(average)
        } else {
            let q = quality ?? 21
            guard (0...51).contains(q) else { throw UsageError(message: "--quality: \(q) is out of range (0..51)") }
            rate = .quality(q)
        }
        maxBitrate = p.int("max-bitrate")
        if let m = maxBitrate {
            guard (16...500_000).contains(m) else {
                throw UsageError(message: "--max-bitrate: \(m) kbit/s is out of range (16..500000)")
            }
            if case .average(let a) = rate, m < a {
                throw UsageError(message: "--max-bitrate: \(m) kbit/s is below --bitrate \(a)")
            }
        }
        keyframeInterval = p.double("keyframe-interval")
        if let k = keyframeInterval, !(k > 0 && k <= 3600) {
            throw UsageError(message: "--keyframe-interval: \(k) must be > 0 and at most 3600 seconds")
        }
        preset = p.string("preset") ?? "veryfast"
        guard Self.presets.contains(preset) else {
            throw UsageError(
                message: "--preset: unknown preset \"\(preset)\" (\(Self.presets.joined(separator: ", ")))")
        }
        lowLatency = p.flag("low-latency")
    }

    /// Checks what one codec can do with these settings.
    package func check(codec: Codec) throws(UsageError) {
        // x264enc caps an average rate at the average itself, whatever the VBV settings say.
        if codec == .h264, case .average(let a) = rate, let m = maxBitrate, m != a {
            throw UsageError(
                message:
                    "--max-bitrate with --bitrate: H.264 (x264enc) caps an average rate at itself; give the same rate, or use --codec h265"
            )
        }
    }

    /// For a recording in segments of `seconds`: without `--keyframe-interval`, the segment
    /// is split into the fewest equal GOPs of at most 250 frames, so that a keyframe falls on
    /// every boundary (`Output.segments`' `gop`). splitmuxsink cuts at a keyframe, and the one
    /// it asks for at the boundary comes a few frames late behind x264's lookahead: with the
    /// encoder's own 250-frame GOP, 10 s segments at 30 fps came out 8.3 s long.
    /// Returns the interval it set (nil: it set none).
    @discardableResult
    package mutating func alignKeyframes(toSegmentsOf seconds: Double, fps: Double) -> Double? {
        guard keyframeInterval == nil, seconds > 0, fps > 0 else { return nil }
        let gops = max(1, (seconds * fps / Double(Self.defaultKeyframeFrames)).rounded(.up))
        keyframeInterval = seconds / gops
        return keyframeInterval
    }

    /// Frames between keyframes at most, at `fps` frames a second.
    func keyframeFrames(fps: Double) -> Int? {
        keyframeInterval.map { max(1, Int(($0 * fps).rounded())) }
    }

    /// The encoder element with its properties, for `codec` at `fps` (nil: unknown, then
    /// `--keyframe-interval` counts 30 frames a second). `options` are extra x264/x265
    /// options (HDR mastering data).
    package func element(codec: Codec, fps: Double?, options: [String] = []) -> Step {
        var props: [(name: String, value: Step.Value)] = [("speed-preset", .bare(preset))]
        var opts = options
        let keyframes = keyframeFrames(fps: fps ?? 30)
        switch codec {
        case .h265:
            props.append(("tune", lowLatency ? "zerolatency" : "0"))
            switch rate {
            case .quality(let q): opts.append("crf=\(q)")
            case .average(let a): props.append(("bitrate", .number(a)))
            }
            if let m = maxBitrate {
                opts.append("vbv-maxrate=\(m)")
                opts.append("vbv-bufsize=\(m * vbvBufferMilliseconds / 1000)")
            }
            if let keyframes { props.append(("key-int-max", .number(keyframes))) }
        case .h264:
            if lowLatency { props.append(("tune", "zerolatency")) }
            switch rate {
            case .quality(let q):
                props += [("pass", "qual"), ("quantizer", .number(q))]
                // With no VBV buffer x264 ignores the ceiling x264enc sets at `bitrate`.
                if let m = maxBitrate {
                    props += [("bitrate", .number(m)), ("vbv-buf-capacity", .number(vbvBufferMilliseconds))]
                } else {
                    props.append(("vbv-buf-capacity", "0"))
                }
            case .average(let a):
                props += [("pass", "cbr"), ("bitrate", .number(a))]
                props.append(("vbv-buf-capacity", .number(maxBitrate == nil ? 0 : vbvBufferMilliseconds)))
            }
            props.append(("key-int-max", .number(keyframes ?? Self.defaultKeyframeFrames)))
            if !accessUnitDelimiters { props.append(("aud", "false")) }
            if let threads { props.append(("threads", .number(threads))) }
        }
        if !opts.isEmpty { props.append(("option-string", .quoted(opts.joined(separator: ":")))) }
        return Step(codec.encoder, props)
    }

    /// The NVENC element (nvh264enc/nvh265enc) doing what `element` asks of x264/x265: CRF
    /// as NVENC's constant-quality VBR at the same level, an average rate as CBR (VBR under a
    /// higher ceiling from `--max-bitrate`; the VBV buffer as x264's), the same keyframe interval,
    /// no B-frames for low latency. The speed presets map to NVENC's high-performance one up
    /// to `veryfast` and to its high-quality one above.
    package func nvencElement(codec: Codec, fps: Double?) -> Step {
        let fast = (Self.presets.firstIndex(of: preset) ?? 2) <= 2
        var props: [(name: String, value: Step.Value)] = [
            ("preset", .bare(lowLatency ? "low-latency-hp" : fast ? "hp" : "hq"))
        ]
        switch rate {
        case .quality(let q):
            props += [("rc-mode", "vbr"), ("bitrate", "0"), ("const-quality", .number(q))]
        case .average(let a):
            let capped = maxBitrate.map { $0 != a } ?? false
            props += [("rc-mode", .bare(capped ? "vbr" : "cbr")), ("bitrate", .number(a))]
        }
        if let m = maxBitrate {
            props += [("max-bitrate", .number(m)), ("vbv-buffer-size", .number(m * vbvBufferMilliseconds / 1000))]
        }
        props.append(("gop-size", .number(keyframeFrames(fps: fps ?? 30) ?? Self.defaultKeyframeFrames)))
        if lowLatency { props += [("zerolatency", "true"), ("bframes", "0")] }
        if codec == .h264 { props.append(("aud", accessUnitDelimiters ? "true" : "false")) }
        return Step(codec.nvencoder, props)
    }

    /// What the summary line says of the rate control: `CRF 21, veryfast`.
    package var summary: String {
        var s: String
        switch rate {
        case .quality(let q): s = "CRF \(q)"
        case .average(let a): s = "\(a) kbit/s average"
        }
        if let m = maxBitrate { s += ", at most \(m) kbit/s" }
        if let k = keyframeInterval { s += ", a keyframe at least every \(Self.seconds(k)) s" }
        s += ", \(preset)"
        if lowLatency { s += ", low latency" }
        return s
    }

    private static func seconds(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(v)
    }
}

/// `--codec`, the rate control and the other output options every file-writing command takes.
package func addEncodingOptions(_ p: OptionParser) {
    p.add("codec", nil, .string, "Video codec: h264 (default) or h265", arg: "CODEC")
    p.add(
        "gpu", nil, .string,
        "nvidia: decode with NVDEC and draw the overlay in CUDA memory (then the usual encoder); an error where "
            + "there is no NVIDIA GPU", arg: "KIND")
    p.add(
        "quality", "q", .int, "Constant quality (CRF), 0 (lossless) .. 51 (worst); default 21, with no bitrate cap",
        arg: "N")
    p.add(
        "bitrate", nil, .int, "Encode at this average rate instead of a constant quality (for a size budget)",
        arg: "KBPS")
    p.add(
        "max-bitrate", nil, .int,
        "Never exceed this rate over one second (a VBV cap, for platforms and links with a limit)", arg: "KBPS")
    p.add(
        "keyframe-interval", nil, .double,
        "A keyframe at least every SECONDS (default: the encoder's own, 250 frames)", arg: "SECONDS")
    p.add("preset", nil, .string, "Encoder speed preset (ultrafast ... veryslow); default veryfast", arg: "PRESET")
    p.add(
        "low-latency", nil, .flag,
        "Encode without B-frames or lookahead (x264/x265 zerolatency): larger files, for live use")
    p.add("print-pipeline", nil, .flag, "Print the equivalent gst-launch-1.0 command and exit")
    p.add("verbose", "v", .flag, "Show debug details with errors")
}
