import WatermarkModel

/// The linear map from premultiplied (a, r, g, b) in 0...255 to one component's
/// premultiplied code value: `c0·a + c1·r + c2·g + c3·b`.
struct ComponentMap {
    var c0 = 0.0, c1 = 0.0, c2 = 0.0, c3 = 0.0

    init(family: ColorFamily, component: Int, depth: Int, encoding e: YUVEncoding) {
        let maxCode = Double((1 << depth) - 1)
        let unit = maxCode / 255
        if component == 3 {
            c0 = unit
            return
        }
        switch family {
        case .rgb:
            switch component {
            case 0: c1 = unit
            case 1: c2 = unit
            default: c3 = unit
            }
        case .yuv, .gray:
            let scale = Double(1 << (depth - 8))
            let kg = 1 - e.kr - e.kb
            let ySpan = e.fullRange ? maxCode : 219 * scale
            let cSpan = e.fullRange ? maxCode : 224 * scale
            let yOff = e.fullRange ? 0 : 16 * scale
            let mid = Double(1 << (depth - 1))
            switch component {
            case 0:
                c0 = yOff / 255
                (c1, c2, c3) = (ySpan * e.kr / 255, ySpan * kg / 255, ySpan * e.kb / 255)
            case 1:
                let k = cSpan / 255 / (2 * (1 - e.kb))
                c0 = mid / 255
                (c1, c2, c3) = (-e.kr * k, -kg * k, (1 - e.kb) * k)
            default:
                let k = cSpan / 255 / (2 * (1 - e.kr))
                c0 = mid / 255
                (c1, c2, c3) = ((1 - e.kr) * k, -kg * k, -e.kb * k)
            }
        }
    }

    @inline(__always)
    func apply(a: Double, r: Double, g: Double, b: Double) -> Double {
        c0 * a + c1 * r + c2 * g + c3 * b
    }
}
