import Glibc

/// A value behind a POSIX mutex. Used instead of the standard library's `Mutex` because the
/// latter waits on a futex directly, which ThreadSanitizer cannot see: every access under it
/// would be reported as a race. `pthread_mutex_lock` is intercepted by the sanitizers and costs
/// the same uncontended (one atomic exchange). A condition variable lets a thread wait for the
/// value to reach a state another thread brings it to (`withLock(when:)`, `broadcast()`).
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        cond = .allocate(capacity: 1)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` under the lock if no other thread holds it; nil, without waiting, if one does.
    package func withLockIfFree<R>(_ body: (inout Value) throws -> R) rethrows -> R? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Waits (the lock released meanwhile) until `ready` holds, then runs `body` under the
    /// lock; `body` is told whether it had to wait. The waiting is woken by `broadcast()`.
    package func withLock<R>(when ready: (Value) -> Bool, _ body: (inout Value, _ waited: Bool) throws -> R) rethrows
        -> R
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var waited = false
        while !ready(value) {
            waited = true
            pthread_cond_wait(cond, mutex)
        }
        return try body(&value, waited)
    }

    /// Wakes every thread waiting in `withLock(when:)` to check its condition again.
    package func broadcast() {
        pthread_cond_broadcast(cond)
    }
}
