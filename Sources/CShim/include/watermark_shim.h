/* The C side of the watermark element.
 *
 * C owns the GObject: the GstWatermark type, its class_init (metadata, pad templates,
 * property specs), the `watermark` debug category and GST_PLUGIN_DEFINE. Swift owns the
 * behaviour: every vfunc is a one-line trampoline into the Swift object stored in
 * GstWatermark.impl.
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
GType gst_watermark_anchor_get_type (void);

/* Property ids, shared with Swift's property switch. */
typedef enum {
  GST_WATERMARK_PROP_0,
  GST_WATERMARK_PROP_IMAGE,
  GST_WATERMARK_PROP_TEXT,
  GST_WATERMARK_PROP_FONT_DESC,
  GST_WATERMARK_PROP_TEXT_SIZE,
  GST_WATERMARK_PROP_COLOR,
  GST_WATERMARK_PROP_OUTLINE_COLOR,
  GST_WATERMARK_PROP_OUTLINE_WIDTH,
  GST_WATERMARK_PROP_SHADOW,
  GST_WATERMARK_PROP_ANCHOR,
  GST_WATERMARK_PROP_MARGIN_X,
  GST_WATERMARK_PROP_MARGIN_Y,
  GST_WATERMARK_PROP_X,
  GST_WATERMARK_PROP_Y,
  GST_WATERMARK_PROP_WIDTH,
  GST_WATERMARK_PROP_OPACITY,
  GST_WATERMARK_PROP_OVERLAY_MODE,
  GST_WATERMARK_PROP_START,
  GST_WATERMARK_PROP_END,
  GST_WATERMARK_PROP_FADE_IN,
  GST_WATERMARK_PROP_FADE_OUT,
  GST_WATERMARK_PROP_CONFIG,
  GST_WATERMARK_PROP_TEXT_FILE,
  GST_WATERMARK_PROP_ROTATION,
  GST_WATERMARK_PROP_FOLLOW_ORIENTATION,
  GST_WATERMARK_PROP_RENDER_COUNT,
  GST_WATERMARK_PROP_RENDER_AHEAD,
  GST_WATERMARK_PROP_LAST
} GstWatermarkProp;

/* Property defaults: the single definition, used by the param specs and by Swift. */
#define GST_WATERMARK_DEFAULT_FONT_DESC "Sans Bold"
#define GST_WATERMARK_DEFAULT_TEXT_SIZE 0.05
#define GST_WATERMARK_DEFAULT_COLOR 0xFFFFFFFFu
#define GST_WATERMARK_DEFAULT_OUTLINE_COLOR 0xFF000000u
#define GST_WATERMARK_DEFAULT_OUTLINE_WIDTH 0.08
#define GST_WATERMARK_DEFAULT_MARGIN 0.03
#define GST_WATERMARK_DEFAULT_WIDTH 0.12
#define GST_WATERMARK_DEFAULT_OPACITY 1.0
#define GST_WATERMARK_UNSET_POSITION (-1.0)

/* Values of the `anchor` enum property (GstWatermarkAnchor). */
typedef enum {
  GST_WATERMARK_ANCHOR_TOP_LEFT,
  GST_WATERMARK_ANCHOR_TOP,
  GST_WATERMARK_ANCHOR_TOP_RIGHT,
  GST_WATERMARK_ANCHOR_LEFT,
  GST_WATERMARK_ANCHOR_CENTER,
  GST_WATERMARK_ANCHOR_RIGHT,
  GST_WATERMARK_ANCHOR_BOTTOM_LEFT,
  GST_WATERMARK_ANCHOR_BOTTOM,
  GST_WATERMARK_ANCHOR_BOTTOM_RIGHT
} GstWatermarkAnchor;

/* Values of the `overlay-mode` enum property (GstWatermarkOverlayMode). */
typedef enum {
  GST_WATERMARK_OVERLAY_MODE_AUTO,
  GST_WATERMARK_OVERLAY_MODE_BLEND
} GstWatermarkOverlayMode;

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

/* --- buffers and frames (borrowed) --- */
GstClockTime gst_watermark_buffer_pts (GstBuffer * buffer);
guint8 *gst_watermark_frame_plane_data (GstVideoFrame * frame, guint plane);
gint gst_watermark_frame_plane_stride (GstVideoFrame * frame, guint plane);
GstSegment *gst_watermark_segment (GstWatermark * self);

/* --- overlay composition meta --- */
GType gst_watermark_overlay_meta_api_type (void);
/* Asks downstream (peer of the src pad) whether it accepts
 * GstVideoOverlayCompositionMeta for `caps` (borrowed). */
gboolean gst_watermark_downstream_accepts_overlay_meta (GstWatermark * self, GstCaps * caps);
/* Asks upstream (peer of the sink pad) whether the stream is live (latency query). */
gboolean gst_watermark_upstream_is_live (GstWatermark * self);

/* --- compiler builtins --- */
/* Asks for the cache line at `p` ahead of a write (never faults, whatever `p` is). */
static inline void
gst_watermark_prefetch (const void *p)
{
  __builtin_prefetch (p, 1, 3);
}

G_END_DECLS

#endif /* GST_WATERMARK_SHIM_H */
