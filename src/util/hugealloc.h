/*
 * hugealloc.h — large arrays in transparent huge pages.
 *
 * At MPI_Finalize a rank's events are read back into one array of 64 bytes per event,
 * fresh memory whose every 4 KiB page costs a fault, its clearing and, in a VM with
 * shadow page tables, a second trap at the first user access (10-20 us a page on the
 * project's machine, more than reading the events). Marked for transparent huge pages
 * (madvise MADV_HUGEPAGE: honoured where /sys/kernel/mm/transparent_hugepage/enabled
 * says always or madvise), one fault maps 2 MiB. Elsewhere it is a plain aligned block.
 */
#ifndef ST_UTIL_HUGEALLOC_H
#define ST_UTIL_HUGEALLOC_H

#include <stddef.h>

/* A block of n bytes aligned to 64 bytes (a cache line); from ST_HUGE_MIN bytes on
 * aligned to 2 MiB and marked for huge pages. Freed with free(); NULL when out of memory. */
#define ST_HUGE_MIN (4u << 20)
void *st_huge_alloc(size_t n);

#endif
