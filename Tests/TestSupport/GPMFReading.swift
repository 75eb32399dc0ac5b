// The tests' own reading of GoPro telemetry, from the GPMF specification's KLV layout and
// ffmpeg's view of the MP4 track: what the telemetry readers are checked against, written
// apart from them.

import Foundation

package enum GPMFReading {
    /// Every (key, type, structure size, repeat, payload) of a payload, nesting walked.
    package static func klv(_ b: [UInt8], _ range: Range<Int>) -> [(String, UInt8, Int, Int, [UInt8])] {
        var out: [(String, UInt8, Int, Int, [UInt8])] = []
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            let key = String(decoding: b[i..<i + 4], as: UTF8.self)
            let size = Int(b[i + 5]), count = Int(b[i + 6]) * 256 + Int(b[i + 7])
            let n = size * count
            if b[i + 4] == 0 {
                out += klv(b, (i + 8)..<(i + 8 + n))
            } else {
                out.append((key, b[i + 4], size, count, Array(b[(i + 8)..<(i + 8 + n)])))
            }
            i += 8 + (n + 3) / 4 * 4
        }
        return out
    }

    package static func int32(_ b: [UInt8], _ i: Int) -> Int32 {
        Int32(bitPattern: UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3]))
    }

    /// A file's gpmd packets as ffmpeg reads them: (time, duration, bytes).
    package static func packets(_ file: String, stream: Int = 3) throws -> [(Double, Double, [UInt8])] {
        let (_, csv) = TestEnv.run([
            "ffprobe", "-v", "error", "-select_streams", "\(stream)", "-show_packets", "-show_entries",
            "packet=pts_time,duration_time,size", "-of", "csv", file,
        ])
        let bin = TestEnv.path("gpmd-\(abs(file.hashValue)).bin")
        _ = TestEnv.run([
            "ffmpeg", "-v", "error", "-y", "-i", file, "-map", "0:\(stream)", "-c", "copy", "-f", "data", bin,
        ])
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: bin)))
        var out: [(Double, Double, [UInt8])] = []
        var at = 0
        for line in csv.split(separator: "\n") {
            let c = line.split(separator: ",")
            guard c.count == 4, let t = Double(c[1]), let d = Double(c[2]), let n = Int(c[3]), at + n <= data.count
            else { continue }
            out.append((t, d, Array(data[at..<at + n])))
            at += n
        }
        return out
    }

    /// A Karma drone's GPS (GPRI: TYPE JlllSSSSBB, 30 bytes a sample) over the packets:
    /// (time, speed m/s, altitude m), the samples spread evenly over each packet, whose
    /// duration is the first packet's (ffprobe trims the last one to the stream's end).
    package static func karmaGPS(_ packets: [(Double, Double, [UInt8])]) -> [(Double, Double, Double)] {
        var samples: [(Double, Double, Double)] = []
        let d = packets.first?.1 ?? 1
        for (t, _, bytes) in packets {
            guard let gpri = klv(bytes, 0..<bytes.count).first(where: { $0.0 == "GPRI" }) else { continue }
            for k in 0..<gpri.3 {
                let s = Array(gpri.4[(k * 30)..<(k * 30 + 30)])
                let speed = Double(UInt16(s[24]) << 8 | UInt16(s[25])) / 100
                samples.append((t + d * Double(k) / Double(gpri.3), speed, Double(int32(s, 16)) / 1000))
            }
        }
        return samples
    }

    /// The documented filter: each sample the mean of the samples within 0.5 s of it; between
    /// samples, linear.
    package static func smoothed(_ samples: [(Double, Double)], at t: Double) -> Double {
        let means = samples.map { s in
            let near = samples.filter { abs($0.0 - s.0) <= 0.5 + 1e-9 }
            return (s.0, near.map(\.1).reduce(0, +) / Double(near.count))
        }
        guard let first = means.first, let last = means.last else { return 0 }
        if t <= first.0 { return first.1 }
        if t >= last.0 { return last.1 }
        let i = means.lastIndex { $0.0 <= t } ?? 0
        let (t0, v0) = means[i], (t1, v1) = means[i + 1]
        return v0 + (v1 - v0) * (t - t0) / (t1 - t0)
    }
}
