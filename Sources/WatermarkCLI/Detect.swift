import CGStreamer
import CGstApp
import Glibc
import Watermark
import WatermarkModel

/// Ids as the command line and a manifest give them: 16 hexadecimal digits stand for
/// themselves; any other text (an e-mail address, an order number) for the first 64 bits
/// of its SHA-256.
package enum ForensicID {
    package static func normalised(_ text: String) -> String {
        if let id = ForensicCode.parseID(text) { return ForensicCode.hex(id) }
        return ForensicKey.digest(text).prefix(8).map { b in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }

    /// `--forensic-key` or the text of `--forensic-key-file` (one trailing newline dropped).
    package static func key(from p: OptionParser) throws(UsageError) -> String? {
        if let file = p.string("forensic-key-file") {
            if p.string("forensic-key") != nil {
                throw UsageError(message: "give --forensic-key or --forensic-key-file, not both")
            }
            switch readFile(file, limit: 1 << 20) {
            case .success(let bytes):
                var text = String(decoding: bytes, as: UTF8.self)
                if text.hasSuffix("\r\n") {
                    text.removeLast(1)
                } else if text.hasSuffix("\n") {
                    text.removeLast()
                }
                guard !text.isEmpty else { throw UsageError(message: "--forensic-key-file: \(file) is empty") }
                return text
            case .failure(let e): throw UsageError(message: "--forensic-key-file: \(file): \(e.reason)")
            }
        }
        if let key = p.string("forensic-key"), key.isEmpty {
            throw UsageError(message: "--forensic-key: the key is empty")
        }
        return p.string("forensic-key")
    }
}

/// `gst-watermark detect`: decodes a suspect file's video (GRAY8: only the luma is read),
/// sums its frames into the detector and asks it for a verdict now and then, stopping as
/// soon as an id is certain.
package struct DetectJob {
    package var input: String
    package var key: String
    /// Frames read at most (60 s at 30 fps): a verdict of nothing found comes after them.
    package var maxFrames = 1800

    package init(input: String, key: String) {
        self.input = input
        self.key = key
    }

    /// When to ask for a verdict: early, then less often (each costs a fold of the sum).
    static func asks(at frames: Int) -> Bool {
        [20, 45, 90, 150, 225, 300].contains(frames) || (frames > 300 && frames % 150 == 0)
    }

    package func run() throws(RunFailure) -> ForensicVerdict {
        guard access(input, R_OK) == 0 else { throw RunFailure(message: "\(input): \(systemError())") }
        let description = LaunchDescription([
            Branch([
                Step("filesrc", [("location", .quoted(input))]),
                Step("decodebin"),
                Step("videoconvert", [("n-threads", "2")]),
                Step("capsfilter", [("caps", "video/x-raw,format=GRAY8")]),
                Step("appsink", [("name", "s"), ("sync", "false"), ("max-buffers", "8")]),
            ])
        ]).text
        let pipeline = try parsedPipeline(description)
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
        guard let sinkElement = gst_bin_get_by_name(bin, "s") else { throw RunFailure(message: "no appsink") }
        defer { gst_object_unref(UnsafeMutableRawPointer(sinkElement)) }
        let sink = UnsafeMutableRawPointer(sinkElement).assumingMemoryBound(to: GstAppSink.self)
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        let pattern = ForensicPattern(digest: ForensicKey.digest(key))
        var detector: ForensicDetector?
        var verdict = ForensicVerdict(score: 0, frames: 0)
        while let sample = gst_app_sink_try_pull_sample(sink, 30 * 1_000_000_000) {
            defer { gst_sample_unref(sample) }
            var info = GstVideoInfo()
            guard let caps = gst_sample_get_caps(sample), gst_video_info_from_caps(&info, caps) != 0,
                let buffer = gst_sample_get_buffer(sample)
            else { continue }
            let width = Int(info.width), height = Int(info.height)
            if detector == nil { detector = ForensicDetector(pattern: pattern, width: width, height: height) }
            // A change of size mid-stream: the frames that match the first size are summed.
            guard let d = detector, d.width == width, d.height == height else { continue }
            var map = GstMapInfo()
            guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { continue }
            let stride = Int(element(info.stride, 0))
            if let data = map.data, stride >= width, map.size >= stride * (height - 1) + width {
                d.add(luma: data, stride: stride)
            }
            gst_buffer_unmap(buffer, &map)
            if Self.asks(at: d.frames) {
                verdict = d.detect()
                if verdict.id != nil { return verdict }
            }
            if d.frames >= maxFrames { break }
        }
        if let bus = gst_element_get_bus(pipeline) {
            defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
            if detector == nil, let msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR) {
                defer { gst_message_unref(msg) }
                var error: UnsafeMutablePointer<GError>?
                gst_message_parse_error(msg, &error, nil)
                let text = error.map { String(cString: $0.pointee.message) } ?? "cannot be decoded"
                if let error { g_error_free(error) }
                throw RunFailure(message: "\(input): \(text)")
            }
        }
        guard let detector, detector.frames > 0 else { throw RunFailure(message: "\(input): no video frames") }
        return detector.frames == verdict.frames ? verdict : detector.detect()
    }

    /// The manifest row whose `forensic-id` is `id`: its output (as written; its input when
    /// it has none) and id text.
    package static func candidate(_ id: UInt64, manifest path: String) throws(UsageError) -> (
        output: String, idText: String
    )? {
        let bytes: [UInt8]
        switch readFile(path, limit: 256 << 20) {
        case .success(let b): bytes = b
        case .failure(let e): throw UsageError(message: "--candidates: \(path): \(e.reason)")
        }
        let table: ManifestTable
        do {
            table = try ManifestTable.parse(bytes, file: path)
        } catch {
            throw UsageError(message: error.description)
        }
        let hex = ForensicCode.hex(id)
        for row in table.rows {
            guard let text = row.values["forensic-id"], ForensicID.normalised(text) == hex else { continue }
            return (row.values["output"] ?? row.values["input"] ?? "", text)
        }
        return nil
    }
}

