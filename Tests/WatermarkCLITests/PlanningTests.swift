import TestSupport
import Testing
import WatermarkModel

@testable import WatermarkCLI

/// The CLI's planning, without GStreamer or a process: where a stream goes, how a frame is
/// reframed, what encoder options each command gets, which Host headers the control server
/// takes, and how the typed steps render to gst-launch text.
@Suite struct StreamTargetTests {
    @Test func destinationsParse() throws {
        guard case .udp("127.0.0.1", 5000) = try StreamTarget("udp://127.0.0.1:5000") else {
            Issue.record("udp")
            return
        }
        guard case .rtsp("0.0.0.0", 8554, "/stream", nil, nil) = try StreamTarget("rtsp://:8554") else {
            Issue.record("rtsp without a path")
            return
        }
        guard case .rtsp(_, _, "/live", _, _) = try StreamTarget("rtsp://0.0.0.0:8554/live") else {
            Issue.record("rtsp with a path")
            return
        }
        guard case .hls("/var/www") = try StreamTarget("hls:/var/www") else {
            Issue.record("hls")
            return
        }
        #expect(try StreamTarget("srt://h:9000?mode=listener").hasReceiver)
        #expect(try StreamTarget("rtmp://live.example.com/app/key").hasReceiver)
        #expect(try !StreamTarget("udp://h:1").hasReceiver)
    }

    @Test(arguments: ["udp://host", "udp://h:0", "udp://h:70000", "srt://nohost", "hls:", "ftp://x", "rec.mp4"])
    func badDestinationsNameTheProblem(_ url: String) {
        #expect(throws: UsageError.self) { try StreamTarget(url) }
    }
}

@Suite struct ReframeTests {
    /// 16:9 to 9:16 keeps the input's shorter side: 1920×1080 → a centred 606×1080 crop
    /// scaled to 1080×1920.
    @Test func landscapeToPortrait() throws {
        let steps = try Reframe(ratio: "9:16").steps(width: 1920, height: 1080)
        #expect(
            steps.map(\.text) == [
                "videocrop left=657 right=657 top=0 bottom=0", "videoscale",
                "video/x-raw,width=1080,height=1920,pixel-aspect-ratio=1/1",
            ])
    }

    @Test(arguments: [(1920, 1080, "1:1"), (1080, 1920, "16:9"), (1280, 720, "4:5"), (641, 359, "9:16")])
    func everyCropFitsAndKeepsTheRatio(width: Int, height: Int, ratio: String) throws {
        let steps = try Reframe(ratio: ratio).steps(width: width, height: height)
        func number(_ step: Step, _ name: String) -> Int? {
            if case .bare(let s)? = step.value(of: name) { return Int(s) }
            return nil
        }
        let crop = steps[0], caps = steps[2]
        let cw = width - (number(crop, "left") ?? -1) - (number(crop, "right") ?? -1)
        let ch = height - (number(crop, "top") ?? -1) - (number(crop, "bottom") ?? -1)
        #expect(cw > 0 && cw <= width && ch > 0 && ch <= height)
        let (ow, oh) = (number(caps, "width") ?? 0, number(caps, "height") ?? 0)
        #expect(ow % 2 == 0 && oh % 2 == 0 && ow > 0 && oh > 0)
        let parts = ratio.split(separator: ":").compactMap { Double($0) }
        #expect(abs(Double(ow) / Double(oh) - parts[0] / parts[1]) < 0.01, "\(ow)x\(oh)")
    }

    @Test(arguments: ["9", "0:16", "9:101", "a:b", "9:16:1"])
    func badRatiosAreUsageErrors(_ ratio: String) {
        #expect(throws: UsageError.self) { try Reframe(ratio: ratio) }
    }
}

