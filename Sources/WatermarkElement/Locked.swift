import Glibc

/// A value behind a POSIX mutex. Used instead of the standard library's `Mutex` because the
/// latter waits on a futex directly, which ThreadSanitizer cannot see: every access under it
/// would be reported as a race. `pthread_mutex_lock` is intercepted by the sanitizers and costs
/// the same uncontended (one atomic exchange).
final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
