/* Umbrella header for the gstreamer-check-1.0 system library. */
#include <gst/check/gstharness.h>
