/*
 * hugealloc.h — large arrays in transparent huge pages.
 *
 * At MPI_Finalize a rank's events are read back into one array of 64 bytes per event,
 * fresh memory whose every 4 KiB page costs a fault, its clearing and, in a VM with
 * shadow page tables, another trap at the first access from user space (10-20 us a page
 * on the project's machine, more than reading the events: docs/performance.md). Marked
 * for transparent huge pages (madvise MADV_HUGEPAGE, honoured where
 * /sys/kernel/mm/transparent_hugepage/enabled says always or madvise), one fault maps
 * 2 MiB. Elsewhere the block works the same. Inline: the recorder's unit tests link no
 * util file for it.
 */
#ifndef ST_UTIL_HUGEALLOC_H
#define ST_UTIL_HUGEALLOC_H

#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#define ST_HUGE_MIN  ((size_t)4 << 20) /* smaller blocks: plain cache-line aligned */
#define ST_HUGE_PAGE ((size_t)2 << 20)

/* A block of n bytes aligned to 64 bytes (a cache line); from ST_HUGE_MIN bytes on aligned
 * to 2 MiB, rounded up to whole 2 MiB pages and marked for huge pages. Freed with free();
 * NULL when out of memory. */
static inline void *st_huge_alloc(size_t n)
{
    if (n < ST_HUGE_MIN)
        return aligned_alloc(64, n ? (n + 63) / 64 * 64 : 64);
    size_t len = (n + ST_HUGE_PAGE - 1) / ST_HUGE_PAGE * ST_HUGE_PAGE;
    void *p = aligned_alloc(ST_HUGE_PAGE, len);
#ifdef MADV_HUGEPAGE
    if (p)
        (void)madvise(p, len, MADV_HUGEPAGE); /* a hint: without huge pages the block works the same */
#endif
    return p;
}

#endif
