/*
 * exchange_mpi.h — the MPI transport of the exchange layer (exchange.h), shared by the
 * parallel CLC (replay_mpi.c) and the parallel analysis (src/analysis/parallel_mpi.c).
 *
 * An engine (a message-driven state machine) is driven on a private communicator: Isend of
 * the buffers it hands to the net (a long one in pieces), Improbe/Mrecv of what arrives, PMPI_Testsome and
 * st_polite_pause when idle — never a blocking wait. After the loop every rank that
 * entered it drains: a rank that failed tells every other (an empty abort message), the
 * number of messages each rank sent to each other is summed (one reduce-scatter), and
 * each receives (and discards) until it has all of its own and its sends completed, so
 * no tool message is left pending when the communicator is freed.
 * Collective calls are marked; call from one thread; never aborts the application.
 */
#ifndef ST_EXCHANGE_MPI_H
#define ST_EXCHANGE_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "exchange.h"

/* A message longer than this travels in pieces of this size (exchange_mpi.c says why). */
#define ST_XMPI_PIECE_BYTES ((size_t)256 << 10)

/* What the loop drives: the values of ST_CLC_REPLAY_* (replay.h). */
enum { ST_XMPI_FAILED = -1, ST_XMPI_DONE = 0, ST_XMPI_BUSY = 1, ST_XMPI_IDLE = 2 };

typedef struct st_xmpi_engine {
    const char *what;                               /* "CLC", "analysis": for messages */
    int  (*progress)(void *ctx);                    /* ST_XMPI_* */
    int  (*deliver)(void *ctx, int32_t from, const void *buf, size_t len); /* 0, or -1 (malformed) */
    void (*waiting)(void *ctx, char *buf, size_t n); /* one line: what it waits for */
    void *ctx;
} st_xmpi_engine_t;

typedef struct st_xmpi {
    MPI_Comm     comm;
    MPI_Request *req;
    void       **buf;
    int          n, cap, err;
    int          aborted;   /* an abort message arrived: another rank failed */
    int32_t      nranks;
    uint64_t    *sent;      /* [nranks]: messages sent to each rank (for the drain) */
    uint64_t     received;  /* messages received */
    void        *rbuf;      /* where every message or piece is received, reused (exchange_mpi.c says why) */
    size_t       rcap;
    struct st_xmpi_part {   /* [nranks] (or NULL): a message arriving in pieces from each rank */
        void  *buf;         /* util/mem.h's, as long as the message (NULL: none arriving) */
        size_t len, cap;    /* bytes arrived, and the message's length */
    } *part;
} st_xmpi_t;

/* 0, or -1 (memory). comm: the private communicator (not freed by st_xmpi_free). */
int st_xmpi_init(st_xmpi_t *m, MPI_Comm comm);
/* Frees what m holds but its receive buffer, which the next st_xmpi_init takes over. */
void st_xmpi_free(st_xmpi_t *m);
/* Frees the receive buffer kept for the next engine, once no engine runs any more (at MPI_Finalize after
 * the analysis; `synctrace analyze` after its own). */
void st_xmpi_release(void);
/* The net to hand to an engine. */
st_xchg_net_t st_xmpi_net(st_xmpi_t *m);

/* Every process's `size`-byte items in rank order (collective over comm): *all (malloc'd, the
 * caller frees; NULL when there are none) holds *nall of them. ok = 0: this process has no valid
 * part. 0, or -1 (some process not ok, memory, more than INT_MAX bytes, MPI) on every process alike. */
int st_xmpi_allgather_items(MPI_Comm comm, int ok, const void *mine, size_t n, size_t size, void **all, size_t *nall,
                            int crowded);

/* Collective: *incoming = the number of ranks whose flags[me] is set (flags: [nranks]). 0, or -1. */
int st_xmpi_incoming(MPI_Comm comm, const uint8_t *flags, int32_t nranks, uint32_t *incoming, int crowded);
/* Collective: out[i] = min over the ranks of in[i], i < n; returns the MPI error code. */
int st_xmpi_min_all(const int *in, int *out, int n, MPI_Comm comm, int crowded);

/* Runs e until it is DONE and every send completed: 0; -1 on failure, on an abort
 * message, or after a stall (no progress for stall_s seconds plus twice the time taken). */
int st_xmpi_loop(st_xmpi_t *m, const st_xmpi_engine_t *e, int32_t rank, double t_start, double stall_s, int crowded);

/* Collective over the ranks that entered the loop: tells the others if !ok, drains and
 * releases what is left. Returns ok && the drain worked. */
int st_xmpi_finish(st_xmpi_t *m, int ok, int32_t rank, int crowded, const char *what);


#endif
