// Invariant: every frame is copied out of the decoder into a cairo surface of its own
// before the decoder is freed; the decoders' buffers are read only within width × height
// pixels of their stated row length.

import CGdkPixbuf
import CPangoCairo
import CWebP
import Glibc
import WatermarkModel

/// An animated logo decoded once, at load: every frame a still image, with how long it shows
/// and how many times the whole plays. Which frame shows is a pure function of the layer's
/// time, as for every other moving part.
package struct ImageAnimation: Sendable {
    package let frames: [DecodedImage]
    /// Seconds each frame shows.
    package let durations: [Double]
    /// Plays in all; 0 = forever. After the last play the last frame stays.
    package let loops: Int
    /// Seconds of one play.
    package let total: Double

    /// Decoded frames may take at most this many bytes (4 per pixel).
    package static let budget = 64 << 20
    /// GIF and WebP delays under 20 ms are shown at 100 ms, as browsers do.
    static let shortest = 0.02

    init(frames: [DecodedImage], durations: [Double], loops: Int) {
        self.frames = frames
        self.durations = durations.map { $0 < Self.shortest ? 0.1 : $0 }
        self.loops = max(0, loops)
        total = self.durations.reduce(0, +)
    }

    /// The frame showing `time` seconds after the layer started.
    package func index(at time: Double?) -> Int {
        guard frames.count > 1, let time, time.isFinite, total > 0 else { return 0 }
        let t = max(0, time)
        if loops > 0, t >= Double(loops) * total { return frames.count - 1 }
        var r = t.truncatingRemainder(dividingBy: total)
        for (i, d) in durations.enumerated() {
            if r < d { return i }
            r -= d
        }
        return frames.count - 1
    }
}

