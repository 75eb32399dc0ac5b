// The forensic mark: a 64-bit id, made checkable with a CRC-32, spread over a square tile
// of ±1 chips whose places and signs only the key knows. A quarter of the chips carry a
// fixed synchronisation pattern (found again after cropping and scaling), the rest the 96
// bits, each bit on as many chips. The tile repeats over the whole picture, in every frame.
// Nothing here touches pixels: the blend layer adds the tile to the luma, the detector
// reads it back.

import Glibc

/// The id's text forms and the code that carries it.
package enum ForensicCode {
    /// A tile is `cells` × `cells` chips.
    package static let cells = 32
    /// Chips of the synchronisation pattern.
    package static let syncChips = 256
    /// The 64-bit id, then its CRC-32.
    package static let payloadBits = 96

    /// An id written as 16 hexadecimal digits, optionally after `0x`, any case.
    package static func parseID(_ text: String) -> UInt64? {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard digits.utf8.count == 16, digits.allSatisfy(\.isHexDigit) else { return nil }
        return UInt64(digits, radix: 16)
    }

    /// 16 lowercase hexadecimal digits.
    package static func hex(_ id: UInt64) -> String {
        let s = String(id, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// CRC-32 (IEEE, as zlib's) of the id's 8 bytes, most significant first.
    package static func crc32(_ id: UInt64) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for i in stride(from: 56, through: 0, by: -8) {
            crc ^= UInt32((id >> UInt64(i)) & 0xFF)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }

    /// The 96 bits the tile carries (id, then CRC), most significant first, as ±1.
    package static func bits(of id: UInt64) -> [Int8] {
        let crc = UInt64(crc32(id))
        return (0..<payloadBits).map { i in
            let bit = i < 64 ? (id >> UInt64(63 - i)) & 1 : (crc >> UInt64(95 - i)) & 1
            return bit == 1 ? 1 : -1
        }
    }

    /// The id the bits carry when their CRC agrees (bits as `true` = 1).
    package static func id(from bits: [Bool]) -> UInt64? {
        guard bits.count == payloadBits else { return nil }
        var id: UInt64 = 0, crc: UInt64 = 0
        for i in 0..<64 { id = id << 1 | (bits[i] ? 1 : 0) }
        for i in 64..<96 { crc = crc << 1 | (bits[i] ? 1 : 0) }
        return UInt32(crc) == crc32(id) ? id : nil
    }
}

/// Where the key puts each chip: its sign, and whether it belongs to the synchronisation
/// pattern or to a payload bit. Made from the key's 32-byte digest (SHA-256 of its text).
package struct ForensicPattern: Sendable, Equatable {
    /// Per chip, row-major over the tile: ±1.
    package let sign: [Int8]
    /// Per chip: -1 for the synchronisation pattern, else the payload bit it carries.
    package let bit: [Int16]

    package init(digest: [UInt8]) {
        var rng = KeyedGenerator(digest: digest)
        let n = ForensicCode.cells * ForensicCode.cells
        var order = Array(0..<n)
        for i in stride(from: n - 1, to: 0, by: -1) {
            order.swapAt(i, Int(rng.next() % UInt64(i + 1)))
        }
        var bit = [Int16](repeating: -1, count: n)
        for (rank, chip) in order.enumerated() where rank >= ForensicCode.syncChips {
            bit[chip] = Int16((rank - ForensicCode.syncChips) % ForensicCode.payloadBits)
        }
        self.bit = bit
        sign = (0..<n).map { _ in rng.next() >> 63 == 0 ? 1 : -1 }
    }

    /// Every chip's value for `id`: the sign, times the bit it carries (sync chips: the sign).
    package func chips(for id: UInt64) -> [Int8] {
        let bits = ForensicCode.bits(of: id)
        return sign.indices.map { i in bit[i] < 0 ? sign[i] : sign[i] * bits[Int(bit[i])] }
    }
}

/// The tile as luma offsets for one picture height: chips of `cell` pixels, each a smooth
/// bump (sin × sin, zero at its edges, so neighbours meet without a step), values ±127 at
/// a bump's top. The picture's top-left pixel is the tile's.
package struct ForensicTile: Sendable, Equatable {
    package let cell: Int
    /// Pixels across and down: `cells × cell`.
    package let size: Int
    package let values: [Int8]

    /// The chip size for a picture `height` rows high: 1/135 of it (8 px at 1080 rows), at least 2.
    package static func cell(forHeight height: Int) -> Int { max(2, Int((Double(height) / 135).rounded())) }

    package init(chips: [Int8], cell: Int) {
        self.cell = max(2, cell)
        let n = ForensicCode.cells
        size = n * self.cell
        let c = self.cell
        let bump = (0..<c).map { sin(Double.pi * (Double($0) + 0.5) / Double(c)) }
        var values = [Int8](repeating: 0, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                let chip = chips.count == n * n ? Double(chips[(y / c) * n + x / c]) : 0
                values[y * size + x] = Int8((chip * 127 * bump[y % c] * bump[x % c]).rounded())
            }
        }
        self.values = values
    }
}

/// xoshiro256** seeded from a digest: the same stream for the same key, on every machine.
package struct KeyedGenerator {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    package init(digest: [UInt8]) {
        var words = [UInt64](repeating: 0, count: 4)
        for (i, b) in digest.prefix(32).enumerated() { words[i / 8] |= UInt64(b) << UInt64(8 * (i % 8)) }
        // SplitMix64 over the words, so that a short or zero digest still seeds every state word.
        var z: UInt64 = words[0] ^ 0x9E37_79B9_7F4A_7C15
        func mix(_ w: UInt64) -> UInt64 {
            z = z &+ 0x9E37_79B9_7F4A_7C15 ^ w
            var v = z
            v = (v ^ (v >> 30)) &* 0xBF58_476D_1CE4_E5B9
            v = (v ^ (v >> 27)) &* 0x94D0_49BB_1331_11EB
            return v ^ (v >> 31)
        }
        s = (mix(words[0]), mix(words[1]), mix(words[2]), mix(words[3]))
    }

    package mutating func next() -> UInt64 {
        let result = ((s.1 &* 5) << 7 | (s.1 &* 5) >> 57) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = s.3 << 45 | s.3 >> 19
        return result
    }
}
