// Image and config loads asked for while playing, off the streaming thread.

import CGStreamer
import WatermarkModel

/// Loads that must not run on the streaming thread (an image or config file changed
/// while playing), run one at a time on one thread (`watermark-loader`). Only the latest value of a
/// property matters: a load asked for again before it started replaces the queued one, so
/// an application that sets `image` a thousand times a second costs one decode at a time,
/// not a thousand threads competing with the streaming thread for the CPU.
final class LoaderThread: @unchecked Sendable {
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
        NamedThread.detach("watermark-loader") { [self] in
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
