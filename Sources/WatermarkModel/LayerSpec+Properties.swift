// The one place that maps the property table's layer properties onto `LayerSpec`'s
// fields: the element's setters and getters, the config parser and the CLI all go
// through it.

extension LayerSpec {
    /// Sets the layer property `name` (a `WatermarkProperties.layer` name). Values are
    /// made safe here, whoever sets them: numbers that are not finite fall back to the
    /// property's default, doubles are clamped to the property's range, an `end` below 0
    /// means "never", an empty font description means the default font. Unknown names and
    /// values of the wrong type are ignored.
    package mutating func set(_ name: String, _ value: PropertyValue) {
        switch (name, value) {
        case ("image", .string(let s)): imagePath = (s?.isEmpty ?? true) ? nil : s
        case ("text", .string(let s)): text = s ?? ""
        case ("text-file", .string(let s)): textFile = (s?.isEmpty ?? true) ? nil : s
        case ("font-desc", .string(let s)):
            style.fontDesc = (s?.isEmpty ?? true) ? WatermarkProperties.defaultString("font-desc") : s ?? ""
        case ("color", .color(let c)): style.color = c
        case ("outline-color", .color(let c)): style.outlineColor = c
        case ("shadow", .bool(let b)): style.shadow = b
        case ("anchor", .choice(let i)): style.placement.anchor = Anchor(rawValue: i) ?? .bottomRight
        case ("background-color", .color(let c)): style.caption.background = c
        case ("background-full-width", .bool(let b)): style.caption.fullWidth = b
        case ("text-align", .choice(let i)): style.caption.align = TextAlign(rawValue: i) ?? .auto
        case ("motion", .choice(let i)): motion.kind = MotionKind(rawValue: i) ?? .none
        case ("font-features", .string(let s)): style.caption.fontFeatures = s
        case (_, .double(let raw)):
            let v = WatermarkProperties.clamped(name, raw)
            switch name {
            case "text-size": style.textSize = v
            case "outline-width": style.outlineWidth = v
            case "margin-x": style.placement.marginX = v
            case "margin-y": style.placement.marginY = v
            case "x": style.placement.x = v
            case "y": style.placement.y = v
            case "width": style.imageWidth = v
            case "opacity": opacity = v
            case "rotation": style.rotation = v
            case "hdr-reference-white": style.hdrReferenceWhite = v
            case "background-padding": style.caption.padding = v
            case "background-radius": style.caption.radius = v
            case "wrap-width": style.caption.wrapWidth = v
            case "line-spacing": style.caption.lineSpacing = v
            case "letter-spacing": style.caption.letterSpacing = v
            case "motion-speed": motion.speed = v
            case "motion-interval": motion.interval = v
            case "motion-seed": motion.seed = v.rounded(.down)
            case "start": timing.start = v
            case "end": timing.end = v < 0 ? -1 : v
            case "fade-in": timing.fadeIn = v
            case "fade-out": timing.fadeOut = v
            default: break
            }
        default: break
        }
    }

    /// The layer property `name`'s current value (nil for names that are not layer properties).
    package func value(of name: String) -> PropertyValue? {
        switch name {
        case "image": .string(imagePath)
        case "text": .string(style.text.isEmpty ? nil : style.text)
        case "text-file": .string(textFile)
        case "font-desc": .string(style.fontDesc)
        case "text-size": .double(style.textSize)
        case "color": .color(style.color)
        case "outline-color": .color(style.outlineColor)
        case "outline-width": .double(style.outlineWidth)
        case "shadow": .bool(style.shadow)
        case "anchor": .choice(style.placement.anchor.rawValue)
        case "margin-x": .double(style.placement.marginX)
        case "margin-y": .double(style.placement.marginY)
        case "x": .double(style.placement.x)
        case "y": .double(style.placement.y)
        case "width": .double(style.imageWidth)
        case "opacity": .double(opacity)
        case "rotation": .double(style.rotation)
        case "hdr-reference-white": .double(style.hdrReferenceWhite)
        case "background-color": .color(style.caption.background)
        case "background-padding": .double(style.caption.padding)
        case "background-radius": .double(style.caption.radius)
        case "background-full-width": .bool(style.caption.fullWidth)
        case "text-align": .choice(style.caption.align.rawValue)
        case "wrap-width": .double(style.caption.wrapWidth)
        case "line-spacing": .double(style.caption.lineSpacing)
        case "letter-spacing": .double(style.caption.letterSpacing)
        case "font-features": .string(style.caption.fontFeatures)
        case "motion": .choice(motion.kind.rawValue)
        case "motion-speed": .double(motion.speed)
        case "motion-interval": .double(motion.interval)
        case "motion-seed": .double(motion.seed)
        case "start": .double(timing.start)
        case "end": .double(timing.end)
        case "fade-in": .double(timing.fadeIn)
        case "fade-out": .double(timing.fadeOut)
        default: nil
        }
    }
}
