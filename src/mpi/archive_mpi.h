/*
 * archive_mpi.h — writing the OTF2 archive in parallel at MPI_Finalize.
 *
 * Every rank writes its own locations' events; rank 0 writes the global
 * definitions from all ranks' definition blobs, gathered over the tool's private
 * communicator with PMPI only. Waits are polite (nonblocking PMPI + PMPI_Test +
 * sched_yield), except inside OTF2's own MPI collectives, which block.
 */
#ifndef ST_ARCHIVE_MPI_H
#define ST_ARCHIVE_MPI_H

#include <mpi.h>

#include "../model/rankdata.h"

/*
 * Writes DIR/traces.otf2. Collective over toolcomm (a private communicator whose
 * rank i is WORLD rank i; all its ranks must call). mine: this rank's data with
 * events; st_otf2_prepare() is applied to it (events may be repaired/dropped, teams
 * filled in). DIR is created if missing; an existing archive is never overwritten.
 * Returns 0 on every rank on success; otherwise the same nonzero st_otf2_status_t
 * on every rank, after one error line from the rank that found the problem (rank 0
 * for directory problems), and the partial archive files are removed. Never aborts.
 */
int st_archive_write_mpi(MPI_Comm toolcomm, st_rankdata_t *mine, const char *dir);

#endif
