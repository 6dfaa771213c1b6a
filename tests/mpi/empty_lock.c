/*
 * empty_lock.c — an exclusive lock epoch without an operation that makes another wait (t_rma_empty_lock.sh).
 * Usage: empty_lock [-c FILE]. On 3 ranks, a window on MPI_COMM_WORLD, after a barrier:
 *  rank 1  MPI_Win_lock(exclusive, 0), 200 ms without MPI, MPI_Win_unlock(0): no operation
 *  rank 2  20 ms later MPI_Win_lock(exclusive, 0) (it waits for rank 1's epoch), MPI_Put, MPI_Win_unlock
 * Prints a checksum on rank 0.
 */
#include "st_test.h"

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    (void)st_test_arg(argc, argv, 0, 0);
    int rank, size, x = 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ST_TEST_REQUIRE(size == 3, "run on 3 ranks, not %d", size);
    static int buf[4];
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        sleep_ms(200);
        MPI_Win_unlock(0, win);
    } else if (rank == 2) {
        sleep_ms(20);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("empty_lock checksum %llu\n", (unsigned long long)st_test_mix(ST_TEST_SEED, buf[0]));
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
