import Foundation
import GstTestSupport
import Testing

/// The speedometer example exported through the CLI: at three times, the exported frame's
/// dial (caption and needle) matches a render of static layers showing the values the test
/// works out from the example's CSV, far better than it matches the values of a second
/// later. Measured with ffmpeg's PSNR over the dial's box, as a user would compare frames.
@Suite(.serialized) struct DataExportTests {
    static let example = TestEnv.root + "/examples/speedometer"
    static let (width, height, fps) = (640, 360, 30)

    /// The example's rows, read by the test: (time, speed).
    static func rows() throws -> [(Double, Double)] {
        let text = try String(contentsOfFile: example + "/speed.csv", encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let cells = line.split(separator: ",")
            guard cells.count >= 2, let t = Double(cells[0]), let v = Double(cells[1]) else { return nil }
            return (t, v)
        }
    }

    static func speed(_ rows: [(Double, Double)], at t: Double) -> Double {
        guard let i = rows.lastIndex(where: { $0.0 <= t }) else { return rows[0].1 }
        guard i + 1 < rows.count else { return rows[i].1 }
        let (t0, v0) = rows[i], (t1, v1) = rows[i + 1]
        return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    }

    static func gear(_ rows: [(Double, Double)], at t: Double) throws -> Int {
        // gear is the third column, stepped: the row at or before t.
        let text = try String(contentsOfFile: example + "/speed.csv", encoding: .utf8)
        let gears = text.split(separator: "\n").dropFirst().compactMap { line -> (Double, Int)? in
            let c = line.split(separator: ",")
            guard c.count == 3, let t = Double(c[0]), let g = Int(c[2]) else { return nil }
            return (t, g)
        }
        return gears.last(where: { $0.0 <= t })?.1 ?? gears[0].1
    }

