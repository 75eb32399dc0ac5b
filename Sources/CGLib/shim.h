/* GLib alone, for GMarkup (the GPX reader): the telemetry layer needs nothing of GStreamer. */
#include <glib.h>
