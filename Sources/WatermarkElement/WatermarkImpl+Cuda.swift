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

/// A GstCudaContext pointer (referenced while set), behind `WatermarkImpl.cudaContext`'s lock.
struct CudaContextRef: @unchecked Sendable {
    var pointer: UnsafeMutableRawPointer?
}

/// The PTX of the blend kernel per compute capability, compiled once per process.
private let compiledKernels = Mutex<[Int32: [CChar]]>([:])

/// The kernel loaded on one CUDA context, its stream, and the overlays uploaded there.
final class CudaBlender {
    let cuda: CudaLibrary
    let context: UnsafeMutableRawPointer
    private var module: OpaquePointer?
    private var function: OpaquePointer?
    private var stream: OpaquePointer?

    /// An overlay's planes on the device, kept while it is blended frame after frame.
    private struct Uploaded {
        let overlay: ConvertedOverlay
        var planes: [(plane: DevicePlane, values: WMCUdeviceptr, alpha: WMCUdeviceptr, runs: WMCUdeviceptr)]
        var lastUsed: UInt64
    }
    private var uploaded: [Int: Uploaded] = [:]
    private var frame: UInt64 = 0
    private(set) var uploads: UInt64 = 0

    /// Loads the kernel on `context` (referenced here until deinit).
    init(cuda: CudaLibrary, context: UnsafeMutableRawPointer) throws(CudaUnavailable) {
        self.cuda = cuda
        self.context = context
        gst_object_ref(context)
        guard cuda.contextPush(context) != 0 else {
            throw CudaUnavailable(reason: "the CUDA context could not be made current")
        }
        defer { _ = cuda.contextPop(nil) }
        var id = GValue()
        g_value_init(&id, GType(7 << 2))  // G_TYPE_UINT
        g_object_get_property(UnsafeMutablePointer(OpaquePointer(context)), "cuda-device-id", &id)
        let deviceID = Int32(bitPattern: g_value_get_uint(&id))
        g_value_unset(&id)
        var device: Int32 = 0, major: Int32 = 0, minor: Int32 = 0
        guard cuda.cuDeviceGet(&device, deviceID) == 0,
            cuda.cuDeviceGetAttribute(&major, WM_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) == 0,
            cuda.cuDeviceGetAttribute(&minor, WM_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) == 0
        else { throw CudaUnavailable(reason: "the CUDA device's compute capability could not be read") }
        let key = major * 100 + minor
        let ptx: [CChar]
        if let cached = compiledKernels.withLock({ $0[key] }) {
            ptx = cached
        } else {
            ptx = try cuda.compile(major: major, minor: minor).get()
            compiledKernels.withLock { $0[key] = ptx }
        }
        let loaded = ptx.withUnsafeBytes { cuda.cuModuleLoadData(&module, $0.baseAddress) }
        guard loaded == 0, module != nil, cuda.cuModuleGetFunction(&function, module, "wm_blend") == 0,
            cuda.cuStreamCreate(&stream, 0) == 0
        else { throw CudaUnavailable(reason: "the blend kernel could not be loaded (CUDA error \(loaded))") }
    }

    deinit {
        if cuda.contextPush(context) != 0 {
            for entry in uploaded.values { free(entry) }
            if let stream { _ = cuda.cuStreamDestroy(stream) }
            if let module { _ = cuda.cuModuleUnload(module) }
            _ = cuda.contextPop(nil)
        }
        gst_object_unref(context)
    }

    private func free(_ entry: Uploaded) {
        for p in entry.planes {
            for ptr in [p.values, p.alpha, p.runs] where ptr != 0 { _ = cuda.cuMemFree(ptr) }
        }
    }

    /// Copies `bytes` to a new device allocation (0 for none, or on failure).
    private func upload(_ bytes: UnsafeRawBufferPointer) -> WMCUdeviceptr {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        var ptr: WMCUdeviceptr = 0
        guard cuda.cuMemAlloc(&ptr, bytes.count) == 0 else { return 0 }
        var copy = WMCUDAMemcpy2D()
        copy.srcMemoryType = WM_CU_MEMORYTYPE_HOST
        copy.srcHost = base
        copy.srcPitch = bytes.count
        copy.dstMemoryType = WM_CU_MEMORYTYPE_DEVICE
        copy.dstDevice = ptr
        copy.dstPitch = bytes.count
        copy.WidthInBytes = bytes.count
        copy.Height = 1
        guard cuda.cuMemcpy2D(&copy) == 0 else {
            _ = cuda.cuMemFree(ptr)
            return 0
        }
        return ptr
    }

    /// The overlay's planes on the device, uploaded the first time it is blended.
    private func device(_ overlay: ConvertedOverlay) -> Uploaded? {
        guard let key = overlay.storageKey else { return nil }
        if var entry = uploaded[key] {
            entry.lastUsed = frame
            uploaded[key] = entry
            return entry
        }
        var entry = Uploaded(overlay: overlay, planes: [], lastUsed: frame)
        for plane in overlay.devicePlanes where plane.sampleCount > 0 {
            let v = plane.values.withUnsafeBytes { upload($0) }
            let a = plane.inverseAlpha.withUnsafeBytes { upload($0) }
            let r = plane.runs.withUnsafeBytes { upload($0) }
            entry.planes.append((plane, v, a, r))
            if v == 0 || a == 0 || r == 0 {
                free(entry)
                return nil
            }
        }
        uploads &+= 1
        uploaded[key] = entry
        return entry
    }

    /// Starts a frame (the context is made current by the caller).
    func begin() { frame &+= 1 }