    /// The example's config with the bound and data-driven fields replaced by `speed` and
    /// `gear` written out.
    static func staticConfig(speed: Double, gear: Int, name: String) throws -> String {
        var config = try String(contentsOfFile: example + "/speedometer.json", encoding: .utf8)
        let angle = -135 + 270 * min(max(speed / 200, 0), 1)
        config = config.replacingOccurrences(
            of: #""bind": { "rotation": { "value": "data:speed", "from": [0, 200], "to": [-135, 135] } }"#,
            with: #""rotation": \#(String(format: "%.2f", angle))"#)
        config = config.replacingOccurrences(of: "{data:speed:%.0f}", with: String(format: "%.0f", speed))
        config = config.replacingOccurrences(of: "{data:gear}", with: String(gear))
        config = config.replacingOccurrences(of: #""data": { "file": "speed.csv", "step": ["gear"] },"#, with: "")
        // Changing texts get tabular digits; so do these.
        config = config.replacingOccurrences(
            of: #""text-size": 0.05"#, with: #""text-size": 0.05, "font-features": "tnum""#)
        config = config.replacingOccurrences(
            of: #""text-size": 0.03"#, with: #""text-size": 0.03, "font-features": "tnum""#)
        #expect(!config.contains("data:"), "\(config)")
        let path = TestEnv.path(name)
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        // Relative image paths are relative to the config's folder.
        for image in ["dial.svg", "needle.svg"] {
            try? FileManager.default.removeItem(atPath: TestEnv.path(image))
            try FileManager.default.copyItem(atPath: example + "/" + image, toPath: TestEnv.path(image))
        }
        return path
    }

    /// The dial's box: centred at (0.85, 0.7), a quarter of the width across.
    static var dialBox: String {
        let side = width / 4 + 8
        return
            "crop=\(side):\(side):\(Int(0.85 * Double(width)) - side / 2):\(min(height - side, Int(0.7 * Double(height)) - side / 2))"
    }

    /// PSNR of luma over `box` (an ffmpeg crop) between two pictures.
    static func psnr(_ a: String, _ b: String, box: String = dialBox) throws -> Double {
        let crop = box
        let (status, log) = TestEnv.run([
            "ffmpeg", "-hide_banner", "-i", a, "-i", b, "-lavfi",
            "[0:v]\(crop),format=gray[x];[1:v]\(crop),format=gray[y];[x][y]psnr", "-f",
            "null", "-",
        ])
        #expect(status == 0, "\(log)")
        guard let r = log.range(of: "PSNR y:", options: .backwards) else { return 0 }
        let text = log[r.upperBound...].prefix { "0123456789.inf".contains($0) }
        return text == "inf" ? 99 : Double(text) ?? 0
    }

    @Test func theExportedDialShowsTheCSVsValuesAtThreeTimes() throws {
        let source = TestEnv.path("data-black.mp4")
        let made = Pipeline.run(
            """
            videotestsrc num-buffers=\(9 * Self.fps) pattern=black ! \
            video/x-raw,format=I420,width=\(Self.width),height=\(Self.height),framerate=\(Self.fps)/1 ! x264enc ! mp4mux ! \
            filesink location=\(source)
            """)
        #expect(made.ok, "\(made.errors)")
        let out = TestEnv.path("data-speedometer.mp4")
        let (status, log) = try CLI.run([
            "export", source, out, "--config", Self.example + "/speedometer.json", "--quality", "16",
        ])
        #expect(status == 0, "\(log)")
        let rows = try Self.rows()
        for frame in [45, 120, 219] {
            let t = Double(frame) / Double(Self.fps)
            let shown = TestEnv.path("data-shown-\(frame).png")
            let (s, l) = TestEnv.run([
                "ffmpeg", "-v", "error", "-y", "-i", out, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1", shown,
            ])
            #expect(s == 0, "\(l)")
            func render(_ at: Double, _ name: String) throws -> String {
                let config = try Self.staticConfig(
                    speed: Self.speed(rows, at: at), gear: try Self.gear(rows, at: at), name: name + ".json")
                let png = TestEnv.path(name + ".png")
                let run = Pipeline.run(
                    """
                    videotestsrc num-buffers=1 pattern=black ! \
                    video/x-raw,width=\(Self.width),height=\(Self.height),framerate=\(Self.fps)/1 ! \
                    watermark config="\(config)" ! videoconvert ! pngenc ! filesink location=\(png)
                    """)
                #expect(run.ok, "\(run.errors)")
                return png
            }
            let right = try Self.psnr(shown, try render(t, "data-expected-\(frame)"))
            let wrong = try Self.psnr(shown, try render(t + 1, "data-later-\(frame)"))
            #expect(right > 35, "at \(t) s: \(right) dB against the expected dial")
            #expect(right > wrong + 6, "at \(t) s: \(right) dB expected vs \(wrong) dB a second later")
        }
    }

    /// GoPro's karma.mp4 exported with no data option: at three frames, the caption region
    /// matches the same text written out over the source frame, with the values the test
    /// reads from the file's GPRI samples (the drone's GPS) through the documented filter.
    @Test func karmaExportsWithItsSpeedAndAltitudeBurnedIn() throws {
        let karma = TestEnv.fixture("gopro/karma.mp4")
        let out = TestEnv.path("karma-burned.mp4")
        let text = "{data:speed_kmh:%.0f} km/h  {data:altitude:%.0f} m"
        let (status, log) = try CLI.run(["export", karma, out, "--text", text, "--quality", "16"])
        #expect(status == 0, "\(log)")
        #expect(log.contains("GoPro telemetry: GPS 4 Hz"), "\(log)")
        let gps = GPMFReading.karmaGPS(try GPMFReading.packets(karma))
        #expect(gps.count > 40)
        func expected(_ t: Double, speedOffset: Double = 0) -> String {
            let kmh = GPMFReading.smoothed(gps.map { ($0.0, $0.1) }, at: t) * 3.6 + speedOffset
            let alt = GPMFReading.smoothed(gps.map { ($0.0, $0.2) }, at: t)
            return String(format: "%.0f km/h  %.0f m", kmh, alt)
        }
        for frame in [60, 150, 300] {
            // 29.97 frames a second.
            let t = Double(frame) * 1001 / 30000
            func decoded(_ file: String, _ name: String) -> String {
                let png = TestEnv.path(name)
                _ = TestEnv.run([
                    "ffmpeg", "-v", "error", "-y", "-i", file, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1", png,
                ])
                return png
            }
            let shown = decoded(out, "karma-shown-\(frame).png")
            let source = decoded(karma, "karma-source-\(frame).png")
            func render(_ caption: String, _ name: String) -> String {
                let png = TestEnv.path(name)
                let run = Pipeline.run(
                    """
                    filesrc location=\(source) ! pngdec ! videoconvert ! imagefreeze num-buffers=1 ! \
                    watermark text="\(caption)" font-features=tnum ! videoconvert ! pngenc ! filesink location=\(png)
                    """)
                #expect(run.ok, "\(run.errors)")
                return png
            }
            let right = try Self.psnr(shown, render(expected(t), "karma-expected-\(frame).png"), box: Self.captionBox)
            let wrong = try Self.psnr(
                shown, render(expected(t, speedOffset: 3), "karma-wrong-\(frame).png"), box: Self.captionBox)
            #expect(right > 30, "frame \(frame) (\(expected(t))): \(right) dB")
            #expect(right > wrong + 3, "frame \(frame): \(right) dB for \(expected(t)), \(wrong) dB with 3 km/h more")
        }
    }

    /// The default caption's place in karma.mp4 (854×480, bottom right).
    static let captionBox = "crop=340:50:500:410"
}
