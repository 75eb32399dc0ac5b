import Foundation

/// A minimal HTTP/1.1 client on a POSIX socket, so that tests can send exactly the headers
/// a browser or an attacker would (Host, Origin, chunked bodies, nothing at all).
struct HTTPResponse {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
}

final class HTTPConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    init?(port: Int, timeout: Int = 10) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes {
                Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Sends one request and reads its response (by Content-Length, or to the end when the
    /// server closes). `host: nil` sends no Host header.
    func request(
        _ method: String, _ path: String, host: String? = "127.0.0.1", headers: [String: String] = [:],
        body: [UInt8]? = nil, close: Bool = false
    ) -> HTTPResponse? {
        var head = "\(method) \(path) HTTP/1.1\r\n"
        if let host { head += "Host: \(host)\r\n" }
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        if let body, headers["Transfer-Encoding"] == nil { head += "Content-Length: \(body.count)\r\n" }
        if close { head += "Connection: close\r\n" }
        guard send(Array((head + "\r\n").utf8) + (body ?? [])) else { return nil }
        return readResponse()
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer += chunk[..<n]
        return true
    }

    private func readResponse() -> HTTPResponse? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var end: Int?
        while end == nil {
            if buffer.count >= 4 {
                end = (0...(buffer.count - 4)).first { buffer[$0..<($0 + 4)].elementsEqual(separator) }
            }
            if end == nil, !fill() { return nil }
        }
        guard let headerEnd = end else { return nil }
        let head = String(decoding: buffer[..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            while buffer.count < length { if !fill() { return nil } }
            let body = Array(buffer[..<length])
            buffer.removeFirst(length)
            return HTTPResponse(status: status, headers: headers, body: body)
        }
        while fill() {}
        defer { buffer.removeAll() }
        return HTTPResponse(status: status, headers: headers, body: buffer)
    }
}

enum HTTP {
    /// One request on a connection of its own.
    static func request(
        _ port: Int, _ method: String, _ path: String, host: String? = "127.0.0.1", headers: [String: String] = [:],
        body: String? = nil
    ) -> HTTPResponse? {
        HTTPConnection(port: port)?.request(
            method, path, host: host, headers: headers, body: body.map { Array($0.utf8) }, close: true)
    }

    /// Waits until the server answers (at most `seconds`).
    static func waitForServer(_ port: Int, seconds: Double = 20, headers: [String: String] = [:]) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if request(port, "GET", "/api/status", headers: headers) != nil { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }
}