extension DecodedImage {
    /// A still from premultiplied ARGB words, `width` per row.
    static func still(path: String, pixels: UnsafePointer<UInt32>, width: Int, height: Int, rowWords: Int)
        -> DecodedImage?
    {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)),
            cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let dst = cairo_image_surface_get_data(surface)
        else { return nil }
        let stride = Int(cairo_image_surface_get_stride(surface))
        cairo_surface_flush(surface)
        for y in 0..<height {
            UnsafeMutableRawPointer(dst + y * stride).assumingMemoryBound(to: UInt32.self)
                .update(from: pixels + y * rowWords, count: width)
        }
        cairo_surface_mark_dirty(surface)
        return DecodedImage(
            path: path, kind: .raster, width: Double(width), height: Double(height), surface: surface, handle: nil)
    }

    static func checkBudget(frames: Int, width: Int, height: Int, path: String) throws(ImageLoadError) {
        if frames * width * height * 4 > ImageAnimation.budget {
            throw ImageLoadError(
                kind: .invalid, path: path,
                reason:
                    "the animation needs \(frames * width * height * 4 >> 20) MB decoded (\(frames) frames of "
                    + "\(width)x\(height)); at most \(ImageAnimation.budget >> 20) MB")
        }
    }

    /// WebP, still or animated, through libwebp's WebPAnimDecoder (premultiplied BGRA, which
    /// is cairo's ARGB32 in memory): frames, their end times and the loop count.
    static func decodeWebP(path: String) throws(ImageLoadError) -> DecodedImage {
        guard case .success(let bytes) = readFile(path, limit: 256 << 20) else {
            throw ImageLoadError(kind: .unreadable, path: path, reason: "cannot read the file")
        }
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw ImageLoadError(kind: .invalid, path: path, reason: "libwebp version mismatch")
        }
        options.color_mode = MODE_bgrA
        options.use_threads = 0
        return try bytes.withUnsafeBufferPointer { buf throws(ImageLoadError) -> DecodedImage in
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
            let w = Int(info.canvas_width), h = Int(info.canvas_height), count = Int(info.frame_count)
            try checkSize(w, h, path: path)
            try checkBudget(frames: count, width: w, height: h, path: path)
            var frames: [DecodedImage] = []
            var durations: [Double] = []
            var previous: Int32 = 0
            while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
                var out: UnsafeMutablePointer<UInt8>?
                var end: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &out, &end) != 0, let out else {
                    throw ImageLoadError(
                        kind: .invalid, path: path,
                        reason: "frame \(frames.count) cannot be decoded (truncated or corrupt)")
                }
                let words = UnsafeRawPointer(out).assumingMemoryBound(to: UInt32.self)
                guard let frame = still(path: path, pixels: words, width: w, height: h, rowWords: w) else {
                    throw ImageLoadError(kind: .invalid, path: path, reason: "out of memory")
                }
                frames.append(frame)
                durations.append(Double(end - previous) / 1000)
                previous = end
            }
            guard let first = frames.first else {
                throw ImageLoadError(kind: .invalid, path: path, reason: "the WebP image has no frames")
            }
            if frames.count == 1 { return first }
            return DecodedImage(
                path: path, kind: .raster, width: Double(w), height: Double(h), surface: nil, handle: nil,
                animation: ImageAnimation(frames: frames, durations: durations, loops: Int(info.loop_count)))
        }
    }

    /// An animated GIF through gdk-pixbuf's animation API; nil for a GIF of one frame. The
    /// API gives the composited picture and the time left at any moment, not a frame list: it
    /// is stepped frame by frame from the start until the sequence repeats (one play found)
    /// and then, for a GIF that plays a number of times, to its end (the last frame then
    /// shows forever), which gives the loop count.
    static func decodeGIFAnimation(path: String) throws(ImageLoadError) -> DecodedImage? {
        var error: UnsafeMutablePointer<GError>?
        guard let anim = gdk_pixbuf_animation_new_from_file(path, &error) else {
            throw ImageLoadError(kind: .invalid, path: path, reason: gerrorMessage(error))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(anim)) }
        if gdk_pixbuf_animation_is_static_image(anim) != 0 { return nil }
        let w = Int(gdk_pixbuf_animation_get_width(anim)), h = Int(gdk_pixbuf_animation_get_height(anim))
        try checkSize(w, h, path: path)
        var now = GTimeVal(tv_sec: 0, tv_usec: 0)
        guard let iter = gdk_pixbuf_animation_get_iter(anim, &now) else {
            throw ImageLoadError(kind: .invalid, path: path, reason: "cannot play the animation")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(iter)) }
        var pictures: [[UInt32]] = []
        var delays: [Int] = []
        var period: Int?
        var shown = 0
        let maxSteps = 8192
        var step = 0
        while step < maxSteps {
            step += 1
            let delay = Int(gdk_pixbuf_animation_iter_get_delay_time(iter))
            // After the last play the iterator holds the last frame (no delay): not a frame.
            if let p = period {
                // Counting plays (no pixels needed).
                if delay < 0 { return try gifImage(path, pictures, delays, w, h, loops: max(1, shown / p)) }
                shown += 1
                if shown >= 64 * p { break }
            } else {
                if delay < 0, !pictures.isEmpty { return try gifImage(path, pictures, delays, w, h, loops: 1) }
                guard let pixbuf = gdk_pixbuf_animation_iter_get_pixbuf(iter), let picture = premultiplied(pixbuf, w, h)
                else { throw ImageLoadError(kind: .invalid, path: path, reason: "frame \(shown) cannot be decoded") }
                pictures.append(picture)
                delays.append(delay)
                shown += 1
                try checkBudget(frames: pictures.count, width: w, height: h, path: path)
                // One play found when the second half repeats the first.
                let n = pictures.count
                let half = n / 2
                if n % 2 == 0, delays[0] == delays[half], pictures[0] == pictures[half],
                    (0..<half).allSatisfy({ delays[$0] == delays[half + $0] && pictures[$0] == pictures[half + $0] })
                {
                    period = n / 2
                    pictures.removeLast(n / 2)
                    delays.removeLast(n / 2)
                }
            }
            let ms = max(delay, 1)
            now.tv_usec += ms * 1000
            now.tv_sec += now.tv_usec / 1_000_000
            now.tv_usec %= 1_000_000
            _ = gdk_pixbuf_animation_iter_advance(iter, &now)
        }
        // Still going after 64 plays: it plays forever.
        return try gifImage(path, pictures, delays, w, h, loops: 0)
    }

    private static func gifImage(
        _ path: String, _ pictures: [[UInt32]], _ delays: [Int], _ w: Int, _ h: Int, loops: Int
    ) throws(ImageLoadError) -> DecodedImage {
        var frames: [DecodedImage] = []
        for p in pictures {
            guard
                let frame = p.withUnsafeBufferPointer({ b in
                    b.baseAddress.flatMap { still(path: path, pixels: $0, width: w, height: h, rowWords: w) }
                })
            else {
                throw ImageLoadError(kind: .invalid, path: path, reason: "out of memory")
            }
            frames.append(frame)
        }
        guard let first = frames.first else { throw ImageLoadError(kind: .invalid, path: path, reason: "no frames") }
        if frames.count == 1 { return first }
        // The last frame's delay is the time it shows within a play (none when it ends the animation).
        let seconds = delays.map { $0 < 0 ? 0.1 : Double($0) / 1000 }
        return DecodedImage(
            path: path, kind: .raster, width: Double(w), height: Double(h), surface: nil, handle: nil,
            animation: ImageAnimation(frames: frames, durations: seconds, loops: loops))
    }

    /// A pixbuf's pixels as premultiplied ARGB words, `w` × `h`.
    private static func premultiplied(_ pixbuf: OpaquePointer, _ w: Int, _ h: Int) -> [UInt32]? {
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        guard gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, channels >= 3, Int(gdk_pixbuf_get_width(pixbuf)) == w,
            Int(gdk_pixbuf_get_height(pixbuf)) == h, let src = gdk_pixbuf_read_pixels(pixbuf)
        else { return nil }
        let alpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        var out = [UInt32](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let p = src + y * rowstride + x * channels
                let a = alpha ? UInt32(p[3]) : 255
                func pm(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
                out[y * w + x] = a << 24 | pm(p[0]) << 16 | pm(p[1]) << 8 | pm(p[2])
            }
        }
        return out
    }
}
