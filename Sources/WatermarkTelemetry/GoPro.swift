// A GoPro recording's telemetry: its GPMF track (`gpmd`, handler "GoPro MET") read packet by
// packet, each stream's samples spread evenly over its packet's time on the video's time
// line, and turned into the common fields.

import WatermarkModel

/// What a GoPro file's telemetry holds, for the one-line summary.
package struct GoProSummary: Sendable, Equatable {
    /// (what, samples a second), e.g. ("GPS", 18), ("accelerometer", 200).
    package var rates: [(String, Int)]
    package var skipped: Int

    package static func == (a: GoProSummary, b: GoProSummary) -> Bool {
        a.rates.map(\.0) == b.rates.map(\.0) && a.rates.map(\.1) == b.rates.map(\.1) && a.skipped == b.skipped
    }

    /// `GoPro telemetry: GPS 18 Hz, accelerometer 200 Hz`.
    package var line: String {
        "GoPro telemetry: "
            + (rates.isEmpty ? "no streams" : rates.map { "\($0.0) \($0.1) Hz" }.joined(separator: ", "))
            + (skipped > 0 ? " (\(skipped) damaged packet(s) skipped)" : "")
    }
}

package enum GoPro {
    /// GPS samples are drawn only with a 2D or 3D fix and a precision (DOP) of at most this.
    package static let maxDOP = 5.0
    static let gravity = 9.80665
    /// g-force is averaged over this many seconds (the accelerometer samples at 200 Hz).
    static let gWindow = 0.1

    /// The timed packets of a file's GPMF track, and the recording's creation time; nil when
    /// the file has no such track.
    package static func packets(_ file: ByteSource) throws(MP4Error) -> (
        packets: [(sample: TrackSample, bytes: [UInt8])], created: Double?
    )? {
        guard let (samples, _, created) = try MP4.samples(of: file, format: "gpmd") else { return nil }
        var out: [(TrackSample, [UInt8])] = []
        for s in samples where s.size > 0 && s.size <= 16 << 20 {
            guard let bytes = file.read(s.offset, s.size) else {
                throw MP4Error(message: "a telemetry sample at byte \(s.offset) lies past the end of the file")
            }
            out.append((s, bytes))
        }
        return (out, created)
    }

    /// The fields of a file's telemetry, and what it held. Without GPS times, `time` counts
    /// from `creation` (the recording's creation time, which GoPro cameras write in their
    /// local time: shown as written).
    package static func fields(_ packets: [(sample: TrackSample, bytes: [UInt8])], creation: Double? = nil) -> (
        series: [String: DataSeries], summary: GoProSummary
    ) {
        var points: [TrackPoint] = []
        var clocks: [Double: Double] = [:]
        var accel: [(Double, Double)] = []
        var counts: [String: Int] = [:]
        var skipped = 0
        var duration = 0.0
        for (sample, bytes) in packets {
            guard let streams = try? GPMF.streams(bytes) else {
                skipped += 1
                continue
            }
            duration = max(duration, sample.time + sample.duration)
            for stream in streams {
                let n = stream.samples.count
                guard n > 0 else { continue }
                func time(_ i: Int) -> Double { sample.time + sample.duration * Double(i) / Double(n) }
                switch stream.key {
                case "GPS5":
                    counts["GPS", default: 0] += n
                    // The packet's fix and precision hold for its samples.
                    guard (stream.fix ?? 3) >= 2, Double(stream.precision ?? 0) / 100 <= maxDOP else { continue }
                    for (i, v) in stream.samples.enumerated() where v.count >= 4 {
                        let p = TrackPoint(time: time(i), latitude: v[0], longitude: v[1], altitude: v[2], speed: v[3])
                        points.append(p)
                        if let utc = stream.utc { clocks[p.time] = utc + sample.duration * Double(i) / Double(n) }
                    }
                case "GPS9":
                    // lat, lon, alt, 2D speed, 3D speed, days since 2000, seconds since midnight, DOP, fix.
                    counts["GPS", default: 0] += n
                    for (i, v) in stream.samples.enumerated() where v.count >= 9 {
                        guard v[8] >= 2, v[7] <= maxDOP else { continue }
                        let p = TrackPoint(time: time(i), latitude: v[0], longitude: v[1], altitude: v[2], speed: v[3])
                        points.append(p)
                        clocks[p.time] = 946_684_800 + v[5] * 86400 + v[6]
                    }
                case "GPRI":
                    // A Karma drone's GPS: time (µs), lat, lon, alt, eph, epv, speed, course, fix, satellites.
                    counts["GPS", default: 0] += n
                    for (i, v) in stream.samples.enumerated() where v.count >= 10 {
                        guard v[8] >= 2, v[4] <= maxDOP else { continue }
                        points.append(
                            TrackPoint(time: time(i), latitude: v[1], longitude: v[2], altitude: v[3], speed: v[6]))
                    }
                case "ACCL":
                    counts["accelerometer", default: 0] += n
                    for (i, v) in stream.samples.enumerated() where v.count >= 3 {
                        accel.append((time(i), (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot() / gravity))
                    }
                case "GYRO": counts["gyroscope", default: 0] += n
                case "GRAV": counts["gravity", default: 0] += n
                case "CORI": counts["orientation", default: 0] += n
                default: break
                }
            }
        }
        var series = Track.fields(points, clock: clocks.isEmpty ? nil : { clocks[$0.time] })
        if !accel.isEmpty {
            let sorted = accel.sorted { $0.0 < $1.0 }
            let times = sorted.map(\.0)
            series["g_force"] = DataSeries(
                times: times, numbers: Track.smoothed(times, sorted.map(\.1), window: gWindow))
        }
        if series["time"] == nil, let creation, duration > 0 {
            series["time"] = DataSeries(
                times: [0, duration], numbers: [creation, creation + duration], clock: .asWritten)
        }
        let seconds = max(duration, 1e-9)
        let order = ["GPS", "accelerometer", "gyroscope", "gravity", "orientation"]
        let rates = order.compactMap { name in counts[name].map { (name, Int((Double($0) / seconds).rounded())) } }
        return (series, GoProSummary(rates: rates, skipped: skipped))
    }
}
