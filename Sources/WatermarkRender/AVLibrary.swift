// FFmpeg is opened the first time an animated PNG is decoded, not with the plugin: libavcodec
// brings every codec library Debian builds it with (over a hundred, ~30 MB resident once
// relocated), and most logos are PNGs, JPEGs or SVGs.

import CAVTypes
import Glibc

/// The FFmpeg functions the APNG decoder calls, resolved with dlopen/dlsym (every entry set).
struct AVLibrary: @unchecked Sendable {
    let functions: WatermarkAVFunctions

    /// The libraries, or the reason they cannot be used (reported as the image's load error).
    static let shared: Result<AVLibrary, AVUnavailable> = load()

    private static func load() -> Result<AVLibrary, AVUnavailable> {
        // The sonames of the headers this was built with.
        let names = [
            "libavutil.so.\(LIBAVUTIL_VERSION_MAJOR)", "libavcodec.so.\(LIBAVCODEC_VERSION_MAJOR)",
            "libavformat.so.\(LIBAVFORMAT_VERSION_MAJOR)",
        ]
        var handles: [UnsafeMutableRawPointer] = []
        for name in names {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                let why = dlerror().map { String(cString: $0) } ?? "not found"
                return .failure(AVUnavailable(reason: "animated PNG needs FFmpeg's \(name): \(why)"))
            }
            handles.append(handle)
        }
        var f = WatermarkAVFunctions()
        var missing: [String] = []
        func resolve<T>(_ name: String, _ entry: inout T?) {
            guard let p = handles.lazy.compactMap({ dlsym($0, name) }).first else {
                missing.append(name)
                return
            }
            entry = unsafeBitCast(p, to: T.self)
        }
        resolve("avformat_open_input", &f.avformat_open_input)
        resolve("avformat_find_stream_info", &f.avformat_find_stream_info)
        resolve("avformat_close_input", &f.avformat_close_input)
        resolve("av_find_input_format", &f.av_find_input_format)
        resolve("av_read_frame", &f.av_read_frame)
        resolve("avcodec_find_decoder", &f.avcodec_find_decoder)
        resolve("avcodec_alloc_context3", &f.avcodec_alloc_context3)
        resolve("avcodec_free_context", &f.avcodec_free_context)
        resolve("avcodec_parameters_to_context", &f.avcodec_parameters_to_context)
        resolve("avcodec_open2", &f.avcodec_open2)
        resolve("avcodec_send_packet", &f.avcodec_send_packet)
        resolve("avcodec_receive_frame", &f.avcodec_receive_frame)
        resolve("av_packet_alloc", &f.av_packet_alloc)
        resolve("av_packet_free", &f.av_packet_free)
        resolve("av_packet_unref", &f.av_packet_unref)
        resolve("av_frame_alloc", &f.av_frame_alloc)
        resolve("av_frame_free", &f.av_frame_free)
        resolve("av_frame_unref", &f.av_frame_unref)
        if !missing.isEmpty {
            return .failure(AVUnavailable(reason: "FFmpeg lacks \(missing.joined(separator: ", "))"))
        }
        return .success(AVLibrary(functions: f))
    }
}

struct AVUnavailable: Error, Sendable {
    let reason: String
}
