// Word-at-a-time helpers of the converter and the run finder: eight bytes as one 64-bit
// word, read with unaligned loads from pointers the callers keep in bounds.

/// Eight bytes from `p` as one word.
@inline(__always) func word(_ p: UnsafePointer<UInt8>) -> UInt64 {
    UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
}

/// Index (0–7, in memory order) of the last byte of `x` that is not zero; `x` ≠ 0.
@inline(__always) func lastNonZeroByte(_ x: UInt64) -> Int {
    let low7 = UInt64(0x7F7F_7F7F_7F7F_7F7F)
    let nonZero = (((x & low7) &+ low7) | x) & ~low7
    return (63 - nonZero.leadingZeroBitCount) / 8
}

/// Whether any of the eight bytes of `x` is zero.
@inline(__always) func hasZeroByte(_ x: UInt64) -> Bool {
    (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
}

/// Whether `count` (a multiple of 8) pixels are all fully transparent zero words: ORs of
/// 64-bit loads (SIMD `==` compares lane by lane and does not vectorise).
@inline(__always) func isClear(_ p: UnsafePointer<UInt32>, count: Int) -> Bool {
    let raw = UnsafeRawPointer(p)
    var acc: UInt64 = 0
    for k in 0..<(count / 2) { acc |= raw.loadUnaligned(fromByteOffset: k * 8, as: UInt64.self) }
    return acc == 0
}

/// Sums of neighbouring lanes (0+1, 2+3, …): each pair read as one 64-bit lane, which
/// vectorises where evenHalf/oddHalf do not.
@inline(__always) func pairSums(_ v: SIMD16<UInt32>) -> SIMD8<Int32> {
    let wide = unsafeBitCast(v, to: SIMD8<UInt64>.self)
    return SIMD8<Int32>(truncatingIfNeeded: (wide & SIMD8<UInt64>(repeating: 0xFFFF_FFFF)) &+ (wide &>> 32))
}

/// Integer division rounding toward −∞ / +∞ (`d` > 0).
@inline(__always) func floorDiv(_ a: Int, _ d: Int) -> Int { a >= 0 ? a / d : -((-a + d - 1) / d) }
@inline(__always) func ceilDiv(_ a: Int, _ d: Int) -> Int { -floorDiv(-a, d) }
