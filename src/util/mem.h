/*
 * mem.h — the correction's memory: malloc, or idle memory the process already owns.
 *
 * A fresh page costs a fault and its clearing (2-10 us here, most of the correction's time
 * at 4-8 ranks on 2 cores), while at MPI_Finalize each thread's event buffer has an unused,
 * already populated tail. st_mem_lend() hands such regions to the correction: the
 * allocation functions below then take large blocks from them (first fit, freed blocks
 * reused, growth in place where the next block is free) and fall back to the C library
 * for small blocks and when the regions are full. Without a loan they are
 * malloc/calloc/realloc/free.
 *
 * Everything the correction allocates (src/relations, clc.c, run.c, replay.c, the orig
 * arrays, the engine's outgoing buffers) goes through these and must be freed with
 * st_mem_free; so do the large transient arrays of the analysis' root causes (rc_dist*.c,
 * rc_build.c's idle stretches, a u64map with `lent`), and the exchange's messages put together
 * from pieces; its one receive buffer does not (a transfer's first write into pages is slow:
 * src/exchange/exchange_mpi.c). Not thread-safe: one thread runs the correction.
 */
#ifndef ST_UTIL_MEM_H
#define ST_UTIL_MEM_H

#include <stddef.h>

#define ST_MEM_REGIONS 64

/* Lends n regions [base, base + len) (contents are overwritten) until st_mem_return(). */
void st_mem_lend(void *const *base, const size_t *len, int n);

/* Ends the loan: no more blocks from the regions (blocks still allocated from them stay
 * recognized, so freeing them is harmless). Returns the peak bytes used in the regions. */
size_t st_mem_return(void);

void *st_mem_malloc(size_t n);
void *st_mem_calloc(size_t n, size_t size);
void *st_mem_realloc(void *p, size_t n);
void st_mem_free(void *p);

/* Ensures room for need elements of size elem in the st_mem_realloc'd array *v of capacity
 * *cap (doubling, from 64); returns 0, or -1 when out of memory (*v unchanged). Inline: the
 * derivation grows its vectors once per event. */
static inline int st_mem_grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *p = st_mem_realloc(*v, n * elem);
    if (!p)
        return -1;
    *v = p;
    *cap = n;
    return 0;
}

#endif
