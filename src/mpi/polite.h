/*
 * polite.h — waiting on the tool's own MPI operations without burning the CPU.
 *
 * MPICH (ch4) busy-polls inside blocking calls; with more ranks than cores a waiting
 * rank then holds its core for a whole time slice while its partner cannot run. Every
 * wait of the tool itself (sync, CLC exchanges, archive writing) goes through these:
 * PMPI_Test + sched_yield(). They cost nothing when ranks have their own cores.
 * Never used on the application's operations.
 */
#ifndef ST_POLITE_H
#define ST_POLITE_H

#include <mpi.h>

/* Waits for req; returns the MPI error code. */
int st_polite_wait(MPI_Request *req, MPI_Status *status);
/* Waits for all n requests. */
int st_polite_waitall(int n, MPI_Request *reqs);
/* Barrier / Bcast / Allreduce / Gather on a tool communicator, waited politely. */
int st_polite_barrier(MPI_Comm comm);
int st_polite_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int st_polite_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

#endif
