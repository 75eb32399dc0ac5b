/* glibc's allocator settings for the gst-watermark tool's long batch runs (malloc.h, which
 * Swift's Glibc module does not expose). The tool's own: the plugin never changes how its
 * host process allocates. */
#ifndef WM_MALLOC_TUNING_H
#define WM_MALLOC_TUNING_H

/* Returns freed heap memory of every malloc arena to the system (malloc_trim). */
void wm_release_free_memory (void);
/* Caps the number of malloc arenas (mallopt M_ARENA_MAX); call before threads start. */
void wm_limit_malloc_arenas (int count);
/* Serves allocations of at least `bytes` with their own mappings (mallopt M_MMAP_THRESHOLD,
 * which also stops glibc from raising the threshold as large blocks are freed). */
void wm_set_malloc_mmap_threshold (int bytes);

#endif /* WM_MALLOC_TUNING_H */
