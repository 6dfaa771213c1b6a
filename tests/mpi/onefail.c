/*
 * onefail.c — one rank ends abnormally while the others compute outside MPI
 * (tests/mpi/t_onefail.sh): they cannot learn of it through MPI, and the launcher kills
 * them with SIGKILL as soon as that rank is gone.
 *
 * Usage: onefail MODE [ROUNDS] (default 20). Every rank runs ROUNDS ring rounds (MPI_Send/
 * MPI_Recv, tag 1) and an MPI_Barrier; then rank 1 ends by MODE — "abort" (MPI_Abort(WORLD, 3)),
 * "segv" (a NULL store) or "exit" (exit(4) without MPI_Finalize) — 0.3 s later, while the others
 * spin in a computation loop for up to 30 s before MPI_Finalize.
 */
#include <time.h>

#include "st_test.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "abort";
    int rounds = (int)st_test_arg(argc, argv, 1, 20), rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int r = 0; r < rounds; r++) {
        int64_t token = r, in = 0;
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&in, 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double start = now();
    if (rank == 1) {
        struct timespec pause = { 0, 300 * 1000 * 1000 };
        nanosleep(&pause, NULL);
        if (!strcmp(mode, "abort"))
            MPI_Abort(MPI_COMM_WORLD, 3);
        if (!strcmp(mode, "segv")) {
            volatile int *p = NULL;
            *p = 1;
        }
        if (!strcmp(mode, "exit"))
            exit(4);
    }
    volatile double x = 1;
    while (now() - start < 30)
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
    MPI_Finalize();
    return 0;
}
