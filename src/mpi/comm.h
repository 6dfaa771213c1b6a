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

#include "../model/rankdata.h"

/* Most communicators one process registers; later ones are not traced. */
#define ST_COMM_MAX 65536u

typedef struct st_comm {
    st_comm_def_t def;        /* key, membership, name: what goes into the archive */
    uint32_t      index;      /* process-local index, stored in events */
    _Atomic uint64_t coll_seq;/* collective instances begun on this communicator */
    _Atomic uint32_t nwins;   /* RMA windows created on it so far (src/mpi/rma.c); def.nwins at the end */
} st_comm_t;

/* Registers MPI_COMM_WORLD and MPI_COMM_SELF. Call once after PMPI_Init. */
void st_comm_init(void);
/* Registers comm (created from parent, which may be MPI_COMM_NULL). Returns NULL on failure. */
st_comm_t *st_comm_add(MPI_Comm comm, MPI_Comm parent);
/* The entry for a live communicator handle, or NULL. Lock-free. */
st_comm_t *st_comm_get(MPI_Comm comm);
/* Forgets the handle (the definition stays for the archive). */
void st_comm_forget(MPI_Comm comm);

/* World rank of rank r of comm (remote group for intercommunicators), -1 if none. */
int32_t st_comm_world_rank(const st_comm_t *c, int r);

/* All communicators registered so far, indexed by st_comm_t.index. */
st_comm_t **st_comm_all(uint32_t *n);

extern int st_world_rank, st_world_size;

#endif
