import Foundation
import GstTestSupport
import Testing

/// Footage made the way phones make it (rotation in the container, 10-bit HLG/PQ HEVC,
/// capture date and place), exported with no extra options, checked with ffprobe and
/// decoded pixels. The clips are made here with ffmpeg and x265 (640×360, 2 s).
@Suite(.serialized) struct PhoneFootageTests {
    static let dir: String = {
        let d = TestEnv.path("phone")
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()
    static let red = GstTest.solidPNG("phone-red.png", width: 32, height: 32, argb: 0xFFFF_0000)
    static let white = GstTest.solidPNG("phone-white.png", width: 32, height: 32, argb: 0xFFFF_FFFF)

    static func ffmpeg(_ args: [String]) throws {
        let (status, log) = TestEnv.run(["ffmpeg", "-v", "error", "-y"] + args)
        guard status == 0 else { throw Failure("ffmpeg \(args.joined(separator: " ")): \(log)") }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    enum Signal: String { case sdr, hlg, pq, bt2020 }

    /// A 2-second 640×360 clip with a tone: H.264 8-bit (SDR) or x265 10-bit (the others).
    static func base(_ signal: Signal, mastering: Bool = false) throws -> String {
        let path = "\(dir)/base-\(signal)\(mastering ? "-md" : "").mp4"
        if FileManager.default.fileExists(atPath: path) { return path }
        var args = [
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi", "-i", "sine=f=440:r=48000", "-t", "2",
            "-c:a", "aac", "-shortest",
        ]
        switch signal {
        case .sdr:
            args += ["-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"]
        default:
            let trc = ["hlg": "arib-std-b67", "pq": "smpte2084", "bt2020": "bt2020-10"][signal.rawValue] ?? ""
            var x265 = "log-level=error:colorprim=bt2020:transfer=\(trc):colormatrix=bt2020nc"
            if mastering {
                x265 +=
                    ":master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)"
                    + ":max-cll=1000,400:hdr10=1"
            }
            args += [
                "-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", x265,
                "-color_primaries", "bt2020", "-color_trc", trc, "-colorspace", "bt2020nc",
            ]
        }
        try ffmpeg(args + [path])
        return path
    }

    /// `source` with a display rotation (clockwise degrees, as a player turns it) in a
    /// `container` (MP4 or QuickTime), without re-encoding: remuxed, then its display matrix
    /// written, the same way for every FFmpeg (5.1 takes `-metadata rotate=`, which 7 ignores;
    /// 7 takes `-display_rotation`, which 5.1 lacks).
    static func rotated(_ source: String, clockwise: Int, container: String) throws -> String {
        let name = "rot\(clockwise)-\((source as NSString).lastPathComponent)"
        let plain = "\(dir)/plain-\(name).\(container)"
        try ffmpeg(["-i", source, "-c", "copy", "-map", "0", plain])
        // (a b; c d) of a clockwise turn, as the tkhd stores it.
        let (a, b, c, d): (Int32, Int32, Int32, Int32) =
            switch clockwise {
            case 90: (0, 1, -1, 0)
            case 180: (-1, 0, 0, -1)
            case 270: (0, -1, 1, 0)
            default: (1, 0, 0, 1)
            }
        return try withMatrix(plain, name, a: a, b: b, c: c, d: d, container: container)
    }

    /// `source` with its first track's display matrix set to (a b; c d) (16.16 signs),
    /// mirrored orientations included, which ffmpeg 5.1 cannot write.
    static func withMatrix(
        _ source: String, _ name: String, a: Int32, b: Int32, c: Int32, d: Int32, container: String = "mp4"
    ) throws -> String {
        var data = try Data(contentsOf: URL(fileURLWithPath: source))
        let tkhd = try #require(data.range(of: Data("tkhd".utf8)))
        // tkhd version 0: after the type, 4 flags + 20 + 8 reserved + 8 (layer, group, volume) bytes.
        let matrix = tkhd.upperBound + 4 + 20 + 8 + 8
        for (i, v) in [a, b, 0, c, d].enumerated() where i != 2 {
            var be = (v << 16).bigEndian
            data.replaceSubrange((matrix + i * 4)..<(matrix + i * 4 + 4), with: Data(bytes: &be, count: 4))
        }
        let path = "\(dir)/\(name).\(container)"
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// ffprobe's fields of a file as key=value lines (streams, side data, format tags).
    static func probe(_ path: String, _ entries: String) -> String {
        TestEnv.run(["ffprobe", "-v", "error", "-show_entries", entries, "-of", "default=nw=1", path]).1
    }

    static func export(_ args: [String]) throws -> String {
        let (status, log) = try CLI.run(["export"] + args)
        guard status == 0 else { throw Failure("export \(args): \(log)") }
        return log
    }

    /// One frame at 1 s as packed RGB (ffmpeg turns it as a player does unless `stored`).
    static func frame(_ path: String, stored: Bool = false) throws -> (w: Int, h: Int, rgb: [UInt8]) {
        let dims = probe(path, "stream=width,height").split(separator: "\n")
        var w = Int(dims.first { $0.hasPrefix("width=") }?.dropFirst(6) ?? "") ?? 0
        var h = Int(dims.first { $0.hasPrefix("height=") }?.dropFirst(7) ?? "") ?? 0
        let raw = "\(dir)/frame-\(UUID().uuidString).rgb"
        defer { unlink(raw) }
        try ffmpeg(
            (stored ? ["-noautorotate"] : []) + [
                "-ss", "1", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", raw,
            ])
        let rgb = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        if rgb.count != w * h * 3 { swap(&w, &h) }
        return (w, h, rgb)
    }

    /// Where stored pixel (x, y) of a w×h frame is shown for a clockwise rotation, and a
    /// horizontal flip before it (the test's own statement of the display matrices).
    static func shown(_ x: Int, _ y: Int, w: Int, h: Int, clockwise: Int, flip: Bool) -> (Int, Int) {
        let fx = flip ? w - 1 - x : x
        switch clockwise {
        case 90: return (h - 1 - y, fx)
        case 180: return (w - 1 - fx, h - 1 - y)
        case 270: return (y, w - 1 - fx)
        default: return (fx, y)
        }
    }

    /// Checks that `output` shows `input`'s stored frame turned (and flipped) as described,
    /// away from the mark, and the red mark at the displayed bottom-right.
    static func checkUpright(input: String, output: String, clockwise: Int, flip: Bool) throws {
        #expect(!probe(output, "stream_side_data=rotation").contains("rotation"), "output carries a rotation")
        let stored = try frame(input, stored: true), out = try frame(output)
        let swapsAxes = clockwise % 180 == 90
        // A frame of another size fails here rather than reading past the pixels below.
        try #require(out.w == (swapsAxes ? stored.h : stored.w) && out.h == (swapsAxes ? stored.w : stored.h))
        try #require(stored.rgb.count == stored.w * stored.h * 3 && out.rgb.count == out.w * out.h * 3)
        var diff = 0, n = 0
        for y in stride(from: 4, to: stored.h - 4, by: 16) {
            for x in stride(from: 4, to: stored.w - 4, by: 16) {
                let (u, v) = shown(x, y, w: stored.w, h: stored.h, clockwise: clockwise, flip: flip)
                if u > out.w * 3 / 4 && v > out.h * 3 / 4 { continue }  // the mark's corner
                for k in 0..<3 {
                    diff += abs(Int(stored.rgb[(y * stored.w + x) * 3 + k]) - Int(out.rgb[(v * out.w + u) * 3 + k]))
                    n += 1
                }
            }
        }
        #expect(Double(diff) / Double(n) < 12, "mean difference \(Double(diff) / Double(n)) per channel")
        // The mark: 32×32 red at 3 % margins from the displayed bottom-right corner.
        let mx = out.w - Int((Double(out.w) * 0.03).rounded()) - 16,
            my = out.h - Int((Double(out.h) * 0.03).rounded()) - 16
        let p = (my * out.w + mx) * 3
        #expect(out.rgb[p] > 200 && out.rgb[p + 1] < 60 && out.rgb[p + 2] < 60, "mark pixel \(out.rgb[p..<p + 3])")
    }

    @Test(arguments: [90, 180, 270], ["mp4", "mov"])
    func rotatedClipsExportUpright(clockwise: Int, container: String) throws {
        let input = try Self.rotated(try Self.base(.sdr), clockwise: clockwise, container: container)
        let output = "\(Self.dir)/up\(clockwise).\(container)"
        _ = try Self.export([input, output, "--image", Self.red, "--width", "0"])
        try Self.checkUpright(input: input, output: output, clockwise: clockwise, flip: false)
    }

    /// Mirrored display matrices: a horizontal flip, alone and before a 90° turn.
    @Test(arguments: [(0, "hflip", Int32(-1), Int32(0), Int32(0), Int32(1)), (90, "transpose", 0, 1, 1, 0)])
    func mirroredClipsExportUpright(clockwise: Int, name: String, a: Int32, b: Int32, c: Int32, d: Int32) throws {
        let input = try Self.withMatrix(try Self.base(.sdr), name, a: a, b: b, c: c, d: d)
        let output = "\(Self.dir)/\(name)-out.mp4"
        _ = try Self.export([input, output, "--image", Self.red, "--width", "0"])
        // (0 1; 1 0) is a flip followed by a clockwise quarter turn the other way round.
        try Self.checkUpright(input: input, output: output, clockwise: clockwise == 90 ? 270 : 0, flip: true)
    }

    /// Matroska output carries no rotation at all, so frames must come out upright there too.
    @Test func rotatedClipToMatroskaIsUpright() throws {
        let input = try Self.rotated(try Self.base(.sdr), clockwise: 90, container: "mp4")
        let output = "\(Self.dir)/up90.mkv"
        _ = try Self.export([input, output, "--image", Self.red, "--width", "0"])
        try Self.checkUpright(input: input, output: output, clockwise: 90, flip: false)
    }

    /// HLG and PQ stay 10-bit HDR, in H.265 Main10 by default, with their transfer, primaries,
    /// PQ's mastering data, and a white mark at the graphics reference white.
    @Test(arguments: [(Signal.hlg, 721.0, "arib-std-b67"), (.pq, 573.0, "smpte2084")])
    func hdrStaysHDR(signal: Signal, whiteY: Double, transfer: String) throws {
        let input = try Self.base(signal, mastering: signal == .pq)
        let output = "\(Self.dir)/hdr-\(signal).mp4"
        let log = try Self.export([input, output, "--image", Self.white, "--width", "0", "--anchor", "top-left"])
        #expect(log.contains("HDR (\(signal == .hlg ? "HLG" : "PQ"), BT.2020) 10-bit → H.265 Main10"), "\(log)")
        let info = Self.probe(output, "stream=codec_name,profile,pix_fmt,color_transfer,color_primaries")
        for field in [
            "codec_name=hevc", "profile=Main 10", "pix_fmt=yuv420p10le", "color_transfer=\(transfer)",
            "color_primaries=bt2020",
        ] {
            #expect(info.contains(field), "\(field) in \(info)")
        }
        if signal == .pq {
            let frames = TestEnv.run([
                "ffprobe", "-v", "error", "-read_intervals", "%+#1", "-show_entries", "frame_side_data=side_data_type",
                "-select_streams", "v", output,
            ]).1
            #expect(
                frames.contains("Mastering display metadata") && frames.contains("Content light level"), "\(frames)")
        }
        // Y of the white mark (top-left, 3 % margins), decoded as 10-bit.
        let raw = "\(Self.dir)/hdr-\(signal).yuv"
        try Self.ffmpeg(["-ss", "1", "-i", output, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p10le", raw])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let (x, y) = (Int(640 * 0.03) + 16, Int(360 * 0.03) + 16)
        let luma = Int(bytes[(y * 640 + x) * 2]) | Int(bytes[(y * 640 + x) * 2 + 1]) << 8
        #expect(abs(Double(luma) - whiteY) <= 8, "white mark at Y \(luma), want \(whiteY)")
    }

    @Test func h264OnHDRIsHigh10WithANote() throws {
        let output = "\(Self.dir)/hlg-h264.mp4"
        let log = try Self.export([try Self.base(.hlg), output, "--codec", "h264", "--text", "x"])
        #expect(log.contains("note: many players do not show H.264 as HDR"), "\(log)")
        let info = Self.probe(output, "stream=profile,pix_fmt,color_transfer")
        #expect(info.contains("profile=High 10") && info.contains("pix_fmt=yuv420p10le"), "\(info)")
        #expect(info.contains("color_transfer=arib-std-b67"), "\(info)")
    }

    @Test func wideGamutSDRStays10Bit() throws {
        let output = "\(Self.dir)/bt2020.mp4"
        _ = try Self.export([try Self.base(.bt2020), output, "--text", "x"])
        let info = Self.probe(output, "stream=pix_fmt,color_primaries")
        #expect(info.contains("pix_fmt=yuv420p10le") && info.contains("color_primaries=bt2020"), "\(info)")
    }

    static let tags = [
        "creation_time=2025-06-01T10:20:30.000000Z", "com.apple.quicktime.creationdate=2025-06-01T12:20:30+0200",
        "com.apple.quicktime.location.ISO6709=+48.8584+002.2945+035.000/", "com.apple.quicktime.make=Apple",
        "com.apple.quicktime.model=iPhone 15", "title=Paris", "comment=Eiffel tower",
    ]

    /// A clip tagged as an iPhone tags it.
    static func tagged() throws -> String {
        let path = "\(dir)/tagged.mov"
        var args = ["-i", try base(.hlg), "-c", "copy", "-map", "0", "-movflags", "use_metadata_tags"]
        for t in tags {
            let kv = t.split(separator: "=", maxSplits: 1)
            args += ["-metadata", "\(kv[0])=\(kv[1])"]
        }
        try ffmpeg(args + [path])
        return path
    }

    @Test(arguments: ["mp4", "mov"])
    func captureDateAndPlaceAreKept(container: String) throws {
        let output = "\(Self.dir)/tagged-out.\(container)"
        _ = try Self.export([try Self.tagged(), output, "--text", "x"])
        let format = Self.probe(output, "format_tags")
        for t in Self.tags { #expect(format.contains("TAG:\(t)"), "\(t) missing from\n\(format)") }
        // The movie and track headers carry the date too (galleries sort by it).
        #expect(Self.probe(output, "stream_tags=creation_time").contains("2025-06-01T10:20:30"))
        #expect(Self.probe(output, "stream=codec_type").contains("codec_type=audio"))
    }

    @Test func matroskaKeepsTheTagsToo() throws {
        let output = "\(Self.dir)/tagged-out.mkv"
        _ = try Self.export([try Self.tagged(), output, "--text", "x"])
        let format = Self.probe(output, "format_tags")
        for t in [
            "creation_time=2025-06-01T10:20:30", "LOCATION=+48.8584+002.2945+035.000/", "MAKE=Apple", "title=Paris",
        ] {
            #expect(format.contains(t), "\(t) missing from\n\(format)")
        }
    }

    @Test func stripMetadataLeavesItOut() throws {
        let output = "\(Self.dir)/stripped.mp4"
        _ = try Self.export([try Self.tagged(), output, "--text", "x", "--strip-metadata"])
        let format = Self.probe(output, "format_tags")
        for t in ["2025-06-01", "ISO6709", "Apple", "iPhone", "Paris", "Eiffel"] {
            #expect(!format.contains(t), "\(t) left in\n\(format)")
        }
    }

    /// Variable frame rate: every frame keeps its own timestamp.
    @Test func variableFrameRateTimestampsAreKept() throws {
        let input = "\(Self.dir)/vfr.mp4"
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-t", "2", "-vf",
            "setpts='if(lt(N,20),N/30,if(lt(N,40),20/30+(N-20)/15,40/30+(N-40)/60))/TB'", "-fps_mode", "vfr",
            "-c:v", "libx264", "-preset", "ultrafast", input,
        ])
        let output = "\(Self.dir)/vfr-out.mp4"
        _ = try Self.export([input, output, "--text", "x"])
        func times(_ path: String) -> [Double] {
            TestEnv.run([
                "ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time", "-of", "csv=p=0",
                path,
            ])
            .1.split(separator: "\n").compactMap { Double($0) }.sorted()
        }
        let a = times(input), b = times(output)
        #expect(a.count == b.count && a.count > 40, "\(a.count) vs \(b.count) frames")
        #expect(zip(a, b).allSatisfy { abs($0 - $1) < 0.002 }, "timestamps moved")
    }
}
