/* Umbrella header for the gstreamer-controller-1.0 system library. */
#include <gst/controller/controller.h>
