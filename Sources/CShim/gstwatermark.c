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

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (WATERMARK_FORMATS)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (WATERMARK_FORMATS)));

G_DEFINE_TYPE (GstWatermark, gst_watermark, GST_TYPE_VIDEO_FILTER);

GType
gst_watermark_anchor_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_WATERMARK_ANCHOR_TOP_LEFT, "Top left corner", "top-left"},
    {GST_WATERMARK_ANCHOR_TOP, "Top edge, centred", "top"},
    {GST_WATERMARK_ANCHOR_TOP_RIGHT, "Top right corner", "top-right"},
    {GST_WATERMARK_ANCHOR_LEFT, "Left edge, centred", "left"},
    {GST_WATERMARK_ANCHOR_CENTER, "Centre", "center"},
    {GST_WATERMARK_ANCHOR_RIGHT, "Right edge, centred", "right"},
    {GST_WATERMARK_ANCHOR_BOTTOM_LEFT, "Bottom left corner", "bottom-left"},
    {GST_WATERMARK_ANCHOR_BOTTOM, "Bottom edge, centred", "bottom"},
    {GST_WATERMARK_ANCHOR_BOTTOM_RIGHT, "Bottom right corner", "bottom-right"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstWatermarkAnchor", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static GType
gst_watermark_overlay_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_WATERMARK_OVERLAY_MODE_AUTO,
        "Attach GstVideoOverlayCompositionMeta when downstream accepts it, else blend",
        "auto"},
    {GST_WATERMARK_OVERLAY_MODE_BLEND, "Always blend into the frame's pixels", "blend"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstWatermarkOverlayMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* ---- vfunc trampolines ---- */

static void
gst_watermark_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstWatermark *self = (GstWatermark *) object;
  if (prop_id == 0 || prop_id >= GST_WATERMARK_PROP_LAST) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  gst_watermark_impl_set_property (self->impl, prop_id, value);
}

static void
gst_watermark_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstWatermark *self = (GstWatermark *) object;
  if (prop_id == 0 || prop_id >= GST_WATERMARK_PROP_LAST) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    return;
  }
  gst_watermark_impl_get_property (self->impl, prop_id, value);
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

/* ---- class ---- */

