/*
 * heap.c — large blocks from the heap while finalize runs (heap.h).
 */
#include "heap.h"

#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "hugealloc.h"

/* The part of the heap marked for huge pages while the reuse is on (2 MiB aligned). */
static uintptr_t huge_from, huge_to;

/* Grows the heap by up to bytes (halving what the system refuses, down to 64 MiB), marks the
 * whole 2 MiB pages of that growth for huge pages and frees it: the free space stays at the
 * heap's top (the trim threshold is above it) and later blocks are cut from it. */
static void mark_growth(size_t bytes)
{
    if (bytes > ST_HEAP_HUGE_MAX)
        bytes = ST_HEAP_HUGE_MAX;
    char *p = NULL;
    while (bytes >= ((size_t)64 << 20) && !(p = malloc(bytes)))
        bytes /= 2;
    if (!p)
        return;
    uintptr_t a = st_huge_round_up((uintptr_t)p);
    uintptr_t e = ((uintptr_t)p + bytes) / ST_HUGE_PAGE * ST_HUGE_PAGE;
    if (e > a && st_huge_mark((void *)a, e - a, 1) == 0)
        huge_from = a, huge_to = e;
    free(p);
}

void st_heap_reuse(int on, size_t huge)
{
    mallopt(M_MMAP_THRESHOLD, on ? 32 << 20 : 128 << 10); /* glibc's default 128 KiB, its ceiling 32 MiB */
    mallopt(M_MMAP_MAX, on ? 0 : 65536);                  /* its default 65536 */
    mallopt(M_TRIM_THRESHOLD, on ? INT_MAX : 128 << 10);  /* above ST_HEAP_HUGE_MAX */
    if (on && huge)
        mark_growth(huge);
    if (!on) {
        malloc_trim(0);
        uintptr_t top = (uintptr_t)sbrk(0);
        if (huge_to > top) /* trimmed */
            huge_to = top;
        if (huge_to > huge_from) /* what is left of that part serves the program as before */
            (void)st_huge_mark((void *)huge_from, huge_to - huge_from, 0);
        huge_from = huge_to = 0;
    }
}
