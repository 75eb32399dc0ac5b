// libsoup 3 (the control server) and gst-rtsp-server (`stream rtsp://`) are opened the first
// time they are needed, not linked: an export or a capture without --control loads neither,
// nor what they bring (SQLite, nghttp2 and libpsl with libsoup; GStreamer's RTP, RTSP, SDP
// and net libraries with the RTSP server), about 1.2 MB resident and their relocations at
// every start.

import CGStreamer
import CGstRtspServer
import CSoup
import Glibc

/// A library that could not be opened, or lacks a function: the message names it.
package struct LibraryUnavailable: Error {
    let message: String
}

/// dlopen and typed dlsym, collecting the names that are missing.
private struct Opened {
    let handle: UnsafeMutableRawPointer
    private(set) var missing: [String] = []

    init(_ soname: String, package: String) throws(LibraryUnavailable) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            throw LibraryUnavailable(message: "\(soname) could not be loaded (install \(package)): \(why)")
        }
        self.handle = handle
    }

    mutating func callAs<T>(_ name: String, _ type: T.Type) -> T? {
        guard let p = dlsym(handle, name) else {
            missing.append(name)
            return nil
        }
        return unsafeBitCast(p, to: type)
    }
}

/// The libsoup 3 functions the control server calls.
struct SoupLibrary: @unchecked Sendable {
    typealias Message = OpaquePointer
    typealias Headers = OpaquePointer
    let serverGetType: @convention(c) () -> GType
    let serverAddEarlyHandler:
        @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, SoupServerCallback?, gpointer?, GDestroyNotify?) -> Void
    let serverAddHandler:
        @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, SoupServerCallback?, gpointer?, GDestroyNotify?) -> Void
    let serverListen:
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<GSocketAddress>?, SoupServerListenOptions,
            UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
        ) -> gboolean
    let serverDisconnect: @convention(c) (OpaquePointer?) -> Void
    let messageGetMethod: @convention(c) (Message?) -> UnsafePointer<CChar>?
    let messageGetRequestHeaders: @convention(c) (Message?) -> Headers?
    let messageGetResponseHeaders: @convention(c) (Message?) -> Headers?
    let messageGetRequestBody: @convention(c) (Message?) -> OpaquePointer?
    let messageSetStatus: @convention(c) (Message?, guint, UnsafePointer<CChar>?) -> Void
    let messageSetResponse:
        @convention(c) (Message?, UnsafePointer<CChar>?, SoupMemoryUse, UnsafeRawPointer?, gsize) -> Void
    let messagePause: @convention(c) (Message?) -> Void
    let messageUnpause: @convention(c) (Message?) -> Void
    let headersGetEncoding: @convention(c) (Headers?) -> SoupEncoding
    let headersGetContentLength: @convention(c) (Headers?) -> goffset
    let headersGetOne: @convention(c) (Headers?, UnsafePointer<CChar>?) -> UnsafePointer<CChar>?
    let headersReplace: @convention(c) (Headers?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void
    let bodyFlatten: @convention(c) (OpaquePointer?) -> OpaquePointer?

    static let shared: Result<SoupLibrary, LibraryUnavailable> = Result { () throws(LibraryUnavailable) in
        var l = try Opened("libsoup-3.0.so.0", package: "libsoup-3.0-0")
        guard let a = l.callAs("soup_server_get_type", (@convention(c) () -> GType).self),
            let b = l.callAs(
                "soup_server_add_early_handler",
                (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, SoupServerCallback?, gpointer?, GDestroyNotify?)
                    -> Void).self),
            let c = l.callAs(
                "soup_server_add_handler",
                (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, SoupServerCallback?, gpointer?, GDestroyNotify?)
                    -> Void).self),
            let d = l.callAs(
                "soup_server_listen",
                (@convention(c) (
                    OpaquePointer?, UnsafeMutablePointer<GSocketAddress>?, SoupServerListenOptions,
                    UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
                ) -> gboolean).self),
            let e = l.callAs("soup_server_disconnect", (@convention(c) (OpaquePointer?) -> Void).self),
            let f = l.callAs(
                "soup_server_message_get_method", (@convention(c) (Message?) -> UnsafePointer<CChar>?).self),
            let g = l.callAs("soup_server_message_get_request_headers", (@convention(c) (Message?) -> Headers?).self),
            let h = l.callAs("soup_server_message_get_response_headers", (@convention(c) (Message?) -> Headers?).self),
            let i = l.callAs(
                "soup_server_message_get_request_body", (@convention(c) (Message?) -> OpaquePointer?).self),
            let j = l.callAs(
                "soup_server_message_set_status",
                (@convention(c) (Message?, guint, UnsafePointer<CChar>?) -> Void).self),
            let k = l.callAs(
                "soup_server_message_set_response",
                (@convention(c) (Message?, UnsafePointer<CChar>?, SoupMemoryUse, UnsafeRawPointer?, gsize) -> Void)
                    .self),
            let m = l.callAs("soup_server_message_pause", (@convention(c) (Message?) -> Void).self),
            let n = l.callAs("soup_server_message_unpause", (@convention(c) (Message?) -> Void).self),
            let o = l.callAs("soup_message_headers_get_encoding", (@convention(c) (Headers?) -> SoupEncoding).self),
            let p = l.callAs("soup_message_headers_get_content_length", (@convention(c) (Headers?) -> goffset).self),
            let q = l.callAs(
                "soup_message_headers_get_one",
                (@convention(c) (Headers?, UnsafePointer<CChar>?) -> UnsafePointer<CChar>?).self),
            let r = l.callAs(
                "soup_message_headers_replace",
                (@convention(c) (Headers?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void).self),
            let s = l.callAs("soup_message_body_flatten", (@convention(c) (OpaquePointer?) -> OpaquePointer?).self)
        else {
            throw LibraryUnavailable(message: "libsoup-3.0.so.0 lacks \(l.missing.joined(separator: ", "))")
        }
        return SoupLibrary(
            serverGetType: a, serverAddEarlyHandler: b, serverAddHandler: c, serverListen: d, serverDisconnect: e,
            messageGetMethod: f, messageGetRequestHeaders: g, messageGetResponseHeaders: h,
            messageGetRequestBody: i, messageSetStatus: j, messageSetResponse: k, messagePause: m,
            messageUnpause: n, headersGetEncoding: o, headersGetContentLength: p, headersGetOne: q,
            headersReplace: r, bodyFlatten: s)
    }
}

