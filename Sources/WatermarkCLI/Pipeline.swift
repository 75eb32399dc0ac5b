// Pipelines as values. Every command describes its graph with the typed steps below (a
// source, turning upright, the overlay, the encoder, the muxer and the sink, and the
// audio beside them); `LaunchDescription.text` renders them to gst-launch syntax in this
// one place. That text is what runs (gst_parse_launch) and what --print-pipeline prints.

import Watermark
import WatermarkModel

/// One element (or a caps filter) with its properties in order.
package struct Step: Equatable, Sendable {
    package enum Value: Equatable, Sendable, ExpressibleByStringLiteral {
        /// Written as it is: numbers, enum nicks, booleans, fractions.
        case bare(String)
        /// Written in double quotes: paths, URIs, free text.
        case quoted(String)

        package init(stringLiteral value: String) { self = .bare(value) }

        package static func number(_ v: some BinaryInteger) -> Value { .bare(String(v)) }

        var text: String {
            switch self {
            case .bare(let s): s
            case .quoted(let s): LaunchSyntax.quote(s)
            }
        }
    }

    package var factory: String
    package var properties: [(name: String, value: Value)]
    /// `video/x-raw,format=I420`: fields joined by commas.
    package var isCaps = false

    package init(_ factory: String, _ properties: [(name: String, value: Value)] = []) {
        self.factory = factory
        self.properties = properties
    }

    package static func caps(_ media: String, _ fields: [(name: String, value: Value)]) -> Step {
        var s = Step(media, fields)
        s.isCaps = true
        return s
    }

    /// The step with `name` set (replaced where it is set already).
    package func setting(_ name: String, _ value: Value) -> Step {
        var s = self
        if let i = s.properties.firstIndex(where: { $0.name == name }) {
            s.properties[i].value = value
        } else {
            s.properties.append((name, value))
        }
        return s
    }

    package func value(of name: String) -> Value? { properties.first { $0.name == name }?.value }

    package var text: String {
        let parts = properties.map { "\($0.name)=\($0.value.text)" }
        if isCaps { return ([factory] + parts).joined(separator: ",") }
        return ([factory] + parts).joined(separator: " ")
    }

    package static func == (a: Step, b: Step) -> Bool {
        a.factory == b.factory && a.isCaps == b.isCaps && a.properties.map(\.name) == b.properties.map(\.name)
            && a.properties.map(\.value) == b.properties.map(\.value)
    }
}

/// A chain of steps, from a named element's pad (`d.`) and into one (`mux.`, `mux.video`).
package struct Branch: Equatable, Sendable {
    package var from: String?
    package var steps: [Step]
    package var to: String?

    package init(from: String? = nil, _ steps: [Step], to: String? = nil) {
        self.from = from
        self.steps = steps
        self.to = to
    }

    package var text: String {
        var parts = steps.map(\.text)
        if let from { parts.insert(from, at: 0) }
        if let to { parts.append(to) }
        return parts.joined(separator: " ! ")
    }
}

/// A whole pipeline: its branches, rendered in order.
package struct LaunchDescription: Equatable, Sendable {
    package var branches: [Branch]

    package init(_ branches: [Branch]) { self.branches = branches }

    package var text: String { branches.map(\.text).joined(separator: " ") }
}

// MARK: the typed steps

