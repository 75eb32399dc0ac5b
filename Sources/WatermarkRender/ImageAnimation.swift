// Invariant: every frame is copied out of the decoder into a cairo surface of its own
// before the decoder is freed; the decoders' buffers are read only within width × height
// pixels of their stated row length.

import CAVTypes
import CGdkPixbuf
import CPangoCairo
import CWebP
import Glibc
import WatermarkModel

/// An animated logo, decoded at load: every frame a still image, with how long it shows
/// and how many times the whole plays. Which frame shows is a pure function of the layer's
/// time, as for every other moving part. Frames that fit `budget` decoded are all kept;
/// a larger animation keeps its first frame and a window of frames decoded ahead
/// (`FrameWindow`).
package struct ImageAnimation: Sendable {
    /// Every frame when all of them fit the budget; else empty (`window` has them).
    package let frames: [DecodedImage]
    package let window: FrameWindow?
    package let first: DecodedImage
    /// Seconds each frame shows.
    package let durations: [Double]
    /// Plays in all; 0 = forever. After the last play the last frame stays.
    package let loops: Int
    /// Seconds of one play.
    package let total: Double

    /// Decoded frames (4 bytes per pixel) an animation keeps at most: 64 MB.
    package static let budget = 64 << 20
    /// GIF and WebP delays under 20 ms are shown at 100 ms, as browsers do.
    static let shortest = 0.02

    init(first: DecodedImage, frames: [DecodedImage], window: FrameWindow?, durations: [Double], loops: Int) {
        self.first = first
        self.frames = frames
        self.window = window
        self.durations = durations.map { $0 < Self.shortest ? 0.1 : $0 }
        self.loops = max(0, loops)
        total = self.durations.reduce(0, +)
    }

    /// Frames in one play.
    package var count: Int { durations.count }

    /// How many converted frames a user of the animation should keep: all of them when all
    /// are kept decoded, none for a window (each would be a full frame more).
    package var keptFrames: Int { window == nil ? count : 0 }

    /// The frame showing `time` seconds after the layer started.
    package func index(at time: Double?) -> Int {
        guard count > 1, let time, time.isFinite, total > 0 else { return 0 }
        let t = max(0, time)
        if loops > 0, t >= Double(loops) * total { return count - 1 }
        var r = t.truncatingRemainder(dividingBy: total)
        for (i, d) in durations.enumerated() {
            if r < d { return i }
            r -= d
        }
        return count - 1
    }

    /// The still showing `time` seconds after the layer started. From a window: `wait`
    /// waits for a frame still being decoded, else the frame shown last stays.
    package func frame(at time: Double?, wait: Bool) -> DecodedImage {
        let k = index(at: time)
        if let window { return window.frame(k, wait: wait) }
        return frames.indices.contains(k) ? frames[k] : first
    }

    /// The still showing at `time` if it is decoded (asks for nothing, never waits).
    package func peekFrame(at time: Double?) -> DecodedImage? {
        let k = index(at: time)
        if let window { return window.peek(k) }
        return frames.indices.contains(k) ? frames[k] : nil
    }
}

/// One decoded frame of an animation, as a player hands it over.
struct AnimationFrame {
    var index: Int
    /// Premultiplied ARGB, `width` per row.
    var pixels: UnsafePointer<UInt32>
    var width: Int
    var height: Int
    /// How long it shows.
    var seconds: Double
}

/// Plays an animation file once from its first frame, handing each frame to the body
/// until it returns false.
typealias AnimationPlayer =
    @Sendable (_ body: (AnimationFrame) throws(ImageLoadError) -> Bool) throws(ImageLoadError)
    -> Void

