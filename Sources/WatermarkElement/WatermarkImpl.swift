// Threading invariant: `settings` is the only state shared between the application's
// threads (property setters, image/config loader threads, the text-file watcher) and the
// streaming thread; it is behind a lock (`Locked`) and copied out once per frame. `stream` is touched only by the
// streaming thread (set_info, before_transform, transform) and by start/stop, which
// GStreamer never runs concurrently with streaming. Hence @unchecked Sendable.

import CGStreamer
import CShim
import Glibc
import Synchronization
import WatermarkBlend
import WatermarkModel
import WatermarkRender

final class WatermarkImpl: @unchecked Sendable {
    /// The GObject that owns this object (not retained: it outlives us).
    let element: UnsafeMutablePointer<GstWatermark>
    let settings = Locked(WatermarkSettings())
    let running = Atomic<Bool>(false)
    let renderCount = Atomic<UInt64>(0)
    let watcher = Locked<TextFileWatcher?>(nil)
    let checkedFonts = Locked(Set<String>())
    var stream = StreamState()
    /// Renders the next frame's pixels of layers whose text changes with time.
    let ahead = RenderAhead()
    /// The CUDA context (a GstCudaContext, referenced) shared with the neighbours: set by
    /// set_context from any thread, read at caps and per frame in CUDA memory.
    let cudaContext = CudaContextSlot()

    /// Image and config loads while running, latest first, off the streaming thread.
    let loads: LoaderThread

    init(element: UnsafeMutablePointer<GstWatermark>) {
        self.element = element
        // A load in progress keeps the element (and so this object) alive.
        let object = UInt(bitPattern: element)
        loads = LoaderThread(
            retain: { _ = gst_object_ref(UnsafeMutableRawPointer(bitPattern: object)) },
            release: { gst_object_unref(UnsafeMutableRawPointer(bitPattern: object)) })
    }

    deinit {
        ahead.stop()
        stream.reset()
    }

    // MARK: lifecycle

    func start() -> Bool {
        let (imagePath, configSource, textFile, dataSpec, maskError) = settings.withLock {
            ($0.shorthand.imagePath, $0.configSource, $0.shorthand.textFile, $0.dataSpec, $0.maskError)
        }
        if let forensicError = settings.withLock({ $0.forensic.error }) {
            post(forensicError, code: GST_RESOURCE_ERROR_SETTINGS, fatal: true, debug: "forensic-id property")
            return false
        }
        if let maskError {
            post(maskError, code: GST_RESOURCE_ERROR_SETTINGS, fatal: true, debug: "mask property")
            return false
        }
        if let dataSpec {
            switch Self.loadData(dataSpec, log: { [element] in Log.info(element, $0) }) {
            case .success(let data):
                settings.withLock { $0.propertyData = data }
                Log.info(element, Self.describe(data))
            case .failure(let f):
                post(f.text, code: f.code, fatal: true, debug: "data-file property")
                return false
            }
        }
        if let imagePath {
            do {
                installShorthand(try DecodedImage.shared(path: imagePath))
            } catch {
                post(error, fatal: true)
                return false
            }
        }
        if let configSource {
            switch Self.loadConfig(configSource, readData: dataSpec == nil) {
            case .success(let (set, texts)):
                settings.withLock {
                    $0.config = set
                    $0.texts.merge(texts) { $1 }
                }
            case .failure(let f):
                post(f.text, code: f.code, fatal: true, debug: "config property")
                return false
            }
        }
        if let textFile {
            switch readTextFile(textFile) {
            case .success(let t): settings.withLock { $0.texts[textFile] = t }
            case .failure(let e):
                post(
                    "Could not read text-file \"\(textFile)\": \(e.reason)", code: GST_RESOURCE_ERROR_NOT_FOUND,
                    fatal: true, debug: "text-file property")
                return false
            }
        }
        if !startSubtitles() { return false }
        let (data, layers) = settings.withLock { ($0.data, $0.allLayers) }
        if let f = Self.checkData(data, layers) {
            post(f.text, code: f.code, fatal: true, debug: "data")
            return false
        }
        renderCount.store(0, ordering: .relaxed)
        running.store(true, ordering: .releasing)
        restartWatcher()
        return true
    }

    func stop() -> Bool {
        running.store(false, ordering: .releasing)
        restartWatcher()
        ahead.stop()
        reportCudaStats()
        stream.reset()
        return true
    }

    func setInfo(outCaps: UnsafeMutablePointer<GstCaps>?, outInfo: UnsafeMutablePointer<GstVideoInfo>?) -> Bool {
        var unknownTransfer = false
        guard let outInfo, let format = StreamFormat(info: outInfo.pointee, unknownTransfer: &unknownTransfer) else {
            Log.error(element, "unsupported video format")
            return false
        }
        if unknownTransfer {
            let name = gst_video_colorimetry_to_string(&outInfo.pointee.colorimetry).map { s in
                defer { g_free(s) }
                return String(cString: s)
            }
            gst_watermark_post_warning(
                element, gst_stream_error_quark(), Int32(GST_STREAM_ERROR_FORMAT.rawValue),
                "Overlay colours are placed as SDR: transfer function of colorimetry \(name ?? "?") is not supported",
                "set_info")
        }
        if !setCudaCaps(outCaps, info: outInfo.pointee) { return false }
        stream.format = format
        stream.passthrough = nil
        stream.infoGeneration &+= 1
        stream.setCaps(outCaps)
        stream.needsMetaCheck = true
        stream.needsLiveCheck = true
        Log.debug(
            element,
            "configured for \(outInfo.pointee.width)x\(outInfo.pointee.height), \(format.layout.planeCount) plane(s), "
                + "overlay signal \(format.signal(referenceWhite: OverlaySignal.defaultReferenceWhite).description)")
        return true
    }

    /// The stream's creation time (the `datetime` tag: a recording's capture time), which a
    /// data file's dates and times are aligned to.
    private func readCreationTime(_ list: UnsafePointer<GstTagList>) {
        var dt: OpaquePointer?
        guard gst_tag_list_get_date_time(list, "datetime", &dt) != 0, let dt else { return }
        defer { gst_date_time_unref(dt) }
        guard gst_date_time_has_time(dt) != 0, let g = gst_date_time_to_g_date_time(dt) else { return }
        defer { g_date_time_unref(g) }
        let epoch = Double(g_date_time_to_unix(g)) + Double(g_date_time_get_microsecond(g)) / 1e6
        if stream.creationTime != epoch {
            stream.creationTime = epoch
            Log.info(element, "creation time \(epoch) (a data file's dates and times count from it)")
        }
    }

    /// Tag events: the stream's image-orientation and creation time (only on the streaming thread).
    func sinkEvent(_ event: UnsafeMutablePointer<GstEvent>) {
        switch event.pointee.type {
        case GST_EVENT_TAG:
            var list: UnsafeMutablePointer<GstTagList>?
            gst_event_parse_tag(event, &list)
            guard let list else { return }
            readCreationTime(list)
            var value: UnsafeMutablePointer<gchar>?
            guard gst_tag_list_get_string(list, "image-orientation", &value) != 0, let value else { return }
            let name = String(cString: value)
            g_free(value)
            let o = ImageOrientation(rawValue: name) ?? .rotate0
            if o != stream.orientation {
                stream.orientation = o
                stream.infoGeneration &+= 1
                Log.info(element, "image-orientation \(name)")
            }
        case GST_EVENT_STREAM_START:
            stream.orientation = .rotate0
            stream.creationTime = nil
        default:
            break
        }
    }
}
