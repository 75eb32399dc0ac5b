// FFmpeg is opened the first time an animated PNG is decoded, not with the plugin: libavcodec
// brings every codec library Debian builds it with (over a hundred, ~30 MB resident once
// relocated), and most logos are PNGs, JPEGs or SVGs.

import CAVTypes
import WatermarkSharedLibrary

/// The FFmpeg functions the APNG decoder calls (every entry set).
struct AVLibrary: @unchecked Sendable {
    let functions: WatermarkAVFunctions

    private init() throws(LibraryUnavailable) {
        // The sonames of the headers this was built with.
        let util = try SharedLibrary("libavutil.so.\(LIBAVUTIL_VERSION_MAJOR)")
        let codec = try SharedLibrary("libavcodec.so.\(LIBAVCODEC_VERSION_MAJOR)")
        let format = try SharedLibrary("libavformat.so.\(LIBAVFORMAT_VERSION_MAJOR)")
        var f = WatermarkAVFunctions()
        f.avformat_open_input = try format.function("avformat_open_input")
        f.avformat_find_stream_info = try format.function("avformat_find_stream_info")
        f.avformat_close_input = try format.function("avformat_close_input")
        f.av_find_input_format = try format.function("av_find_input_format")
        f.av_read_frame = try format.function("av_read_frame")
        f.avcodec_find_decoder = try codec.function("avcodec_find_decoder")
        f.avcodec_alloc_context3 = try codec.function("avcodec_alloc_context3")
        f.avcodec_free_context = try codec.function("avcodec_free_context")
        f.avcodec_parameters_to_context = try codec.function("avcodec_parameters_to_context")
        f.avcodec_open2 = try codec.function("avcodec_open2")
        f.avcodec_send_packet = try codec.function("avcodec_send_packet")
        f.avcodec_receive_frame = try codec.function("avcodec_receive_frame")
        f.av_packet_alloc = try codec.function("av_packet_alloc")
        f.av_packet_free = try codec.function("av_packet_free")
        f.av_packet_unref = try codec.function("av_packet_unref")
        f.av_frame_alloc = try util.function("av_frame_alloc")
        f.av_frame_free = try util.function("av_frame_free")
        f.av_frame_unref = try util.function("av_frame_unref")
        functions = f
    }

    /// The libraries, or the reason they cannot be used (reported as the image's load error).
    static let shared = Result { () throws(LibraryUnavailable) in try AVLibrary() }
        .mapError { $0.stopping("animated PNG needs FFmpeg's libavformat, libavcodec and libavutil") }
}
