import CGStreamer
import Glibc
import WatermarkModel

/// Renders the next frame's pixels of layers whose text changes with time (`{frame}`,
/// `{pts}`, a clock about to tick) on a worker thread while the streaming thread blends
/// the current frame: text layout and conversion (100–200 µs at 1080p) leave the
/// streaming thread. The streaming thread asks for what it predicts the next frame needs
/// (`request`) and, when that frame comes, takes it (`take`): if the prediction is still
/// being rendered it waits for it (never longer than rendering it itself would take), or,
/// when frames come back to back, renders in place;
/// if nothing matching was asked for it renders itself. This pays off when frames come
/// at their pace (a live source); when they come back to back (a file export) there is no
/// idle time to render in, and the element asks only for layers that change now and then
/// (a clock about to tick). A prediction that had to be waited for (the worker is slower
/// than the frames) pauses asking for a while. Keys are compared in full, so a wrong
/// prediction costs only the worker's time, never a wrong frame.
///
/// Everything below is `Locked` (a POSIX mutex and condition variable, which ThreadSanitizer
/// sees); the worker thread is started on the first request and joined by `stop()`.
final class RenderAhead: @unchecked Sendable {
    struct Job: Sendable {
        var layer: Int
        var key: RenderKey
        var make: @Sendable () -> PreparedLayer
    }

    private struct State {
        var queue: [Job] = []
        var running: (layer: Int, key: RenderKey)?
        var done: [Int: (key: RenderKey, prepared: PreparedLayer)] = [:]
        var thread: UnsafeMutablePointer<GThread>?
        var stopping = false

        /// Removes `layer`'s finished pixels; returns them if they are for `key`.
        mutating func takeDone(_ layer: Int, _ key: RenderKey) -> PreparedLayer? {
            guard let d = done.removeValue(forKey: layer), d.key == key else { return nil }
            return d.prepared
        }

        /// Whether `key` of `layer` is queued or being rendered.
        func inFlight(_ layer: Int, _ key: RenderKey) -> Bool {
            (running.map { $0.layer == layer && $0.key == key } ?? false)
                || queue.contains { $0.layer == layer && $0.key == key }
        }
    }

    private let state = Locked(State())

    deinit {
        stop()
    }

    /// Queues `job` (replacing a queued job of the same layer) unless its key is already
    /// queued, being rendered or done. Returns false if the worker could not be started.
    @discardableResult
    func request(_ job: Job) -> Bool {
        let queued = state.withLock { s -> Bool in
            if s.stopping { return false }
            if s.done[job.layer]?.key == job.key || s.inFlight(job.layer, job.key) { return true }
            if s.thread == nil {
                s.thread = startThread()
                if s.thread == nil { return false }
            }
            s.queue.removeAll { $0.layer == job.layer }
            s.queue.append(job)
            return true
        }
        state.broadcast()
        return queued
    }

    /// The prepared pixels of `layer` for `key`, and whether they were late: asked for but
    /// still queued or being rendered when asked. Late pixels are waited for if `wait`;
    /// otherwise they are left (the caller renders in place). No pixels either when they were
    /// not asked for; pixels left for another key are dropped.
    func take(layer: Int, key: RenderKey, wait: Bool) -> (prepared: PreparedLayer?, late: Bool) {
        if wait {
            return state.withLock(when: { $0.done[layer]?.key == key || !$0.inFlight(layer, key) }) { s, waited in
                (s.takeDone(layer, key), waited)
            }
        }
        return state.withLock { s in
            let prepared = s.takeDone(layer, key)
            return (prepared, prepared == nil && s.inFlight(layer, key))
        }
    }

    /// Whether `layer`'s pixels for `key` are rendered and waiting to be taken.
    func isReady(layer: Int, key: RenderKey) -> Bool {
        state.withLock { $0.done[layer]?.key == key }
    }

    /// Drops queued and finished work and joins the worker (after the job it is on).
    func stop() {
        let worker = state.withLock { s -> UnsafeMutablePointer<GThread>? in
            s.queue.removeAll()
            s.done.removeAll()
            if s.thread != nil { s.stopping = true }
            return s.thread
        }
        guard let worker else { return }
        state.broadcast()
        NamedThread.join(worker)
        state.withLock { s in
            s.thread = nil
            s.stopping = false
            s.done.removeAll()
        }
    }

    /// Called with the lock held: the worker waits for it before it looks at the queue.
    private func startThread() -> UnsafeMutablePointer<GThread>? {
        // The worker only runs between here and `stop()`'s join, which `deinit` calls:
        // `self` outlives it without being retained.
        let unretained = Unmanaged.passUnretained(self)
        return NamedThread.start("watermark-ahead") { unretained.takeUnretainedValue().work() }
    }

    private func work() {
        while let job = state.withLock(
            when: { !$0.queue.isEmpty || $0.stopping },
            { s, _ -> Job? in
                if s.stopping { return nil }
                let job = s.queue.removeFirst()
                s.running = (job.layer, job.key)
                return job
            })
        {
            let prepared = job.make()
            state.withLock { s in
                s.running = nil
                if !s.stopping { s.done[job.layer] = (job.key, prepared) }
            }
            state.broadcast()
        }
        // Wakes a `take` that waited for a job dropped by `stop()`.
        state.broadcast()
    }
}
