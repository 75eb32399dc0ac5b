import CGdkPixbuf
import CPangoCairo
import GstTestSupport
import Testing
import WatermarkModel

@testable import WatermarkRender

/// PNGs are decoded by cairo, other raster formats by gdk-pixbuf: every kind of PNG must
/// come out with the same premultiplied pixels gdk-pixbuf gives.
@Suite struct ImageTests {
    /// pngenc's input formats: with alpha (varying per pixel), colour without alpha, 8- and
    /// 16-bit gray.
    static let variants: [(name: String, chain: String)] = [
        ("rgba", "videoconvert ! alpha method=green ! videoconvert ! video/x-raw,format=RGBA"),
        ("rgb", "videoconvert ! video/x-raw,format=RGB"),
        ("gray8", "videoconvert ! video/x-raw,format=GRAY8"),
        ("gray16", "videoconvert ! video/x-raw,format=GRAY16_BE"),
    ]

    /// Premultiplied ARGB of the whole image as gdk-pixbuf decodes it.
    static func pixbufPixels(_ path: String) -> (width: Int, height: Int, argb: [UInt32])? {
        guard let pixbuf = gdk_pixbuf_new_from_file(path, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let w = Int(gdk_pixbuf_get_width(pixbuf)), h = Int(gdk_pixbuf_get_height(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let alpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        guard let src = gdk_pixbuf_read_pixels(pixbuf) else { return nil }
        var out = [UInt32]()
        for y in 0..<h {
            for x in 0..<w {
                let p = src + y * stride + x * channels
                let a = alpha ? UInt32(p[3]) : 255
                let pm = { (c: UInt8) in (UInt32(c) * a + 127) / 255 }
                out.append(a << 24 | pm(p[0]) << 16 | pm(p[1]) << 8 | pm(p[2]))
            }
        }
        return (w, h, out)
    }

    /// The decoded image drawn at its natural size onto a cleared ARGB32 surface.
    static func decodedPixels(_ image: DecodedImage) -> [UInt32] {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(image.width), Int32(image.height))
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)
        image.draw(into: cr!, width: image.width, height: image.height)
        cairo_destroy(cr)
        return PNGPixels(surface: surface)?.data ?? []
    }

    @Test(arguments: variants.map(\.name))
    func pngDecodesLikeGdkPixbuf(variant: String) throws {
        let chain = try #require(Self.variants.first { $0.name == variant }).chain
        let path = TestEnv.path("decode-\(variant).png")
        let made = Pipeline.run(
            "videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,width=61,height=37 ! \(chain) ! pngenc ! filesink location=\(path)"
        )
        try #require(made.ok)
        let reference = try #require(Self.pixbufPixels(path))
        let image = try DecodedImage.decode(path: path)
        #expect(image.kind == .raster)
        #expect(Int(image.width) == reference.width && Int(image.height) == reference.height)
        let ours = Self.decodedPixels(image)
        try #require(ours.count == reference.argb.count)
        var worst = 0, translucent = 0
        for (a, b) in zip(ours, reference.argb) {
            for shift in stride(from: 0, through: 24, by: 8) {
                worst = max(worst, abs(Int(a >> UInt32(shift) & 0xFF) - Int(b >> UInt32(shift) & 0xFF)))
            }
            if b >> 24 != 255 { translucent += 1 }
        }
        #expect(worst <= 1, "largest channel difference from gdk-pixbuf: \(worst)")
        // The alpha variant really has translucent pixels; the others are opaque.
        #expect((translucent > 0) == (variant == "rgba"))
    }
}

/// Pipelines of one process (a batch export, a restarted stream) share a decoded logo, and
/// a changed file is decoded again.
@Suite struct SharedImageTests {
    @Test func anUnchangedFileIsDecodedOnceAndAChangedOneAgain() throws {
        let path = GstTest.solidPNG("shared-logo.png", width: 8, height: 4, argb: 0xFF00_FF00)
        let a = try DecodedImage.shared(path: path)
        let b = try DecodedImage.shared(path: path)
        #expect(a === b)
        // Replaced by another picture (a new inode, size and time): decoded anew.
        let other = GstTest.solidPNG("shared-logo-2.png", width: 16, height: 16, argb: 0xFFFF_0000)
        #expect(rename(other, path) == 0)
        let c = try DecodedImage.shared(path: path)
        #expect(c !== a)
        #expect(c.width == 16 && c.height == 16)
        // A missing file is still the error it always was.
        #expect(throws: ImageLoadError.self) { try DecodedImage.shared(path: path + ".missing") }
    }

    @Test func oneImageDrawsFromManyThreadsAtOnce() throws {
        let path = GstTest.solidPNG("shared-logo-threads.png", width: 32, height: 32, argb: 0xFF20_40C0)
        let image = try DecodedImage.shared(path: path)
        let group = ThreadGroup()
        let wrong = Locked(0)
        for _ in 0..<4 {
            group.start {
                for _ in 0..<50 {
                    let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 16, 16)
                    guard let cr = cairo_create(surface) else { continue }
                    image.draw(into: cr, width: 16, height: 16)
                    cairo_surface_flush(surface)
                    let px = cairo_image_surface_get_data(surface)?.withMemoryRebound(to: UInt32.self, capacity: 256) {
                        $0[136]
                    }
                    if px != 0xFF20_40C0 { wrong.withLock { $0 += 1 } }
                    cairo_destroy(cr)
                    cairo_surface_destroy(surface)
                }
            }
        }
        group.join()
        #expect(wrong.withLock { $0 } == 0)
    }
}
