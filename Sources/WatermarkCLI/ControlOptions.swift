import Glibc
import WatermarkModel

/// --control, --control-token, --control-host, --control-root and --watch-config.
package struct ControlOptions {
    /// Where the HTTP server listens; nil: no server (only --watch-config).
    var address: String?
    var port = 0
    var token: String?
    /// Names besides IP addresses and localhost that requests may use as their Host.
    var hosts: [String] = []
    /// Paths in changes resolve inside this folder.
    var root = "."
    /// The --config file to follow.
    var watch: String?

    package static func add(to p: OptionParser) {
        p.add(
            "control", nil, .string,
            "Serve a control page and HTTP API (change layers, status, live snapshot) at [ADDRESS:]PORT; "
                + "ADDRESS defaults to 127.0.0.1, any other needs --control-token",
            arg: "[ADDRESS:]PORT")
        p.add(
            "control-token", nil, .string,
            "Every control request must carry Authorization: Bearer TOKEN (default: $WATERMARK_CONTROL_TOKEN)",
            arg: "TOKEN")
        p.add(
            "control-host", nil, .string,
            "Host names the control server answers to besides its IP addresses and localhost (comma-separated)",
            arg: "NAMES")
        p.add(
            "control-root", nil, .string,
            "Images and text files named in changes must be inside this folder (default: the --config "
                + "file's folder, else the current one)",
            arg: "DIR")
        p.add(
            "watch-config", nil, .flag,
            "Reload the --config file when it changes on disk, keeping the layers if it is bad")
    }

    /// The options given, checked; nil when neither --control nor --watch-config is.
    package static func parse(_ p: OptionParser) throws(UsageError) -> ControlOptions? {
        let config = p.string("config")
        guard p.string("control") != nil || p.flag("watch-config") else {
            for name in ["control-token", "control-host", "control-root"] where p.string(name) != nil {
                throw UsageError(message: "--\(name): only with --control")
            }
            return nil
        }
        var o = ControlOptions()
        if p.flag("watch-config") {
            guard let config else { throw UsageError(message: "--watch-config: needs --config FILE") }
            o.watch = config
        }
        if let spec = p.string("control") {
            (o.address, o.port) = try Self.address(spec)
            o.token = p.string("control-token") ?? getenv("WATERMARK_CONTROL_TOKEN").map { String(cString: $0) }
            if let t = o.token, t.isEmpty { o.token = nil }
            if !Self.isLoopback(o.address ?? ""), o.token == nil {
                throw UsageError(
                    message:
                        "--control \(spec): listening beyond this machine needs --control-token TOKEN (or WATERMARK_CONTROL_TOKEN)"
                )
            }
            o.hosts = (p.string("control-host") ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: " ").lowercased()
            }.filter { !$0.isEmpty }
        }
        let root = p.string("control-root") ?? config.map(FilePath.directory(of:)) ?? "."
        o.root = FilePath.normalised(root)
        var st = stat()
        guard stat(o.root, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            throw UsageError(message: "--control-root: \(o.root): not a folder")
        }
        return o
    }

    /// `PORT`, `ADDRESS:PORT` or `[IPv6]:PORT`.
    static func address(_ spec: String) throws(UsageError) -> (String, Int) {
        var host = "127.0.0.1"
        var portText = Substring(spec)
        if let colon = spec.lastIndex(of: ":") {
            host = String(spec[..<colon])
            portText = spec[spec.index(after: colon)...]
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            if host == "localhost" { host = "127.0.0.1" }
        }
        guard let port = Int(portText), (1...65535).contains(port), !host.isEmpty, isIPAddress(host) else {
            throw UsageError(message: "--control \(spec): expected PORT or ADDRESS:PORT with an IP address")
        }
        return (host, port)
    }

    static func isIPAddress(_ s: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, s, &v4) == 1 || inet_pton(AF_INET6, s, &v6) == 1
    }

    static func isLoopback(_ s: String) -> Bool {
        s.hasPrefix("127.") || s == "::1"
    }
}

extension String {
    fileprivate func trimmingCharacters(in c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s.removeFirst() }
        while s.last == c { s.removeLast() }
        return String(s)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in c: Character) -> String { String(self).trimmingCharacters(in: c) }
}
