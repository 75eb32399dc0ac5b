// Burned-in subtitles: the file is read and checked at start (or, set while playing, on the
// loader thread); the streaming thread asks libass for each frame's picture, converts it
// into the frame's format only when libass says it changed, and blends it over the layers.

import CGStreamer
import WatermarkBlend
import WatermarkModel
import WatermarkRender

/// The `subtitle-…` properties as set, and the file read.
struct SubtitleSettings: Sendable {
    var path: String?
    var offset = WatermarkProperties.subtitleOffset.defaultValue
    var document: SubtitleDocument? {
        didSet { loaded &+= 1 }
    }
    /// Bumped by every change of the file, so that a slow load cannot install a stale one.
    var request: UInt64 = 0
    /// Bumped by every document installed (what the streaming thread compares, not the text).
    private(set) var loaded: UInt64 = 0
}

/// What a renderer is made for: the frame's size and format, and (SRT and WebVTT only, whose
/// look comes from them) the layer's text properties.
struct SubtitleLook: Equatable {
    var width: Int, height: Int
    var infoGeneration: UInt64
    /// How the stored frames are turned for display (`follow-orientation`).
    var orientation: ImageOrientation
    var layer: OverlayStyle?
}

/// The streaming thread's libass renderer and the overlay it last gave.
struct SubtitleCache {
    /// Which document (`SubtitleSettings.loaded`), for which look and frame.
    var loaded: UInt64
    var look: SubtitleLook
    var renderer: SubtitleRenderer
    var converted: ConvertedOverlay?
}

extension WatermarkImpl {
    /// The most a subtitle file may hold (a feature film's ASS with signs is a few MB).
    static let subtitleFileLimit = 64 << 20

    /// Reads and checks a subtitle file: the positioned message when it is not one.
    static func loadSubtitles(_ path: String) -> Result<SubtitleDocument, LoadFailure> {
        switch readFile(path, limit: subtitleFileLimit) {
        case .failure(let e):
            return .failure(
                LoadFailure(
                    text: "Could not read subtitle-file \"\(path)\": \(e.reason)", code: GST_RESOURCE_ERROR_NOT_FOUND))
        case .success(let bytes):
            do {
                return .success(try SubtitleParser.parse(bytes, file: path))
            } catch {
                return .failure(LoadFailure(text: "Invalid subtitle file \(error)", code: GST_RESOURCE_ERROR_SETTINGS))
            }
        }
    }

    /// The log's lines about a file read: what it holds, and (once per family) each font it
    /// names that fontconfig replaces.
    func describe(_ d: SubtitleDocument, path: String) {
        Log.info(
            element,
            "subtitles \(path): \(d.format.rawValue), \(d.eventCount) event(s)"
                + (d.embeddedFonts > 0 ? ", \(d.embeddedFonts) embedded font(s)" : ""))
        // Embedded fonts provide families fontconfig does not know.
        for family in d.fontFamilies where d.embeddedFonts == 0 {
            guard checkedFonts.withLock({ $0.insert("subtitle:" + family).inserted }) else { continue }
            if let used = TextLayout.substituteFamily(for: family) {
                Log.warning(
                    element, "subtitle font \"\(family)\" is not installed; fontconfig uses \"\(used)\" instead")
            }
        }
    }

    /// `subtitle-file`: recorded; while running the file is read off the streaming thread
    /// (a bad file keeps the subtitles in use and posts a warning).
    func setSubtitleFile(_ text: String?) {
        let path = absolute(text)
        let request = settings.withLock { s -> UInt64 in
            s.subtitles.path = path
            if path == nil { s.subtitles.document = nil }
            s.subtitles.request &+= 1
            return s.subtitles.request
        }
        guard let path, running.load(ordering: .acquiring) else { return }
        loads.submit("subtitles") { [self] in
            switch Self.loadSubtitles(path) {
            case .success(let d):
                let installed = settings.withLock { s -> Bool in
                    guard s.subtitles.request == request else { return false }
                    s.subtitles.document = d
                    return true
                }
                if installed { describe(d, path: path) }
            case .failure(let f):
                post(
                    f.text + "; keeping the previous subtitles", code: f.code, fatal: false,
                    debug: "subtitle-file property")
            }
        }
    }

    /// At start: the file read, or the error that stops the start.
    func startSubtitles() -> Bool {
        guard let path = settings.withLock({ $0.subtitles.path }) else { return true }
        switch Self.loadSubtitles(path) {
        case .success(let d):
            if let why = SubtitleRenderer.unavailable {
                post(
                    "subtitle-file \"\(path)\" cannot be rendered: \(why.reason)", code: GST_RESOURCE_ERROR_SETTINGS,
                    fatal: true, debug: "subtitle-file property")
                return false
            }
            settings.withLock { $0.subtitles.document = d }
            describe(d, path: path)
            return true
        case .failure(let f):
            post(f.text, code: f.code, fatal: true, debug: "subtitle-file property")
            return false
        }
    }

    /// This frame's subtitle picture in the stream's format (nil: nothing on screen), made
    /// again only when libass says it changed or the frame's size or format did.
    func subtitleOverlay(
        _ s: WatermarkSettings, frame: UnsafeMutablePointer<GstVideoFrame>, clock: FrameClock, format: StreamFormat
    ) -> ConvertedOverlay? {
        guard let document = s.subtitles.document else {
            stream.subtitles = nil
            return nil
        }
        let width = Int(frame.pointee.info.width), height = Int(frame.pointee.info.height)
        // Laid out on the picture as displayed, then turned into the stored frame's pixels.
        let orientation = s.followOrientation ? stream.orientation : .rotate0
        let shown = orientation.displayedSize(width: width, height: height)
        let look = SubtitleLook(
            width: width, height: height, infoGeneration: stream.infoGeneration, orientation: orientation,
            layer: document.format == .ass ? nil : s.shorthand.style)
        let loaded = s.subtitles.loaded
        var cache: SubtitleCache
        // A new document, look, format or size gets a new renderer (its first picture is
        // always drawn); one that could not be made is not tried again for the same document.
        if let c = stream.subtitles, c.loaded == loaded, c.look == look {
            cache = c
        } else {
            if stream.subtitleFailed == loaded { return nil }
            let style = SubtitleStyle(layer: s.shorthand.style, frameWidth: shown.width, frameHeight: shown.height)
            do {
                let renderer = try SubtitleRenderer(document: document, style: style) { [weak self] level, text in
                    guard let self else { return }
                    if level <= 1 {
                        Log.warning(element, "libass: \(text)")
                    } else {
                        Log.debug(element, "libass: \(text)")
                    }
                }
                cache = SubtitleCache(loaded: loaded, look: look, renderer: renderer)
            } catch {
                stream.subtitleFailed = loaded
                Log.error(element, "subtitles not drawn: \(error.reason)")
                return nil
            }
        }
        // Stream time (what every layer follows), less the offset, to the nearest millisecond
        // (a demuxer's timestamps land a nanosecond either side of a cue's edge).
        let seconds = (clock.streamTime ?? clock.pts ?? 0) - s.subtitles.offset
        let ms = seconds.isFinite ? Int64(clamping: Int((seconds * 1000).rounded())) : 0
        let (changed, rendered) = cache.renderer.render(at: ms, width: shown.width, height: shown.height)
        if changed {
            cache.converted = rendered.map { orientation.storedOverlay($0, width: width, height: height) }.map {
                ConvertedOverlay(
                    $0, layout: format.layout, encoding: format.encoding, frameWidth: width, frameHeight: height)
            }
        }
        stream.subtitles = cache
        return cache.converted
    }
}
