/*
 * heap.c — large blocks from the heap while finalize runs (heap.h).
 */
#include "heap.h"

#include <malloc.h>

void st_heap_reuse(int on)
{
    mallopt(M_MMAP_THRESHOLD, on ? 32 << 20 : 128 << 10); /* glibc's default 128 KiB, its ceiling 32 MiB */
    mallopt(M_MMAP_MAX, on ? 0 : 65536);                  /* its default 65536 */
    mallopt(M_TRIM_THRESHOLD, on ? 1 << 30 : 128 << 10);
    if (!on)
        malloc_trim(0);
}
