/*
 * handle_map.h — a lock-free map from MPI handles to small records, used for requests and
 * matched-probe messages. A key is the whole handle as a 64-bit word (ST_HMAP_KEY): MPICH's
 * handles are 32-bit ints, Open MPI's are pointers. It grows: there is no number of outstanding
 * requests past which completions are lost.
 *
 * The map is a list of segments, each an open-addressing table (linear probing, tombstones) of
 * twice the size of the one before. Insert and remove use one CAS on a slot's control word
 * (generation and state; the key is a second word, see handle_map.c); lookups take no lock.
 * A segment takes at most half its size in inserts, then closes; once its last entry is removed
 * it is cleared and takes inserts again, so tombstones never clog it and probes stay short. A new segment is allocated only when every existing one is closed (rare; the only
 * allocation, on the MPI call that needs it).
 *
 * A key may be present several times: MPICH returns one shared, already-complete
 * "lightweight" request handle for every eager send that completed at its post, so several
 * outstanding operations can have the same handle. Each completion then claims one of the
 * entries (st_hmap_claim, atomic). Under MPI_THREAD_MULTIPLE a completion must claim its
 * entry before PMPI frees the handle (see st_mpi_snapshot): afterwards another thread may
 * get the same handle from MPI and insert its own entry under it.
 */
#ifndef ST_HANDLE_MAP_H
#define ST_HANDLE_MAP_H

#include <stdatomic.h>
#include <stdint.h>

#include "st_mpi.h"

#define ST_HMAP_FIRST_BITS 12 /* slots of the first segment: 4096 */
#define ST_HMAP_SEGS       18 /* the last has 2^29 slots */

/* Every key is a whole handle; a handle must fit in the key word. */
_Static_assert(sizeof(MPI_Request) <= sizeof(uint64_t) && sizeof(MPI_Message) <= sizeof(uint64_t),
               "MPI_Request and MPI_Message must fit in 64 bits");

/* The key of an MPI_Request or MPI_Message handle h: a pointer (Open MPI) goes through uintptr_t, an int
 * (MPICH) is sign-extended; both are one-to-one, so distinct handles are distinct keys. The only way a
 * handle becomes a key. */
#define ST_HMAP_KEY(h) ((uint64_t)(uintptr_t)(h))

typedef struct st_hmap_slot {
    _Atomic uint64_t ctl; /* generation and state: see handle_map.c */
    _Atomic uint64_t key; /* the handle; written only while the slot is BUSY */
    st_req_info_t   val;
} st_hmap_slot_t;

typedef struct st_hmap_seg st_hmap_seg_t;

typedef struct st_hmap {
    _Atomic(st_hmap_seg_t *) seg[ST_HMAP_SEGS];
} st_hmap_t;

/* Makes the map empty (no segment yet). Not thread-safe; call before use. */
void st_hmap_init(st_hmap_t *m);
/* Adds an entry for key (another entry of the same key may exist). Returns 0, or -1 when no memory. */
int st_hmap_put(st_hmap_t *m, uint64_t key, const st_req_info_t *val);
/* An entry stored under key, or NULL. The pointer stays valid until that entry is removed;
 * use only for keys that are never shared (persistent requests). */
st_req_info_t *st_hmap_get(st_hmap_t *m, uint64_t key);
/* Removes one entry of key and copies it to *out; returns 0 if key had none. Thread-safe. */
int st_hmap_claim(st_hmap_t *m, uint64_t key, st_req_info_t *out);
/* Removes one entry of key if present. */
void st_hmap_del(st_hmap_t *m, uint64_t key);
/* Entries present (for tests and statistics; exact only when no other thread changes the map). */
uint64_t st_hmap_count(st_hmap_t *m);

#endif
