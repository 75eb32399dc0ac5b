/* Compiler builtins the blender needs and Swift cannot spell. Header-only: no library,
 * no GStreamer or GLib include, so the blend layer builds without either. Every symbol
 * is prefixed `wm_`. */
#ifndef WM_PREFETCH_H
#define WM_PREFETCH_H

/* Asks for the cache line at `p` ahead of a write (never faults, whatever `p` is). */
static inline void
wm_prefetch_for_write (const void *p)
{
  __builtin_prefetch (p, 1, 3);
}

#endif