/// Where the video comes from.
package enum VideoSource: Equatable, Sendable {
    /// A file, decoded by decodebin (named `d`): only video and `audioCaps` come out.
    case file(path: String, audioCaps: String)
    /// A file paced at its own speed, as a live source would be (stream --input).
    case pacedFile(path: String)
    /// videotestsrc: `frames` buffers (nil: until stopped); a live source when `live`.
    case test(width: Int, height: Int, fps: Int, frames: Int?, pattern: String, live: Bool)
    /// A V4L2 camera.
    case camera(device: String)
    /// A network input's frames, handed on by the relay from the pipeline that receives them
    /// (the appsrc `video`).
    case relay

    /// The steps up to raw video, and the decodebin branch a file needs before them.
    var head: (decoder: Branch?, video: [Step]) {
        switch self {
        case .file(let path, let audioCaps):
            let decode = Branch([
                Step("filesrc", [("location", .quoted(path))]),
                Step(
                    "decodebin",
                    [
                        ("name", "d"), ("expose-all-streams", "false"),
                        ("caps", .quoted("video/x-raw(ANY);\(audioCaps)")),
                    ]),
            ])
            // Three decoded frames keep the decoder and the encoder busy; the default queue
            // (10 MB) holds up to seven 720p frames and more memory.
            return (decode, [Step.queue(frames: 3), Step("videoconvert")])
        case .pacedFile(let path):
            return (
                nil,
                [
                    Step("filesrc", [("location", .quoted(path))]), Step("decodebin"), Step("queue"),
                    Step("videoconvert"), Step("clocksync"),
                ]
            )
        case .test(let w, let h, let fps, let frames, let pattern, let live):
            var props: [(name: String, value: Step.Value)] = []
            if live { props.append(("is-live", "true")) }
            if let frames { props.append(("num-buffers", .number(frames))) }
            props.append(("pattern", .bare(pattern)))
            return (
                nil,
                [
                    Step("videotestsrc", props),
                    Step.caps(
                        "video/x-raw",
                        [("width", .number(w)), ("height", .number(h)), ("framerate", .bare("\(fps)/1"))]),
                ]
            )
        case .camera(let device):
            return (nil, [Step("v4l2src", [("device", .quoted(device))])])
        case .relay:
            return (nil, [Step.relaySource("video")])
        }
    }

    /// The decoder's branch name for more tracks (`d.`), for a file.
    var decoderPad: String? {
        if case .file = self { return "d." }
        return nil
    }
}

extension Step {
    /// A queue holding at most `frames` buffers, with no byte or time limit.
    package static func queue(frames: Int) -> Step {
        Step(
            "queue",
            [("max-size-buffers", .number(frames)), ("max-size-bytes", "0"), ("max-size-time", "0")])
    }

    /// videoflip turning frames stored as `orientation` upright; by the stream's own tag
    /// when it is not known beforehand (nil: a camera, a live input). None for frames known
    /// to be upright: GStreamer 1.22's videoflip copies every frame even when it turns
    /// nothing (`auto` with no tag is not passthrough), 3 MB a frame at 1080p.
    package static func upright(_ orientation: ImageOrientation?) -> Step? {
        let method: String
        switch orientation {
        case .rotate0: return nil
        case .rotate90: method = "90r"
        case .rotate180: method = "180"
        case .rotate270: method = "90l"
        case .flipRotate0: method = "horiz"
        case .flipRotate90: method = "ul-lr"
        case .flipRotate180: method = "vert"
        case .flipRotate270: method = "ur-ll"
        case nil: method = "auto"
        }
        return Step("videoflip", [("video-direction", .bare(method))])
    }
}

/// The watermark element: the overlay's properties, from the command line, a manifest row
/// or (under live control) none, the layers then coming as one config-data document.
package struct Overlay: Equatable, Sendable {
    package var properties: [(property: PropertyDefinition, value: PropertyValue)]
    package var config: String?
    /// What `{var:…}` shows (`--var`).
    package var variables: Variables
    /// What `{data:…}` shows (`--data`).
    package var data: DataSpec?
    /// A gst-launch fragment placed before the element (`--filter`: a detector, a tracker).
    package var filter: String?

    package init(
        properties: [(property: PropertyDefinition, value: PropertyValue)] = [], config: String? = nil,
        variables: Variables = Variables(), data: DataSpec? = nil
    ) {
        self.properties = properties
        self.config = config
        self.variables = variables
        self.data = data
    }

    package static func == (a: Overlay, b: Overlay) -> Bool {
        a.config == b.config && a.variables == b.variables && a.data == b.data && a.filter == b.filter
            && a.properties.map(\.property.name) == b.properties.map(\.property.name)
            && a.properties.map(\.value) == b.properties.map(\.value)
    }

    /// The `--filter` fragment (if any), then the element.
    package var steps: [Step] { (filter.map(Self.filterSteps) ?? []) + [step] }

    /// A fragment between converters, so that it gets the formats it takes and the element
    /// one of its own.
    package static func filterSteps(_ fragment: String) -> [Step] {
        [Step("videoconvert"), Step(fragment), Step("videoconvert")]
    }

    /// The element, named `wm`; frames reach it upright, so it has nothing to turn.
    package var step: Step {
        var props: [(name: String, value: Step.Value)] = properties.map { p in
            (p.property.name, .quoted(p.property.launchText(p.value)))
        }
        if let config { props.append(("config", .quoted(config))) }
        if !variables.isEmpty { props.append(("variables", .quoted(variables.structureText))) }
        if let data {
            let p = WatermarkProperties.self
            props.append((p.dataFile.name, .quoted(data.file)))
            if data.offset != 0 { props.append((p.dataOffset.name, .quoted(p.dataOffset.launchText(data.offset)))) }
            if let column = data.timeColumn { props.append((p.dataTimeColumn.name, .quoted(column))) }
            if !data.step.isEmpty {
                props.append((p.dataStep.name, .quoted(data.step.sorted().joined(separator: ","))))
            }
        }
        props.append(("name", "wm"))
        props.append(("follow-orientation", "false"))
        return Step("watermark", props)
    }
}

