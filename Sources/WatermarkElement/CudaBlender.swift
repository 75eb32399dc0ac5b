// The blend kernel on one CUDA context: the overlays' planes uploaded there once per change
// (all planes of an overlay in one device allocation, copied in one go on the element's own
// stream, the allocation reused by a later overlay when this one is retired), a launch per
// plane and frame, and the frame's end awaited on an event the calling thread sleeps on
// (GStreamer 1.22's CUDA memory carries no fence: the next element may read the frame as soon
// as the buffer leaves). With the `watermark` category at DEBUG it also keeps the figures the
// benchmark reads: the kernels' GPU time (CUDA events), the element's CPU and wall time per
// frame, logged when the element stops.

import CCuda
import CGStreamer
import CShim
import Glibc
import Synchronization
import WatermarkBlend
import WatermarkModel

/// The PTX of the blend kernel per compute capability, compiled (or read from the cache) once
/// per process.
private let compiledKernels = Mutex<[Int32: [CChar]]>([:])

/// The kernel loaded on one CUDA context, its stream, and the overlays uploaded there.
final class CudaBlender {
    let cuda: CudaLibrary
    let context: UnsafeMutableRawPointer
    private var module: OpaquePointer?
    private var function: OpaquePointer?
    private var stream: OpaquePointer?
    /// Recorded after a frame's kernels; the thread sleeps on it (no spinning).
    private var done: OpaquePointer?

