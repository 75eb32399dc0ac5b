import CGStreamer
import CGstCheck
import CShim
import Foundation
import GstTestSupport
import Testing
import WatermarkModel

/// `{data:…}` and bindings through the element. Each expected frame is a static layer
/// showing what the test works out from the rows it wrote (the interpolated value, the
/// rotation it maps to); the frame from the data-driven layer must equal it pixel for pixel.
@Suite struct DataElementTests {
    static let caps = "video/x-raw,format=BGRA,width=320,height=180,framerate=30/1"
    static let frameBytes = 320 * 180 * 4
    /// Speed in km/h at 0, 2, 4 and 10 s.
    static let rows: [(Double, Double)] = [(0, 0), (2, 100), (4, 40), (10, 190)]
    static let csv = TestEnv.write(
        "data-speed.csv",
        "time,speed,gear\n" + rows.map { "\($0.0),\($0.1),\(Int($0.1 / 40) + 1)" }.joined(separator: "\n"))

    /// The speed at `t`, by the test's own arithmetic.
    static func speed(at t: Double) -> Double {
        guard let i = rows.indices.last(where: { rows[$0].0 <= t }) else { return rows[0].1 }
        guard i + 1 < rows.count else { return rows[i].1 }
        let (t0, v0) = rows[i], (t1, v1) = rows[i + 1]
        return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    }

    static func harness(_ properties: KeyValuePairs<String, String>) -> Harness {
        let h = Harness(element: "watermark", properties)
        gst_harness_set_src_caps_str(h.h, caps)
        return h
    }

