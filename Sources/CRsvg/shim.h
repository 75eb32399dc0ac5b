/* The few librsvg types the element uses. librsvg itself is opened on first use
 * (Sources/WatermarkRender/RsvgLibrary.swift), so the plugin neither links it nor needs its
 * headers to build; these layouts are librsvg's stable ABI (rsvg.h, 2.52 and later). */
#ifndef WATERMARK_RSVG_SHIM_H
#define WATERMARK_RSVG_SHIM_H

typedef struct _RsvgHandle RsvgHandle;

typedef enum {
  RSVG_UNIT_PERCENT, RSVG_UNIT_PX, RSVG_UNIT_EM, RSVG_UNIT_EX, RSVG_UNIT_IN,
  RSVG_UNIT_CM, RSVG_UNIT_MM, RSVG_UNIT_PT, RSVG_UNIT_PC
} RsvgUnit;

typedef struct {
  double length;
  RsvgUnit unit;
} RsvgLength;

typedef struct {
  double x;
  double y;
  double width;
  double height;
} RsvgRectangle;

#endif
