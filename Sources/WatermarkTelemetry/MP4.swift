// The samples of one track of an MP4/MOV file (ISO/IEC 14496-12 boxes), found by its sample
// description's format (`gpmd`, GoPro's metadata track): where each sample is and when it
// plays. Only the `moov` box and the samples themselves are read, never the whole file.
// Bounded and checked: a damaged file gives an error, never a trap.

import Glibc

/// Where bytes come from: a file read with pread, or bytes in memory (tests, fuzzing).
package protocol ByteSource {
    var count: Int { get }
    func read(_ offset: Int, _ length: Int) -> [UInt8]?
}

package struct MemoryBytes: ByteSource {
    package let bytes: [UInt8]
    package init(_ bytes: [UInt8]) { self.bytes = bytes }
    package var count: Int { bytes.count }
    package func read(_ offset: Int, _ length: Int) -> [UInt8]? {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else { return nil }
        return Array(bytes[offset..<offset + length])
    }
}

/// A file opened for reading; closed when the value is dropped.
package final class FileBytes: ByteSource {
    let fd: Int32
    package let count: Int

    package init?(path: String) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return nil
        }
        count = Int(st.st_size)
    }

    deinit { close(fd) }

    package func read(_ offset: Int, _ length: Int) -> [UInt8]? {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else { return nil }
        var out = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let n = out.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return pread(fd, base + done, length - done, off_t(offset + done))
            }
            guard n > 0 else { return nil }
            done += n
        }
        return out
    }
}

/// One sample of a track: its bytes' place and its time on the movie's time line.
package struct TrackSample: Sendable, Equatable {
    package var offset: Int
    package var size: Int
    /// Seconds from the track's start.
    package var time: Double
    package var duration: Double

    package init(offset: Int, size: Int, time: Double, duration: Double) {
        self.offset = offset
        self.size = size
        self.time = time
        self.duration = duration
    }
}

package struct MP4Error: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

