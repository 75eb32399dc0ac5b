// Invariant: a DecodedImage owns one cairo surface or one RsvgHandle, created by
// `decode` and destroyed in deinit. After decode it is only read, and only inside
// `draw`, which holds the image's own lock: elements of several pipelines share one
// decoded image (`DecodedImage.shared`), and neither an RsvgHandle nor a cairo surface
// may be used by two threads at once. That is what makes the @unchecked Sendable below
// true.

import CGdkPixbuf
import CPangoCairo
import CRsvg
import Glibc
import WatermarkModel

/// Why an image could not be used, with a message that names the file and the reason.
package struct ImageLoadError: Error, CustomStringConvertible, Sendable {
    package enum Kind: Sendable { case notFound, unreadable, invalid }
    package var kind: Kind
    package var path: String
    package var reason: String
    package var description: String { "Could not load image \"\(path)\": \(reason)" }
}

/// A logo decoded once, at start or when the `image` property changes — never per
/// frame. Raster images (PNG through cairo; JPEG and anything else gdk-pixbuf reads)
/// become a cairo image surface; SVG stays vector and is rendered at the exact target size.
package final class DecodedImage: @unchecked Sendable {
    package enum Kind: Sendable { case raster, svg }
    package let path: String
    package let kind: Kind
    /// Natural size in pixels (SVG: its intrinsic size).
    package let width: Double
    package let height: Double
    private let surface: OpaquePointer?
    private let handle: OpaquePointer?
    /// An animated image's frames and timing (GIF, WebP, APNG); nil for a still image. The
    /// image itself then stands for its first frame.
    package let animation: ImageAnimation?
    /// Held while drawing (see the invariant above).
    private let drawing = Locked(0)  // not Void: see SharedFonts.lock

    /// Larger images are refused before decoding: 16384×16384 is beyond any logo and
    /// keeps a hostile header (100000×100000) from allocating gigabytes.
    package static let maxPixels = 16384 * 16384
    package static let maxSide = 16384

    init(
        path: String, kind: Kind, width: Double, height: Double,
        surface: OpaquePointer?, handle: OpaquePointer?, animation: ImageAnimation? = nil
    ) {
        self.path = path
        self.kind = kind
        self.width = width
        self.height = height
        self.surface = surface
        self.handle = handle
        self.animation = animation
    }

    /// The still to draw `time` seconds after the layer started: the animation's frame
    /// then, or this image. `wait`: see `ImageAnimation.frame(at:wait:)`.
    package func frame(at time: Double?, wait: Bool = true) -> DecodedImage {
        animation?.frame(at: time, wait: wait) ?? self
    }

    deinit {
        if let surface { cairo_surface_destroy(surface) }
        if let handle { g_object_unref(UnsafeMutableRawPointer(handle)) }
    }

    /// The file an image was decoded from, as it was then: a changed file (new size,
    /// time or inode, as an editor's save or a replaced logo give) is another key.
    private struct FileKey: Hashable {
        var path: String
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int
        var modifiedNanos: Int

        init?(path: String) {
            var st = stat()
            guard stat(path, &st) == 0 else { return nil }
            self.path = path
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            modified = Int(st.st_mtim.tv_sec)
            modifiedNanos = Int(st.st_mtim.tv_nsec)
        }
    }

    /// The images decoded last, newest at the end: a process that starts many pipelines
    /// with the same logo (a batch export, a restarting stream) decodes it once.
    private static let recent = Locked([(key: FileKey, image: DecodedImage)]())
    private static let recentCount = 8

    /// `decode(path:)`, or the image this process decoded from the same, unchanged file.
    /// Blocking file I/O: never call it on a streaming thread.
    package static func shared(path: String) throws(ImageLoadError) -> DecodedImage {
        guard let key = FileKey(path: path) else { return try decode(path: path) }
        if let hit = recent.withLock({ list -> DecodedImage? in
            guard let i = list.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = list.remove(at: i)
            list.append(entry)
            return entry.image
        }) {
            return hit
        }
        let image = try decode(path: path)
        // A window follows one player's time: each user gets its own.
        if image.animation?.window != nil { return image }
        recent.withLock { list in
            list.removeAll { $0.key.path == path }
            list.append((key, image))
            if list.count > recentCount { list.removeFirst(list.count - recentCount) }
        }
        return image
    }

    /// Reads and decodes `path`. Blocking file I/O: never call it on a streaming thread.
    /// An animation keeps its frames decoded within `budget` bytes (`ImageAnimation`).
    package static func decode(path: String, budget: Int = ImageAnimation.budget) throws(ImageLoadError)
        -> DecodedImage
    {
        if path.isEmpty { throw ImageLoadError(kind: .notFound, path: path, reason: "empty path") }
        var st = stat()
        if stat(path, &st) != 0 {
            let err = errno
            throw ImageLoadError(
                kind: err == ENOENT ? .notFound : .unreadable, path: path,
                reason: String(cString: strerror(err)))
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw ImageLoadError(kind: .unreadable, path: path, reason: "is a directory")
        }
        if access(path, R_OK) != 0 {
            throw ImageLoadError(kind: .unreadable, path: path, reason: systemError())
        }
        if st.st_size == 0 {
            throw ImageLoadError(kind: .invalid, path: path, reason: "the file is empty")
        }
        let head = fileHead(path: path)
        if looksLikeSVG(path: path, head: head) {
            return try decodeSVG(path: path)
        }
        // Animations by content, not by name.
        if head.starts(with: Array("GIF8".utf8)), let animated = try decodeGIFAnimation(path: path, budget: budget) {
            return animated
        }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual(Array("WEBP".utf8)) {
            return try decodeWebP(path: path, budget: budget)
        }
        if pngHeaderSize(head: head) != nil, let control = apngControl(head) {
            return try decodeAPNG(path: path, frames: control.frames, plays: control.plays, budget: budget)
        }
        return try decodeRaster(path: path, head: head)
    }

    /// The first 512 bytes of the file (fewer if it is shorter or cannot be read), which
    /// tell its format.
    private static func fileHead(path: String) -> [UInt8] {
        guard let f = fopen(path, "rb") else { return [] }
        defer { fclose(f) }
        var head = [UInt8](repeating: 0, count: 512)
        // Read first: `head.prefix(fread(&head, …))` would take the prefix of the array as it
        // was before the read (the read goes to a copy).
        let n = fread(&head, 1, head.count, f)
        return Array(head.prefix(n))
    }

    private static func looksLikeSVG(path: String, head: [UInt8]) -> Bool {
        let lower = path.lowercased()
        if lower.hasSuffix(".svg") || lower.hasSuffix(".svgz") { return true }
        return Substring(String(decoding: head, as: UTF8.self)).byteRange(of: "<svg") != nil
    }

    static func gerrorMessage(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        guard let m = error.pointee.message else { return "unknown error" }
        return String(cString: m)
    }

    /// The size a PNG's header declares, nil when the file does not start like a PNG.
    private static func pngHeaderSize(head: [UInt8]) -> (width: Int, height: Int)? {
        // Signature (8 bytes), then the IHDR chunk: length (4), type (4), width, height.
        guard head.count >= 24,
            head[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            head[12..<16].elementsEqual(Array("IHDR".utf8))
        else { return nil }
        func be32(_ at: Int) -> Int { head[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }

    static func checkSize(_ w: Int, _ h: Int, path: String) throws(ImageLoadError) {
        if w <= 0 || h <= 0 || w > maxSide || h > maxSide || w * h > maxPixels {
            throw ImageLoadError(
                kind: .invalid, path: path,
                reason: "image is \(w)x\(h) pixels; at most \(maxSide)x\(maxSide) is supported")
        }
    }

    private static func decodeRaster(path: String, head: [UInt8]) throws(ImageLoadError) -> DecodedImage {
        if let size = pngHeaderSize(head: head) {
            try checkSize(size.width, size.height, path: path)
            if let image = decodePNG(path: path) { return image }
            // A PNG cairo cannot read goes to gdk-pixbuf, which names what is wrong with it.
        }
        var w: Int32 = 0, h: Int32 = 0
        guard gdk_pixbuf_get_file_info(path, &w, &h) != nil else {
            throw ImageLoadError(
                kind: .invalid, path: path, reason: "not a PNG, JPEG or SVG image (format not recognised)")
        }
        try checkSize(Int(w), Int(h), path: path)
        var error: UnsafeMutablePointer<GError>?
        guard let pixbuf = gdk_pixbuf_new_from_file(path, &error) else {
            throw ImageLoadError(kind: .invalid, path: path, reason: gerrorMessage(error))
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let pw = Int(gdk_pixbuf_get_width(pixbuf)), ph = Int(gdk_pixbuf_get_height(pixbuf))
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(pw), Int32(ph)),
            cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS,
            let dst = cairo_image_surface_get_data(surface)
        else {
            throw ImageLoadError(kind: .invalid, path: path, reason: "unsupported pixel layout or out of memory")
        }
        cairo_surface_flush(surface)
        let words = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: UInt32.self)
        guard premultiply(pixbuf, into: words, rowWords: Int(cairo_image_surface_get_stride(surface)) / 4) else {
            cairo_surface_destroy(surface)
            throw ImageLoadError(kind: .invalid, path: path, reason: "unsupported pixel layout or out of memory")
        }
        cairo_surface_mark_dirty(surface)
        return DecodedImage(
            path: path, kind: .raster, width: Double(pw), height: Double(ph),
            surface: surface, handle: nil)
    }

    /// PNG through cairo's own reader (libpng, which cairo links anyway): the decoded
    /// surface is what drawing needs without a copy, and gdk-pixbuf's loader machinery
    /// (module cache, MIME sniffing through GIO) stays unloaded — about 1 MB less resident
    /// for a PNG logo. Nil when cairo cannot read it (its error does not say why).
    private static func decodePNG(path: String) -> DecodedImage? {
        guard let png = cairo_image_surface_create_from_png(path) else { return nil }
        guard cairo_surface_status(png) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(png)
            return nil
        }
        // ARGB32 premultiplied for PNGs with alpha, RGB24 (opaque to cairo) without.
        let w = cairo_image_surface_get_width(png), h = cairo_image_surface_get_height(png)
        return DecodedImage(
            path: path, kind: .raster, width: Double(w), height: Double(h),
            surface: png, handle: nil)
    }

    private static func decodeSVG(path: String) throws(ImageLoadError) -> DecodedImage {
        let rsvg: RsvgLibrary
        switch RsvgLibrary.shared {
        case .success(let lib): rsvg = lib
        case .failure(let e): throw ImageLoadError(kind: .invalid, path: path, reason: e.reason)
        }
        let bytes: [UInt8]
        switch readFile(path, limit: 256 << 20) {
        case .success(let read): bytes = read
        case .failure(let e): throw ImageLoadError(kind: .unreadable, path: path, reason: e.reason)
        }
        var error: UnsafeMutablePointer<GError>?
        // From memory, not from the file (rsvg_handle_new_from_file): no GFile, so GIO's
        // modules are not loaded on the loading thread. Loaded there while GStreamer's
        // rtmp2sink started its GIO proxy resolver (libproxy, Debian 13) in another thread,
        // the two hung the pipeline's start. Default flags: librsvg refuses huge XML and
        // entity expansion; with no base file, external references resolve to nothing.
        guard let handle = bytes.withUnsafeBufferPointer({ rsvg.newFromData($0.baseAddress, gsize($0.count), &error) })
        else {
            throw ImageLoadError(kind: .invalid, path: path, reason: "not a valid SVG: " + gerrorMessage(error))
        }
        var w = 0.0, h = 0.0
        if rsvg.intrinsicSizeInPixels(handle, &w, &h) == 0 || w <= 0 || h <= 0 {
            var hasW: gboolean = 0, hasH: gboolean = 0, hasVB: gboolean = 0
            var lw = RsvgLength(), lh = RsvgLength(), vb = RsvgRectangle()
            rsvg.intrinsicDimensions(handle, &hasW, &lw, &hasH, &lh, &hasVB, &vb)
            if hasVB != 0, vb.width > 0, vb.height > 0 {
                (w, h) = (vb.width, vb.height)
            } else {
                g_object_unref(UnsafeMutableRawPointer(handle))
                throw ImageLoadError(kind: .invalid, path: path, reason: "the SVG has neither a size nor a viewBox")
            }
        }
        guard w.isFinite, h.isFinite, w <= Double(maxSide) * 16, h <= Double(maxSide) * 16 else {
            g_object_unref(UnsafeMutableRawPointer(handle))
            throw ImageLoadError(kind: .invalid, path: path, reason: "the SVG's size \(w)x\(h) is out of range")
        }
        return DecodedImage(path: path, kind: .svg, width: w, height: h, surface: nil, handle: handle)
    }

    /// The first pixel of a raster image (premultiplied ARGB).
    var firstPixel: UInt32? {
        drawing.withLock { _ -> UInt32? in
            guard let surface, let data = cairo_image_surface_get_data(surface) else { return nil }
            cairo_surface_flush(surface)
            return UnsafeRawPointer(data).load(as: UInt32.self)
        }
    }

    /// Draws the image scaled into (0, 0, width, height) of `cr`'s current user space.
    func draw(into cr: OpaquePointer, width: Double, height: Double) {
        guard width > 0, height > 0, self.width > 0, self.height > 0 else { return }
        // An animation as such draws its first frame.
        if surface == nil, handle == nil, let first = animation?.first {
            return first.draw(into: cr, width: width, height: height)
        }
        drawing.withLock { _ in drawLocked(into: cr, width: width, height: height) }
    }

    private func drawLocked(into cr: OpaquePointer, width: Double, height: Double) {
        cairo_save(cr)
        defer { cairo_restore(cr) }
        switch kind {
        case .raster:
            guard let surface else { return }
            let pw = self.width, ph = self.height
            cairo_scale(cr, width / pw, height / ph)
            cairo_set_source_surface(cr, surface, 0, 0)
            if let pattern = cairo_get_source(cr) {
                cairo_pattern_set_filter(pattern, CAIRO_FILTER_GOOD)
                cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
            }
            cairo_rectangle(cr, 0, 0, pw, ph)
            cairo_fill(cr)
        case .svg:
            // A handle exists only if the library loaded.
            guard let handle, case .success(let rsvg) = RsvgLibrary.shared else { return }
            var viewport = RsvgRectangle(x: 0, y: 0, width: width, height: height)
            var error: UnsafeMutablePointer<GError>?
            if rsvg.renderDocument(handle, cr, &viewport, &error) == 0, let error {
                g_error_free(error)
            }
        }
    }
}
