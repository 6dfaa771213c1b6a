/*
 * inrun_mpi.h — the wait-state analysis at the end of a traced MPI run (SYNCTRACE_ANALYZE,
 * default on), called by the lifecycle (src/mpi/finalize.c) in two steps:
 *
 *  st_an_inrun_run():   after CLC and before the archive is written, collective over the
 *                       tool's world communicator: every rank analyses its own locations in
 *                       parallel with the others (parallel_mpi.h, timestamps as the archive
 *                       will hold them); rank 0 keeps the merged report and records
 *                       FINALIZE_ANALYSIS_MS and _CPU_MS (the slowest rank's wall and CPU
 *                       time) in the archive; with SYNCTRACE_ROOTCAUSE on, FINALIZE_ROOTCAUSE_MS
 *                       and _CPU_MS, the part of those the root causes took on the slowest rank
 *                       (each rank: its timeline; rank 0 also the parts' timelines and the replay).
 *                       With SYNCTRACE_CLC=off it analyses the uncorrected times (and says so).
 *  st_an_inrun_report(): after the archive is written, rank 0 only: DIR/analysis.json and
 *                       DIR/analysis.cubex, exactly as `synctrace analyze DIR` writes them,
 *                       and a short summary on stderr (never stdout).
 *  st_an_inrun_local(): instead of st_an_inrun_run in a program that never called MPI_Init (an
 *                       OpenMP program: its archive is written at exit), the serial analysis of
 *                       this process, as `synctrace analyze` makes it, with the same properties;
 *                       on the graph CLC kept (st_clc_run_local) when it has one, else derived here.
 * A failure anywhere is reported once and the analysis skipped on every rank; the
 * application is never affected. Call from one thread.
 */
#ifndef ST_AN_INRUN_MPI_H
#define ST_AN_INRUN_MPI_H

#include <mpi.h>

#include "../model/rankdata.h"
#include "analysis.h"

typedef struct st_an_inrun {
    int            have;      /* rank 0: a report to write */
    st_an_result_t res;
    uint64_t       resolution;
    double         ms;        /* the slowest rank's wall time */
    int            clc_off;
    int            lossy;     /* some rank lost events (st_an_check_report) */
} st_an_inrun_t;

/* derived (may be NULL): CLC's derivation of this rank's logical messages (st_clc_run_mpi),
 * taken instead of deriving them again; emptied. */
/* crowded: st_polite_crowded(toolworld), asked once by the caller for CLC and the analysis. */
void st_an_inrun_run(MPI_Comm toolworld, st_rankdata_t *rd, st_rel_derived_t *derived, int crowded, st_an_inrun_t *a);
/* g (may be NULL or empty): the relations' graph st_clc_run_local kept; freed. */
void st_an_inrun_local(st_rankdata_t *rd, st_rel_graph_t *g, st_an_inrun_t *a);
void st_an_inrun_report(st_an_inrun_t *a, const char *dir, int archive_written);

#endif
