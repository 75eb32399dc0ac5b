import Foundation
import TestSupport

/// Test animations: GIFs written here (solid frames, exact delays and loop counts) and
/// WebPs made with libwebp's img2webp.
package enum TestAnimation {
    /// Red, green, blue (and black) as a GIF's four-colour palette.
    package static let palette: [UInt32] = [0xFF0000, 0x00FF00, 0x0000FF, 0x000000]

    /// A GIF of solid frames (`frames`: palette index and delay in centiseconds), with a
    /// NETSCAPE2.0 loop count when `loop` is given (0: forever).
    package static func gif(_ name: String, frames: [(index: Int, delay: Int)], loop: Int?, size: Int = 16) -> String {
        var b = Array("GIF89a".utf8)
        func le16(_ v: Int) { b += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        le16(size)
        le16(size)
        b += [0x91, 0, 0]  // global table of 4 colours
        for c in palette { b += [UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)] }
        if let loop {
            b += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [3, 1]
            le16(loop)
            b += [0]
        }
        for f in frames {
            b += [0x21, 0xF9, 4, 0x04]  // dispose: leave in place
            le16(f.delay)
            b += [0, 0, 0x2C]
            le16(0)
            le16(0)
            le16(size)
            le16(size)
            b += [0, 2]  // no local table; LZW minimum code size 2
            // Codes of 3 bits: a clear code before every two pixels keeps the table from
            // growing past 3 bits, so no compression is needed.
            var bits: [Bool] = []
            func code(_ c: Int) { for i in 0..<3 { bits.append(c >> i & 1 == 1) } }
            for _ in 0..<(size * size / 2) {
                code(4)
                code(f.index)
                code(f.index)
            }
            code(5)
            var data = [UInt8](repeating: 0, count: (bits.count + 7) / 8)
            for (i, bit) in bits.enumerated() where bit { data[i / 8] |= 1 << UInt8(i % 8) }
            var at = 0
            while at < data.count {
                let n = min(255, data.count - at)
                b += [UInt8(n)] + data[at..<at + n]
                at += n
            }
            b += [0]
        }
        b += [0x3B]
        let path = TestEnv.path(name)
        FileManager.default.createFile(atPath: path, contents: Data(b))
        return path
    }

    /// A WebP of red, green and blue frames for 100, 200 and 300 ms, made with img2webp.
    /// (Its frames are files of its own: tests running side by side make WebPs at once.)
    package static func webp(_ name: String, loop: Int, size: Int = 16) throws -> String {
        var pngs: [String] = []
        for (i, c) in [0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF].enumerated() {
            pngs.append(
                GstTest.solidPNG("\(name)-\(i).png", width: Int32(size), height: Int32(size), argb: UInt32(c)))
        }
        let path = TestEnv.path(name)
        let (status, out) = TestEnv.run([
            "img2webp", "-lossless", "-loop", "\(loop)", "-d", "100", pngs[0], "-d", "200", pngs[1], "-d", "300",
            pngs[2],
            "-o", path,
        ])
        guard status == 0 else { throw ImageToolFailed(output: out) }
        return path
    }
}

/// img2webp failed (its output).
package struct ImageToolFailed: Error {
    package var output: String
}

extension TestAnimation {
    /// An APNG of solid RGBA frames (`frames`: colour 0xRRGGBBAA and delay in centiseconds),
    /// playing `plays` times (0: forever), written here chunk by chunk (zlib stored blocks).
    package static func apng(_ name: String, frames: [(rgba: UInt32, delay: Int)], plays: Int, size: Int = 16) -> String
    {
        func be32(_ v: Int) -> [UInt8] {
            [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                c ^= UInt32(b)
                for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            }
            return ~c
        }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(data.count) + body + be32(Int(crc32(body)))
        }
        func zlib(_ raw: [UInt8]) -> [UInt8] {
            var out: [UInt8] = [0x78, 0x01]
            var at = 0
            repeat {
                let n = min(65535, raw.count - at)
                out += [
                    at + n == raw.count ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF),
                    UInt8(~n >> 8 & 0xFF),
                ]
                out += raw[at..<at + n]
                at += n
            } while at < raw.count
            var a: UInt32 = 1, b: UInt32 = 0
            for x in raw {
                a = (a + UInt32(x)) % 65521
                b = (b + a) % 65521
            }
            return out + be32(Int(b << 16 | a))
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", be32(size) + be32(size) + [8, 6, 0, 0, 0])
        png += chunk("acTL", be32(frames.count) + be32(plays))
        var sequence = 0
        for (i, f) in frames.enumerated() {
            // Built in parts: Swift 6.0 gives up type-checking the whole sum as one expression.
            var control: [UInt8] = be32(sequence) + be32(size) + be32(size)
            control += be32(0) + be32(0)
            control += be16(f.delay) + be16(100) + [0, 0]
            png += chunk("fcTL", control)
            sequence += 1
            let pixel = [
                UInt8(f.rgba >> 24), UInt8(f.rgba >> 16 & 0xFF), UInt8(f.rgba >> 8 & 0xFF), UInt8(f.rgba & 0xFF),
            ]
            var raw: [UInt8] = []
            for _ in 0..<size {
                raw.append(0)
                for _ in 0..<size { raw += pixel }
            }
            if i == 0 {
                png += chunk("IDAT", zlib(raw))
            } else {
                png += chunk("fdAT", be32(sequence) + zlib(raw))
                sequence += 1
            }
        }
        png += chunk("IEND", [])
        let path = TestEnv.path(name)
        FileManager.default.createFile(atPath: path, contents: Data(png))
        return path
    }
}
