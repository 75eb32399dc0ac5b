/* Entry points implemented in Swift (WatermarkElement, @_cdecl). Private to the shim:
 * the vfunc trampolines in gstwatermark.c are their only callers.
 *
 * `impl` is the opaque pointer returned by gst_watermark_impl_new(), owned by the
 * GstWatermark instance until gst_watermark_impl_free(). */
#ifndef GST_WATERMARK_SWIFT_HOOKS_H
#define GST_WATERMARK_SWIFT_HOOKS_H

#include "watermark_shim.h"

gpointer gst_watermark_impl_new (GstWatermark * element);
void gst_watermark_impl_free (gpointer impl);
/* Installs every property spec on the class (from class_init). */
void gst_watermark_impl_install_properties (GObjectClass * klass);
/* FALSE for an id that is not one of the installed properties. */
gboolean gst_watermark_impl_set_property (gpointer impl, guint prop_id, const GValue * value);
gboolean gst_watermark_impl_get_property (gpointer impl, guint prop_id, GValue * value);
gboolean gst_watermark_impl_start (gpointer impl);
gboolean gst_watermark_impl_stop (gpointer impl);
gboolean gst_watermark_impl_set_info (gpointer impl, GstCaps * incaps, GstVideoInfo * in_info,
    GstCaps * outcaps, GstVideoInfo * out_info);
void gst_watermark_impl_before_transform (gpointer impl, GstBuffer * buffer);
/* Looks at a sink event (tags) before the base class handles it; never takes it. */
void gst_watermark_impl_sink_event (gpointer impl, GstEvent * event);
GstFlowReturn gst_watermark_impl_transform_frame_ip (gpointer impl, GstVideoFrame * frame);
/* CUDA memory: whether it can be blended here (CUDA and NVRTC load), whether the negotiated
 * caps are in it, the blend of one buffer, and the shared CUDA context. */
gboolean gst_watermark_impl_cuda_available (gpointer impl);
gboolean gst_watermark_impl_is_cuda (gpointer impl);
GstFlowReturn gst_watermark_impl_transform_cuda (gpointer impl, GstBuffer * buffer);
void gst_watermark_impl_set_context (gpointer impl, GstContext * context);
gboolean gst_watermark_impl_context_query (gpointer impl, GstQuery * query);

#endif
