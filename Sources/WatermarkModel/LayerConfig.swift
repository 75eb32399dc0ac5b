// The `config` file: any number of layers, each with the element's property names.

/// What is wrong with a config file, and where: `file:line:column: layer N: "field": what`.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var layer: Int?
    public var field: String?
    public var message: String

    package init(
        file: String, line: Int, column: Int, layer: Int? = nil, field: String? = nil, message: String
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.layer = layer
        self.field = field
        self.message = message
    }

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
/// A config document: its layers, and the values its texts' `{var:NAME}` show.
package struct ConfigDocument: Sendable, Equatable {
    package var layers: [LayerSpec]
    package var variables: Variables
    /// The document's `"data"`: the file `{data:FIELD}` and `data:` bindings read.
    package var data: DataSpec?

    /// Every data field a layer shows or binds, whether it must be a number, and what uses it.
    package var dataUses: [(field: String, numeric: Bool, usedBy: String)] {
        DataSpec.uses(layers)
    }
}

extension DataSpec {
    /// Every data field `layers` show or bind, whether it must be a number, and what uses it.
    package static func uses(_ layers: [LayerSpec]) -> [(field: String, numeric: Bool, usedBy: String)] {
        var out: [(String, Bool, String)] = []
        for (i, layer) in layers.enumerated() {
            let name = layers.count == 1 ? "the text" : "layer \(i)"
            for f in layer.template.dataFields {
                out.append((f.name, f.numeric, "\(name)'s {data:\(f.name)\(f.numeric ? ":…" : "")}"))
            }
            for b in layer.bindings {
                if case .data(let f) = b.value { out.append((f, true, "\(name)'s \(b.field.rawValue) binding")) }
            }
        }
        return out
    }

    /// The first use of `uses` the data does not meet.
    package static func check(_ data: TimedData, _ uses: [(field: String, numeric: Bool, usedBy: String)])
        -> ConfigError?
    {
        for u in uses {
            if let e = data.table.check(field: u.field, numeric: u.numeric, usedBy: u.usedBy) { return e }
        }
        return nil
    }
}

