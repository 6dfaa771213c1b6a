/*
 * one_clock.c — small messages and collectives as fast as MPI delivers them (tests/clc/).
 *
 * Usage: one_clock ITERS. On one node every rank reads the same clock, so in a correct trace
 * no relation is reversed and the CLC has nothing to correct: t_clc_one_clock.sh runs this
 * and requires that nothing is moved. The phases are chosen so that true latencies are as
 * short as they get (the cases a too large mu "corrects"):
 *   ping-pong   ITERS round trips of 8 bytes between pairs (rank ^ 1; an odd last rank idles)
 *   ring        ITERS / 4 MPI_Sendrecv of 8 bytes to the right / from the left
 *   collectives ITERS / 50 rounds of every class with nonzero payloads: Barrier, Bcast,
 *               Reduce, Allreduce, Gather, Scatter, Allgather, Alltoall, Reduce_scatter,
 *               Reduce_scatter_block, Scan, Exscan, the v-variants with nonzero counts, and
 *               their nonblocking versions (one Waitall per round)
 * Rank 0 prints one checksum line; exit 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* gcc 12 misreads MPICH's MPI_STATUSES_IGNORE as a zero-size array (see tests/mpi/st_test.h). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define MAXP 16

static int rank, size;

static int64_t pingpong(int iters)
{
    int peer = rank ^ 1;
    int64_t v = rank, s = 0;
    if (peer >= size)
        return 0;
    for (int i = 0; i < iters; i++) {
        if (rank % 2 == 0) {
            MPI_Send(&v, 1, MPI_INT64_T, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT64_T, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, 1, MPI_INT64_T, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            v++;
            MPI_Send(&v, 1, MPI_INT64_T, peer, 1, MPI_COMM_WORLD);
        }
        s += v;
    }
    return s;
}

static int64_t ring(int iters)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int64_t v = rank, got = 0, s = 0;
    for (int i = 0; i < iters; i++) {
        MPI_Sendrecv(&v, 1, MPI_INT64_T, right, 2, &got, 1, MPI_INT64_T, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        v = got + 1;
        s += got;
    }
    return s;
}

static int64_t sum(const int64_t *a, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * (i + 1);
    return s;
}

static int64_t blocking(int round)
{
    int root = round % size, ones[MAXP], displ[MAXP];
    int64_t v = rank + round, x = 0, y = 0, mine[MAXP], got[MAXP], s = 0;
    for (int i = 0; i < size; i++)
        mine[i] = rank * 100 + i + round, ones[i] = 1, displ[i] = i;
    MPI_Barrier(MPI_COMM_WORLD);
    x = v;
    MPI_Bcast(&x, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
    s += x;
    MPI_Reduce(&v, &x, 1, MPI_INT64_T, MPI_SUM, root, MPI_COMM_WORLD);
    s += rank == root ? x : 0;
    MPI_Allreduce(&v, &x, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    s += x;
    MPI_Gather(&v, 1, MPI_INT64_T, got, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
    s += rank == root ? sum(got, size) : 0;
    MPI_Gatherv(&v, 1, MPI_INT64_T, got, ones, displ, MPI_INT64_T, root, MPI_COMM_WORLD);
    s += rank == root ? sum(got, size) : 0;
    MPI_Scatter(mine, 1, MPI_INT64_T, &x, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
    s += x;
    MPI_Scatterv(mine, ones, displ, MPI_INT64_T, &x, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
    s += x;
    MPI_Allgather(&v, 1, MPI_INT64_T, got, 1, MPI_INT64_T, MPI_COMM_WORLD);
    s += sum(got, size);
    MPI_Allgatherv(&v, 1, MPI_INT64_T, got, ones, displ, MPI_INT64_T, MPI_COMM_WORLD);
    s += sum(got, size);
    MPI_Alltoall(mine, 1, MPI_INT64_T, got, 1, MPI_INT64_T, MPI_COMM_WORLD);
    s += sum(got, size);
    MPI_Alltoallv(mine, ones, displ, MPI_INT64_T, got, ones, displ, MPI_INT64_T, MPI_COMM_WORLD);
    s += sum(got, size);
    MPI_Reduce_scatter(mine, &x, ones, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    s += x;
    MPI_Reduce_scatter_block(mine, &x, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    s += x;
    MPI_Scan(&v, &x, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    s += x;
    MPI_Exscan(&v, &y, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return s + (rank ? y : 0);
}

static int64_t nonblocking(int round)
{
    enum { N = 17 };
    int root = (round + 1) % size, ones[MAXP], displ[MAXP];
    int64_t v = rank + round, x[N] = { 0 }, mine[MAXP], g[6][MAXP], s = 0;
    MPI_Request r[N];
    for (int i = 0; i < size; i++)
        mine[i] = rank * 10 + i + round, ones[i] = 1, displ[i] = i;
    x[0] = v;
    MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
    MPI_Ibcast(&x[0], 1, MPI_INT64_T, root, MPI_COMM_WORLD, &r[1]);
    MPI_Ireduce(&v, &x[1], 1, MPI_INT64_T, MPI_SUM, root, MPI_COMM_WORLD, &r[2]);
    MPI_Iallreduce(&v, &x[2], 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &r[3]);
    MPI_Igather(&v, 1, MPI_INT64_T, g[0], 1, MPI_INT64_T, root, MPI_COMM_WORLD, &r[4]);
    MPI_Igatherv(&v, 1, MPI_INT64_T, g[1], ones, displ, MPI_INT64_T, root, MPI_COMM_WORLD, &r[5]);
    MPI_Iscatter(mine, 1, MPI_INT64_T, &x[3], 1, MPI_INT64_T, root, MPI_COMM_WORLD, &r[6]);
    MPI_Iscatterv(mine, ones, displ, MPI_INT64_T, &x[4], 1, MPI_INT64_T, root, MPI_COMM_WORLD, &r[7]);
    MPI_Iallgather(&v, 1, MPI_INT64_T, g[2], 1, MPI_INT64_T, MPI_COMM_WORLD, &r[8]);
    MPI_Iallgatherv(&v, 1, MPI_INT64_T, g[3], ones, displ, MPI_INT64_T, MPI_COMM_WORLD, &r[9]);
    MPI_Ialltoall(mine, 1, MPI_INT64_T, g[4], 1, MPI_INT64_T, MPI_COMM_WORLD, &r[10]);
    MPI_Ialltoallv(mine, ones, displ, MPI_INT64_T, g[5], ones, displ, MPI_INT64_T, MPI_COMM_WORLD, &r[11]);
    MPI_Ireduce_scatter(mine, &x[5], ones, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &r[12]);
    MPI_Ireduce_scatter_block(mine, &x[6], 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &r[13]);
    MPI_Iscan(&v, &x[7], 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &r[14]);
    MPI_Iexscan(&v, &x[8], 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &r[15]);
    MPI_Iallreduce(&v, &x[9], 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD, &r[16]);
    MPI_Waitall(N, r, MPI_STATUSES_IGNORE);
    if (rank != root)
        x[1] = 0, g[0][0] = g[1][0] = 0;
    if (rank == 0)
        x[8] = 0; /* undefined on rank 0 */
    for (int i = 0; i < N; i++)
        s += x[i] * (i + 1);
    for (int k = 0; k < 6; k++)
        s += sum(g[k], rank == root || k >= 2 ? size : 1);
    return s;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int64_t s = pingpong(iters), total = 0;
    s += 3 * ring(iters / 4);
    for (int r = 0; r < iters / 50; r++)
        s += 5 * blocking(r) + 7 * nonblocking(r);
    MPI_Reduce(&s, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("one_clock: %d ranks, %d iterations, checksum %lld\n", size, iters, (long long)total);
    MPI_Finalize();
    return 0;
}
