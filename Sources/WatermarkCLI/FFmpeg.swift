// FFmpeg's libavformat, libavcodec and libavutil, for the export's metadata steps: reading
// the input's capture tags, display matrix and tracks, extracting a subtitle track, and
// copying the finished file's packets into one that carries them. They are opened the first
// time an export reads its input, not linked: libavcodec brings every codec library Debian
// builds it with (~130 libraries, 24 MB resident and ~30 ms of relocations at every start),
// which a capture, a stream or `--help` does not need.

import CAVTypes
import WatermarkSharedLibrary

/// FFmpeg's functions the export calls, with the headers' own prototypes (every entry set).
typealias FFmpeg = WatermarkAVFormatFunctions

extension FFmpeg: @retroactive @unchecked Sendable {
    /// The functions, or why FFmpeg cannot be used here.
    static let shared = Result { () throws(LibraryUnavailable) in
        // The sonames of the headers this was built with.
        let util = try SharedLibrary("libavutil.so.\(LIBAVUTIL_VERSION_MAJOR)")
        let codec = try SharedLibrary("libavcodec.so.\(LIBAVCODEC_VERSION_MAJOR)")
        let format = try SharedLibrary("libavformat.so.\(LIBAVFORMAT_VERSION_MAJOR)")
        return FFmpeg(
            avformat_open_input: try format.function("avformat_open_input"),
            avformat_find_stream_info: try format.function("avformat_find_stream_info"),
            avformat_close_input: try format.function("avformat_close_input"),
            avformat_alloc_output_context2: try format.function("avformat_alloc_output_context2"),
            avformat_free_context: try format.function("avformat_free_context"),
            avformat_new_stream: try format.function("avformat_new_stream"),
            avformat_query_codec: try format.function("avformat_query_codec"),
            avformat_write_header: try format.function("avformat_write_header"),
            av_guess_format: try format.function("av_guess_format"),
            av_codec_get_id: try format.function("av_codec_get_id"),
            av_read_frame: try format.function("av_read_frame"),
            av_interleaved_write_frame: try format.function("av_interleaved_write_frame"),
            av_write_trailer: try format.function("av_write_trailer"),
            avio_open: try format.function("avio_open"),
            avio_closep: try format.function("avio_closep"),
            avcodec_find_decoder: try codec.function("avcodec_find_decoder"),
            avcodec_find_encoder: try codec.function("avcodec_find_encoder"),
            avcodec_get_name: try codec.function("avcodec_get_name"),
            avcodec_alloc_context3: try codec.function("avcodec_alloc_context3"),
            avcodec_free_context: try codec.function("avcodec_free_context"),
            avcodec_open2: try codec.function("avcodec_open2"),
            avcodec_parameters_copy: try codec.function("avcodec_parameters_copy"),
            avcodec_parameters_from_context: try codec.function("avcodec_parameters_from_context"),
            avcodec_parameters_to_context: try codec.function("avcodec_parameters_to_context"),
            avcodec_decode_subtitle2: try codec.function("avcodec_decode_subtitle2"),
            avcodec_encode_subtitle: try codec.function("avcodec_encode_subtitle"),
            avsubtitle_free: try codec.function("avsubtitle_free"),
            av_packet_alloc: try codec.function("av_packet_alloc"),
            av_packet_free: try codec.function("av_packet_free"),
            av_packet_unref: try codec.function("av_packet_unref"),
            av_packet_rescale_ts: try codec.function("av_packet_rescale_ts"),
            av_dict_get: try util.function("av_dict_get"),
            av_dict_set: try util.function("av_dict_set"),
            av_dict_free: try util.function("av_dict_free"),
            av_malloc: try util.function("av_malloc"),
            av_mallocz: try util.function("av_mallocz"),
            av_free: try util.function("av_free"),
            av_buffer_create: try util.function("av_buffer_create"),
            av_buffer_default_free: try util.function("av_buffer_default_free"),
            av_rescale_q: try util.function("av_rescale_q"))
    }.mapError { $0.stopping("reading the input's capture metadata and tracks needs FFmpeg's libavformat") }
}
