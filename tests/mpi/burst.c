/*
 * burst.c — many events with little synchronization (tests/mpi/t_flush.sh).
 *
 * Usage: burst [-c COUNTFILE] [BURSTS] [K] (defaults 25, 32). Each burst, every rank posts K
 * MPI_Irecv from its left neighbour and K MPI_Isend to its right one (tags 0..K-1, 8 bytes)
 * and completes all 2K requests with one MPI_Waitall: 7K+3 events per burst and rank, but
 * only one exchange to wait for, so it stays fast on oversubscribed cores. Then
 * st_test_report (one MPI_Gather).
 */
#include "st_test.h"

#define MAXK 256

int main(int argc, char **argv)
{
    int bursts = (int)st_test_arg(argc, argv, 0, 25), k = (int)st_test_arg(argc, argv, 1, 32);
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ST_TEST_REQUIRE(k >= 1 && k <= MAXK, "K must be 1..%d", MAXK);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int64_t out[MAXK], in[MAXK];
    MPI_Request req[2 * MAXK];
    uint64_t h = ST_TEST_SEED;
    for (int b = 0; b < bursts; b++) {
        for (int i = 0; i < k; i++)
            MPI_Irecv(&in[i], 1, MPI_INT64_T, left, i, MPI_COMM_WORLD, &req[i]);
        for (int i = 0; i < k; i++) {
            out[i] = (int64_t)rank * 1000000 + b * 1000 + i;
            MPI_Isend(&out[i], 1, MPI_INT64_T, right, i, MPI_COMM_WORLD, &req[k + i]);
        }
        MPI_Waitall(2 * k, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < k; i++)
            h = st_test_mix(h, in[i]);
    }
    st_test_report("burst", h, rank, size);
    MPI_Finalize();
    return 0;
}
