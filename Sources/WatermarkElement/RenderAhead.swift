import CGStreamer
import Glibc

/// A layer's pixels for one `RenderKey`: rendered with cairo/pango, turned to the stream's
/// orientation and converted to its format. Pure: made on the streaming thread or ahead
/// of time on the `RenderAhead` worker.
struct PreparedLayer: Sendable {
    var rendered: RenderedOverlay?
    var converted: ConvertedOverlay?
    var blockRect: PixelRect

    init(style: OverlayStyle, image: DecodedImage?, moves: Bool, width: Int, height: Int,
         layout: PixelLayout, encoding: YUVEncoding, orientation: ImageOrientation) {
        let shown = orientation.displayedSize(width: width, height: height)
        let result = BlockRenderer.render(style: style, image: image, frameWidth: shown.width, frameHeight: shown.height,
                                          alignX: orientation == .rotate0 ? layout.alignX : 1,
                                          alignY: orientation == .rotate0 ? layout.alignY : 1, clip: !moves)
        let rendered = result.overlay.map { orientation.storedOverlay($0, width: width, height: height) }
        self.rendered = rendered
        blockRect = result.blockRect
        converted = rendered.map {
            moves ? ConvertedOverlay($0, layout: layout, encoding: encoding)
                  : ConvertedOverlay($0, layout: layout, encoding: encoding, frameWidth: width, frameHeight: height)
        }
    }
}

/// Renders the next frame's pixels of layers whose text changes with time (`{frame}`,
/// `{pts}`, a clock about to tick) on a worker thread while the streaming thread blends
/// the current frame: text layout and conversion (100–200 µs at 1080p) leave the
/// streaming thread. The streaming thread asks for what it predicts the next frame needs
/// (`request`) and, when that frame comes, takes it (`take`): if the prediction is still
/// being rendered it waits for it (never longer than rendering it itself would take);
/// if nothing matching was asked for it renders itself. This pays off when frames come
/// at their pace (live sources); when they come back to back (a file export), the next
/// frame arrives before its text is ready, and rendering in place is cheaper than handing
/// every frame between two threads: the element then stops asking for a while. Keys are compared in full, so a
/// wrong prediction costs only the worker's time, never a wrong frame.
///
/// A POSIX mutex and condition variable (which ThreadSanitizer sees) guard everything
/// below; the worker thread is started on the first request and joined by `stop()`.
final class RenderAhead: @unchecked Sendable {
    struct Job: Sendable {
        var layer: Int
        var key: RenderKey
        var make: @Sendable () -> PreparedLayer
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [Job] = []
    private var running: (layer: Int, key: RenderKey)?
    private var done: [Int: (key: RenderKey, prepared: PreparedLayer)] = [:]
    private var thread: UnsafeMutablePointer<GThread>?
    private var stopping = false

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    deinit {
        stop()
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Queues `job` (replacing a queued job of the same layer) unless its key is already
    /// queued, being rendered or done. Returns false if the worker could not be started.
    @discardableResult
    func request(_ job: Job) -> Bool {
        locked {
            if stopping { return false }
            if done[job.layer]?.key == job.key { return true }
            if let r = running, r.layer == job.layer, r.key == job.key { return true }
            if queue.contains(where: { $0.layer == job.layer && $0.key == job.key }) { return true }
            if thread == nil && !startThread() { return false }
            queue.removeAll { $0.layer == job.layer }
            queue.append(job)
            pthread_cond_broadcast(cond)
            return true
        }
    }

    /// The prepared pixels of `layer` for `key` if they were requested, and whether they
    /// had to be waited for (queued or still being rendered when asked). nil when they were
    /// not requested (the caller renders).
    func take(layer: Int, key: RenderKey) -> (prepared: PreparedLayer, waited: Bool)? {
        locked {
            var waited = false
            while true {
                if let d = done[layer] {
                    done[layer] = nil
                    if d.key == key { return (d.prepared, waited) }
                }
                let inFlight = (running.map { $0.layer == layer && $0.key == key } ?? false)
                    || queue.contains { $0.layer == layer && $0.key == key }
                if !inFlight { return nil }
                waited = true
                pthread_cond_wait(cond, mutex)
            }
        }
    }

    /// Whether `layer`'s pixels for `key` are rendered and waiting to be taken.
    func isReady(layer: Int, key: RenderKey) -> Bool {
        locked { done[layer]?.key == key }
    }

    /// Drops queued and finished work and joins the worker (after the job it is on).
    func stop() {
        let worker: UnsafeMutablePointer<GThread>? = locked {
            queue.removeAll()
            done.removeAll()
            guard let t = thread else { return nil }
            stopping = true
            pthread_cond_broadcast(cond)
            return t
        }
        guard let worker else { return }
        _ = g_thread_join(worker)
        locked {
            thread = nil
            stopping = false
            done.removeAll()
        }
    }

    /// Called with the mutex held.
    private func startThread() -> Bool {
        let context = Unmanaged.passUnretained(self).toOpaque()
        // The worker only runs between here and `stop()`'s join, which `deinit` calls:
        // `self` outlives it without being retained. (g_thread_try_new names the thread,
        // for top and debuggers, and is pthread_create underneath.)
        thread = g_thread_try_new("watermark-ahead", { raw in
            guard let raw else { return nil }
            Unmanaged<RenderAhead>.fromOpaque(raw).takeUnretainedValue().work()
            return nil
        }, context, nil)
        return thread != nil
    }

    private func work() {
        pthread_mutex_lock(mutex)
        while true {
            while queue.isEmpty && !stopping { pthread_cond_wait(cond, mutex) }
            if stopping { break }
            let job = queue.removeFirst()
            running = (job.layer, job.key)
            pthread_mutex_unlock(mutex)
            let prepared = job.make()
            pthread_mutex_lock(mutex)
            running = nil
            if !stopping { done[job.layer] = (job.key, prepared) }
            pthread_cond_broadcast(cond)
        }
        // Wakes a `take` that waited for the job just finished or dropped.
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
    }
}
