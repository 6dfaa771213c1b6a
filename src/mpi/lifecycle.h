/*
 * lifecycle.h — the shim's life: load, MPI_Init, MPI_Finalize, and abnormal ends.
 *
 * Load (library constructor): a program of the other MPI family is refused first (one
 * line, then it runs untraced: pairing.h; checked again at MPI_Init for an MPI loaded
 * late); parse and validate the configuration (a bad value stops the process with one
 * line before the application runs), select the clock, start recording. MPI_Init/MPI_Init_thread: create the tool's private world
 * communicator, register WORLD/SELF, prepare the archive directory (rank 0, shared by
 * broadcast), synchronize clocks, start tracing MPI. MPI_Finalize: last sync, gather
 * this rank's data, correct (CLC), write the archive collectively, then PMPI_Finalize.
 * Abnormal ends (MPI_Abort, fatal signals, exit without MPI_Finalize, a signal during
 * MPI_Finalize before the archive is written) dump what was recorded into DIR/partial/
 * for `synctrace recover`, async-signal-safely and from every rank of the host (abend.h);
 * a program that never called MPI_Init but recorded OpenMP events gets a complete archive
 * written at exit, or a dump when a signal ends it. A child of fork() without exec
 * records and writes nothing.
 * The files: load.c, init.c, collect.c, finalize.c, omp_only.c, ends.c (lifecycle_int.h).
 */
#ifndef ST_LIFECYCLE_H
#define ST_LIFECYCLE_H

#include <mpi.h>

#include "../model/rankdata.h"

extern MPI_Comm st_tool_comm;      /* private PMPI_Comm_dup of MPI_COMM_WORLD */
extern char st_archive_dir[4096];  /* where this run's archive goes */

/* Fills rd with everything this process recorded (events loaded from buffers and spill files). */
int st_collect_rankdata(st_rankdata_t *rd, int incomplete);

/* Adds the properties of the run (VERSION, INCOMPLETE, BUFFER) to rd. Not async-signal-safe. */
void st_run_props(st_rankdata_t *rd, int incomplete);

#endif
