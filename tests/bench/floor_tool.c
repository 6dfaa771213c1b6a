/*
 * floor_tool.c — the least an event tracer can add to MPI_Send and MPI_Recv, for user_bench.sh's
 * round trip, and to MPI_Put and MPI_Accumulate, for rma_bench.sh's one-sided calls: preloaded in
 * place of libsynctrace.so, each call reads the TSC and stores one 64-byte
 * record before its PMPI call and again after it, into a buffer of the thread's that wraps around and
 * is never written out. No communicator lookup, no message record, no buffer hand-off, no clock
 * mapping: whatever synctrace adds beyond this floor is its own bookkeeping, and this floor is what a
 * tracer that keeps an ENTER and a LEAVE per call with a hardware clock cannot go below.
 */
#include <mpi.h>
#include <stdint.h>
#include <x86intrin.h>

typedef struct { uint64_t time, kind, peer, pad[5]; } floor_rec_t; /* 64 bytes, as a synctrace event */

#define FLOOR_RECS (1u << 16) /* 4 MiB per thread: larger than the caches, as a real buffer is */

static __thread floor_rec_t recs[FLOOR_RECS];
static __thread uint32_t next;

static inline void put(uint64_t kind, int peer)
{
    floor_rec_t *r = &recs[next++ & (FLOOR_RECS - 1)];
    *r = (floor_rec_t){ .time = __rdtsc(), .kind = kind, .peer = (uint64_t)(int64_t)peer };
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    put(1, dest);
    int rc = PMPI_Send(buf, count, type, dest, tag, comm);
    put(2, dest);
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    put(3, source);
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
    put(4, source);
    return rc;
}

int MPI_Put(const void *origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint disp, int target_count,
            MPI_Datatype target_type, MPI_Win win)
{
    put(5, target);
    int rc = PMPI_Put(origin, origin_count, origin_type, target, disp, target_count, target_type, win);
    put(6, target);
    return rc;
}

int MPI_Accumulate(const void *origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint disp,
                   int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win)
{
    put(7, target);
    int rc = PMPI_Accumulate(origin, origin_count, origin_type, target, disp, target_count, target_type, op, win);
    put(8, target);
    return rc;
}
