// Invariant: the server, its messages and `pending` are touched only on the control thread
// (its own GMainContext: libsoup's handlers, the file monitor, timeouts and what other
// threads hand over with g_main_context_invoke). Other threads share only the Locked/Atomic
// members; `live` (the layers) is also read by `attach` on the pipeline's thread, and every
// document is handed to the element under its lock, so the element always ends with the
// latest. Hence @unchecked Sendable.

import CGStreamer
import CSoup
import Glibc
import Synchronization
import Watermark
import WatermarkModel

/// The live control of a running gst-watermark: an HTTP/1.1 server (libsoup 3) on a thread
/// of its own with the control page and the JSON API, and the --watch-config file monitor.
/// Changes go to the element as one config-data document, so one request changes one frame.
package final class ControlServer: @unchecked Sendable {
    let options: ControlOptions
    private let live: Locked<LayerDocument>
    /// What `{var:…}` shows: --var's values, then each `PATCH /api/variables` applied.
    private let variables: Locked<Variables>
    let status: PipelineStatus
    let snapshots = SnapshotTap()
    private let context: OpaquePointer
    private let loop: OpaquePointer
    private var server: OpaquePointer?
    /// libsoup, opened when the server starts.
    private var soup: SoupLibrary?
    private var monitor: UnsafeMutablePointer<GFileMonitor>?
    private var reloadSource: UInt32 = 0
    private var thread: UnsafeMutablePointer<GThread>?
    /// The watermark element (a reference), once the pipeline is built.
    private let element = Locked<UInt>(0)
    /// Snapshot requests waiting for the next JPEG.
    private var pending: [OpaquePointer] = []
    private var converting = false
    static let maxBody = 1 << 20

    /// Listens (when --control is given) and starts the control thread; throws a one-line
    /// message when the address cannot be used.
    init(
        options: ControlOptions, layers: LayerDocument, variables: Variables, output: String, encoder: String
    ) throws(UsageError) {
        self.options = options
        live = Locked(layers)
        self.variables = Locked(variables)
        status = PipelineStatus(output: output, encoder: encoder)
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        // The server's sources attach to the thread-default context when it listens; this
        // thread lets go of the context before the control thread takes it.
        g_main_context_push_thread_default(context)
        do {
            if let address = options.address { try listen(address: address, port: options.port) }
        } catch {
            g_main_context_pop_thread_default(context)
            throw error
        }
        if let path = options.watch { watch(path) }
        let timer = g_timeout_source_new(500)
        g_source_set_callback(
            timer,
            { data in
                guard let data else { return 0 }
                Unmanaged<PipelineStatus>.fromOpaque(data).takeUnretainedValue().sample()
                return 1
            }, Unmanaged.passRetained(status).toOpaque(),
            { data in if let data { Unmanaged<PipelineStatus>.fromOpaque(data).release() } })
        g_source_attach(timer, context)
        g_source_unref(timer)
        g_main_context_pop_thread_default(context)
        let me = Unmanaged.passUnretained(self)
        thread = NamedThread.start("wm-control") {
            let server = me.takeUnretainedValue()
            g_main_context_push_thread_default(server.context)
            g_main_loop_run(server.loop)
            g_main_context_pop_thread_default(server.context)
        }
    }

    /// Starts control for a command: its layers (the --config file's and the command
    /// line's own), the server and the file monitor; prints where the page is.
    package static func start(_ options: ControlOptions, _ p: OptionParser, output: String, encoder: String)
        throws(UsageError) -> ControlServer
    {
        let layers: LayerDocument
        do {
            layers = try LayerDocument(
                config: p.string("config"), values: OverlayOptions.values(from: p), root: options.root,
                isImage: ImageCheck.problem(at:))
        } catch let error as LayerDocumentError {
            throw UsageError(message: error.message)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError(message: "\(error)")
        }
        let server = try ControlServer(
            options: options, layers: layers, variables: try OverlayOptions.variables(from: p), output: output,
            encoder: encoder)
        let urls = server.urls
        if !urls.isEmpty {
            printErr("control page: \(urls.joined(separator: " "))" + (options.token == nil ? "" : " (token required)"))
        }
        if let path = options.watch { printErr("following \(path)") }
        return server
    }

    /// Makes `runner` hand its pipeline to this server before it plays, and its errors and
    /// warnings to the status.
    package func observe(_ runner: inout PipelineRunner) {
        let previous = runner.configure
        runner.configure = { [self] pipeline in
            previous?(pipeline)
            attach(pipeline)
        }
        runner.onMessage = { [status] error, text in
            if error { status.error(text) } else { status.warning(text) }
        }
    }

    /// The same for a relayed network input: each output pipeline it starts is attached.
    package func observe(_ relay: inout Relay) {
        let previous = relay.configure
        relay.configure = { [self] pipeline in
            previous?(pipeline)
            attach(pipeline)
        }
        relay.onMessage = { [status] error, text in
            if error { status.error(text) } else { status.warning(text) }
        }
    }

    deinit {
        if let server { g_object_unref(UnsafeMutableRawPointer(server)) }
        if let monitor { g_object_unref(UnsafeMutableRawPointer(monitor)) }
        g_main_loop_unref(loop)
        g_main_context_unref(context)
        let e = element.withLock { $0 }
        if e != 0 { gst_object_unref(UnsafeMutableRawPointer(bitPattern: e)) }
    }

    /// Stops the thread; the server closes its connections.
    package func stop() {
        g_main_loop_quit(loop)
        if let thread { NamedThread.join(thread) }
        thread = nil
        if let server, let soup { soup.serverDisconnect(server) }
    }

    /// Where the page is, for the user: the address listened on, or for 0.0.0.0 / :: the
    /// machine's own addresses.
    var urls: [String] {
        guard let a = options.address else { return [] }
        var hosts = [a]
        if a == "0.0.0.0" || a == "::" {
            hosts = Self.interfaceAddresses(v6: a == "::")
            if hosts.isEmpty { hosts = [a] }
        }
        return hosts.map { h in "http://\(h.contains(":") ? "[\(h)]" : h):\(options.port)/" }
    }

    private static func interfaceAddresses(v6: Bool) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var out: [String] = []
        var p = list
        while let i = p {
            p = i.pointee.ifa_next
            guard let sa = i.pointee.ifa_addr else { continue }
            let family = Int32(sa.pointee.sa_family)
            guard family == AF_INET || (v6 && family == AF_INET6) else { continue }
            var host = [CChar](repeating: 0, count: 64)
            let len = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(sa, len, &host, 64, nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.hasPrefix("fe80"), !out.contains(text) { out.append(text) }
        }
        return out
    }

    // MARK: the pipeline

    /// Called with the parsed pipeline before it plays: gives the element the layers and
    /// taps its pads for the status and the snapshots.
    func attach(_ pipeline: UnsafeMutablePointer<GstElement>) {
        guard let wm = gst_bin_get_by_name(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self), "wm")
        else { return }
        live.withLock { layers in
            // A relayed input's recording starts a pipeline per connection: the last one's
            // element is the one controlled.
            element.withLock {
                if $0 != 0 { gst_object_unref(UnsafeMutableRawPointer(bitPattern: $0)) }
                $0 = UInt(bitPattern: wm)
            }
            Self.setConfigData(wm, layers.document)
        }
        variables.withLock { v in if !v.isEmpty { Self.setVariables(wm, v.structureText) } }
        status.attach(pipeline: pipeline, element: wm)
        snapshots.attach(element: wm)
    }

    private static func setConfigData(_ element: UnsafeMutablePointer<GstElement>, _ text: String) {
        set(element, "config-data", text)
    }

    /// Sets the `variables` GstStructure from its text (parsed as gst-launch parses it): one
    /// property set, one swap.
    private static func setVariables(_ element: UnsafeMutablePointer<GstElement>, _ text: String) {
        gst_util_set_object_arg(UnsafeMutablePointer<GObject>(OpaquePointer(element)), "variables", text)
    }

    /// Sets a string property of the element: one property set, one swap.
    private static func set(_ element: UnsafeMutablePointer<GstElement>, _ property: String, _ text: String) {
        var value = GValue()
        g_value_init(&value, GType(16 << 2))  // G_TYPE_STRING
        g_value_set_string(&value, text)
        g_object_set_property(UnsafeMutablePointer<GObject>(OpaquePointer(element)), property, &value)
        g_value_unset(&value)
    }

    /// `PATCH /api/variables`: the object's variables set (null unsets) all at once, handed
    /// to the element as one `variables` set, so they show together on one frame. Answers
    /// every variable as they are now.
    private func patchVariables(_ body: [UInt8]) -> Result<String, ControlRefusal> {
        let node: JSONNode
        do throws(ControlRefusal) {
            node = try LayerDocument.parseBody(body)
        } catch {
            return .failure(error)
        }
        switch Variables.changes(fromJSON: node) {
        case .failure(let e): return .failure(ControlRefusal(status: 400, message: e.message))
        case .success(let changes):
            return .success(
                variables.withLock { v in
                    v = v.applying(changes)
                    if let wm = UnsafeMutablePointer<GstElement>(bitPattern: element.withLock { $0 }) {
                        Self.setVariables(wm, v.structureText)
                        status.changes.add(1, ordering: .relaxed)
                    }
                    return v.json
                })
        }
    }

    /// Hands the current layers to the element (one property set: one swap).
    private func apply(_ layers: LayerDocument) {
        let e = element.withLock { $0 }
        guard let wm = UnsafeMutablePointer<GstElement>(bitPattern: e) else { return }
        Self.setConfigData(wm, layers.document)
        status.changes.add(1, ordering: .relaxed)
    }

    /// Runs a change on the layers and, when it is accepted, hands them to the element;
    /// returns the answer to send.
    private func change(_ body: (inout LayerDocument) throws(ControlRefusal) -> String) -> Result<
        String, ControlRefusal
    > {
        live.withLock { layers in
            do throws(ControlRefusal) {
                let answer = try body(&layers)
                apply(layers)
                return .success(answer)
            } catch {
                return .failure(error)
            }
        }
    }

    // MARK: HTTP

    private func listen(address: String, port: Int) throws(UsageError) {
        let soup: SoupLibrary
        switch SoupLibrary.shared {
        case .success(let l): soup = l
        case .failure(let e): throw UsageError(message: "--control: \(e.reason)")
        }
        self.soup = soup
        guard let object = g_object_new_with_properties(soup.serverGetType(), 0, nil, nil) else {
            throw UsageError(message: "--control: cannot create the HTTP server")
        }
        let server = OpaquePointer(object)
        self.server = server
        let me = Unmanaged.passUnretained(self).toOpaque()
        soup.serverAddEarlyHandler(
            server, nil,
            { _, msg, _, _, data in
                guard let msg, let data else { return }
                Unmanaged<ControlServer>.fromOpaque(data).takeUnretainedValue().screen(msg)
            }, me, nil)
        soup.serverAddHandler(
            server, nil,
            { _, msg, path, _, data in
                guard let msg, let data else { return }
                let server = Unmanaged<ControlServer>.fromOpaque(data).takeUnretainedValue()
                server.handle(msg, path: path.map { String(cString: $0) } ?? "/")
            }, me, nil)
        let socketAddress = g_inet_socket_address_new_from_string(address, UInt32(port))
        defer { if let socketAddress { g_object_unref(UnsafeMutableRawPointer(socketAddress)) } }
        var error: UnsafeMutablePointer<GError>?
        guard let socketAddress, soup.serverListen(server, socketAddress, SoupServerListenOptions(0), &error) != 0
        else {
            let why = error.map { String(cString: $0.pointee.message) } ?? "invalid address"
            if let error { g_error_free(error) }
            throw UsageError(message: "--control \(address):\(options.port): \(why)")
        }
    }

    /// Before the body is read: refuse bodies over 1 MiB and bodies of unknown length.
    private func screen(_ msg: OpaquePointer) {
        guard let soup else { return }
        guard let method = soup.messageGetMethod(msg).map({ String(cString: $0) }),
            method == "PATCH" || method == "PUT" || method == "POST"
        else { return }
        let headers = soup.messageGetRequestHeaders(msg)
        if soup.headersGetEncoding(headers) == SOUP_ENCODING_CHUNKED {
            respond(msg, 411, error: "send the body with a Content-Length")
        } else if soup.headersGetContentLength(headers) > Self.maxBody {
            respond(msg, 413, error: "request body over \(Self.maxBody) bytes")
        }
    }

    private func header(_ msg: OpaquePointer, _ name: String) -> String? {
        guard let soup else { return nil }
        return soup.headersGetOne(soup.messageGetRequestHeaders(msg), name).map { String(cString: $0) }
    }

    private func handle(_ msg: OpaquePointer, path: String) {
        guard let soup else { return }
        let method = soup.messageGetMethod(msg).map { String(cString: $0) } ?? ""
        // Host: one of the server's own names, so that a page on another site that makes
        // its name point here (DNS rebinding) is refused.
        guard let host = header(msg, "Host"), Self.hostAllowed(host, extra: options.hosts) else {
            respond(msg, 403, error: "unknown Host (add the name with --control-host)")
            return
        }
        if path == "/" || path == "/index.html" {
            guard method == "GET" || method == "HEAD" else { return respond(msg, 405, error: "use GET") }
            return respond(msg, 200, type: "text/html; charset=utf-8", body: Array(ControlPage.html.utf8))
        }
        guard path.hasPrefix("/api/") else { return respond(msg, 404, error: "no such page") }
        var authorised = false
        if let token = options.token {
            let given = header(msg, "Authorization") ?? ""
            guard given.hasPrefix("Bearer "), Self.sameSecret(String(given.dropFirst(7)), token) else {
                soup.headersReplace(
                    soup.messageGetResponseHeaders(msg), "WWW-Authenticate", "Bearer")
                return respond(msg, 401, error: "missing or wrong token")
            }
            authorised = true
        }
        let changes = method != "GET" && method != "HEAD"
        if changes, !authorised, let origin = header(msg, "Origin"),
            origin.lowercased() != "http://" + host.lowercased()
        {
            return respond(msg, 403, error: "cross-origin request from \(origin) refused")
        }
        switch (method, path) {
        case ("GET", "/api/layers"):
            respond(msg, 200, json: live.withLock { $0.json })
        case ("PATCH", _) where path.hasPrefix("/api/layers/"):
            guard let index = Int(path.dropFirst("/api/layers/".count)) else {
                return respond(msg, 404, error: "no such layer")
            }
            let bytes = body(msg)
            respond(
                msg,
                change { (layers: inout LayerDocument) throws(ControlRefusal) in
                    try layers.patch(index, body: bytes)
                    return layers.layerJSON(index)
                })
        case ("PUT", "/api/config"):
            let bytes = body(msg)
            respond(
                msg,
                change { (layers: inout LayerDocument) throws(ControlRefusal) in
                    try layers.replace(body: bytes)
                    return layers.json
                })
        case ("GET", "/api/variables"):
            respond(msg, 200, json: variables.withLock { $0.json })
        case ("PATCH", "/api/variables"):
            respond(msg, patchVariables(body(msg)))
        case ("GET", "/api/status"):
            respond(msg, 200, json: status.json(layers: live.withLock { $0.all.count }))
        case ("GET", "/api/snapshot.jpg"):
            snapshot(msg)
        case (_, "/api/layers"), (_, "/api/config"), (_, "/api/status"), (_, "/api/snapshot.jpg"),
            (_, "/api/variables"):
            respond(msg, 405, error: "method \(method) not allowed here")
        case (_, _) where path.hasPrefix("/api/layers/"):
            respond(msg, 405, error: "use PATCH")
        default:
            respond(msg, 404, error: "no such endpoint")
        }
    }

    private func body(_ msg: OpaquePointer) -> [UInt8] {
        guard let soup else { return [] }
        guard let body = soup.messageGetRequestBody(msg), let bytes = soup.bodyFlatten(body) else {
            return []
        }
        defer { g_bytes_unref(bytes) }
        var size = 0
        guard let data = g_bytes_get_data(bytes, &size), size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    private func respond(_ msg: OpaquePointer, _ result: Result<String, ControlRefusal>) {
        switch result {
        case .success(let json): respond(msg, 200, json: json)
        case .failure(let refusal): respond(msg, refusal.status, error: refusal.message)
        }
    }

    private func respond(_ msg: OpaquePointer, _ code: UInt32, json: String) {
        respond(msg, code, type: "application/json", body: Array((json + "\n").utf8))
    }

    private func respond(_ msg: OpaquePointer, _ code: UInt32, error: String) {
        respond(msg, code, json: JSONText.object([("error", JSONText.quoted(error))]))
    }

    private func respond(_ msg: OpaquePointer, _ code: UInt32, type: String, body: [UInt8]) {
        guard let soup else { return }
        soup.messageSetStatus(msg, code, nil)
        let headers = soup.messageGetResponseHeaders(msg)
        soup.headersReplace(headers, "Cache-Control", "no-store")
        soup.headersReplace(headers, "X-Content-Type-Options", "nosniff")
        body.withUnsafeBytes { b in
            soup.messageSetResponse(msg, type, SOUP_MEMORY_COPY, b.baseAddress, gsize(b.count))
        }
    }

    // MARK: snapshots

    /// The last JPEG if it is at most 200 ms old (at most 5 made per second); else the
    /// request waits for the next frame, converted on a thread of its own.
    private func snapshot(_ msg: OpaquePointer) {
        guard let soup else { return }
        if let recent = snapshots.recent(maxAge: 200_000_000) {
            return respond(msg, 200, type: "image/jpeg", body: recent)
        }
        g_object_ref(UnsafeMutableRawPointer(msg))
        soup.messagePause(msg)
        pending.append(msg)
        guard !converting else { return }
        converting = true
        let me = Unmanaged.passRetained(self)
        NamedThread.detach("wm-snapshot") {
            let server = me.takeUnretainedValue()
            server.snapshots.capture()
            // Back on the control thread: answer everyone waiting.
            g_main_context_invoke(
                server.context,
                { data in
                    guard let data else { return 0 }
                    Unmanaged<ControlServer>.fromOpaque(data).takeRetainedValue().deliverSnapshots()
                    return 0
                }, me.toOpaque())
        }
    }

    private func deliverSnapshots() {
        guard let soup else { return }
        converting = false
        let result = snapshots.latest()
        for msg in pending {
            switch result {
            case .success(let jpeg): respond(msg, 200, type: "image/jpeg", body: jpeg)
            case .failure(let why): respond(msg, 503, error: why.message)
            }
            soup.messageUnpause(msg)
            g_object_unref(UnsafeMutableRawPointer(msg))
        }
        pending.removeAll()
    }

    // MARK: --watch-config

    private func watch(_ path: String) {
        let file = g_file_new_for_path(path)
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        var error: UnsafeMutablePointer<GError>?
        // WATCH_MOVES: an editor's save by rename-over arrives as one event.
        guard let m = g_file_monitor_file(file, G_FILE_MONITOR_WATCH_MOVES, nil, &error) else {
            if let error {
                printErr("warning: --watch-config: \(String(cString: error.pointee.message))")
                g_error_free(error)
            }
            return
        }
        monitor = m
        let changed:
            @convention(c) (
                UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, GFileMonitorEvent,
                UnsafeMutableRawPointer?
            ) -> Void = { _, _, _, event, data in
                guard let data else { return }
                switch event {
                case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT, G_FILE_MONITOR_EVENT_CREATED,
                    G_FILE_MONITOR_EVENT_MOVED_IN,
                    G_FILE_MONITOR_EVENT_RENAMED, G_FILE_MONITOR_EVENT_CHANGED:
                    Unmanaged<ControlServer>.fromOpaque(data).takeUnretainedValue().scheduleReload()
                default: break
                }
            }
        g_signal_connect_data(
            UnsafeMutableRawPointer(m), "changed", unsafeBitCast(changed, to: GCallback.self),
            Unmanaged.passUnretained(self).toOpaque(), nil, GConnectFlags(0))
    }

    /// A save is several events (truncate, writes, close): reload once, 100 ms after the last.
    private func scheduleReload() {
        if reloadSource != 0, let source = g_main_context_find_source_by_id(context, reloadSource) {
            g_source_destroy(source)
        }
        let source = g_timeout_source_new(100)
        g_source_set_callback(
            source,
            { data in
                guard let data else { return 0 }
                let server = Unmanaged<ControlServer>.fromOpaque(data).takeUnretainedValue()
                server.reloadSource = 0
                server.reload()
                return 0
            }, Unmanaged.passUnretained(self).toOpaque(), nil)
        reloadSource = g_source_attach(source, context)
        g_source_unref(source)
    }

    private func reload() {
        guard let path = options.watch else { return }
        let outcome = change { (layers: inout LayerDocument) throws(ControlRefusal) in
            if let error = layers.reload(path) { throw ControlRefusal(status: 400, message: error) }
            return "\(layers.all.count)"
        }
        switch outcome {
        case .failure(let refusal):
            printErr("gst-watermark: \(refusal.message); keeping the layers in use")
            status.warning("config reload: \(refusal.message)")
        case .success(let count):
            printErr("reloaded \(path): \(count) layer\(count == "1" ? "" : "s")")
        }
    }

    // MARK: checks

    /// A Host header naming an IP address (no DNS name can be rebound to reach it),
    /// localhost, or one of `extra`; with or without a port.
    static func hostAllowed(_ host: String, extra: [String]) -> Bool {
        var name = Substring(host.lowercased())
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && Int(rest.dropFirst()) != nil) else { return false }
            name = name[name.index(after: name.startIndex)..<close]
            return ControlOptions.isIPAddress(String(name))
        }
        if let colon = name.lastIndex(of: ":") {
            guard Int(name[name.index(after: colon)...]) != nil else { return false }
            name = name[..<colon]
        }
        let n = String(name)
        return n == "localhost" || ControlOptions.isIPAddress(n) || extra.contains(n)
    }

    /// Compares a given secret with the expected one in time that does not depend on where
    /// they differ.
    static func sameSecret(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8), b = Array(expected.utf8)
        var diff = a.count == b.count ? 0 : 1
        for i in 0..<b.count { diff |= Int((i < a.count ? a[i] : 0) ^ b[i]) }
        return diff == 0
    }
}
