/* The C side of the watermark element.
 *
 * C owns the GObject: the GstWatermark type, its class_init (metadata, pad templates),
 * the `watermark` debug category and GST_PLUGIN_DEFINE. Swift owns the behaviour: every
 * vfunc is a one-line trampoline into the Swift object stored in GstWatermark.impl. The
 * property specs are installed by Swift from the one property table
 * (Sources/WatermarkModel/Properties.swift), so names, defaults, ranges and blurbs are
 * written once for the element, the config file, the CLI and the docs.
 *
 * The rest of this header wraps C macros Swift cannot call, one function each. Every
 * symbol is prefixed `gst_watermark_` (functions) or `GST_WATERMARK_` (constants).
 */
#ifndef GST_WATERMARK_SHIM_H
#define GST_WATERMARK_SHIM_H

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include <gst/video/video-overlay-composition.h>

G_BEGIN_DECLS

typedef struct _GstWatermark {
  GstVideoFilter parent;
  /* Retained Swift object (Unmanaged) holding settings and state: created in
   * instance_init, released in finalize. Never NULL between the two. */
  gpointer impl;
} GstWatermark;

typedef struct _GstWatermarkClass {
  GstVideoFilterClass parent_class;
} GstWatermarkClass;

GType gst_watermark_get_type (void);

/* Registers the plugin statically (for applications linking the element in, like the CLI
 * and the tests). Call after gst_init(). Returns TRUE on success or if already registered. */
gboolean gst_watermark_register_static (void);

/* --- casts (borrowed pointers, no reference change) --- */
GstBaseTransform *gst_watermark_as_base_transform (GstWatermark * self);
GObject *gst_watermark_as_object (gpointer instance);
GstWatermark *gst_watermark_from_element (GstElement * element);

/* --- messages and logging ---
 * Strings are copied; the caller keeps ownership of what it passes. */
void gst_watermark_post_error (GstWatermark * self, GQuark domain, gint code,
    const gchar * text, const gchar * debug);
void gst_watermark_post_warning (GstWatermark * self, GQuark domain, gint code,
    const gchar * text, const gchar * debug);
gboolean gst_watermark_log_enabled (GstDebugLevel level);
void gst_watermark_log (GstWatermark * self, GstDebugLevel level, const gchar * message);

GQuark gst_watermark_resource_error_quark (void);

/* Whether the caps' first structure has the CUDA memory feature. */
gboolean gst_watermark_caps_are_cuda (GstCaps * caps);

/* --- buffers and frames (borrowed) --- */
GstClockTime gst_watermark_buffer_pts (GstBuffer * buffer);
guint8 *gst_watermark_frame_plane_data (GstVideoFrame * frame, guint plane);
gint gst_watermark_frame_plane_stride (GstVideoFrame * frame, guint plane);
GstSegment *gst_watermark_segment (GstWatermark * self);
/* Whether a control binding is attached (an atomic read of the list head, without the
 * object lock: bindings are added while playing by other threads). */
gboolean gst_watermark_has_control_bindings (GstWatermark * self);

/* --- overlay composition meta --- */
GType gst_watermark_overlay_meta_api_type (void);
/* Asks downstream (peer of the src pad) whether it accepts
 * GstVideoOverlayCompositionMeta for `caps` (borrowed). */
gboolean gst_watermark_downstream_accepts_overlay_meta (GstWatermark * self, GstCaps * caps);
/* Asks upstream (peer of the sink pad) whether the stream is live (latency query). */
gboolean gst_watermark_upstream_is_live (GstWatermark * self);

/* --- param spec flags (macros built from G_PARAM_USER_SHIFT) --- */
GParamFlags gst_watermark_param_controllable (void);
GParamFlags gst_watermark_param_mutable_playing (void);


G_END_DECLS

#endif /* GST_WATERMARK_SHIM_H */
