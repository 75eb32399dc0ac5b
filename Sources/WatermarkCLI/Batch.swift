import CGStreamer
import CMallocTuning
import CShim
import Glibc
import Watermark
import WatermarkModel

// MARK: batch

/// `mkdir -p` (GLib's).
package func makeDirectories(_ path: String) throws(UsageError) {
    guard g_mkdir_with_parents(path, 0o777) != 0 else { return }
    if errno == ENOTDIR { throw UsageError(message: "--output-dir: \(path) is not a folder") }
    throw UsageError(message: "--output-dir: cannot create \(path): \(systemError())")
}

/// The report: one JSON line per row, each written with one `write` on an O_APPEND file
/// (whole lines even when several processes share it).
package final class ReportFile: Sendable {
    let fd: Int32

    /// nil, with errno set, when the file cannot be opened.
    package init?(path: String) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        if fd < 0 { return nil }
    }

    deinit { if fd >= 0 { close(fd) } }

    func write(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }
}

/// What became of one row.
struct BatchResult: Sendable {
    enum Status: String, Sendable { case done, failed, skipped, interrupted }
    var status: Status
    var error: String?
    var seconds = 0.0
    var frames: UInt64 = 0
    var bytes: Int64 = 0
}

/// Runs a batch's items on `jobs` threads, each exporting one file at a time in this
/// process (one GStreamer registry, one decoded copy of each logo).
package final class BatchRun: Sendable {
    let items: [BatchItem]
    let settings: ExportSettings
    let jobs: Int
    let overwrite: Bool
    let failFast: Bool
    let report: ReportFile?
    private let state = Locked(State())

    struct State {
        var next = 0
        var running: [Int: String] = [:]
        var counts: [BatchResult.Status: Int] = [:]
        var finished = 0
        var stop = false
        /// Workers still taking rows.
        var working = 0
    }

    package init(
        items: [BatchItem], settings: ExportSettings, jobs: Int, overwrite: Bool, failFast: Bool, report: ReportFile?
    ) {
        self.items = items
        self.settings = settings
        self.jobs = jobs
        self.overwrite = overwrite
        self.failFast = failFast
        self.report = report
    }

    package static let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Files at a time when --jobs is not given: one per core (at most 8), each encoder
    /// with cores/jobs threads. Files side by side keep every core busy through each
    /// file's start-up and finish (probe, preroll, muxing), when one encoder alone
    /// leaves cores idle, and single-threaded x264 spends less CPU time per frame than
    /// frame-threaded x264 (Benchmarks/README.md, "Many files": the measurements behind it).
    package static func defaultJobs() -> Int { min(8, cores) }

    /// Exports every item; prints one line per file (or one progress line on a
    /// terminal) and the summary. Returns the exit status.
    package func execute(shard: Shard?) -> Int32 {
        Interrupt.install()
        // Memory must not grow with the number of files: one malloc arena for the whole
        // process (the threads of successive pipelines would leave freed frames in arenas of
        // their own), and blocks of 128 KiB and up in mappings of their own, returned whole
        // when freed (glibc would raise the threshold and let frames fragment the heap).
        // Benchmarks/README.md, "Many files", has the measurements.
        wm_limit_malloc_arenas(1)
        wm_set_malloc_mmap_threshold(128 << 10)
        let started = monotonicNanos()
        let tty = isatty(STDERR_FILENO) != 0
        let label = shard.map { " (shard \($0.index)/\($0.count))" } ?? ""
        let count = min(jobs, max(1, items.count))
        printErr("batch\(label): \(items.count) file\(items.count == 1 ? "" : "s"), \(count) at a time")
        state.withLock { $0.working = count }
        let workers = (0..<count).compactMap { _ in
            NamedThread.start("wm-batch") { [self] in
                self.work(tty: tty)
                state.withLock { $0.working -= 1 }
            }
        }
        if workers.count < count { state.withLock { $0.working -= count - workers.count } }
        while true {
            let (finished, running, working) = state.withLock { ($0.finished, $0.running, $0.working) }
            if working == 0 { break }
            if tty { drawProgress(finished: finished, running: running, started: started) }
            usleep(100_000)
        }
        for w in workers { NamedThread.join(w) }
        if tty { writeErr("\r\u{1B}[K") }
        let s = state.withLock { $0 }
        let interrupted = Interrupt.requested.load(ordering: .relaxed) != 0
        let elapsed = Double(monotonicNanos() - started) / 1e9
        var summary =
            "\(s.counts[.done] ?? 0) done, \(s.counts[.failed] ?? 0) failed, \(s.counts[.skipped] ?? 0) skipped"
        if let n = s.counts[.interrupted], n > 0 { summary += ", \(n) interrupted" }
        let left = items.count - s.finished
        if left > 0 { summary += ", \(left) not started" }
        printErr(summary + " in \(clockText(elapsed))")
        if interrupted { return 130 }
        return (s.counts[.failed] ?? 0) > 0 || left > 0 ? 1 : 0
    }

    private func work(tty: Bool) {
        while true {
            let taken: Int? = state.withLock { s in
                guard !s.stop, Interrupt.requested.load(ordering: .relaxed) == 0, s.next < items.count else {
                    return nil
                }
                defer { s.next += 1 }
                s.running[s.next] = items[s.next].output
                return s.next
            }
            guard let k = taken else { return }
            let item = items[k]
            let result = process(item)
            // Hand the finished pipeline's memory back: with encoders and decoders on
            // many threads, glibc's per-thread arenas otherwise keep freed frames, and the
            // process would grow with the number of files.
            wm_release_free_memory()
            state.withLock { s in
                s.running[k] = nil
                s.finished += 1
                s.counts[result.status, default: 0] += 1
                if result.status == .failed && failFast { s.stop = true }
            }
            if tty { writeErr("\r\u{1B}[K") }
            printErr(line(item, result))
            report?.write(reportLine(item, result))
        }
    }

    /// Exports one item unless its output exists or another process is writing it.
    private func process(_ item: BatchItem) -> BatchResult {
        let started = monotonicNanos()
        if !overwrite && access(item.output, F_OK) == 0 { return BatchResult(status: .skipped, error: "exists") }
        let lock: OutputLock
        switch OutputLock.acquire(for: item.output) {
        case .busy: return BatchResult(status: .skipped, error: "being written by another process")
        case .failed(let reason): return BatchResult(status: .failed, error: reason)
        case .held(let l): lock = l
        }
        defer { lock.release() }
        // Another process may have finished it between the check and the lock.
        if !overwrite && access(item.output, F_OK) == 0 { return BatchResult(status: .skipped, error: "exists") }
        lock.removeStaleTemporaries()
        var result = BatchResult(status: .done)
        do {
            let job = try ExportJob(
                source: .file(item.input), output: item.output, overlay: item.overlay, settings: settings)
            result.frames = try job.run(showProgress: false, keepInterrupted: false)
        } catch let error as UsageError {
            result = BatchResult(status: .failed, error: error.message)
        } catch let error as RunFailure {
            result = BatchResult(status: error.interrupted ? .interrupted : .failed, error: error.message)
        } catch {
            result = BatchResult(status: .failed, error: "\(error)")
        }
        result.seconds = Double(monotonicNanos() - started) / 1e9
        var st = stat()
        if result.status == .done, stat(item.output, &st) == 0 { result.bytes = Int64(st.st_size) }
        return result
    }

    private func line(_ item: BatchItem, _ r: BatchResult) -> String {
        switch r.status {
        case .done:
            return "done     \(item.output) (\(r.frames) frames, \(Self.seconds(r.seconds)))"
        case .skipped: return "skipped  \(item.output) (\(r.error ?? ""))"
        case .failed: return "failed   \(item.input) (\(item.origin)): \(r.error ?? "")"
        case .interrupted: return "stopped  \(item.output) (its temporary file removed; a rerun exports it)"
        }
    }

    private func reportLine(_ item: BatchItem, _ r: BatchResult) -> String {
        var members: [(String, String)] = [
            ("index", String(item.index)), ("input", JSONText.quoted(item.input)),
            ("output", JSONText.quoted(item.output)), ("status", JSONText.quoted(r.status.rawValue)),
        ]
        members.append(("error", r.error.map(JSONText.quoted) ?? "null"))
        members.append(("seconds", Self.seconds(r.seconds, unit: false)))
        members.append(("frames", String(r.frames)))
        members.append(("bytes", String(r.bytes)))
        members.append(("peak_rss_kb", String(Self.peakRSSKilobytes())))
        return JSONText.object(members)
    }

    private func drawProgress(finished: Int, running: [Int: String], started: UInt64) {
        let elapsed = Double(monotonicNanos() - started) / 1e9
        var text = "\(finished)/\(items.count) files"
        if !running.isEmpty {
            let names = running.keys.sorted().compactMap { running[$0] }.map { FilePath.split($0).name }
            text += ", now " + names.joined(separator: ", ")
        }
        if finished > 0 && finished < items.count {
            text += ", ETA " + clockText(elapsed / Double(finished) * Double(items.count - finished))
        }
        var cols = winsize()
        let width = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &cols) == 0 && cols.ws_col > 10 ? Int(cols.ws_col) - 1 : 79
        if text.count > width { text = String(text.prefix(width - 1)) + "…" }
        writeErr("\r\u{1B}[K" + text)
    }

    static func seconds(_ s: Double, unit: Bool = true) -> String {
        let v = (s * 100).rounded() / 100
        return "\(v)" + (unit ? " s" : "")
    }

    /// The process's peak resident memory so far (VmHWM).
    static func peakRSSKilobytes() -> Int {
        guard case .success(let bytes) = readFile("/proc/self/status", limit: 1 << 16) else { return 0 }
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
        return 0
    }
}

/// Memory settings a process that runs pipeline after pipeline needs, read by GLib and glibc
/// before `main` (library constructors allocate), so the batch command sets them and starts
/// itself again; when that fails, it goes on as it is. `G_SLICE=always-malloc`: GLib 2.74
/// keeps freed slices cached for good. `GLIBC_TUNABLES`: no per-thread caches and no fast
/// bins, so a freed block is merged with its free neighbours at once. A value the caller set
/// already is left as it is. Benchmarks/README.md, "Many files", has the measurements.
package func useBatchMemorySettings() {
    guard getenv("G_SLICE") == nil else { return }
    setenv("G_SLICE", "always-malloc", 1)
    setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0:glibc.malloc.mxfast=0", 0)
    execv("/proc/self/exe", CommandLine.unsafeArgv)
    unsetenv("G_SLICE")
}
