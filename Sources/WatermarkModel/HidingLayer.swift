// Config layers that hide or follow instead of drawing a logo or a text: a mask layer
// (`"mask"`: a rectangle or polygons) hides fixed regions; a follow layer (`"follow": "roi"`)
// fills, outlines and labels each region of interest a frame carries. Their fields, and what
// does not apply to them (a positioned error that says so, never "unknown field").

/// A mask layer: regions hidden in every frame the layer is shown on.
package struct MaskLayer: Sendable, Equatable {
    package var regions: [MaskRegion]
    package var fill = WatermarkProperties.maskFill.defaultValue
    /// A solid fill's colour (its alpha is ignored).
    package var color = WatermarkProperties.maskColor.defaultValue
    package var cell = WatermarkProperties.maskCell.defaultValue
    package var radius = WatermarkProperties.maskRadius.defaultValue

    package init(regions: [MaskRegion]) {
        self.regions = regions
    }
}

extension LayerSpec {
    /// Whether the layer hides or follows (painted into the pixels under the drawn layers)
    /// rather than drawing a logo or a text of its own.
    package var hides: Bool { mask != nil || follow != nil }

    /// A mask layer's regions at stream time `t`: its x/y keyframes are offsets, fractions of
    /// the frame, added to every point. Empty when the layer is not shown at `t`.
    package func maskRegions(at t: Double?) -> [MaskRegion] {
        guard let mask, timing.factor(at: t) > 0 else { return [] }
        guard !keyframes.isEmpty, let t, t.isFinite else { return mask.regions }
        let dx = keyframes.value(.x, at: t) ?? 0, dy = keyframes.value(.y, at: t) ?? 0
        guard dx != 0 || dy != 0 else { return mask.regions }
        return mask.regions.map { $0.offset(dx: dx, dy: dy) }
    }
}

extension LayerConfig {
    /// The fields only a mask or a follow layer takes.
    static let hidingFields: Set<String> = [
        "mask", "follow", "fill", "cell", "radius", "roi-types", "min-confidence", "grow", "box-color", "box-width",
    ]
    /// Every field a mask layer takes.
    static let maskFields: Set<String> = [
        "mask", "fill", "color", "cell", "radius", "start", "end", "keyframes", "repeat", "alternate",
    ]
    /// Every field a follow layer takes: its own, and the text style of its labels.
    static let followFields: Set<String> = [
        "follow", "roi-types", "min-confidence", "grow", "fill", "color", "cell", "radius", "box-color", "box-width",
        "text", "start", "end", "font-desc", "text-size", "outline-color", "outline-width", "shadow", "anchor",
        "background-color", "background-padding", "background-radius", "text-align", "wrap-width", "line-spacing",
        "letter-spacing", "font-features", "hdr-reference-white",
    ]

    /// A layer's mask or follow fields read into `layer` (after its other fields). Throws a
    /// positioned error for a field that does not apply to the kind of layer it is on.
    static func parseHiding(
        _ members: [(key: String, value: JSONNode)], into layer: inout LayerSpec, node: JSONNode, index: Int,
        fail: (JSONNode, Int?, String?, String) -> ConfigError
    ) throws(ConfigError) {
        let isMask = members.contains { $0.key == "mask" }
        let isFollow = members.contains { $0.key == "follow" }
        guard isMask || isFollow else {
            if let (key, value) = members.first(where: { hidingFields.contains($0.key) }) {
                throw fail(value, index, key, "applies only to a mask layer (\"mask\") or a follow layer (\"follow\")")
            }
            return
        }
        let kind = isMask ? "a mask" : "a follow layer"
        if isMask && isFollow, let follow = members.first(where: { $0.key == "follow" }) {
            throw fail(follow.value, index, "follow", "does not apply to a mask (a layer is a mask or follows regions)")
        }
        let allowed = isMask ? maskFields : followFields
        for (key, value) in members where !allowed.contains(key) {
            let why =
                key == "opacity" || key == "fade-in" || key == "fade-out" ? " (nothing of what it hides may show)" : ""
            throw fail(value, index, key, "does not apply to \(kind)\(why)")
        }
        if isMask { try checkMaskKeyframes(members, index: index, fail: fail) }

        var fill: Int?
        var color: ARGBColor?
        var cell = WatermarkProperties.maskCell.defaultValue, radius = WatermarkProperties.maskRadius.defaultValue
        var follow = RoiFollow()
        var regions: [MaskRegion] = []
        for (key, value) in members {
            func bad(_ message: String) -> ConfigError { fail(value, index, key, message) }
            func number(_ property: PropertyDefinition) throws(ConfigError) -> Double {
                guard case .number(let v) = value.value else { throw bad("expected a number, found \(value.typeName)") }
                switch property.checked(v) {
                case .success(.double(let d)): return d
                case .success: return v
                case .failure(let e): throw bad(e.message)
                }
            }
            func colour() throws(ConfigError) -> ARGBColor {
                let text: String
                switch value.value {
                case .string(let s): text = s
                case .number(let n) where n >= 0 && n <= Double(UInt32.max) && n == n.rounded():
                    text = String(UInt32(n))
                default: throw bad("expected a colour (\"0xAARRGGBB\", \"#RRGGBB\" or a name), found \(value.typeName)")
                }
                switch WatermarkProperties.roiBoxColor.definition.parse(text) {
                case .success(.color(let c)): return c
                case .success: throw bad("expected a colour")
                case .failure(let e): throw bad(e.message)
                }
            }
            switch key {
            case "mask": regions = try maskRegions(value, bad: bad)
            case "follow":
                guard case .string("roi") = value.value else { throw bad("expected \"roi\" (regions of interest)") }
            case "fill":
                guard case .string(let s) = value.value else { throw bad("expected a string, found \(value.typeName)") }
                let choice = isMask ? WatermarkProperties.maskFillChoice : WatermarkProperties.roiFillChoice
                guard let i = choice.values.firstIndex(where: { $0.nick == s }) else {
                    throw bad("\"\(s)\" is not a fill (\(choice.values.map(\.nick).joined(separator: ", ")))")
                }
                fill = i
            case "color": color = try colour()
            case "cell": cell = try number(WatermarkProperties.maskCell.definition)
            case "radius": radius = try number(WatermarkProperties.maskRadius.definition)
            case "grow": follow.grow = try number(WatermarkProperties.roiGrow.definition)
            case "min-confidence": follow.minConfidence = try number(WatermarkProperties.roiMinConfidence.definition)
            case "box-width": follow.boxWidth = try number(WatermarkProperties.roiBoxWidth.definition)
            case "box-color": follow.boxColor = try colour()
            case "roi-types": follow.types = try roiTypes(value, bad: bad)
            default: break
            }
        }
        if isMask {
            var mask = MaskLayer(regions: regions)
            mask.fill = fill.flatMap(MaskFill.init(rawValue:)) ?? .solid
            mask.color = color ?? mask.color
            (mask.cell, mask.radius) = (cell, radius)
            layer.mask = mask
            return
        }
        follow.fill = fill.flatMap(RoiFill.init(rawValue:)) ?? .none
        (follow.cell, follow.radius) = (cell, radius)
        // "color" colours what is coloured: a solid fill, else the label.
        if follow.fill == .solid {
            follow.fillColor = color ?? WatermarkProperties.maskColor.defaultValue
            layer.style.color = WatermarkProperties.color.defaultValue
        }
        follow.label = layer.text.isEmpty ? nil : RoiLabel(layer.text)
        // A label goes above the box's top-left corner unless "anchor" picks another.
        if !members.contains(where: { $0.key == "anchor" }) { layer.style.placement.anchor = .topLeft }
        guard follow.drawsAnything else {
            throw fail(node, index, nil, "a follow layer that draws nothing: give \"fill\", \"box-color\" or \"text\"")
        }
        layer.follow = follow
    }

