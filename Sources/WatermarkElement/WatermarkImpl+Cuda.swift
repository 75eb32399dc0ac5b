// Frames in NVIDIA GPU memory: the layers are rendered and converted on the CPU as always (once
// per change), their converted planes uploaded to the device once, and each frame blended in
// place by a CUDA kernel (`DeviceBlend`, the CPU blend's arithmetic) on the CUDA context the
// element shares with its neighbours, on a stream of its own. Masks, regions of interest, the
// forensic mark and subtitles have no kernel: a frame that needs them goes through system
// memory (mapped, processed as usual, written back), said once in the log.

import CCuda
import CGStreamer
import CShim
import Glibc
import Synchronization
import WatermarkBlend
import WatermarkModel

/// The element's GstCudaContext (referenced while set), where GStreamer's helpers read and
/// write it, as GStreamer's own CUDA elements keep theirs in a field.
/// `gst_cuda_ensure_element_context` asks the neighbours first; a neighbour's answer comes
/// back through the element's set_context, and unless set_context stores it in the very
/// place the helper then looks, the helper makes a CUDA context of its own, which GStreamer
/// keeps for the pipeline's life (about 0.1 s of driver time to make, serialised between
/// branches). So the helpers get the slot itself, under a recursive lock: set_context
/// comes back into it on the helper's own thread, and waits on any other. (`Locked` does
/// not fit: its lock is not recursive, and the value it hands out is an inout access that
/// the nested set_context would overlap, which Swift's exclusivity checks stop at run time.)
final class CudaContextSlot: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        slot = .allocate(capacity: 1)
        slot.initialize(to: nil)
    }

    deinit {
        if let context = slot.pointee { gst_object_unref(context) }
        slot.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` on the slot under the lock.
    func withSlot<R>(_ body: (UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(slot)
    }

    /// The context now (the slot keeps its reference).
    var context: UnsafeMutableRawPointer? { withSlot { $0.pointee } }
}

extension WatermarkImpl {
    /// Whether frames in CUDA memory can be blended here; the reason why not is logged once.
    static let cudaAvailable: Bool = {
        switch CudaLibrary.shared {
        case .success: return true
        case .failure(let why):
            gst_watermark_log(nil, GST_LEVEL_INFO, "CUDA memory not offered: \(why.reason)")
            return false
        }
    }()

    private var elementPointer: UnsafeMutablePointer<GstElement> {
        UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstElement.self)
    }

    func setCudaContext(_ context: OpaquePointer?) {
        guard Self.cudaAvailable, case .success(let cuda) = CudaLibrary.shared else { return }
        _ = cudaContext.withSlot { cuda.handleSetContext(elementPointer, context, -1, $0) }
    }

    func answerCudaContextQuery(_ query: UnsafeMutablePointer<GstQuery>) -> Bool {
        guard Self.cudaAvailable, case .success(let cuda) = CudaLibrary.shared else { return false }
        return cudaContext.withSlot { cuda.handleContextQuery(elementPointer, query, $0.pointee) } != 0
    }

    /// At caps: whether the frames are in CUDA memory; if so, the shared context is found
    /// (or made). False when CUDA memory was negotiated but no context can be had.
    func setCudaCaps(_ caps: UnsafeMutablePointer<GstCaps>?, info: GstVideoInfo) -> Bool {
        stream.cuda = caps.map { gst_watermark_caps_are_cuda($0) != 0 } ?? false
        stream.cudaInfo = info
        guard stream.cuda else { return true }
        guard Self.cudaAvailable, case .success(let cuda) = CudaLibrary.shared else { return false }
        let ok = cudaContext.withSlot { cuda.ensureElementContext(elementPointer, -1, $0) } != 0
        if !ok { Log.error(element, "no CUDA context for frames in CUDA memory") }
        return ok
    }

    /// Logs the figures the blender kept (with the category at DEBUG), at stop.
    func reportCudaStats() {
        guard let b = stream.cudaBlender, let stats = b.stats else { return }
        Log.debug(element, stats.summary(uploads: b.uploads, deviceBytes: b.deviceBytes))
    }

    /// The blender for the current context, made when first needed or when the context changed.
    private func cudaBlender() -> CudaBlender? {
        guard case .success(let cuda) = CudaLibrary.shared, let context = cudaContext.context else {
            return nil
        }
        if let b = stream.cudaBlender, b.context == context { return b }
        reportCudaStats()
        do {
            let b = try CudaBlender(cuda: cuda, context: context)
            stream.cudaBlender = b
            Log.info(element, "blending in CUDA memory")
            return b
        } catch {
            if !stream.toldCudaFailure {
                stream.toldCudaFailure = true
                Log.error(element, "cannot blend in CUDA memory: \(error.reason)")
            }
            return nil
        }
    }

    /// A clock's reading in µs.
    private static func clock(_ id: clockid_t) -> Double {
        var t = timespec()
        clock_gettime(id, &t)
        return Double(t.tv_sec) * 1e6 + Double(t.tv_nsec) / 1e3
    }

    /// One buffer in CUDA memory.
    func transformCuda(_ buffer: UnsafeMutablePointer<GstBuffer>) -> GstFlowReturn {
        guard var info = stream.cudaInfo else { return GST_FLOW_NOT_NEGOTIATED }
        let s = frameSettings()
        var frame = GstVideoFrame()
        // What has no kernel goes through system memory.
        if Self.hides(s) || s.forensic.chips != nil || s.subtitles.document != nil {
            if !stream.toldCudaFallback {
                stream.toldCudaFallback = true
                Log.info(
                    element,
                    "masks, regions of interest, the forensic mark and subtitles have no CUDA kernel: frames are "
                        + "downloaded, processed and uploaded")
            }
            guard gst_video_frame_map(&frame, &info, buffer, GstMapFlags(rawValue: 3)) != 0 else {
                return GST_FLOW_ERROR
            }
            defer { gst_video_frame_unmap(&frame) }
            return transform(&frame)
        }
        let number = stream.frameCount
        stream.frameCount &+= 1
        guard !s.isEmpty, let format = stream.format else { return GST_FLOW_OK }
        // The kernels run on the element's own stream: since GStreamer 1.24 the producer's work
        // may still be queued on the memory's stream, which mapping does not wait for.
        if case .success(let cuda) = CudaLibrary.shared { cuda.waitForProducers(buffer) }
        // GST_MAP_CUDA (GST_MAP_FLAG_LAST << 1): the planes' device addresses.
        guard gst_video_frame_map(&frame, &info, buffer, GstMapFlags(rawValue: 3 | 1 << 17)) != 0 else {
            Log.error(element, "a frame in CUDA memory could not be mapped")
            return GST_FLOW_ERROR
        }
        defer { gst_video_frame_unmap(&frame) }
        if updateLayers(s, frame: &frame, number: number, format: format) == 0 { return GST_FLOW_OK }
        guard let blender = cudaBlender(), case .success(let cuda) = CudaLibrary.shared else { return GST_FLOW_ERROR }
        let clocks = blender.stats.map { _ in (Self.clock(CLOCK_THREAD_CPUTIME_ID), Self.clock(CLOCK_MONOTONIC)) }
        guard cuda.contextPush(blender.context) != 0 else { return GST_FLOW_ERROR }
        defer {
            _ = cuda.contextPop(nil)
            if let (cpu, wall) = clocks {
                blender.stats?.frame(
                    cpu: Self.clock(CLOCK_THREAD_CPUTIME_ID) - cpu, wall: Self.clock(CLOCK_MONOTONIC) - wall)
            }
        }
        let (width, height) = (Int(frame.info.width), Int(frame.info.height))
        var ok = true
        blender.begin()
        placeLayers { o, op, x, y in
            if !blender.blend(o, opacity: op, dx: x, dy: y, frame: &frame, width: width, height: height) { ok = false }
        }
        if !blender.finish() || !ok {
            Log.error(element, "the CUDA blend failed")
            return GST_FLOW_ERROR
        }
        return GST_FLOW_OK
    }
}
