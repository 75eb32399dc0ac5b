// Invariant: the closure passed to `NamedThread.start` is retained in a box until the new
// thread has taken it (or, when no thread could be made, until it has run inline), so it
// outlives neither too little nor too long.

import CGStreamer

/// Every thread the package starts (the element's loader, text-file watcher and render-ahead
/// worker; the CLI's batch workers and control server), started one way: GLib's g_thread_try_new, which names them (for top, gdb and
/// perf) and is pthread_create underneath.
package enum NamedThread {
    private final class Box: @unchecked Sendable {
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
    }

    /// Starts `work` on a new thread named `name`; the caller joins it with `join`.
    /// Nil if no thread could be made (`work` has not run).
    package static func start(_ name: String, _ work: @escaping @Sendable () -> Void) -> UnsafeMutablePointer<GThread>?
    {
        let context = Unmanaged.passRetained(Box(work)).toOpaque()
        let thread = g_thread_try_new(
            name,
            { arg in
                guard let arg else { return nil }
                Unmanaged<Box>.fromOpaque(arg).takeRetainedValue().work()
                return nil
            }, context, nil)
        if thread == nil { Unmanaged<Box>.fromOpaque(context).release() }
        return thread
    }

    /// Waits for a thread from `start` to end.
    package static func join(_ thread: UnsafeMutablePointer<GThread>) {
        _ = g_thread_join(thread)
    }

    /// Runs `work` once on a thread nobody joins (or inline if no thread can be made).
    package static func detach(_ name: String, _ work: @escaping @Sendable () -> Void) {
        if let thread = start(name, work) {
            g_thread_unref(thread)
        } else {
            work()
        }
    }
}
