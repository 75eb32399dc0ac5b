import Glibc
import Watermark
import WatermarkModel

/// The overlay options every command shares; they map one-to-one to the element's
/// properties and use the same names.
enum OverlayOptions {
    static let doubles: [(String, String)] = [
        ("text-size", "Height of one text line as a fraction of the frame height (default 0.05)"),
        ("outline-width", "Text outline as a fraction of the text size; 0 = none (default 0.08)"),
        ("margin-x", "Distance from the anchored left/right edge, fraction of the width (default 0.03)"),
        ("margin-y", "Distance from the anchored top/bottom edge, fraction of the height (default 0.03)"),
        ("x", "Relative x (0..1) of the overlay's anchor point; overrides margin-x"),
        ("y", "Relative y (0..1) of the overlay's anchor point; overrides margin-y"),
        ("width", "Image width as a fraction of the frame width; 0 = natural size (default 0.12)"),
        ("opacity", "Overlay opacity 0..1 (default 1)"),
        ("start", "Show the overlay from this second of the stream (default 0)"),
        ("end", "Hide the overlay from this second of the stream (default: never)"),
        ("fade-in", "Fade in over this many seconds after --start"),
        ("fade-out", "Fade out over this many seconds before --end"),
        ("rotation", "Rotate the logo/text block clockwise by this many degrees"),
    ]

    static func add(to p: OptionParser) {
        p.add("image", "i", .string, "PNG, JPEG or SVG logo", arg: "FILE")
        p.add("text", "t", .string, "Text to draw (UTF-8; placeholders {clock:%H:%M:%S}, {frame}, {timecode}, …)", arg: "TEXT")
        p.add("text-file", nil, .string, "Show this UTF-8 file's contents, following changes to it", arg: "FILE")
        p.add("config", "c", .string, "JSON file with any number of layers (see the README)", arg: "FILE")
        p.add("font-desc", nil, .string, "Pango font description (default \"Sans Bold\")", arg: "FONT")
        p.add("color", nil, .string, "Text colour: #RRGGBB[AA], 0xAARRGGBB or a name (default white)", arg: "COLOUR")
        p.add("outline-color", nil, .string, "Text outline colour (default black)", arg: "COLOUR")
        p.add("shadow", nil, .flag, "Soft drop shadow under text and image")
        p.add("anchor", "a", .string,
              "top-left, top, top-right, left, center, right, bottom-left, bottom, bottom-right (default)", arg: "ANCHOR")
        for (name, help) in doubles { p.add(name, nil, .double, help, arg: "N") }
    }

    /// The layer the options describe, validated.
    static func layer(from p: OptionParser) throws(UsageError) -> WatermarkLayer {
        var layer = WatermarkLayer(image: p.string("image"), text: p.string("text"), fontDesc: p.string("font-desc"))
        if let image = layer.image, access(image, R_OK) != 0 {
            throw UsageError(message: "--image: \(image): \(String(cString: strerror(errno)))")
        }
        if let file = p.string("text-file") {
            guard access(file, R_OK) == 0 else { throw UsageError(message: "--text-file: \(file): \(String(cString: strerror(errno)))") }
            layer.textFile = file
        }
        if let config = p.string("config") {
            do {
                _ = try LayerConfig.load(path: config)
            } catch {
                throw UsageError(message: "--config: \(error)")
            }
            layer.config = config
        }
        for name in ["color", "outline-color"] {
            guard let value = p.string(name) else { continue }
            guard let c = ARGBColor(parsing: value) else {
                throw UsageError(message: "--\(name): \"\(value)\" is not a colour (use #RRGGBB, #RRGGBBAA, 0xAARRGGBB or a name)")
            }
            if name == "color" { layer.color = c } else { layer.outlineColor = c }
        }
        if p.flag("shadow") { layer.shadow = true }
        if let a = p.string("anchor") {
            guard let anchor = Anchor(name: a) else {
                throw UsageError(message: "--anchor: unknown anchor \"\(a)\" (one of \(Anchor.allCases.map(\.name).joined(separator: ", ")))")
            }
            layer.anchor = anchor
        }
        let ranges: [String: ClosedRange<Double>] = [
            "text-size": 0.001...1, "outline-width": 0...1, "margin-x": 0...1, "margin-y": 0...1,
            "x": -1...1, "y": -1...1, "width": 0...1, "opacity": 0...1,
            "start": 0...1e9, "end": -1...1e9, "fade-in": 0...1e9, "fade-out": 0...1e9, "rotation": -3600...3600,
        ]
        for (name, _) in doubles {
            guard let v = p.double(name) else { continue }
            if let r = ranges[name], !r.contains(v) {
                throw UsageError(message: "--\(name): \(v) is out of range (\(r.lowerBound)..\(r.upperBound))")
            }
            switch name {
            case "text-size": layer.textSize = v
            case "outline-width": layer.outlineWidth = v
            case "margin-x": layer.marginX = v
            case "margin-y": layer.marginY = v
            case "x": layer.x = v
            case "y": layer.y = v
            case "width": layer.width = v
            case "start": layer.start = v
            case "end": layer.end = v
            case "fade-in": layer.fadeIn = v
            case "fade-out": layer.fadeOut = v
            case "rotation": layer.rotation = v
            default: layer.opacity = v
            }
        }
        return layer
    }
}

enum LaunchLine {
    /// Splits a launch description at spaces outside double-quoted values.
    static func words(_ description: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false, escaped = false
        for ch in description {
            if escaped {
                current.append(ch)
                escaped = false
            } else if ch == "\\" {
                current.append(ch)
                escaped = true
            } else if ch == "\"" {
                current.append(ch)
                quoted.toggle()
            } else if ch == " " && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(ch)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// A word as the shell should see it: bare when it is plain, single-quoted otherwise.
    static func shellWord(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            ($0.value < 128 && ($0.properties.isAlphabetic || $0.properties.numericType != nil))
                || "_./:=,-+!%@".unicodeScalars.contains($0)
        }
        return plain ? word : shellQuote(word)
    }

    /// Quotes a whole argument for a POSIX shell.
    static func shellQuote(_ s: String) -> String {
        "'" + s.replacingAll("'", with: "'\\''") + "'"
    }
}
