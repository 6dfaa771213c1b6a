/*
 * handoff_crash.c — a rank that ends by a signal while the tool's writer thread still holds full
 * event buffers (tests/mpi/t_handoff_crash.sh, with slow spill writes).
 *
 * Usage: handoff_crash term|segv BURSTS. Every rank runs BURSTS bursts of burst.c's pattern
 * (K = 32 MPI_Irecv from the left, 32 MPI_Isend to the right, one MPI_Waitall), then an
 * MPI_Barrier; then rank 1 raises SIGTERM ("term") or stores through a NULL pointer ("segv"),
 * while the others wait in a second MPI_Barrier that never completes.
 */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define K 32

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bursts = argc > 2 ? atoi(argv[2]) : 30;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int64_t out[K], in[K];
    MPI_Request req[2 * K];
    MPI_Status st[2 * K];
    for (int b = 0; b < bursts; b++) {
        for (int i = 0; i < K; i++)
            MPI_Irecv(&in[i], 1, MPI_INT64_T, left, i, MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < K; i++) {
            out[i] = (int64_t)rank * 1000000 + b * 1000 + i;
            MPI_Isend(&out[i], 1, MPI_INT64_T, right, i, MPI_COMM_WORLD, &req[K + i]);
        }
        MPI_Waitall(2 * K, req, st);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        if (argc > 1 && !strcmp(argv[1], "segv")) {
            volatile int *p = NULL;
            *p = 1;
        }
        raise(SIGTERM);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