/// The video encoder: the raw format it takes, the element and its parser.
package struct VideoEncoder: Equatable, Sendable {
    package var codec: Codec
    package var settings: EncoderSettings
    /// Frames a second the encoder gets (nil: unknown), for the keyframe interval.
    package var fps: Double?
    /// 8-bit `I420` or 10-bit `I420_10LE`.
    package var rawFormat = "I420"
    /// Extra x264/x265 options (HDR mastering data).
    package var options: [String] = []

    package init(codec: Codec, settings: EncoderSettings, fps: Double?) {
        self.codec = codec
        self.settings = settings
        self.fps = fps
    }

    package var element: Step { settings.element(codec: codec, fps: fps, options: options) }

    /// Whether NVENC can take this encoding: 8-bit, and no x264/x265 options (HDR mastering
    /// data) it has no equivalent for.
    package var nvencCapable: Bool { rawFormat == "I420" && options.isEmpty }

    /// NVENC on frames in CUDA memory (NV12, as NVDEC gives them), then the parser.
    package func nvencSteps(repeatingParameterSets: Bool) -> [Step] {
        var parser = Step(codec.parser)
        if repeatingParameterSets { parser = parser.setting("config-interval", "-1") }
        return [settings.nvencElement(codec: codec, fps: fps), parser]
    }

    /// Conversion to the raw format, the encoder and its parser; `repeatingParameterSets`
    /// for receivers that join late (the parameter sets before every keyframe).
    package func steps(repeatingParameterSets: Bool) -> [Step] {
        var parser = Step(codec.parser)
        if repeatingParameterSets { parser = parser.setting("config-interval", "-1") }
        return [
            Step("videoconvert"), Step.caps("video/x-raw", [("format", .bare(rawFormat))]), element, parser,
        ]
    }
}

package enum Codec: String, Equatable, Sendable {
    case h264, h265

    package init(_ name: String) throws(UsageError) {
        guard let c = Codec(rawValue: name) else {
            throw UsageError(message: "--codec: unknown codec \"\(name)\" (h264 or h265)")
        }
        self = c
    }

    package var encoder: String { self == .h265 ? "x265enc" : "x264enc" }
    /// GStreamer's NVENC element for the codec (nvcodec).
    package var nvencoder: String { self == .h265 ? "nvh265enc" : "nvh264enc" }
    package var parser: String { self == .h265 ? "h265parse" : "h264parse" }
    /// `H.264` or `H.265`.
    package var displayName: String { self == .h265 ? "H.265" : "H.264" }
}

/// A file's container, from its extension.
package enum Container: String, Equatable, Sendable {
    case mp4, mov, mkv

    package init(path: String) throws(UsageError) {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "mp4", "m4v": self = .mp4
        case "mov": self = .mov
        case "mkv": self = .mkv
        default: throw UsageError(message: "\(path): unknown container \".\(ext)\" (use .mp4, .mov or .mkv)")
        }
    }

    package var muxerFactory: String {
        switch self {
        case .mp4: "mp4mux"
        case .mov: "qtmux"
        case .mkv: "matroskamux"
        }
    }
}

