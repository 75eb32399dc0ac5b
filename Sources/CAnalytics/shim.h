/* The types of GStreamer's analytics library (libgstanalytics-1.0, GStreamer 1.24 and later)
 * the element reads, declared here: the library is opened at run time where it exists
 * (Sources/WatermarkElement/AnalyticsLibrary.swift), so the project builds against GStreamer
 * 1.22, which has no such headers. The layouts and values are those of
 * gst-libs/gst/analytics/gstanalyticsmeta.h, the same in 1.24, 1.26 and 1.28. */
#ifndef WATERMARK_ANALYTICS_SHIM_H
#define WATERMARK_ANALYTICS_SHIM_H

#include <stdint.h>

/* GstAnalyticsMtd (and its aliases GstAnalyticsODMtd, GstAnalyticsClsMtd,
 * GstAnalyticsTrackingMtd): an entry's id within its relation meta, and that meta. */
typedef struct {
  unsigned int id;
  void *meta;
} WMAnalyticsMtd;

/* GstAnalyticsMtdType: the address of the entry kind's static descriptor. */
typedef uintptr_t WMAnalyticsMtdType;

/* GstAnalyticsRelTypes: a relation between two entries (any of them, as a mask). */
#define WM_ANALYTICS_REL_TYPE_NONE 0
#define WM_ANALYTICS_REL_TYPE_ANY 0x7fffffff

#endif
