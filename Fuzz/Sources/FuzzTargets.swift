// Fuzz targets for the parts that read untrusted input: the config loader (JSON reader
// included), the data-file reader (CSV and JSON Lines, with lookups), the text-placeholder parser, the colour parser, easing names, and the
// blender (random format, frame size, stride, overlay geometry, offset and opacity), and the
// privacy-mask region parser with the painter behind it (every fill, format and orientation),
// and the forensic mark: its id parser, its painter (every format, odd sizes) and the
// detector fed arbitrary pictures; subtitle files (SRT, WebVTT, ASS) and the tracks written
// back from a container's packets.
//
// Built two ways:
//  - plain (`swift build --product wm-fuzz`): `wm-fuzz TARGET FILE|DIR…` runs every file
//    through the target once — the regression run of the seed corpora in the tests;
//  - with libFuzzer and AddressSanitizer (scripts/fuzz): `-DFUZZING`, whose main hands
//    over to libFuzzer's driver; the target is chosen by WM_FUZZ_TARGET.

import Glibc
import WatermarkBlend
import WatermarkModel
import WatermarkTelemetry

enum FuzzTarget: String, CaseIterable {
    case config, template, color, blend, data, gpmf, mp4, gpx, dji, mask, forensic, subtitles

    func run(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data)
        switch self {
        case .config:
            _ = try? LayerConfig.parse(bytes, file: "fuzz.json", directory: "/nonexistent")
        case .template:
            let text = String(decoding: bytes, as: UTF8.self)
            let t = TextTemplate(text)
            for clock in [
                FrameClock(),
                FrameClock(
                    pts: 3725.042, streamTime: 1.5, runningTime: -1, frame: Int.max,
                    fps: 29.97, wallClock: 1.7e9),
                FrameClock(pts: .nan, streamTime: .infinity, runningTime: 1e300, frame: -5, fps: -1, wallClock: -1e20),
            ] {
                _ = t.expand(clock)
            }
            _ = Easing(name: text)?.apply(0.5)
        case .color:
            _ = ARGBColor(parsing: String(decoding: bytes, as: UTF8.self))
        case .blend:
            Blend.run(bytes)
        case .mask:
            Mask.run(bytes)
        case .forensic:
            Forensic.run(bytes)
        case .subtitles:
            Subtitles.run(bytes)
        case .gpmf:
            // One GPMF payload, and the fields of it as a one-second packet.
            _ = try? GPMF.streams(bytes)
            _ = GoPro.fields([(TrackSample(offset: 0, size: bytes.count, time: 0, duration: 1), bytes)])
        case .mp4:
            // An MP4 file's gpmd track: its tables, then its samples' payloads.
            if let (packets, created) = try? GoPro.packets(MemoryBytes(bytes)) {
                _ = GoPro.fields(packets, creation: created)
            }
        case .gpx:
            if let points = try? GPX.points(bytes, file: "fuzz.gpx") { _ = try? GPX.fields(points, file: "fuzz.gpx") }
        case .dji:
            if let (points, _) = try? DJI.points(bytes, file: "fuzz.srt") { _ = DJI.fields(points) }
        case .data:
            // The first byte chooses the options; the rest is the file.
            let options = bytes.first ?? 0
            let file = Array(bytes.dropFirst())
            let column: String? = options & 1 != 0 ? "time" : nil
            let step: Set<String> = options & 2 != 0 ? ["a", "speed"] : []
            guard let table = try? DataTable.parse(file, file: "fuzz.csv", timeColumn: column, step: step) else {
                return
            }
            let data = TimedData(
                table: table, offset: Double(options >> 2) - 16, origin: options & 4 != 0 ? 1.7e9 : nil)
            for name in table.names.prefix(8) {
                _ = table.check(field: name, numeric: true, usedBy: "fuzz")
                for t in [-1e300, -1, 0, 0.5, 1, 2.25, 1e9, 1.7e9 + 3, .infinity, .nan] {
                    _ = data.value(name, at: t)?.text(NumberFormat("%08.2f"))
                }
            }
        }
    }
}

/// Reads bytes as a stream of small numbers; zeros when it runs out.
struct ByteReader {
    let bytes: [UInt8]
    var i = 0
    mutating func next() -> Int {
        defer { i += 1 }
        return i < bytes.count ? Int(bytes[i]) : 0
    }
    mutating func signed(_ range: Int) -> Int { (next() << 8 | next()) % (2 * range + 1) - range }
}

