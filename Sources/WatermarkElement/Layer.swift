// One watermark layer as plain values, and the `config` file that lists layers.
import CShim
import Glibc

/// Everything one layer draws and when: a logo and/or text block, its style, time window,
/// fades, keyframes and rotation. The element's own properties describe one such layer;
/// a config file describes any number.
public struct LayerSpec: Sendable, Equatable {
    public var imagePath: String?
    /// The layer shows this file's contents (followed when it changes); overrides `text`.
    public var textFile: String?
    public var style: OverlayStyle
    /// `style.text` parsed for placeholders.
    public var template: TextTemplate
    public var opacity: Double
    public var timing: LayerTiming
    public var keyframes: KeyframeTrack

    public init() {
        style = OverlayStyle()
        style.fontDesc = GST_WATERMARK_DEFAULT_FONT_DESC
        style.textSize = GST_WATERMARK_DEFAULT_TEXT_SIZE
        style.color = ARGBColor(argb: GST_WATERMARK_DEFAULT_COLOR)
        style.outlineColor = ARGBColor(argb: GST_WATERMARK_DEFAULT_OUTLINE_COLOR)
        style.outlineWidth = GST_WATERMARK_DEFAULT_OUTLINE_WIDTH
        style.imageWidth = GST_WATERMARK_DEFAULT_WIDTH
        style.placement = Placement(anchor: .bottomRight, marginX: GST_WATERMARK_DEFAULT_MARGIN,
                                    marginY: GST_WATERMARK_DEFAULT_MARGIN,
                                    x: GST_WATERMARK_UNSET_POSITION, y: GST_WATERMARK_UNSET_POSITION)
        template = TextTemplate("")
        opacity = GST_WATERMARK_DEFAULT_OPACITY
        timing = LayerTiming()
        keyframes = KeyframeTrack()
    }

    public var text: String {
        get { style.text }
        set {
            style.text = newValue
            template = TextTemplate(newValue)
        }
    }

    /// Whether the block moves without changing its pixels (x/y keyframes): it is then
    /// rendered once and blended at a new offset per frame.
    public var moves: Bool { keyframes.animates(.x) || keyframes.animates(.y) }

    /// How the layer looks at stream time `t`: keyframed values applied on top of the
    /// layer's own, and the opacity including time window and fades (0 = not drawn).
    public func state(at t: Double?) -> (style: OverlayStyle, opacity: Double) {
        var s = style
        var o = opacity * timing.factor(at: t)
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

/// What is wrong with a config file, and where: `file:line:column: layer N: "field": what`.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var layer: Int?
    public var field: String?
    public var message: String

    public var description: String {
        // Line 0: the file as a whole (cannot be read), no position.
        var d = line > 0 ? "\(file):\(line):\(column): " : "\(file): "
        if let layer { d += "layer \(layer): " }
        if let field { d += "\"\(field)\": " }
        return d + message
    }
}

/// The config file: `{ "layers": [ {…}, … ] }`, each layer with the element's property
/// names. See docs/config.schema.json.
public enum LayerConfig {
    public static let maxFileBytes = 1 << 20
    public static let maxLayers = 64
    public static let maxKeyframes = 4096

    static let layerFields: Set<String> = [
        "image", "text", "text-file", "font-desc", "text-size", "color", "outline-color", "outline-width",
        "shadow", "anchor", "margin-x", "margin-y", "x", "y", "width", "opacity", "rotation",
        "start", "end", "fade-in", "fade-out", "keyframes",
    ]

    /// Reads and validates a config file. Relative image and text-file paths are relative
    /// to the file's directory.
    public static func load(path: String) throws(ConfigError) -> [LayerSpec] {
        let bytes: [UInt8]
        switch readFile(path, limit: maxFileBytes) {
        case .success(let b): bytes = b
        case .failure(let e): throw ConfigError(file: path, line: 0, column: 0, message: e.reason)
        }
        let dir = path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
        return try parse(bytes, file: path, directory: dir.isEmpty ? "/" : dir)
    }

