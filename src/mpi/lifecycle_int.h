/*
 * lifecycle_int.h — what the files of the shim's lifecycle share (lifecycle.h is the contract
 * for the rest of the shim):
 *   load.c      the library constructor: configuration, clock, recording, handlers;
 *   init.c      MPI_Init / MPI_Init_thread: the tool's communicator, archive directory, sync;
 *   collect.c   this rank's data at its end, and the memory set-up around the correction;
 *   finalize.c  MPI_Finalize: sync, preparation, CLC, analysis, the parallel archive write;
 *   omp_only.c  the archive of a program that never called MPI_Init (OpenMP only);
 *   ends.c      MPI_Abort, exit, fatal signals: the dump for `synctrace recover` (abend.h).
 */
#ifndef ST_LIFECYCLE_INT_H
#define ST_LIFECYCLE_INT_H

#include <signal.h>

#include "lifecycle.h"

/* The process's state; defined in load.c. */
extern int st_lc_mpi_started;                 /* PMPI_Init returned successfully (init.c) */
extern int st_lc_mpi_finished;                /* our MPI_Finalize ran (or the run was aborted) */
extern volatile sig_atomic_t st_lc_ending;    /* an end path (normal or abnormal) has begun */
extern volatile sig_atomic_t st_lc_forked;    /* a child of fork() without exec: it records nothing */

/* init.c: what MPI_Init(_thread) does around the initialization, which call(ctx) makes (PMPI_Init,
 * or Open MPI's Fortran pmpi_init_ for the Fortran entry points of fortran.c) and which returns its
 * MPI error code; *provided (NULL: MPI_Init) is read after it. Returns call's result. */
int st_lc_init_call(int thread, int (*call)(void *ctx), void *ctx, const int *provided);
/* finalize.c: all MPI_Finalize does before PMPI_Finalize (the archive is written). */
void st_lc_finalize_tool(void);
/* ends.c: all MPI_Abort does before PMPI_Abort (the dump for `synctrace recover`). */
void st_lc_abort_tool(void);

/* ends.c: at load, the fatal-signal handlers and the exit hook; after PMPI_Init, the fault handlers
 * again in front of the MPI runtime's. */
void st_lc_install_handlers(void);
void st_lc_reinstall_fault_handlers(void);

/* omp_only.c: a program that never called MPI_Init writes a single-process archive at exit
 * (incomplete: flagged so). */
void st_lc_write_without_mpi(int incomplete);

/* collect.c: finalize's memory from st_collect_rankdata's return to the end (util/heap.h), part of
 * it in huge pages: ST_FINALIZE_B_PER_EVENT per event, the working set beyond the events that
 * the analysis reaches at its peak (docs/performance.md, "Peak memory per rank": 100-250 B). */
#define ST_FINALIZE_B_PER_EVENT 256
void st_lc_heap_begin(const st_rankdata_t *rd);
void st_lc_heap_end(void);

/* collect.c: the idle tails of the event buffers lent to the correction (util/mem.h), and back. */
void st_lc_lend_idle_buffers(void);
void st_lc_return_idle_buffers(void);
/* collect.c: the call tree (SYNCTRACE_CALLPATH) into rd, then the texts of call sites and frames. */
void st_lc_collect_callpaths(st_rankdata_t *rd);

#endif
