// libass, the subtitle renderer behind ffmpeg's `subtitles` filter, mpv and VLC, is opened the
// first time a subtitle file is rendered, not with the plugin: the element loads (and does
// everything else) on a machine without it, and only a subtitle file set there is an error.

import CAss
import WatermarkSharedLibrary

/// The libass functions the element calls.
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

    private init(_ l: SharedLibrary) throws(LibraryUnavailable) {
        libraryInit = try l.function("ass_library_init")
        libraryDone = try l.function("ass_library_done")
        setMessageCallback = try l.function("ass_set_message_cb")
        setExtractFonts = try l.function("ass_set_extract_fonts")
        setFontsDir = try l.function("ass_set_fonts_dir")
        rendererInit = try l.function("ass_renderer_init")
        rendererDone = try l.function("ass_renderer_done")
        setFrameSize = try l.function("ass_set_frame_size")
        setStorageSize = try l.function("ass_set_storage_size")
        setFonts = try l.function("ass_set_fonts")
        readMemory = try l.function("ass_read_memory")
        newTrack = try l.function("ass_new_track")
        processCodecPrivate = try l.function("ass_process_codec_private")
        processChunk = try l.function("ass_process_chunk")
        freeTrack = try l.function("ass_free_track")
        renderFrame = try l.function("ass_render_frame")
    }

    /// The library, or why subtitles cannot be rendered here.
    static let shared = Result { () throws(LibraryUnavailable) in try AssLibrary(SharedLibrary("libass.so.9")) }
        .mapError { SubtitleUnavailable(reason: $0.stopping("burning in subtitles needs libass (libass9)").reason) }
}

package struct SubtitleUnavailable: Error, Sendable, CustomStringConvertible {
    package let reason: String
    package var description: String { reason }
}
