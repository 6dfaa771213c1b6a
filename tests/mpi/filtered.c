/*
 * filtered.c — high-frequency cheap MPI calls next to real communication, for region filters
 * (t_filter.sh): N iterations of MPI_Type_size, MPI_Comm_rank and MPI_Win_flush_all (inside one
 * passive-target epoch, MPI_Win_lock_all .. MPI_Win_unlock_all, with an MPI_Put every iteration)
 * and, R times spread over them, a ring exchange (MPI_Isend/MPI_Irecv/MPI_Waitall) and an
 * MPI_Allreduce. Usage: filtered [-c FILE] [N [R]] (default 100000 iterations, 20 rounds).
 * Prints a checksum per rank on rank 0.
 */
#include "st_test.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = st_test_arg(argc, argv, 0, 100000), rounds = st_test_arg(argc, argv, 1, 20);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t h = ST_TEST_SEED;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_lock_all(0, win);
    for (long i = 0; i < n; i++) {
        int tsize = 0, me = -1;
        MPI_Type_size(i % 2 ? MPI_DOUBLE : MPI_INT, &tsize);
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        int v = (int)(i & 0xffff);
        MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Win_flush_all(win);
        h = st_test_mix(h, tsize + me);
        if ((i + 1) % (n / rounds) == 0) { /* a round of real communication */
            long out[2] = { i, rank }, in[2] = { -1, -1 };
            MPI_Request req[2];
            MPI_Irecv(in, 2, MPI_LONG, left, 7, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(out, 2, MPI_LONG, right, 7, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
            ST_TEST_REQUIRE(in[0] == i && in[1] == left, "ring: got %ld %ld", in[0], in[1]);
            long sum = 0;
            MPI_Allreduce(&in[1], &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            ST_TEST_REQUIRE(sum == (long)size * (size - 1) / 2, "allreduce: %ld", sum);
            h = st_test_mix(h, sum + in[0]);
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    st_test_report("filtered", h, rank, size);
    st_test_write_counts(rank);
    MPI_Finalize();
    return 0;
}
