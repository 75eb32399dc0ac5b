// Array's buffer-pointer methods rethrow before Swift 6.1, so a closure's typed error comes
// out of them as `any Error` on Swift 6.0 (Debian 13's toolchain). These keep the closure's
// error type on every toolchain: the error travels out in a Result.

extension Array {
    /// `withUnsafeBufferPointer`, throwing `body`'s own error type.
    @inlinable
    package func withBuffer<R, E: Error>(_ body: (UnsafeBufferPointer<Element>) throws(E) -> R) throws(E) -> R {
        try withUnsafeBufferPointer { buffer in Result { () throws(E) in try body(buffer) } }.get()
    }

    /// `withUnsafeMutableBufferPointer`, throwing `body`'s own error type.
    @inlinable
    package mutating func withMutableBuffer<R, E: Error>(
        _ body: (inout UnsafeMutableBufferPointer<Element>) throws(E) -> R
    ) throws(E) -> R {
        try withUnsafeMutableBufferPointer { buffer in Result { () throws(E) in try body(&buffer) } }.get()
    }
}
