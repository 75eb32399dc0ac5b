// File paths as strings, and the system's words for errors: the one place for both.

import Glibc

/// The text of the calling thread's last system error (`strerror(errno)`), or of `code`.
package func systemError(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

/// Paths taken apart, joined and made absolute, without touching the disk (but for the
/// working directory).
package enum FilePath {
    /// The folder `path` is in: "." for a bare name, "/" for a file at the root.
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    /// `("dir/", "name")` for `dir/name`, `("", "name")` for a bare name.
    package static func split(_ path: String) -> (dir: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    /// `path` against `dir` ("." or "": the working directory), as it is when absolute.
    package static func resolve(_ path: String, in dir: String) -> String {
        if path.hasPrefix("/") || dir.isEmpty || dir == "." { return path }
        return dir.hasSuffix("/") ? dir + path : dir + "/" + path
    }

    /// `path` (against `dir`) made absolute against the current directory.
    package static func absolute(_ path: String, in dir: String = ".") -> String {
        let joined = resolve(path, in: dir)
        if joined.hasPrefix("/") { return joined }
        guard let cwd = getcwd(nil, 0) else { return joined }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + joined
    }

    /// An absolute path without `.` and `..` components and repeated slashes (names, not
    /// links).
    package static func normalised(_ path: String) -> String {
        var parts: [Substring] = []
        for part in absolute(path).split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `path` is `dir` or inside it (both normalised).
    package static func isInside(_ path: String, _ dir: String) -> Bool {
        dir == "/" || path.hasPrefix(dir + "/")
    }

    /// The path with links resolved, if it exists.
    package static func real(_ path: String) -> String? {
        guard let r = realpath(path, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }
}