package enum LayerConfig {
    package static let maxFileBytes = 1 << 20
    package static let maxLayers = 64
    package static let maxKeyframes = 4096

    /// The fields a layer takes: the property table's layer properties and `keyframes`.
    package static var layerFields: [String] {
        (WatermarkProperties.layer.map(\.name) + ["keyframes", "repeat", "alternate", "bind"] + hidingFields).sorted()
    }

    /// Reads and validates a config file. Relative image and text-file paths are relative
    /// to the file's directory.
    package static func load(path: String) throws(ConfigError) -> [LayerSpec] {
        try loadDocument(path: path).layers
    }

    /// A config file's layers and its top-level `"variables"`.
    package static func loadDocument(path: String) throws(ConfigError) -> ConfigDocument {
        let bytes: [UInt8]
        switch readFile(path, limit: maxFileBytes) {
        case .success(let b): bytes = b
        case .failure(let e): throw ConfigError(file: path, line: 0, column: 0, message: e.reason)
        }
        return try parseDocument(bytes, file: path, directory: FilePath.directory(of: path))
    }

    package static func parse(_ bytes: [UInt8], file: String, directory: String) throws(ConfigError) -> [LayerSpec] {
        try parseDocument(bytes, file: file, directory: directory).layers
    }

    /// A document's layers and its `"variables"` (an object of numbers, strings and
    /// booleans: what `{var:NAME}` shows unless the element's `variables` property sets it).
    package static func parseDocument(_ bytes: [UInt8], file: String, directory: String) throws(ConfigError)
        -> ConfigDocument
    {
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, message: error.message)
        }
        func fail(_ node: JSONNode, _ layer: Int?, _ field: String?, _ message: String) -> ConfigError {
            ConfigError(file: file, line: node.line, column: node.column, layer: layer, field: field, message: message)
        }
        guard case .object(let top) = root.value else {
            throw fail(root, nil, nil, "expected an object with \"layers\", found \(root.typeName)")
        }
        var layersNode: JSONNode?
        var variables = Variables()
        var data: DataSpec?
        for (key, value) in top {
            switch key {
            case "layers": layersNode = value
            case "data": data = try parseData(value, directory: directory, fail: fail)
            case "variables":
                switch Variables.changes(fromJSON: value) {
                case .success(let changes): variables = variables.applying(changes)
                case .failure(let e): throw fail(value, nil, key, e.message)
                }
            default: throw fail(value, nil, key, "unknown field (expected \"layers\", \"variables\" or \"data\")")
            }
        }
        guard let layersNode else { throw fail(root, nil, nil, "missing \"layers\"") }
        guard case .array(let items) = layersNode.value else {
            throw fail(layersNode, nil, "layers", "expected an array, found \(layersNode.typeName)")
        }
        guard items.count <= maxLayers else {
            throw fail(layersNode, nil, "layers", "\(items.count) layers; at most \(maxLayers)")
        }
        var layers: [LayerSpec] = []
        for (index, item) in items.enumerated() {
            layers.append(try parseLayer(item, index: index, directory: directory, fail: fail))
        }
        return ConfigDocument(layers: layers, variables: variables, data: data)
    }

    /// `"data": "file.csv"` or `{"file": …, "offset": seconds, "time": column, "step": [fields]}`.
    static func parseData(
        _ node: JSONNode, directory: String, fail: (JSONNode, Int?, String?, String) -> ConfigError
    ) throws(ConfigError) -> DataSpec {
        func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : directory + "/" + p }
        if case .string(let path) = node.value, !path.isEmpty { return DataSpec(file: resolve(path)) }
        guard case .object(let members) = node.value else {
            throw fail(node, nil, "data", "expected a file name or an object with \"file\", found \(node.typeName)")
        }
        var spec = DataSpec(file: "")
        for (key, value) in members {
            let field = "data." + key
            switch (key, value.value) {
            case ("file", .string(let path)) where !path.isEmpty: spec.file = resolve(path)
            case ("offset", .number(let n)) where abs(n) <= 1e9: spec.offset = n
            case ("time", .string(let name)) where !name.isEmpty: spec.timeColumn = name
            case ("step", .array(let items)):
                for item in items {
                    guard case .string(let name) = item.value, !name.isEmpty else {
                        throw fail(item, nil, field, "expected a field name, found \(item.typeName)")
                    }
                    spec.step.insert(name)
                }
            case ("file", _), ("time", _):
                throw fail(value, nil, field, "expected a non-empty string, found \(value.typeName)")
            case ("offset", _): throw fail(value, nil, field, "expected seconds (a number), found \(value.typeName)")
            case ("step", _): throw fail(value, nil, field, "expected an array of field names, found \(value.typeName)")
            default: throw fail(value, nil, field, "unknown field (file, offset, time, step)")
            }
        }
        guard !spec.file.isEmpty else { throw fail(node, nil, "data", "missing \"file\"") }
        return spec
    }

    /// A layer's `"bind"`: `{"rotation": {"value": "data:heading", "from": [0, 360], "to": [0, 360]}, …}`.
    static func parseBindings(
        _ node: JSONNode, index: Int, fail: (JSONNode, Int?, String?, String) -> ConfigError
    ) throws(ConfigError) -> [Binding] {
        let names = AnimatedProperty.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .object(let members) = node.value else {
            throw fail(node, index, "bind", "expected an object of fields (\(names)), found \(node.typeName)")
        }
        var out: [Binding] = []
        for (key, value) in members {
            let field = "bind." + key
            guard let property = AnimatedProperty(rawValue: key) else {
                throw fail(value, index, field, "not a field that can be bound (\(names))")
            }
            guard case .object(let parts) = value.value else {
                throw fail(
                    value, index, field,
                    "expected {\"value\": \"var:NAME\" or \"data:FIELD\", \"from\": [a, b], \"to\": [c, d]}")
            }
            var bound: BoundValue?
            var from: (Double, Double)?, to: (Double, Double)?
            for (part, v) in parts {
                let name = field + "." + part
                switch part {
                case "value":
                    guard case .string(let s) = v.value, let b = BoundValue(s) else {
                        throw fail(v, index, name, "expected \"var:NAME\" or \"data:FIELD\"")
                    }
                    bound = b
                case "from", "to":
                    guard case .array(let items) = v.value, items.count == 2,
                        case .number(let a) = items[0].value, case .number(let b) = items[1].value,
                        a.isFinite, b.isFinite
                    else {
                        throw fail(v, index, name, "expected two numbers [a, b]")
                    }
                    if part == "from" {
                        guard a != b else {
                            throw fail(v, index, name, "an empty range (\(PropertyDefinition.format(a)) to itself)")
                        }
                        from = (a, b)
                    } else {
                        if let r = property.range, !r.contains(a) || !r.contains(b) {
                            let f = PropertyDefinition.format
                            throw fail(v, index, name, "outside \(key)'s range \(f(r.lowerBound))…\(f(r.upperBound))")
                        }
                        to = (a, b)
                    }
                default: throw fail(v, index, name, "unknown field (value, from, to)")
                }
            }
            guard let bound else { throw fail(value, index, field, "missing \"value\"") }
            out.append(Binding(field: property, value: bound, from: from, to: to))
        }
        return out.sorted { $0.field.rawValue < $1.field.rawValue }
    }

    package static func parseLayer(
        _ node: JSONNode, index: Int, directory: String,
        fail: (JSONNode, Int?, String?, String) -> ConfigError
    ) throws(ConfigError) -> LayerSpec {
        guard case .object(let members) = node.value else {
            throw fail(node, index, nil, "expected an object, found \(node.typeName)")
        }
        var layer = LayerSpec()
        // A mask's x/y keyframes are offsets: they may be negative.
        let isMask = members.contains { $0.key == "mask" }
        func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : directory + "/" + p }
        for (key, value) in members {
            func bad(_ message: String) -> ConfigError { fail(value, index, key, message) }
            switch key {
            case "keyframes":
                let track = try parseKeyframes(value, index: index, offsets: isMask, fail: fail)
                layer.keyframes = KeyframeTrack(
                    track.keyframes, repeatCount: layer.keyframes.repeatCount, alternate: layer.keyframes.alternate)
                continue
            case "repeat":
                // A number of plays (1 or more) or "infinite".
                switch value.value {
                case .string("infinite"): layer.keyframes.repeatCount = nil
                case .number(let n) where n >= 1 && n <= Double(KeyframeTrack.maxRepeat) && n == n.rounded():
                    layer.keyframes.repeatCount = Int(n)
                default:
                    throw bad("expected a whole number of plays from 1 to \(KeyframeTrack.maxRepeat) or \"infinite\"")
                }
                continue
            case "bind":
                layer.bindings = try parseBindings(value, index: index, fail: fail)
                continue
            case "alternate":
                guard case .bool(let b) = value.value else {
                    throw bad("expected true or false, found \(value.typeName)")
                }
                layer.keyframes.alternate = b
                continue
            default: if hidingFields.contains(key) { continue }
            }
            guard let property = WatermarkProperties.named(key), property.scope == .layer else {
                throw bad("unknown field (one of \(layerFields.joined(separator: ", ")))")
            }
            var parsed: PropertyValue
            switch (property.type, value.value) {
            case (.double, .number(let v)), (.uint, .number(let v)):
                switch property.checked(v) {
                case .success(let p): parsed = p
                case .failure(let e): throw bad(e.message)
                }
            case (.double, _), (.uint, _): throw bad("expected a number, found \(value.typeName)")
            case (.bool, .bool(let b)): parsed = .bool(b)
            case (.bool, _): throw bad("expected true or false, found \(value.typeName)")
            case (_, .string(let s)):
                guard !s.isEmpty || property.allowsEmpty else { throw bad("must not be empty") }
                switch property.parse(s) {
                case .success(let p): parsed = p
                case .failure(let e): throw bad(e.message)
                }
                if property.isPath, case .string(let path?) = parsed { parsed = .string(resolve(path)) }
            default: throw bad("expected a string, found \(value.typeName)")
            }
            layer.set(property, parsed)
        }
        try parseHiding(members, into: &layer, node: node, index: index, fail: fail)
        if layer.imagePath == nil && layer.style.text.isEmpty && layer.textFile == nil && !layer.hides {
            throw fail(node, index, nil, "needs \"image\", \"text\", \"text-file\", \"mask\" or \"follow\"")
        }
        if layer.timing.end >= 0, layer.timing.end <= layer.timing.start,
            let endNode = members.first(where: { $0.key == "end" })?.value
        {
            throw fail(
                endNode, index, "end",
                "\(PropertyDefinition.format(layer.timing.end)) is not after start (\(PropertyDefinition.format(layer.timing.start)))"
            )
        }
        return layer
    }

    static func parseKeyframes(
        _ node: JSONNode, index: Int, offsets: Bool = false,
        fail: (JSONNode, Int?, String?, String) -> ConfigError
    ) throws(ConfigError) -> KeyframeTrack {
        guard case .array(let items) = node.value else {
            throw fail(node, index, "keyframes", "expected an array, found \(node.typeName)")
        }
        guard items.count <= maxKeyframes else {
            throw fail(node, index, "keyframes", "\(items.count) keyframes; at most \(maxKeyframes)")
        }
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
                    guard case .string(let s) = value.value else {
                        throw bad("expected a string, found \(value.typeName)")
                    }
                    guard let e = Easing(name: s) else {
                        throw bad(
                            "unknown easing \"\(s)\" (linear, ease-in, ease-out, ease-in-out, step, cubic-bezier(x1,y1,x2,y2) with x1, x2 in 0…1)"
                        )
                    }
                    easing = e
                    continue
                }
                guard case .number(let v) = value.value else {
                    if key == "time" || AnimatedProperty(rawValue: key) != nil {
                        throw bad("expected a number, found \(value.typeName)")
                    }
                    throw bad("unknown field (time, x, y, opacity, scale, rotation, easing)")
                }
                // Keyframed properties take the ranges of the layer properties of the same
                // name; time is seconds like start, scale (keyframes only) 0…10.
                let range: ClosedRange<Double>? =
                    switch key {
                    case "time": WatermarkProperties.start.definition.userRange
                    case "x" where offsets, "y" where offsets: -1...1
                    default: AnimatedProperty(rawValue: key)?.range
                    }
                guard let range else { throw bad("unknown field (time, x, y, opacity, scale, rotation, easing)") }
                guard range.contains(v) else {
                    let f = PropertyDefinition.format
                    throw bad("\(f(v)) is out of range \(f(range.lowerBound))…\(f(range.upperBound))")
                }
                if key == "time" {
                    time = v
                } else if let property = AnimatedProperty(rawValue: key) {
                    values[property] = v
                }
            }
            guard let time else { throw fail(item, index, "keyframes[\(k)]", "missing \"time\"") }
            frames.append(Keyframe(time: time, values: values, easing: easing))
        }
        return KeyframeTrack(frames)
    }

}
