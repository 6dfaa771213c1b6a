/*
 * u64map.h — a map from 64-bit keys to 64-bit values (open addressing; grows at half
 * load). A zeroed st_u64map_t is an empty map. One with `lent` set before its first put
 * takes its arrays from util/mem.h (the memory lent at MPI_Finalize, whose pages are
 * already there; one thread only), else from malloc.
 */
#ifndef ST_U64MAP_H
#define ST_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct st_u64map {
    uint64_t *keys, *vals;
    uint8_t  *used;
    size_t    cap, n;
    int       lent;
} st_u64map_t;

/* Scrambles a 64-bit key so that every bit of it reaches the low bits a table indexes by. */
static inline uint64_t st_u64_mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    return k ^ (k >> 33);
}

/* Sets key to val. 0, or -1 when out of memory. */
int st_u64map_put(st_u64map_t *m, uint64_t key, uint64_t val);
/* 1 and *val when present, else 0. */
int st_u64map_get(const st_u64map_t *m, uint64_t key, uint64_t *val);
/* Frees the map's memory and leaves it empty. */
void st_u64map_free(st_u64map_t *m);

#endif
