// librsvg is loaded the first time an SVG is decoded, not with the plugin: it is the largest
// library the element uses (~3.7 MB resident once loaded), and most watermarks are PNGs.

import CPangoCairo
import CRsvg
import WatermarkSharedLibrary

/// The four librsvg functions the element calls.
struct RsvgLibrary: @unchecked Sendable {
    typealias GErrorOut = UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
    let newFromData: @convention(c) (UnsafePointer<guint8>?, gsize, GErrorOut) -> OpaquePointer?
    let intrinsicSizeInPixels:
        @convention(c) (OpaquePointer?, UnsafeMutablePointer<gdouble>?, UnsafeMutablePointer<gdouble>?) -> gboolean
    let intrinsicDimensions:
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<gboolean>?,
            UnsafeMutablePointer<RsvgLength>?, UnsafeMutablePointer<gboolean>?,
            UnsafeMutablePointer<RsvgLength>?, UnsafeMutablePointer<gboolean>?,
            UnsafeMutablePointer<RsvgRectangle>?
        ) -> Void
    let renderDocument:
        @convention(c) (OpaquePointer?, OpaquePointer?, UnsafePointer<RsvgRectangle>?, GErrorOut) -> gboolean

    private init(_ l: SharedLibrary) throws(LibraryUnavailable) {
        newFromData = try l.function("rsvg_handle_new_from_data")
        intrinsicSizeInPixels = try l.function("rsvg_handle_get_intrinsic_size_in_pixels")
        intrinsicDimensions = try l.function("rsvg_handle_get_intrinsic_dimensions")
        renderDocument = try l.function("rsvg_handle_render_document")
    }

    /// The library, or the reason it cannot be used (reported as the image's load error).
    static let shared = Result { () throws(LibraryUnavailable) in
        try RsvgLibrary(SharedLibrary("librsvg-2.so.2"))
    }.mapError { $0.stopping("SVG support needs librsvg 2.52 or later (librsvg2-2)") }
}
