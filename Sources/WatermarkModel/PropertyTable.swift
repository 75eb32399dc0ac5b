// The property table's entries: every property the element has, with its default, range,
// unit and blurb (the types they are written in: Properties.swift). Adding a property is
// one entry here and one line in `all`, then `swift run wm-gen`.

/// The table.
package enum WatermarkProperties {
    package static let maxSeconds = 1e9

    package static let anchorChoice = PropertyChoice(
        typeName: "GstWatermarkAnchor", swiftType: "Anchor",
        values: [
            ("top-left", "Top left corner"), ("top", "Top edge, centred"), ("top-right", "Top right corner"),
            ("left", "Left edge, centred"), ("center", "Centre"), ("right", "Right edge, centred"),
            ("bottom-left", "Bottom left corner"), ("bottom", "Bottom edge, centred"),
            ("bottom-right", "Bottom right corner"),
        ])

    package static let textAlignChoice = PropertyChoice(
        typeName: "GstWatermarkTextAlign", swiftType: "TextAlign",
        values: [
            ("auto", "The anchor's side"), ("left", "Left"), ("center", "Centred"), ("right", "Right"),
        ])

    package static let motionChoice = PropertyChoice(
        typeName: "GstWatermarkMotion", swiftType: "MotionKind",
        values: [
            ("none", "Stays where it is placed"),
            ("bounce", "Bounces around the frame inside the margins"),
            ("jump", "Jumps to a new place inside the margins every motion-interval seconds"),
            ("ticker", "Scrolls right to left across the frame at its row, copy after copy"),
        ])

    package static let overlayModeChoice = PropertyChoice(
        typeName: "GstWatermarkOverlayMode", swiftType: "OverlayMode",
        values: [
            ("auto", "Attach GstVideoOverlayCompositionMeta when downstream accepts it, else blend"),
            ("blend", "Always blend into the frame's pixels"),
        ])

    package static let maskFillChoice = PropertyChoice(
        typeName: "GstWatermarkMaskFill", swiftType: "MaskFill",
        values: [
            ("solid", "The mask colour, opaque"),
            ("pixelate", "Square cells of mask-cell, each the mean of the source inside the region"),
            ("blur", "A Gaussian blur of radius mask-radius"),
        ])

    package static let roiFillChoice = PropertyChoice(
        typeName: "GstWatermarkRoiFill", swiftType: "RoiFill",
        values: [
            ("none", "Nothing: the picture inside stays"),
            ("solid", "The mask colour, opaque"),
            ("pixelate", "Square cells of mask-cell, each the mean of the source inside the rectangle"),
            ("blur", "A Gaussian blur of radius mask-radius"),
        ])

    package static let image = Property<String?>(
        "image", "Image", default: nil, .path(\.imagePath),
        "Path of a PNG, JPEG, SVG, GIF or WebP logo (animated GIF, WebP and PNG play with their own "
            + "delays and loop count from the layer's start); decoded once when set or at start "
            + "(SVG is rendered at the exact target size). Empty or NULL = no image")
    package static let text = Property<String?>(
        "text", "Text", default: nil, .text(\.text), allowsEmpty: true,
        "UTF-8 text drawn with Pango (shaping and per-glyph font fallback). Live "
            + "placeholders: {pts} {stream-time} {running-time} {timecode} {frame} "
            + "{clock:STRFTIME} {camera-clock:STRFTIME} {var:NAME} {var:NAME:FORMAT} {data:FIELD} {data:FIELD:FORMAT} ({{ and }} for braces). Empty or NULL = no text"
    )
    package static let fontDesc = Property<String?>(
        "font-desc", "Font description", default: "Sans Bold", .orDefault(\.style.fontDesc),
        "Pango font description such as \"Sans Bold\" or \"Serif Italic\"; any size "
            + "in it is ignored (see text-size)")
    package static let textSize = Property<Double>(
        "text-size", "Text size", 0.001...1, default: 0.05, unit: "fraction of the frame height", controllable: true,
        .layer(\.style.textSize), "Height of one text line as a fraction of the frame height")
    package static let color = Property<ARGBColor>(
        "color", "Text colour", default: .white, .layer(\.style.color),
        "Text fill colour as 0xAARRGGBB (alpha in the top byte)")
    package static let outlineColor = Property<ARGBColor>(
        "outline-color", "Outline colour", default: .black, .layer(\.style.outlineColor),
        "Text outline colour as 0xAARRGGBB (alpha in the top byte)")
    package static let outlineWidth = Property<Double>(
        "outline-width", "Outline width", 0...1, default: 0.08, unit: "fraction of text-size",
        .layer(\.style.outlineWidth), "Text outline thickness as a fraction of the text size; 0 = no outline")
    package static let shadow = Property<Bool>(
        "shadow", "Shadow", default: false, .layer(\.style.shadow),
        "Draw a soft drop shadow under the text and the image")
    package static let anchor = Property<Anchor>(
        "anchor", "Anchor", anchorChoice, default: .bottomRight, .layer(\.style.placement.anchor),
        "Corner, edge or centre of the frame the overlay is placed at (and the point of "
            + "the overlay that x/y position when they are set)")
    package static let marginX = Property<Double>(
        "margin-x", "Horizontal margin", 0...1, default: 0.03, unit: "fraction of the frame width",
        controllable: true, .layer(\.style.placement.marginX),
        "Distance from the left/right edge named by the anchor, as a fraction of the "
            + "frame width (ignored by anchors centred horizontally)")
    package static let marginY = Property<Double>(
        "margin-y", "Vertical margin", 0...1, default: 0.03, unit: "fraction of the frame height",
        controllable: true, .layer(\.style.placement.marginY),
        "Distance from the top/bottom edge named by the anchor, as a fraction of the "
            + "frame height (ignored by anchors centred vertically)")
    package static let x = Property<Double>(
        "x", "X position", -1...1, default: -1, unit: "fraction of the frame width", controllable: true,
        explicitRange: 0...1, .layer(\.style.placement.x),
        "Horizontal position of the overlay's anchor point as a fraction of the frame "
            + "width (0..1); -1 = unset, place by anchor and margin-x")
    package static let y = Property<Double>(
        "y", "Y position", -1...1, default: -1, unit: "fraction of the frame height", controllable: true,
        explicitRange: 0...1, .layer(\.style.placement.y),
        "Vertical position of the overlay's anchor point as a fraction of the frame "
            + "height (0..1); -1 = unset, place by anchor and margin-y")
    package static let width = Property<Double>(
        "width", "Image width", 0...1, default: 0.12, unit: "fraction of the frame width", controllable: true,
        .layer(\.style.imageWidth),
        "Image width as a fraction of the frame width (height keeps the aspect "
            + "ratio); 0 = the image's own pixel size")
    package static let opacity = Property<Double>(
        "opacity", "Opacity", 0...1, default: 1, controllable: true, .layer(\.opacity),
        "Multiplies the overlay's own alpha: 0 = invisible, 1 = as drawn")
    package static let overlayMode = Property<OverlayMode>(
        "overlay-mode", "Overlay mode", overlayModeChoice, default: .auto, .element(.overlayMode),
        "auto: attach a GstVideoOverlayCompositionMeta when downstream accepts "
            + "it (GL, VA, Vulkan sinks) and leave the pixels alone, else blend; "
            + "blend: always blend into the pixels")
    package static let start = Property<Double>(
        "start", "Start", 0...maxSeconds, default: 0, unit: "seconds", .layer(\.timing.start),
        "Stream time in seconds at which the overlay appears; 0 = from the start")
    package static let end = Property<Double>(
        "end", "End", -1...maxSeconds, default: -1, unit: "seconds", explicitRange: 0...maxSeconds,
        .layer(\.timing.end), adjust: { $0 < 0 ? -1 : $0 },
        "Stream time in seconds at which the overlay disappears; -1 = never")
    package static let fadeIn = Property<Double>(
        "fade-in", "Fade in", 0...maxSeconds, default: 0, unit: "seconds", .layer(\.timing.fadeIn),
        "Seconds over which the overlay fades in after start; 0 = appears at once")
    package static let fadeOut = Property<Double>(
        "fade-out", "Fade out", 0...maxSeconds, default: 0, unit: "seconds", .layer(\.timing.fadeOut),
        "Seconds over which the overlay fades out before end; 0 = disappears at once")
    package static let config = Property<String?>(
        "config", "Config file", default: nil, .element(.config),
        "Path to a JSON file listing any number of layers (text, image, timing, "
            + "keyframes, rotation), drawn in order under the single layer the other "
            + "properties describe. Setting it again while playing reloads the file "
            + "atomically; a bad file then keeps the old layers and posts a warning")
    package static let configData = Property<String?>(
        "config-data", "Config data", default: nil, .element(.configData),
        "The same JSON document as a config file, given as text instead of a path (for "
            + "applications and remote control); used instead of config when set. Relative "
            + "paths in it are relative to the current directory. Setting it while playing "
            + "swaps all layers at once on one frame; a bad document keeps the old layers "
            + "and posts a warning")
    package static let textFile = Property<String?>(
        "text-file", "Text file", default: nil, .path(\.textFile),
        "Path to a UTF-8 text file whose contents are shown instead of text; the "
            + "file is watched and the text follows it (whole-file updates only)")
    package static let rotation = Property<Double>(
        "rotation", "Rotation", -3600...3600, default: 0, unit: "degrees", controllable: true,
        .layer(\.style.rotation), "Clockwise rotation of the logo/text block about its centre, in degrees")
    package static let backgroundColor = Property<ARGBColor>(
        "background-color", "Background colour", default: ARGBColor(argb: 0), .layer(\.style.caption.background),
        "Colour of a box behind the text lines as 0xAARRGGBB (0x80000000: half-transparent black); "
            + "alpha 0 = no box")
    package static let backgroundPadding = Property<Double>(
        "background-padding", "Background padding", 0...2, default: 0.25, unit: "fraction of text-size",
        .layer(\.style.caption.padding),
        "Space between the text and the edge of its box, as a fraction of text-size")
    package static let backgroundRadius = Property<Double>(
        "background-radius", "Background radius", 0...2, default: 0, unit: "fraction of text-size",
        .layer(\.style.caption.radius), "Corner radius of the box as a fraction of text-size; 0 = square corners")
    package static let backgroundFullWidth = Property<Bool>(
        "background-full-width", "Full-width background", default: false, .layer(\.style.caption.fullWidth),
        "The box spans the frame's whole width (a lower-third band); the text sits in it by anchor, "
            + "text-align and margin-x")
    package static let textAlign = Property<TextAlign>(
        "text-align", "Text alignment", textAlignChoice, default: .auto, .layer(\.style.caption.align),
        "Alignment of the lines of multi-line or wrapped text; auto = the anchor's side")
    package static let wrapWidth = Property<Double>(
        "wrap-width", "Wrap width", 0...1, default: 0, unit: "fraction of the frame width",
        .layer(\.style.caption.wrapWidth),
        "Wrap text at word boundaries (per character for CJK) to this fraction of the frame width; "
            + "0 = no wrapping")
    package static let lineSpacing = Property<Double>(
        "line-spacing", "Line spacing", -0.5...5, default: 0, unit: "fraction of text-size",
        .layer(\.style.caption.lineSpacing), "Extra space between lines as a fraction of text-size")
    package static let letterSpacing = Property<Double>(
        "letter-spacing", "Letter spacing", -0.5...2, default: 0, unit: "fraction of text-size",
        .layer(\.style.caption.letterSpacing), "Extra space between letters as a fraction of text-size")
    package static let fontFeatures = Property<String?>(
        "font-features", "Font features", default: nil, .optional(\.style.caption.fontFeatures), allowsEmpty: true,
        "OpenType features, comma-separated as in CSS font-feature-settings (\"tnum\", \"smcp, onum\"); "
            + "NULL = tnum for text with live placeholders (steady digits), none otherwise; empty = none")
    package static let motion = Property<MotionKind>(
        "motion", "Motion", motionChoice, default: .none, .layer(\.motion.kind),
        "How the layer moves on its own: none; bounce (from its place, at 45° towards the centre, off "
            + "the margins); jump (to a new place every motion-interval seconds, from motion-seed); "
            + "ticker (scrolls right to left at its row, the next copy a tenth of the frame width behind)")
    package static let motionSpeed = Property<Double>(
        "motion-speed", "Motion speed", 0...10, default: 0.1,
        unit: "frame diagonals (bounce) or widths (ticker) per second", .layer(\.motion.speed),
        "Bounce speed in frame diagonals per second; ticker speed in frame widths per second")
    package static let motionInterval = Property<Double>(
        "motion-interval", "Motion interval", 0.1...3600, default: 3, unit: "seconds", .layer(\.motion.interval),
        "Seconds between jumps; with fade-in/fade-out the layer fades in after each jump and out before the next")
    package static let motionSeed = Property<UInt32>(
        "motion-seed", "Motion seed", 0...UInt32.max, default: 0, .layer(\.motion.seed),
        "Chooses the sequence of jump places: the same seed gives the same places in every export")
    package static let hdrReferenceWhite = Property<Double>(
        "hdr-reference-white", "HDR reference white", 1...10000, default: 203, unit: "cd/m²",
        .layer(\.style.hdrReferenceWhite),
        "Luminance in cd/m² that the overlay's white is shown at in PQ and HLG streams (ITU-R BT.2408 "
            + "graphics white: 203); SDR streams ignore it")
    package static let followOrientation = Property<Bool>(
        "follow-orientation", "Follow orientation", default: true, .element(.followOrientation),
        "Honour the stream's image-orientation tag: place and turn every layer so "
            + "that it is upright at its anchor in the picture a player displays")
    package static let renderCount = Property<UInt64>(
        "render-count", "Render count", .renderCount,
        "Number of times a layer has been rendered (text shaped, image scaled) since "
            + "start; static layers render once per caps change (diagnostics)")
    package static let renderAhead = Property<Bool>(
        "render-ahead", "Render ahead", default: true, .element(.renderAhead),
        "Render layers that change with time (placeholders, animated style) one "
            + "frame ahead on a worker thread, off the streaming thread (with a source "
            + "that is not live, only layers that change now and then)")

    package static let variables = Property<String?>(
        "variables", "Variables", default: nil, .element(.variables), isStructure: true,
        "Values for {var:NAME} placeholders, a GstStructure (gst-launch: \"v, home=(int)2, speaker=\\\"Ana\\\"\"); "
            + "setting it replaces them all, shown together from the next frame. NULL = none")

    package static let dataFile = Property<String?>(
        "data-file", "Data file", default: nil, .element(.dataFile),
        "CSV (with a header row) or JSON Lines file of timed values that {data:FIELD} shows and "
            + "data: bindings follow: each row has a time (seconds from the stream's start, or "
            + "ISO 8601 aligned to the stream's creation time); numbers are interpolated to each "
            + "frame's stream time. Read whole at start; used instead of a config's \"data\". NULL = none")
    package static let dataOffset = Property<Double>(
        "data-offset", "Data offset", -1e9...1e9, default: 0, unit: "seconds", .element(.dataOffset),
        "Seconds added to the data file's times: a row at 2 s shows at 2 s + data-offset of stream time")
    package static let dataTimeColumn = Property<String?>(
        "data-time-column", "Data time column", default: nil, .element(.dataTimeColumn),
        "The data file's column (or JSON Lines field) that holds each row's time; NULL = the first "
            + "named time, t, timestamp, seconds or elapsed")
    package static let dataStep = Property<String?>(
        "data-step", "Data step fields", default: nil, .element(.dataStep),
        "Comma-separated data fields held from one row to the next instead of interpolated "
            + "(a gear, a lap number); NULL = every number is interpolated")

    package static let mask = Property<String?>(
        "mask", "Privacy mask", default: nil, .element(.mask),
        "Regions hidden in every frame, separated by ';': a rectangle x,y,w,h or a polygon "
            + "x1,y1 x2,y2 x3,y3 …, in fractions of the picture as displayed (a pixel is inside when its "
            + "centre is; what reaches past the frame is clipped). Drawn under every layer; opacity and "
            + "fades do not apply. A malformed text is an error at start (while playing: a warning, the "
            + "previous masks stay). NULL = none")
    package static let maskFill = Property<MaskFill>(
        "mask-fill", "Mask fill", maskFillChoice, default: .solid, .element(.maskFill),
        "How the mask hides the regions: solid (mask-color), pixelate (cells of mask-cell) or blur "
            + "(mask-radius); in 4:2:0 and 4:2:2 every chroma sample touching a region is hidden too")
    package static let maskColor = Property<ARGBColor>(
        "mask-color", "Mask colour", default: .black, .element(.maskColor),
        "Colour of a solid mask as 0xAARRGGBB, converted with the stream's matrix and range; its alpha "
            + "is ignored (a mask is opaque)")
    package static let maskCell = Property<Double>(
        "mask-cell", "Mask cell", 0.001...1, default: 0.025, unit: "fraction of the frame width",
        .element(.maskCell),
        "Side of a pixelated mask's square cells, on a grid from the frame's top-left corner (a moving "
            + "region does not shimmer)")
    package static let maskRadius = Property<Double>(
        "mask-radius", "Mask blur radius", 0.001...0.25, default: 0.02, unit: "fraction of the frame width",
        .element(.maskRadius), "σ of a blurred mask's Gaussian")

    package static let roiTypes = Property<String?>(
        "roi-types", "ROI types", default: nil, .element(.roiTypes),
        "Comma-separated types of the regions of interest (GstVideoRegionOfInterestMeta roi_type) that "
            + "roi-fill, roi-box-color and roi-label draw; NULL = every type")
    package static let roiFill = Property<RoiFill>(
        "roi-fill", "ROI fill", roiFillChoice, default: RoiFill.none, .element(.roiFill),
        "How each region of interest of a frame is hidden: none, solid (mask-color), pixelate (cells of "
            + "mask-cell) or blur (mask-radius), over its rectangle grown by roi-grow")
    package static let roiBoxColor = Property<ARGBColor>(
        "roi-box-color", "ROI box colour", default: ARGBColor(argb: 0), .element(.roiBoxColor),
        "Colour of the outline drawn outside each region of interest's rectangle as 0xAARRGGBB; alpha 0 = no box")
    package static let roiBoxWidth = Property<Double>(
        "roi-box-width", "ROI box width", 0...0.25, default: 0.004, unit: "fraction of the frame height",
        .element(.roiBoxWidth), "Thickness of the outline around each region of interest; 0 = no box")
    package static let roiLabel = Property<String?>(
        "roi-label", "ROI label", default: nil, .element(.roiLabel),
        "Text drawn above each region of interest's box, in the style of the text properties, with "
            + "{roi:type} {roi:id} {roi:confidence} {roi:confidence:FORMAT} (0…100); NULL = no label")
    package static let roiMinConfidence = Property<Double>(
        "roi-min-confidence", "ROI minimum confidence", 0...1, default: 0, unit: "0…1",
        .element(.roiMinConfidence),
        "Regions of interest whose confidence (a param structure's confidence field) is below this are "
            + "not drawn; those without one always are")
    package static let roiGrow = Property<Double>(
        "roi-grow", "ROI grow", 0...10, default: 0, unit: "fraction of the region's size",
        .element(.roiGrow), "Each region of interest's rectangle grown by this fraction of its size on every side")

    package static let forensicId = Property<String?>(
        "forensic-id", "Forensic mark id", default: nil, .element(.forensicId),
        "The 64-bit id an invisible mark carries in the luma of every frame, as 16 hexadecimal digits "
            + "(0x allowed, any case), read back by `gst-watermark detect` after re-encoding, scaling and "
            + "cropping; needs forensic-key. Anything else is an error at start. NULL = no mark")
    package static let forensicKey = Property<String?>(
        "forensic-key", "Forensic mark key", default: nil, .element(.forensicKey),
        "The secret text that places the forensic mark: without it the mark cannot be read or forged, "
            + "with another key it is not found. Reads back as NULL")
    package static let forensicStrength = Property<Double>(
        "forensic-strength", "Forensic mark strength", 0.25...8, default: 1, unit: "× the default",
        .element(.forensicStrength),
        "Multiplies the forensic mark's amplitude: 1 keeps PSNR-Y above 42 dB; more survives harsher "
            + "re-encoding and shows sooner")

    package static let subtitleFile = Property<String?>(
        "subtitle-file", "Subtitle file", default: nil, .elementPath(.subtitleFile),
        "An SRT, WebVTT or ASS/SSA file (recognised by its content) burned in with libass over the layers: "
            + "ASS keeps its own styles, SRT and WebVTT take the text properties' font, size, colours, outline "
            + "and background, bottom centre. Cues follow the stream time. A file that does not read is an error "
            + "at start naming its line. NULL = none")
    package static let subtitleOffset = Property<Double>(
        "subtitle-offset", "Subtitle offset", -86400...86400, default: 0, unit: "seconds",
        .element(.subtitleOffset), "Added to every cue's times: +1 shows a cue written for 0:01 at 0:02")

    /// Every property in installation order; a property's GObject id is its index + 1.
    package static let all: [PropertyDefinition] = [
        image.definition, text.definition, fontDesc.definition, textSize.definition, color.definition,
        outlineColor.definition, outlineWidth.definition, shadow.definition, anchor.definition, marginX.definition,
        marginY.definition, x.definition, y.definition, width.definition, opacity.definition, overlayMode.definition,
        start.definition, end.definition, fadeIn.definition, fadeOut.definition, config.definition,
        configData.definition, textFile.definition, rotation.definition, backgroundColor.definition,
        backgroundPadding.definition, backgroundRadius.definition, backgroundFullWidth.definition,
        textAlign.definition, wrapWidth.definition, lineSpacing.definition, letterSpacing.definition,
        fontFeatures.definition, motion.definition, motionSpeed.definition, motionInterval.definition,
        motionSeed.definition, hdrReferenceWhite.definition, followOrientation.definition, renderCount.definition,
        renderAhead.definition, variables.definition, dataFile.definition, dataOffset.definition,
        dataTimeColumn.definition, dataStep.definition, mask.definition, maskFill.definition, maskColor.definition,
        maskCell.definition, maskRadius.definition, roiTypes.definition, roiFill.definition, roiBoxColor.definition,
        roiBoxWidth.definition, roiLabel.definition, roiMinConfidence.definition, roiGrow.definition,
        forensicId.definition, forensicKey.definition, forensicStrength.definition, subtitleFile.definition,
        subtitleOffset.definition,
    ]

    /// The properties that describe a layer (config fields and CLI options).
    package static let layer = all.filter { $0.scope == .layer }

    /// The element properties that are overlay options of the command line and fields of the
    /// Swift API's `WatermarkLayer` too: the masks.
    package static let elementOptions: [PropertyDefinition] = [
        mask.definition, maskFill.definition, maskColor.definition, maskCell.definition, maskRadius.definition,
        roiTypes.definition, roiFill.definition, roiBoxColor.definition, roiBoxWidth.definition, roiLabel.definition,
        roiMinConfidence.definition, roiGrow.definition, forensicId.definition, forensicKey.definition,
        forensicStrength.definition, subtitleFile.definition, subtitleOffset.definition,
    ]

    /// Every overlay option of the command line, in the table's order.
    package static let commandLine = all.filter { p in
        p.scope == .layer || elementOptions.contains { $0.name == p.name }
    }

    /// Options (and batch manifest columns) named otherwise than their property.
    static let optionNames = [subtitleFile.definition.name: "subtitles"]

    private static let byName: [String: Int] = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.name, $0) })

    /// The property a user names (a config field, an option, a control request).
    package static func named(_ name: String) -> PropertyDefinition? { byName[name].map { all[$0] } }
}

extension PropertyDefinition {
    /// The command line's option (and the batch manifest's column) that sets this property.
    package var optionName: String { WatermarkProperties.optionNames[name] ?? name }
}

extension LayerSpec {
    /// Sets layer property `property` through its key path, with the value made safe
    /// (`PropertyDefinition.safe`). Element properties and values of another type are
    /// ignored.
    package mutating func set(_ property: PropertyDefinition, _ value: PropertyValue) {
        guard let field = property.field, let v = property.safe(value) else { return }
        field.set(&self, v)
    }

    /// The layer property's current value (nil for an element property).
    package func value(of property: PropertyDefinition) -> PropertyValue? {
        property.field?.get(self)
    }
}