    /// `"mask"`: `[x, y, w, h]`, `[[x1, y1], [x2, y2], [x3, y3], …]`, or the `mask`
    /// property's text (regions separated by `;`).
    private static func maskRegions(_ value: JSONNode, bad: (String) -> ConfigError) throws(ConfigError)
        -> [MaskRegion]
    {
        let expected =
            "expected [x, y, width, height], [[x1, y1], [x2, y2], [x3, y3], …] or a mask text (fractions of the frame)"
        func finite(_ node: JSONNode) -> Double? {
            guard case .number(let v) = node.value, v.isFinite, abs(v) <= 1e6 else { return nil }
            return v
        }
        switch value.value {
        case .string(let text):
            switch MaskRegion.parseList(text) {
            case .success(let regions) where !regions.isEmpty: return regions
            case .success: throw bad("an empty mask")
            case .failure(let e): throw bad(e.description)
            }
        case .array(let items) where items.count == 4 && items.allSatisfy({ finite($0) != nil }):
            let v = items.compactMap(finite)
            guard v[2] > 0, v[3] > 0 else { throw bad("a rectangle's width and height must be above 0") }
            return [.rectangle(x: v[0], y: v[1], width: v[2], height: v[3])]
        case .array(let items) where items.count >= 3 && !items.contains(where: { finite($0) != nil }):
            var points: [MaskPoint] = []
            for (k, item) in items.enumerated() {
                guard case .array(let xy) = item.value, xy.count == 2, let x = finite(xy[0]), let y = finite(xy[1])
                else {
                    throw bad("point \(k + 1): expected [x, y] (fractions of the frame)")
                }
                points.append(MaskPoint(x, y))
            }
            return [.polygon(points)]
        default: throw bad(expected)
        }
    }

    /// `"roi-types"`: an array of type names, or one comma-separated string.
    private static func roiTypes(_ value: JSONNode, bad: (String) -> ConfigError) throws(ConfigError) -> [String] {
        var names: [String] = []
        switch value.value {
        case .string(let s): names = s.split(separator: ",").map { String($0).trimmingSpaces }
        case .array(let items):
            for item in items {
                guard case .string(let s) = item.value else {
                    throw bad("expected an array of type names, found \(item.typeName) in it")
                }
                names.append(s)
            }
        default: throw bad("expected an array of type names, found \(value.typeName)")
        }
        guard !names.isEmpty, !names.contains(where: \.isEmpty) else { throw bad("an empty type name") }
        return names
    }

    /// A mask's keyframes move it: only time, x, y and easing apply.
    private static func checkMaskKeyframes(
        _ members: [(key: String, value: JSONNode)], index: Int,
        fail: (JSONNode, Int?, String?, String) -> ConfigError
    ) throws(ConfigError) {
        guard let keyframes = members.first(where: { $0.key == "keyframes" })?.value,
            case .array(let items) = keyframes.value
        else { return }
        for (k, item) in items.enumerated() {
            guard case .object(let fields) = item.value else { continue }
            for (key, value) in fields where !["time", "x", "y", "easing"].contains(key) {
                throw fail(
                    value, index, "keyframes[\(k)].\(key)",
                    "does not apply to a mask (its keyframes move it: time, x, y, easing)")
            }
        }
    }
}
