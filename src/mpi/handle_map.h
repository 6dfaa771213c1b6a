/*
 * handle_map.h — a fixed-size, lock-free map from MPI handles (ints in MPICH) to
 * small records, used for requests and matched-probe messages.
 *
 * Insert and remove use one CAS on the key slot; lookups take no lock. A key may be
 * present several times: MPICH returns one shared, already-complete "lightweight"
 * request handle for every eager send that completed at its post, so several
 * outstanding operations can have the same handle. Each completion then claims one
 * of the entries (st_hmap_claim, atomic); which one does not matter, they are alike.
 * Removed slots become tombstones that inserts reuse. When the map is full, inserts
 * fail (the caller warns once and stops tracking).
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
/* Adds an entry for key (another entry of the same key may exist). Returns 0, or -1 if full. */
int st_hmap_put(st_hmap_t *m, int64_t key, const st_req_info_t *val);
/* An entry stored under key, or NULL. The pointer stays valid until that entry is removed;
 * use only for keys that are never shared (persistent requests). */
st_req_info_t *st_hmap_get(st_hmap_t *m, int64_t key);
/* Removes one entry of key and copies it to *out; returns 0 if key had none. Thread-safe. */
int st_hmap_claim(st_hmap_t *m, int64_t key, st_req_info_t *out);
/* Removes one entry of key if present. */
void st_hmap_del(st_hmap_t *m, int64_t key);

#endif
