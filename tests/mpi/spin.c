/*
 * spin.c — a job that runs until it is killed (tests/mpi/t_sigterm.sh).
 *
 * Usage: spin [SECONDS] (default 60). The ranks pass a token around the ring (MPI_Send/
 * MPI_Recv, tag 1), rank 0 pausing 1 ms per round. Rank 0 prints "running" after 50 rounds
 * (the test waits for that line before it signals the job) and ends the loop after
 * SECONDS seconds by sending a negative token, so a lost signal cannot hang the test.
 */
#include "st_test.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    double seconds = (double)st_test_arg(argc, argv, 0, 60);
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double start = now();
    for (int64_t round = 1;; round++) {
        int64_t token = round, in = 0;
        if (rank == 0) {
            if (now() - start > seconds)
                token = -1;
            MPI_Send(&token, 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (round == 50) {
                printf("running\n");
                fflush(stdout);
            }
            struct timespec ts = { 0, 1000 * 1000 };
            nanosleep(&ts, NULL);
        } else {
            MPI_Recv(&in, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&in, 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD);
        }
        if (in < 0)
            break;
    }
    if (rank == 0)
        printf("finished\n");
    MPI_Finalize();
    return 0;
}
