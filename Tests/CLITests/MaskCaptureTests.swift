import Foundation
import GstTestSupport
import Testing

/// A segmented capture of the test camera with two config masks (a pixelated rectangle and a
/// solid polygon), the polygon moved once through the control API while recording: every
/// frame of every segment is hidden where the masks were at that moment.
@Suite(.serialized) struct MaskCaptureTests {
    static let (width, height) = (320, 180)

    /// Every frame of a recording as packed RGB.
    static func frames(_ path: String) throws -> [[UInt8]] {
        let raw = path + ".rgb"
        let (status, out) = TestEnv.run([
            "gst-launch-1.0", "-q", "filesrc", "location=\(path)", "!", "decodebin", "!", "videoconvert", "!",
            "video/x-raw,format=RGB,width=\(width),height=\(height)", "!", "filesink", "location=\(raw)",
        ])
        #expect(status == 0, "\(path): \(out)")
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: raw)))
        // RGB rows of 320 pixels are 960 bytes: no padding.
        let size = width * height * 3
        return stride(from: 0, to: data.count - size + 1, by: size).map { Array(data[$0..<$0 + size]) }
    }

    static func pixel(_ f: [UInt8], _ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let i = (y * width + x) * 3
        return (Int(f[i]), Int(f[i + 1]), Int(f[i + 2]))
    }

    static func isRed(_ f: [UInt8], _ x: Int, _ y: Int) -> Bool {
        let p = pixel(f, x, y)
        return p.r > 180 && p.g < 70 && p.b < 70
    }

    @Test func masksHideEveryFrameOfEverySegmentAndMoveOnce() throws {
        let control = ControlTests.base + 3
        let dir = TestEnv.path("mask-capture")
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let config = dir + "/masks.json"
        // Cells of 0.05 × 320 = 16 pixels; the rectangle covers x 16…112 (a bar edge at 45.7 in it).
        try """
        { "layers": [
          { "mask": [0.05, 0.1, 0.3, 0.4], "fill": "pixelate", "cell": 0.05 },
          { "mask": [[0.55, 0.05], [0.95, 0.05], [0.75, 0.45]], "color": "#FF0000" }
        ] }
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let (capture, log) = try ControlTests.start(
            [
                "capture", "--test-source", "--size", "\(Self.width)x\(Self.height)", "--segment-duration", "2",
                "--config", config, "--control", "127.0.0.1:\(control)", dir + "/rec-%05d.mp4",
            ], log: "mask-capture.log")
        try ControlTests.requireServer(control, log: log)
        Thread.sleep(forTimeInterval: 3)
        let moved = #"{ "mask": [[0.55, 0.55], [0.95, 0.55], [0.75, 0.95]] }"#
        let r = try #require(HTTP.request(control, "PATCH", "/api/layers/1", body: moved))
        #expect(r.status == 200, "\(r.text)")
        Thread.sleep(forTimeInterval: 3.5)
        ControlTests.stop(capture)
        #expect(capture.terminationStatus == 0, "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")

        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".mp4") }.sorted()
        #expect(files.count >= 3, "\(files)")
        // The triangle's centroid before and after the move.
        let (old, new) = ((240, 33), (240, 123))
        var sawOld = false, sawNew = false, count = 0
        for file in files {
            let frames = try Self.frames(dir + "/" + file)
            #expect(!frames.isEmpty, "\(file) has no frames")
            for (n, f) in frames.enumerated() {
                count += 1
                let atOld = Self.isRed(f, old.0, old.1), atNew = Self.isRed(f, new.0, new.1)
                #expect(atOld != atNew, "\(file) frame \(n): the polygon is not where it was or where it went")
                // Once moved, never back.
                #expect(!(sawNew && atOld), "\(file) frame \(n): the old place came back")
                sawOld = sawOld || atOld
                sawNew = sawNew || atNew
                // A pixelated cell over the source's bar edge (x 32…47, y 32…47) is one colour.
                var lo = (255, 255, 255), hi = (0, 0, 0)
                for y in 35..<45 {
                    for x in 35..<45 {
                        let p = Self.pixel(f, x, y)
                        lo = (min(lo.0, p.r), min(lo.1, p.g), min(lo.2, p.b))
                        hi = (max(hi.0, p.r), max(hi.1, p.g), max(hi.2, p.b))
                    }
                }
                let spread = max(hi.0 - lo.0, hi.1 - lo.1, hi.2 - lo.2)
                #expect(spread < 40, "\(file) frame \(n): the pixelated cell varies by \(spread)")
            }
        }
        #expect(sawOld && sawNew)
        #expect(count > 150, "\(count) frames")
    }
}
