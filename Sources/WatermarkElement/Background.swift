// Work that must not run on the streaming thread: decoding images and loading config
// files changed while playing, and following text files.

import Glibc

/// Loads that must not run on the streaming thread (an image or config file changed
/// while playing), run one at a time on one detached thread. Only the latest value of a
/// property matters: a load asked for again before it started replaces the queued one, so
/// an application that sets `image` a thousand times a second costs one decode at a time,
/// not a thousand threads competing with the streaming thread for the CPU.
final class LatestLoads: @unchecked Sendable {
    private struct Job {
        var kind: String
        var work: @Sendable () -> Void
    }
    private struct State {
        var queue: [Job] = []
        var running = false
    }
    private let state = Locked(State())
    /// Called on the loader thread before its first job and after its last one (the
    /// element keeps itself alive in between).
    private let retain: @Sendable () -> Void, release: @Sendable () -> Void

    init(retain: @escaping @Sendable () -> Void, release: @escaping @Sendable () -> Void) {
        self.retain = retain
        self.release = release
    }

    /// Queues `work` as the latest load of `kind` and starts the loader thread if idle.
    func submit(_ kind: String, _ work: @escaping @Sendable () -> Void) {
        let start = state.withLock { s -> Bool in
            s.queue.removeAll { $0.kind == kind }
            s.queue.append(Job(kind: kind, work: work))
            if s.running { return false }
            s.running = true
            return true
        }
        guard start else { return }
        retain()
        runDetached { [self] in
            while let job = state.withLock({ s -> Job? in
                if s.queue.isEmpty {
                    s.running = false
                    return nil
                }
                return s.queue.removeFirst()
            }) {
                job.work()
            }
            release()
        }
    }
}

/// Runs `work` once on a new detached thread (or inline if no thread can be made).
func runDetached(_ work: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
    }
    let context = Unmanaged.passRetained(Box(work)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { arg in
        guard let arg else { return nil }
        Unmanaged<Box>.fromOpaque(arg).takeRetainedValue().work()
        return nil
    }, context)
    if rc == 0 {
        pthread_detach(thread)
    } else {
        Unmanaged<Box>.fromOpaque(context).takeRetainedValue().work()
    }
}

/// Reads a text file for display: at most 64 KiB, trailing line breaks dropped,
/// invalid UTF-8 repaired.
func readTextFile(_ path: String) -> Result<String, FileReadError> {
    readFile(path, limit: 65536).map { bytes in
        var s = String(decoding: bytes, as: UTF8.self)
        while s.hasSuffix("\n") || s.hasSuffix("\r") { s.removeLast() }
        return s
    }
}

/// Follows text files with inotify on their directories: a file is read again when a
/// writer closes it or when another file is renamed over it, so a partly written file
/// is never shown. One thread per watcher, blocked in poll() between changes.
final class TextFileWatcher: @unchecked Sendable {
    private let inotify: Int32
    private var wake: [Int32] = [-1, -1]
    private var thread = pthread_t()
    private var started = false
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
        for dir in Set(paths.map(Self.directory(of:))) {
            let wd = inotify_add_watch(inotify, dir, mask)
            if wd >= 0 { directories[wd] = dir }
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        started = pthread_create(&thread, nil, { arg in
            guard let arg else { return nil }
            Unmanaged<TextFileWatcher>.fromOpaque(arg).takeUnretainedValue().loop()
            return nil
        }, context) == 0
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    /// Ends the thread and waits for it; no callback runs after this returns.
    func stop() {
        if started {
            var one: UInt8 = 1
            _ = write(wake[1], &one, 1)
            pthread_join(thread, nil)
            started = false
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
            var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
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
