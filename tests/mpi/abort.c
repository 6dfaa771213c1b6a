/*
 * abort.c — a job that ends in MPI_Abort (tests/mpi/t_abort.sh).
 *
 * Usage: abort [ROUNDS] (default 20). Every rank runs ROUNDS ring rounds (MPI_Send/MPI_Recv,
 * tag 1) and an MPI_Barrier; rank 0 prints the ring checksums; then rank 1 (rank 0 with a
 * single rank) calls MPI_Abort(MPI_COMM_WORLD, 3) while the others wait in MPI_Recv for a
 * message that never comes. The exit code of the job is MPI_Abort's. Before the abort every rank
 * puts its rank into its right neighbour's window (created on MPI_COMM_WORLD, fence epochs, left
 * open): the recovered archive must define that window and name it in every RMA record.
 */
#include <time.h>

#include "st_test.h"

int main(int argc, char **argv)
{
    int rounds = (int)st_test_arg(argc, argv, 0, 20), rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    uint64_t h = ST_TEST_SEED;
    for (int r = 0; r < rounds; r++) {
        int64_t token = r, in = 0;
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token = in + rank;
            MPI_Send(&token, 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD);
        }
        h = st_test_mix(h, in);
    }
    st_test_report("ring", h, rank, size);
    int32_t slot = -1, mine = rank;
    MPI_Win win;
    MPI_Win_create(&slot, sizeof slot, sizeof slot, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&mine, 1, MPI_INT32_T, right, 0, 1, MPI_INT32_T, win);
    MPI_Win_fence(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == (size > 1 ? 1 : 0)) {
        /* Give the launcher time to forward rank 0's line: the abort kills the job, and
         * output still in transit was lost about once in a hundred runs. */
        struct timespec pause = { 0, 300 * 1000 * 1000 };
        nanosleep(&pause, NULL);
        MPI_Abort(MPI_COMM_WORLD, 3);
    } else {
        int64_t never;
        MPI_Recv(&never, 1, MPI_INT64_T, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