/// Reads element `index` of a C array imported as a tuple of Int32.
private func element<T>(_ tuple: T, _ index: Int) -> Int32 {
    withUnsafeBytes(of: tuple) { $0.load(fromByteOffset: index * 4, as: Int32.self) }
}

/// `gst-watermark detect SUSPECT --forensic-key KEY [--candidates MANIFEST] [--json]`.
package func detectCommand(_ args: [String]) throws(UsageError) -> Int32 {
    let p = OptionParser(
        parameters: "SUSPECT",
        summary: """
            Reads the invisible forensic mark from a file (any container and codec GStreamer \
            reads), after re-encoding, scaling, cropping or a new frame rate, without the \
            original: prints "forensic-id: ID" (exit 0) or "no forensic mark found" (exit 1).

            Example:
              gst-watermark detect leaked.mp4 --forensic-key-file key.txt --candidates recipients.csv
            """)
    p.add("forensic-key", nil, .string, "The key the copies were marked with", arg: "KEY")
    p.add("forensic-key-file", nil, .string, "A file holding the key (a trailing newline is dropped)", arg: "FILE")
    p.add(
        "candidates", nil, .string,
        "The batch manifest the copies were made from: prints the row whose forensic-id "
            + "matches", arg: "MANIFEST")
    p.add("json", nil, .flag, "One JSON object: forensic-id (or null), score, frames, candidate")
    let positional = try p.start(program: "gst-watermark detect", args)
    guard positional.count == 1 else { throw UsageError(message: "detect takes one file: SUSPECT") }
    guard let key = try ForensicID.key(from: p) else {
        throw UsageError(message: "detect needs --forensic-key KEY or --forensic-key-file FILE")
    }
    let verdict: ForensicVerdict
    do {
        verdict = try DetectJob(input: positional[0], key: key).run()
    } catch {
        printErr("gst-watermark: \(error.message)")
        return 2
    }
    let candidate = try verdict.id.flatMap { id throws(UsageError) in
        try p.string("candidates").flatMap { path throws(UsageError) in try DetectJob.candidate(id, manifest: path) }
    }
    if p.flag("json") {
        var members: [(String, String)] = [
            ("forensic-id", verdict.id.map { JSONText.quoted(ForensicCode.hex($0)) } ?? "null"),
            ("score", JSONText.number((verdict.score * 100).rounded() / 100)), ("frames", "\(verdict.frames)"),
        ]
        if let candidate {
            members.append(
                (
                    "candidate",
                    JSONText.object([
                        ("output", JSONText.quoted(candidate.output)),
                        ("forensic-id", JSONText.quoted(candidate.idText)),
                    ])
                ))
        }
        print(JSONText.object(members))
    } else if let id = verdict.id {
        print("forensic-id: \(ForensicCode.hex(id))")
        if let candidate { print("candidate: \(candidate.output) \(candidate.idText)") }
    } else {
        print("no forensic mark found")
    }
    return verdict.id == nil ? 1 : 0
}
