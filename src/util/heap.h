/*
 * heap.h — large blocks from the heap while finalize runs.
 *
 * Finalize allocates and frees arrays of the order of the trace (CLC, the analysis, the
 * writer). glibc serves large blocks by mmap and unmaps them on free, so each new array
 * costs fresh page faults (1-4 us per page in a VM; more than the work on the data).
 * st_heap_reuse(1) makes every block come from the heap and stay there when freed, so later
 * arrays reuse the pages; st_heap_reuse(0) puts glibc's defaults back and returns the free
 * memory. The mmap threshold alone stops at 32 MiB (glibc's ceiling), and from about 2 * 10^6
 * events per rank the arrays are larger: no mmap at all while on (glibc still maps a block
 * when the heap cannot grow). Not thread-safe against another caller of mallopt.
 */
#ifndef ST_UTIL_HEAP_H
#define ST_UTIL_HEAP_H

void st_heap_reuse(int on);

#endif
