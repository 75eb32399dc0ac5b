// libass, the subtitle renderer behind ffmpeg's `subtitles` filter, mpv and VLC, is opened the
// first time a subtitle file is rendered, not with the plugin: the element loads (and does
// everything else) on a machine without it, and only a subtitle file set there is an error.

import CAss
import Glibc

/// The libass functions the element calls, resolved with dlopen/dlsym.
struct AssLibrary: @unchecked Sendable {
    /// The callback is `wm_ass_message_callback()` (libass passes a va_list, which Swift cannot take).
    typealias Message = UnsafeRawPointer
    let libraryInit: @convention(c) () -> OpaquePointer?
    let libraryDone: @convention(c) (OpaquePointer?) -> Void
    let setMessageCallback: @convention(c) (OpaquePointer?, Message?, UnsafeMutableRawPointer?) -> Void
    let setExtractFonts: @convention(c) (OpaquePointer?, Int32) -> Void
    let setFontsDir: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void
    let rendererInit: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let rendererDone: @convention(c) (OpaquePointer?) -> Void
    let setFrameSize: @convention(c) (OpaquePointer?, Int32, Int32) -> Void
    let setStorageSize: @convention(c) (OpaquePointer?, Int32, Int32) -> Void
    let setFonts:
        @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, Int32
        ) -> Void
    let readMemory:
        @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int, UnsafePointer<CChar>?) -> OpaquePointer?
    let newTrack: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let processCodecPrivate: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32) -> Void
    let processChunk: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32, Int64, Int64) -> Void
    let freeTrack: @convention(c) (OpaquePointer?) -> Void
    let renderFrame:
        @convention(c) (OpaquePointer?, OpaquePointer?, Int64, UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<
            ASS_Image
        >?

    /// The library, or why subtitles cannot be rendered here.
    static let shared: Result<AssLibrary, SubtitleUnavailable> = load()

    private static func load() -> Result<AssLibrary, SubtitleUnavailable> {
        guard let lib = dlopen("libass.so.9", RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(SubtitleUnavailable(reason: "burning in subtitles needs libass (libass9): \(why)"))
        }
        var missing: [String] = []
        func f<T>(_ name: String) -> T? {
            guard let p = dlsym(lib, name) else {
                missing.append(name)
                return nil
            }
            return unsafeBitCast(p, to: T.self)
        }
        guard let a: @convention(c) () -> OpaquePointer? = f("ass_library_init"),
            let b: @convention(c) (OpaquePointer?) -> Void = f("ass_library_done"),
            let c: @convention(c) (OpaquePointer?, Message?, UnsafeMutableRawPointer?) -> Void = f(
                "ass_set_message_cb"),
            let d: @convention(c) (OpaquePointer?, Int32) -> Void = f("ass_set_extract_fonts"),
            let e: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void = f("ass_set_fonts_dir"),
            let g: @convention(c) (OpaquePointer?) -> OpaquePointer? = f("ass_renderer_init"),
            let h: @convention(c) (OpaquePointer?) -> Void = f("ass_renderer_done"),
            let i: @convention(c) (OpaquePointer?, Int32, Int32) -> Void = f("ass_set_frame_size"),
            let j: @convention(c) (OpaquePointer?, Int32, Int32) -> Void = f("ass_set_storage_size"),
            let k:
                @convention(c) (
                    OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, Int32
                ) -> Void = f("ass_set_fonts"),
            let l:
                @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int, UnsafePointer<CChar>?) ->
                    OpaquePointer? = f("ass_read_memory"),
            let m: @convention(c) (OpaquePointer?) -> OpaquePointer? = f("ass_new_track"),
            let n: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32) -> Void = f(
                "ass_process_codec_private"),
            let o: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32, Int64, Int64) -> Void = f(
                "ass_process_chunk"),
            let p: @convention(c) (OpaquePointer?) -> Void = f("ass_free_track"),
            let q:
                @convention(c) (OpaquePointer?, OpaquePointer?, Int64, UnsafeMutablePointer<Int32>?) ->
                    UnsafeMutablePointer<ASS_Image>? = f("ass_render_frame")
        else {
            return .failure(
                SubtitleUnavailable(
                    reason:
                        "burning in subtitles needs libass 0.13 or later: \(missing.joined(separator: ", ")) missing"
                ))
        }
        return .success(
            AssLibrary(
                libraryInit: a, libraryDone: b, setMessageCallback: c, setExtractFonts: d, setFontsDir: e,
                rendererInit: g, rendererDone: h, setFrameSize: i, setStorageSize: j, setFonts: k, readMemory: l,
                newTrack: m, processCodecPrivate: n, processChunk: o, freeTrack: p, renderFrame: q))
    }
}

package struct SubtitleUnavailable: Error, Sendable, CustomStringConvertible {
    package let reason: String
    package var description: String { reason }
}