package enum MP4 {
    static let maxMoov = 64 << 20
    /// A GoPro writes a telemetry sample a second: a million is eleven days.
    static let maxSamples = 1 << 20

    /// Big-endian reads from a byte array, checked.
    struct Reader {
        let b: [UInt8]
        func u8(_ i: Int) -> Int? { i >= 0 && i < b.count ? Int(b[i]) : nil }
        func u16(_ i: Int) -> Int? {
            guard i >= 0, i + 2 <= b.count else { return nil }
            return Int(b[i]) << 8 | Int(b[i + 1])
        }
        func u32(_ i: Int) -> Int? {
            guard i >= 0, i + 4 <= b.count else { return nil }
            return Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
        }
        func u64(_ i: Int) -> Int? {
            guard let hi = u32(i), let lo = u32(i + 4), hi < 1 << 31 else { return nil }
            return hi << 32 | lo
        }
        func fourcc(_ i: Int) -> String? {
            guard i >= 0, i + 4 <= b.count else { return nil }
            return String(decoding: b[i..<i + 4], as: UTF8.self)
        }
    }

    /// The boxes inside `range` of `r`: (type, payload range).
    static func boxes(_ r: Reader, _ range: Range<Int>) -> [(type: String, body: Range<Int>)] {
        var out: [(String, Range<Int>)] = []
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            guard var size = r.u32(i), let type = r.fourcc(i + 4) else { break }
            var header = 8
            if size == 1 {
                guard let large = r.u64(i + 8) else { break }
                size = large
                header = 16
            } else if size == 0 {
                size = range.upperBound - i
            }
            guard size >= header, size <= range.upperBound - i else { break }
            out.append((type, (i + header)..<(i + size)))
            i += size
        }
        return out
    }

    /// The top-level `moov` box of the file, read.
    static func moov(_ file: ByteSource) throws(MP4Error) -> [UInt8] {
        var i = 0
        var sawFtyp = false
        while i + 8 <= file.count {
            guard let head = file.read(i, 16) ?? file.read(i, 8) else { break }
            let r = Reader(b: head)
            guard var size = r.u32(0), let type = r.fourcc(4) else { break }
            var header = 8
            if size == 1 {
                guard let large = r.u64(8) else { break }
                size = large
                header = 16
            } else if size == 0 {
                size = file.count - i
            }
            guard size >= header, size <= file.count - i else { break }
            if type == "ftyp" { sawFtyp = true }
            if type == "moov" {
                guard size - header <= maxMoov, let body = file.read(i + header, size - header) else {
                    throw MP4Error(message: "its moov box (\(size) bytes) is too large or cannot be read")
                }
                return body
            }
            i += size
        }
        throw MP4Error(message: sawFtyp ? "no moov box (an unfinished recording?)" : "not an MP4 or MOV file")
    }

    /// The movie's creation time (mvhd) in a `moov` box, seconds since the Unix epoch; nil
    /// when unset.
    static func creationTime(_ r: Reader, _ moov: Range<Int>) -> Double? {
        guard let mvhd = boxes(r, moov).first(where: { $0.type == "mvhd" }) else { return nil }
        let m = mvhd.body.lowerBound
        guard let t = r.u8(m) == 1 ? r.u64(m + 4) : r.u32(m + 4), t > 0 else { return nil }
        // Seconds since 1904-01-01.
        return Double(t) - 2_082_844_800
    }

    /// The samples of the first track whose sample description is `format` (nil: the file
    /// has no such track), its handler's name and the movie's creation time, from one read
    /// of `moov`.
    package static func samples(of file: ByteSource, format: String) throws(MP4Error) -> (
        samples: [TrackSample], handler: String, created: Double?
    )? {
        let moov = try moov(file)
        let r = Reader(b: moov)
        for trak in boxes(r, 0..<moov.count) where trak.type == "trak" {
            guard let mdia = boxes(r, trak.body).first(where: { $0.type == "mdia" }) else { continue }
            let inMdia = boxes(r, mdia.body)
            guard let minf = inMdia.first(where: { $0.type == "minf" }),
                let stbl = boxes(r, minf.body).first(where: { $0.type == "stbl" })
            else { continue }
            let tables = boxes(r, stbl.body)
            guard let stsd = tables.first(where: { $0.type == "stsd" }),
                r.fourcc(stsd.body.lowerBound + 12) == format
            else { continue }
            var handler = ""
            if let hdlr = inMdia.first(where: { $0.type == "hdlr" }), hdlr.body.count > 24 {
                // A C string, or in QuickTime files a length-prefixed one.
                let name = moov[(hdlr.body.lowerBound + 24)..<hdlr.body.upperBound]
                handler = String(decoding: name.filter { $0 >= 0x20 }, as: UTF8.self)
            }
            guard let mdhd = inMdia.first(where: { $0.type == "mdhd" }) else {
                throw MP4Error(message: "the \(format) track has no mdhd box")
            }
            let m = mdhd.body.lowerBound
            let timescale = r.u8(m) == 1 ? r.u32(m + 20) : r.u32(m + 12)
            guard let timescale, timescale > 0 else { throw MP4Error(message: "the \(format) track has no timescale") }
            return (
                try samples(r, tables, timescale: Double(timescale), format: format), handler,
                creationTime(r, 0..<moov.count)
            )
        }
        return nil
    }

    private static func samples(
        _ r: Reader, _ tables: [(type: String, body: Range<Int>)], timescale: Double, format: String
    ) throws(MP4Error) -> [TrackSample] {
        func table(_ name: String) throws(MP4Error) -> Range<Int> {
            guard let t = tables.first(where: { $0.type == name }) else {
                throw MP4Error(message: "the \(format) track has no \(name) box")
            }
            return t.body
        }
        func bad(_ name: String) -> MP4Error { MP4Error(message: "the \(format) track's \(name) box is damaged") }
        // Sizes.
        let stsz = try table("stsz")
        guard let fixed = r.u32(stsz.lowerBound + 4), let count = r.u32(stsz.lowerBound + 8), count <= maxSamples,
            fixed != 0 || count <= stsz.count / 4
        else { throw bad("stsz") }
        var sizes: [Int] = []
        sizes.reserveCapacity(count)
        for k in 0..<count {
            guard let s = fixed != 0 ? fixed : r.u32(stsz.lowerBound + 12 + 4 * k) else { throw bad("stsz") }
            sizes.append(s)
        }
        // Times.
        let stts = try table("stts")
        guard let runs = r.u32(stts.lowerBound + 4), runs <= stts.count / 8 else { throw bad("stts") }
        var times: [(Double, Double)] = []
        times.reserveCapacity(count)
        var clock = 0
        for k in 0..<runs {
            if times.count >= count { break }
            guard let n = r.u32(stts.lowerBound + 8 + 8 * k), let delta = r.u32(stts.lowerBound + 12 + 8 * k) else {
                throw bad("stts")
            }
            for _ in 0..<min(n, count - times.count) {
                times.append((Double(clock) / timescale, Double(delta) / timescale))
                clock += delta
            }
        }
        guard times.count == count else { throw bad("stts") }
        // Chunks.
        var offsets: [Int] = []
        if let stco = tables.first(where: { $0.type == "stco" })?.body {
            guard let n = r.u32(stco.lowerBound + 4), n <= maxSamples, n <= stco.count / 4 else { throw bad("stco") }
            for k in 0..<n {
                guard let o = r.u32(stco.lowerBound + 8 + 4 * k) else { throw bad("stco") }
                offsets.append(o)
            }
        } else {
            let co64 = try table("co64")
            guard let n = r.u32(co64.lowerBound + 4), n <= maxSamples, n <= co64.count / 8 else { throw bad("co64") }
            for k in 0..<n {
                guard let o = r.u64(co64.lowerBound + 8 + 8 * k) else { throw bad("co64") }
                offsets.append(o)
            }
        }
        let stsc = try table("stsc")
        guard let entries = r.u32(stsc.lowerBound + 4), entries <= stsc.count / 12 else { throw bad("stsc") }
        var runs2: [(first: Int, perChunk: Int)] = []
        for k in 0..<entries {
            guard let first = r.u32(stsc.lowerBound + 8 + 12 * k), let per = r.u32(stsc.lowerBound + 12 + 12 * k),
                first >= 1
            else { throw bad("stsc") }
            runs2.append((first, per))
        }
        var out: [TrackSample] = []
        out.reserveCapacity(count)
        var sample = 0
        var run = 0
        for (c, chunkOffset) in offsets.enumerated() {
            if sample >= count { break }
            let chunk = c + 1
            while run + 1 < runs2.count, runs2[run + 1].first <= chunk { run += 1 }
            let per = runs2.indices.contains(run) && runs2[run].first <= chunk ? runs2[run].perChunk : 0
            var offset = chunkOffset
            for _ in 0..<min(per, count - sample) {
                out.append(
                    TrackSample(
                        offset: offset, size: sizes[sample], time: times[sample].0, duration: times[sample].1))
                offset += sizes[sample]
                sample += 1
            }
        }
        guard out.count == count else { throw bad("stsc") }
        return out
    }
}
