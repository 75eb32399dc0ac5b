// In-process micro-benchmark of the per-frame blend path (no pipeline overhead): the
// bundled logo at 12 % of the width plus one line of text, bottom-right, rendered once,
// then blended into a frame over and over. Prints the median and spread per format, and the
// median when the frame has just been copied in ("fresh": as a source hands it over).
//
//   swift run -c release blend-bench [ROOT]     (ROOT: repository root, for assets/)
//   blend-bench ROOT budget I420|NV12|BGRA|render  (the instruction-budget work, see Budget.swift)

import Glibc
import WatermarkBlend
import WatermarkModel
import WatermarkRender

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

let root = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "."
// `blend-bench ROOT convert`: only convert one text overlay, over and over (for profiling).
if CommandLine.arguments.count > 2, CommandLine.arguments[2] == "convert" {
    var s = OverlayStyle()
    s.text = "{frame} 12345"
    guard
        let o = BlockRenderer.render(style: s, image: nil, frameWidth: 1920, frameHeight: 1080, alignX: 2, alignY: 2)
            .overlay
    else { exit(1) }
    let t0 = now()
    var covered = 0
    for _ in 0..<2000 {
        covered &+=
            ConvertedOverlay(o, layout: .i420, encoding: .bt709, frameWidth: 1920, frameHeight: 1080).coveredBytes
    }
    print("convert µs:", Double(now() - t0) / 2000 / 1000, covered)
    exit(0)
}
// `blend-bench ROOT render`: only render changing text (for profiling).
if CommandLine.arguments.count > 2, CommandLine.arguments[2] == "render" {
    var s = OverlayStyle()
    let t0 = now()
    for i in 0..<10000 {
        s.text = "{frame} \(10000 + i)"
        if CommandLine.arguments.count > 3 { s.outlineWidth = Double(CommandLine.arguments[3]) ?? 0 }
        _ = BlockRenderer.render(style: s, image: nil, frameWidth: 1920, frameHeight: 1080, alignX: 2, alignY: 2)
    }
    print("render µs:", Double(now() - t0) / 10000 / 1000)
    exit(0)
}
// `blend-bench ROOT ticker`: one long line of text, 1080p I420, blended still (rendered to fit
// the frame) and as a ticker's copies (rendered whole, two copies at offsets moving 32 px a
// frame, a quarter of the frame apart): median µs per frame of each (for profiling).
if CommandLine.arguments.count > 2, CommandLine.arguments[2] == "ticker" {
    var s = OverlayStyle()
    s.text =
        "Markets close higher as tech shares rally \u{2022} Rain clearing by the afternoon, 21 \u{00B0}C "
        + "\u{2022} Tonight at nine: the city council vote, live"
    s.textSize = 0.035
    let (w, h) = (1920, 1080)
    let layout = PixelLayout.i420
    guard
        let still = BlockRenderer.render(style: s, image: nil, frameWidth: w, frameHeight: h, alignX: 2, alignY: 2)
            .overlay,
        let whole = BlockRenderer.render(
            style: s, image: nil, frameWidth: w, frameHeight: h, alignX: 2, alignY: 2, clip: false
        ).overlay
    else { exit(1) }
    let a = ConvertedOverlay(still, layout: layout, encoding: .bt709, frameWidth: w, frameHeight: h)
    let b = ConvertedOverlay(whole, layout: layout, encoding: .bt709)
    var frame = BenchFrame(layout: layout, width: w, height: h)
    let period = whole.rect.width + w / 4
    let tStill = median(steadyTimes { _ in frame.blend(a) })
    let tTicker = median(
        steadyTimes { i in
            let u = (i * 32) % period
            frame.blend(b, dx: -u)
            frame.blend(b, dx: period - u)
        })
    print("text \(still.rect.width)x\(still.rect.height) still, \(whole.rect.width)x\(whole.rect.height) whole")
    print("still µs:", tStill, " ticker µs:", tTicker, " ratio:", tTicker / tStill)
    exit(0)
}
let logoPath = root + "/assets/logo.png"
let logo: DecodedImage
do { logo = try DecodedImage.decode(path: logoPath) } catch {
    print("\(error)")
    exit(1)
}

