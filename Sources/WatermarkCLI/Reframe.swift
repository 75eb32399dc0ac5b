import WatermarkModel

/// `--reframe W:H`: the largest centred W:H region of the frame, scaled so that its
/// shorter side keeps the input's shorter side (1920×1080 at 9:16 → 1080×1920).
struct Reframe: Sendable {
    let rw: Int
    let rh: Int

    init(ratio: String) throws(UsageError) {
        let parts = ratio.split(separator: ":")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...100).contains(w),
            (1...100).contains(h)
        else {
            throw UsageError(message: "--reframe: \"\(ratio)\" is not W:H (for example 9:16)")
        }
        (rw, rh) = (w, h)
    }

    func steps(width: Int, height: Int) throws(UsageError) -> [Step] {
        guard width > 0, height > 0 else { throw UsageError(message: "--reframe: the input's frame size is unknown") }
        var cw = width, ch = height
        if width * rh > height * rw {
            cw = min(width, (height * rw / rh) & ~1)
        } else {
            ch = min(height, (width * rh / rw) & ~1)
        }
        let left = (width - cw) / 2, top = (height - ch) / 2
        let short = min(width, height)
        var ow = cw, oh = ch
        if cw < ch {
            ow = short
            oh = short * rh / rw
        } else {
            oh = short
            ow = short * rw / rh
        }
        ow &= ~1
        oh &= ~1
        return [
            Step(
                "videocrop",
                [
                    ("left", .number(left)), ("right", .number(width - cw - left)), ("top", .number(top)),
                    ("bottom", .number(height - ch - top)),
                ]),
            Step("videoscale"),
            Step.caps("video/x-raw", [("width", .number(ow)), ("height", .number(oh)), ("pixel-aspect-ratio", "1/1")]),
        ]
    }
}
