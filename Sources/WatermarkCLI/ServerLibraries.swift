// libsoup 3 (the control server) and gst-rtsp-server (`stream rtsp://`) are opened the first
// time they are needed, not linked: an export or a capture without --control loads neither,
// nor what they bring (SQLite, nghttp2 and libpsl with libsoup; GStreamer's RTP, RTSP, SDP
// and net libraries with the RTSP server), about 1.2 MB resident and their relocations at
// every start.

import CGStreamer
import CGstRtspServer
import CSoup
import WatermarkSharedLibrary

/// The libsoup 3 functions the control server calls.
struct SoupLibrary: @unchecked Sendable {
    typealias Message = OpaquePointer
    typealias Headers = OpaquePointer
    typealias AddHandler =
        @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, SoupServerCallback?, gpointer?, GDestroyNotify?) -> Void
    let serverGetType: @convention(c) () -> GType
    let serverAddEarlyHandler: AddHandler
    let serverAddHandler: AddHandler
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

    private init(_ l: SharedLibrary) throws(LibraryUnavailable) {
        serverGetType = try l.function("soup_server_get_type")
        serverAddEarlyHandler = try l.function("soup_server_add_early_handler")
        serverAddHandler = try l.function("soup_server_add_handler")
        serverListen = try l.function("soup_server_listen")
        serverDisconnect = try l.function("soup_server_disconnect")
        messageGetMethod = try l.function("soup_server_message_get_method")
        messageGetRequestHeaders = try l.function("soup_server_message_get_request_headers")
        messageGetResponseHeaders = try l.function("soup_server_message_get_response_headers")
        messageGetRequestBody = try l.function("soup_server_message_get_request_body")
        messageSetStatus = try l.function("soup_server_message_set_status")
        messageSetResponse = try l.function("soup_server_message_set_response")
        messagePause = try l.function("soup_server_message_pause")
        messageUnpause = try l.function("soup_server_message_unpause")
        headersGetEncoding = try l.function("soup_message_headers_get_encoding")
        headersGetContentLength = try l.function("soup_message_headers_get_content_length")
        headersGetOne = try l.function("soup_message_headers_get_one")
        headersReplace = try l.function("soup_message_headers_replace")
        bodyFlatten = try l.function("soup_message_body_flatten")
    }

    static let shared = Result { () throws(LibraryUnavailable) in
        try SoupLibrary(SharedLibrary("libsoup-3.0.so.0"))
    }.mapError { $0.stopping("the control server needs libsoup 3 (libsoup-3.0-0)") }
}

/// The gst-rtsp-server functions `stream rtsp://` calls.
struct RTSPServerLibrary: @unchecked Sendable {
    typealias Object = OpaquePointer
    typealias New = @convention(c) () -> Object?
    typealias SetString = @convention(c) (Object?, UnsafePointer<CChar>?) -> Void
    let serverNew: New
    let serverSetAddress: SetString
    let serverSetService: SetString
    let serverGetMountPoints: @convention(c) (Object?) -> Object?
    let serverSetAuth: @convention(c) (Object?, Object?) -> Void
    let serverAttach: @convention(c) (Object?, OpaquePointer?) -> guint
    let factoryNew: New
    let factorySetLaunch: SetString
    let factorySetShared: @convention(c) (Object?, gboolean) -> Void
    let factoryAddRoleFromStructure: @convention(c) (Object?, UnsafeMutablePointer<GstStructure>?) -> Void
    let mountPointsAddFactory: @convention(c) (Object?, UnsafePointer<CChar>?, Object?) -> Void
    let authNew: New
    let authMakeBasic: @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
    let authAddBasic: @convention(c) (Object?, UnsafePointer<CChar>?, Object?) -> Void
    let tokenNewEmpty: New
    let tokenWritableStructure: @convention(c) (Object?) -> UnsafeMutablePointer<GstStructure>?

    private init(_ l: SharedLibrary) throws(LibraryUnavailable) {
        serverNew = try l.function("gst_rtsp_server_new")
        serverSetAddress = try l.function("gst_rtsp_server_set_address")
        serverSetService = try l.function("gst_rtsp_server_set_service")
        serverGetMountPoints = try l.function("gst_rtsp_server_get_mount_points")
        serverSetAuth = try l.function("gst_rtsp_server_set_auth")
        serverAttach = try l.function("gst_rtsp_server_attach")
        factoryNew = try l.function("gst_rtsp_media_factory_new")
        factorySetLaunch = try l.function("gst_rtsp_media_factory_set_launch")
        factorySetShared = try l.function("gst_rtsp_media_factory_set_shared")
        factoryAddRoleFromStructure = try l.function("gst_rtsp_media_factory_add_role_from_structure")
        mountPointsAddFactory = try l.function("gst_rtsp_mount_points_add_factory")
        authNew = try l.function("gst_rtsp_auth_new")
        authMakeBasic = try l.function("gst_rtsp_auth_make_basic")
        authAddBasic = try l.function("gst_rtsp_auth_add_basic")
        tokenNewEmpty = try l.function("gst_rtsp_token_new_empty")
        tokenWritableStructure = try l.function("gst_rtsp_token_writable_structure")
    }

    static let shared = Result { () throws(LibraryUnavailable) in
        try RTSPServerLibrary(SharedLibrary("libgstrtspserver-1.0.so.0"))
    }.mapError { $0.stopping("serving RTSP needs gst-rtsp-server (libgstrtspserver-1.0-0)") }
}
