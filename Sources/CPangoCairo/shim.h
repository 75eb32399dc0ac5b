/* Umbrella header for the pangocairo system library. */
#include <pango/pangocairo.h>

/* A text's base direction (its first strong character's), by which a caption's alignment is
 * mirrored. Pango deprecates pango_find_base_dir (1.44) in favour of fribidi and has no call of
 * its own that finds it without laying the text out (the first line's resolved direction costs
 * one more layout, 6 % of a text render): it is called here, its deprecation silenced once. */
static inline PangoDirection watermark_pango_base_dir(const char *text) {
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  PangoDirection direction = pango_find_base_dir(text, -1);
  G_GNUC_END_IGNORE_DEPRECATIONS
  return direction;
}