    /// Blends `overlay` into the planes of a frame mapped in CUDA memory.
    func blend(
        _ overlay: ConvertedOverlay, opacity: Double, dx: Int, dy: Int,
        frame video: UnsafeMutablePointer<GstVideoFrame>,
        width: Int, height: Int
    ) -> Bool {
        guard let entry = device(overlay), let function else { return false }
        for (plane, values, alpha, runs) in entry.planes {
            guard
                let at = overlay.placement(
                    of: plane, frameWidth: width, frameHeight: height, opacity: opacity, dx: dx, dy: dy),
                let data = gst_watermark_frame_plane_data(video, UInt32(plane.plane))
            else { continue }
            let stride = gst_watermark_frame_plane_stride(video, UInt32(plane.plane))
            // Every argument in an 8-byte slot (little-endian: a 32-bit one in its low half).
            var slots: [UInt64] = [
                UInt64(UInt(bitPattern: data)), UInt64(UInt32(bitPattern: stride)), values, alpha, runs,
                UInt64(UInt32(plane.runCount)), UInt64(UInt32(plane.sampleCount)), plane.wide ? 1 : 0,
                UInt64(plane.maxCode), UInt64(plane.codeMask), UInt64(UInt32(bitPattern: at.row0)),
                UInt64(UInt32(bitPattern: at.sample0)), UInt64(UInt32(bitPattern: at.validRows)),
                UInt64(UInt32(bitPattern: at.validSamples)), UInt64(at.op),
            ]
            let block: UInt32 = 256
            let grid = UInt32((plane.sampleCount + Int(block) - 1) / Int(block))
            let status = slots.withUnsafeMutableBufferPointer { buf -> Int32 in
                guard let base = buf.baseAddress else { return -1 }
                var params: [UnsafeMutableRawPointer?] = (0..<buf.count).map { UnsafeMutableRawPointer(base + $0) }
                return cuda.cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, stream, &params, nil)
            }
            if status != 0 { return false }
        }
        return true
    }

    /// Ends a frame: waits for its kernels (GStreamer 1.22's CUDA memory has no fence of its
    /// own), then frees the overlays not blended in it.
    func finish() -> Bool {
        let ok = cuda.cuStreamSynchronize(stream) == 0
        for (key, entry) in uploaded where entry.lastUsed != frame {
            free(entry)
            uploaded[key] = nil
        }
        return ok
    }
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
        _ = updateCudaContext { cuda.handleSetContext(elementPointer, context, -1, &$0) }
    }

    /// Runs one of GStreamer's context helpers on a copy of the context pointer, outside the
    /// lock (they query the neighbours and may set the context on this element again, which
    /// takes the lock), then installs what it found. When set_context installed another one
    /// meanwhile, that one stays and the helper's extra reference is dropped.
    private func updateCudaContext(_ helper: (inout UnsafeMutableRawPointer?) -> gboolean) -> Bool {
        var pointer = cudaContext.withLock { $0.pointer }
        let ok = helper(&pointer) != 0
        let extra = cudaContext.withLock { c -> UnsafeMutableRawPointer? in
            if c.pointer == nil || c.pointer == pointer {
                c.pointer = pointer
                return nil
            }
            return pointer
        }
        if let extra { gst_object_unref(extra) }
        return ok
    }

    func answerCudaContextQuery(_ query: UnsafeMutablePointer<GstQuery>) -> Bool {
        guard Self.cudaAvailable, case .success(let cuda) = CudaLibrary.shared else { return false }
        let pointer = cudaContext.withLock { $0.pointer }
        return cuda.handleContextQuery(elementPointer, query, pointer) != 0
    }

    /// At caps: whether the frames are in CUDA memory; if so, the shared context is found
    /// (or made). False when CUDA memory was negotiated but no context can be had.
    func setCudaCaps(_ caps: UnsafeMutablePointer<GstCaps>?, info: GstVideoInfo) -> Bool {
        stream.cuda = caps.map { gst_watermark_caps_are_cuda($0) != 0 } ?? false
        stream.cudaInfo = info
        guard stream.cuda else { return true }
        guard Self.cudaAvailable, case .success(let cuda) = CudaLibrary.shared else { return false }
        let ok = updateCudaContext { cuda.ensureElementContext(elementPointer, -1, &$0) }
        if !ok { Log.error(element, "no CUDA context for frames in CUDA memory") }
        return ok
    }

    /// The blender for the current context, made when first needed or when the context changed.
    private func cudaBlender() -> CudaBlender? {
        guard case .success(let cuda) = CudaLibrary.shared, let context = cudaContext.withLock({ $0.pointer }) else {
            return nil
        }
        if let b = stream.cudaBlender, b.context == context { return b }
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
        // GST_MAP_CUDA (GST_MAP_FLAG_LAST << 1): the planes' device addresses.
        guard gst_video_frame_map(&frame, &info, buffer, GstMapFlags(rawValue: 3 | 1 << 17)) != 0 else {
            Log.error(element, "a frame in CUDA memory could not be mapped")
            return GST_FLOW_ERROR
        }
        defer { gst_video_frame_unmap(&frame) }
        let number = stream.frameCount
        stream.frameCount &+= 1
        guard !s.isEmpty, let format = stream.format else { return GST_FLOW_OK }
        if updateLayers(s, frame: &frame, number: number, format: format) == 0 { return GST_FLOW_OK }
        guard let blender = cudaBlender(), case .success(let cuda) = CudaLibrary.shared else { return GST_FLOW_ERROR }
        guard cuda.contextPush(blender.context) != 0 else { return GST_FLOW_ERROR }
        defer { _ = cuda.contextPop(nil) }
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
