/*
 * handle_map.h — a fixed-size, lock-free map from MPI handles (ints in MPICH) to
 * small records, used for requests and matched-probe messages.
 *
 * Insert and remove use one CAS on the key slot; lookups take no lock. This is safe
 * because MPI lets only one thread at a time use a given request or message, so the
 * same key is never inserted, looked up and removed concurrently; different keys may
 * be used from any threads. Removed slots become tombstones that inserts reuse.
 * When the map is full, inserts fail (the caller warns once and stops tracking).
 */
#ifndef ST_HANDLE_MAP_H
#define ST_HANDLE_MAP_H

#include <stdatomic.h>
#include <stdint.h>

#include "st_mpi.h"

#define ST_HMAP_SLOTS (1u << 15)

typedef struct st_hmap_slot {
    _Atomic int64_t key;
    st_req_info_t   val;
} st_hmap_slot_t;

typedef struct st_hmap {
    st_hmap_slot_t slot[ST_HMAP_SLOTS];
} st_hmap_t;

/* Makes every slot empty. Not thread-safe; call before use. */
void st_hmap_init(st_hmap_t *m);
/* Stores val under key (replacing a stale entry of the same key). Returns 0, or -1 if full. */
int st_hmap_put(st_hmap_t *m, int64_t key, const st_req_info_t *val);
/* The record stored under key, or NULL. The pointer stays valid until st_hmap_del(key). */
st_req_info_t *st_hmap_get(st_hmap_t *m, int64_t key);
/* Removes key if present. */
void st_hmap_del(st_hmap_t *m, int64_t key);

#endif