/// One encoder description for every command: export/capture/batch's file settings and
/// stream's live ones, rendered from `EncoderSettings`.
@Suite struct EncoderTests {
    @Test func fileDefaultsAreTheEncodersPreset() {
        let s = EncoderSettings()
        #expect(
            s.element(codec: .h264, fps: 30).text
                == "x264enc speed-preset=veryfast pass=qual quantizer=21 vbv-buf-capacity=0 key-int-max=250 aud=false")
        #expect(
            s.element(codec: .h265, fps: 30).text == #"x265enc speed-preset=veryfast tune=0 option-string="crf=21""#)
    }

    @Test func aCapAndAKeyframeIntervalAreSetOnTopOfThePreset() {
        var s = EncoderSettings()
        s.maxBitrate = 1500
        s.keyframeInterval = 2
        #expect(
            s.element(codec: .h264, fps: 25).text
                == "x264enc speed-preset=veryfast pass=qual quantizer=21 bitrate=1500 vbv-buf-capacity=1000 key-int-max=50 aud=false"
        )
        #expect(
            s.element(codec: .h265, fps: 25).text
                == #"x265enc speed-preset=veryfast tune=0 key-int-max=50 option-string="crf=21:vbv-maxrate=1500:vbv-bufsize=1500""#
        )
    }

    /// Segments of a recording hold whole GOPs of at most 250 frames, unless the interval
    /// was given.
    @Test func segmentsGetAKeyframeOnEveryBoundary() {
        for (seconds, fps, frames) in [(10.0, 30.0, 150), (4, 30, 120), (60, 30, 225), (2, 25, 50), (300, 25, 250)] {
            var s = EncoderSettings()
            s.alignKeyframes(toSegmentsOf: seconds, fps: fps)
            let gop = s.keyframeFrames(fps: fps) ?? 0
            #expect(gop == frames, "\(seconds) s at \(fps) fps")
            #expect(gop <= 250 && Int(seconds * fps) % gop == 0, "\(seconds) s at \(fps) fps: GOP \(gop)")
        }
        var given = EncoderSettings()
        given.keyframeInterval = 1
        given.alignKeyframes(toSegmentsOf: 10, fps: 30)
        #expect(given.keyframeInterval == 1)
    }

    /// A live stream: constant rate in x264enc's 600 ms buffer, a keyframe a second, AUDs.
    @Test func liveStreamsEncodeForReceivers() {
        #expect(
            EncoderSettings.live(bitrate: 2500).element(codec: .h264, fps: 30).text
                == "x264enc speed-preset=ultrafast tune=zerolatency pass=cbr bitrate=2500 vbv-buf-capacity=600 key-int-max=30"
        )
    }

    @Test func h264CannotCapAnAverageRateAtAnotherRate() {
        var s = EncoderSettings()
        s.rate = .average(2000)
        s.maxBitrate = 3000
        #expect(throws: UsageError.self) { try s.check(codec: .h264) }
        #expect(throws: Never.self) { try s.check(codec: .h265) }
    }
}

@Suite struct ControlHostTests {
    @Test(arguments: [
        ("127.0.0.1", true), ("127.0.0.1:8080", true), ("localhost:80", true), ("[::1]:8080", true),
        ("192.168.1.20", true), ("cam.local", false), ("evil.example:8080", false), ("[::1", false),
        ("127.0.0.1:http", false), ("studio", true),
    ])
    func hostHeaders(host: String, allowed: Bool) {
        #expect(ControlServer.hostAllowed(host, extra: ["studio"]) == allowed, "\(host)")
    }
}

/// The typed steps render to one gst-launch description, in the order GStreamer needs.
@Suite struct PipelineTests {
    static let overlay = Overlay(properties: [
        (WatermarkProperties.text.definition, .string("© ACME")), (WatermarkProperties.anchor.definition, .choice(2)),
    ])

