/* Umbrella header for the gstreamer-rtsp-server-1.0 system library (and GLib's Unix signal sources). */
#include <gst/rtsp-server/rtsp-server.h>
#include <glib-unix.h>
