// The Swift ends of the vfunc trampolines in Sources/CShim/gstwatermark.c. `impl` is the
// pointer returned by gst_watermark_impl_new: a retained WatermarkImpl owned by the
// GstWatermark instance until gst_watermark_impl_free.

import CGStreamer
import CShim

@inline(__always)
private func object(_ impl: UnsafeMutableRawPointer?) -> WatermarkImpl? {
    guard let impl else { return nil }
    return Unmanaged<WatermarkImpl>.fromOpaque(impl).takeUnretainedValue()
}

@_cdecl("gst_watermark_impl_new")
public func watermarkImplNew(_ element: UnsafeMutablePointer<GstWatermark>?) -> UnsafeMutableRawPointer? {
    guard let element else { return nil }
    return Unmanaged.passRetained(WatermarkImpl(element: element)).toOpaque()
}

@_cdecl("gst_watermark_impl_free")
public func watermarkImplFree(_ impl: UnsafeMutableRawPointer?) {
    guard let impl else { return }
    Unmanaged<WatermarkImpl>.fromOpaque(impl).release()
}

@_cdecl("gst_watermark_impl_set_property")
public func watermarkImplSetProperty(_ impl: UnsafeMutableRawPointer?, _ id: UInt32, _ value: UnsafePointer<GValue>?)
    -> gboolean
{
    guard let value, let o = object(impl) else { return 0 }
    return o.setProperty(id, value) ? 1 : 0
}

@_cdecl("gst_watermark_impl_get_property")
public func watermarkImplGetProperty(
    _ impl: UnsafeMutableRawPointer?, _ id: UInt32, _ value: UnsafeMutablePointer<GValue>?
) -> gboolean {
    guard let value, let o = object(impl) else { return 0 }
    return o.getProperty(id, value) ? 1 : 0
}

@_cdecl("gst_watermark_impl_start")
public func watermarkImplStart(_ impl: UnsafeMutableRawPointer?) -> gboolean {
    (object(impl)?.start() ?? false) ? 1 : 0
}

@_cdecl("gst_watermark_impl_stop")
public func watermarkImplStop(_ impl: UnsafeMutableRawPointer?) -> gboolean {
    (object(impl)?.stop() ?? true) ? 1 : 0
}

@_cdecl("gst_watermark_impl_set_info")
public func watermarkImplSetInfo(
    _ impl: UnsafeMutableRawPointer?, _ inCaps: UnsafeMutablePointer<GstCaps>?,
    _ inInfo: UnsafeMutablePointer<GstVideoInfo>?,
    _ outCaps: UnsafeMutablePointer<GstCaps>?,
    _ outInfo: UnsafeMutablePointer<GstVideoInfo>?
) -> gboolean {
    (object(impl)?.setInfo(outCaps: outCaps, outInfo: outInfo) ?? false) ? 1 : 0
}

@_cdecl("gst_watermark_impl_before_transform")
public func watermarkImplBeforeTransform(_ impl: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<GstBuffer>?) {
    guard let buffer else { return }
    object(impl)?.beforeTransform(buffer)
}

@_cdecl("gst_watermark_impl_sink_event")
public func watermarkImplSinkEvent(_ impl: UnsafeMutableRawPointer?, _ event: UnsafeMutablePointer<GstEvent>?) {
    guard let event else { return }
    object(impl)?.sinkEvent(event)
}

@_cdecl("gst_watermark_impl_transform_frame_ip")
public func watermarkImplTransformFrameIP(
    _ impl: UnsafeMutableRawPointer?,
    _ frame: UnsafeMutablePointer<GstVideoFrame>?
) -> GstFlowReturn {
    guard let frame, let o = object(impl) else { return GST_FLOW_OK }
    return o.transform(frame)
}

@_cdecl("gst_watermark_impl_cuda_available")
public func watermarkImplCudaAvailable(_ impl: UnsafeMutableRawPointer?) -> gboolean {
    WatermarkImpl.cudaAvailable ? 1 : 0
}

@_cdecl("gst_watermark_impl_is_cuda")
public func watermarkImplIsCuda(_ impl: UnsafeMutableRawPointer?) -> gboolean {
    object(impl)?.stream.cuda == true ? 1 : 0
}

@_cdecl("gst_watermark_impl_transform_cuda")
public func watermarkImplTransformCuda(_ impl: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<GstBuffer>?)
    -> GstFlowReturn
{
    guard let buffer, let o = object(impl) else { return GST_FLOW_OK }
    return o.transformCuda(buffer)
}

@_cdecl("gst_watermark_impl_set_context")
public func watermarkImplSetContext(_ impl: UnsafeMutableRawPointer?, _ context: OpaquePointer?) {
    object(impl)?.setCudaContext(context)
}

@_cdecl("gst_watermark_impl_context_query")
public func watermarkImplContextQuery(_ impl: UnsafeMutableRawPointer?, _ query: UnsafeMutablePointer<GstQuery>?)
    -> gboolean
{
    guard let query, let o = object(impl) else { return 0 }
    return o.answerCudaContextQuery(query) ? 1 : 0
}
