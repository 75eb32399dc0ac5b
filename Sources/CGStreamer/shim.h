/* Umbrella header for the gstreamer-video-1.0 system library. */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/base/base.h>