enum Blend {
    static let layouts: [PixelLayout] = [
        .i420, .nv12, .yuy2, .bgra,
        PixelLayout(
            family: .yuv,
            components: [  // P010
                ComponentLayout(plane: 0, offset: 0, pixelStride: 2, depth: 10, shift: 6),
                ComponentLayout(plane: 1, offset: 0, pixelStride: 4, wSub: 1, hSub: 1, depth: 10, shift: 6),
                ComponentLayout(plane: 1, offset: 2, pixelStride: 4, wSub: 1, hSub: 1, depth: 10, shift: 6),
            ]),
        PixelLayout(
            family: .yuv,
            components: [  // Y41B-like 4:1:1 planar
                ComponentLayout(plane: 0, offset: 0, pixelStride: 1),
                ComponentLayout(plane: 1, offset: 0, pixelStride: 1, wSub: 2, hSub: 0),
                ComponentLayout(plane: 2, offset: 0, pixelStride: 1, wSub: 2, hSub: 0),
            ]),
    ]

    static func run(_ bytes: [UInt8]) {
        var r = ByteReader(bytes: bytes)
        let layout = layouts[r.next() % layouts.count]
        let w = 1 + r.next() % 70, h = 1 + r.next() % 40
        let ow = 1 + r.next() % 90, oh = 1 + r.next() % 50
        let rect = PixelRect(x: r.signed(100), y: r.signed(60), width: ow, height: oh)
        var pixels = [UInt32](repeating: 0, count: ow * oh)
        for k in pixels.indices {
            let a = UInt32(r.next()), v = UInt32(r.next())
            pixels[k] = a << 24 | min(v, a) << 16 | min(v / 2, a) << 8 | min(v / 3, a)
        }
        let overlay = RenderedOverlay(rect: rect, pixels: pixels)
        let moving = r.next() & 1 == 1
        let converted =
            moving
            ? ConvertedOverlay(overlay, layout: layout, encoding: .bt709)
            : ConvertedOverlay(overlay, layout: layout, encoding: .bt601, frameWidth: w, frameHeight: h)
        let dx = r.signed(120), dy = r.signed(80), opacity = Double(r.next()) / 200
        let extra = r.next() % 9
        // Every plane in its own allocation of exactly stride × rows bytes, so that
        // AddressSanitizer reports any write outside it.
        for p in 0..<layout.planeCount {
            let stride = layout.validBytes(plane: p, frameWidth: w) + extra
            let rows = layout.validRows(plane: p, frameHeight: h)
            let size = max(1, stride * rows)
            guard let plane = malloc(size)?.assumingMemoryBound(to: UInt8.self) else { return }
            memset(plane, 0x5A, size)
            converted.blend(
                planeIndex: p, base: plane, stride: stride, frameWidth: w, frameHeight: h,
                opacity: opacity, dx: dx, dy: dy)
            free(plane)
        }
    }
}

/// The `mask` text: the first byte chooses the format, frame size, fill and orientation; the
/// rest is parsed as a region list and, when it reads, painted into planes of exactly their
/// size (AddressSanitizer reports a write outside). The same text as an ROI label too.
enum Mask {
    static func run(_ bytes: [UInt8]) {
        let options = Int(bytes.first ?? 0)
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        _ = RoiLabel(text).text(for: RegionOfInterest(type: "face", x: 0, y: 0, width: 1, height: 1, confidence: 0.5))
        guard case .success(let regions) = MaskRegion.parseList(text) else { return }
        _ = regions.map(\.text)
        let layout = Blend.layouts[options % Blend.layouts.count]
        let w = 1 + (options * 7) % 53, h = 1 + (options * 3) % 31
        let orientation = ImageOrientation.allCases[(options >> 2) % ImageOrientation.allCases.count]
        let fill = MaskFill.allCases[(options >> 5) % MaskFill.allCases.count]
        let spans = MaskSpans(regions, width: w, height: h, orientation: orientation)
        let mask = PreparedMask(
            spans, layout: layout, encoding: .bt709, fill: fill, color: .black, cell: 1 + options % 9,
            sigma: Double(options % 13))
        let scratch = MaskScratch()
        for p in 0..<layout.planeCount {
            let stride = layout.validBytes(plane: p, frameWidth: w)
            let rows = layout.validRows(plane: p, frameHeight: h)
            let size = max(1, stride * rows)
            guard let plane = malloc(size)?.assumingMemoryBound(to: UInt8.self) else { return }
            memset(plane, 0x5A, size)
            mask.paint(planeIndex: p, base: plane, stride: stride, scratch: scratch)
            free(plane)
        }
    }
}