// The reference geometry of the performance targets (Benchmarks/bench.py uses the same): the
// logo at 12 % of the frame width above one 20-odd-character line 3.5 % of the frame high
// (at 1080p a 230×80 logo and a ~390×40 text box).
let referenceTextSize = 0.035
var style = OverlayStyle()
style.text = "© ACME 2026 watermark"
style.textSize = referenceTextSize
let layouts: [(String, PixelLayout)] = [("I420", .i420), ("NV12", .nv12), ("BGRA", .bgra), ("YUY2", .yuy2)]

// `blend-bench ROOT budget CASE`: the work scripts/instruction-budgets counts (Budget.swift).
if CommandLine.arguments.count > 3, CommandLine.arguments[2] == "budget" {
    exit(BudgetCase.run(CommandLine.arguments[3], logo: logo, style: style) ? 0 : 1)
}

/// This machine's memory bandwidth: the best of a few 256 MiB copies (read + write).
func bandwidth() -> Double {
    let n = 256 << 20
    let a = UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 64),
        b = UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 64)
    defer {
        a.deallocate()
        b.deallocate()
    }
    memset(a, 1, n)
    memset(b, 2, n)
    var best = 0.0
    var check = 0
    for i in 0..<5 {
        a.storeBytes(of: UInt8(i), toByteOffset: i * 4096, as: UInt8.self)
        let t0 = now()
        memcpy(b, a, n)
        let t1 = now()
        // Reading the copy keeps the compiler from dropping it.
        check &+= Int(b.load(fromByteOffset: i * 4096, as: UInt8.self))
        best = max(best, Double(2 * n) / (Double(t1 - t0) / 1e9))
    }
    return check >= 0 ? best : 0
}

// `blend-bench ROOT floors`: one line per size and format, "WxH FORMAT floor_us", for the
// pipeline benchmark (Benchmarks/bench.py).
let floorsOnly = CommandLine.arguments.count > 2 && CommandLine.arguments[2] == "floors"
let gbps = bandwidth()
let sizes = [(1280, 720), (1920, 1080), (3840, 2160)]
if floorsOnly {
    print("bandwidth \(gbps / 1e9)")
    for (w, h) in sizes {
        for (name, layout) in layouts {
            guard
                let o = BlockRenderer.render(
                    style: style, image: logo, frameWidth: w, frameHeight: h,
                    alignX: layout.alignX, alignY: layout.alignY
                ).overlay
            else { continue }
            let c = ConvertedOverlay(o, layout: layout, encoding: .bt709, frameWidth: w, frameHeight: h)
            print("\(w)x\(h) \(name) \(Double(c.floorBytes) / gbps * 1e6)")
        }
    }
    exit(0)
}

// The same frame is blended over and over, so its covered bytes stay in cache: this
// measures the blend loop itself. "floor µs" is what reading and writing the covered
// bytes once from main memory costs at the measured bandwidth — the bound a real
// pipeline, whose frames arrive cold, cannot beat.
print("memory bandwidth (best memcpy, read + write): \(fixed(gbps / 1e9)) GB/s")
print("case                 format   median µs   min–max µs   fresh µs     block         floor µs")
// `blend-bench ROOT only HEIGHT FORMAT`: one case (for profiling).
let only =
    CommandLine.arguments.count > 4 && CommandLine.arguments[2] == "only"
    ? (Int(CommandLine.arguments[3]) ?? 0, CommandLine.arguments[4]) : nil
for (w, h) in sizes where only == nil || only?.0 == h {
    for (name, layout) in layouts where only == nil || only?.1 == name {
        let result = BlockRenderer.render(
            style: style, image: logo, frameWidth: w, frameHeight: h,
            alignX: layout.alignX, alignY: layout.alignY)
        guard let overlay = result.overlay else { continue }
        let converted = ConvertedOverlay(overlay, layout: layout, encoding: .bt709, frameWidth: w, frameHeight: h)
        let (samples, fresh) = blendTimes(converted, layout: layout, width: w, height: h)
        let median = samples[samples.count / 2]
        let floor = Double(converted.floorBytes) / gbps * 1e6
        let label = pad("logo+text \(h)p", 21) + pad(name, 9)
        let range = fixed(samples[0]) + "–" + fixed(samples[samples.count - 1])
        let block = "\(overlay.rect.width)×\(overlay.rect.height)"
        print(
            label + pad(fixed(median), 12) + pad(range, 13) + pad(fixed(fresh[fresh.count / 2]), 13) + pad(block, 14)
                + fixed(floor))
    }
}