#define PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define CONTROLLABLE_FLAGS (PARAM_FLAGS | GST_PARAM_CONTROLLABLE)

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

  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_IMAGE,
      g_param_spec_string ("image", "Image",
          "Path of a PNG, JPEG or SVG logo; decoded once when set or at start "
          "(SVG is rendered at the exact target size). Empty or NULL = no image",
          NULL, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_TEXT,
      g_param_spec_string ("text", "Text",
          "UTF-8 text drawn with Pango (shaping and per-glyph font fallback). Live "
          "placeholders: {pts} {stream-time} {running-time} {timecode} {frame} "
          "{clock:STRFTIME} ({{ and }} for braces). Empty or NULL = no text", NULL, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_FONT_DESC,
      g_param_spec_string ("font-desc", "Font description",
          "Pango font description such as \"Sans Bold\" or \"Serif Italic\"; any size "
          "in it is ignored (see text-size)", GST_WATERMARK_DEFAULT_FONT_DESC, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_TEXT_SIZE,
      g_param_spec_double ("text-size", "Text size",
          "Height of one text line as a fraction of the frame height", 0.001, 1.0,
          GST_WATERMARK_DEFAULT_TEXT_SIZE, CONTROLLABLE_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_COLOR,
      g_param_spec_uint ("color", "Text colour",
          "Text fill colour as 0xAARRGGBB (alpha in the top byte)", 0, G_MAXUINT32,
          GST_WATERMARK_DEFAULT_COLOR, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_OUTLINE_COLOR,
      g_param_spec_uint ("outline-color", "Outline colour",
          "Text outline colour as 0xAARRGGBB (alpha in the top byte)", 0, G_MAXUINT32,
          GST_WATERMARK_DEFAULT_OUTLINE_COLOR, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_OUTLINE_WIDTH,
      g_param_spec_double ("outline-width", "Outline width",
          "Text outline thickness as a fraction of the text size; 0 = no outline",
          0.0, 1.0, GST_WATERMARK_DEFAULT_OUTLINE_WIDTH, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_SHADOW,
      g_param_spec_boolean ("shadow", "Shadow",
          "Draw a soft drop shadow under the text and the image", FALSE, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_ANCHOR,
      g_param_spec_enum ("anchor", "Anchor",
          "Corner, edge or centre of the frame the overlay is placed at (and the point of "
          "the overlay that x/y position when they are set)",
          gst_watermark_anchor_get_type (), GST_WATERMARK_ANCHOR_BOTTOM_RIGHT, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_MARGIN_X,
      g_param_spec_double ("margin-x", "Horizontal margin",
          "Distance from the left/right edge named by the anchor, as a fraction of the "
          "frame width (ignored by anchors centred horizontally)", 0.0, 1.0,
          GST_WATERMARK_DEFAULT_MARGIN, CONTROLLABLE_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_MARGIN_Y,
      g_param_spec_double ("margin-y", "Vertical margin",
          "Distance from the top/bottom edge named by the anchor, as a fraction of the "
          "frame height (ignored by anchors centred vertically)", 0.0, 1.0,
          GST_WATERMARK_DEFAULT_MARGIN, CONTROLLABLE_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_X,
      g_param_spec_double ("x", "X position",
          "Horizontal position of the overlay's anchor point as a fraction of the frame "
          "width (0..1); -1 = unset, place by anchor and margin-x", -1.0, 1.0,
          GST_WATERMARK_UNSET_POSITION, CONTROLLABLE_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_Y,
      g_param_spec_double ("y", "Y position",
          "Vertical position of the overlay's anchor point as a fraction of the frame "
          "height (0..1); -1 = unset, place by anchor and margin-y", -1.0, 1.0,
          GST_WATERMARK_UNSET_POSITION, CONTROLLABLE_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_WIDTH,
      g_param_spec_double ("width", "Image width",
          "Image width as a fraction of the frame width (height keeps the aspect "
          "ratio); 0 = the image's own pixel size", 0.0, 1.0, GST_WATERMARK_DEFAULT_WIDTH,
          CONTROLLABLE_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_OPACITY,
      g_param_spec_double ("opacity", "Opacity",
          "Multiplies the overlay's own alpha: 0 = invisible, 1 = as drawn", 0.0, 1.0,
          GST_WATERMARK_DEFAULT_OPACITY, CONTROLLABLE_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_OVERLAY_MODE,
      g_param_spec_enum ("overlay-mode", "Overlay mode",
          "auto: attach a GstVideoOverlayCompositionMeta when downstream accepts "
          "it (GL, VA, Vulkan sinks) and leave the pixels alone, else blend; "
          "blend: always blend into the pixels", gst_watermark_overlay_mode_get_type (),
          GST_WATERMARK_OVERLAY_MODE_AUTO, PARAM_FLAGS));

  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_START,
      g_param_spec_double ("start", "Start",
          "Stream time in seconds at which the overlay appears; 0 = from the start",
          0.0, G_MAXDOUBLE, 0.0, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_END,
      g_param_spec_double ("end", "End",
          "Stream time in seconds at which the overlay disappears; -1 = never",
          -1.0, G_MAXDOUBLE, -1.0, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_FADE_IN,
      g_param_spec_double ("fade-in", "Fade in",
          "Seconds over which the overlay fades in after start; 0 = appears at once",
          0.0, G_MAXDOUBLE, 0.0, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_FADE_OUT,
      g_param_spec_double ("fade-out", "Fade out",
          "Seconds over which the overlay fades out before end; 0 = disappears at once",
          0.0, G_MAXDOUBLE, 0.0, PARAM_FLAGS));

  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_CONFIG,
      g_param_spec_string ("config", "Config file",
          "Path to a JSON file listing any number of layers (text, image, timing, "
          "keyframes, rotation), drawn in order under the single layer the other "
          "properties describe. Setting it again while playing reloads the file "
          "atomically; a bad file then keeps the old layers and posts a warning",
          NULL, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_TEXT_FILE,
      g_param_spec_string ("text-file", "Text file",
          "Path to a UTF-8 text file whose contents are shown instead of text; the "
          "file is watched and the text follows it (whole-file updates only)",
          NULL, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_ROTATION,
      g_param_spec_double ("rotation", "Rotation",
          "Clockwise rotation of the logo/text block about its centre, in degrees",
          -3600.0, 3600.0, 0.0, CONTROLLABLE_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_FOLLOW_ORIENTATION,
      g_param_spec_boolean ("follow-orientation", "Follow orientation",
          "Honour the stream's image-orientation tag: place and turn every layer so "
          "that it is upright at its anchor in the picture a player displays",
          TRUE, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_RENDER_AHEAD,
      g_param_spec_boolean ("render-ahead", "Render ahead",
          "Render layers that change with time (placeholders, animated style) one "
          "frame ahead on a worker thread, off the streaming thread (with a source "
          "that is not live, only layers that change now and then)",
          TRUE, PARAM_FLAGS));
  g_object_class_install_property (gobject_class, GST_WATERMARK_PROP_RENDER_COUNT,
      g_param_spec_uint64 ("render-count", "Render count",
          "Number of times a layer has been rendered (text shaped, image scaled) since "
          "start; static layers render once per caps change (diagnostics)",
          0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

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
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_watermark_set_info);
  filter_class->transform_frame_ip = GST_DEBUG_FUNCPTR (gst_watermark_transform_frame_ip);

  gst_type_mark_as_plugin_api (gst_watermark_anchor_get_type (), 0);
  gst_type_mark_as_plugin_api (gst_watermark_overlay_mode_get_type (), 0);
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
  if (gst_registry_find_feature (gst_registry_get (), "watermark",
          GST_TYPE_ELEMENT_FACTORY) != NULL && g_type_from_name ("GstWatermark") != 0)
    return TRUE;
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
