/*
 * parallel_mpi.h — the parallel analysis (parallel.h) over MPI: in the shim at MPI_Finalize
 * (src/analysis/inrun_mpi.c) and under `mpiexec synctrace analyze` (src/cli/analyze_mpi.c).
 */
#ifndef ST_AN_PARALLEL_MPI_H
#define ST_AN_PARALLEL_MPI_H

#include <mpi.h>

#include "analysis.h"

/*
 * Collective over comm (one process per rank of comm; not freed): each process analyses in
 * (its locations; owner[rank] = the process that holds archive rank `rank`, see
 * st_an_par_new) in parallel with the others on a private duplicate of comm, over the MPI
 * transport of the exchange layer (src/exchange/exchange_mpi.h: Isend / Improbe and polite
 * waits, never a blocking one); the parts are gathered at process 0 and merged there into
 * *res (with its locations' rank and thread). crowded: more processes on the host than CPUs
 * (waits sleep). Returns 0 when the analysis succeeded everywhere, else -1 on every process
 * (the reason logged once); at process 0 also -1 when merging the parts failed (then only
 * there). derived (may be NULL): as for st_an_par_new. At every process res->rootcause_ms is the root-cause
 * analysis' time there (its timeline; at process 0 also the parts' timelines and the replay).
 */
int st_an_par_run_mpi(MPI_Comm comm, const st_rel_input_t *in, st_rel_derived_t *derived, const int32_t *owner,
                      int crowded, st_an_result_t *res);

/* Collective over comm: the lock epochs of every process's ranks (relations/locks.h: their order at a
 * target needs every origin's), gathered into in->locks before st_an_par_run_mpi derives; in->locks holds
 * this process's own ranks' on entry (st_rel_input_from_rankdata made them). 0, or -1 on every process
 * alike. */
int st_an_par_locks_mpi(MPI_Comm comm, st_rel_input_t *in, int crowded);

#endif
