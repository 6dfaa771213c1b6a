/*
 * long_epoch.c — a long exclusive lock epoch after a phase of many shared ones (t_rma_long_epoch.sh).
 * Usage: long_epoch [-c FILE] [S [P]] (default 3000, 150000). On 3 ranks, a window from
 * MPI_Win_allocate on MPI_COMM_WORLD:
 *  rank 1  S shared lock epochs at rank 0, one MPI_Put each (one phase of the lock order)
 *  rank 2  after a barrier, one exclusive epoch at rank 0 with P puts (the next phase)
 * Each shared epoch's release relates to the exclusive epoch's acquisition: S lock relations into one
 * epoch of 3 P + 2 events. Prints a checksum of rank 0's window on rank 0.
 */
#include "st_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long S = st_test_arg(argc, argv, 0, 3000), P = st_test_arg(argc, argv, 1, 150000);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ST_TEST_REQUIRE(size == 3, "run on 3 ranks, not %d", size);
    double *buf, x = rank;
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < 64; i++)
        buf[i] = 0;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        for (long i = 0; i < S; i++) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            MPI_Put(&x, 1, MPI_DOUBLE, 0, (int)(i % 32), 1, MPI_DOUBLE, win);
            MPI_Win_unlock(0, win);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        for (long i = 0; i < P; i++)
            MPI_Put(&x, 1, MPI_DOUBLE, 0, 32 + (int)(i % 32), 1, MPI_DOUBLE, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        uint64_t h = ST_TEST_SEED;
        for (int i = 0; i < 64; i++)
            h = st_test_mix(h, (int64_t)buf[i]);
        MPI_Win_unlock(0, win);
        printf("long_epoch: %016llx\n", (unsigned long long)h);
    }
    MPI_Win_free(&win);
    st_test_write_counts(rank);
    MPI_Finalize();
    return 0;
}
