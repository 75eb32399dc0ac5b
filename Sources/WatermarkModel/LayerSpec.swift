// One watermark layer as plain values.

/// Everything one layer draws and when: a logo and/or text block, its style, time window,
/// fades, keyframes and rotation. The element's own properties describe one such layer;
/// a config file describes any number.
package struct LayerSpec: Sendable, Equatable {
    package var imagePath: String?
    /// The layer shows this file's contents (followed when it changes); overrides `text`.
    package var textFile: String?
    package var style: OverlayStyle
    /// `style.text` parsed for placeholders.
    package var template: TextTemplate
    package var opacity: Double
    package var timing: LayerTiming
    package var keyframes: KeyframeTrack
    /// Moving on its own (bounce, jump): rendered once, blended at a new place each frame.
    package var motion = Motion()
    /// Fields driven by a variable or a data field (over their keyframed values).
    package var bindings: [Binding] = []
    /// A mask layer's regions and fill (config files only).
    package var mask: MaskLayer?
    /// What a follow layer draws for each region of interest (config files only).
    package var follow: RoiFollow?

    package init() {
        // Every default comes from the property table.
        style = OverlayStyle()
        template = TextTemplate("")
        opacity = 1
        timing = LayerTiming()
        keyframes = KeyframeTrack()
        for p in WatermarkProperties.layer { set(p, p.defaultValue) }
    }

    package var text: String {
        get { style.text }
        set {
            style.text = newValue
            template = TextTemplate(newValue)
        }
    }

    /// Whether the block moves without changing its pixels (x/y keyframes): it is then
    /// rendered once and blended at a new offset per frame.
    package var moves: Bool {
        keyframes.animates(.x) || keyframes.animates(.y) || motion.kind != .none
            || bindings.contains { $0.field == .x || $0.field == .y }
    }

    /// Whether how it looks depends on the frame's time or values (beyond its text).
    package var changes: Bool { !keyframes.isEmpty || !bindings.isEmpty }

    /// Seconds since the layer appeared, for its motion (nil without a stream time).
    package func motionTime(at t: Double?) -> Double? { t.map { $0 - timing.start } }

    /// How the layer looks on a frame: `state(at:)` at its stream time, then the bound
    /// fields set from the frame's variables and data.
    package func state(_ clock: FrameClock) -> (style: OverlayStyle, opacity: Double) {
        var (s, o) = state(at: clock.streamTime)
        guard !bindings.isEmpty, o > 0 else { return (s, o) }
        for b in bindings {
            guard let input = b.value.number(clock) else { continue }
            let v = b.map(input)
            switch b.field {
            case .x: s.placement.x = v
            case .y: s.placement.y = v
            // Quantised like keyframed values: a value that creeps does not re-render for
            // changes nobody sees.
            case .rotation: s.rotation = (v * 100).rounded() / 100
            case .opacity: o *= v
            case .scale:
                let q = (v * 1000).rounded() / 1000
                s.textSize *= q
                s.imageWidth *= q
            }
        }
        return (s, min(max(o, 0), 1))
    }

    /// How the layer looks at stream time `t`: keyframed values applied on top of the
    /// layer's own, and the opacity including time window and fades (0 = not drawn).
    package func state(at t: Double?) -> (style: OverlayStyle, opacity: Double) {
        var s = style
        // Text that changes with time keeps its width digit for digit.
        if s.caption.fontFeatures == nil && !template.isStatic { s.caption.fontFeatures = "tnum" }
        // A jumping layer fades around each jump instead of at its start and end.
        var window = timing
        if motion.kind == .jump { (window.fadeIn, window.fadeOut) = (0, 0) }
        var o =
            opacity * window.factor(at: t)
            * motion.jumpFade(at: motionTime(at: t), fadeIn: timing.fadeIn, fadeOut: timing.fadeOut)
        guard !keyframes.isEmpty, let t, t.isFinite else { return (s, o) }
        if let x = keyframes.value(.x, at: t) { s.placement.x = x }
        if let y = keyframes.value(.y, at: t) { s.placement.y = y }
        if let r = keyframes.value(.rotation, at: t) { s.rotation = r }
        if let k = keyframes.value(.opacity, at: t) { o *= min(max(k, 0), 1) }
        if let scale = keyframes.value(.scale, at: t) {
            // Quantised so that a slow zoom does not re-render for invisible changes.
            let q = (min(max(scale, 0), 10) * 1000).rounded() / 1000
            s.textSize *= q
            s.imageWidth *= q
        }
        return (s, min(max(o, 0), 1))
    }
}
