/*
 * mallocspin.c — ranks that spend most of their time inside malloc/free when a signal comes
 * (tests/mpi/t_signal_malloc.sh): a handler that allocates deadlocks on the allocator's lock.
 *
 * Usage: mallocspin [SECONDS] (default 30). Every rank loops: allocate 64 blocks of 16 B .. 8 KiB
 * (more than the thread cache holds, so malloc takes the arena lock), free them, and every 30
 * batches an MPI_Allreduce (so there are events to save). Rank 0 prints "running" after
 * the first 20 reductions; the loop ends after SECONDS.
 */
#include "st_test.h"

int main(int argc, char **argv)
{
    double seconds = (double)st_test_arg(argc, argv, 0, 30);
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double start = MPI_Wtime();
    uint64_t x = 88172645463325252ull + (uint64_t)rank, sum = 0;
    char *blocks[64];
    for (long i = 1;; i++) {
        for (int k = 0; k < 64; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            blocks[k] = malloc(16 + x % 8192);
            if (blocks[k])
                blocks[k][0] = (char)k;
        }
        for (int k = 0; k < 64; k++) {
            sum += blocks[k] ? (uint8_t)blocks[k][0] : 0;
            free(blocks[k]);
        }
        if (i % 30 == 0) {
            int stop = MPI_Wtime() - start > seconds, any = 0;
            MPI_Allreduce(&stop, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (rank == 0 && i == 600) {
                printf("running\n");
                fflush(stdout);
            }
            if (any)
                break;
        }
    }
    if (rank == 0)
        printf("finished %d\n", (int)(sum > 0));
    MPI_Finalize();
    return 0;
}
