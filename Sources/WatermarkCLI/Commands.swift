import CGStreamer
import CShim
import Glibc
import Watermark
import WatermarkModel

/// What the encoder and muxer stages look like for an output file.
package struct OutputSpec {
    package let path: String
    package let muxer: String
    package let videoEncoder: String
    package let videoParser: String
    /// The encoder element's factory name (what a status report shows).
    package let encoderName: String
    /// `H.264` or `H.265`.
    package let codecName: String

    /// `fps` is the frame rate the encoder gets (nil: unknown), for `--keyframe-interval`;
    /// `options` are extra x264/x265 options.
    package init(path: String, codec: String, encoding: EncoderSettings, fps: Double?, options: [String] = [])
        throws(UsageError)
    {
        self.path = path
        muxer = try Self.muxer(for: path)
        try encoding.check(codec: codec)
        videoEncoder = encoding.element(codec: codec, fps: fps, options: options)
        encoderName = codec == "h265" ? "x265enc" : "x264enc"
        videoParser = codec == "h265" ? "h265parse" : "h264parse"
        codecName = codec == "h265" ? "H.265" : "H.264"
    }

    /// The muxer for the container `path`'s extension names.
    package static func muxer(for path: String) throws(UsageError) -> String {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "mp4", "m4v": return "mp4mux name=mux faststart=true"
        case "mov": return "qtmux name=mux faststart=true"
        case "mkv": return "matroskamux name=mux"
        default:
            throw UsageError(message: "\(path): unknown container \".\(ext)\" (use .mp4, .mov or .mkv)")
        }
    }

    /// Fails early, with the reason, when the output cannot be written.
    package func checkWritable() throws(UsageError) {
        var dir = "."
        if let slash = path.lastIndex(of: "/") {
            dir = String(path[..<slash])
            if dir.isEmpty { dir = "/" }
        }
        var st = stat()
        if stat(dir, &st) != 0 {
            throw UsageError(message: "cannot write \(path): \(dir): \(String(cString: strerror(errno)))")
        }
        if access(dir, W_OK) != 0 {
            throw UsageError(message: "cannot write \(path): \(dir): \(String(cString: strerror(errno)))")
        }
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            throw UsageError(message: "cannot write \(path): it is a directory")
        }
    }
}

package func addTestSourceOptions(_ p: OptionParser) {
    p.add("test-source", nil, .flag, "Use a built-in test picture and tone instead of an input")
    p.add("size", nil, .string, "Test source frame size WIDTHxHEIGHT (default 1280x720)", arg: "WxH")
    p.add("fps", nil, .int, "Test source frame rate (default 30)", arg: "N")
}

package func parseSize(_ text: String?) throws(UsageError) -> (Int, Int) {
    guard let text else { return (1280, 720) }
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (16...8192).contains(w),
        (16...8192).contains(h)
    else {
        throw UsageError(message: "--size: \"\(text)\" is not WIDTHxHEIGHT (16..8192)")
    }
    return (w, h)
}

/// GOption's GStreamer group has initialised GStreamer; add the linked-in element.
package func registerElement() {
    gst_init(nil, nil)
    WatermarkPlugin.register()
}

/// Prints `description` as a gst-launch-1.0 command line a shell can run. gst-launch
/// treats each argument as one word of the description, so the description is split into
/// its words (keeping quoted values whole) and each word is quoted for the shell.
/// `--fps` for a test source, 30 by default.
package func parseFPS(_ p: OptionParser) throws(UsageError) -> Int {
    let fps = p.int("fps") ?? 30
    guard (1...240).contains(fps) else { throw UsageError(message: "--fps: \(fps) is out of range (1..240)") }
    return fps
}

/// Fails early, naming the reason, when a camera device cannot be opened.
package func checkDevice(_ device: String) throws(UsageError) {
    if access(device, R_OK) != 0 {
        throw UsageError(message: "\(device): \(String(cString: strerror(errno))) (use --device or --test-source)")
    }
}

package func printPipeline(_ description: String) {
    print((["gst-launch-1.0", "-e"] + LaunchLine.words(description).map(LaunchLine.shellWord)).joined(separator: " "))
}

// MARK: capture

struct Reframe: Sendable {
    let rw: Int
    let rh: Int

    init(ratio: String) throws(UsageError) {
        let parts = ratio.split(separator: ":")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...100).contains(w),
            (1...100).contains(h)
        else {
            throw UsageError(message: "--reframe: \"\(ratio)\" is not W:H (for example 9:16)")
        }
        (rw, rh) = (w, h)
    }

    func stage(width: Int, height: Int) throws(UsageError) -> String {
        guard width > 0, height > 0 else { throw UsageError(message: "--reframe: the input's frame size is unknown") }
        var cw = width, ch = height
        if width * rh > height * rw {
            cw = min(width, (height * rw / rh) & ~1)
        } else {
            ch = min(height, (width * rh / rw) & ~1)
        }
        let left = (width - cw) / 2, top = (height - ch) / 2
        let short = min(width, height)
        var ow = cw, oh = ch
        if cw < ch {
            ow = short
            oh = short * rh / rw
        } else {
            oh = short
            ow = short * rw / rh
        }
        ow &= ~1
        oh &= ~1
        return "videocrop left=\(left) right=\(width - cw - left) top=\(top) bottom=\(height - ch - top) ! "
            + "videoscale ! video/x-raw,width=\(ow),height=\(oh),pixel-aspect-ratio=1/1"
    }
}
