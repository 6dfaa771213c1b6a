/*
 * heap.h — large blocks from the heap while finalize runs.
 *
 * Finalize allocates and frees arrays of the order of the trace (CLC, the analysis, the
 * writer). glibc serves large blocks by mmap and unmaps them on free, so each new array
 * costs fresh page faults (1-16 us per 4 KiB page in a VM; more than the work on the data).
 * st_heap_reuse(1, ...) makes every block come from the heap and stay there when freed, so
 * later arrays reuse the pages; st_heap_reuse(0, 0) puts glibc's defaults back and returns
 * the free memory. The mmap threshold alone stops at 32 MiB (glibc's ceiling), and from about
 * 2 * 10^6 events per rank the arrays are larger: no mmap at all while on (glibc still maps a
 * block when the heap cannot grow). Not thread-safe against another caller of mallopt.
 *
 * huge: how many bytes of the heap's growth to mark for transparent huge pages (one fault
 * maps 2 MiB; where the system has them: /sys/kernel/mm/transparent_hugepage/enabled says
 * always or madvise). The heap is grown by that much at once (address space only: a page
 * is backed at its first touch) and the space kept while the reuse is on; at most
 * ST_HEAP_HUGE_MAX, less where the system refuses so much, none below 64 MiB. Beyond it the heap
 * grows in 4 KiB pages as before. Where the host of a VM must back a fresh huge page
 * again, its first touch costs more than 512 small pages' (record/spill.h); the heap's pages
 * then still pay, since finalize's phases reuse them: the caller decides.
 */
#ifndef ST_UTIL_HEAP_H
#define ST_UTIL_HEAP_H

#include <stddef.h>

#define ST_HEAP_HUGE_MAX ((size_t)3 << 29) /* 1.5 GiB: below glibc's trim threshold while on */

void st_heap_reuse(int on, size_t huge);

#endif
