// CUDA for frames in GPU memory, with nothing CUDA needed to build or to run elsewhere:
// GStreamer's libgstcuda-1.0 (which opens libcuda itself) and NVRTC are opened with dlopen
// the first time an element asks whether it can blend in CUDA memory. Where either is
// missing, or there is no device, the element does not offer CUDA caps and the debug log
// says why, once.

import CCuda
import CGStreamer
import Glibc
import Synchronization
import WatermarkBlend

/// The functions of libgstcuda-1.0 (its CUDA driver wrappers and context helpers) and of
/// NVRTC the element calls, resolved with dlsym.
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
    let cuMemAlloc: @convention(c) (UnsafeMutablePointer<WMCUdeviceptr>?, Int) -> Int32
    let cuMemFree: @convention(c) (WMCUdeviceptr) -> Int32
    let cuMemcpy2D: @convention(c) (UnsafePointer<WMCUDAMemcpy2D>?) -> Int32
    let cuStreamCreate: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UInt32) -> Int32
    let cuStreamDestroy: @convention(c) (OpaquePointer?) -> Int32
    let cuStreamSynchronize: @convention(c) (OpaquePointer?) -> Int32
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

    /// The library and a device, or why CUDA memory is not offered.
    static let shared: Result<CudaLibrary, CudaUnavailable> = load()

    /// NVRTC by the names CUDA 13 back to 11.2 install it under.
    static let nvrtcNames = [
        "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so",
    ]

    private static func load() -> Result<CudaLibrary, CudaUnavailable> {
        guard let gstcuda = dlopen("libgstcuda-1.0.so.0", RTLD_NOW | RTLD_LOCAL) else {
            return .failure(CudaUnavailable(reason: "libgstcuda-1.0 is not installed (gstreamer1.0-plugins-bad)"))
        }
        let override = getenv("GST_WATERMARK_NVRTC").map { [String(cString: $0)] } ?? []
        guard let nvrtc = (override + nvrtcNames).lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else {
            return .failure(
                CudaUnavailable(reason: "NVRTC (libnvrtc.so) is not installed: the blend kernel cannot be compiled"))
        }
        var missing: [String] = []
        func f<T>(_ lib: UnsafeMutableRawPointer, _ name: String) -> T? {
            guard let p = dlsym(lib, name) else {
                missing.append(name)
                return nil
            }
            return unsafeBitCast(p, to: T.self)
        }
        guard let a: @convention(c) () -> gboolean = f(gstcuda, "gst_cuda_load_library"),
            let b:
                @convention(c) (UnsafeMutablePointer<GstElement>?, Int32, UnsafeMutablePointer<Context?>?) -> gboolean =
                f(gstcuda, "gst_cuda_ensure_element_context"),
            let c:
                @convention(c) (
                    UnsafeMutablePointer<GstElement>?, OpaquePointer?, Int32, UnsafeMutablePointer<Context?>?
                ) -> gboolean = f(gstcuda, "gst_cuda_handle_set_context"),
            let d:
                @convention(c) (UnsafeMutablePointer<GstElement>?, UnsafeMutablePointer<GstQuery>?, Context?) ->
                    gboolean =
                f(gstcuda, "gst_cuda_handle_context_query"),
            let e: @convention(c) (Context?) -> gboolean = f(gstcuda, "gst_cuda_context_push"),
            let g: @convention(c) (UnsafeMutableRawPointer?) -> gboolean = f(gstcuda, "gst_cuda_context_pop"),
            let h: @convention(c) (UInt32) -> Int32 = f(gstcuda, "CuInit"),
            let i: @convention(c) (UnsafeMutablePointer<Int32>?) -> Int32 = f(gstcuda, "CuDeviceGetCount"),
            let j: @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32 = f(gstcuda, "CuDeviceGet"),
            let k: @convention(c) (UnsafeMutablePointer<Int32>?, Int32, Int32) -> Int32 = f(
                gstcuda, "CuDeviceGetAttribute"),
            let l: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UnsafeRawPointer?) -> Int32 =
                f(gstcuda, "CuModuleLoadData"),
            let m:
                @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, UnsafePointer<CChar>?) -> Int32 =
                f(gstcuda, "CuModuleGetFunction"),
            let n: @convention(c) (OpaquePointer?) -> Int32 = f(gstcuda, "CuModuleUnload"),
            let o:
                @convention(c) (
                    OpaquePointer?, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, OpaquePointer?,
                    UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
                ) -> Int32 = f(gstcuda, "CuLaunchKernel"),
            let p: @convention(c) (UnsafeMutablePointer<WMCUdeviceptr>?, Int) -> Int32 = f(gstcuda, "CuMemAlloc"),
            let q: @convention(c) (WMCUdeviceptr) -> Int32 = f(gstcuda, "CuMemFree"),
            let r: @convention(c) (UnsafePointer<WMCUDAMemcpy2D>?) -> Int32 = f(gstcuda, "CuMemcpy2D"),
            let s: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, UInt32) -> Int32 = f(
                gstcuda, "CuStreamCreate"),
            let t: @convention(c) (OpaquePointer?) -> Int32 = f(gstcuda, "CuStreamDestroy"),
            let u: @convention(c) (OpaquePointer?) -> Int32 = f(gstcuda, "CuStreamSynchronize"),
            let v:
                @convention(c) (
                    UnsafeMutablePointer<OpaquePointer?>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32,
                    UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?
                ) -> Int32 = f(nvrtc, "nvrtcCreateProgram"),
            let w: @convention(c) (OpaquePointer?, Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> Int32 =
                f(nvrtc, "nvrtcCompileProgram"),
            let x: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int>?) -> Int32 = f(nvrtc, "nvrtcGetPTXSize"),
            let y: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int32 = f(nvrtc, "nvrtcGetPTX"),
            let z: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int>?) -> Int32 =
                f(nvrtc, "nvrtcGetProgramLogSize"),
            let z1: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int32 = f(
                nvrtc, "nvrtcGetProgramLog"),
            let z2: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Int32 = f(nvrtc, "nvrtcDestroyProgram")
        else {
            return .failure(CudaUnavailable(reason: "CUDA functions missing: \(missing.joined(separator: ", "))"))
        }
        let lib = CudaLibrary(
            loadLibrary: a, ensureElementContext: b, handleSetContext: c, handleContextQuery: d, contextPush: e,
            contextPop: g, cuInit: h, cuDeviceGetCount: i, cuDeviceGet: j, cuDeviceGetAttribute: k, cuModuleLoadData: l,
            cuModuleGetFunction: m, cuModuleUnload: n, cuLaunchKernel: o, cuMemAlloc: p, cuMemFree: q, cuMemcpy2D: r,
            cuStreamCreate: s, cuStreamDestroy: t, cuStreamSynchronize: u, nvrtcCreateProgram: v,
            nvrtcCompileProgram: w, nvrtcGetPTXSize: x, nvrtcGetPTX: y, nvrtcGetProgramLogSize: z,
            nvrtcGetProgramLog: z1, nvrtcDestroyProgram: z2)
        guard lib.loadLibrary() != 0 else {
            return .failure(CudaUnavailable(reason: "libcuda (the NVIDIA driver) could not be loaded"))
        }
        var count: Int32 = 0
        guard lib.cuInit(0) == 0, lib.cuDeviceGetCount(&count) == 0, count > 0 else {
            return .failure(CudaUnavailable(reason: "no CUDA device"))
        }
        return .success(lib)
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
        let options = ["--gpu-architecture=compute_\(major)\(minor)", "--std=c++11"]
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
