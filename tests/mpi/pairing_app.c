/*
 * pairing_app.c — the MPI program of t_pairing.sh, built with either MPI family: rank 0 prints the
 * number of ranks, a sum over them, its arguments and its LD_PRELOAD (so that a re-executed run must
 * have kept both to print the same); every rank exits with the status given as first argument.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ranks %d, sum of ranks %d\n", size, sum);
        for (int i = 1; i < argc; i++)
            printf("argument %d: '%s'\n", i, argv[i]);
        const char *pre = getenv("LD_PRELOAD");
        printf("LD_PRELOAD %s\n", pre ? pre : "(unset)");
    }
    MPI_Finalize();
    return argc > 1 ? atoi(argv[1]) : 0;
}
