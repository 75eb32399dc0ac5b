// A network camera or feed as the input of `capture` and `stream`: the URL, checked and
// shown without its password, and the pipeline that receives and decodes it (uridecodebin,
// so that RTSP, SRT, RTMP, UDP MPEG-TS, HLS and MJPEG over HTTP are decoded whatever their
// packetisation) into the raw frames and audio the relay hands on.

/// A network input's URL.
package struct NetworkInput: Equatable, Sendable {
    package enum Kind: String, Equatable, Sendable {
        case rtsp, srt, rtmp, udp, http
    }

    /// The URL as GStreamer takes it (`udp://:5000` becomes `udp://0.0.0.0:5000`).
    package let uri: String
    package let kind: Kind
    /// `rtsp://` camera: the jitter buffer's latency, milliseconds.
    package var latency = 200

    static let schemes: [(scheme: String, kind: Kind)] = [
        ("rtsp", .rtsp), ("rtsps", .rtsp), ("rtspt", .rtsp), ("rtspu", .rtsp), ("srt", .srt), ("rtmp", .rtmp),
        ("rtmps", .rtmp), ("udp", .udp), ("http", .http), ("https", .http),
    ]

    /// Whether a command-line argument is a URL rather than a file or device path.
    package static func looksLikeURL(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex else { return false }
        let scheme = text[..<colon]
        return scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }
            && text[colon...].hasPrefix("://")
    }

    package init(_ url: String) throws(UsageError) {
        guard let sep = url.firstIndex(of: ":"), url[sep...].hasPrefix("://") else {
            throw UsageError(message: "\(url): not a URL")
        }
        let scheme = url[..<sep].lowercased()
        guard let kind = Self.schemes.first(where: { $0.scheme == scheme })?.kind else {
            throw UsageError(
                message:
                    "\(Self.hidingPassword(url)): unsupported input \"\(scheme)://\" (rtsp://, rtspt://, rtsps://, srt://, rtmp://, udp://, http(s):// for HLS or MJPEG)"
            )
        }
        let rest = url[url.index(sep, offsetBy: 3)...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        var uri = url
        switch kind {
        case .udp, .srt:
            // A receiving socket: udp://:PORT or udp://@:PORT (as ffmpeg writes it) listens on
            // every address, udp://GROUP:PORT joins a multicast group.
            guard let colon = hostPort.lastIndex(of: ":"), let port = Int(hostPort[hostPort.index(after: colon)...]),
                (1...65535).contains(port)
            else {
                throw UsageError(message: "\(Self.hidingPassword(url)): expected \(scheme)://HOST:PORT")
            }
            var host = String(hostPort[..<colon])
            if host == "@" { host = "" }
            if kind == .udp && host.isEmpty {
                uri = "udp://0.0.0.0:\(port)" + rest.dropFirst(authority.count)
            }
        default:
            guard !hostPort.isEmpty else {
                throw UsageError(message: "\(Self.hidingPassword(url)): no host in the URL")
            }
        }
        self.uri = uri
        self.kind = kind
    }

    /// The URL as messages show it: `rtsp://admin:***@cam/stream`.
    package var shown: String { Self.hidingPassword(uri) }

    static func hidingPassword(_ url: String) -> String {
        guard let sep = url.firstIndex(of: ":"), url[sep...].hasPrefix("://") else { return url }
        let start = url.index(sep, offsetBy: 3)
        let authorityEnd = url[start...].firstIndex { $0 == "/" || $0 == "?" } ?? url.endIndex
        guard let at = url[start..<authorityEnd].lastIndex(of: "@"),
            let colon = url[start..<at].firstIndex(of: ":")
        else { return url }
        return String(url[...colon]) + "***" + String(url[at...])
    }

    /// The receiving pipeline: uridecodebin (named `d`), its video converted to I420 in a
    /// caps filter named `size` (the relay fixes the size there once the first connection
    /// has shown it), into the appsink `video`; its audio as 48 kHz stereo into `audio`.
    /// The sinks hand frames on at their time (sync), so the relay sees a camera's pace.
    package func description(audio: Bool) -> LaunchDescription {
        let caps = audio ? "video/x-raw(ANY);audio/x-raw(ANY)" : "video/x-raw(ANY)"
        var branches = [
            Branch([
                Step(
                    "uridecodebin",
                    [("name", "d"), ("uri", .quoted(uri)), ("caps", .quoted(caps)), ("expose-all-streams", "false")])
            ]),
            Branch(
                from: "d.",
                [
                    Step.queue(frames: 3), Step("videoconvert"), Step("videoscale"),
                    Step("capsfilter", [("name", "size"), ("caps", .quoted("video/x-raw,format=I420"))]),
                    Step.relaySink("video"),
                ]),
        ]
        if audio {
            branches.append(
                Branch(
                    from: "d.",
                    [
                        Step("queue", [("name", "aq")]), Step("audioconvert"), Step("audioresample"),
                        Step.caps("audio/x-raw", Relay.audioFields), Step.relaySink("audio"),
                    ]))
        }
        return LaunchDescription(branches)
    }
}

