// The C libraries that only some jobs need (librsvg, FFmpeg, libass, CUDA and NVRTC, libsoup,
// gst-rtsp-server) are opened with dlopen the first time they are needed, not linked: the
// plugin and the tool load without them, and a job that does not use one does not pay for
// its relocations and resident pages. One way to open them, and one error that names what is
// missing.

import Glibc

/// A library, or one of its functions, that could not be found: `reason` names which.
package struct LibraryUnavailable: Error, Sendable, CustomStringConvertible {
    package let reason: String
    package init(reason: String) { self.reason = reason }
    package var description: String { reason }

    /// The same failure, said as what it stops: "SVG support needs librsvg …: <why>".
    package func stopping(_ what: String) -> LibraryUnavailable {
        LibraryUnavailable(reason: "\(what): \(reason)")
    }
}

/// A C library opened with dlopen (never closed: its functions are kept for the process's
/// life); its functions are looked up by name and typed as the caller's `@convention(c)` types.
package struct SharedLibrary: @unchecked Sendable {
    /// The name the library was opened under.
    package let soname: String
    private let handle: UnsafeMutableRawPointer

    /// The first of `sonames` the dynamic loader finds, opened with `RTLD_LOCAL` so its
    /// symbols stay out of the process's global namespace.
    package init(firstOf sonames: [String], lazy: Bool = false) throws(LibraryUnavailable) {
        var why = "not found"
        for soname in sonames {
            if let handle = dlopen(soname, (lazy ? RTLD_LAZY : RTLD_NOW) | RTLD_LOCAL) {
                self.soname = soname
                self.handle = handle
                return
            }
            why = dlerror().map { String(cString: $0) } ?? why
        }
        throw LibraryUnavailable(reason: why)
    }

    package init(_ soname: String) throws(LibraryUnavailable) {
        try self.init(firstOf: [soname])
    }

    /// The C function `name`, as `T` (a `@convention(c)` function type).
    package func function<T>(_ name: String) throws(LibraryUnavailable) -> T {
        guard let pointer = dlsym(handle, name) else { throw LibraryUnavailable(reason: "\(soname) lacks \(name)") }
        return unsafeBitCast(pointer, to: T.self)
    }
}
