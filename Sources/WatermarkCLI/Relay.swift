// A network input, relayed: the input is received in a pipeline of its own (restarted on
// every reconnect) and its frames and audio are handed to the output pipeline's appsrcs
// with the output's times. The output never sees the input come and go:
// - a recording finishes its files when the input is lost (every file stays playable) and
//   starts the next file, or the next numbered segment, when it is back;
// - a restream keeps its output and its receivers, and sends a "no signal" slate while
//   the input is away.
// The source's streaming threads only push buffers (and hold the first ones until the
// output runs); every state change happens on the thread that calls `run()`.

import CGStreamer
import CGstApp
import Glibc
import Synchronization
import Watermark

package struct Relay {
    /// The audio the input is converted to (the output's appsrc takes these caps).
    static let audioFields: [(name: String, value: Step.Value)] = [
        ("format", "S16LE"), ("layout", "interleaved"), ("rate", "48000"), ("channels", "2"),
    ]
    package static var audioCaps: String { Step.caps("audio/x-raw", audioFields).text }

    package enum Mode: Sendable {
        /// A new output (file or segments) per connection: `output(n, audio)` for the n-th.
        case record
        /// One output for the whole run, with a slate while the input is away.
        case restream
    }

    package var input: NetworkInput
    package var mode: Mode
    /// Whether to relay the input's audio (when it has one).
    package var audio: Bool
    /// The output pipeline for connection `n` (0: the first), with or without audio.
    package var output: (_ connection: Int, _ audio: Bool) -> String
    /// Retries after a failure before giving up (nil: for ever; 0: the first failure ends).
    package var maxRetries: Int?
    /// Stop after this many nanoseconds (--duration).
    package var stopAfter: UInt64?
    /// A restream's network output (errors from its sink are the receiver's; with
    /// `retryInterval` it is started again until the receiver is back).
    package var network: PipelineRunner.NetworkOutput?
    /// Called with each output pipeline before it starts (live control).
    package var configure: ((UnsafeMutablePointer<GstElement>) -> Void)?
    /// Told every error and warning line printed.
    package var onMessage: ((_ error: Bool, _ text: String) -> Void)?
    /// Text of the slate a restream shows while the input is away.
    package var slateText = "NO SIGNAL"

    /// Without a frame for this long, a connected input counts as lost: a recording ends its
    /// file then, so it waits 5 s; a restream's receivers see the last frame and then the
    /// slate either way, so it tries the input again after 2 s (frame arrival is watched,
    /// not only the connection: SRT's own idle timeout is 5 s).
    package var stallTimeout: UInt64
    /// A restream's frame rate, when the input's caps have none (`--fps`).
    package var fps = 30
    /// A new connection that gives no frame in this long has failed.
    package var connectTimeout: UInt64 = 20_000_000_000
    /// A restream shows the slate after this long without a frame.
    package var slateAfter: UInt64 = 1_000_000_000
    /// The wait before the n-th retry (n from 0): 1 s, 2 s, 4 s, 8 s, then 10 s.
    package static func backoff(_ n: Int) -> UInt64 {
        UInt64(min(10, 1 << min(n, 4))) * 1_000_000_000
    }

    package init(
        input: NetworkInput, mode: Mode, audio: Bool, output: @escaping (_ connection: Int, _ audio: Bool) -> String
    ) {
        self.input = input
        self.mode = mode
        self.audio = audio
        self.output = output
        stallTimeout = mode == .restream ? 2_000_000_000 : 5_000_000_000
    }

    /// The receiving pipeline's description.
    package var sourceDescription: String { input.description(audio: audio).text }

    /// What --print-pipeline shows: the two pipelines and how frames pass between them.
    package var printed: String {
        """
        # input (started again on every reconnect); its appsinks hand frames and audio to the output's appsrcs
        gst-launch-1.0 \(sourceDescription)
        # output\(mode == .record ? " (a new file, or the next segment, after each reconnect)" : ", kept through reconnects")
        gst-launch-1.0 \(output(0, audio))
        """
    }

    package func runReporting() -> Int32 {
        do {
            try run()
        } catch {
            say("gst-watermark: \(error.message)", error: true)
            return 1
        }
        return 0
    }

    private func say(_ line: String, error: Bool = false) {
        printErr(line)
        onMessage?(error, line)
    }

    // MARK: the loop

    package func run() throws(RunFailure) {
        let shared = RelayShared(
            defaultInterval: mode == .restream ? 1_000_000_000 / UInt64(max(1, fps)) : nil, slateAfter: slateAfter)
        let keep = Unmanaged.passRetained(shared)
        defer { keep.release() }
        let pacer = mode == .restream ? NamedThread.start("relay-pace") { shared.runPacer() } : nil
        defer {
            shared.stopPacing()
            if let pacer { NamedThread.join(pacer) }
        }
        var source: SourcePipeline?
        var out: OutputPipeline?
        var connections = 0
        var failures = 0
        var connectedOnce = false
        var lostAt: UInt64?
        var retryAt: UInt64? = 0
        var fragments = 0
        var outputRetryAt: UInt64?
        let start = monotonicNanos()
        Interrupt.install()
        defer {
            source?.stop(shared)
            out?.close(shared)
        }

        /// Ends the recording's open file (restream: the stream) with an EOS, and waits.
        func finishOutput() {
            guard let o = out else { return }
            o.finish(shared, timeout: network == nil ? 30_000_000_000 : 5_000_000_000)
            fragments += o.fragmentsOpened
            out = nil
        }

        /// The input failed or went away: retry (or give up) after finishing what needs it.
        func lost(_ reason: String, fatal: Bool = false) throws(RunFailure) {
            let wasConnected = lostAt == nil && connectedOnce
            if wasConnected { lostAt = monotonicNanos() }
            var failure: RunFailure?
            var wait: UInt64 = 0
            if fatal {
                failure = RunFailure(message: "\(input.shown): \(reason)")
            } else if let maxRetries, failures >= maxRetries {
                failure = RunFailure(
                    message: "\(input.shown): \(reason)"
                        + (maxRetries > 0 ? " (gave up after \(maxRetries) retries)" : ""))
            } else {
                wait = Self.backoff(failures)
                failures += 1
                let retry = "retrying in \(Int(wait / 1_000_000_000)) s"
                if wasConnected {
                    say("input lost: \(input.shown): \(reason); \(retry)")
                } else if connectedOnce {
                    say("input still away: \(reason); \(retry)")
                } else {
                    say("cannot reach input: \(input.shown): \(reason); \(retry)")
                }
            }
            // The line goes out first: closing the input can take seconds (SRT lingers).
            source?.stop(shared)
            source = nil
            shared.connectionEnded()
            if mode == .record { finishOutput() }
            if let failure { throw failure }
            retryAt = monotonicNanos() + wait
        }

        while true {
            let now = monotonicNanos()
            let stopping =
                Interrupt.requested.load(ordering: .relaxed) != 0 || stopAfter.map { now - start >= $0 } == true
            if stopping {
                source?.stop(shared)
                source = nil
                if out != nil {
                    printErr("stopping: finishing the output…")
                    finishOutput()
                }
                if Interrupt.requested.load(ordering: .relaxed) != 0 { printErr("stopped; output finalized") }
                if !connectedOnce {
                    throw RunFailure(message: "\(input.shown): nothing received: the input never sent a frame")
                }
                return
            }

            // (Re)connect.
            if source == nil, let at = retryAt, now >= at {
                retryAt = nil
                // A restream's input is scaled to the size its output started with.
                let size = mode == .restream ? out.flatMap { Self.sizeCaps($0.videoCaps) } : nil
                defer { if let size { gst_caps_unref(size) } }
                do {
                    source = try SourcePipeline(
                        description: sourceDescription, input: input, shared: shared, size: size)
                } catch {
                    try lost(error.message)
                    continue
                }
            }

            // The input's messages.
            if let s = source {
                switch s.poll() {
                case .none: break
                // gst_parse_launch's link to the audio branch fails for a stream without audio.
                case .warning(let text) where text.hasPrefix("Delayed linking failed"): break
                // A dropping connection warns before it fails ("The server closed the
                // connection"): the loss is one line, its warnings are for --verbose.
                case .warning(let text):
                    if Diagnostics.verbose.load(ordering: .relaxed) { say("warning: \(input.shown): \(text)") }
                case .ended where s.isPlaylist:
                    // An HLS playlist with an end (#EXT-X-ENDLIST) is a whole recording.
                    printErr("the input's playlist ended")
                    finishOutput()
                    return
                case .ended: try lost("the input ended (the camera or sender stopped)")
                case .failed(let text, let fatal): try lost(text, fatal: fatal)
                }
            }

            // The output's messages.
            if let o = out {
                switch o.poll() {
                case .none: break
                case .warning(let text): say("warning: " + text)
                case .ended:
                    // Only an EOS the relay sent ends an output.
                    break
                case .failed(let text, _):
                    if let network, o.comesFrom(network.sink) {
                        let what = "\(network.destination): the receiver is unreachable or went away (\(text))"
                        guard let interval = network.retryInterval else {
                            throw RunFailure(message: what + "; --reconnect keeps trying")
                        }
                        say("gst-watermark: \(what); trying again every \(Double(interval) / 1e9) s", error: true)
                        o.pause(shared)
                        outputRetryAt = monotonicNanos() + interval
                    } else {
                        throw RunFailure(message: text)
                    }
                }
            }
            if let at = outputRetryAt, monotonicNanos() >= at, let o = out {
                outputRetryAt = nil
                if !o.resume(shared) { outputRetryAt = monotonicNanos() + (network?.retryInterval ?? 2_000_000_000) }
            }

            // The first frame of a connection: start the output (or go on with it).
            if let s = source, shared.hasPendingVideo {
                if out == nil {
                    let withAudio = audio && s.hasAudio
                    let description = output(mode == .record ? connections : 0, withAudio)
                    do {
                        out = try OutputPipeline(
                            description: description, fragmentStart: fragments, configure: configure)
                    } catch {
                        throw RunFailure(message: error.message)
                    }
                    connections += 1
                }
                if let o = out {
                    shared.attach(outputRetryAt == nil ? o : nil)
                    if let lost = lostAt {
                        say("input back after \(seconds(monotonicNanos() - lost)) s")
                        lostAt = nil
                    } else if !connectedOnce {
                        printErr("input connected: \(input.shown)")
                    }
                    connectedOnce = true
                    failures = 0
                    // The slate is made once, as soon as the output's caps are known, so the
                    // pacer has it the moment the input goes away.
                    if mode == .restream, !shared.hasSlate {
                        shared.setSlate(Slate.frame(caps: o.videoCaps, text: slateText))
                    }
                }
            }
            // The first frame with the camera's time (after its first RTCP sender report).
            if let offset = shared.takeCameraOffset() { printErr(Self.cameraClockLine(offset)) }

            // Stalls and connections that never give a frame.
            if let s = source {
                let (frames, last) = shared.progress
                if frames > 0, now > last, now - last > stallTimeout {
                    try lost("no frames for \(stallTimeout / 1_000_000_000) s")
                    continue
                } else if frames == 0, now > s.started, now - s.started > connectTimeout {
                    try lost("no video within \(connectTimeout / 1_000_000_000) s of connecting")
                    continue
                }
            }

            usleep(10_000)
        }
    }

    /// `video/x-raw,format=I420,width=W,height=H` of the caps (which it takes).
    static func sizeCaps(_ caps: UnsafeMutablePointer<GstCaps>?) -> UnsafeMutablePointer<GstCaps>? {
        guard let caps else { return nil }
        defer { gst_caps_unref(caps) }
        guard gst_caps_get_size(caps) > 0, let s = gst_caps_get_structure(caps, 0) else { return nil }
        var w: gint = 0, h: gint = 0
        guard gst_structure_get_int(s, "width", &w) != 0, gst_structure_get_int(s, "height", &h) != 0 else {
            return nil
        }
        return gst_caps_from_string("video/x-raw,format=I420,width=\(w),height=\(h)")
    }

    func seconds(_ nanos: UInt64) -> String {
        let tenths = (nanos + 50_000_000) / 100_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// How the camera's clock compares with this machine's, from the first frame with a
    /// camera time (on one machine, or with both clocks synchronised, this is the delay from
    /// capture to arrival: the network and the jitter buffer, `--latency`).
    static func cameraClockLine(_ offset: Double) -> String {
        let millis = Int((abs(offset) * 1000).rounded())
        let text = "\(millis / 1000).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000)"
        return offset >= 0
            ? "camera clock: frames arrive \(text) s after the camera's time on them"
            : "camera clock: frames arrive \(text) s before the camera's time on them (its clock is ahead of this machine's)"
    }
}
