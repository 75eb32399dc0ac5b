import CGStreamer
import CGstRtspServer
import Glibc
import Watermark
import WatermarkModel

/// Where a stream goes, parsed from the URL the user gives.
package enum StreamTarget {
    case udp(host: String, port: Int)
    case srt(uri: String)
    case rtmp(url: String)
    case rtsp(address: String, port: Int, path: String)
    case hls(directory: String)

    package init(_ url: String) throws(UsageError) {
        func hostPort(_ rest: Substring, scheme: String) throws(UsageError) -> (String, Int, String) {
            var hp = rest
            var tail = ""
            if let cut = hp.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                tail = String(hp[cut...])
                hp = hp[..<cut]
            }
            guard let colon = hp.lastIndex(of: ":"), let port = Int(hp[hp.index(after: colon)...]),
                (1...65535).contains(port)
            else {
                throw UsageError(message: "\(url): expected \(scheme)://HOST:PORT")
            }
            let host = String(hp[..<colon])
            return (host.isEmpty ? "0.0.0.0" : host, port, tail)
        }
        if url.hasPrefix("udp://") {
            let (h, p, _) = try hostPort(url.dropFirst(6), scheme: "udp")
            self = .udp(host: h, port: p)
        } else if url.hasPrefix("srt://") {
            _ = try hostPort(url.dropFirst(6), scheme: "srt")
            self = .srt(uri: url)
        } else if url.hasPrefix("rtmp://") || url.hasPrefix("rtmps://") {
            self = .rtmp(url: url)
        } else if url.hasPrefix("rtsp://") {
            let (h, p, tail) = try hostPort(url.dropFirst(7), scheme: "rtsp")
            let path = tail.hasPrefix("/") && tail.count > 1 ? tail : "/stream"
            self = .rtsp(address: h, port: p, path: path)
        } else if url.hasPrefix("hls:") {
            let dir = String(url.dropFirst(4))
            guard !dir.isEmpty else { throw UsageError(message: "\(url): expected hls:DIRECTORY") }
            self = .hls(directory: dir)
        } else {
            throw UsageError(message: "\(url): unsupported destination (srt://, rtmp://, udp://, rtsp://, hls:DIR)")
        }
    }

    /// A connection to one receiver that can fail and be made again (srt:// as caller or
    /// listener, rtmp://); UDP has no connection, RTSP and HLS serve whoever comes.
    package var hasReceiver: Bool {
        switch self {
        case .srt, .rtmp: true
        default: false
        }
    }
}

package func serveRTSP(address: String, port: Int, path: String, launch: String, duration: Double?) -> Int32 {
    guard let server = gst_rtsp_server_new() else { return 1 }
    defer { g_object_unref(UnsafeMutableRawPointer(server)) }
    gst_rtsp_server_set_address(server, address)
    gst_rtsp_server_set_service(server, "\(port)")
    let mounts = gst_rtsp_server_get_mount_points(server)
    let factory = gst_rtsp_media_factory_new()
    gst_rtsp_media_factory_set_launch(factory, launch)
    gst_rtsp_media_factory_set_shared(factory, 1)
    gst_rtsp_mount_points_add_factory(mounts, path, factory)
    g_object_unref(UnsafeMutableRawPointer(mounts))
    guard gst_rtsp_server_attach(server, nil) != 0 else {
        printErr("gst-watermark: cannot serve RTSP on \(address):\(port) (port in use or not permitted)")
        return 1
    }
    let loop = g_main_loop_new(nil, 0)
    defer { g_main_loop_unref(loop) }
    let quit: GSourceFunc = { loop in
        g_main_loop_quit(OpaquePointer(loop))
        return 0
    }
    let raw = UnsafeMutableRawPointer(loop)
    Interrupt.unblockTerminationSignals()
    g_unix_signal_add(SIGINT, quit, raw)
    g_unix_signal_add(SIGTERM, quit, raw)
    if let duration, duration > 0 { g_timeout_add(UInt32(duration * 1000), quit, raw) }
    printErr("serving rtsp://\(address):\(port)\(path); press Ctrl-C to stop")
    g_main_loop_run(loop)
    return 0
}
