import Foundation
import TestSupport
import Testing
import WatermarkModel
import WatermarkTelemetry

/// The telemetry readers against the test's own reading of the files: GPMF payloads decoded
/// here from the KLV layout the specification gives, GPX and DJI files written here with
/// known speeds. Nothing expected comes from the code under test.
@Suite struct TelemetryTests {
    // MARK: GPMF payloads

    static func klv(_ b: [UInt8], _ range: Range<Int>) -> [(String, UInt8, Int, Int, [UInt8])] {
        GPMFReading.klv(b, range)
    }

    static func int32(_ b: [UInt8], _ i: Int) -> Int32 { GPMFReading.int32(b, i) }

    static func raw(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: TestEnv.fixture("gopro/" + name))))
    }

    @Test func hero5GPS5SamplesAreTheScaledIntegersOfThePayload() throws {
        let bytes = try Self.raw("hero5.raw")
        let items = Self.klv(bytes, 0..<bytes.count)
        let gps = try #require(items.first { $0.0 == "GPS5" })
        // SCAL of the GPS stream: five int32 divisors.
        let scal = try #require(items.last { $0.0 == "SCAL" && $0.3 == 5 })
        let divisors = (0..<5).map { Double(Self.int32(scal.4, $0 * 4)) }
        let streams = try GPMF.streams(bytes)
        let parsed = try #require(streams.first { $0.key == "GPS5" })
        #expect(parsed.samples.count == gps.3)
        #expect(parsed.fix == 3)
        for s in [0, gps.3 / 2, gps.3 - 1] {
            let expected = (0..<5).map { Double(Self.int32(gps.4, s * 20 + $0 * 4)) / divisors[$0] }
            #expect(parsed.samples[s] == expected, "sample \(s)")
        }
        // GPSU 170417173103.000 is 2017-04-17T17:31:03Z.
        #expect(parsed.utc == 1_492_450_263)
        let accl = try #require(streams.first { $0.key == "ACCL" })
        #expect(accl.samples.count == 199)
        #expect(accl.units == ["m/s²"])
    }

    @Test(arguments: ["hero5.raw", "hero6.raw", "hero6+ble.raw", "Fusion.raw", "karma.raw"])
    func everyCamerasPayloadReads(name: String) throws {
        let streams = try GPMF.streams(try Self.raw(name))
        #expect(streams.contains { $0.key == "ACCL" && !$0.samples.isEmpty }, "\(streams.map(\.key))")
    }

    @Test func karmasGPSIsItsComplexGPRIStream() throws {
        let bytes = try Self.raw("karma.raw")
        let items = Self.klv(bytes, 0..<bytes.count)
        let gpri = try #require(items.first { $0.0 == "GPRI" })
        // TYPE JlllSSSSBB, 30 bytes: µs, lat, lon, alt (mm), eph, epv, speed (cm/s), course, fix, satellites.
        let first = Array(gpri.4[0..<30])
        let lat = Double(Self.int32(first, 8)) / 1e7, lon = Double(Self.int32(first, 12)) / 1e7
        let alt = Double(Self.int32(first, 16)) / 1000
        let speed = Double(UInt16(first[24]) << 8 | UInt16(first[25])) / 100
        let parsed = try #require(try GPMF.streams(bytes).first { $0.key == "GPRI" })
        #expect(parsed.samples[0][1] == lat && parsed.samples[0][2] == lon)
        #expect(parsed.samples[0][3] == alt && parsed.samples[0][6] == speed)
        #expect(parsed.samples[0][8] == Double(first[28]))
    }

    /// Each payload a concatenation of typed parts (one long mixed expression is past what
    /// Swift 6.0's type checker solves in time).
    static let corruptPayloads: [[UInt8]] = {
        let devc = [UInt8]("DEVC".utf8), strm = [UInt8]("STRM".utf8), gpri = [UInt8]("GPRI".utf8)
        let pastEnd: [UInt8] = devc + [0, 1, 0, 200] + [UInt8](repeating: 0, count: 16)
        var nested: [UInt8] = devc + [0, 1, 0, 16]
        nested += strm + [0, 1, 0, 64] + [UInt8](repeating: 1, count: 8)
        var untyped: [UInt8] = devc + [0, 1, 0, 12]
        untyped += gpri + [UInt8(ascii: "?"), 4, 0, 1, 1, 2, 3, 4]
        // A size past the end of the payload; nested past its container; a complex type without TYPE.
        return [pastEnd, nested, untyped]
    }()

    @Test(arguments: corruptPayloads)
    func corruptPayloadsAreErrorsNotCrashes(bytes: [UInt8]) {
        #expect(throws: GPMFError.self) { try GPMF.streams(bytes) }
    }

    @Test func unknownTypesAreSkipped() throws {
        let item = [UInt8]("XXXX".utf8) + [UInt8(ascii: "Z"), 4, 0, 1, 1, 2, 3, 4]
        let payload = [UInt8]("DEVC".utf8) + [0, 1, 0, UInt8(item.count)] + item
        #expect(try GPMF.streams(payload).isEmpty)
    }

    // MARK: karma.mp4

    static func karmaPackets() throws -> [(Double, Double, [UInt8])] {
        try GPMFReading.packets(TestEnv.fixture("gopro/karma.mp4"))
    }

    @Test func karmaMP4sTelemetryIsFoundAndTimedByItsPackets() throws {
        let packets = try Self.karmaPackets()
        #expect(packets.count == 13)
        let (data, summary) = try Telemetry.load(DataSpec(file: TestEnv.fixture("gopro/karma.mp4")))
        // Rates: the samples of each stream over the packets' total time.
        func rate(_ key: String) -> Int {
            let n = packets.map { p in Self.klv(p.2, 0..<p.2.count).filter { $0.0 == key }.map(\.3).reduce(0, +) }
            // Every packet lasts 1.001 s in the track's table (ffprobe trims the last one to
            // the stream's duration).
            return Int((Double(n.reduce(0, +)) / (Double(packets.count) * packets[0].1)).rounded())
        }
        #expect(
            summary
                == "GoPro telemetry: GPS \(rate("GPRI")) Hz, accelerometer \(rate("ACCL")) Hz, gyroscope \(rate("GYRO")) Hz"
        )
        let samples = GPMFReading.karmaGPS(packets)
        #expect(samples.count > 40)
        // The documented filter: the centred 1 s mean of the samples, then linear between them.
        func smoothed(_ i: Int, _ value: (Double, Double, Double) -> Double) -> Double {
            GPMFReading.smoothed(samples.map { ($0.0, value($0.0, $0.1, $0.2)) }, at: samples[i].0)
        }
        for i in [5, 20, 40] {
            let t = samples[i].0
            let speed = try #require(
                data.value("speed", at: t).flatMap { if case .double(let d) = $0 { d } else { nil } })
            #expect(abs(speed - smoothed(i) { _, v, _ in v }) < 1e-9, "speed at \(t) s")
            let kmh = try #require(
                data.value("speed_kmh", at: t).flatMap { if case .double(let d) = $0 { d } else { nil } })
            #expect(abs(kmh - smoothed(i) { _, v, _ in v } * 3.6) < 1e-9)
            let alt = try #require(
                data.value("altitude", at: t).flatMap { if case .double(let d) = $0 { d } else { nil } })
            #expect(abs(alt - smoothed(i) { _, _, a in a }) < 1e-9, "altitude at \(t) s")
        }
    }

    @Test func aTruncatedRecordingIsAClearError() throws {
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: TestEnv.fixture("gopro/karma.mp4"))))
        // The moov box is at the end: cut it off.
        let cut = TestEnv.path("karma-cut.mp4")
        try Data(whole.prefix(whole.count - 20000)).write(to: URL(fileURLWithPath: cut))
        #expect {
            _ = try Telemetry.load(DataSpec(file: cut))
        } throws: { error in
            "\(error)".contains(cut) && "\(error)".contains("moov")
        }
    }

    // MARK: GPX

    /// A straight track north at `speed` m/s, climbing `climb` m/s, one point a second.
    static func gpx(speed: Double, climb: Double, seconds: Int, heartRate: Bool = true) -> String {
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        var points = ""
        for i in 0...seconds {
            let lat = 45 + Double(i) * speed / metresPerDegree
            let time = String(format: "2026-05-01T10:00:%02dZ", i)
            let hr =
                heartRate
                ? "<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>\(120 + i)</gpxtpx:hr><gpxtpx:cad>80</gpxtpx:cad></gpxtpx:TrackPointExtension><power>\(200 + 2 * i)</power></extensions>"
                : ""
            points +=
                "<trkpt lat=\"\(lat)\" lon=\"7.0\"><ele>\(100 + climb * Double(i))</ele><time>\(time)</time>\(hr)</trkpt>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
            <trk><trkseg>
            \(points)</trkseg></trk></gpx>
            """
    }

    static func number(_ v: VariableValue?) -> Double? { if case .double(let d)? = v { d } else { nil } }

    @Test(arguments: [2.5, 8.0, 15.0])
    func aStraightGPXTrackHasItsSpeedDistanceAndClimb(speed: Double) throws {
        let path = TestEnv.write("track-\(speed).gpx", Self.gpx(speed: speed, climb: 0.5, seconds: 20))
        let (loaded, summary) = try Telemetry.load(DataSpec(file: path))
        #expect(summary == "GPX track: 21 point(s)")
        #expect(loaded.table.absolute)
        let start = try #require(DataTime.iso8601("2026-05-01T10:00:00Z"))
        var data = loaded
        data.origin = start
        for t in [3.0, 10.5, 17.25] {
            #expect(abs(try #require(Self.number(data.value("speed", at: t))) - speed) < 1e-3 * speed, "speed at \(t)")
            #expect(abs(try #require(Self.number(data.value("speed_kmh", at: t))) - speed * 3.6) < 4e-3 * speed)
            #expect(abs(try #require(Self.number(data.value("distance", at: t))) - speed * t) < 1e-3 * speed * t)
            #expect(abs(try #require(Self.number(data.value("climb", at: t))) - 0.5) < 1e-6)
            #expect(abs(try #require(Self.number(data.value("gradient", at: t))) - 50 / speed) < 1e-3 * 50 / speed)
            #expect(abs(try #require(Self.number(data.value("heading", at: t)))) < 1e-6)
            #expect(abs(try #require(Self.number(data.value("altitude", at: t))) - (100 + 0.5 * t)) < 1e-9)
            #expect(abs(try #require(Self.number(data.value("heart_rate", at: t))) - (120 + t)) < 1e-9)
            #expect(abs(try #require(Self.number(data.value("power", at: t))) - (200 + 2 * t)) < 1e-9)
        }
        #expect(data.text("time", at: 12.5, .clock("%M:%S")) == "00:12")
    }

    @Test func aGPXTrackWithoutTimesIsAnError() {
        let text = Self.gpx(speed: 3, climb: 0, seconds: 3).replacingOccurrences(
            of: #"<time>[^<]*</time>"#, with: "", options: .regularExpression)
        let path = TestEnv.write("untimed.gpx", text)
        #expect {
            _ = try Telemetry.load(DataSpec(file: path))
        } throws: { error in
            "\(error)".contains("no track point has a <time>")
        }
    }

    @Test func badXMLIsAnErrorNamingTheFile() {
        let path = TestEnv.write(
            "broken.gpx", "<?xml version=\"1.0\"?><gpx><trk><trkpt lat=\"1\" lon=\"2\"></trk></gpx>")
        #expect {
            _ = try Telemetry.load(DataSpec(file: path))
        } throws: { error in
            "\(error)".hasPrefix(path + ": ")
        }
    }

    // MARK: DJI

    /// A DJI log at 30 cues a second flying east at `speed` m/s, positions rounded to six
    /// decimals as DJI writes them, in one of the field's variants.
    static func dji(speed: Double, seconds: Double, variant: Int) -> String {
        let metresPerDegree = 6_371_008.8 * Double.pi / 180 * cos(22.5 * Double.pi / 180)
        var out = ""
        let frames = Int(seconds * 30)
        for i in 0..<frames {
            let t = Double(i) / 30
            func stamp(_ s: Double) -> String {
                let ms = Int((s * 1000).rounded())
                return String(format: "%02d:%02d:%02d,%03d", ms / 3_600_000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000)
            }
            let lon = String(format: "%.6f", 113.9 + t * speed / metresPerDegree)
            let clock = String(format: "2023-04-01 12:00:%02d.%03d", Int(t), Int((t - Double(Int(t))) * 1000))
            out += "\(i + 1)\n\(stamp(t)) --> \(stamp(t + 1.0 / 30))\n"
            switch variant {
            case 0:
                out += "<font size=\"28\">FrameCnt: \(i + 1), DiffTime: 33ms\n\(clock)\n"
                out +=
                    "[iso: 100] [shutter: 1/500.0] [fnum: 280] [latitude: 22.500000] [longitude: \(lon)] [rel_alt: 1.200 abs_alt: 469.800] </font>\n\n"
            case 1:
                out += "SrtCnt : \(i + 1), DiffTime : 33ms\n\(clock)\n"
                out += "[latitude : 22.500000] [longtitude : \(lon)] [altitude: 469.8]\n\n"
            default:
                out += "HOME(113.9000,22.5000) \(clock.replacingOccurrences(of: "-", with: "."))\n"
                out += "GPS(\(lon),22.500000,20) ISO:100 Shutter:500 EV:0 Fnum:F2.8\nBAROMETER:469.8\n\n"
            }
        }
        return out
    }

    @Test(arguments: [0, 1, 2])
    func djiLogsInEachVariantGiveASteadySpeed(variant: Int) throws {
        let path = TestEnv.write("dji-\(variant).srt", Self.dji(speed: 12, seconds: 6, variant: variant))
        let (data, summary) = try Telemetry.load(DataSpec(file: path))
        #expect(summary == "DJI telemetry: 180 cue(s)")
        for t in [1.5, 3.0, 4.4] {
            // Six decimals are about 0.1 m here: the 1 s window keeps the speed within 0.1 m/s.
            let v = try #require(Self.number(data.value("speed", at: t)))
            #expect(abs(v - 12) < 0.1, "speed \(v) at \(t)")
            #expect(abs(try #require(Self.number(data.value("heading", at: t))) - 90) < 1)
            #expect(abs(try #require(Self.number(data.value("altitude", at: t))) - 469.8) < 1e-6)
        }
        // The drone's clock, shown as written.
        #expect(data.text("time", at: 3.0, nil) == "12:00:03")
    }

    @Test func djiCuesWithoutAPositionAreSkippedAndNoneAtAllIsAnError() throws {
        let good = Self.dji(speed: 5, seconds: 2, variant: 0)
        let missing = "999\n00:00:02,000 --> 00:00:02,033\n[iso: 100] [shutter: 1/500.0] [latitude: 22.5]\n\n"
        let path = TestEnv.write("dji-missing.srt", good + missing)
        let (_, summary) = try Telemetry.load(DataSpec(file: path))
        #expect(summary == "DJI telemetry: 60 cue(s), 1 without a position skipped")
        let none = TestEnv.write("dji-none.srt", missing + missing.replacingOccurrences(of: "999", with: "1000"))
        #expect {
            _ = try Telemetry.load(DataSpec(file: none))
        } throws: { error in
            "\(error)".contains("none of its 2 cue(s) has a latitude and longitude")
        }
    }
}

/// The fuzz seeds are real inputs: the MP4 one holds two one-second GPMF packets whose GPS5
/// samples (4 a packet, 0.9 cm apart in latitude) read as written.
@Suite struct TelemetrySeedTests {
    @Test func theMP4SeedsPacketsAreFoundAndTimed() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: TestEnv.root + "/Fuzz/corpus/mp4/seed0")))
        let packets = try #require(try GoPro.packets(MemoryBytes(bytes))).packets
        #expect(packets.map(\.sample.time) == [0, 1])
        #expect(packets.map(\.sample.duration) == [1, 1])
        let (series, summary) = GoPro.fields(packets)
        #expect(summary.line == "GoPro telemetry: GPS 4 Hz, accelerometer 8 Hz")
        let lat = try #require(series["latitude"])
        #expect(lat.times == [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75])
    }
}
