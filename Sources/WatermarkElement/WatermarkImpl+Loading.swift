// Images, config files and text files: decoded and read at start, or off the streaming
// thread when changed while playing.

import CGStreamer
import CShim
import Glibc
import WatermarkBlend
import WatermarkModel
import WatermarkRender
import WatermarkTelemetry

extension WatermarkImpl {
    /// The current directory ("." when it cannot be named).
    static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "." }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    /// `path` made absolute against the current directory (watchers and background
    /// loads must not depend on a later chdir).
    func absolute(_ path: String?) -> String? {
        guard let path, !path.isEmpty else { return nil }
        return FilePath.absolute(path)
    }

    // MARK: images, config and text files

    func setImage(_ path: String?) {
        let path = (path?.isEmpty ?? true) ? nil : path
        settings.withLock { s in
            s.shorthand.imagePath = path
            if path == nil { s.shorthandImage = nil }
        }
        // While running, decode off the streaming thread; start() decodes otherwise.
        if let path, running.load(ordering: .acquiring) {
            loads.submit("image") { [self] in
                switch Result(catching: { () throws(ImageLoadError) in try DecodedImage.shared(path: path) }) {
                case .success(let image): installShorthand(image)
                case .failure(let error): post(error, fatal: false)
                }
            }
        }
    }

    /// Installs a decoded image if it is still the one asked for.
    func installShorthand(_ image: DecodedImage) {
        settings.withLock { s in
            guard s.shorthand.imagePath == image.path else { return }
            s.shorthandImage = image
        }
    }

    func post(_ error: ImageLoadError, fatal: Bool) {
        let code: GstResourceError =
            switch error.kind {
            case .notFound: GST_RESOURCE_ERROR_NOT_FOUND
            case .unreadable: GST_RESOURCE_ERROR_OPEN_READ
            case .invalid: GST_RESOURCE_ERROR_READ
            }
        post(
            error.description + (fatal ? "" : "; keeping the previous image"), code: code, fatal: fatal,
            debug: "image property")
    }

    func post(_ message: String, code: GstResourceError, fatal: Bool, debug: String) {
        if fatal {
            gst_watermark_post_error(
                element, gst_watermark_resource_error_quark(), Int32(code.rawValue), message, debug)
        } else {
            gst_watermark_post_warning(
                element, gst_watermark_resource_error_quark(), Int32(code.rawValue), message, debug)
        }
    }

    func setTextFile(_ path: String?) {
        let path = absolute(path)
        settings.withLock { $0.shorthand.textFile = path }
        if running.load(ordering: .acquiring) {
            if let path, case .success(let text) = readTextFile(path) { settings.withLock { $0.texts[path] = text } }
            restartWatcher()
        }
    }

    func setConfig(_ path: String?) {
        let path = absolute(path)
        let (request, data) = settings.withLock { s -> (UInt64, String?) in
            s.configPath = path
            s.configRequest &+= 1
            if path == nil && s.configData == nil { s.config = nil }
            return (s.configRequest, s.configData)
        }
        // config-data, when set, is used instead.
        if let path, data == nil { reloadConfig(.file(path), request: request) }
    }

    func setConfigData(_ text: String?) {
        let text = (text?.isEmpty ?? true) ? nil : text
        let (request, path) = settings.withLock { s -> (UInt64, String?) in
            s.configData = text
            s.configRequest &+= 1
            if text == nil && s.configPath == nil { s.config = nil }
            return (s.configRequest, s.configPath)
        }
        if let text {
            reloadConfig(.data(text), request: request)
        } else if let path {
            reloadConfig(.file(path), request: request)
        }
    }

    /// `data-file`, `data-time-column` or `data-step`: recorded, and while running the file
    /// is read again off the streaming thread (a bad file keeps the data in use).
    func setData(_ setting: ElementSetting, _ text: String?) {
        let (request, spec) = settings.withLock { s -> (UInt64, DataSpec?) in
            switch setting {
            case .dataFile: s.dataSpec = absolute(text).map { DataSpec(file: $0) }
            case .dataTimeColumn: s.dataTimeColumn = text
            default: s.dataStep = text
            }
            s.dataSpec?.timeColumn = s.dataTimeColumn
            s.dataSpec?.step = DataSpec.fields(s.dataStep)
            if s.dataSpec == nil { s.propertyData = nil }
            s.dataRequest &+= 1
            return (s.dataRequest, s.dataSpec)
        }
        guard let spec, running.load(ordering: .acquiring) else { return }
        loads.submit("data") { [self] in
            let result = Self.loadData(spec) { Log.info(self.element, $0) }
            let layers = settings.withLock { $0.allLayers }
            switch result {
            case .success(let data):
                if let e = DataSpec.check(data, DataSpec.uses(layers)) {
                    post(
                        "Invalid data \(e.description); keeping the previous data", code: GST_RESOURCE_ERROR_SETTINGS,
                        fatal: false, debug: "data-file property")
                    return
                }
                let installed = settings.withLock { s -> Bool in
                    guard s.dataRequest == request else { return false }
                    s.propertyData = data
                    return true
                }
                if installed { Log.info(element, Self.describe(data)) }
            case .failure(let f):
                post(f.text + "; keeping the previous data", code: f.code, fatal: false, debug: "data-file property")
            }
        }
    }

    /// A data file, read whole: a table, or telemetry (a GoPro recording, GPX, a DJI log),
    /// which the log names in one line.
    static func loadData(_ spec: DataSpec, log: ((String) -> Void)? = nil) -> Result<TimedData, LoadFailure> {
        do {
            let (data, summary) = try Telemetry.load(spec)
            if let summary { log?(summary) }
            return .success(data)
        } catch {
            let code =
                error.line == 0 && error.field == nil ? GST_RESOURCE_ERROR_OPEN_READ : GST_RESOURCE_ERROR_SETTINGS
            return .failure(LoadFailure(text: "Invalid data " + error.description, code: code))
        }
    }

    /// The log's one line about a data file read.
    static func describe(_ data: TimedData) -> String {
        let t = data.table
        return
            "data \(t.file): \(t.rowCount) row(s), fields \(t.names.joined(separator: ", ")) over \"\(t.timeColumn)\""
            + (t.absolute ? " (dates and times)" : " (seconds)")
    }

    /// The data every layer's `{data:…}` and bindings read is there and fits them; the
    /// message when not.
    static func checkData(_ data: TimedData?, _ layers: [LayerSpec]) -> LoadFailure? {
        let uses = DataSpec.uses(layers)
        guard let first = uses.first else { return nil }
        guard let data else {
            return LoadFailure(
                text: "\(first.usedBy) needs a data file (the data-file property, a config's \"data\", --data)",
                code: GST_RESOURCE_ERROR_SETTINGS)
        }
        return DataSpec.check(data, uses).map {
            LoadFailure(text: "Invalid data " + $0.description, code: GST_RESOURCE_ERROR_SETTINGS)
        }
    }

    /// While running, loads off the streaming thread and swaps in one step; a bad file
    /// keeps the layers in use. start() loads otherwise (and fails on a bad file).
    private func reloadConfig(_ source: ConfigSource, request: UInt64) {
        guard running.load(ordering: .acquiring) else { return }
        let ownData = settings.withLock { $0.dataSpec != nil }
        loads.submit("config") { [self] in
            switch Self.loadConfig(source, readData: !ownData) {
            case .success(let (set, texts)):
                let data = set.data ?? settings.withLock { $0.data }
                if let f = Self.checkData(data, set.layers) {
                    post(f.text + "; keeping the previous layers", code: f.code, fatal: false, debug: "config property")
                    return
                }
                let installed = settings.withLock { s -> Bool in
                    guard s.configRequest == request else { return false }
                    s.config = set
                    s.texts.merge(texts) { $1 }
                    return true
                }
                if installed {
                    restartWatcher()
                    Log.info(element, "config \(set.path) loaded: \(set.layers.count) layer(s)")
                }
            case .failure(let message):
                post(
                    message.text + "; keeping the previous layers", code: message.code, fatal: false,
                    debug: "config property")
            }
        }
    }

    struct LoadFailure: Error {
        var text: String
        var code: GstResourceError
    }

    /// Reads, validates and decodes everything a config document needs.
    /// `readData`: the document's `"data"` file too (not when `data-file` is set).
    static func loadConfig(_ source: ConfigSource, readData: Bool) -> Result<(ConfigSet, [String: String]), LoadFailure>
    {
        let document: ConfigDocument
        let path = source.name
        do {
            switch source {
            case .file(let path): document = try LayerConfig.loadDocument(path: path)
            case .data(let text):
                document = try LayerConfig.parseDocument(Array(text.utf8), file: path, directory: currentDirectory())
            }
        } catch {
            let code = error.line == 0 ? GST_RESOURCE_ERROR_OPEN_READ : GST_RESOURCE_ERROR_SETTINGS
            return .failure(LoadFailure(text: "Invalid config " + error.description, code: code))
        }
        let layers = document.layers
        var images: [String: DecodedImage] = [:]
        var texts: [String: String] = [:]
        for (index, layer) in layers.enumerated() {
            if let p = layer.imagePath, images[p] == nil {
                do {
                    images[p] = try DecodedImage.shared(path: p)
                } catch {
                    return .failure(
                        LoadFailure(
                            text: "Invalid config \(path): layer \(index): \"image\": \(error.description)",
                            code: GST_RESOURCE_ERROR_NOT_FOUND))
                }
            }
            if let f = layer.textFile {
                switch readTextFile(f) {
                case .success(let t): texts[f] = t
                case .failure(let e):
                    return .failure(
                        LoadFailure(
                            text: "Invalid config \(path): layer \(index): \"text-file\": \(f): \(e.reason)",
                            code: GST_RESOURCE_ERROR_NOT_FOUND))
                }
            }
        }
        var data: TimedData?
        if readData, let spec = document.data {
            switch loadData(spec, log: nil) {
            case .success(let d): data = d
            case .failure(let f):
                return .failure(LoadFailure(text: "Invalid config \(path): \"data\": " + f.text, code: f.code))
            }
        }
        return .success(
            (ConfigSet(path: path, layers: layers, images: images, variables: document.variables, data: data), texts))
    }

    /// Follows the text files the current layers name (one watcher thread).
    func restartWatcher() {
        let files = settings.withLock { $0.textFiles }
        let old = watcher.withLock { w -> TextFileWatcher? in
            let o = w
            w = nil
            return o
        }
        old?.stop()
        guard running.load(ordering: .acquiring), !files.isEmpty else { return }
        let w = TextFileWatcher(paths: files) { [weak self] path in
            guard let self, case .success(let text) = readTextFile(path) else { return }
            settings.withLock { $0.texts[path] = text }
        }
        watcher.withLock { $0 = w }
    }
}