    /// An overlay's planes on the device: one allocation, each array at its offset.
    private struct Uploaded {
        let overlay: ConvertedOverlay
        let block: WMCUdeviceptr
        let capacity: Int
        var planes: [(plane: DevicePlane, values: WMCUdeviceptr, alpha: WMCUdeviceptr, runs: WMCUdeviceptr)]
        var lastUsed: UInt64
    }
    private var uploaded: [Int: Uploaded] = [:]
    /// Allocations of retired overlays, kept for the next upload (cuMemFree waits for the
    /// whole device; a clock's new text each second reuses the last one's block instead).
    private var spare: [(block: WMCUdeviceptr, capacity: Int)] = []
    private static let spareLimit = 8
    private static let keepFrames: UInt64 = 30
    private var frame: UInt64 = 0
    private(set) var uploads: UInt64 = 0
    private(set) var deviceBytes = 0
    /// The figures kept while the category is at DEBUG.
    private(set) var stats: CudaBlendStats?

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
            ptx = try cuda.kernelPTX(major: major, minor: minor).get()
            compiledKernels.withLock { $0[key] = ptx }
        }
        let loadStarted = g_get_monotonic_time()
        let loaded = ptx.withUnsafeBytes { cuda.cuModuleLoadData(&module, $0.baseAddress) }
        gst_watermark_log(
            nil, GST_LEVEL_DEBUG, "CUDA module loaded in \((g_get_monotonic_time() - loadStarted) / 1000) ms")
        guard loaded == 0, module != nil, cuda.cuModuleGetFunction(&function, module, "wm_blend") == 0,
            cuda.cuStreamCreate(&stream, 0) == 0,
            cuda.cuEventCreate(&done, UInt32(WM_CU_EVENT_BLOCKING_SYNC | WM_CU_EVENT_DISABLE_TIMING)) == 0
        else { throw CudaUnavailable(reason: "the blend kernel could not be loaded (CUDA error \(loaded))") }
        if gst_watermark_log_enabled(GST_LEVEL_DEBUG) != 0 { stats = CudaBlendStats(cuda: cuda) }
    }

    deinit {
        if cuda.contextPush(context) != 0 {
            for entry in uploaded.values { _ = cuda.cuMemFree(entry.block) }
            for s in spare { _ = cuda.cuMemFree(s.block) }
            stats?.destroy()
            if let done { _ = cuda.cuEventDestroy(done) }
            if let stream { _ = cuda.cuStreamDestroy(stream) }
            if let module { _ = cuda.cuModuleUnload(module) }
            _ = cuda.contextPop(nil)
        }
        gst_object_unref(context)
    }

    /// A device block of at least `size` bytes: a spare one that fits (not more than four
    /// times too big), else a new one.
    private func allocate(_ size: Int) -> (WMCUdeviceptr, Int)? {
        var best: Int?
        for (i, s) in spare.enumerated() where s.capacity >= size && s.capacity <= 4 * max(size, 1 << 16) {
            if best.map({ spare[$0].capacity > s.capacity }) ?? true { best = i }
        }
        if let best { return spare.remove(at: best) }
        let capacity = (size + 0xFFFF) & ~0xFFFF
        var ptr: WMCUdeviceptr = 0
        guard capacity <= Int(UInt32.max), cuda.cuMemAlloc(&ptr, UInt32(capacity)) == 0 else { return nil }
        deviceBytes += capacity
        return (ptr, capacity)
    }

    private func retire(_ block: WMCUdeviceptr, _ capacity: Int) {
        spare.append((block, capacity))
        if spare.count > Self.spareLimit {
            let oldest = spare.removeFirst()
            _ = cuda.cuMemFree(oldest.block)
            deviceBytes -= oldest.capacity
        }
    }

    /// The overlay's planes on the device, uploaded the first time it is blended.
    private func device(_ overlay: ConvertedOverlay) -> Uploaded? {
        guard let key = overlay.storageKey else { return nil }
        if var entry = uploaded[key] {
            entry.lastUsed = frame
            uploaded[key] = entry
            return entry
        }
        // One host block: per plane its values, inverse alphas and runs, each 256-aligned.
        let planes = overlay.devicePlanes.filter { $0.sampleCount > 0 }
        func aligned(_ n: Int) -> Int { (n + 255) & ~255 }
        var offsets: [(Int, Int, Int)] = []
        var size = 0
        for p in planes {
            let v = size, a = v + aligned(p.values.count), r = a + aligned(p.inverseAlpha.count)
            offsets.append((v, a, r))
            size = r + aligned(p.runs.count * 4)
        }
        guard size > 0, let (block, capacity) = allocate(size) else { return nil }
        var host = [UInt8](repeating: 0, count: size)
        host.withUnsafeMutableBytes { dst in
            for (p, (v, a, r)) in zip(planes, offsets) {
                p.values.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: dst[v..<v + $0.count]).copyMemory(from: $0)
                }
                p.inverseAlpha.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: dst[a..<a + $0.count]).copyMemory(from: $0)
                }
                p.runs.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: dst[r..<r + $0.count]).copyMemory(from: $0)
                }
            }
        }
        // Pageable memory: the call returns once the bytes are staged; the copy runs on the
        // stream, ahead of this frame's kernels.
        let copied = host.withUnsafeBytes { cuda.cuMemcpyHtoDAsync(block, $0.baseAddress, size, stream) }
        guard copied == 0 else {
            retire(block, capacity)
            return nil
        }
        let entry = Uploaded(
            overlay: overlay, block: block, capacity: capacity,
            planes: zip(planes, offsets).map { p, o in
                (p, block + UInt64(o.0), block + UInt64(o.1), block + UInt64(o.2))
            }, lastUsed: frame)
        uploads &+= 1
        uploaded[key] = entry
        return entry
    }

    /// Starts a frame (the context is made current by the caller).
    func begin() {
        frame &+= 1
        stats?.begin(stream: stream)
    }

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
            var slots:
                (
                    UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                    UInt64, UInt64, UInt64
                ) = (
                    UInt64(UInt(bitPattern: data)), UInt64(UInt32(bitPattern: stride)), values, alpha, runs,
                    UInt64(UInt32(plane.runCount)), UInt64(UInt32(plane.sampleCount)), plane.wide ? 1 : 0,
                    UInt64(plane.maxCode), UInt64(plane.codeMask), UInt64(UInt32(bitPattern: at.row0)),
                    UInt64(UInt32(bitPattern: at.sample0)), UInt64(UInt32(bitPattern: at.validRows)),
                    UInt64(UInt32(bitPattern: at.validSamples)), UInt64(at.op)
                )
            let block: UInt32 = 256
            let grid = UInt32((plane.sampleCount + Int(block) - 1) / Int(block))
            let status = withUnsafeMutableBytes(of: &slots) { raw -> Int32 in
                guard let base = raw.baseAddress else { return -1 }
                return withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 15) { params in
                    for i in 0..<15 { params[i] = base + i * 8 }
                    return cuda.cuLaunchKernel(function, grid, 1, 1, block, 1, 1, 0, stream, params.baseAddress, nil)
                }
            }
            if status != 0 { return false }
        }
        return true
    }

    /// Ends a frame: waits (asleep) for its kernels, then retires the overlays not blended
    /// for `keepFrames` frames (a moving layer's conversions for each chroma phase come back
    /// every other frame or so: they stay uploaded).
    func finish() -> Bool {
        stats?.end(stream: stream)
        let ok = cuda.cuEventRecord(done, stream) == 0 && cuda.cuEventSynchronize(done) == 0
        stats?.collect()
        for (key, entry) in uploaded where frame &- entry.lastUsed > Self.keepFrames {
            retire(entry.block, entry.capacity)
            uploaded[key] = nil
        }
        return ok
    }
}

