// Invariant: the watcher thread reads `directories` and `files`, which are set before it
// starts and never change; `stop()` (also from deinit) joins it before the descriptors
// are closed, so no callback runs after `stop()` returns.

import CGStreamer
import Glibc
import WatermarkModel

/// Follows text files with inotify on their directories: a file is read again when a
/// writer closes it or when another file is renamed over it, so a partly written file
/// is never shown. One thread per watcher, blocked in poll() between changes.
final class TextFileWatcher: @unchecked Sendable {
    private let inotify: Int32
    private var wake: [Int32] = [-1, -1]
    private var thread: UnsafeMutablePointer<GThread>?
    /// Watch descriptor → directory, and the watched file names per directory.
    private var directories: [Int32: String] = [:]
    private let files: Set<String>
    private let onChange: @Sendable (String) -> Void

    init?(paths: Set<String>, onChange: @escaping @Sendable (String) -> Void) {
        guard !paths.isEmpty else { return nil }
        files = paths
        self.onChange = onChange
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { return nil }
        guard pipe(&wake) == 0 else {
            close(inotify)
            return nil
        }
        for fd in wake { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE)
        for dir in Set(paths.map(FilePath.directory(of:))) {
            let wd = inotify_add_watch(inotify, dir, mask)
            if wd >= 0 { directories[wd] = dir }
        }
        // The thread holds the watcher only unretained: `stop()`, which deinit calls,
        // joins it first.
        let unretained = Unmanaged.passUnretained(self)
        thread = NamedThread.start("watermark-textfile") { unretained.takeUnretainedValue().loop() }
    }

    /// Ends the thread and waits for it; no callback runs after this returns.
    func stop() {
        if let thread {
            var one: UInt8 = 1
            _ = write(wake[1], &one, 1)
            NamedThread.join(thread)
            self.thread = nil
        }
    }

    deinit {
        stop()
        close(inotify)
        close(wake[0])
        close(wake[1])
    }

    private func loop() {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            var fds = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0),
            ]
            let n = poll(&fds, 2, -1)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            var changed = Set<String>()
            buffer.withUnsafeBytes { raw in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let len = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    guard offset + header + len <= count else { break }
                    let nameBytes = raw[(offset + header)..<(offset + header + len)].prefix { $0 != 0 }
                    if let dir = directories[wd] {
                        let path = (dir == "/" ? "" : dir) + "/" + String(decoding: nameBytes, as: UTF8.self)
                        if files.contains(path) { changed.insert(path) }
                    }
                    offset += header + len
                }
            }
            for path in changed { onChange(path) }
        }
    }
}