/// How the encoded streams are put together and where they go.
package enum Output: Equatable, Sendable {
    /// One file; MP4/MOV with the index at the front when `faststart` (an export, written
    /// once), at the end otherwise (a recording, which must stay playable when cut short).
    case file(path: String, container: Container, faststart: Bool)
    /// splitmuxsink: numbered files of `seconds` each. `gop`: the encoder puts a keyframe
    /// every `gop` seconds, a whole number of them to a segment, and the cut is made at the
    /// keyframe nearest `seconds` (a live source's frame times wander by a few ms, so a
    /// limit of exactly `seconds` could leave the last GOP out); nil: a keyframe is asked
    /// for at each cut.
    case segments(pattern: String, container: Container, seconds: Double, gop: Double? = nil)
    case udp(host: String, port: Int)
    case srt(uri: String, reconnect: Bool)
    case rtmp(url: String)
    case hls(directory: String)
    /// An RTSP server's media: RTP payloading, no sink.
    case rtp

    /// The pad the video branch ends in, and the audio branches'.
    var videoPad: String? {
        switch self {
        case .segments: "mux.video"
        case .file: "mux."
        default: nil
        }
    }

    /// splitmuxsink: the muxer is named before the branches that link to its request pads.
    var muxerFirst: Bool {
        if case .segments = self { return true }
        return false
    }

    /// A network output: receivers join at any time.
    var repeatsParameterSets: Bool {
        switch self {
        case .file, .segments: false
        default: true
        }
    }

    package var audioPad: String? {
        switch self {
        case .segments: "mux.audio_%u"
        case .file: "mux."
        default: nil
        }
    }

    /// The steps after the video branch (a file's muxer and sink are their own branch).
    var tail: (afterVideo: [Step], branch: Branch?) {
        switch self {
        case .file(let path, let container, let faststart):
            var mux = Step(container.muxerFactory, [("name", "mux")])
            if faststart && container != .mkv { mux = mux.setting("faststart", "true") }
            return ([], Branch([mux, Step("filesink", [("location", .quoted(path))])]))
        case .segments(let pattern, let container, let seconds, let gop):
            let limit = seconds + (gop ?? 0) / 2
            let mux = Step(
                "splitmuxsink",
                [
                    ("name", "mux"), ("location", .quoted(pattern)),
                    ("muxer-factory", .bare(container == .mkv ? "matroskamux" : "mp4mux")),
                    ("max-size-time", .number(UInt64(limit * 1e9))),
                    ("send-keyframe-requests", gop == nil ? "true" : "false"),
                ])
            return ([], Branch([mux]))
        case .udp(let host, let port):
            return (
                [
                    Step("mpegtsmux", [("alignment", "7")]),
                    Step("udpsink", [("host", .bare(host)), ("port", .number(port)), ("sync", "false")]),
                ], nil
            )
        case .srt(let uri, let reconnect):
            return (
                [
                    Step("mpegtsmux", [("alignment", "7")]),
                    Step(
                        "srtsink",
                        [
                            ("name", "out"), ("uri", .quoted(uri)), ("sync", "false"),
                            ("auto-reconnect", .bare(String(reconnect))),
                        ]),
                ], nil
            )
        case .rtmp(let url):
            return (
                [
                    Step("flvmux", [("streamable", "true")]),
                    Step("rtmp2sink", [("name", "out"), ("location", .quoted(url))]),
                ], nil
            )
        case .hls(let dir):
            return (
                [
                    Step(
                        "hlssink2",
                        [
                            ("location", .quoted(dir + "/segment%05d.ts")),
                            ("playlist-location", .quoted(dir + "/playlist.m3u8")), ("target-duration", "2"),
                            ("max-files", "0"), ("playlist-length", "0"),
                        ])
                ], nil
            )
        case .rtp:
            return ([Step("rtph264pay", [("name", "pay0"), ("pt", "96"), ("config-interval", "-1")])], nil)
        }
    }
}

/// A window showing exactly what is recorded: a tee after the watermark, with a leaky queue
/// so that a slow display never stalls the recording.
package struct Preview: Equatable, Sendable {
    package var sink: String

    package init(sink: String) { self.sink = sink }
}