    public static func parse(_ bytes: [UInt8], file: String, directory: String) throws(ConfigError) -> [LayerSpec] {
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, message: error.message)
        }
        func fail(_ node: JSONNode, _ layer: Int?, _ field: String?, _ message: String) -> ConfigError {
            ConfigError(file: file, line: node.line, column: node.column, layer: layer, field: field, message: message)
        }
        guard case .object(let top) = root.value else { throw fail(root, nil, nil, "expected an object with \"layers\", found \(root.typeName)") }
        var layersNode: JSONNode?
        for (key, value) in top {
            guard key == "layers" else { throw fail(value, nil, key, "unknown field (expected \"layers\")") }
            layersNode = value
        }
        guard let layersNode else { throw fail(root, nil, nil, "missing \"layers\"") }
        guard case .array(let items) = layersNode.value else { throw fail(layersNode, nil, "layers", "expected an array, found \(layersNode.typeName)") }
        guard items.count <= maxLayers else { throw fail(layersNode, nil, "layers", "\(items.count) layers; at most \(maxLayers)") }
        var layers: [LayerSpec] = []
        for (index, item) in items.enumerated() {
            layers.append(try parseLayer(item, index: index, directory: directory, fail: fail))
        }
        return layers
    }

    static func parseLayer(_ node: JSONNode, index: Int, directory: String,
                           fail: (JSONNode, Int?, String?, String) -> ConfigError) throws(ConfigError) -> LayerSpec {
        guard case .object(let members) = node.value else { throw fail(node, index, nil, "expected an object, found \(node.typeName)") }
        var layer = LayerSpec()
        func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : directory + "/" + p }
        for (key, value) in members {
            func bad(_ message: String) -> ConfigError { fail(value, index, key, message) }
            func number(_ range: ClosedRange<Double>) throws(ConfigError) -> Double {
                guard case .number(let v) = value.value else { throw bad("expected a number, found \(value.typeName)") }
                guard range.contains(v) else { throw bad("\(format(v)) is out of range \(format(range.lowerBound))…\(format(range.upperBound))") }
                return v
            }
            func string(allowEmpty: Bool = false) throws(ConfigError) -> String {
                guard case .string(let s) = value.value else { throw bad("expected a string, found \(value.typeName)") }
                guard allowEmpty || !s.isEmpty else { throw bad("must not be empty") }
                return s
            }
            func color() throws(ConfigError) -> ARGBColor {
                let s = try string()
                guard let c = ARGBColor(parsing: s) else { throw bad("\"\(s)\" is not a colour (#RRGGBB, #RRGGBBAA, 0xAARRGGBB or a name)") }
                return c
            }
            switch key {
            case "image": layer.imagePath = resolve(try string())
            case "text": layer.text = try string(allowEmpty: true)
            case "text-file": layer.textFile = resolve(try string())
            case "font-desc": layer.style.fontDesc = try string()
            case "text-size": layer.style.textSize = try number(0.001...1)
            case "color": layer.style.color = try color()
            case "outline-color": layer.style.outlineColor = try color()
            case "outline-width": layer.style.outlineWidth = try number(0...1)
            case "shadow":
                guard case .bool(let b) = value.value else { throw bad("expected true or false, found \(value.typeName)") }
                layer.style.shadow = b
            case "anchor":
                let s = try string()
                guard let a = Anchor(name: s) else {
                    throw bad("unknown anchor \"\(s)\" (one of \(Anchor.allCases.map(\.name).joined(separator: ", ")))")
                }
                layer.style.placement.anchor = a
            case "margin-x": layer.style.placement.marginX = try number(0...1)
            case "margin-y": layer.style.placement.marginY = try number(0...1)
            case "x": layer.style.placement.x = try number(0...1)
            case "y": layer.style.placement.y = try number(0...1)
            case "width": layer.style.imageWidth = try number(0...1)
            case "opacity": layer.opacity = try number(0...1)
            case "rotation": layer.style.rotation = try number(-3600...3600)
            case "start": layer.timing.start = try number(0...1e9)
            case "end": layer.timing.end = try number(0...1e9)
            case "fade-in": layer.timing.fadeIn = try number(0...1e9)
            case "fade-out": layer.timing.fadeOut = try number(0...1e9)
            case "keyframes": layer.keyframes = try parseKeyframes(value, index: index, fail: fail)
            default:
                throw bad("unknown field (one of \(layerFields.sorted().joined(separator: ", ")))")
            }
        }
        if layer.imagePath == nil && layer.style.text.isEmpty && layer.textFile == nil {
            throw fail(node, index, nil, "needs \"image\", \"text\" or \"text-file\"")
        }
        if layer.timing.end >= 0, layer.timing.end <= layer.timing.start,
           let endNode = members.first(where: { $0.key == "end" })?.value {
            throw fail(endNode, index, "end", "\(format(layer.timing.end)) is not after start (\(format(layer.timing.start)))")
        }
        return layer
    }

    static func parseKeyframes(_ node: JSONNode, index: Int,
                               fail: (JSONNode, Int?, String?, String) -> ConfigError) throws(ConfigError) -> KeyframeTrack {
        guard case .array(let items) = node.value else { throw fail(node, index, "keyframes", "expected an array, found \(node.typeName)") }
        guard items.count <= maxKeyframes else { throw fail(node, index, "keyframes", "\(items.count) keyframes; at most \(maxKeyframes)") }
        var frames: [Keyframe] = []
        for (k, item) in items.enumerated() {
            guard case .object(let members) = item.value else {
                throw fail(item, index, "keyframes[\(k)]", "expected an object, found \(item.typeName)")
            }
            var time: Double?
            var values: [AnimatedProperty: Double] = [:]
            var easing = Easing.linear
            for (key, value) in members {
                let field = "keyframes[\(k)].\(key)"
                func bad(_ m: String) -> ConfigError { fail(value, index, field, m) }
                if key == "easing" {
                    guard case .string(let s) = value.value else { throw bad("expected a string, found \(value.typeName)") }
                    guard let e = Easing(name: s) else {
                        throw bad("unknown easing \"\(s)\" (linear, ease-in, ease-out, ease-in-out, step, cubic-bezier(x1,y1,x2,y2) with x1, x2 in 0…1)")
                    }
                    easing = e
                    continue
                }
                guard case .number(let v) = value.value else {
                    if key == "time" || AnimatedProperty(rawValue: key) != nil { throw bad("expected a number, found \(value.typeName)") }
                    throw bad("unknown field (time, x, y, opacity, scale, rotation, easing)")
                }
                switch key {
                case "time":
                    guard v >= 0 && v <= 1e9 else { throw bad("\(format(v)) is out of range 0…1000000000") }
                    time = v
                case "x", "y", "opacity":
                    guard (0...1).contains(v) else { throw bad("\(format(v)) is out of range 0…1") }
                    values[AnimatedProperty(rawValue: key) ?? .x] = v
                case "scale":
                    guard (0...10).contains(v) else { throw bad("\(format(v)) is out of range 0…10") }
                    values[.scale] = v
                case "rotation":
                    guard (-3600...3600).contains(v) else { throw bad("\(format(v)) is out of range -3600…3600") }
                    values[.rotation] = v
                default:
                    throw bad("unknown field (time, x, y, opacity, scale, rotation, easing)")
                }
            }
            guard let time else { throw fail(item, index, "keyframes[\(k)]", "missing \"time\"") }
            frames.append(Keyframe(time: time, values: values, easing: easing))
        }
        return KeyframeTrack(frames)
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

public struct FileReadError: Error, Sendable {
    public var reason: String
}

/// Reads a whole regular file of at most `limit` bytes.
public func readFile(_ path: String, limit: Int) -> Result<[UInt8], FileReadError> {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return .failure(FileReadError(reason: String(cString: strerror(errno)))) }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0 else { return .failure(FileReadError(reason: String(cString: strerror(errno)))) }
    guard (st.st_mode & S_IFMT) == S_IFREG else { return .failure(FileReadError(reason: "not a regular file")) }
    guard Int(st.st_size) <= limit else { return .failure(FileReadError(reason: "larger than \(limit) bytes")) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while out.count <= limit {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            return .failure(FileReadError(reason: String(cString: strerror(errno))))
        }
        if n == 0 { return .success(out) }
        out.append(contentsOf: chunk[0..<n])
    }
    return .failure(FileReadError(reason: "larger than \(limit) bytes"))
}
