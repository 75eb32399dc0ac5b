/* Umbrella header for the gstreamer-pbutils-1.0 system library. */
#include <gst/pbutils/pbutils.h>
