/*
 * hugealloc.h — large arrays in transparent huge pages.
 *
 * At MPI_Finalize a rank's events are read back into one array of 64 bytes per event,
 * fresh memory whose every 4 KiB page costs a fault, its clearing and, in a VM with
 * shadow page tables, another trap at the first access from user space (10-20 us a page
 * on the project's machine, more than reading the events: docs/performance.md). Marked
 * for transparent huge pages (madvise MADV_HUGEPAGE, honoured where
 * /sys/kernel/mm/transparent_hugepage/enabled says always or madvise), one fault maps
 * 2 MiB. Elsewhere the block works the same. But where the host must back the memory
 * again (it took the guest's free pages back), a fresh huge page costs 2.2-2.6 ns per byte
 * there against 0.5-1.6 for 4 KiB pages: st_record_load times its first pieces and may
 * mark the rest of the block for 4 KiB pages (record/spill.h). Inline: the recorder's unit
 * tests link no util file for it.
 */
#ifndef ST_UTIL_HUGEALLOC_H
#define ST_UTIL_HUGEALLOC_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#define ST_HUGE_MIN  ((size_t)4 << 20) /* smaller blocks: plain cache-line aligned */
#define ST_HUGE_PAGE ((size_t)2 << 20)

/* x rounded up to whole 2 MiB pages (a length, or an address to align). */
static inline size_t st_huge_round_up(size_t x) { return (x + ST_HUGE_PAGE - 1) / ST_HUGE_PAGE * ST_HUGE_PAGE; }

/* Marks [p, p + len) for transparent huge pages (huge 1) or against them (huge 0): a hint, without
 * which the memory works the same. 0, or -1 where the system does not take it. */
static inline int st_huge_mark(void *p, size_t len, int huge)
{
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
    return madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) == 0 ? 0 : -1;
#else
    (void)p, (void)len, (void)huge;
    return -1;
#endif
}

/* A block of n bytes aligned to 64 bytes (a cache line); from ST_HUGE_MIN bytes on aligned
 * to 2 MiB, rounded up to whole 2 MiB pages and marked for huge pages. Freed with free();
 * NULL when out of memory. */
static inline void *st_huge_alloc(size_t n)
{
    if (n < ST_HUGE_MIN)
        return aligned_alloc(64, n ? (n + 63) / 64 * 64 : 64);
    size_t len = st_huge_round_up(n);
    void *p = aligned_alloc(ST_HUGE_PAGE, len);
    if (p)
        (void)st_huge_mark(p, len, 1);
    return p;
}

/*
 * n bytes mapped privately (munmap(p, n) releases them), zeroed, every page present and
 * writable: recording into it takes no page fault. From ST_HUGE_PAGE bytes on the block
 * starts on a 2 MiB boundary and is marked for huge pages before it is populated (a read
 * of an unpopulated huge-page block would map the shared zero page, and the first write
 * then fault); in a VM with shadow page tables a huge page also spares the first-access
 * trap of each of its 4 KiB pages (docs/performance.md). MAP_FAILED when out of memory.
 */
static inline void *st_huge_map(size_t n)
{
    const size_t page = 4096;
    size_t len = (n + page - 1) / page * page;
    if (len < ST_HUGE_PAGE)
        return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    size_t span = len + ST_HUGE_PAGE;
    char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return MAP_FAILED;
    char *p = (char *)st_huge_round_up((size_t)m);
    if (p > m)
        munmap(m, (size_t)(p - m));
    if (m + span > p + len)
        munmap(p + len, (size_t)(m + span - (p + len)));
    (void)st_huge_mark(p, len, 1);
#ifdef MADV_POPULATE_WRITE
    if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
        return p;
    if (errno != EINVAL) { /* out of memory */
        int err = errno;
        munmap(p, len);
        errno = err;
        return MAP_FAILED;
    }
#endif
    for (size_t i = 0; i < len; i += page) /* no MADV_POPULATE_WRITE (Linux < 5.14): fault in by writing */
        ((volatile char *)p)[i] = 0;
    return p;
}

#endif