    @Test func anExportDecodesMuxesAndNamesEveryStep() {
        var plan = VideoPipeline(
            source: .file(path: "in put.mov", audioCaps: "audio/x-raw(ANY)"), orientation: .rotate90,
            overlay: Self.overlay, encoder: VideoEncoder(codec: .h264, settings: EncoderSettings(), fps: 30),
            output: .file(path: "out.mp4", container: .mp4, faststart: true))
        plan.audio = [Branch(from: "d.", [Step("queue")] + AudioEncode.steps, to: "mux.")]
        let branches = plan.description.branches.map(\.text)
        #expect(
            branches == [
                #"filesrc location="in put.mov" ! decodebin name=d expose-all-streams=false caps="video/x-raw(ANY);audio/x-raw(ANY)""#,
                #"d. ! queue max-size-buffers=3 max-size-bytes=0 max-size-time=0 ! videoconvert ! videoflip video-direction=90r ! watermark text="© ACME" anchor="top-right" name=wm follow-orientation=false ! videoconvert ! video/x-raw,format=I420 ! x264enc speed-preset=veryfast pass=qual quantizer=21 vbv-buf-capacity=0 key-int-max=250 aud=false ! h264parse ! queue ! mux."#,
                "d. ! queue ! audioconvert ! audioresample ! avenc_aac ! aacparse ! queue ! mux.",
                #"mp4mux name=mux faststart=true ! filesink location="out.mp4""#,
            ])
    }

    /// A recording keeps its index at the end; segments come from splitmuxsink, declared
    /// before the branches that link to it.
    @Test func recordingsAndSegments() {
        let encoder = VideoEncoder(codec: .h265, settings: EncoderSettings(), fps: 30)
        let source = VideoSource.test(width: 640, height: 360, fps: 30, frames: nil, pattern: "ball", live: true)
        let file = VideoPipeline(
            source: source, overlay: Overlay(), encoder: encoder,
            output: .file(path: "rec.mov", container: .mov, faststart: false))
        #expect(file.description.branches.last?.text == #"qtmux name=mux ! filesink location="rec.mov""#)
        var segments = file
        segments.output = .segments(pattern: "rec-%05d.mkv", container: .mkv, seconds: 2)
        segments.preview = Preview(sink: "fakesink silent=true")
        let text = segments.description.branches.map(\.text)
        #expect(
            text.first?.hasPrefix(
                #"splitmuxsink name=mux location="rec-%05d.mkv" muxer-factory=matroskamux max-size-time=2000000000"#)
                == true)
        #expect(text.first?.hasSuffix("send-keyframe-requests=true") == true)
        // Keyframes every 5 s: two GOPs a segment, cut at the keyframe nearest 10 s.
        var aligned = segments
        aligned.output = .segments(pattern: "rec-%05d.mkv", container: .mkv, seconds: 10, gop: 5)
        #expect(
            aligned.description.branches.first?.text.hasSuffix(
                "max-size-time=12500000000 send-keyframe-requests=false") == true)
        #expect(text[1].hasSuffix("! watermark name=wm follow-orientation=false ! tee name=preview"))
        #expect(
            text[2]
                == "preview. ! queue leaky=downstream max-size-buffers=2 ! videoconvert ! fakesink silent=true sync=false"
        )
        #expect(text[3].hasPrefix("preview. ! queue ! videoconvert ! video/x-raw,format=I420 ! x265enc"))
        #expect(text[3].hasSuffix("! h265parse ! queue ! mux.video"))
    }

    /// Network outputs repeat the parameter sets for receivers that join late, and end in
    /// their muxer and sink.
    @Test(arguments: [
        (
            Output.udp(host: "127.0.0.1", port: 5000),
            "mpegtsmux alignment=7 ! udpsink host=127.0.0.1 port=5000 sync=false"
        ),
        (
            Output.srt(uri: "srt://h:9000", reconnect: true),
            #"srtsink name=out uri="srt://h:9000" sync=false auto-reconnect=true"#
        ),
        (Output.rtmp(url: "rtmp://s/app/k"), #"flvmux streamable=true ! rtmp2sink name=out location="rtmp://s/app/k""#),
        (Output.rtp, "rtph264pay name=pay0 pt=96 config-interval=-1"),
    ])
    func streams(output: Output, tail: String) {
        let plan = VideoPipeline(
            source: .pacedFile(path: "talk.mp4"), overlay: Self.overlay,
            encoder: VideoEncoder(codec: .h264, settings: .live(bitrate: 3000), fps: 25), output: output)
        let text = plan.description.text
        #expect(
            text.hasPrefix(
                #"filesrc location="talk.mp4" ! decodebin ! queue ! videoconvert ! clocksync ! videoflip video-direction=auto"#
            ))
        #expect(text.contains("! h264parse config-interval=-1 ! "))
        #expect(text.hasSuffix(tail), "\(text)")
        #expect(plan.description.branches.count == 1)
    }

    /// `--gpu nvidia`: a file decoded into CUDA memory (decodebin asked for it) and drawn there;
    /// without NVENC the frames come down into x264, with it they go into nvh264enc as they are,
    /// with the same rate control, keyframe interval and delimiters.
    @Test func gpuFramesGoDownOrIntoNVENC() {
        var plan = VideoPipeline(
            source: .file(path: "in.mp4", audioCaps: "audio/x-raw(ANY)"), orientation: .rotate0,
            overlay: Self.overlay, encoder: VideoEncoder(codec: .h264, settings: EncoderSettings(), fps: 30),
            output: .file(path: "out.mp4", container: .mp4, faststart: true))
        plan.gpu = .nvidia
        plan.nvdec = GPU.Decoder(codec: "video/x-h264")
        let down = plan.description.text
        // decodebin stops at the compressed video; NVDEC decodes it into CUDA memory.
        #expect(
            down.hasPrefix(
                #"filesrc location="in.mp4" ! decodebin name=d expose-all-streams=false caps="video/x-h264;audio/x-raw(ANY)""#
            ))
        #expect(
            down.contains(
                #"d. ! video/x-h264 ! h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory) ! queue max-size-buffers=3 max-size-bytes=0 max-size-time=0 ! watermark text="© ACME""#
            ), "\(down)")
        #expect(down.contains("! cudadownload ! video/x-raw ! videoconvert ! video/x-raw,format=I420 ! x264enc "))
        plan.nvenc = true
        let nvenc = plan.description.text
        #expect(!nvenc.contains("cudadownload") && !nvenc.contains("x264enc"))
        #expect(
            nvenc.contains(
                "follow-orientation=false ! nvh264enc preset=hp rc-mode=vbr bitrate=0 const-quality=21 gop-size=250 aud=false ! h264parse ! queue ! mux."
            ), "\(nvenc)")
        // A live stream: low latency, constant rate within its VBV buffer, a keyframe a second.
        let live = EncoderSettings.live(bitrate: 3000).nvencElement(codec: .h264, fps: 25)
        #expect(
            live.text
                == "nvh264enc preset=low-latency-hp rc-mode=cbr bitrate=3000 max-bitrate=3000 vbv-buffer-size=1800 gop-size=25 zerolatency=true bframes=0 aud=true"
        )
        // HDR (10-bit, x265 mastering options) stays on the CPU encoder.
        var hdr = VideoEncoder(codec: .h265, settings: EncoderSettings(), fps: 30)
        #expect(hdr.nvencCapable)
        hdr.rawFormat = "I420_10LE"
        #expect(!hdr.nvencCapable)
        // H.265 goes through nvh265dec; a codec NVDEC is not used for here is named.
        #expect(GPU.Decoder(codec: "video/x-h265")?.decoder == "nvh265dec")
        #expect(GPU.Decoder(codec: "video/x-vp8") == nil)
        #expect(throws: UsageError.self) { try GPU.decoder(for: "video/x-vp8") }
    }

    @Test func valuesAreQuotedWhereTheyMustBe() {
        let step = Step("filesrc", [("location", .quoted(#"a "b"\c.mp4"#)), ("num-buffers", .number(3))])
        #expect(step.text == #"filesrc location="a \"b\"\\c.mp4" num-buffers=3"#)
        #expect(Step.caps("audio/x-raw", [("rate", "48000")]).text == "audio/x-raw,rate=48000")
        #expect(step.setting("num-buffers", "4").text.hasSuffix("num-buffers=4"))
    }

    @Test(arguments: ["a.mp4", "b.M4V", "c.mov", "d.mkv"])
    func containersFromTheExtension(_ path: String) throws {
        _ = try Container(path: path)
    }

    @Test func anUnknownContainerNamesTheExtension() {
        #expect(throws: UsageError.self) { try Container(path: "out.avi") }
    }
}

/// `--data` and its companions: read and checked before anything runs, handed to the
/// element as its data properties.
@Suite struct DataOptionTests {
    static func overlay(_ arguments: [String]) throws(UsageError) -> Overlay {
        let p = OptionParser(parameters: "", summary: "")
        OverlayOptions.add(to: p)
        _ = try p.parse(program: "gst-watermark", arguments)
        return try OverlayOptions.overlay(from: p)
    }

    @Test func aDataFileBecomesTheElementsProperties() throws {
        let csv = TestEnv.write("cli-speed.csv", "t,speed,lap\n0,1,1\n2,3,2\n")
        let overlay = try Self.overlay([
            "--text", "{data:speed:%.0f}", "--data", csv, "--data-offset", "1.5", "--data-step", "lap",
        ])
        #expect(overlay.data == DataSpec(file: csv, offset: 1.5, step: ["lap"]))
        let text = overlay.step.text
        #expect(text.contains(#"data-file="\#(csv)""#), "\(text)")
        #expect(text.contains(#"data-offset="1.5""#), "\(text)")
        #expect(text.contains(#"data-step="lap""#), "\(text)")
    }

    @Test func aBadDataFileIsAOneLineErrorWithItsPlace() {
        let csv = TestEnv.write("cli-bad.csv", "time,speed\n0,1\n1,2,3\n")
        #expect {
            _ = try Self.overlay(["--text", "{data:speed}", "--data", csv])
        } throws: { error in
            (error as? UsageError)?.message == "--data: \(csv):3:5: 3 cells; the header has 2"
        }
    }

    @Test func itsCompanionsNeedIt() {
        #expect {
            _ = try Self.overlay(["--text", "x", "--data-offset", "2"])
        } throws: { error in
            (error as? UsageError)?.message == "--data-offset needs --data FILE"
        }
    }
}

/// Network inputs: which URLs are taken, how they are shown and received, and what a
/// recording that reconnects is called.
@Suite struct NetworkInputTests {
    @Test(arguments: [
        ("rtsp://cam.local/stream1", NetworkInput.Kind.rtsp, "rtsp://cam.local/stream1"),
        ("rtspt://admin:pw@10.0.0.5:554/h264", .rtsp, "rtspt://admin:pw@10.0.0.5:554/h264"),
        ("rtspu://10.0.0.5/live", .rtsp, "rtspu://10.0.0.5/live"),
        ("rtsps://cam/s", .rtsp, "rtsps://cam/s"),
        ("srt://:9000?mode=listener", .srt, "srt://:9000?mode=listener"),
        ("srt://encoder.example:9000", .srt, "srt://encoder.example:9000"),
        ("rtmp://127.0.0.1/live/cam", .rtmp, "rtmp://127.0.0.1/live/cam"),
        ("udp://:5000", .udp, "udp://0.0.0.0:5000"),
        ("udp://@:5000", .udp, "udp://0.0.0.0:5000"),
        ("udp://239.1.1.1:5000", .udp, "udp://239.1.1.1:5000"),
        ("https://example.com/live/playlist.m3u8", .http, "https://example.com/live/playlist.m3u8"),
        ("HTTP://cam/mjpg/video.mjpg", .http, "HTTP://cam/mjpg/video.mjpg"),
    ])
    func acceptedURLs(url: String, kind: NetworkInput.Kind, uri: String) throws {
        let input = try NetworkInput(url)
        #expect(input.kind == kind)
        #expect(input.uri == uri)
        #expect(NetworkInput.looksLikeURL(url))
    }

    @Test(arguments: [
        ("ftp://example/x.mp4", "unsupported input \"ftp://\""),
        ("rtsp:///stream", "no host"),
        ("udp://127.0.0.1", "expected udp://HOST:PORT"),
        ("srt://host:99999", "expected srt://HOST:PORT"),
        ("file:///tmp/a.mp4", "unsupported input"),
    ])
    func refusedURLs(url: String, message: String) {
        #expect {
            try NetworkInput(url)
        } throws: { error in
            (error as? UsageError)?.message.contains(message) == true
        }
    }

    @Test func filesAreNotURLs() {
        #expect(!NetworkInput.looksLikeURL("rec.mp4"))
        #expect(!NetworkInput.looksLikeURL("/tmp/a:b.mp4"))
        #expect(!NetworkInput.looksLikeURL("C:/video.mp4"))
        #expect(!NetworkInput.looksLikeURL("://x"))
    }

    @Test func thePasswordIsNeverShown() throws {
        #expect(try NetworkInput("rtsp://admin:s3cret@cam/stream").shown == "rtsp://admin:***@cam/stream")
        #expect(try NetworkInput("rtsp://admin@cam/stream").shown == "rtsp://admin@cam/stream")
        #expect(try NetworkInput("rtsp://cam/a@b").shown == "rtsp://cam/a@b")
        // Even the error for a URL that is refused hides it.
        #expect {
            try NetworkInput("ftp://u:hidden@host/x")
        } throws: { error in
            let m = (error as? UsageError)?.message ?? ""
            return m.contains("ftp://u:***@host/x") && !m.contains("hidden")
        }
    }

    /// The receiving pipeline: uridecodebin, video to I420 into one appsink, and audio
    /// (only when asked for) into another.
    @Test func theReceivingPipeline() throws {
        let withAudio = try NetworkInput("rtsp://cam/s").description(audio: true).text
        #expect(withAudio.hasPrefix("uridecodebin name=d uri=\"rtsp://cam/s\""))
        #expect(withAudio.contains("appsink name=video sync=true"))
        #expect(
            withAudio.contains("queue name=aq ! audioconvert ! audioresample ! \(Relay.audioCaps) ! appsink name=audio")
        )
        let videoOnly = try NetworkInput("udp://:5000").description(audio: false).text
        #expect(!videoOnly.contains("audio"), "\(videoOnly)")
        #expect(videoOnly.contains("caps=\"video/x-raw(ANY)\""))
    }

    @Test func reconnectedRecordingsAreNumbered() {
        #expect(Relay.numbered("rec.mp4", 0) == "rec.mp4")
        #expect(Relay.numbered("rec.mp4", 1) == "rec-1.mp4")
        #expect(Relay.numbered("/var/rec/cam1.2024.mkv", 3) == "/var/rec/cam1.2024-3.mkv")
        #expect(Relay.numbered("/var/rec.d/cam", 2) == "/var/rec.d/cam-2")
    }

    /// The first retry within 2 s, doubling, never more than 10 s apart.
    @Test func backoff() {
        #expect((0..<8).map { Relay.backoff($0) / 1_000_000_000 } == [1, 2, 4, 8, 10, 10, 10, 10])
    }

    @Test func anRTSPOutputMayAskForAUserAndPassword() throws {
        guard
            case .rtsp("127.0.0.1", 8554, "/cam", "admin", "pw:x") = try StreamTarget(
                "rtsp://admin:pw:x@127.0.0.1:8554/cam")
        else {
            Issue.record("credentials not parsed")
            return
        }
        #expect(throws: UsageError.self) { try StreamTarget("rtsp://admin@127.0.0.1:8554/cam") }
    }

    /// A relayed recording: appsrcs in place of the source, AAC audio from the relay.
    @Test func theRelayedOutput() {
        let plan = VideoPipeline(
            source: .relay, overlay: Overlay(),
            encoder: VideoEncoder(codec: .h264, settings: .live(bitrate: 2500), fps: 30),
            output: .segments(pattern: "r-%05d.mp4", container: .mp4, seconds: 60))
        var p = plan
        p.audio.append(Relay.audioBranch(to: plan.output.audioPad))
        let text = p.description.text
        #expect(text.contains("appsrc name=video format=time is-live=true"))
        #expect(text.contains("appsrc name=audio format=time is-live=true"))
        #expect(text.contains("avenc_aac ! aacparse ! queue ! mux.audio_%u"))
    }
}

