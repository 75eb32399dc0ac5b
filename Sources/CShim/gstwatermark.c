/* GstWatermark: GObject registration and vfunc trampolines.
 *
 * Behaviour lives in Swift (Sources/WatermarkElement); this file only declares the type,
 * its properties and pads, and forwards every vfunc to the Swift object in self->impl.
 */
#include "watermark_shim.h"
#include "swift_hooks.h"

GST_DEBUG_CATEGORY_STATIC (gst_watermark_debug);
#define GST_CAT_DEFAULT gst_watermark_debug

/* Every format the Swift blender handles: it blends in the frame's own layout, driven by
 * GstVideoFormatInfo, so any planar/semi-planar/packed 8- or 16-bit little-endian format
 * without palette works. */
#define WATERMARK_FORMATS \
  "{ I420, YV12, NV12, NV21, Y42B, Y444, Y41B, NV16, NV61, NV24, AYUV, UYVY, YUY2, YVYU, " \
  "BGRA, BGRx, RGBA, RGBx, ARGB, xRGB, ABGR, xBGR, RGB, BGR, GRAY8, GRAY16_LE, " \
  "I420_10LE, I422_10LE, Y444_10LE, P010_10LE }"

/* Frames in NVIDIA GPU memory (GStreamer's CUDA memory, from nvh264dec and cudaupload):
 * blended there by a CUDA kernel. Offered only where CUDA and NVRTC load (transform_caps). */
#define WATERMARK_CUDA_FEATURE "memory:CUDAMemory"
#define WATERMARK_CUDA_FORMATS "{ NV12, I420, P010_10LE, BGRA, RGBA }"

#define WATERMARK_CAPS \
  GST_VIDEO_CAPS_MAKE (WATERMARK_FORMATS) "; " \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES (WATERMARK_CUDA_FEATURE, WATERMARK_CUDA_FORMATS)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (WATERMARK_CAPS));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (WATERMARK_CAPS));

G_DEFINE_TYPE (GstWatermark, gst_watermark, GST_TYPE_VIDEO_FILTER);

/* ---- vfunc trampolines ---- */

static void
gst_watermark_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstWatermark *self = (GstWatermark *) object;
  if (!gst_watermark_impl_set_property (self->impl, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_watermark_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstWatermark *self = (GstWatermark *) object;
  if (!gst_watermark_impl_get_property (self->impl, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_watermark_finalize (GObject * object)
{
  GstWatermark *self = (GstWatermark *) object;
  gst_watermark_impl_free (self->impl);
  self->impl = NULL;
  G_OBJECT_CLASS (gst_watermark_parent_class)->finalize (object);
}

static gboolean
gst_watermark_start (GstBaseTransform * trans)
{
  return gst_watermark_impl_start (((GstWatermark *) trans)->impl);
}

static gboolean
gst_watermark_stop (GstBaseTransform * trans)
{
  return gst_watermark_impl_stop (((GstWatermark *) trans)->impl);
}

static void
gst_watermark_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  gst_watermark_impl_before_transform (((GstWatermark *) trans)->impl, buffer);
}

static gboolean
gst_watermark_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  gst_watermark_impl_sink_event (((GstWatermark *) trans)->impl, event);
  return GST_BASE_TRANSFORM_CLASS (gst_watermark_parent_class)->sink_event (trans, event);
}

static gboolean
gst_watermark_set_info (GstVideoFilter * filter, GstCaps * incaps, GstVideoInfo * in_info,
    GstCaps * outcaps, GstVideoInfo * out_info)
{
  return gst_watermark_impl_set_info (((GstWatermark *) filter)->impl, incaps, in_info,
      outcaps, out_info);
}

static GstFlowReturn
gst_watermark_transform_frame_ip (GstVideoFilter * filter, GstVideoFrame * frame)
{
  return gst_watermark_impl_transform_frame_ip (((GstWatermark *) filter)->impl, frame);
}

/* CUDA caps only where the Swift side can blend in CUDA memory. Whether it can (libgstcuda,
 * libcuda and NVRTC opened) is asked only when CUDA caps come up: a pipeline in system memory
 * never loads them. */
static GstCaps *
gst_watermark_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstCaps *result = GST_BASE_TRANSFORM_CLASS (gst_watermark_parent_class)->transform_caps (trans,
      direction, caps, filter);
  if (result == NULL)
    return NULL;
  GstCapsFeatures *cuda = gst_caps_features_new (WATERMARK_CUDA_FEATURE, NULL);
  gboolean removed = FALSE;
  for (gint i = (gint) gst_caps_get_size (result) - 1; i >= 0; i--) {
    GstCapsFeatures *f = gst_caps_get_features (result, i);
    if (f == NULL || !gst_caps_features_is_equal (f, cuda))
      continue;
    if (gst_watermark_impl_cuda_available (((GstWatermark *) trans)->impl))
      break;
    if (!removed) {
      result = gst_caps_make_writable (result);
      removed = TRUE;
    }
    gst_caps_remove_structure (result, i);
  }
  gst_caps_features_free (cuda);
  return result;
}

/* Frames in CUDA memory are blended by the Swift side on the device, unmapped; the rest are
 * mapped by GstVideoFilter and handed to transform_frame_ip. */
static GstFlowReturn
gst_watermark_transform_ip (GstBaseTransform * trans, GstBuffer * buffer)
{
  GstWatermark *self = (GstWatermark *) trans;
  if (gst_watermark_impl_is_cuda (self->impl))
    return gst_watermark_impl_transform_cuda (self->impl, buffer);
  return GST_BASE_TRANSFORM_CLASS (gst_watermark_parent_class)->transform_ip (trans, buffer);
}

/* In CUDA memory the decoder keeps its own pool: only the video meta is asked for. */
static gboolean
gst_watermark_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query)
{
  GstCaps *caps = NULL;
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps != NULL && gst_watermark_caps_are_cuda (caps)) {
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_watermark_parent_class)->propose_allocation (trans,
      decide_query, query);
}

