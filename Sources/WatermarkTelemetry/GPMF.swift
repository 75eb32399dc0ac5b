// GoPro's GPMF telemetry (github.com/gopro/gpmf-parser): KLV items, each a four-character
// key, a one-byte type, a one-byte structure size and a two-byte repeat count, the payload
// padded to 32 bits; type 0 nests (DEVC devices hold STRM streams). A stream's sticky
// properties (STNM name, UNIT/SIUN units, SCAL divisors, TYPE of complex structures) describe
// its one data item (ACCL, GYRO, GPS5, GPS9, …). Bounded and checked: never traps.

import WatermarkModel

/// One stream of one payload: its data as numbers (scaled), sample by sample.
package struct GPMFStream: Sendable {
    /// The data item's key (`GPS5`, `ACCL`, `GPRI`, …).
    package var key: String
    package var device: String
    package var name: String
    package var units: [String]
    /// Each sample's elements, divided by SCAL.
    package var samples: [[Double]]
    /// Sticky values a GPS stream carries: GPSU (its first sample's UTC time, seconds since
    /// the Unix epoch), GPSF (fix: 0 none, 2 2D, 3 3D) and GPSP (precision, DOP × 100).
    package var utc: Double?
    package var fix: Int?
    package var precision: Int?
}

package struct GPMFError: Error, Sendable, CustomStringConvertible {
    package var offset: Int
    package var message: String
    package var description: String { "byte \(offset): \(message)" }
}

