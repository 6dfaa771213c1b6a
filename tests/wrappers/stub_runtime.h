/*
 * stub_runtime.h — what the stub runtime (stub_runtime.c) remembers of the calls the
 * generated wrappers make, for tests/wrappers/bytes_prog.c.
 */
#ifndef ST_STUB_RUNTIME_H
#define ST_STUB_RUNTIME_H

#include "../../src/mpi/st_mpi.h"

typedef struct st_stub_coll {
    int ends;          /* st_mpi_coll_end / successful st_mpi_icoll calls so far */
    int op, root;
    MPI_Comm comm;
    uint64_t sent, recvd;
} st_stub_coll_t;

typedef struct st_stub_p2p {
    const char *what;  /* send, isend, irecv, send_init, recv_init */
    MPI_Comm comm;
    int peer, tag;
    uint64_t bytes;
} st_stub_p2p_t;

typedef struct st_stub {
    st_stub_coll_t coll;
    int coll_begins;
    st_stub_p2p_t p2p;
    uint64_t recv_post;
    int recv_rc, recv_status_ignored, recv_source;
    int reqs_added, started, freed, completed;
    unsigned complete_sources; /* bit s: a completion with MPI_SOURCE s; bit 31: status ignored */
    MPI_Request last_req;
    int comm_new, comm_freed;
    MPI_Comm comm_parent;
    int v_calls, vc_calls;     /* which byte-sum helper _Generic picked */
    int null_type_reads;       /* st_mpi_bytes asked about MPI_DATATYPE_NULL: an ignored argument was read */
    struct {                   /* the last one-sided operation (st_mpi_rma_op) and window calls */
        int ops, op, target, with_request;
        uint64_t sent, recvd;
        int created, freed, fences, locks, unlocks, pscw, pscw_what, lock_target, unlock_target;
    } rma;
} st_stub_t;

extern st_stub_t st_stub;

/* The recording thread (events of the wrappers land in its buffer). */
st_thread_t *st_stub_thread(void);

#endif
