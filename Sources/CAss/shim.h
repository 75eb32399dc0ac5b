/* The few libass types the element uses. libass itself is opened when a subtitle file is
 * first rendered (Sources/WatermarkRender/AssLibrary.swift), so the plugin neither links it
 * nor needs its headers to build, and loads where libass is missing; this layout is libass's
 * stable ABI (ass.h, 0.13 and later: libass9). */
#ifndef WATERMARK_ASS_SHIM_H
#define WATERMARK_ASS_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

typedef struct ass_library ASS_Library;
typedef struct ass_renderer ASS_Renderer;
typedef struct ass_track ASS_Track;

/* One monochrome bitmap of a rendered frame: alpha `bitmap` in `color` (0xRRGGBBAA, AA being
 * transparency), at (dst_x, dst_y); `next` is the one drawn over it. */
typedef struct ass_image {
  int w, h;
  int stride;
  unsigned char *bitmap;
  uint32_t color;
  int dst_x, dst_y;
  struct ass_image *next;
  int type;
} ASS_Image;

/* libass hands its messages over as printf formats and a va_list, which Swift cannot take:
 * this callback formats them and passes the text on to `log` with `context`. */
typedef struct {
  void (*log)(int level, const char *text, void *context);
  void *context;
} WMAssMessageSink;

static inline void wm_ass_message(int level, const char *format, va_list args, void *data) {
  char text[512];
  WMAssMessageSink *sink = (WMAssMessageSink *)data;
  if (sink == NULL || sink->log == NULL || format == NULL) return;
  vsnprintf(text, sizeof text, format, args);
  sink->log(level, text, sink->context);
}

/* The callback as the untyped pointer ass_set_message_cb is called with from Swift. */
static inline const void *wm_ass_message_callback(void) { return (const void *)wm_ass_message; }

#endif
