// Images, config files and text files: decoded and read at start, or off the streaming
// thread when changed while playing.

import CGStreamer
import CShim
import Glibc
import WatermarkBlend
import WatermarkModel
import WatermarkRender

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

    /// While running, loads off the streaming thread and swaps in one step; a bad file
    /// keeps the layers in use. start() loads otherwise (and fails on a bad file).
    private func reloadConfig(_ source: ConfigSource, request: UInt64) {
        guard running.load(ordering: .acquiring) else { return }
        loads.submit("config") { [self] in
            switch Self.loadConfig(source) {
            case .success(let (set, texts)):
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
    static func loadConfig(_ source: ConfigSource) -> Result<(ConfigSet, [String: String]), LoadFailure> {
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
        return .success(
            (ConfigSet(path: path, layers: layers, images: images, variables: document.variables), texts))
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
