/*
 * mem.c — first-fit allocation over lent regions, with the C library as fallback (mem.h).
 *
 * Only blocks of at least SMALL bytes come from the regions (the large arrays and vectors
 * of the correction: a few hundred blocks), smaller ones from malloc, so a first-fit walk
 * over a region's blocks stays short. Every region block has a 16-byte header (payload
 * size, free flag); adjacent free blocks are merged when a walk passes them. A vector that
 * outgrows SMALL moves from malloc into a region.
 */
#include "mem.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SMALL ((size_t)4096)

typedef struct header {
    size_t size; /* payload bytes, a multiple of 16 */
    size_t free;
} header_t;

typedef struct region {
    uint8_t *base, *end;
} region_t;

static region_t regions[ST_MEM_REGIONS];
static int      nregions, lending;
static size_t   in_use, peak;

static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }
static header_t *next_of(header_t *h) { return (header_t *)((uint8_t *)(h + 1) + h->size); }
static header_t *header_of(void *p) { return (header_t *)p - 1; }

void st_mem_lend(void *const *base, const size_t *len, int n)
{
    nregions = 0;
    in_use = peak = 0;
    for (int i = 0; i < n && nregions < ST_MEM_REGIONS; i++) {
        uintptr_t b = ((uintptr_t)base[i] + 15) & ~(uintptr_t)15, e = ((uintptr_t)base[i] + len[i]) & ~(uintptr_t)15;
        if (!base[i] || e < b + 2 * SMALL)
            continue;
        region_t *r = &regions[nregions++];
        r->base = (uint8_t *)b, r->end = (uint8_t *)e;
        *(header_t *)r->base = (header_t){ (size_t)(e - b) - sizeof(header_t), 1 };
    }
    lending = nregions > 0;
}

size_t st_mem_return(void)
{
    lending = 0;
    return peak;
}

static region_t *owner(const void *p)
{
    const uint8_t *q = p;
    for (int i = 0; p && i < nregions; i++)
        if (q >= regions[i].base && q < regions[i].end)
            return &regions[i];
    return NULL;
}

/* Merges the free blocks that follow h into h (h itself may be used). */
static void absorb(const region_t *r, header_t *h)
{
    for (header_t *x = next_of(h); (uint8_t *)x < r->end && x->free; x = next_of(h))
        h->size += sizeof(header_t) + x->size;
}

/* Shrinks block h to need bytes, giving the rest back as a free block when it is worth it. */
static void split(header_t *h, size_t need)
{
    if (h->size >= need + sizeof(header_t) + 64) {
        header_t *rest = (header_t *)((uint8_t *)(h + 1) + need);
        *rest = (header_t){ h->size - need - sizeof(header_t), 1 };
        h->size = need;
    }
}

static void account(long delta)
{
    in_use += (size_t)delta;
    if (in_use > peak)
        peak = in_use;
}

static void *carve(size_t n)
{
    if (!lending || n < SMALL || n > SIZE_MAX / 2)
        return NULL;
    size_t need = round16(n);
    for (int i = 0; i < nregions; i++) {
        const region_t *r = &regions[i];
        for (header_t *h = (header_t *)r->base; (uint8_t *)h < r->end; h = next_of(h)) {
            if (!h->free)
                continue;
            absorb(r, h);
            if (h->size >= need) {
                split(h, need);
                h->free = 0;
                account((long)h->size);
                return h + 1;
            }
        }
    }
    return NULL;
}

void *st_mem_malloc(size_t n)
{
    void *p = carve(n);
    return p ? p : malloc(n);
}

void *st_mem_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = carve(n * size);
    return p ? memset(p, 0, n * size) : calloc(n, size);
}

void *st_mem_realloc(void *p, size_t n)
{
    if (!p)
        return st_mem_malloc(n);
    region_t *r = owner(p);
    if (!r) {
        void *q = n >= SMALL ? carve(n) : NULL; /* a growing vector moves into a region */
        if (!q)
            return realloc(p, n);
        size_t old = malloc_usable_size(p);
        memcpy(q, p, old < n ? old : n);
        free(p);
        return q;
    }
    header_t *h = header_of(p);
    size_t need = round16(n), old = h->size;
    if (need > h->size && lending)
        absorb(r, h); /* grow in place into free neighbours */
    if (need <= h->size)
        split(h, need);
    account((long)h->size - (long)old);
    if (need <= h->size)
        return p;
    void *q = st_mem_malloc(n);
    if (!q)
        return NULL;
    memcpy(q, p, old);
    st_mem_free(p);
    return q;
}

void st_mem_free(void *p)
{
    if (!owner(p)) {
        free(p);
        return;
    }
    header_t *h = header_of(p);
    account(-(long)h->size);
    h->free = 1;
}
