/*
 * comm.h — the process's table of application communicators.
 *
 * Every communicator the application can use is registered when it is created
 * (MPI_COMM_WORLD and MPI_COMM_SELF at init). Registration is local (no
 * communication): the world-rank membership comes from PMPI_Comm_group and
 * PMPI_Group_translate_ranks, and the global key is a hash of the membership plus
 * how many communicators with the same membership this process created before —
 * identical on every member, because MPI orders communicator creation consistently.
 * An intercommunicator's two groups are hashed in an order both sides agree on, so
 * both groups name it by one key.
 * Entries are never freed (definitions of freed communicators are still needed for
 * the archive); a handle MPI reuses points to the newer entry.
 * st_comm_get() is lock-free; registration takes a mutex (creation is rare).
 */
#ifndef ST_COMM_H
#define ST_COMM_H

#include <mpi.h>
#include <stdatomic.h>

#include "handle_map.h"
#include "../model/rankdata.h"

/* Most communicators one process registers; later ones are not traced. */
#define ST_COMM_MAX 65536u

typedef struct st_comm {
    st_comm_def_t def;        /* key, membership, name: what goes into the archive */
    uint32_t      index;      /* process-local index, stored in events */
    _Atomic uint64_t coll_seq;/* collective instances begun on this communicator */
    _Atomic uint32_t nwins;   /* RMA windows created on it so far (src/mpi/rma.c); st_comm_def_now copies it */
} st_comm_t;

/* c's definition as the archive takes it now: with the windows created on it so far (def.nwins is not
 * kept up to date during the run). By value; the member lists are c's. A lock-free load: safe in a
 * signal handler (the abnormal end's dump). */
static inline st_comm_def_t st_comm_def_now(const st_comm_t *c)
{
    st_comm_def_t d = c->def;
    d.nwins = atomic_load_explicit(&c->nwins, memory_order_acquire);
    return d;
}

/* Registers MPI_COMM_WORLD and MPI_COMM_SELF. Call once after PMPI_Init. */
void st_comm_init(void);
/* Registers comm (created from parent, which may be MPI_COMM_NULL). Returns NULL on failure. */
st_comm_t *st_comm_add(MPI_Comm comm, MPI_Comm parent);
/* The entry for a live communicator handle, or NULL. Lock-free. The first slot of the handle's probe
 * path is looked at inline (where the point-to-point wrappers find nearly every communicator); the rest
 * of the path out of line. */
typedef struct st_comm_slot {
    _Atomic uint64_t handle;       /* ST_HMAP_KEY of the MPI_Comm, ST_COMM_EMPTY or ST_COMM_REUSING */
    _Atomic(st_comm_t *) comm;     /* NULL once forgotten */
} st_comm_slot_t;

#define ST_COMM_SLOTS   4096u
#define ST_COMM_EMPTY   (1ull << 63)
#define ST_COMM_REUSING (ST_COMM_EMPTY + 1) /* being rebound to another handle (under the lock): matches no lookup */

extern __attribute__((visibility("hidden"))) st_comm_slot_t st_comm_map[ST_COMM_SLOTS];

static inline uint32_t st_comm_slot_of(uint64_t h)
{
    return (uint32_t)((h * 0x9E3779B97F4A7C15ull) >> 52) & (ST_COMM_SLOTS - 1);
}

st_comm_t *st_comm_get_probe(uint64_t h, uint32_t i);

/* The first slot of comm's probe path when it holds comm's handle (its entry may be NULL: forgotten),
 * else NULL: st_comm_get then probes on. */
static inline const st_comm_slot_t *st_comm_first(MPI_Comm comm)
{
    uint64_t h = ST_HMAP_KEY(comm);
    const st_comm_slot_t *s = &st_comm_map[st_comm_slot_of(h)];
    return ST_LIKELY(atomic_load_explicit(&s->handle, memory_order_acquire) == h) ? s : NULL;
}

static inline st_comm_t *st_comm_get(MPI_Comm comm)
{
    const st_comm_slot_t *s = st_comm_first(comm);
    if (ST_LIKELY(s != NULL))
        return atomic_load_explicit(&s->comm, memory_order_acquire);
    uint64_t h = ST_HMAP_KEY(comm);
    return st_comm_get_probe(h, st_comm_slot_of(h));
}
/* Forgets the handle (the definition stays for the archive). */
void st_comm_forget(MPI_Comm comm);

/* World rank of rank r of comm (remote group for intercommunicators), -1 if none. */
static inline int32_t st_comm_world_rank(const st_comm_t *c, int r)
{
    if (r < 0)
        return -1;
    if (c->def.flags & ST_COMMF_INTER)
        return (uint32_t)r < c->def.remote_size ? c->def.remote_world[r] : -1;
    return (uint32_t)r < c->def.size ? c->def.world[r] : -1;
}

/* All communicators registered so far, indexed by st_comm_t.index. */
st_comm_t **st_comm_all(uint32_t *n);

extern int st_world_rank, st_world_size;

#endif