extension DecodedImage {
    /// A still from premultiplied ARGB words, `width` per row.
    static func still(path: String, pixels: UnsafePointer<UInt32>, width: Int, height: Int) -> DecodedImage? {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)),
            cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let dst = cairo_image_surface_get_data(surface)
        else { return nil }
        let stride = Int(cairo_image_surface_get_stride(surface))
        cairo_surface_flush(surface)
        for y in 0..<height {
            UnsafeMutableRawPointer(dst + y * stride).assumingMemoryBound(to: UInt32.self)
                .update(from: pixels + y * width, count: width)
        }
        cairo_surface_mark_dirty(surface)
        return DecodedImage(
            path: path, kind: .raster, width: Double(width), height: Double(height), surface: surface, handle: nil)
    }

    /// An animation of `count` frames (as its header says) played once by `play`: every frame
    /// kept if all fit `budget`, else the first, with a window that decodes the others ahead
    /// by playing the file again (`play` must not depend on anything that can change).
    static func animation(
        path: String, count: Int, loops: Int, budget: Int, play: @escaping AnimationPlayer
    ) throws(ImageLoadError) -> DecodedImage {
        var frames: [DecodedImage] = []
        var durations: [Double] = []
        var first: DecodedImage?
        var size = (width: 0, height: 0)
        var windowed = false
        try play { f throws(ImageLoadError) -> Bool in
            if f.index == 0 {
                size = (f.width, f.height)
                windowed = Double(max(count, 1)) * Double(f.width) * Double(f.height) * 4 > Double(budget)
            }
            guard f.width == size.width, f.height == size.height else {
                throw ImageLoadError(kind: .invalid, path: path, reason: "frame \(f.index) changes the picture size")
            }
            durations.append(f.seconds)
            if durations.count > 4096 {
                throw ImageLoadError(kind: .invalid, path: path, reason: "more than 4096 frames in one play")
            }
            if f.index == 0 || !windowed {
                guard
                    let still = still(path: path, pixels: f.pixels, width: f.width, height: f.height)
                else { throw ImageLoadError(kind: .invalid, path: path, reason: "out of memory") }
                if f.index == 0 { first = still }
                if !windowed { frames.append(still) }
            }
            return true
        }
        guard let first else { throw ImageLoadError(kind: .invalid, path: path, reason: "the animation has no frames") }
        if durations.count == 1 { return first }
        var window: FrameWindow?
        if windowed {
            let (w, h) = size
            window = FrameWindow(
                path: path, first: first, count: durations.count, width: w, height: h, budget: budget
            ) { body in
                do throws(ImageLoadError) {
                    try play { f in f.width == w && f.height == h && body(f.index, f.pixels) }
                    return true
                } catch { return false }
            }
        }
        return DecodedImage(
            path: path, kind: .raster, width: Double(size.width), height: Double(size.height), surface: nil,
            handle: nil,
            animation: ImageAnimation(
                first: first, frames: frames, window: window, durations: durations, loops: loops))
    }

    /// WebP, still or animated, through libwebp's WebPAnimDecoder (premultiplied BGRA, which
    /// is cairo's ARGB32 in memory): frames, their end times and the loop count.
    static func decodeWebP(path: String, budget: Int) throws(ImageLoadError) -> DecodedImage {
        guard case .success(let bytes) = readFile(path, limit: 256 << 20) else {
            throw ImageLoadError(kind: .unreadable, path: path, reason: "cannot read the file")
        }
        let (count, loops) = try webPInfo(bytes, path: path)
        return try animation(path: path, count: count, loops: loops, budget: budget) { body throws(ImageLoadError) in
            try playWebP(bytes, path: path, body)
        }
    }

    /// A WebP decoder over `bytes` for `body` (which runs while the decoder lives).
    private static func withWebPDecoder<R>(
        _ bytes: [UInt8], path: String,
        _ body: (OpaquePointer, WebPAnimInfo) throws(ImageLoadError) -> R
    ) throws(ImageLoadError) -> R {
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw ImageLoadError(kind: .invalid, path: path, reason: "libwebp version mismatch")
        }
        options.color_mode = MODE_bgrA
        options.use_threads = 0
        return try bytes.withBuffer { buf throws(ImageLoadError) -> R in
            var data = WebPData(bytes: buf.baseAddress, size: buf.count)
            guard let decoder = WebPAnimDecoderNew(&data, &options) else {
                throw ImageLoadError(
                    kind: .invalid, path: path, reason: "not a valid WebP image (truncated or corrupt)")
            }
            defer { WebPAnimDecoderDelete(decoder) }
            var info = WebPAnimInfo()
            guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
                throw ImageLoadError(kind: .invalid, path: path, reason: "not a valid WebP image")
            }
            try checkSize(Int(info.canvas_width), Int(info.canvas_height), path: path)
            return try body(decoder, info)
        }
    }

    /// A WebP file's frame count and loop count.
    private static func webPInfo(_ bytes: [UInt8], path: String) throws(ImageLoadError) -> (Int, Int) {
        try withWebPDecoder(bytes, path: path) { _, info in (Int(info.frame_count), Int(info.loop_count)) }
    }

    /// Plays a WebP file's frames once.
    private static func playWebP(
        _ bytes: [UInt8], path: String, _ body: (AnimationFrame) throws(ImageLoadError) -> Bool
    ) throws(ImageLoadError) {
        try withWebPDecoder(bytes, path: path) { decoder, info throws(ImageLoadError) in
            let w = Int(info.canvas_width), h = Int(info.canvas_height)
            var previous: Int32 = 0
            var index = 0
            while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
                var out: UnsafeMutablePointer<UInt8>?
                var end: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &out, &end) != 0, let out else {
                    throw ImageLoadError(
                        kind: .invalid, path: path,
                        reason: "frame \(index) cannot be decoded (truncated or corrupt)")
                }
                let words = UnsafeRawPointer(out).assumingMemoryBound(to: UInt32.self)
                let go = try body(
                    AnimationFrame(
                        index: index, pixels: words, width: w, height: h, seconds: Double(end - previous) / 1000))
                previous = end
                index += 1
                if !go { return }
            }
        }
    }

    /// An animated GIF through gdk-pixbuf's animation API; nil for a GIF of one frame. The
    /// API gives the composited picture and the time left at any moment, not a frame list.
    /// A first pass steps it frame by frame from the start, comparing hashes of the pictures,
    /// until a play repeats (one play found) and, for a GIF that plays a number of times, on
    /// to its end (the last frame then shows forever), which gives the loop count. A second
    /// pass converts that play's frames (`animation`: kept, or a window of them).
    static func decodeGIFAnimation(path: String, budget: Int) throws(ImageLoadError) -> DecodedImage? {
        var error: UnsafeMutablePointer<GError>?
        guard let pointer = gdk_pixbuf_animation_new_from_file(path, &error) else {
            throw ImageLoadError(kind: .invalid, path: path, reason: gerrorMessage(error))
        }
        let anim = GIFAnimation(pointer)
        if gdk_pixbuf_animation_is_static_image(pointer) != 0 { return nil }
        let w = Int(gdk_pixbuf_animation_get_width(pointer)), h = Int(gdk_pixbuf_animation_get_height(pointer))
        try checkSize(w, h, path: path)
        let (delays, loops) = try gifPlay(pointer, path: path)
        if delays.count <= 1 { return nil }
        // The last frame's delay is the time it shows within a play (none when it ends the animation).
        let seconds = delays.map { $0 < 0 ? 0.1 : Double($0) / 1000 }
        return try animation(path: path, count: seconds.count, loops: loops, budget: budget) {
            body throws(ImageLoadError) in
            var words = [UInt32](repeating: 0, count: w * h)
            var index = 0
            try stepGIF(anim.pointer, path: path) { pixbuf, _ throws(ImageLoadError) -> Bool in
                let go = try words.withMutableBuffer { b throws(ImageLoadError) -> Bool in
                    guard let dst = b.baseAddress, Int(gdk_pixbuf_get_width(pixbuf)) == w,
                        Int(gdk_pixbuf_get_height(pixbuf)) == h, premultiply(pixbuf, into: dst, rowWords: w)
                    else {
                        throw ImageLoadError(kind: .invalid, path: path, reason: "frame \(index) cannot be decoded")
                    }
                    return try body(
                        AnimationFrame(index: index, pixels: dst, width: w, height: h, seconds: seconds[index]))
                }
                index += 1
                return go && index < seconds.count
            }
        }
    }

    /// A GdkPixbufAnimation, released with its last user: the window's thread plays it again
    /// (only that thread, after the load).
    private final class GIFAnimation: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }
    }

    /// One play's frame delays (ms) and how many plays (0: forever), from hashes of the
    /// composited pictures.
    private static func gifPlay(_ anim: OpaquePointer, path: String) throws(ImageLoadError) -> ([Int], Int) {
        var hashes: [UInt64] = []
        var delays: [Int] = []
        var period: Int?
        var shown = 0
        var result: ([Int], Int)?
        try stepGIF(anim, path: path) { pixbuf, delay throws(ImageLoadError) -> Bool in
            // After the last play the iterator holds the last frame (no delay): not a frame.
            if let p = period {
                if delay < 0 {
                    result = (delays, max(1, shown / p))
                    return false
                }
                shown += 1
                return shown < 64 * p  // still going after 64 plays: forever
            }
            if delay < 0, !hashes.isEmpty {
                result = (delays, 1)
                return false
            }
            hashes.append(hash(pixbuf))
            delays.append(delay)
            shown += 1
            if hashes.count > 4096 {
                throw ImageLoadError(kind: .invalid, path: path, reason: "more than 4096 frames in one play")
            }
            let n = hashes.count, half = n / 2
            if n % 2 == 0,
                (0..<half).allSatisfy({ hashes[$0] == hashes[half + $0] && delays[$0] == delays[half + $0] })
            {
                period = half
                hashes.removeLast(half)
                delays.removeLast(half)
            }
            if delay < 0 {
                result = (delays, 1)
                return false
            }
            return true
        }
        return result ?? (delays, 0)
    }

    /// Steps a GIF's iterator from time 0, frame after frame (by each frame's delay), handing
    /// `body` the picture and its delay until it returns false.
    private static func stepGIF(
        _ anim: OpaquePointer, path: String, _ body: (OpaquePointer, Int) throws(ImageLoadError) -> Bool
    ) throws(ImageLoadError) {
        var ms: gint64 = 0
        guard let iter = watermark_pixbuf_animation_iter_at(anim, ms) else {
            throw ImageLoadError(kind: .invalid, path: path, reason: "cannot play the animation")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(iter)) }
        for _ in 0..<(64 * 4096) {
            let delay = Int(gdk_pixbuf_animation_iter_get_delay_time(iter))
            guard let pixbuf = gdk_pixbuf_animation_iter_get_pixbuf(iter) else {
                throw ImageLoadError(kind: .invalid, path: path, reason: "a frame cannot be decoded")
            }
            if try !body(pixbuf, delay) { return }
            ms += gint64(max(delay, 1))
            _ = watermark_pixbuf_animation_iter_advance_to(iter, ms)
        }
    }

    /// FNV-1a of a pixbuf's pixel rows.
    private static func hash(_ pixbuf: OpaquePointer) -> UInt64 {
        let rowBytes = Int(gdk_pixbuf_get_width(pixbuf)) * Int(gdk_pixbuf_get_n_channels(pixbuf))
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), rows = Int(gdk_pixbuf_get_height(pixbuf))
        guard let px = gdk_pixbuf_read_pixels(pixbuf) else { return 0 }
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for y in 0..<rows {
            let row = px + y * stride
            for x in 0..<rowBytes {
                h = (h ^ UInt64(row[x])) &* 0x0000_0100_0000_01B3
            }
        }
        return h
    }

    /// Writes an 8-bit RGB(A) pixbuf's pixels as premultiplied ARGB words into `dst`,
    /// `rowWords` per row; false for another layout.
    static func premultiply(_ pixbuf: OpaquePointer, into dst: UnsafeMutablePointer<UInt32>, rowWords: Int) -> Bool {
        let w = Int(gdk_pixbuf_get_width(pixbuf)), h = Int(gdk_pixbuf_get_height(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        guard gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, channels >= 3, let src = gdk_pixbuf_read_pixels(pixbuf)
        else { return false }
        let alpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        for y in 0..<h {
            for x in 0..<w {
                let p = src + y * rowstride + x * channels
                dst[y * rowWords + x] = argb(p[0], p[1], p[2], alpha ? p[3] : 255)
            }
        }
        return true
    }

    /// Straight RGBA as one premultiplied ARGB word (cairo's ARGB32).
    @inline(__always)
    static func argb(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ alpha: UInt8) -> UInt32 {
        let a = UInt32(alpha)
        func pm(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
        return a << 24 | pm(r) << 16 | pm(g) << 8 | pm(b)
    }

    /// An animated PNG's frame count and plays (0: forever) from its acTL chunk, when one
    /// comes before the image data in `head`; nil for a still PNG.
    static func apngControl(_ head: [UInt8]) -> (frames: Int, plays: Int)? {
        func be32(_ at: Int) -> Int { head[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        var at = 8
        while at + 8 <= head.count {
            let length = be32(at), type = String(decoding: head[at + 4..<at + 8], as: UTF8.self)
            if type == "IDAT" { return nil }
            if type == "acTL" {
                guard at + 16 <= head.count else { return nil }
                return (be32(at + 8), be32(at + 12))
            }
            guard length >= 0, length < 1 << 24 else { return nil }
            at += 12 + length
        }
        return nil
    }

    /// An animated PNG through FFmpeg (its apng demuxer and decoder, which composite each
    /// frame): frames, their delays and the plays from acTL.
    static func decodeAPNG(path: String, frames count: Int, plays: Int, budget: Int) throws(ImageLoadError)
        -> DecodedImage
    {
        try animation(path: path, count: count, loops: plays, budget: budget) { body throws(ImageLoadError) in
            try playAPNG(path: path, body)
        }
    }

    /// Plays an animated PNG's frames once (the file opened anew).
    private static func playAPNG(path: String, _ body: (AnimationFrame) throws(ImageLoadError) -> Bool)
        throws(ImageLoadError)
    {
        func fail(_ why: String) -> ImageLoadError { ImageLoadError(kind: .invalid, path: path, reason: why) }
        let av: AVLibrary
        switch AVLibrary.shared {
        case .success(let library): av = library
        case .failure(let unavailable): throw ImageLoadError(kind: .unreadable, path: path, reason: unavailable.reason)
        }
        let f = av.functions
        guard let openInput = f.avformat_open_input, let findInputFormat = f.av_find_input_format,
            let closeInput = f.avformat_close_input, let findStreamInfo = f.avformat_find_stream_info,
            let findDecoder = f.avcodec_find_decoder, let allocContext = f.avcodec_alloc_context3,
            let freeContext = f.avcodec_free_context, let parametersToContext = f.avcodec_parameters_to_context,
            let openCodec = f.avcodec_open2, let readFrame = f.av_read_frame, let sendPacket = f.avcodec_send_packet,
            let receiveFrame = f.avcodec_receive_frame, let packetAlloc = f.av_packet_alloc,
            let packetFree = f.av_packet_free, let packetUnref = f.av_packet_unref, let frameAlloc = f.av_frame_alloc,
            let frameFree = f.av_frame_free, let frameUnref = f.av_frame_unref
        else { throw fail("FFmpeg is incomplete") }
        var format: UnsafeMutablePointer<AVFormatContext>?
        guard openInput(&format, path, findInputFormat("apng"), nil) == 0, let format else {
            throw fail("not a valid animated PNG")
        }
        var formatRef: UnsafeMutablePointer<AVFormatContext>? = format
        defer { closeInput(&formatRef) }
        guard findStreamInfo(format, nil) >= 0, format.pointee.nb_streams >= 1,
            let stream = format.pointee.streams[0], let par = stream.pointee.codecpar,
            let codec = findDecoder(par.pointee.codec_id)
        else { throw fail("not a valid animated PNG") }
        var context = allocContext(codec)
        defer { freeContext(&context) }
        var packet = packetAlloc()
        defer { packetFree(&packet) }
        var picture = frameAlloc()
        defer { frameFree(&picture) }
        guard let context, let packet, let picture, parametersToContext(context, par) >= 0,
            openCodec(context, codec, nil) >= 0
        else { throw fail("cannot decode the animated PNG") }
        let w = Int(par.pointee.width), h = Int(par.pointee.height)
        try checkSize(w, h, path: path)
        let base = stream.pointee.time_base
        var words = [UInt32](repeating: 0, count: w * h)
        var index = 0
        var stopped = false
        func drain() throws(ImageLoadError) {
            while !stopped, receiveFrame(context, picture) == 0 {
                defer { frameUnref(picture) }
                guard Int(picture.pointee.width) == w, Int(picture.pointee.height) == h,
                    convert(picture, into: &words, w, h)
                else { throw fail("frame \(index) has an unsupported pixel layout") }
                let seconds = Double(watermark_av_frame_duration(picture)) * Double(base.num) / Double(max(1, base.den))
                let go = try words.withBuffer { b throws(ImageLoadError) -> Bool in
                    guard let pixels = b.baseAddress else { return false }
                    return try body(
                        AnimationFrame(index: index, pixels: pixels, width: w, height: h, seconds: seconds))
                }
                index += 1
                if !go { stopped = true }
            }
        }
        while !stopped, readFrame(format, packet) >= 0 {
            defer { packetUnref(packet) }
            guard packet.pointee.stream_index == 0 else { continue }
            guard sendPacket(context, packet) >= 0 else { throw fail("frame \(index) is corrupt") }
            try drain()
        }
        if stopped { return }
        _ = sendPacket(context, nil)
        try drain()
    }

    /// A decoded frame as premultiplied ARGB words; false for a pixel layout it does not know.
    private static func convert(_ f: UnsafeMutablePointer<AVFrame>, into out: inout [UInt32], _ w: Int, _ h: Int)
        -> Bool
    {
        guard let data = f.pointee.data.0 else { return false }
        let stride = Int(f.pointee.linesize.0)
        let format = AVPixelFormat(f.pointee.format)
        // Bytes per pixel and the offsets of R, G, B, A (nil: opaque); 16-bit samples are
        // big-endian, their high byte first.
        let layout: (size: Int, r: Int, g: Int, b: Int, a: Int?)
        switch format {
        case AV_PIX_FMT_RGBA: layout = (4, 0, 1, 2, 3)
        case AV_PIX_FMT_RGB24: layout = (3, 0, 1, 2, nil)
        case AV_PIX_FMT_GRAY8: layout = (1, 0, 0, 0, nil)
        case AV_PIX_FMT_YA8: layout = (2, 0, 0, 0, 1)
        case AV_PIX_FMT_RGBA64BE: layout = (8, 0, 2, 4, 6)
        case AV_PIX_FMT_RGB48BE: layout = (6, 0, 2, 4, nil)
        case AV_PIX_FMT_PAL8:
            guard let palette = f.pointee.data.1 else { return false }
            let colours = UnsafeRawPointer(palette).assumingMemoryBound(to: UInt32.self)
            for y in 0..<h {
                for x in 0..<w {
                    let c = colours[Int(data[y * stride + x])]
                    out[y * w + x] = argb(
                        UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF), UInt8(c >> 24))
                }
            }
            return true
        default: return false
        }
        for y in 0..<h {
            let row = data + y * stride
            for x in 0..<w {
                let p = row + x * layout.size
                out[y * w + x] = argb(p[layout.r], p[layout.g], p[layout.b], layout.a.map { p[$0] } ?? 255)
            }
        }
        return true
    }
}