/// The gst-rtsp-server functions `stream rtsp://` calls.
struct RTSPServerLibrary: @unchecked Sendable {
    typealias Object = OpaquePointer
    let serverNew: @convention(c) () -> Object?
    let serverSetAddress: @convention(c) (Object?, UnsafePointer<CChar>?) -> Void
    let serverSetService: @convention(c) (Object?, UnsafePointer<CChar>?) -> Void
    let serverGetMountPoints: @convention(c) (Object?) -> Object?
    let serverSetAuth: @convention(c) (Object?, Object?) -> Void
    let serverAttach: @convention(c) (Object?, OpaquePointer?) -> guint
    let factoryNew: @convention(c) () -> Object?
    let factorySetLaunch: @convention(c) (Object?, UnsafePointer<CChar>?) -> Void
    let factorySetShared: @convention(c) (Object?, gboolean) -> Void
    let factoryAddRoleFromStructure: @convention(c) (Object?, UnsafeMutablePointer<GstStructure>?) -> Void
    let mountPointsAddFactory: @convention(c) (Object?, UnsafePointer<CChar>?, Object?) -> Void
    let authNew: @convention(c) () -> Object?
    let authMakeBasic: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    let authAddBasic: @convention(c) (Object?, UnsafePointer<CChar>?, Object?) -> Void
    let tokenNewEmpty: @convention(c) () -> Object?
    let tokenWritableStructure: @convention(c) (Object?) -> UnsafeMutablePointer<GstStructure>?

    static let shared: Result<RTSPServerLibrary, LibraryUnavailable> = Result { () throws(LibraryUnavailable) in
        var l = try Opened("libgstrtspserver-1.0.so.0", package: "libgstrtspserver-1.0-0")
        typealias New = @convention(c) () -> Object?
        typealias SetString = @convention(c) (Object?, UnsafePointer<CChar>?) -> Void
        typealias Get = @convention(c) (Object?) -> Object?
        guard let a = l.callAs("gst_rtsp_server_new", New.self),
            let b = l.callAs("gst_rtsp_server_set_address", SetString.self),
            let c = l.callAs("gst_rtsp_server_set_service", SetString.self),
            let d = l.callAs("gst_rtsp_server_get_mount_points", Get.self),
            let e = l.callAs("gst_rtsp_server_set_auth", (@convention(c) (Object?, Object?) -> Void).self),
            let f = l.callAs("gst_rtsp_server_attach", (@convention(c) (Object?, OpaquePointer?) -> guint).self),
            let g = l.callAs("gst_rtsp_media_factory_new", New.self),
            let h = l.callAs("gst_rtsp_media_factory_set_launch", SetString.self),
            let i = l.callAs("gst_rtsp_media_factory_set_shared", (@convention(c) (Object?, gboolean) -> Void).self),
            let j = l.callAs(
                "gst_rtsp_media_factory_add_role_from_structure",
                (@convention(c) (Object?, UnsafeMutablePointer<GstStructure>?) -> Void).self),
            let k = l.callAs(
                "gst_rtsp_mount_points_add_factory",
                (@convention(c) (Object?, UnsafePointer<CChar>?, Object?) -> Void).self),
            let m = l.callAs("gst_rtsp_auth_new", New.self),
            let n = l.callAs(
                "gst_rtsp_auth_make_basic",
                (@convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?).self),
            let o = l.callAs(
                "gst_rtsp_auth_add_basic", (@convention(c) (Object?, UnsafePointer<CChar>?, Object?) -> Void).self),
            let p = l.callAs("gst_rtsp_token_new_empty", New.self),
            let q = l.callAs(
                "gst_rtsp_token_writable_structure",
                (@convention(c) (Object?) -> UnsafeMutablePointer<GstStructure>?).self)
        else {
            throw LibraryUnavailable(message: "libgstrtspserver-1.0.so.0 lacks \(l.missing.joined(separator: ", "))")
        }
        return RTSPServerLibrary(
            serverNew: a, serverSetAddress: b, serverSetService: c, serverGetMountPoints: d, serverSetAuth: e,
            serverAttach: f, factoryNew: g, factorySetLaunch: h, factorySetShared: i, factoryAddRoleFromStructure: j,
            mountPointsAddFactory: k, authNew: m, authMakeBasic: n, authAddBasic: o, tokenNewEmpty: p,
            tokenWritableStructure: q)
    }
}