/// Sorted µs of `body(i)` for i in 0..<3000, the first 200 (warming up) left out.
func steadyTimes(_ body: (Int) -> Void) -> [Double] {
    var times: [Double] = []
    for i in 0..<3000 {
        let t0 = now()
        body(i)
        if i >= 200 { times.append(Double(now() - t0) / 1000) }
    }
    return times.sorted()
}

/// The middle of sorted `times`.
func median(_ times: [Double]) -> Double { times[times.count / 2] }

/// Sorted µs to blend every plane of a `width`×`height` frame once: the same frame over and
/// over (in cache), and just after the frame was copied in ("fresh").
func blendTimes(
    _ converted: ConvertedOverlay, layout: PixelLayout, width w: Int, height h: Int, opacity: Double = 1
) -> ([Double], [Double]) {
    var frame = BenchFrame(layout: layout, width: w, height: h)
    /// µs to blend every plane once.
    func timedBlend() -> Double {
        let t0 = now()
        frame.blend(converted, opacity: opacity)
        return Double(now() - t0) / 1000
    }
    let samples = steadyTimes { _ in frame.blend(converted, opacity: opacity) }
    // As in a pipeline: the source has just written the whole frame (so only what
    // the last-level cache kept of it is still there) when the element blends.
    // (videotestsrc copies a prepared frame: glibc's memcpy of a frame this large uses
    // non-temporal stores, which leave it in memory, not in the cache.)
    let sources = frame.planes
    var fresh: [Double] = []
    for i in 0..<(h > 1080 ? 300 : 1000) {
        for p in sources.indices {
            frame.planes[p].withUnsafeMutableBufferPointer { d in
                sources[p].withUnsafeBufferPointer { memcpy(d.baseAddress!, $0.baseAddress!, d.count) }
            }
        }
        let t = timedBlend()
        if i >= 20 { fresh.append(t) }
    }
    fresh.sort()
    return (samples, fresh)
}