/// A video pipeline from its typed steps: the source, upright, an optional reframe, the
/// overlay, an optional preview, the encoder and the output, with audio branches beside.
package struct VideoPipeline: Equatable, Sendable {
    package var source: VideoSource
    /// Between the source and turning upright: a queue (a recording: the camera's thread
    /// only captures) and a conversion to a format videoflip takes.
    package var afterSource: [Step] = []
    /// The input's orientation (nil: the stream's own tag, read while running; `.rotate0`:
    /// known to be upright, nothing turns it).
    package var orientation: ImageOrientation?
    package var reframe: [Step] = []
    package var overlay: Overlay
    package var preview: Preview?
    /// A queue between the overlay and the encoder (a recording: the camera's thread only
    /// captures and draws).
    package var encoderQueue = false
    package var encoder: VideoEncoder
    package var output: Output
    /// Audio branches, each ending where the output takes audio.
    package var audio: [Branch] = []
    /// Frames decoded into, and drawn in, GPU memory (`--gpu`); nil: system memory.
    package var gpu: GPU?
    /// With `gpu` and a file: the NVDEC decoder its video goes through (else frames are uploaded).
    package var nvdec: GPU.Decoder?
    /// With `gpu`: the frames go from GPU memory straight into NVENC (`GPU.nvenc`) instead of
    /// coming down to the usual encoder.
    package var nvenc = false

    package init(
        source: VideoSource, orientation: ImageOrientation? = nil, overlay: Overlay, encoder: VideoEncoder,
        output: Output
    ) {
        self.source = source
        self.orientation = orientation
        self.overlay = overlay
        self.encoder = encoder
        self.output = output
    }

    package var description: LaunchDescription {
        var (decoder, head) = source.head
        var video = head + afterSource + (Step.upright(orientation).map { [$0] } ?? []) + reframe + overlay.steps
        if gpu != nil {
            // A file: decodebin gives the compressed video, which NVDEC decodes into CUDA
            // memory; any other source is uploaded. The frames come down for the encoder.
            if case .file(let path, let audioCaps) = source, let nvdec {
                decoder = Branch([
                    Step("filesrc", [("location", .quoted(path))]),
                    Step(
                        "decodebin",
                        [
                            ("name", "d"), ("expose-all-streams", "false"),
                            ("caps", .quoted("\(nvdec.caps);\(audioCaps)")),
                        ]),
                ])
                video = nvdec.steps + [Step.queue(frames: 3)] + overlay.steps
            } else {
                video = head + afterSource + [Step("cudaupload"), Step.caps(GPU.memory, [])] + overlay.steps
            }
            // NVENC takes CUDA memory; the usual encoder, system memory.
            if !nvenc { video += [Step("cudadownload"), Step.caps("video/x-raw", [])] }
        }
        var branches: [Branch] = []
        if let decoder { branches.append(decoder) }
        let (afterVideo, outputBranch) = output.tail
        // A muxer that must exist before the branches that link to it comes first.
        if output.muxerFirst, let outputBranch { branches.append(outputBranch) }
        var videoFrom: String? = decoder == nil ? nil : "d."
        if let preview {
            video.append(Step("tee", [("name", "preview")]))
            branches.append(Branch(from: videoFrom, video))
            branches.append(
                Branch(
                    from: "preview.",
                    [
                        Step("queue", [("leaky", "downstream"), ("max-size-buffers", "2")]), Step("videoconvert"),
                        Step(preview.sink, [("sync", "false")]),
                    ]))
            videoFrom = "preview."
            video = [Step("queue")]
        } else if encoderQueue {
            video.append(Step("queue"))
        }
        var encode =
            video
            + (gpu != nil && nvenc
                ? encoder.nvencSteps(repeatingParameterSets: output.repeatsParameterSets)
                : encoder.steps(repeatingParameterSets: output.repeatsParameterSets))
        if output.videoPad != nil { encode.append(Step("queue")) }
        branches.append(Branch(from: videoFrom, encode + afterVideo, to: output.videoPad))
        branches += audio
        if !output.muxerFirst, let outputBranch { branches.append(outputBranch) }
        return LaunchDescription(branches)
    }
}

/// Audio encoded to AAC for a file: `audioconvert ! audioresample ! avenc_aac ! aacparse ! queue`.
package enum AudioEncode {
    package static let steps = [
        Step("audioconvert"), Step("audioresample"), Step("avenc_aac"), Step("aacparse"), Step("queue"),
    ]
}
