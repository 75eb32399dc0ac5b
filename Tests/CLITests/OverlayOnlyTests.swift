import Foundation
import GstTestSupport
import Testing

/// `export --overlay-only`: the layers alone in ProRes 4444 with straight alpha, as editors
/// read it (ffprobe for the stream, ffmpeg's decode for the pixels).
@Suite(.serialized) struct OverlayOnlyTests {
    static func probe(_ path: String) -> [String: String] {
        let (_, out) = TestEnv.run([
            "ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
            "stream=codec_name,profile,pix_fmt,width,height,nb_read_frames", "-of", "default=nw=1", path,
        ])
        var fields: [String: String] = [:]
        for line in out.split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
            if kv.count == 2 { fields[kv[0]] = kv[1] }
        }
        return fields
    }

    /// Every pixel of the first frame as RGBA.
    static func firstFrame(_ path: String) -> [(Int, Int, Int, Int)] {
        let raw = TestEnv.path("overlay-first.rgba")
        _ = TestEnv.run([
            "ffmpeg", "-v", "error", "-y", "-i", path, "-frames:v", "1", "-vf", "format=rgba", "-f", "rawvideo", raw,
        ])
        let b = Array((try? Data(contentsOf: URL(fileURLWithPath: raw))) ?? Data())
        return stride(from: 0, to: b.count - 3, by: 4).map {
            (Int(b[$0]), Int(b[$0 + 1]), Int(b[$0 + 2]), Int(b[$0 + 3]))
        }
    }

    @Test func withoutAnInputTheSizeRateAndLengthAreGiven() throws {
        let out = TestEnv.path("overlay-only.mov")
        let (status, log) = try CLI.run([
            "export", "--overlay-only", "--size", "320x180", "--fps", "25", "--duration", "2", "--text", "Hi",
            "--outline-width", "0", "--opacity", "0.5", "--anchor", "center", "--text-size", "0.3", out,
        ])
        #expect(status == 0, "\(log)")
        let s = Self.probe(out)
        #expect(s["codec_name"] == "prores" && s["profile"] == "4444", "\(s)")
        #expect(s["pix_fmt"]?.hasPrefix("yuva444p") == true, "\(s)")
        #expect(s["width"] == "320" && s["height"] == "180" && s["nb_read_frames"] == "50", "\(s)")
        let pixels = Self.firstFrame(out)
        #expect(pixels.count == 320 * 180)
        // Outside the text: nothing. Inside: white at half opacity, straight (not 128,128,128).
        let clear = pixels.filter { $0.3 == 0 }.count
        let text = pixels.filter { abs($0.3 - 128) <= 2 }
        #expect(clear > pixels.count * 8 / 10)
        #expect(text.count > 300)
        #expect(text.allSatisfy { $0.0 >= 250 && $0.1 >= 250 && $0.2 >= 250 }, "\(text.prefix(5))")
    }

    @Test func anInputGivesItsSizeAndLength() throws {
        let karma = TestEnv.fixture("gopro/karma.mp4")
        let out = TestEnv.path("karma-overlay.mov")
        let (status, log) = try CLI.run([
            "export", "--overlay-only", karma, out, "--text", "{data:speed_kmh:%.0f} km/h",
        ])
        #expect(status == 0, "\(log)")
        #expect(log.contains("GoPro telemetry:"), "\(log)")
        let s = Self.probe(out)
        #expect(s["width"] == "854" && s["height"] == "480", "\(s)")
        // 12.08 s at 30000/1001.
        let frames = Int(s["nb_read_frames"] ?? "") ?? 0
        #expect(abs(frames - 362) <= 1, "\(s)")
    }

    @Test func theOutputMustBeAMOV() throws {
        let (status, log) = try CLI.run(["export", "--overlay-only", "--text", "x", TestEnv.path("o.mp4")])
        #expect(status == 2)
        #expect(log.contains("must end in .mov"), "\(log)")
    }
}
