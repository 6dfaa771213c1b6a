/*
 * rma.h — what the generated wrappers of MPI_Win_post and MPI_Win_start call (rma.c; the other
 * one-sided calls are in st_mpi.h).
 */
#ifndef ST_MPI_RMA_H
#define ST_MPI_RMA_H

#include <mpi.h>

#include "../record/record.h"

/* After MPI_Win_post / MPI_Win_start (what: ST_PSCW_POST / _START, massert: the call's assert):
 * RMA_GROUP_SYNC and the group's members, as st_mpi_win_pscw records them; a post then sends each
 * origin of its group its note, a start first waits for the note of each target of its group
 * (not with MPI_MODE_NOCHECK): the post -> start relation (docs/clc.md, Decisions 12). */
void st_mpi_win_post_start(st_thread_t *th, int rc, int what, MPI_Group group, int massert, MPI_Win win);

#endif
