#include "malloc_tuning.h"

#include <malloc.h>

void
wm_release_free_memory (void)
{
  malloc_trim (0);
}

void
wm_limit_malloc_arenas (int count)
{
  mallopt (M_ARENA_MAX, count);
}

void
wm_set_malloc_mmap_threshold (int bytes)
{
  mallopt (M_MMAP_THRESHOLD, bytes);
}
