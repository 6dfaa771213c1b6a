/*
 * call_kinds.h — what an MPI call does for the wait-state analysis, as the wrapper table
 * (wrappers/mpi_functions.tbl) says: scripts/gen_wrappers.py writes it into mpi_calls.def,
 * one ST_MPI_CALL(ID, CALL, CATEGORY) per MPI region, which call_kinds.c expands. The
 * analysis names no MPI function itself: a function added to the table with an existing role
 * is classified here without a change to the analysis. MPI-free, read-only, thread-safe.
 */
#ifndef ST_AN_CALL_KINDS_H
#define ST_AN_CALL_KINDS_H

#include <stdint.h>

/* The table's call kinds (a role's 'call' line, an entry's call=). */
enum an_call_kind {
    AN_CALL_NONE,
    AN_CALL_SEND_BLOCKING, /* a send that may wait inside the call for its receive's post (MPI_Send, Ssend) */
    AN_CALL_WAIT_ONE,      /* blocks until one request completes (MPI_Wait, Waitany) */
    AN_CALL_WAIT_MANY,     /* blocks until several requests complete (MPI_Waitall, Waitsome) */
    AN_CALL_TEST,          /* completes requests without blocking (MPI_Test, Testany, Testall, Testsome) */
};

/* The table's categories of MPI time by name ('category' lines). */
enum an_call_category {
    AN_CAT_NONE,      /* by the region role instead */
    AN_CAT_INIT_EXIT, /* MPI_Init*, MPI_Finalize* */
    AN_CAT_MGMT_COMM, /* communicator and topology management */
    AN_CAT_MGMT_WIN,  /* window management */
    AN_CAT_MGMT_FILE, /* file management (MPI_File_* that neither reads nor writes) */
    AN_CAT_IO_COLL,   /* collective file I/O */
    AN_CAT_IO_INDIV,  /* individual file I/O */
    AN_CAT_RMA_ACTIVE,  /* one-sided active target synchronization (fence, post, start, complete, wait, test) */
    AN_CAT_RMA_PASSIVE, /* one-sided passive target synchronization (lock, unlock, flush, sync) */
    AN_CAT_RMA_COMM,    /* one-sided communication (put, get, accumulate, ...) */
};

/* The call kind and the category of region r (region.h); NONE for a region that is not an MPI
 * function of the table and for an id out of range. */
enum an_call_kind an_call_kind(uint32_t r);
enum an_call_category an_call_category(uint32_t r);

#endif
