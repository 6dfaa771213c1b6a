/*
 * commsel.c — the same traffic on a selection of communicators, as the HLRS MPI test suite
 * runs its tests (tests/mpi/t_commsel.sh).
 *
 * Usage: commsel [-c COUNTFILE]. Communicators, k = 0..4 in this order:
 *   0 MPI_COMM_WORLD
 *   1 dup       MPI_Comm_dup(MPI_COMM_WORLD)
 *   2 split     MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank): evens, odds
 *   3 reversed  MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank): comm rank i = world size-1-i
 *   4 inter     MPI_Intercomm_create(split, 0, MPI_COMM_WORLD, remote leader world 1 / 0, 5)
 * On each intracommunicator (comm rank i of n, tag 10 + k): MPI_Isend of one int to i+1 mod n,
 * MPI_Recv from MPI_ANY_SOURCE, MPI_Wait; MPI_Bcast (root n-1), MPI_Allreduce, MPI_Gather
 * (root 0), MPI_Barrier.
 * On inter (rank lr of the own group of ls, rs remote): MPI_Isend of one int to remote lr % rs,
 * one MPI_Recv from MPI_ANY_SOURCE per remote rank j with j % ls == lr, MPI_Wait; MPI_Bcast
 * (root: rank 0 of the even group), MPI_Allreduce.
 * Then MPI_Comm_free of inter, reversed, split, dup; one st_test_report.
 */
#include "st_test.h"

#define MAXN 64

static int rank, size;

static uint64_t intra(uint64_t h, MPI_Comm c, int tag)
{
    int i, n, out = rank * 100 + tag, in = -1, all = 0, b = 0, g[MAXN];
    MPI_Request req;
    MPI_Comm_rank(c, &i);
    MPI_Comm_size(c, &n);
    MPI_Isend(&out, 1, MPI_INT, (i + 1) % n, tag, c, &req);
    MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, tag, c, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (i == n - 1)
        b = 7 * tag + rank;
    MPI_Bcast(&b, 1, MPI_INT, n - 1, c);
    MPI_Allreduce(&out, &all, 1, MPI_INT, MPI_SUM, c);
    MPI_Gather(&out, 1, MPI_INT, g, 1, MPI_INT, 0, c);
    MPI_Barrier(c);
    if (i == 0)
        for (int j = 0; j < n; j++)
            h = st_test_mix(h, g[j]);
    return st_test_mix(st_test_mix(st_test_mix(h, in), b), all);
}

static uint64_t inter(uint64_t h, MPI_Comm c, int tag)
{
    int lr, ls, rs, in_b = rank % 2, out = rank * 100 + tag, in, all = 0, b = 0;
    MPI_Request req;
    MPI_Comm_rank(c, &lr);
    MPI_Comm_size(c, &ls);
    MPI_Comm_remote_size(c, &rs);
    MPI_Isend(&out, 1, MPI_INT, lr % rs, tag, c, &req);
    int sum = 0;
    for (int j = lr; j < rs; j += ls) {
        MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, tag, c, MPI_STATUS_IGNORE);
        sum += in;
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (!in_b && lr == 0)
        b = 4711;
    MPI_Bcast(&b, 1, MPI_INT, in_b ? 0 : lr == 0 ? MPI_ROOT : MPI_PROC_NULL, c);
    MPI_Allreduce(&out, &all, 1, MPI_INT, MPI_SUM, c);
    return st_test_mix(st_test_mix(st_test_mix(h, sum), b), all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    st_test_arg(argc, argv, 0, 0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ST_TEST_REQUIRE(size >= 2 && size <= MAXN, "needs 2..%d ranks", MAXN);
    MPI_Comm dup, split, rev, ic;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
    MPI_Intercomm_create(split, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 5, &ic);

    uint64_t h = ST_TEST_SEED;
    h = intra(h, MPI_COMM_WORLD, 10);
    h = intra(h, dup, 11);
    h = intra(h, split, 12);
    h = intra(h, rev, 13);
    h = inter(h, ic, 14);

    MPI_Comm_free(&ic);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    st_test_report("commsel", h, rank, size);
    st_test_write_counts(rank);
    MPI_Finalize();
    return 0;
}