/* The CUDA context is shared with the neighbours (GstContext "gst.cuda.context"). Contexts
 * and queries of other types (GL displays, …) never reach the Swift side, which would open
 * the CUDA libraries to answer them. */
#define WATERMARK_CUDA_CONTEXT_TYPE "gst.cuda.context"

static void
gst_watermark_set_context (GstElement * element, GstContext * context)
{
  if (g_strcmp0 (gst_context_get_context_type (context), WATERMARK_CUDA_CONTEXT_TYPE) == 0)
    gst_watermark_impl_set_context (((GstWatermark *) element)->impl, context);
  GST_ELEMENT_CLASS (gst_watermark_parent_class)->set_context (element, context);
}

static gboolean
gst_watermark_query (GstBaseTransform * trans, GstPadDirection direction, GstQuery * query)
{
  const gchar *type = NULL;
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT && gst_query_parse_context_type (query, &type)
      && g_strcmp0 (type, WATERMARK_CUDA_CONTEXT_TYPE) == 0
      && gst_watermark_impl_context_query (((GstWatermark *) trans)->impl, query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_watermark_parent_class)->query (trans, direction, query);
}

gboolean
gst_watermark_caps_are_cuda (GstCaps * caps)
{
  GstCapsFeatures *f = caps != NULL && gst_caps_get_size (caps) > 0 ? gst_caps_get_features (caps, 0) : NULL;
  return f != NULL && gst_caps_features_contains (f, WATERMARK_CUDA_FEATURE);
}

/* ---- class ---- */

static void
gst_watermark_class_init (GstWatermarkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_watermark_set_property;
  gobject_class->get_property = gst_watermark_get_property;
  gobject_class->finalize = gst_watermark_finalize;

  /* Every property, from the Swift property table (ids 1…n in table order). */
  gst_watermark_impl_install_properties (gobject_class);

  gst_element_class_set_static_metadata (element_class,
      "Watermark overlay", "Filter/Editor/Video",
      "Burns a text and/or image watermark (PNG, JPEG, SVG) into video, placed by anchor "
      "and margins relative to the frame so it looks the same at any resolution. "
      "Example: gst-launch-1.0 videotestsrc ! watermark image=logo.svg "
      "text=\"(c) ACME\" ! videoconvert ! autovideosink",
      "gst-watermark developers");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_watermark_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_watermark_stop);
  trans_class->before_transform = GST_DEBUG_FUNCPTR (gst_watermark_before_transform);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_watermark_sink_event);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_watermark_transform_caps);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_watermark_transform_ip);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_watermark_propose_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_watermark_query);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_watermark_set_context);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_watermark_set_info);
  filter_class->transform_frame_ip = GST_DEBUG_FUNCPTR (gst_watermark_transform_frame_ip);
}

static void
gst_watermark_init (GstWatermark * self)
{
  self->impl = gst_watermark_impl_new (self);
}

/* ---- plugin ---- */

static gboolean
plugin_init (GstPlugin * plugin)
{
  GST_DEBUG_CATEGORY_INIT (gst_watermark_debug, "watermark", 0,
      "Text and image watermark overlay");
  return gst_element_register (plugin, "watermark", GST_RANK_NONE, gst_watermark_get_type ());
}