/// GPU time of each frame's kernels (a pair of events around them) and the element's CPU and
/// wall time per frame, as the benchmark reports them.
final class CudaBlendStats {
    private let cuda: CudaLibrary
    private var start: OpaquePointer?
    private var end: OpaquePointer?
    private var gpu: [Double] = []
    private var cpu: [Double] = []
    private var wall: [Double] = []
    private static let limit = 1 << 20

    init(cuda: CudaLibrary) {
        self.cuda = cuda
        _ = cuda.cuEventCreate(&start, UInt32(WM_CU_EVENT_BLOCKING_SYNC))
        _ = cuda.cuEventCreate(&end, UInt32(WM_CU_EVENT_BLOCKING_SYNC))
    }

    func destroy() {
        if let start { _ = cuda.cuEventDestroy(start) }
        if let end { _ = cuda.cuEventDestroy(end) }
        start = nil
        end = nil
    }

    func begin(stream: OpaquePointer?) { _ = cuda.cuEventRecord(start, stream) }
    func end(stream: OpaquePointer?) { _ = cuda.cuEventRecord(end, stream) }

    func collect() {
        var ms: Float = 0
        if gpu.count < Self.limit, cuda.cuEventElapsedTime(&ms, start, end) == 0 { gpu.append(Double(ms) * 1000) }
    }

    /// One frame's time inside the element (µs), measured by the caller.
    func frame(cpu c: Double, wall w: Double) {
        guard cpu.count < Self.limit else { return }
        cpu.append(c)
        wall.append(w)
    }

    /// "CUDA blend: …" with the medians and 99th percentiles, in µs.
    func summary(uploads: UInt64, deviceBytes: Int) -> String {
        func spread(_ v: [Double]) -> String {
            guard !v.isEmpty else { return "-" }
            let s = v.sorted()
            let median = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
            let p99 = s[min(s.count - 1, s.count * 99 / 100)]
            let mean = s.reduce(0, +) / Double(s.count)
            return "median \(Int(median.rounded())) µs, mean \(Int(mean.rounded())) µs, p99 \(Int(p99.rounded())) µs"
        }
        return "CUDA blend: \(cpu.count) frames; GPU time of the kernels per frame \(spread(gpu)); "
            + "CPU time in the element per frame \(spread(cpu)); wall time \(spread(wall)); "
            + "\(uploads) overlay uploads, \(deviceBytes / 1024) KiB of device memory"
    }
}
