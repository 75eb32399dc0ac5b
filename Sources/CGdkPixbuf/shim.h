/* Umbrella header for the gdk-pixbuf-2.0 system library. */
#include <gdk-pixbuf/gdk-pixbuf.h>

/* gdk-pixbuf's animation iterator is driven by a GTimeVal, a type GLib deprecates (2.62) and
 * gdk-pixbuf offers no other way to pass: these take milliseconds since the animation's start
 * and make the GTimeVal here, the one place that names it. */
static inline GdkPixbufAnimationIter *watermark_pixbuf_animation_iter_at(GdkPixbufAnimation *animation,
                                                                         gint64 ms) {
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GTimeVal at = {(glong)(ms / 1000), (glong)(ms % 1000) * 1000};
  GdkPixbufAnimationIter *iter = gdk_pixbuf_animation_get_iter(animation, &at);
  G_GNUC_END_IGNORE_DEPRECATIONS
  return iter;
}

static inline gboolean watermark_pixbuf_animation_iter_advance_to(GdkPixbufAnimationIter *iter, gint64 ms) {
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GTimeVal at = {(glong)(ms / 1000), (glong)(ms % 1000) * 1000};
  gboolean changed = gdk_pixbuf_animation_iter_advance(iter, &at);
  G_GNUC_END_IGNORE_DEPRECATIONS
  return changed;
}