#define ORIGIN "https://github.com/gst-watermark/gst-watermark"

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, watermark,
    "Text and image watermark overlay", plugin_init, VERSION, "MIT/X11", PACKAGE, ORIGIN)

gboolean
gst_watermark_register_static (void)
{
  GstPluginFeature *feature = gst_registry_find_feature (gst_registry_get (),
      "watermark", GST_TYPE_ELEMENT_FACTORY);

  /* find_feature returns a reference of the caller's own. */
  if (feature != NULL) {
    gst_object_unref (feature);
    if (g_type_from_name ("GstWatermark") != 0)
      return TRUE;
  }
  return gst_plugin_register_static (GST_VERSION_MAJOR, GST_VERSION_MINOR, "watermark",
      "Text and image watermark overlay", plugin_init, VERSION, "MIT/X11", PACKAGE,
      PACKAGE, ORIGIN);
}

/* ---- macro wrappers ---- */

GstBaseTransform *
gst_watermark_as_base_transform (GstWatermark * self)
{
  return GST_BASE_TRANSFORM (self);
}

GObject *
gst_watermark_as_object (gpointer instance)
{
  return G_OBJECT (instance);
}

GstWatermark *
gst_watermark_from_element (GstElement * element)
{
  if (element == NULL || !G_TYPE_CHECK_INSTANCE_TYPE (element, gst_watermark_get_type ()))
    return NULL;
  return (GstWatermark *) element;
}

void
gst_watermark_post_error (GstWatermark * self, GQuark domain, gint code,
    const gchar * text, const gchar * debug)
{
  /* gst_element_message_full takes ownership of text and debug. */
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR, domain, code,
      g_strdup (text), g_strdup (debug), __FILE__, GST_FUNCTION, __LINE__);
}

void
gst_watermark_post_warning (GstWatermark * self, GQuark domain, gint code,
    const gchar * text, const gchar * debug)
{
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_WARNING, domain, code,
      g_strdup (text), g_strdup (debug), __FILE__, GST_FUNCTION, __LINE__);
}

gboolean
gst_watermark_log_enabled (GstDebugLevel level)
{
#ifndef GST_DISABLE_GST_DEBUG
  return gst_watermark_debug != NULL
      && gst_debug_category_get_threshold (gst_watermark_debug) >= level;
#else
  return FALSE;
#endif
}

void
gst_watermark_log (GstWatermark * self, GstDebugLevel level, const gchar * message)
{
#ifndef GST_DISABLE_GST_DEBUG
  if (gst_watermark_debug == NULL)
    return;
  gst_debug_log_literal (gst_watermark_debug, level, "swift", "", 0,
      self ? G_OBJECT (self) : NULL, message);
#endif
}

GQuark
gst_watermark_resource_error_quark (void)
{
  return GST_RESOURCE_ERROR;
}

GstClockTime
gst_watermark_buffer_pts (GstBuffer * buffer)
{
  return GST_BUFFER_PTS (buffer);
}

guint8 *
gst_watermark_frame_plane_data (GstVideoFrame * frame, guint plane)
{
  return GST_VIDEO_FRAME_PLANE_DATA (frame, plane);
}

gint
gst_watermark_frame_plane_stride (GstVideoFrame * frame, guint plane)
{
  return GST_VIDEO_FRAME_PLANE_STRIDE (frame, plane);
}

GstSegment *
gst_watermark_segment (GstWatermark * self)
{
  return &GST_BASE_TRANSFORM (self)->segment;
}

GParamFlags
gst_watermark_param_controllable (void)
{
  return GST_PARAM_CONTROLLABLE;
}

GParamFlags
gst_watermark_param_mutable_playing (void)
{
  return GST_PARAM_MUTABLE_PLAYING;
}

gboolean
gst_watermark_has_control_bindings (GstWatermark * self)
{
  return g_atomic_pointer_get (&GST_OBJECT (self)->control_bindings) != NULL;
}

GType
gst_watermark_overlay_meta_api_type (void)
{
  return GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE;
}

gboolean
gst_watermark_downstream_accepts_overlay_meta (GstWatermark * self, GstCaps * caps)
{
  GstQuery *query;
  gboolean accepted = FALSE;

  if (caps == NULL)
    return FALSE;
  query = gst_query_new_allocation (caps, FALSE);
  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SRC_PAD (self), query))
    accepted = gst_query_find_allocation_meta (query,
        GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL);
  gst_query_unref (query);
  return accepted;
}

gboolean
gst_watermark_upstream_is_live (GstWatermark * self)
{
  GstQuery *query = gst_query_new_latency ();
  gboolean live = FALSE;

  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query))
    gst_query_parse_latency (query, &live, NULL, NULL);
  gst_query_unref (query);
  return live;
}
