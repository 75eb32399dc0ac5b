// The layers of a controlled run (the CLI's --control and --watch-config) as config-file
// objects, and the changes a control API and a watched config file make to them. Every
// change is validated by the config loader's own parser first; the element then gets the
// whole new document (its config-data property) and swaps all layers on one frame. Pure
// values but for the file checks: whether an image decodes is asked of `isImage`, which the
// caller gives (the renderer's decoder), so this layer needs no drawing code.

import Glibc

/// A change that was refused: the HTTP status and the one-line reason.
package struct ControlRefusal: Error, Sendable {
    package var status: UInt32
    package var message: String

    package init(status: UInt32, message: String) {
        self.status = status
        self.message = message
    }
}

/// A config file that cannot be used: the loader's positioned message.
package struct LayerDocumentError: Error, Sendable {
    package var message: String
}

package struct LayerDocument: Sendable {
    package typealias Members = [(key: String, value: JSONNode)]
    /// nil when the file at the (absolute, real) path is an image that can be drawn, else why not.
    package typealias ImageCheck = @Sendable (_ path: String) -> String?

    /// The layers read from --config (replaced when the watched file changes).
    private(set) var fileLayers: [Members] = []
    /// The document's `"variables"` (the config file's, or a PUT's), as given.
    private(set) var fileVariables: JSONNode?
    /// The command line's own layer (--text, --image…), drawn last; gone after a PUT.
    private(set) var ownLayer: Members?
    /// What the parser made of `all`: effective values.
    private(set) var specs: [LayerSpec] = []
    /// Paths in changes resolve here and may not leave it.
    package let root: String
    private let isImage: ImageCheck

    package var all: [Members] { fileLayers + (ownLayer.map { [$0] } ?? []) }

    /// The layers of `config` (if any) and the command line's `values`. Throws the
    /// loader's positioned message for a bad file.
    package init(config: String?, values: [String: PropertyValue], root: String, isImage: @escaping ImageCheck)
        throws(LayerDocumentError)
    {
        self.root = root
        self.isImage = isImage
        if let config {
            switch Self.read(config) {
            case .success(let read): (fileLayers, fileVariables) = read
            case .failure(let e): throw LayerDocumentError(message: "--config: \(e.message)")
            }
        }
        var own: Members = []
        for property in WatermarkProperties.layer {
            guard let value = values[property.name] else { continue }
            var text = value.json(for: property)
            if property.isPath, case .string(let p?) = value { text = JSONText.quoted(FilePath.absolute(p)) }
            if let node = try? JSONReader.parse(text) { own.append((property.name, node)) }
        }
        if !own.isEmpty { ownLayer = own }
        specs = try Self.validate(all)
    }

    /// The document the element draws (config-data): every path absolute.
    package var document: String {
        let layers = all.map { JSONText.encode(JSONNode(value: .object($0), line: 0, column: 0)) }
        let variables = fileVariables.map { ",\"variables\":" + JSONText.encode($0) } ?? ""
        return "{\"layers\":[" + layers.joined(separator: ",") + "]" + variables + "}"
    }

    /// `GET /api/layers`: every layer with its index and effective values (keyframes as given).
    package var json: String {
        "{\"layers\":[" + specs.indices.map(layerJSON).joined(separator: ",") + "]}"
    }

    /// One layer: its index, its effective values (for a mask or a follow layer, only the
    /// fields that apply to it), and its keyframes and mask or follow fields as given.
    package func layerJSON(_ index: Int) -> String {
        guard index < specs.count, index < all.count else { return "{}" }
        let spec = specs[index]
        let applies: Set<String>? =
            spec.mask != nil ? LayerConfig.maskFields : spec.follow != nil ? LayerConfig.followFields : nil
        var members = [("index", String(index))] + spec.jsonFields.filter { applies?.contains($0.0) ?? true }
        for (key, value) in all[index]
        where ["keyframes", "repeat", "alternate"].contains(key) || LayerConfig.hidingFields.contains(key) {
            members.append((key, JSONText.encode(value)))
        }
        return JSONText.object(members)
    }

    // MARK: changes

    /// `PATCH /api/layers/{index}`: the fields of `body` (a JSON object) replace the layer's;
    /// a field set to null goes back to its default. All or nothing.
    package mutating func patch(_ index: Int, body: [UInt8]) throws(ControlRefusal) {
        let layers = all
        guard index >= 0, index < layers.count else {
            throw ControlRefusal(status: 404, message: "no layer \(index) (there are \(layers.count))")
        }
        let node = try Self.parseBody(body)
        guard case .object(let changes) = node.value else {
            throw ControlRefusal(
                status: 400, message: "request: expected an object of layer fields, found \(node.typeName)")
        }
        var members = layers[index]
        for (key, value) in changes {
            members.removeAll { $0.key == key }
            if case .null = value.value { continue }
            members.append((key, try checkedPath(key, value)))
        }
        // Only this layer changed: only it is parsed again.
        do {
            specs[index] = try Self.validated(members, index: index)
        } catch {
            throw ControlRefusal(status: 400, message: error.description)
        }
        if index < fileLayers.count { fileLayers[index] = members } else { ownLayer = members }
    }

    /// `PUT /api/config`: a whole config document replaces every layer, the command line's
    /// own included.
    package mutating func replace(body: [UInt8]) throws(ControlRefusal) {
        let node = try Self.parseBody(body)
        do {
            _ = try LayerConfig.parse(body, file: "request", directory: root)
        } catch {
            throw ControlRefusal(status: 400, message: error.description)
        }
        guard let items = Self.layerObjects(node) else {
            throw ControlRefusal(status: 400, message: "request: expected {\"layers\": […]}")
        }
        var layers: [Members] = []
        for members in items {
            var checked: Members = []
            for (key, value) in members { checked.append((key, try checkedPath(key, value))) }
            layers.append(checked)
        }
        specs = try Self.validateRequest(layers)
        fileLayers = layers
        fileVariables = Self.variablesNode(node)
        ownLayer = nil
    }

    /// The watched config file changed: its layers replace the file's (the command line's
    /// own layer stays). Returns the loader's positioned message for a bad file.
    package mutating func reload(_ path: String) -> String? {
        switch Self.read(path) {
        case .failure(let e): return e.message
        case .success(let (layers, variables)):
            let next = layers + (ownLayer.map { [$0] } ?? [])
            do {
                specs = try Self.validate(next)
            } catch {
                return error.message
            }
            fileLayers = layers
            fileVariables = variables
            return nil
        }
    }

    // MARK: checks

    /// A config file's layers, validated by the loader, with paths made absolute.
    private static func read(_ path: String) -> Result<([Members], JSONNode?), LayerDocumentError> {
        let bytes: [UInt8]
        switch readFile(path, limit: LayerConfig.maxFileBytes) {
        case .success(let b): bytes = b
        case .failure(let e):
            return .failure(
                LayerDocumentError(message: ConfigError(file: path, line: 0, column: 0, message: e.reason).description))
        }
        let dir = FilePath.directory(of: path)
        do {
            _ = try LayerConfig.parse(bytes, file: path, directory: dir)
        } catch {
            return .failure(LayerDocumentError(message: error.description))
        }
        // The loader accepted it, so it is a document of layer objects.
        guard let node = try? JSONReader.parse(bytes), let items = layerObjects(node) else {
            return .failure(LayerDocumentError(message: "\(path): not a config document"))
        }
        let layers: [Members] =
            items.map { members in
                members.map { key, value in
                    guard WatermarkProperties.named(key)?.isPath == true, case .string(let p) = value.value else {
                        return (key, value)
                    }
                    return (
                        key,
                        JSONNode(value: .string(FilePath.absolute(p, in: dir)), line: value.line, column: value.column)
                    )
                }
            }
        return .success((layers, variablesNode(node)))
    }

    /// The `"variables"` object of a document the loader accepted, if it has one.
    private static func variablesNode(_ node: JSONNode) -> JSONNode? {
        guard case .object(let top) = node.value, let v = top.first(where: { $0.key == "variables" })?.value,
            case .object = v.value
        else { return nil }
        return v
    }

    /// The layer objects of a `{"layers": […]}` document; nil for anything else.
    private static func layerObjects(_ node: JSONNode) -> [Members]? {
        guard case .object(let top) = node.value, let layersNode = top.first(where: { $0.key == "layers" })?.value,
            case .array(let items) = layersNode.value
        else { return nil }
        return items.compactMap { item in
            guard case .object(let members) = item.value else { return nil }
            return members
        }
    }

    /// The layers as the element will parse them: their effective values, or the error.
    private static func validate(_ layers: [Members]) throws(LayerDocumentError) -> [LayerSpec] {
        var specs: [LayerSpec] = []
        for (index, members) in layers.enumerated() {
            do {
                specs.append(try validated(members, index: index))
            } catch {
                throw LayerDocumentError(message: error.description)
            }
        }
        return specs
    }

    /// One layer as the element will parse it (its paths are absolute already).
    private static func validated(_ members: Members, index: Int) throws(ConfigError) -> LayerSpec {
        try LayerConfig.parseLayer(
            JSONNode(value: .object(members), line: 0, column: 0), index: index, directory: "/",
            fail: { node, layer, field, message in
                ConfigError(
                    file: "request", line: node.line, column: node.column, layer: layer, field: field, message: message)
            })
    }

    private static func validateRequest(_ layers: [Members]) throws(ControlRefusal) -> [LayerSpec] {
        guard layers.count <= LayerConfig.maxLayers else {
            throw ControlRefusal(status: 400, message: "\(layers.count) layers; at most \(LayerConfig.maxLayers)")
        }
        do {
            return try validate(layers)
        } catch {
            throw ControlRefusal(status: 400, message: error.message)
        }
    }

    /// A request body as JSON: valid UTF-8, well-formed, at most the config file's size.
    package static func parseBody(_ body: [UInt8]) throws(ControlRefusal) -> JSONNode {
        guard body.count <= LayerConfig.maxFileBytes else {
            throw ControlRefusal(status: 413, message: "request body over \(LayerConfig.maxFileBytes) bytes")
        }
        guard String(validating: body, as: UTF8.self) != nil else {
            throw ControlRefusal(status: 400, message: "request body is not valid UTF-8")
        }
        do {
            return try JSONReader.parse(body)
        } catch {
            throw ControlRefusal(status: 400, message: "request:\(error.description)")
        }
    }

    /// A field's value with a path made absolute inside `root` and checked: a regular
    /// file inside the root (symbolic links resolved), an image that decodes for `image`,
    /// readable UTF-8 text for `text-file`. Other fields are returned as they are.
    private func checkedPath(_ key: String, _ value: JSONNode) throws(ControlRefusal) -> JSONNode {
        guard WatermarkProperties.named(key)?.isPath == true, case .string(let given) = value.value, !given.isEmpty
        else { return value }
        func refuse(_ status: UInt32, _ why: String) -> ControlRefusal {
            ControlRefusal(status: status, message: "\"\(key)\": \(given): \(why)")
        }
        let outside = refuse(403, "outside the folder changes may use (\(root); --control-root sets it)")
        // As written (`..` taken away), then as it resolves (links followed).
        let path = FilePath.normalised(FilePath.absolute(given, in: root))
        guard FilePath.isInside(path, root) else { throw outside }
        guard let real = FilePath.real(path) else { throw refuse(400, systemError()) }
        guard FilePath.isInside(real, FilePath.real(root) ?? root) else { throw outside }
        var st = stat()
        guard stat(real, &st) == 0 else { throw refuse(400, systemError()) }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw refuse(400, st.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "is not a regular file")
        }
        if key == WatermarkProperties.image.name {
            if let why = isImage(real) { throw refuse(400, "not an image this can draw (\(why))") }
        } else if case .failure(let e) = readTextFile(real) {
            throw refuse(400, e.reason)
        }
        return JSONNode(value: .string(real), line: value.line, column: value.column)
    }
}
