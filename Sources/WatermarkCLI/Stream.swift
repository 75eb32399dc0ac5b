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
    /// Served at `address:port/path`; with `user`, clients must give that user and password.
    case rtsp(address: String, port: Int, path: String, user: String? = nil, password: String? = nil)
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
            var rest = url.dropFirst(7)
            var user: String?, password: String?
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                let credentials = rest[..<at]
                guard let colon = credentials.firstIndex(of: ":"), colon != credentials.startIndex else {
                    throw UsageError(message: "rtsp://USER:PASSWORD@…: give both a user and a password")
                }
                user = String(credentials[..<colon])
                password = String(credentials[credentials.index(after: colon)...])
                rest = rest[rest.index(after: at)...]
            }
            let (h, p, tail) = try hostPort(rest, scheme: "rtsp")
            let path = tail.hasPrefix("/") && tail.count > 1 ? tail : "/stream"
            self = .rtsp(address: h, port: p, path: path, user: user, password: password)
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

package func serveRTSP(
    address: String, port: Int, path: String, launch: String, duration: Double?,
    credentials: (user: String, password: String)? = nil
) -> Int32 {
    let rtsp: RTSPServerLibrary
    switch RTSPServerLibrary.shared {
    case .success(let l): rtsp = l
    case .failure(let e):
        printErr("gst-watermark: cannot serve RTSP: \(e.reason)")
        return 1
    }
    guard let server = rtsp.serverNew() else { return 1 }
    defer { g_object_unref(UnsafeMutableRawPointer(server)) }
    rtsp.serverSetAddress(server, address)
    rtsp.serverSetService(server, "\(port)")
    let mounts = rtsp.serverGetMountPoints(server)
    let factory = rtsp.factoryNew()
    rtsp.factorySetLaunch(factory, launch)
    rtsp.factorySetShared(factory, 1)
    if let credentials {
        // Basic authentication: the one user may see and play the stream, nobody else.
        guard let auth = rtsp.authNew(), let token = rtsp.tokenNewEmpty() else { return 1 }
        var role = GValue()
        g_value_init(&role, GType(16 << 2))  // G_TYPE_STRING
        g_value_set_string(&role, "viewer")
        gst_structure_set_value(rtsp.tokenWritableStructure(token), "media.factory.role", &role)
        g_value_unset(&role)
        let basic = rtsp.authMakeBasic(credentials.user, credentials.password)
        rtsp.authAddBasic(auth, basic, token)
        g_free(basic)
        gst_mini_object_unref(UnsafeMutablePointer<GstMiniObject>(token))
        rtsp.serverSetAuth(server, auth)
        g_object_unref(UnsafeMutableRawPointer(auth))
        if let permissions = gst_structure_from_string(
            "viewer, media.factory.access=(boolean)true, media.factory.construct=(boolean)true", nil)
        {
            rtsp.factoryAddRoleFromStructure(factory, permissions)
            gst_structure_free(permissions)
        }
    }
    rtsp.mountPointsAddFactory(mounts, path, factory)
    if let mounts { g_object_unref(UnsafeMutableRawPointer(mounts)) }
    guard rtsp.serverAttach(server, nil) != 0 else {
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
