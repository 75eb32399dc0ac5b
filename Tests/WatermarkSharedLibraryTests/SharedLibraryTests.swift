import Glibc
import Testing
import WatermarkSharedLibrary

@Suite struct SharedLibraryTests {
    @Test func opensTheFirstLibraryFoundAndCallsItsFunctions() throws {
        let libc = try SharedLibrary(firstOf: ["libwatermark-absent.so.0", "libc.so.6"])
        #expect(libc.soname == "libc.so.6")
        let strlen: @convention(c) (UnsafePointer<CChar>?) -> Int = try libc.function("strlen")
        #expect(strlen("watermark") == 9)
    }

    @Test func aMissingLibraryOrFunctionIsNamed() throws {
        let absent = Self.thrown { _ = try SharedLibrary("libwatermark-absent.so.0") }
        #expect(absent?.reason.contains("libwatermark-absent.so.0") == true, "\(absent?.reason ?? "")")
        let said = absent?.stopping("SVG support needs librsvg").reason ?? ""
        #expect(said.hasPrefix("SVG support needs librsvg: ") && said.contains("libwatermark-absent.so.0"), "\(said)")

        let libc = try SharedLibrary("libc.so.6")
        let missing = Self.thrown {
            let _: @convention(c) () -> Void = try libc.function("wm_no_such_function")
        }
        #expect(missing?.reason == "libc.so.6 lacks wm_no_such_function")
    }

    /// The error `body` throws, or nil and a recorded issue when it throws none (what
    /// `#expect(throws:)` returns from Swift 6.1 on; Swift 6.0's returns nothing).
    private static func thrown(
        _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) -> LibraryUnavailable? {
        do {
            try body()
        } catch let error as LibraryUnavailable {
            return error
        } catch {
            Issue.record("\(error) was thrown, not a LibraryUnavailable", sourceLocation: sourceLocation)
            return nil
        }
        Issue.record("no LibraryUnavailable was thrown", sourceLocation: sourceLocation)
        return nil
    }
}
