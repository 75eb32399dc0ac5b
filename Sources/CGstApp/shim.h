/* Umbrella header for the gstreamer-app-1.0 system library (appsrc, appsink). */
#include <gst/app/app.h>
