// Whole-file reads for configs and text files: bounded, regular files only.

import Glibc

package struct FileReadError: Error, Sendable {
    package var reason: String
}

/// Reads a whole regular file of at most `limit` bytes.
package func readFile(_ path: String, limit: Int) -> Result<[UInt8], FileReadError> {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return .failure(FileReadError(reason: systemError())) }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0 else { return .failure(FileReadError(reason: systemError())) }
    guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(FileReadError(reason: "not a regular file")) }
    guard Int(st.st_size) <= limit else { return .failure(FileReadError(reason: "larger than \(limit) bytes")) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while out.count <= limit {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            return .failure(FileReadError(reason: systemError()))
        }
        if n == 0 { return .success(out) }
        out.append(contentsOf: chunk[0..<n])
    }
    return .failure(FileReadError(reason: "larger than \(limit) bytes"))
}

/// Reads a text file for display: at most 64 KiB, trailing line breaks dropped,
/// invalid UTF-8 repaired.
package func readTextFile(_ path: String) -> Result<String, FileReadError> {
    readFile(path, limit: 65536).map { bytes in
        var s = String(decoding: bytes, as: UTF8.self)
        while s.hasSuffix("\n") || s.hasSuffix("\r") { s.removeLast() }
        return s
    }
}
