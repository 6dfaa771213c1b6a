/*
 * coll.c — collectives on split sub-communicators, nonblocking collectives (tests/mpi/t_coll.sh).
 *
 * Usage: coll [-c COUNTFILE] [ROUNDS] (default 3). What every rank calls:
 *   split      MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank) -> sub (evens, odds)
 *   blocking   R x on sub: MPI_Bcast (root 0), MPI_Reduce (root = last sub rank),
 *              MPI_Allreduce, MPI_Gatherv (root 0, sub rank i sends i+1 ints),
 *              MPI_Alltoall, MPI_Scan, MPI_Exscan, MPI_Barrier
 *   subp2p     1 x MPI_Sendrecv on sub (to sub rank i+1, from i-1, tag 9): peers in
 *              the trace must be WORLD ranks
 *   nonblock   on sub: MPI_Ibcast (root 0), MPI_Iallreduce, MPI_Ibarrier, MPI_Waitall of 3;
 *              on world: MPI_Ialltoall + MPI_Wait; MPI_Ireduce (root 0) + MPI_Test loop (counted)
 *   free       MPI_Comm_free(sub)
 * After each section but split: st_test_report (one MPI_Gather on world).
 */
#include "st_test.h"

#define MAXN 64

static int rank, size, srank, ssize;
static MPI_Comm sub;

static uint64_t section_blocking(int rounds)
{
    uint64_t h = ST_TEST_SEED;
    for (int r = 0; r < rounds; r++) {
        int b[4] = { 0 }, v = rank * 3 + r + 1, red = 0, all = 0, scan = 0, ex = 0;
        if (srank == 0)
            for (int i = 0; i < 4; i++)
                b[i] = rank * 10 + i + r;
        MPI_Bcast(b, 4, MPI_INT, 0, sub);
        MPI_Reduce(&v, &red, 1, MPI_INT, MPI_SUM, ssize - 1, sub);
        MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MAX, sub);

        int gin[MAXN], gout[MAXN * MAXN], counts[MAXN], displs[MAXN];
        for (int i = 0; i <= srank; i++)
            gin[i] = v + i;
        for (int i = 0, d = 0; i < ssize; i++) {
            counts[i] = i + 1;
            displs[i] = d;
            d += i + 1;
        }
        MPI_Gatherv(gin, srank + 1, MPI_INT, gout, counts, displs, MPI_INT, 0, sub);

        int a2a_out[MAXN], a2a_in[MAXN];
        for (int i = 0; i < ssize; i++)
            a2a_out[i] = 100 * rank + i + r;
        MPI_Alltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, sub);
        MPI_Scan(&v, &scan, 1, MPI_INT, MPI_SUM, sub);
        MPI_Exscan(&v, &ex, 1, MPI_INT, MPI_SUM, sub);
        if (srank == 0)
            ex = 0; /* undefined on sub rank 0 */
        MPI_Barrier(sub);

        for (int i = 0; i < 4; i++)
            h = st_test_mix(h, b[i]);
        h = st_test_mix(h, srank == ssize - 1 ? red : 0);
        h = st_test_mix(st_test_mix(st_test_mix(h, all), scan), ex);
        if (srank == 0)
            for (int i = 0; i < ssize * (ssize + 1) / 2; i++)
                h = st_test_mix(h, gout[i]);
        for (int i = 0; i < ssize; i++)
            h = st_test_mix(h, a2a_in[i]);
    }
    return h;
}

static uint64_t section_subp2p(void)
{
    int64_t out = rank * 1000 + 1, in = -1;
    int to = (srank + 1) % ssize, from = (srank + ssize - 1) % ssize;
    MPI_Sendrecv(&out, 1, MPI_INT64_T, to, 9, &in, 1, MPI_INT64_T, from, 9, sub, MPI_STATUS_IGNORE);
    return st_test_mix(ST_TEST_SEED, in);
}

static uint64_t section_nonblock(void)
{
    uint64_t h = ST_TEST_SEED;
    int b[3] = { 0 }, v = rank + 1, all = 0;
    if (srank == 0)
        b[0] = 11 * rank + 1, b[1] = 2, b[2] = -rank;
    MPI_Request req[3];
    MPI_Ibcast(b, 3, MPI_INT, 0, sub, &req[0]);
    MPI_Iallreduce(&v, &all, 1, MPI_INT, MPI_SUM, sub, &req[1]);
    MPI_Ibarrier(sub, &req[2]);
    MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
    h = st_test_mix(st_test_mix(st_test_mix(st_test_mix(h, b[0]), b[1]), b[2]), all);

    int a2a_out[MAXN], a2a_in[MAXN];
    for (int i = 0; i < size; i++)
        a2a_out[i] = rank * 7 + i;
    MPI_Request a2a;
    MPI_Ialltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD, &a2a);
    MPI_Wait(&a2a, MPI_STATUS_IGNORE);
    for (int i = 0; i < size; i++)
        h = st_test_mix(h, a2a_in[i]);

    int red = 0, flag = 0;
    MPI_Request rreq;
    MPI_Ireduce(&v, &red, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &rreq);
    while (!flag) {
        MPI_Test(&rreq, &flag, MPI_STATUS_IGNORE);
        st_test_count("MPI_Test");
        if (!flag)
            st_test_pause();
    }
    return st_test_mix(h, rank == 0 ? red : 0);
}

int main(int argc, char **argv)
{
    int rounds = (int)st_test_arg(argc, argv, 0, 3);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ST_TEST_REQUIRE(size <= MAXN, "at most %d ranks", MAXN);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
    MPI_Comm_rank(sub, &srank);
    MPI_Comm_size(sub, &ssize);

    st_test_report("blocking", section_blocking(rounds), rank, size);
    st_test_report("subp2p", section_subp2p(), rank, size);
    st_test_report("nonblock", section_nonblock(), rank, size);
    MPI_Comm_free(&sub);

    st_test_write_counts(rank);
    MPI_Finalize();
    return 0;
}