func fixed(_ v: Double) -> String {
    let tenths = Int((v * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

func pad(_ s: String, _ n: Int) -> String {
    s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count)
}

if only != nil { exit(0) }

// A semi-transparent mark (opacity 0.8): the opacity applied per sample (a fade) and folded
// into the converted samples once (a steady opacity, what the element does after one frame).
print("\nopacity 0.8 (1080p)        format   opacity 1 µs   per sample µs   folded µs")
for (name, layout) in layouts.prefix(3) {
    guard
        let overlay = BlockRenderer.render(
            style: style, image: logo, frameWidth: 1920, frameHeight: 1080, alignX: layout.alignX, alignY: layout.alignY
        ).overlay
    else { continue }
    let converted = ConvertedOverlay(overlay, layout: layout, encoding: .bt709, frameWidth: 1920, frameHeight: 1080)
    let full = blendTimes(converted, layout: layout, width: 1920, height: 1080).0
    let perSample = blendTimes(converted, layout: layout, width: 1920, height: 1080, opacity: 0.8).0
    let folded = blendTimes(converted.withOpacity(0.8), layout: layout, width: 1920, height: 1080).0
    print(
        pad("logo+text", 27) + pad(name, 9) + pad(fixed(full[full.count / 2]), 15)
            + pad(fixed(perSample[perSample.count / 2]), 16) + fixed(folded[folded.count / 2]))
}

// Captions: the same logo + text with a half-transparent box behind the text. The box is
// part of the one render; per frame it only adds covered samples.
// "fresh" blends into a frame copied in first (as from a source); "floor" is the memory
// traffic of the covered samples at this machine's bandwidth (the case's lower bound when the
// frame comes from memory).
print("\ncaption box (1080p)        format   no box µs   box µs   ratio   fresh ratio   floor µs      floor ratio")
for (name, layout) in layouts.prefix(3) {
    var medians: [Double] = [], fresh: [Double] = [], floors: [Double] = []
    for boxed in [false, true] {
        var s = style
        if boxed { s.caption.background = ARGBColor(argb: 0x8000_0000) }
        guard
            let overlay = BlockRenderer.render(
                style: s, image: logo, frameWidth: 1920, frameHeight: 1080, alignX: layout.alignX,
                alignY: layout.alignY
            ).overlay
        else { continue }
        let converted = ConvertedOverlay(overlay, layout: layout, encoding: .bt709, frameWidth: 1920, frameHeight: 1080)
        let (samples, freshSamples) = blendTimes(converted, layout: layout, width: 1920, height: 1080)
        medians.append(median(samples))
        fresh.append(median(freshSamples))
        floors.append(Double(converted.floorBytes) / gbps * 1e6)
    }
    guard medians.count == 2 else { continue }
    print(
        pad("logo+text", 27) + pad(name, 9) + pad(fixed(medians[0]), 12) + pad(fixed(medians[1]), 9)
            + pad(format2(medians[1] / medians[0]), 8) + pad(format2(fresh[1] / fresh[0]), 14)
            + pad(fixed(floors[0]) + " → " + fixed(floors[1]), 14) + format2(floors[1] / floors[0]))
}

/// Two decimals.
func format2(_ v: Double) -> String {
    let h = Int((v * 100).rounded())
    return "\(h / 100).\(h % 100 < 10 ? "0" : "")\(h % 100)"
}

// HDR: the overlay is placed into PQ/HLG once per render (OverlaySignal), so an HDR frame's
// blend is the same work as an SDR frame's of the same 10-bit format.
print("\nHDR vs SDR (10-bit)        format        median µs   fresh µs")
for (w, h) in sizes where h >= 1080 {
    for (name, layout) in [("P010", PixelLayout.p010), ("I420_10LE", .i420p10)] {
        for signal in [
            OverlaySignal(transfer: .sdr, primaries: .bt2020), OverlaySignal(transfer: .hlg, primaries: .bt2020),
            OverlaySignal(transfer: .pq, primaries: .bt2020),
        ] {
            guard
                let overlay = BlockRenderer.render(
                    style: style, image: logo, frameWidth: w, frameHeight: h, alignX: 2, alignY: 2
                ).overlay
            else { continue }
            let converted = ConvertedOverlay(
                signal.convert(overlay), layout: layout, encoding: .bt2020, frameWidth: w, frameHeight: h)
            let (samples, fresh) = blendTimes(converted, layout: layout, width: w, height: h)
            print(
                pad("logo+text \(h)p \(signal.transfer == .sdr ? "SDR" : signal.transfer == .hlg ? "HLG" : "PQ")", 27)
                    + pad(name, 14) + pad(fixed(samples[samples.count / 2]), 12) + fixed(fresh[fresh.count / 2]))
        }
    }
}
// Re-render cost: what a live-text layer pays when its text changes (a counter every
// frame, a clock once a second): render with pango/cairo, then convert for the format.
print("\nre-render (text changes)   format   render µs   convert µs   px")
for text in ["{frame} 12345", "12:34:56", "© ACME 2026"] {
    for (name, layout) in layouts.prefix(3) {
        var s = OverlayStyle()
        s.text = text
        s.textSize = referenceTextSize
        s.placement = Placement(anchor: .topRight)
        var render: [Double] = [], convert: [Double] = []
        var px = 0
        for i in 0..<300 {
            s.text = text.replacingAll("12345", with: String(10000 + i))
            let t0 = now()
            let r = BlockRenderer.render(
                style: s, image: nil, frameWidth: 1920, frameHeight: 1080,
                alignX: layout.alignX, alignY: layout.alignY)
            let t1 = now()
            guard let o = r.overlay else { continue }
            let c = ConvertedOverlay(o, layout: layout, encoding: .bt709, frameWidth: 1920, frameHeight: 1080)
            let t2 = now()
            _ = c.coveredBytes
            px = o.rect.width * o.rect.height
            if i >= 30 {
                render.append(Double(t1 - t0) / 1000)
                convert.append(Double(t2 - t1) / 1000)
            }
        }
        render.sort()
        convert.sort()
        print(
            pad(text, 27) + pad(name, 9) + pad(fixed(render[render.count / 2]), 12)
                + pad(fixed(convert[convert.count / 2]), 13) + "\(px)")
    }
}
