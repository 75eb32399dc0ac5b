// CUDA for frames in GPU memory, with nothing CUDA needed to build or to run elsewhere:
// GStreamer's libgstcuda-1.0 (which opens libcuda itself) and NVRTC are opened with dlopen
// the first time an element asks whether it can blend in CUDA memory. Where either is
// missing, or there is no device, the element does not offer CUDA caps and the debug log
// says why, once.

import CCuda
import CGStreamer
import CShim
import Glibc
import Synchronization
import WatermarkBlend
import WatermarkSharedLibrary

/// The functions of libgstcuda-1.0 (its CUDA driver wrappers and context helpers) and of
/// NVRTC the element calls.
struct CudaLibrary: @unchecked Sendable {
    typealias Context = UnsafeMutableRawPointer  // GstCudaContext *
    let loadLibrary: @convention(c) () -> gboolean
    let ensureElementContext:
        @convention(c) (UnsafeMutablePointer<GstElement>?, Int32, UnsafeMutablePointer<Context?>?) -> gboolean
    let handleSetContext:
        @convention(c) (UnsafeMutablePointer<GstElement>?, OpaquePointer?, Int32, UnsafeMutablePointer<Context?>?)
            -> gboolean
    let handleContextQuery:
        @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstQuery>?, Context?) -> gboolean
    let contextPush: @convention(c) (Context?) -> gboolean
    let contextPop: @convention(c) (UnsafeMutableRawPointer?) -> gboolean
    let cuInit: @convention(c) (UInt32) -> Int32
    let cuDeviceGetCount: @convention(c) (UnsafeMutablePointer<Int32>?) -> Int32
    let cuDeviceGet: @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    let cuDeviceGetAttribute: @convention(c) (UnsafeMutablePointer<Int32>?, Int32, Int32) -> Int32
    let cuModuleLoadData: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafeRawPointer?) -> Int32
    let cuModuleGetFunction:
        @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, UnsafePointer<CChar>?) -> Int32
    let cuModuleUnload: @convention(c) (OpaquePointer?) -> Int32
    let cuLaunchKernel:
        @convention(c) (
            OpaquePointer?, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, OpaquePointer?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> Int32
    /// `CuMemAlloc (CUdeviceptr *, unsigned int)` in every GStreamer from 1.22 to 1.28 (the
    /// wrapper's size is 32 bits wide, unlike the driver's own `size_t`).
    let cuMemAlloc: @convention(c) (UnsafeMutablePointer<WMCUdeviceptr>?, UInt32) -> Int32
    let cuMemFree: @convention(c) (WMCUdeviceptr) -> Int32
    let cuMemcpy2D: @convention(c) (UnsafePointer<WMCUDAMemcpy2D>?) -> Int32
    let cuStreamCreate: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UInt32) -> Int32
    let cuStreamDestroy: @convention(c) (OpaquePointer?) -> Int32
    let cuStreamSynchronize: @convention(c) (OpaquePointer?) -> Int32
    /// `gst_is_cuda_memory` (every version).
    let isCudaMemory: @convention(c) (UnsafeMutablePointer<GstMemory>?) -> gboolean
    /// `gst_cuda_memory_sync (GstCudaMemory *)`, GStreamer 1.24 and later; nil before. Since 1.24
    /// CUDA memory carries its producer's stream and mapping it with GST_MAP_CUDA no longer waits
    /// for the work queued there: a consumer on a stream of its own waits with this. In 1.22
    /// producers synchronised before pushing, and the function does not exist.
    let memorySync: (@convention(c) (UnsafeMutablePointer<GstMemory>?) -> Void)?
    // The driver's own (libcuda.so.1): events and the asynchronous upload.
    let cuEventCreate: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UInt32) -> Int32
    let cuEventRecord: @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32
    let cuEventSynchronize: @convention(c) (OpaquePointer?) -> Int32
    let cuEventElapsedTime: @convention(c) (UnsafeMutablePointer<Float>?, OpaquePointer?, OpaquePointer?) -> Int32
    let cuEventDestroy: @convention(c) (OpaquePointer?) -> Int32
    let cuMemcpyHtoDAsync: @convention(c) (WMCUdeviceptr, UnsafeRawPointer?, Int, OpaquePointer?) -> Int32
    // NVRTC
    let nvrtcCreateProgram:
        @convention(c) (
            UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32,
            UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?
        ) -> Int32
    let nvrtcCompileProgram: @convention(c) (OpaquePointer?, Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> Int32
    let nvrtcGetPTXSize: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int>?) -> Int32
    let nvrtcGetPTX: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int32
    let nvrtcGetProgramLogSize: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int>?) -> Int32
    let nvrtcGetProgramLog: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int32
    let nvrtcDestroyProgram: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    let nvrtcVersion: @convention(c) (UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?) -> Int32

    /// The library and a device, or why CUDA memory is not offered.
    static let shared: Result<CudaLibrary, CudaUnavailable> = {
        let started = g_get_monotonic_time()
        let result = Result { () throws(CudaUnavailable) in try load() }
        if case .success = result {
            gst_watermark_log(
                nil, GST_LEVEL_DEBUG, "CUDA libraries loaded in \((g_get_monotonic_time() - started) / 1000) ms")
        }
        return result
    }()

    /// NVRTC by the names CUDA 13 back to 11.2 install it under.
    static let nvrtcNames = [
        "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
    ]

    /// The driver first: where there is none (most machines), nothing else is opened.
    /// libgstcuda brings GStreamer's GL library and libGL with it (~1.5 MB resident).
    private static func load() throws(CudaUnavailable) -> CudaLibrary {
        func open(_ names: [String], lazy: Bool = false, else why: String) throws(CudaUnavailable) -> SharedLibrary {
            do { return try SharedLibrary(firstOf: names, lazy: lazy) } catch { throw CudaUnavailable(reason: why) }
        }
        let driver = try open(["libcuda.so.1"], else: "libcuda (the NVIDIA driver) could not be loaded")
        let override = getenv("GST_WATERMARK_NVRTC").map { [String(cString: $0)] } ?? []
        let nvrtc = try open(
            override + nvrtcNames, lazy: true,
            else: "NVRTC (libnvrtc.so) is not installed: the blend kernel cannot be compiled")
        let gstcuda = try open(
            ["libgstcuda-1.0.so.0"], else: "libgstcuda-1.0 is not installed (gstreamer1.0-plugins-bad)")
        let lib: CudaLibrary
        do { lib = try CudaLibrary(driver: driver, nvrtc: nvrtc, gstcuda: gstcuda) } catch {
            throw CudaUnavailable(reason: "CUDA functions missing: \(error.reason)")
        }
        guard lib.loadLibrary() != 0 else {
            throw CudaUnavailable(reason: "libcuda (the NVIDIA driver) could not be loaded")
        }
        var count: Int32 = 0
        guard lib.cuInit(0) == 0, lib.cuDeviceGetCount(&count) == 0, count > 0 else {
            throw CudaUnavailable(reason: "no CUDA device")
        }
        return lib
    }

    private init(driver: SharedLibrary, nvrtc: SharedLibrary, gstcuda: SharedLibrary) throws(LibraryUnavailable) {
        loadLibrary = try gstcuda.function("gst_cuda_load_library")
        ensureElementContext = try gstcuda.function("gst_cuda_ensure_element_context")
        handleSetContext = try gstcuda.function("gst_cuda_handle_set_context")
        handleContextQuery = try gstcuda.function("gst_cuda_handle_context_query")
        contextPush = try gstcuda.function("gst_cuda_context_push")
        contextPop = try gstcuda.function("gst_cuda_context_pop")
        cuInit = try gstcuda.function("CuInit")
        cuDeviceGetCount = try gstcuda.function("CuDeviceGetCount")
        cuDeviceGet = try gstcuda.function("CuDeviceGet")
        cuDeviceGetAttribute = try gstcuda.function("CuDeviceGetAttribute")
        cuModuleLoadData = try gstcuda.function("CuModuleLoadData")
        cuModuleGetFunction = try gstcuda.function("CuModuleGetFunction")
        cuModuleUnload = try gstcuda.function("CuModuleUnload")
        cuLaunchKernel = try gstcuda.function("CuLaunchKernel")
        cuMemAlloc = try gstcuda.function("CuMemAlloc")
        cuMemFree = try gstcuda.function("CuMemFree")
        cuMemcpy2D = try gstcuda.function("CuMemcpy2D")
        cuStreamCreate = try gstcuda.function("CuStreamCreate")
        cuStreamDestroy = try gstcuda.function("CuStreamDestroy")
        cuStreamSynchronize = try gstcuda.function("CuStreamSynchronize")
        isCudaMemory = try gstcuda.function("gst_is_cuda_memory")
        memorySync = Self.runningAtLeast(1, 24) ? try gstcuda.function("gst_cuda_memory_sync") : nil
        cuEventCreate = try driver.function("cuEventCreate")
        cuEventRecord = try driver.function("cuEventRecord")
        cuEventSynchronize = try driver.function("cuEventSynchronize")
        cuEventElapsedTime = try driver.function("cuEventElapsedTime")
        cuEventDestroy = try driver.function("cuEventDestroy_v2")
        cuMemcpyHtoDAsync = try driver.function("cuMemcpyHtoDAsync_v2")
        nvrtcCreateProgram = try nvrtc.function("nvrtcCreateProgram")
        nvrtcCompileProgram = try nvrtc.function("nvrtcCompileProgram")
        nvrtcGetPTXSize = try nvrtc.function("nvrtcGetPTXSize")
        nvrtcGetPTX = try nvrtc.function("nvrtcGetPTX")
        nvrtcGetProgramLogSize = try nvrtc.function("nvrtcGetProgramLogSize")
        nvrtcGetProgramLog = try nvrtc.function("nvrtcGetProgramLog")
        nvrtcDestroyProgram = try nvrtc.function("nvrtcDestroyProgram")
        nvrtcVersion = try nvrtc.function("nvrtcVersion")
    }

    /// Whether the GStreamer this process runs (not the one it was built with) is
    /// `major`.`minor` or newer: libgstcuda's ABI follows the running library (same soname).
    static func runningAtLeast(_ major: UInt32, _ minor: UInt32) -> Bool {
        var a: guint = 0, b: guint = 0, c: guint = 0, d: guint = 0
        gst_version(&a, &b, &c, &d)
        return (a, b) >= (major, minor)
    }

    /// Waits for the work the producers of `buffer`'s CUDA memories queued on their streams
    /// (GStreamer 1.24 and later; nothing to wait for before).
    func waitForProducers(_ buffer: UnsafeMutablePointer<GstBuffer>) {
        guard let memorySync else { return }
        for i in 0..<gst_buffer_n_memory(buffer) {
            if let memory = gst_buffer_peek_memory(buffer, i), isCudaMemory(memory) != 0 { memorySync(memory) }
        }
    }

    /// The blend kernel's PTX for compute capability `major`.`minor`: from the user's cache
    /// (`$XDG_CACHE_HOME/gst-watermark/cuda/`, named by a hash of the source, the options and
    /// NVRTC's version, so a changed kernel is compiled anew), else compiled and stored there.
    /// Compiling costs a few hundred milliseconds of CPU; every later process reads the file.
    func kernelPTX(major: Int32, minor: Int32) -> Result<[CChar], CudaUnavailable> {
        var nvMajor: Int32 = 0, nvMinor: Int32 = 0
        _ = nvrtcVersion(&nvMajor, &nvMinor)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(DeviceBlend.cudaSource)|\(Self.options(major: major, minor: minor))|\(nvMajor).\(nvMinor)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        let folder = String(cString: g_get_user_cache_dir()) + "/gst-watermark/cuda"
        let path = "\(folder)/wm_blend-\(hex)-compute_\(major)\(minor).ptx"
        var contents: UnsafeMutablePointer<gchar>?
        var length: gsize = 0
        if g_file_get_contents(path, &contents, &length, nil) != 0, let contents {
            defer { g_free(contents) }
            let text = Array(UnsafeBufferPointer(start: contents, count: Int(length)))
            // PTX is text: a file cut short or not ours is compiled anew.
            if length > 0, text.contains(0) == false, String(cString: contents).hasPrefix("//") {
                gst_watermark_log(nil, GST_LEVEL_INFO, "the CUDA blend kernel read from \(path)")
                return .success(text + [0])
            }
        }
        let started = g_get_monotonic_time()
        let compiled = compile(major: major, minor: minor)
        if case .success(let ptx) = compiled {
            let ms = (g_get_monotonic_time() - started) / 1000
            let body = ptx.prefix { $0 != 0 }
            let stored =
                g_mkdir_with_parents(folder, 0o755) == 0
                && body.withUnsafeBufferPointer { g_file_set_contents(path, $0.baseAddress, gssize($0.count), nil) }
                    != 0
            gst_watermark_log(
                nil, GST_LEVEL_INFO,
                "the CUDA blend kernel compiled for compute_\(major)\(minor) in \(ms) ms"
                    + (stored ? ", stored in \(path)" : " (the cache folder \(folder) is not writable)"))
        }
        return compiled
    }

    static func options(major: Int32, minor: Int32) -> [String] {
        ["--gpu-architecture=compute_\(major)\(minor)", "--std=c++11"]
    }

    /// The blend kernel compiled for compute capability `major`.`minor` (PTX, loaded by the
    /// driver), or the compiler's log.
    func compile(major: Int32, minor: Int32) -> Result<[CChar], CudaUnavailable> {
        var program: OpaquePointer?
        let source = DeviceBlend.cudaSource
        guard nvrtcCreateProgram(&program, source, "wm_blend.cu", 0, nil, nil) == 0, program != nil else {
            return .failure(CudaUnavailable(reason: "NVRTC could not create the program"))
        }
        defer { _ = nvrtcDestroyProgram(&program) }
        let options = Self.options(major: major, minor: minor)
        let cOptions = options.map { strdup($0) }
        defer { for o in cOptions { free(o) } }
        let status = cOptions.map { UnsafePointer($0) }.withUnsafeBufferPointer {
            nvrtcCompileProgram(program, Int32($0.count), $0.baseAddress)
        }
        guard status == 0 else {
            var size = 0
            _ = nvrtcGetProgramLogSize(program, &size)
            var log = [CChar](repeating: 0, count: max(size, 1))
            _ = nvrtcGetProgramLog(program, &log)
            let text = String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(CudaUnavailable(reason: "NVRTC failed for compute_\(major)\(minor): \(text)"))
        }
        var size = 0
        guard nvrtcGetPTXSize(program, &size) == 0, size > 0 else {
            return .failure(CudaUnavailable(reason: "NVRTC gave no PTX"))
        }
        var ptx = [CChar](repeating: 0, count: size)
        guard nvrtcGetPTX(program, &ptx) == 0 else { return .failure(CudaUnavailable(reason: "NVRTC gave no PTX")) }
        return .success(ptx)
    }
}

struct CudaUnavailable: Error, Sendable {
    let reason: String
}
