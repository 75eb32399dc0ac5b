/* GLib's Unix signal sources and the gst-rtsp-server types `stream rtsp://` uses.
 * libgstrtspserver is opened when an RTSP server is first started
 * (Sources/WatermarkCLI/ServerLibraries.swift), so the CLI neither links it (nor, through it,
 * GStreamer's RTP, RTSP, SDP and net libraries) nor needs its headers to build. */
#ifndef WATERMARK_RTSP_SERVER_SHIM_H
#define WATERMARK_RTSP_SERVER_SHIM_H

#include <glib-unix.h>
#include <gst/gst.h>

typedef struct _GstRTSPServer GstRTSPServer;
typedef struct _GstRTSPMountPoints GstRTSPMountPoints;
typedef struct _GstRTSPMediaFactory GstRTSPMediaFactory;
typedef struct _GstRTSPAuth GstRTSPAuth;
typedef struct _GstRTSPToken GstRTSPToken;

#endif