extension Step {
    /// An appsink the relay pulls from: at the buffers' time, never holding up the
    /// pipeline's start (a stream without audio leaves the audio sink without data).
    static func relaySink(_ name: String) -> Step {
        Step(
            "appsink",
            [("name", .bare(name)), ("sync", "true"), ("async", "false"), ("max-buffers", "8"), ("drop", "true")])
    }

    /// The output pipeline's appsrc the relay pushes into: live, in time, dropping the
    /// oldest when the encoder falls behind rather than growing.
    static func relaySource(_ name: String, caps: String? = nil) -> Step {
        var props: [(name: String, value: Step.Value)] = [
            ("name", .bare(name)), ("format", "time"), ("is-live", "true"), ("max-buffers", "8"),
            ("max-bytes", "0"), ("max-time", "0"), ("leaky-type", "downstream"),
        ]
        if let caps { props.append(("caps", .quoted(caps))) }
        return Step("appsrc", props)
    }
}

extension Relay {
    /// The output's audio from the relay: the appsrc `audio`, encoded to AAC, into `pad`.
    package static func audioBranch(to pad: String?) -> Branch {
        Branch([Step.relaySource("audio", caps: audioCaps), Step("queue")] + AudioEncode.steps, to: pad)
    }

    /// The file a recording's `n`-th connection goes to: `rec.mp4`, then `rec-1.mp4`,
    /// `rec-2.mp4`… (a segment pattern goes on numbering by itself).
    package static func numbered(_ path: String, _ n: Int) -> String {
        guard n > 0 else { return path }
        let slash = path.lastIndex(of: "/")
        if let dot = path.lastIndex(of: "."), slash.map({ $0 < dot }) ?? true, dot != path.startIndex {
            return String(path[..<dot]) + "-\(n)" + String(path[dot...])
        }
        return path + "-\(n)"
    }

    /// `--no-reconnect`, `--max-retries` and `--latency`, shared by capture and stream.
    package static func addOptions(to p: OptionParser) {
        p.add("latency", nil, .int, "rtsp:// input: the jitter buffer's latency in ms (default 200)", arg: "MS")
        p.add(
            "max-retries", nil, .int,
            "Network input: give up after this many failed reconnects in a row (default: never; 0: the first failure ends the run with exit 1)",
            arg: "N")
        p.add("no-reconnect", nil, .flag, "Network input: end the run when the input is lost (as --max-retries 0)")
    }

    /// The options' values for a relay of `input`.
    package mutating func apply(_ p: OptionParser) throws(UsageError) {
        if let latency = p.int("latency") {
            guard (0...10_000).contains(latency) else { throw UsageError(message: "--latency: must be 0..10000 ms") }
            input.latency = latency
        }
        if let n = p.int("max-retries") {
            guard n >= 0 else { throw UsageError(message: "--max-retries: must be >= 0") }
            maxRetries = n
        }
        if p.flag("no-reconnect") { maxRetries = 0 }
    }

    /// `--duration`.
    package mutating func stop(afterSeconds seconds: Double?) throws(UsageError) {
        guard let seconds else { return }
        guard seconds > 0 else { throw UsageError(message: "--duration: must be > 0") }
        stopAfter = UInt64(seconds * 1e9)
    }
}
