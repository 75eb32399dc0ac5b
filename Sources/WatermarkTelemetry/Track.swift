// A track of positions over time, and the fields every telemetry source gives under the
// same names: latitude, longitude, altitude(_ft), speed(_kmh, _mph), distance, heading,
// gradient, climb, and time (of day). Pure arithmetic over the samples.
//
// Smoothing: positions are averaged over a centred window of `window` seconds (1 s) before
// anything is derived from them; speed, heading, climb and gradient are the change between
// the ends of that window around each sample (the neighbouring samples when fewer than two
// fall in it). A DJI log's positions (6 decimals, about 0.1 m of noise a sample, 30 samples
// a second) then give a steady speed; a GPX track at 1 Hz is used as it is.

import Glibc
import WatermarkModel

package struct TrackPoint: Sendable, Equatable {
    /// Seconds on the data's time line (from the video's start, or since the Unix epoch).
    package var time: Double
    package var latitude: Double
    package var longitude: Double
    package var altitude: Double?
    /// The source's own ground speed in m/s (a GPS's Doppler speed), when it has one.
    package var speed: Double?

    package init(time: Double, latitude: Double, longitude: Double, altitude: Double? = nil, speed: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed = speed
    }
}

package enum Track {
    package static let window = 1.0
    static let earthRadius = 6_371_008.8
    /// Below this speed (m/s) the heading holds: a standing receiver's noise has no direction.
    static let headingSpeed = 0.5

    /// Metres between two positions (haversine).
    package static func distance(_ a: TrackPoint, _ b: TrackPoint) -> Double {
        let p1 = a.latitude * .pi / 180, p2 = b.latitude * .pi / 180
        let dp = p2 - p1, dl = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    /// Degrees clockwise from north, from `a` towards `b`.
    package static func bearing(_ a: TrackPoint, _ b: TrackPoint) -> Double {
        let p1 = a.latitude * .pi / 180, p2 = b.latitude * .pi / 180, dl = (b.longitude - a.longitude) * .pi / 180
        let y = sin(dl) * cos(p2), x = cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)
        let d = atan2(y, x) * 180 / .pi
        return d < 0 ? d + 360 : d
    }

    /// The points averaged over the centred window (time sorted).
    static func smoothed(_ points: [TrackPoint]) -> [TrackPoint] {
        var out = points
        var lo = 0, hi = 0
        var sum = (0.0, 0.0, 0.0, 0)
        var altCount = 0
        for i in points.indices {
            let t = points[i].time
            while hi < points.count, points[hi].time <= t + window / 2 {
                sum.0 += points[hi].latitude
                sum.1 += points[hi].longitude
                if let a = points[hi].altitude {
                    sum.2 += a
                    altCount += 1
                }
                sum.3 += 1
                hi += 1
            }
            while points[lo].time < t - window / 2 {
                sum.0 -= points[lo].latitude
                sum.1 -= points[lo].longitude
                if let a = points[lo].altitude {
                    sum.2 -= a
                    altCount -= 1
                }
                sum.3 -= 1
                lo += 1
            }
            let n = Double(max(sum.3, 1))
            out[i].latitude = sum.0 / n
            out[i].longitude = sum.1 / n
            if points[i].altitude != nil, altCount > 0 { out[i].altitude = sum.2 / Double(altCount) }
        }
        return out
    }

    /// The centred moving average of `values` over the window.
    static func smoothed(_ times: [Double], _ values: [Double], window: Double = Track.window) -> [Double] {
        var out = values
        var lo = 0, hi = 0, sum = 0.0
        for i in values.indices {
            while hi < values.count, times[hi] <= times[i] + window / 2 {
                sum += values[hi]
                hi += 1
            }
            while times[lo] < times[i] - window / 2 {
                sum -= values[lo]
                lo += 1
            }
            out[i] = sum / Double(max(hi - lo, 1))
        }
        return out
    }

    /// The fields of a track. `clock` gives each point's time of day (seconds since the Unix
    /// epoch) when the source knows it; `asWritten`: those times carry no zone and are shown
    /// as written.
    package static func fields(
        _ raw: [TrackPoint], clock: ((TrackPoint) -> Double?)? = nil, asWritten: Bool = false
    ) -> [String: DataSeries] {
        let points = raw.filter { $0.time.isFinite && $0.latitude.isFinite && $0.longitude.isFinite }
            .sorted { $0.time < $1.time }
        guard !points.isEmpty else { return [:] }
        let s = smoothed(points)
        let times = s.map(\.time)
        var lat: [Double] = [], lon: [Double] = [], speed: [Double] = [], heading: [Double] = []
        var climb: [Double] = [], gradient: [Double] = [], travelled: [Double] = []
        var total = 0.0
        var lastHeading = 0.0, lastGradient = 0.0
        var lo = 0, hi = 0
        for i in s.indices {
            lat.append(s[i].latitude)
            lon.append(s[i].longitude)
            if i > 0 { total += distance(s[i - 1], s[i]) }
            travelled.append(total)
            while lo < i, s[lo].time < s[i].time - window / 2 { lo += 1 }
            hi = max(hi, i)
            while hi + 1 < s.count, s[hi + 1].time <= s[i].time + window / 2 { hi += 1 }
            var a = lo, b = hi
            if a == b {
                a = max(i - 1, 0)
                b = min(i + 1, s.count - 1)
            }
            let dt = s[b].time - s[a].time
            let d = a == b ? 0 : distance(s[a], s[b])
            let v = dt > 0 ? d / dt : 0
            speed.append(v)
            if v >= headingSpeed && a != b { lastHeading = bearing(s[a], s[b]) }
            heading.append(lastHeading)
            if let za = s[a].altitude, let zb = s[b].altitude, dt > 0 {
                climb.append((zb - za) / dt)
                if d > 1 { lastGradient = 100 * (zb - za) / d }
            } else {
                climb.append(0)
            }
            gradient.append(lastGradient)
        }
        // The source's own speed, where it gives one, smoothed over the window.
        let own = points.compactMap(\.speed)
        if own.count == points.count { speed = smoothed(times, own) }
        var out: [String: DataSeries] = [
            "latitude": DataSeries(times: times, numbers: lat),
            "longitude": DataSeries(times: times, numbers: lon),
            "speed": DataSeries(times: times, numbers: speed),
            "speed_kmh": DataSeries(times: times, numbers: speed.map { $0 * 3.6 }),
            "speed_mph": DataSeries(times: times, numbers: speed.map { $0 / 0.44704 }),
            "distance": DataSeries(times: times, numbers: travelled),
            "heading": DataSeries(times: times, numbers: heading),
        ]
        let altitudes = s.enumerated().compactMap { i, p in p.altitude.map { (times[i], $0) } }
        if !altitudes.isEmpty {
            out["altitude"] = DataSeries(times: altitudes.map(\.0), numbers: altitudes.map(\.1))
            out["altitude_ft"] = DataSeries(times: altitudes.map(\.0), numbers: altitudes.map { $0.1 / 0.3048 })
            out["climb"] = DataSeries(times: times, numbers: climb)
            out["gradient"] = DataSeries(times: times, numbers: gradient)
        }
        if let clock {
            let known = points.compactMap { p in clock(p).map { (p.time, $0) } }
            if !known.isEmpty {
                out["time"] = DataSeries(
                    times: known.map(\.0), numbers: known.map(\.1), clock: asWritten ? .asWritten : .local)
            }
        }
        return out
    }
}