package enum GPMF {
    static let maxDepth = 8
    /// Keys that describe a stream rather than hold its data.
    static let properties: Set<String> = [
        "STNM", "UNIT", "SIUN", "SCAL", "TYPE", "TSMP", "TICK", "TOCK", "EMPT", "TMPC", "STMP", "ORIN", "ORIO",
        "MTRX", "TIMO", "QUAN", "GPSU", "GPSF", "GPSP", "DVID", "DVNM", "RMRK", "FWVS", "MINF", "VERS", "TIMG",
    ]

    /// The bytes of one element of a type, or nil for a type that is not a number.
    static func size(of type: UInt8) -> Int? {
        switch type {
        case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "c"): 1
        case UInt8(ascii: "s"), UInt8(ascii: "S"): 2
        case UInt8(ascii: "l"), UInt8(ascii: "L"), UInt8(ascii: "f"), UInt8(ascii: "q"), UInt8(ascii: "F"): 4
        case UInt8(ascii: "d"), UInt8(ascii: "j"), UInt8(ascii: "J"), UInt8(ascii: "Q"): 8
        case UInt8(ascii: "G"), UInt8(ascii: "U"): 16
        default: nil
        }
    }

    /// One element at `i` as a number (big-endian); nil past the end.
    static func number(_ b: [UInt8], _ i: Int, _ type: UInt8) -> Double? {
        guard let n = size(of: type), i >= 0, i + n <= b.count else { return nil }
        var u: UInt64 = 0
        for k in 0..<min(n, 8) { u = u << 8 | UInt64(b[i + k]) }
        switch type {
        case UInt8(ascii: "b"): return Double(Int8(truncatingIfNeeded: u))
        case UInt8(ascii: "B"), UInt8(ascii: "c"): return Double(u)
        case UInt8(ascii: "s"): return Double(Int16(truncatingIfNeeded: u))
        case UInt8(ascii: "S"): return Double(u)
        case UInt8(ascii: "l"): return Double(Int32(truncatingIfNeeded: u))
        case UInt8(ascii: "L"), UInt8(ascii: "F"): return Double(u)
        case UInt8(ascii: "f"): return Double(Float(bitPattern: UInt32(truncatingIfNeeded: u)))
        case UInt8(ascii: "q"): return Double(Int32(truncatingIfNeeded: u)) / 65536
        case UInt8(ascii: "d"): return Double(bitPattern: u)
        case UInt8(ascii: "j"): return Double(Int64(bitPattern: u))
        case UInt8(ascii: "J"): return Double(u)
        case UInt8(ascii: "Q"): return Double(Int64(bitPattern: u)) / 4_294_967_296
        default: return nil
        }
    }

    /// A TYPE string with `X[n]` repeats written out (`f[4]L` → `ffffL`).
    static func expand(_ type: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var i = 0
        while i < type.count {
            let c = type[i]
            if c == 0 { break }
            if c == UInt8(ascii: "["), let last = out.last {
                var n = 0
                i += 1
                while i < type.count, type[i] >= 48, type[i] <= 57, n < 1000 {
                    n = n * 10 + Int(type[i] - 48)
                    i += 1
                }
                guard i < type.count, type[i] == UInt8(ascii: "]"), n >= 1 else { return nil }
                out += [UInt8](repeating: last, count: n - 1)
            } else {
                out.append(c)
            }
            i += 1
            guard out.count <= 1024 else { return nil }
        }
        return out
    }

    /// The streams of one payload (one `gpmd` sample), in order.
    package static func streams(_ bytes: [UInt8]) throws(GPMFError) -> [GPMFStream] {
        var out: [GPMFStream] = []
        try walk(bytes, 0..<bytes.count, depth: 0, device: "", into: &out)
        return out
    }

    private struct Sticky {
        var name = ""
        var units: [String] = []
        var scale: [Double] = []
        var type: [UInt8]?
        var utc: Double?
        var fix: Int?
        var precision: Int?
    }

    private static func walk(
        _ b: [UInt8], _ range: Range<Int>, depth: Int, device: String, into out: inout [GPMFStream]
    ) throws(GPMFError) {
        guard depth <= maxDepth else { throw GPMFError(offset: range.lowerBound, message: "nested too deep") }
        var i = range.lowerBound
        var sticky = Sticky()
        var device = device
        var data: (key: String, type: UInt8, size: Int, repeatCount: Int, body: Range<Int>)?
        while i + 8 <= range.upperBound {
            let key = String(decoding: b[i..<i + 4], as: UTF8.self)
            let type = b[i + 4], structSize = Int(b[i + 5]), repeatCount = Int(b[i + 6]) << 8 | Int(b[i + 7])
            let length = structSize * repeatCount
            let body = (i + 8)..<(i + 8 + length)
            guard body.upperBound <= range.upperBound else {
                throw GPMFError(offset: i, message: "\(printable(key)): \(length) bytes past the end of its container")
            }
            // A run of zero padding ends a payload.
            if b[i..<i + 4].allSatisfy({ $0 == 0 }) { break }
            if type == 0 {
                try walk(b, body, depth: depth + 1, device: device, into: &out)
            } else {
                switch key {
                case "DVNM": device = text(b, body)
                case "STNM": sticky.name = text(b, body)
                case "UNIT", "SIUN":
                    sticky.units = (0..<repeatCount).map {
                        text(b, (i + 8 + $0 * structSize)..<(i + 8 + ($0 + 1) * structSize))
                    }
                case "SCAL":
                    if let n = size(of: type), n <= structSize {
                        sticky.scale = (0..<(length / n)).compactMap { number(b, i + 8 + $0 * n, type) }
                    }
                case "TYPE": sticky.type = expand(Array(b[body]))
                case "GPSU": sticky.utc = utc(text(b, body))
                case "GPSF": sticky.fix = number(b, body.lowerBound, type).map(small)
                case "GPSP": sticky.precision = number(b, body.lowerBound, type).map(small)
                default:
                    if !properties.contains(key) { data = (key, type, structSize, repeatCount, body) }
                }
            }
            i = body.upperBound + (4 - length % 4) % 4
        }
        guard let data else { return }
        // Each sample: the TYPE's elements for a complex type, else structSize / size of type.
        let elements: [UInt8]
        if data.type == UInt8(ascii: "?") {
            guard let t = sticky.type, !t.isEmpty else {
                throw GPMFError(
                    offset: data.body.lowerBound - 8, message: "\(printable(data.key)): a complex type without TYPE")
            }
            elements = t
        } else if let n = size(of: data.type), n <= data.size {
            elements = [UInt8](repeating: data.type, count: data.size / n)
        } else {
            // Strings, GUIDs and types this reader does not know: not numbers, skipped.
            return
        }
        let structBytes = elements.reduce(0) { $0 + (size(of: $1) ?? 0) }
        guard structBytes <= data.size, !elements.contains(where: { size(of: $0) == nil }) else {
            throw GPMFError(
                offset: data.body.lowerBound - 8,
                message:
                    "\(printable(data.key)): its TYPE needs \(structBytes) bytes a sample, the item gives \(data.size)")
        }
        var samples: [[Double]] = []
        samples.reserveCapacity(data.repeatCount)
        for s in 0..<data.repeatCount {
            var at = data.body.lowerBound + s * data.size
            var values: [Double] = []
            values.reserveCapacity(elements.count)
            for (e, t) in elements.enumerated() {
                guard var v = number(b, at, t) else { break }
                let divisor = sticky.scale.count == 1 ? sticky.scale[0] : (e < sticky.scale.count ? sticky.scale[e] : 1)
                if divisor != 0 && divisor.isFinite { v /= divisor }
                values.append(v)
                at += size(of: t) ?? 0
            }
            samples.append(values)
        }
        out.append(
            GPMFStream(
                key: data.key, device: device, name: sticky.name, units: sticky.units, samples: samples,
                utc: sticky.utc, fix: sticky.fix, precision: sticky.precision))
    }

    static func text(_ b: [UInt8], _ r: Range<Int>) -> String {
        // GPMF strings are ISO 8859-1 (`m/s²` is 6D 2F 73 B2).
        let clamped = r.clamped(to: 0..<b.count)
        var s = ""
        for byte in b[clamped].prefix(while: { $0 != 0 }) { s.unicodeScalars.append(Unicode.Scalar(byte)) }
        return s
    }

    static func printable(_ key: String) -> String {
        key.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F } ? key : "an item"
    }

    /// `yymmddhhmmss.sss` (UTC) as seconds since the Unix epoch.
    static func utc(_ s: String) -> Double? {
        let u = Array(s.utf8)
        guard u.count >= 12, u.prefix(12).allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        func two(_ i: Int) -> Int { Int(u[i] - 48) * 10 + Int(u[i + 1] - 48) }
        let iso =
            "20\(two(0) < 10 ? "0" : "")\(two(0))-\(pad(two(2)))-\(pad(two(4)))T\(pad(two(6))):\(pad(two(8))):\(pad(two(10)))Z"
        guard let whole = DataTime.iso8601(iso) else { return nil }
        var fraction = 0.0
        if u.count > 13, u[12] == UInt8(ascii: ".") {
            var scale = 0.1
            for c in u[13...] where c >= 48 && c <= 57 {
                fraction += Double(c - 48) * scale
                scale /= 10
            }
        }
        return whole + fraction
    }

    /// A count or code read as a number, as an Int (out of range and NaN: -1).
    static func small(_ v: Double) -> Int { v.isFinite && abs(v) < 1e9 ? Int(v) : -1 }

    static func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
