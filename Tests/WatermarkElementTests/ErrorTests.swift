import CGStreamer
import CGstCheck
import CShim
import Foundation
import GstTestSupport
import Testing
import WatermarkModel

/// Bad input: a clear element error naming the file, never a crash.
@Suite struct ErrorTests {
    static func pngWithHugeHeader() -> String {
        // A valid PNG signature and IHDR chunk claiming 100000×100000, then nothing.
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr: [UInt8] = Array("IHDR".utf8)
        for v in [UInt32(100_000), UInt32(100_000)] {
            ihdr += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        ihdr += [8, 6, 0, 0, 0]
        bytes += [0, 0, 0, 13] + ihdr
        let crc = crc32(ihdr)
        bytes += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        let path = TestEnv.path("huge.png")
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in data {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }

    static func truncatedPNG() -> String {
        let good = GstTest.solidPNG("for-truncation.png", width: 200, height: 200, argb: 0xFF12_3456)
        let data = FileManager.default.contents(atPath: good) ?? Data()
        let path = TestEnv.path("truncated.png")
        FileManager.default.createFile(atPath: path, contents: data.prefix(data.count / 2))
        return path
    }

    static let cases: [(String, @Sendable () -> String, Int32)] = [
        ("missing", { TestEnv.path("no-such-logo.png") }, Int32(GST_RESOURCE_ERROR_NOT_FOUND.rawValue)),
        ("zero-byte", { TestEnv.write("empty.png", "") }, Int32(GST_RESOURCE_ERROR_READ.rawValue)),
        (
            "not an image", { TestEnv.write("notes.png", "hello, this is text\n") },
            Int32(GST_RESOURCE_ERROR_READ.rawValue)
        ),
        ("truncated PNG", { truncatedPNG() }, Int32(GST_RESOURCE_ERROR_READ.rawValue)),
        ("huge PNG header", { pngWithHugeHeader() }, Int32(GST_RESOURCE_ERROR_READ.rawValue)),
        (
            "corrupt SVG", { TestEnv.write("broken.svg", "<svg xmlns='http://www.w3.org/2000/svg'><rect") },
            Int32(GST_RESOURCE_ERROR_READ.rawValue)
        ),
        ("directory", { TestEnv.tmp }, Int32(GST_RESOURCE_ERROR_OPEN_READ.rawValue)),
    ]

    @Test(arguments: 0..<cases.count)
    func badImageIsAResourceErrorNamingTheFile(index: Int) {
        let (name, make, code) = Self.cases[index]
        let path = make()
        let run = Pipeline.run("videotestsrc num-buffers=5 ! watermark image=\"\(path)\" ! fakesink", timeout: 20)
        #expect(!run.ok, "\(name): the pipeline must fail")
        let err = run.errors.first
        #expect(err?.domain == gst_watermark_resource_error_quark(), "\(name): \(run.errors)")
        #expect(err?.code == code, "\(name): \(String(describing: err))")
        #expect(err?.message.contains(path) == true, "\(name): message must name the file: \(err?.message ?? "")")
    }

    @Test func billionLaughsSVGDoesNotHang() {
        let svg = """
            <?xml version="1.0"?>
            <!DOCTYPE svg [
              <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
              <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
              <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
              <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
              <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
              <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
            ]>
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&f;&f;&f;&f;</text></svg>
            """
        let path = TestEnv.write("laughs.svg", svg)
        let start = Date()
        let run = Pipeline.run("videotestsrc num-buffers=2 ! watermark image=\"\(path)\" ! fakesink", timeout: 30)
        #expect(Date().timeIntervalSince(start) < 30)
        // Either refused with an error or rendered without expanding: both are fine.
        #expect(run.ok || run.errors.first?.message.contains(path) == true)
    }

    @Test func goodSVGAndJPEGLoad() {
        let svg = TestEnv.root + "/assets/logo.svg"
        #expect(Pipeline.run("videotestsrc num-buffers=3 ! watermark image=\"\(svg)\" ! fakesink").ok)
        let jpeg = TestEnv.path("logo.jpg")
        let made = Pipeline.run(
            "videotestsrc num-buffers=1 ! video/x-raw,width=64,height=64 ! jpegenc ! filesink location=\(jpeg)")
        #expect(made.ok)
        #expect(Pipeline.run("videotestsrc num-buffers=3 ! watermark image=\"\(jpeg)\" ! fakesink").ok)
    }

    @Test func outOfRangeAndNaNPropertiesAreSafe() {
        let run = Pipeline.run(
            """
            videotestsrc num-buffers=3 ! video/x-raw,width=97,height=31 ! \
            watermark name=w text=hi ! fakesink
            """,
            whilePlaying: { pipeline in
                let bin = UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self)
                guard let w = gst_bin_get_by_name(bin, "w") else { return }
                defer { gst_object_unref(w) }
                let obj = gst_watermark_as_object(w)
                for (k, v) in [
                    ("opacity", "nan"), ("x", "nan"), ("margin-x", "inf"), ("text-size", "-5"), ("width", "7"),
                ] {
                    gst_util_set_object_arg(obj, k, v)
                }
            })
        #expect(run.ok, "\(run.errors)")
    }
}