/// A pipeline that cannot be built for want of an element names the Debian package to install.
@Suite struct MissingElementTests {
    @Test func theElementIsTakenFromGStreamersMessage() {
        #expect(quotedName("no element \"avenc_aac\"") == "avenc_aac")
        #expect(quotedName("no element \"\"") == nil)
        #expect(quotedName("no property \"x\" in element \"y\"") == "x")
        #expect(quotedName("unquoted") == nil)
    }

    @Test func eachElementIsNamedWithItsPackage() {
        #expect(debianPackage(providing: "avenc_aac") == "gstreamer1.0-libav")
        #expect(debianPackage(providing: "avdec_h264") == "gstreamer1.0-libav")
        #expect(debianPackage(providing: "x264enc") == "gstreamer1.0-plugins-ugly")
        #expect(debianPackage(providing: "srtsrc") == "gstreamer1.0-plugins-bad")
        #expect(debianPackage(providing: "rtspsrc") == "gstreamer1.0-plugins-good")
        #expect(debianPackage(providing: "queue") == "libgstreamer1.0-0")
        #expect(debianPackage(providing: "nosuchelement") == nil)
    }

    /// Every element in the table is one that GStreamer has here (scripts/install-deps installs
    /// each package), so a misspelt name cannot hide in it.
    @Test func theTableNamesRealElements() {
        let (status, listing) = TestEnv.run(["gst-inspect-1.0"])
        #expect(status == 0)
        // gst-inspect-1.0 lists one "plugin:  element: description" line per feature.
        var installed = Set<String>()
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2)
            if fields.count == 3 { installed.insert(String(fields[1].filter { $0 != " " })) }
        }
        #expect(installed.count > 500, "gst-inspect-1.0 listed \(installed.count) features")
        for (package, elements) in gstreamerPackages {
            for element in elements.sorted() {
                #expect(installed.contains(element), "\(element) (\(package)) is not in GStreamer's registry")
            }
        }
    }
}
