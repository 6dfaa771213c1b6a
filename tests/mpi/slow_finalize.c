/*
 * slow_finalize.c — preloaded before the shim (tests/mpi/t_wait_notice.sh): once the application has
 * called MPI_Finalize, rank SLOW_RANK's tool work stalls for SLOW_SECONDS at its next MPI_Comm_idup (the CLC
 * duplicates the tool communicator at MPI_Finalize), as if that rank had stopped. The other ranks must
 * say what they are waiting for instead of waiting silently.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

static int finalizing;

int MPI_Finalize(void)
{
    finalizing = 1;
    int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "MPI_Finalize");
    return next();
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *out, MPI_Request *req)
{
    int (*next)(MPI_Comm, MPI_Comm *, MPI_Request *) =
        (int (*)(MPI_Comm, MPI_Comm *, MPI_Request *))dlsym(RTLD_NEXT, "PMPI_Comm_idup");
    int rank = -1;
    const char *who = getenv("SLOW_RANK"), *secs = getenv("SLOW_SECONDS");
    if (finalizing && who && secs) {
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == atoi(who)) {
            finalizing = 0; /* once */
            sleep((unsigned)atoi(secs));
        }
    }
    return next(comm, out, req);
}
