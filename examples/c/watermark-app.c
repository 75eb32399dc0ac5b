/* Embedding the watermark element in a C application.
 *
 * Builds videotestsrc → watermark → x264enc → mp4mux → file (or a camera with --device),
 * sets the overlay with g_object_set, changes the caption every half second while playing
 * (as a viewer counter would), and handles the bus until EOS.
 *
 *   cc watermark-app.c $(pkg-config --cflags --libs gstreamer-1.0) -o watermark-app
 *   ./watermark-app out.mp4 [logo.svg] [--device /dev/video0]
 *
 * The plugin must be installed (make install) or found through GST_PLUGIN_PATH.
 */
#include <gst/gst.h>
#include <string.h>

typedef struct {
  GstElement *watermark;
  GMainLoop *loop;
  guint viewers;
  gint exit_code;
} App;

static gboolean
update_caption (gpointer data)
{
  App *app = data;
  gchar *text = g_strdup_printf ("LIVE - %u viewers", app->viewers);
  app->viewers += 17;
  /* Safe from any thread while PLAYING: the element picks it up on the next frame. */
  g_object_set (app->watermark, "text", text, NULL);
  g_print ("caption: %s\n", text);
  g_free (text);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  App *app = data;
  GError *err = NULL;
  gchar *debug = NULL;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:
      gst_message_parse_error (msg, &err, &debug);
      g_printerr ("error from %s: %s\n", GST_OBJECT_NAME (msg->src), err->message);
      g_clear_error (&err);
      g_free (debug);
      app->exit_code = 1;
      g_main_loop_quit (app->loop);
      break;
    case GST_MESSAGE_WARNING:
      gst_message_parse_warning (msg, &err, &debug);
      g_printerr ("warning from %s: %s\n", GST_OBJECT_NAME (msg->src), err->message);
      g_clear_error (&err);
      g_free (debug);
      break;
    case GST_MESSAGE_EOS:
      g_main_loop_quit (app->loop);
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

int
main (int argc, char **argv)
{
  App app = { 0 };
  const gchar *output = argc > 1 ? argv[1] : "watermark-app.mp4";
  const gchar *logo = argc > 2 && argv[2][0] != '-' ? argv[2] : NULL;
  const gchar *device = NULL;
  GstElement *pipeline, *src, *convert, *encoder, *mux, *sink;
  GstBus *bus;

  for (int i = 1; i + 1 < argc; i++)
    if (strcmp (argv[i], "--device") == 0)
      device = argv[i + 1];

  gst_init (&argc, &argv);

  pipeline = gst_pipeline_new ("app");
  src = gst_element_factory_make (device ? "v4l2src" : "videotestsrc", NULL);
  app.watermark = gst_element_factory_make ("watermark", NULL);
  convert = gst_element_factory_make ("videoconvert", NULL);
  encoder = gst_element_factory_make ("x264enc", NULL);
  mux = gst_element_factory_make ("mp4mux", NULL);
  sink = gst_element_factory_make ("filesink", NULL);
  if (!src || !app.watermark || !convert || !encoder || !mux || !sink) {
    g_printerr ("missing element%s (is the watermark plugin installed or on GST_PLUGIN_PATH?)\n",
        app.watermark ? "" : " 'watermark'");
    return 1;
  }
  if (device)
    g_object_set (src, "device", device, NULL);
  else
    g_object_set (src, "num-buffers", 90, "is-live", TRUE, NULL);
  g_object_set (app.watermark, "text", "LIVE", "anchor", 2 /* top-right */ ,
      "text-size", 0.06, "color", 0xFFFFD700u, "shadow", TRUE, NULL);
  if (logo)
    g_object_set (app.watermark, "image", logo, "width", 0.15, NULL);
  g_object_set (encoder, "tune", 0x4 /* zerolatency */ , "speed-preset", 2 /* superfast */ , NULL);
  g_object_set (sink, "location", output, NULL);

  gst_bin_add_many (GST_BIN (pipeline), src, app.watermark, convert, encoder, mux, sink, NULL);
  if (!gst_element_link_many (src, app.watermark, convert, encoder, mux, sink, NULL)) {
    g_printerr ("could not link the pipeline\n");
    return 1;
  }

  app.loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (pipeline);
  gst_bus_add_watch (bus, on_message, &app);
  g_timeout_add (500, update_caption, &app);

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    g_printerr ("could not start the pipeline\n");
    app.exit_code = 1;
  } else {
    g_main_loop_run (app.loop);
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_main_loop_unref (app.loop);
  if (app.exit_code == 0)
    g_print ("wrote %s\n", output);
  return app.exit_code;
}
