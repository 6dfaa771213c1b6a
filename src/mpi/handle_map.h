/*
 * handle_map.h — a lock-free map from MPI handles to small records, used for requests and
 * matched-probe messages. A key is the whole handle as a 64-bit word (ST_HMAP_KEY): MPICH's
 * handles are 32-bit ints, Open MPI's are pointers. It grows: there is no number of outstanding
 * requests past which completions are lost.
 *
 * A handle may stand for several outstanding operations: both MPIs hand out one shared,
 * already-complete request handle for every send that completed at its post (MPICH's
 * "lightweight" request 0x6c000001, Open MPI's one completed request), so a loop of small Isends
 * before one Waitall registers thousands of entries under one key. The map keeps, per handle, a
 * FIFO of its entries: a put appends to the handle's queue, a claim takes its oldest entry, each in
 * a constant number of steps however many entries the handle has (the map of sessions up to 20
 * chained the duplicates in one probe chain: O(n) per call, O(n^2) per loop). The order is the
 * post order, which is the order in which the MPI completed such sends.
 *
 * Two parts (details in handle_map.c):
 *   - the table: a list of segments, each an open-addressing table (linear probing, tombstones)
 *     of twice the size of the one before, with one slot per handle that has entries: its key and
 *     its queue's first and last entry. A segment takes at most half its size in inserts, then
 *     closes; once its last slot is removed it is cleared and takes inserts again.
 *   - the entries: nodes of a pool (segments too, each twice the one before) on a free list.
 * The only allocations are a new table or pool segment when every existing one is full (rare;
 * on the MPI call that needs it). Every change is one CAS; lookups take no lock.
 *
 * Under MPI_THREAD_MULTIPLE a completion must claim its entry before PMPI frees the handle (see
 * st_mpi_snapshot): afterwards another thread may get the same handle from MPI and put its own
 * entry under it. Two threads that put the first entries of one handle at once may make two
 * queues for it; a claim takes from the first that has entries, so no entry is lost.
 */
#ifndef ST_HANDLE_MAP_H
#define ST_HANDLE_MAP_H

#include <stdatomic.h>
#include <stdint.h>

#include "st_mpi.h"

#define ST_HMAP_FIRST_BITS 12 /* slots of the first table segment, nodes of the first pool segment: 4096 */
#define ST_HMAP_SEGS       18 /* the last has 2^29 */

/* Every key is a whole handle; a handle must fit in the key word. */
_Static_assert(sizeof(MPI_Request) <= sizeof(uint64_t) && sizeof(MPI_Message) <= sizeof(uint64_t),
               "MPI_Request and MPI_Message must fit in 64 bits");

/* The key of an MPI_Request or MPI_Message handle h: a pointer (Open MPI) goes through uintptr_t, an int
 * (MPICH) is sign-extended; both are one-to-one, so distinct handles are distinct keys. The only way a
 * handle becomes a key. */
#define ST_HMAP_KEY(h) ((uint64_t)(uintptr_t)(h))

typedef struct st_hmap_seg  st_hmap_seg_t;
typedef struct st_hmap_node st_hmap_node_t;

typedef struct st_hmap {
    _Atomic(st_hmap_seg_t *)  seg[ST_HMAP_SEGS];
    _Atomic(st_hmap_node_t *) pool[ST_HMAP_SEGS];
    _Atomic uint64_t          free; /* the free list's first node (tag and index, see handle_map.c) */
} st_hmap_t;

/* Makes the map empty (no segment yet). Not thread-safe; call before use. */
void st_hmap_init(st_hmap_t *m);
/* Adds an entry for key after its others. Returns 0, or -1 when no memory. */
int st_hmap_put(st_hmap_t *m, uint64_t key, const st_req_info_t *val);
/* The oldest entry stored under key, or NULL. The pointer stays valid until that entry is removed;
 * use only for keys that are never shared (persistent requests). */
st_req_info_t *st_hmap_get(st_hmap_t *m, uint64_t key);
/* Removes the oldest entry of key and copies it to *out; returns 0 if key had none. Thread-safe. */
int st_hmap_claim(st_hmap_t *m, uint64_t key, st_req_info_t *out);
/* Removes one entry of key if present. */
void st_hmap_del(st_hmap_t *m, uint64_t key);
/* Entries present (for tests and statistics; exact only when no other thread changes the map). */
uint64_t st_hmap_count(st_hmap_t *m);

#endif
