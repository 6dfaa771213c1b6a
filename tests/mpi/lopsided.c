/*
 * lopsided.c — two ranks with very different trace sizes (tests/mpi/t_sigterm_large.sh).
 *
 * Usage: lopsided [N] (default 500000). Rank 1 calls MPI_Iprobe N times (2N+ events, ~64 MiB for
 * the default) while rank 0 waits for it in MPI_Recv; rank 0 then prints "running" and both
 * sleep until a signal ends them (at most 60 s, then MPI_Finalize).
 */
#include <unistd.h>

#include "st_test.h"

int main(int argc, char **argv)
{
    long n = st_test_arg(argc, argv, 0, 500000);
    int rank, flag, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        for (long i = 0; i < n; i++)
            MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("running\n");
        fflush(stdout);
    }
    for (int s = 0; s < 60; s++)
        sleep(1);
    MPI_Finalize();
    return 0;
}
