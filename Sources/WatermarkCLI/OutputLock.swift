import Glibc
import WatermarkModel

/// Who writes an output: a lock file `.NAME.lock` beside it, held with `flock` for the
/// whole export. The kernel drops the lock when the process ends in any way (SIGKILL
/// too), so a lock left behind by a dead batch is free again; the temporary files such a
/// batch leaves are removed by the next one that takes the lock.
final class OutputLock {
    enum Acquired {
        case held(OutputLock)
        /// Another process is writing this output.
        case busy
        case failed(String)
    }

    package let path: String
    package let output: String
    private let fd: Int32

    private init(path: String, output: String, fd: Int32) {
        self.path = path
        self.output = output
        self.fd = fd
    }

    static func acquire(for output: String) -> Acquired {
        let (dir, name) = FilePath.split(output)
        let path = "\(dir).\(name).lock"
        // The holder unlinks the file when done: a lock taken on a file that is no longer
        // the one at `path` guards nothing, so try again on the new one.
        for _ in 0..<8 {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return .failed("cannot create \(path): \(systemError())") }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let err = errno
                close(fd)
                return err == EWOULDBLOCK ? .busy : .failed("cannot lock \(path): \(String(cString: strerror(err)))")
            }
            var held = stat(), current = stat()
            if fstat(fd, &held) == 0, stat(path, &current) == 0, held.st_ino == current.st_ino,
                held.st_dev == current.st_dev
            {
                return .held(OutputLock(path: path, output: output, fd: fd))
            }
            close(fd)
        }
        return .busy
    }

    /// Removes `.NAME.*.partial.EXT` beside the output: what an export that was killed
    /// left (only the lock's holder writes them).
    func removeStaleTemporaries() {
        let (dir, name) = FilePath.split(output)
        guard let d = opendir(dir.isEmpty ? "." : dir) else { return }
        defer { closedir(d) }
        let ext = name.split(separator: ".").last.map { "." + $0 } ?? ""
        let prefix = ".\(name).", suffix = ".partial\(ext)"
        var stale: [String] = []
        while let entry = readdir(d) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if entryName.hasPrefix(prefix) && entryName.hasSuffix(suffix) { stale.append(entryName) }
        }
        for n in stale { unlink(dir + n) }
    }

    /// Unlinks the lock file, then lets go of it.
    func release() {
        unlink(path)
        close(fd)
    }
}
