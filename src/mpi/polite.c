/* polite.c — Test + sched_yield loops for the tool's own MPI waits (see polite.h). */
#include "polite.h"

#include <sched.h>

int st_polite_wait(MPI_Request *req, MPI_Status *status)
{
    int done = 0, rc;
    while ((rc = PMPI_Test(req, &done, status ? status : MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
        sched_yield();
    return rc;
}

int st_polite_waitall(int n, MPI_Request *reqs)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = st_polite_wait(&reqs[i], NULL);
    return rc;
}

int st_polite_barrier(MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ibarrier(comm, &r);
    return rc == MPI_SUCCESS ? st_polite_wait(&r, NULL) : rc;
}

int st_polite_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ibcast(buf, count, type, root, comm, &r);
    return rc == MPI_SUCCESS ? st_polite_wait(&r, NULL) : rc;
}

int st_polite_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Iallreduce(in, out, count, type, op, comm, &r);
    return rc == MPI_SUCCESS ? st_polite_wait(&r, NULL) : rc;
}
