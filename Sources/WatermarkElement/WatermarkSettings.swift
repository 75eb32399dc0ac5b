import WatermarkModel
import WatermarkRender

/// Where a config document comes from: the `config` file or the `config-data` text.
enum ConfigSource: Sendable {
    case file(String)
    case data(String)

    /// How messages name it.
    var name: String {
        switch self {
        case .file(let path): path
        case .data: "config-data"
        }
    }
}

/// A loaded config file: its layers with every image decoded and text file read, so it
/// can replace the previous one in a single step.
struct ConfigSet: Sendable {
    var path: String
    var layers: [LayerSpec]
    var images: [String: DecodedImage]
    /// The document's `"variables"`.
    var variables = Variables()
    /// The document's `"data"`, read (nil when it has none, or when `data-file` is set).
    var data: TimedData?
}

/// What the properties say, copied out once per frame (a few reference-counted copies).
struct WatermarkSettings: Sendable {
    /// The layer the element's own properties describe (drawn on top of the config's).
    var shorthand = LayerSpec()
    /// The decoded `shorthand.imagePath`, or the previous image while a new one is loading
    /// or after it failed to load.
    var shorthandImage: DecodedImage?
    var configPath: String?
    /// The `config-data` document, used instead of `configPath` when set.
    var configData: String?
    var configSource: ConfigSource? { configData.map { .data($0) } ?? configPath.map { .file($0) } }
    /// Bumped by every `config` set, so that a slow load cannot install a stale file.
    var configRequest: UInt64 = 0
    var config: ConfigSet? { didSet { mergeVariables() } }
    /// Latest contents of every followed text file.
    var texts: [String: String] = [:]
    var blendOnly = false
    var followOrientation = true
    var renderAhead = true
    /// What `{var:…}` shows: the config document's variables with the `variables`
    /// property's over them (merged when either changes, not per frame).
    private(set) var variables = Variables()
    /// The `variables` property, and the text it was read from.
    var propertyVariables = Variables() { didSet { mergeVariables() } }
    var variablesText: String?

    /// The `data-file`, `data-time-column` and `data-step` properties, and the file read.
    var dataSpec: DataSpec?
    var dataOffset = WatermarkProperties.dataOffset.defaultValue
    var dataTimeColumn: String?
    var dataStep: String?
    var propertyData: TimedData?
    /// Bumped by every change of the data properties, so that a slow load cannot install a stale file.
    var dataRequest: UInt64 = 0

    /// What `{data:…}` and data bindings read: the `data-file` property's file (at
    /// `data-offset`), else the config document's.
    var data: TimedData? {
        guard var d = propertyData else { return config?.data }
        d.offset = dataOffset
        return d
    }

    /// The `mask` property's regions (parsed when it is set) and text; a text that could not
    /// be read before start is kept with its error, which start reports.
    var mask = MaskLayer(regions: [])
    var maskText: String?
    var maskError: String?

    /// What the `roi-…` properties draw for each region of interest (its fill's colour, cell
    /// and radius are the mask properties'); the `roi-types` text and the quarks of its names.
    var roi = RoiFollow()
    var roiTypesText: String?
    var roiTypeQuarks: [UInt32]?

    /// The invisible mark's id, key and strength.
    var forensic = ForensicSettings()

    /// The subtitle file burned in over the layers.
    var subtitles = SubtitleSettings()

    /// Every layer that draws (the config's, then the shorthand layer).
    var allLayers: [LayerSpec] { (config?.layers ?? []) + (shorthandIsEmpty ? [] : [shorthand]) }

    private mutating func mergeVariables() {
        let base = config?.variables ?? Variables()
        variables =
            propertyVariables.isEmpty ? base : base.applying(propertyVariables.values.mapValues { Optional($0) })
    }

    var shorthandIsEmpty: Bool {
        shorthand.style.text.isEmpty && shorthandImage == nil && shorthand.textFile == nil
    }

    /// Nothing to draw: the element passes buffers through untouched.
    var isEmpty: Bool {
        shorthandIsEmpty && (config?.layers.isEmpty ?? true) && mask.regions.isEmpty && !roi.drawsAnything
            && forensic.chips == nil && subtitles.document == nil
    }

    /// Every text file a layer follows.
    var textFiles: Set<String> {
        var s = Set<String>()
        if let f = shorthand.textFile { s.insert(f) }
        for l in config?.layers ?? [] { if let f = l.textFile { s.insert(f) } }
        return s
    }
}

extension WatermarkSettings {
    /// The layers a frame draws, in order (the config's, then the shorthand layer), each
    /// with its decoded image: a view over the settings, so going through it per frame
    /// allocates nothing.
    struct Layers: RandomAccessCollection {
        let settings: WatermarkSettings
        var startIndex: Int { 0 }
        var endIndex: Int { (settings.config?.layers.count ?? 0) + (settings.shorthandIsEmpty ? 0 : 1) }

        subscript(index: Int) -> (layer: LayerSpec, image: DecodedImage?) {
            if let config = settings.config, index < config.layers.count {
                let layer = config.layers[index]
                return (layer, layer.imagePath.flatMap { config.images[$0] })
            }
            return (settings.shorthand, settings.shorthandImage)
        }
    }

    var layers: Layers { Layers(settings: self) }
}
