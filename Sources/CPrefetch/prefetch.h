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

/* Whether the CPU (and the OS, which must save its registers) runs AVX2: the blender then
 * calls its kernels built for it. A CPUID instruction, no I/O. */
static inline int
wm_cpu_has_avx2 (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("avx2");
#else
  return 0;
#endif
}

#endif
