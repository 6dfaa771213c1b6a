/* hugealloc.c — large arrays in transparent huge pages (hugealloc.h). */
#include "hugealloc.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void *st_huge_alloc(size_t n)
{
    if (n < ST_HUGE_MIN)
        return aligned_alloc(64, n ? (n + 63) / 64 * 64 : 64);
    size_t len = (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, len);
#ifdef MADV_HUGEPAGE
    if (p)
        (void)madvise(p, len, MADV_HUGEPAGE); /* a hint: without huge pages the block works the same */
#endif
    return p;
}
