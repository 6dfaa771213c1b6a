/*
 * clc_mpi.h — the shim's CLC (replay_mpi.c): what the MPI lifecycle calls at the end of a run.
 *
 * st_clc_run_mpi() is collective over the tool's world communicator, at MPI_Finalize after the
 * trace is collected and prepared (st_otf2_prepare) and before it is written: it agrees on the
 * parameters, corrects this rank's locations in parallel with the others (replay.h) and records
 * parameters and statistics as clc.* properties. With SYNCTRACE_CLC=off it only records the
 * parameters (for `synctrace clc`). Returns 0, or -1 when the timestamps were left uncorrected.
 * keep (may be NULL): when the correction succeeded and moved none of this rank's events, its
 * derivation of this rank's logical messages (relations/relations.h), for the in-run analysis; else left empty.
 * Free with st_rel_derived_free.
 *
 * st_clc_run_local() corrects a program that never called MPI_Init (OpenMP relations only),
 * sequentially, with the same parameters and statistics. Not collective. keep (may be NULL): gets
 * the graph of the relations when nothing moved (st_clc_correct_rankdata), for the analysis; else
 * left empty. Free it with st_rel_graph_free.
 */
#ifndef ST_CLC_MPI_H
#define ST_CLC_MPI_H

#include <mpi.h>

#include "../model/rankdata.h"
#include "../relations/relations.h"

/* crowded: st_polite_crowded(toolworld), which the caller asks once for CLC and the analysis. */
int st_clc_run_mpi(MPI_Comm toolworld, st_rankdata_t *rd, st_rel_derived_t *keep, int crowded);
int st_clc_run_local(st_rankdata_t *rd, st_rel_graph_t *keep);

#endif