    static func push(_ h: Harness, at t: Double) throws -> Frame {
        try #require(
            h.pushZeroed(bytes: frameBytes, pts: GstClockTime(t * 1e9), duration: GstClockTime(1e9 / 30)))
    }

    static func same(_ a: Frame, _ b: Frame) -> Bool { Frame.same(a, b) }

    static func lit(_ f: Frame) -> Int { f.litPixels }

    /// The same text written out, drawn as a changing text is (tnum digits).
    static func expected(_ text: String) throws -> Frame {
        let h = harness([
            "overlay-mode": "blend", "render-ahead": "false", "anchor": "top-left", "text-size": "0.15",
            "font-features": "tnum", "text": text,
        ])
        return try push(h, at: 0)
    }

    @Test func aCSVCaptionShowsTheInterpolatedValueAtEachTime() throws {
        let h = Self.harness([
            "overlay-mode": "blend", "render-ahead": "false", "anchor": "top-left", "text-size": "0.15",
            "data-file": Self.csv, "data-step": "gear", "text": "{data:speed:%.1f} km/h g{data:gear}",
        ])
        for t in [0.5, 3.0, 7.25] {
            let shown = try Self.push(h, at: t)
            // The gear steps: the row at or before t.
            let gear = Int(Self.rows.last(where: { $0.0 <= t })!.1 / 40) + 1
            let text = String(format: "%.1f km/h g%d", Self.speed(at: t), gear)
            #expect(Self.lit(shown) > 100)
            #expect(Self.same(shown, try Self.expected(text)), "at \(t) s: expected \(text)")
        }
    }

    /// A seek starts a segment whose stream time is the position sought: the frame there
    /// shows what playing through shows at that stream time, whatever its timestamp.
    @Test func afterASeekTheStreamTimeDecides() throws {
        func make() -> Harness {
            Self.harness([
                "overlay-mode": "blend", "render-ahead": "false", "anchor": "top-left", "text-size": "0.15",
                "data-file": Self.csv, "text": "{data:speed:%.2f}",
            ])
        }
        let through = try Self.push(make(), at: 5.5)
        let sought = make()
        _ = try Self.push(sought, at: 0)
        var segment = GstSegment()
        gst_segment_init(&segment, GST_FORMAT_TIME)
        segment.start = 100_000_000_000
        segment.time = 5_000_000_000
        #expect(gst_harness_push_event(sought.h, gst_event_new_flush_start()) != 0)
        #expect(gst_harness_push_event(sought.h, gst_event_new_flush_stop(1)) != 0)
        #expect(gst_harness_push_event(sought.h, gst_event_new_segment(&segment)) != 0)
        let after = try Self.push(sought, at: 100.5)
        #expect(Self.same(after, through))
        #expect(Self.same(after, try Self.expected(String(format: "%.2f", Self.speed(at: 5.5)))))
    }

    /// A needle bound to the speed is turned as a static layer turned by the angle the
    /// binding's range gives.
    @Test(arguments: [1.0, 3.0, 8.0])
    func aBoundNeedleTurnsWithTheValue(t: Double) throws {
        let needle = TestEnv.write(
            "data-needle.svg",
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect x="46" y="5" width="8" height="50" fill="#00ff00"/></svg>"##
        )
        func layers(_ extra: String) -> String {
            #"{ "layers": [ { "image": "\#(needle)", "anchor": "center", "x": 0.5, "y": 0.5, "width": 0.4\#(extra) } ] }"#
        }
        let bound = Self.harness([
            "overlay-mode": "blend", "render-ahead": "false", "data-file": Self.csv,
            "config-data":
                layers(#", "bind": { "rotation": { "value": "data:speed", "from": [0, 200], "to": [-135, 135] } }"#),
        ])
        let angle = -135 + 270 * Self.speed(at: t) / 200
        let fixed = Self.harness([
            "overlay-mode": "blend", "render-ahead": "false", "config-data": layers(#", "rotation": \#(angle)"#),
        ])
        let shown = try Self.push(bound, at: t)
        #expect(Self.lit(shown) > 100)
        #expect(Self.same(shown, try Self.push(fixed, at: t)), "at \(t) s the needle should be at \(angle)°")
        // And not at rest: a needle at the first row's angle differs.
        let rest = Self.harness([
            "overlay-mode": "blend", "render-ahead": "false", "config-data": layers(#", "rotation": -135"#),
        ])
        #expect(!Self.same(shown, try Self.push(rest, at: t)))
    }

    /// A marker whose x follows a variable is placed as the same marker with that x.
    @Test func aMarkerBoundToAVariableMoves() throws {
        let dot = GstTest.solidPNG("data-dot.png", width: 8, height: 8, argb: 0xFF00_FF00)
        func layers(_ extra: String) -> String {
            #"{ "layers": [ { "image": "\#(dot)", "anchor": "center", "y": 0.5, "width": 0.05\#(extra) } ] }"#
        }
        let bound = Self.harness([
            "overlay-mode": "blend", "render-ahead": "false", "variables": "v, progress=(int)25",
            "config-data": layers(
                #", "bind": { "x": { "value": "var:progress", "from": [0, 100], "to": [0.1, 0.9] } }"#),
        ])
        let placed = Self.harness([
            "overlay-mode": "blend", "render-ahead": "false", "config-data": layers(#", "x": 0.3"#),
        ])
        let shown = try Self.push(bound, at: 0)
        #expect(Self.lit(shown) > 10)
        #expect(Self.same(shown, try Self.push(placed, at: 0)))
        bound.set("variables", "v, progress=(int)100")
        let moved = try Self.push(bound, at: 0.04)
        let end = Self.harness([
            "overlay-mode": "blend", "render-ahead": "false", "config-data": layers(#", "x": 0.9"#),
        ])
        #expect(Self.same(moved, try Self.push(end, at: 0)))
    }

    /// Bad data and wrong fields stop the pipeline at start with a message that says where.
    @Test(arguments: [
        ("time,speed\n0,1\n1,fast\n", "{data:speed:%.0f}", #".csv:3:3: "speed": "fast" is not a number"#),
        ("time,speed\n0,1\n", "{data:sped}", #"no field "sped" (fields: speed)"#),
        ("when,speed\n0,1\n", "{data:speed}", "no time column (one named time, t, timestamp"),
        ("time,speed\n0,1,2\n", "{data:speed}", ".csv:2:5: 3 cells; the header has 2"),
    ])
    func badDataFilesAreErrorsThatSayWhere(file: String, text: String, message: String) {
        let path = TestEnv.write("data-\(abs(file.hashValue)).csv", file)
        let run = Pipeline.run(
            #"videotestsrc num-buffers=3 ! watermark data-file="\#(path)" text="\#(text)" ! fakesink"#, timeout: 20)
        #expect(!run.ok)
        let err = run.errors.first
        #expect(err?.domain == gst_watermark_resource_error_quark(), "\(run.errors)")
        #expect(err?.message.contains(message) == true, "\(err?.message ?? "no error")")
    }

    @Test func aDataPlaceholderWithoutADataFileIsAnError() {
        let run = Pipeline.run(#"videotestsrc num-buffers=3 ! watermark text="{data:speed}" ! fakesink"#, timeout: 20)
        #expect(run.errors.first?.message.contains("needs a data file") == true, "\(run.errors)")
    }

    @Test func aMissingDataFileNamesIt() {
        let path = TestEnv.path("no-such-data.csv")
        let run = Pipeline.run(
            #"videotestsrc num-buffers=3 ! watermark data-file="\#(path)" text="{data:a}" ! fakesink"#, timeout: 20)
        let err = run.errors.first
        #expect(err?.code == Int32(GST_RESOURCE_ERROR_OPEN_READ.rawValue))
        #expect(err?.message.contains(path) == true, "\(run.errors)")
    }
}