/// The `forensic` bytes: the first four choose the format, the picture's size and the
/// strength; the rest is an id's text, then the luma of the frames the detector reads (the
/// bytes repeated to fill them). The painter writes into planes of exactly their size.
enum Forensic {
    static func run(_ bytes: [UInt8]) {
        var r = ByteReader(bytes: bytes)
        let layout = Blend.layouts[r.next() % Blend.layouts.count]
        let w = 1 + r.next() % 97 + (r.next() & 1) * 64, h = 1 + r.next() % 83
        let text = String(decoding: bytes.dropFirst(4).prefix(24), as: UTF8.self)
        let id = ForensicCode.parseID(text) ?? 0x0123_4567_89ab_cdef
        let pattern = ForensicPattern(digest: Array(bytes.prefix(32)) + [UInt8](repeating: 7, count: 32))
        let tile = ForensicTile(chips: pattern.chips(for: id), cell: ForensicTile.cell(forHeight: h))
        let painter = ForensicPainter(
            tile: tile, layout: layout, width: w, height: h, strength: Double(bytes.last ?? 0) / 16)
        var planes: [(UnsafeMutableRawPointer, Int)] = []
        for p in 0..<layout.planeCount {
            let stride = layout.validBytes(plane: p, frameWidth: w)
            let size = max(1, stride * layout.validRows(plane: p, frameHeight: h))
            guard let plane = malloc(size) else { break }
            memset(plane, Int32(bytes.count & 0xFF), size)
            planes.append((plane, stride))
        }
        if planes.count == layout.planeCount {
            painter.paint { planes.indices.contains($0) ? (planes[$0].0, planes[$0].1) : nil }
        }
        for (plane, _) in planes { free(plane) }
        // Frames for the detector (one input in eight: a verdict costs a thousand paints),
        // large enough for its grid, filled from the input.
        guard bytes.count > 3, bytes[3] & 0xE0 == 0xE0 else { return }
        let fw = 32 + (w * 7) % 60, fh = 32 + (h * 5) % 40
        let detector = ForensicDetector(pattern: pattern, width: fw, height: fh)
        var luma = [UInt8](repeating: 0, count: fw * fh)
        let source = bytes.isEmpty ? [0] : bytes
        for frame in 0..<(1 + bytes.count % 3) {
            for i in luma.indices { luma[i] = source[(i &* 31 &+ frame) % source.count] }
            luma.withUnsafeBufferPointer { detector.add(luma: $0.baseAddress!, stride: fw) }
        }
        let verdict = detector.detect()
        if let found = verdict.id { _ = ForensicCode.hex(found) }
    }
}

/// A subtitle file read as SRT, WebVTT or ASS by its content; what reads is written back as a
/// container's track would be (the cues' texts as packets, the bytes as an embedded font) and
/// read again.
enum Subtitles {
    static func run(_ bytes: [UInt8]) {
        guard let d = try? SubtitleParser.parse(bytes, file: "fuzz.srt") else { return }
        let kind: SubtitleTrackFile.Kind = d.format == .ass ? .ass : d.format == .srt ? .srt : .webvtt
        let events = d.cues.prefix(64).map { SubtitleTrackFile.Event(start: $0.start, end: $0.end, payload: $0.text) }
        let track = SubtitleTrackFile(
            kind: kind, header: d.format == .ass ? d.script : "", events: events,
            fonts: [(name: "fuzz.ttf", data: Array(bytes.prefix(256)))])
        _ = try? SubtitleParser.parse(Array(track.text.utf8), file: "fuzz.ass")
        _ = SubtitleStyle(
            family: d.fontFamilies.first ?? "Sans", bold: true, italic: false, size: Double(bytes.count % 300),
            color: .white, outlineColor: .black, outline: .nan, shadow: true, background: .black, padding: -1,
            marginV: -5, marginH: Int.max / 2
        ).header(width: bytes.count, height: -1)
    }
}

#if FUZZING
    /// libFuzzer's entry for programs that have their own main (SwiftPM executables do).
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    @main
    struct Fuzz {
        static func main() {
            let name = getenv("WM_FUZZ_TARGET").map { String(cString: $0) } ?? "config"
            guard FuzzTarget(rawValue: name) != nil else {
                print("WM_FUZZ_TARGET must be one of \(FuzzTarget.allCases.map(\.rawValue))")
                exit(2)
            }
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(
                LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                    let name = getenv("WM_FUZZ_TARGET").map { String(cString: $0) } ?? "config"
                    FuzzTarget(rawValue: name)?.run(UnsafeRawBufferPointer(start: data, count: size))
                    return 0
                })
        }
    }
#else
    @main
    struct Replay {
        static func main() {
            let args = CommandLine.arguments
            guard args.count >= 3, let target = FuzzTarget(rawValue: args[1]) else {
                print("usage: wm-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE|DIR…")
                exit(2)
            }
            var count = 0
            for path in args.dropFirst(2) {
                for file in files(path) {
                    guard case .success(let bytes) = readFile(file, limit: 1 << 24) else {
                        print("cannot read \(file)")
                        exit(1)
                    }
                    bytes.withUnsafeBytes { target.run($0) }
                    count += 1
                }
            }
            print("\(target.rawValue): \(count) inputs, no crash")
        }

        static func files(_ path: String) -> [String] {
            guard let dir = opendir(path) else { return [path] }
            defer { closedir(dir) }
            var out: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                if !name.hasPrefix(".") { out.append(path + "/" + name) }
            }
            return out.sorted()
        }
    }
#endif
