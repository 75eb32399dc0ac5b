// librsvg is loaded the first time an SVG is decoded, not with the plugin: it is the largest
// library the element uses (~3.7 MB resident once loaded), and most watermarks are PNGs.

import CPangoCairo
import CRsvg
import Glibc

/// The four librsvg functions the element calls, resolved with dlopen/dlsym.
struct RsvgLibrary: @unchecked Sendable {
    typealias GErrorOut = UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
    typealias NewFromFile = @convention(c) (UnsafePointer<gchar>?, GErrorOut) -> OpaquePointer?
    typealias IntrinsicSizeInPixels =
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<gdouble>?,
            UnsafeMutablePointer<gdouble>?
        ) -> gboolean
    typealias IntrinsicDimensions =
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<gboolean>?,
            UnsafeMutablePointer<RsvgLength>?, UnsafeMutablePointer<gboolean>?,
            UnsafeMutablePointer<RsvgLength>?, UnsafeMutablePointer<gboolean>?,
            UnsafeMutablePointer<RsvgRectangle>?
        ) -> Void
    typealias RenderDocument =
        @convention(c) (
            OpaquePointer?, OpaquePointer?, UnsafePointer<RsvgRectangle>?,
            GErrorOut
        ) -> gboolean
    let newFromFile: NewFromFile
    let intrinsicSizeInPixels: IntrinsicSizeInPixels
    let intrinsicDimensions: IntrinsicDimensions
    let renderDocument: RenderDocument

    /// The library, or the reason it cannot be used (reported as the image's load error).
    static let shared: Result<RsvgLibrary, RsvgUnavailable> = load()

    private static func load() -> Result<RsvgLibrary, RsvgUnavailable> {
        guard let lib = dlopen("librsvg-2.so.2", RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(RsvgUnavailable(reason: "SVG support needs librsvg 2.52 or later (librsvg2-2): \(why)"))
        }
        func symbol<T>(_ name: String, as: T.Type) -> T? {
            dlsym(lib, name).map { unsafeBitCast($0, to: T.self) }
        }
        guard let a = symbol("rsvg_handle_new_from_file", as: NewFromFile.self),
            let b = symbol("rsvg_handle_get_intrinsic_size_in_pixels", as: IntrinsicSizeInPixels.self),
            let c = symbol("rsvg_handle_get_intrinsic_dimensions", as: IntrinsicDimensions.self),
            let d = symbol("rsvg_handle_render_document", as: RenderDocument.self)
        else {
            return .failure(RsvgUnavailable(reason: "SVG support needs librsvg 2.52 or later: a function is missing"))
        }
        return .success(
            RsvgLibrary(newFromFile: a, intrinsicSizeInPixels: b, intrinsicDimensions: c, renderDocument: d))
    }
}

struct RsvgUnavailable: Error, Sendable {
    let reason: String
}
