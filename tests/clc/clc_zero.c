/*
 * clc_zero.c — collectives without payload, with ranks arriving late on purpose
 * (tests/clc/t_clc_zero.sh).
 *
 * Usage: clc_zero [ROUNDS] (default 2); needs at least 3 ranks. Every round, for every
 * operation below one rank (the "late" one, chosen so that a wrong rule shows) sleeps
 * LATE_US before calling it, the others call it at once. Count-0 operations do not
 * synchronize in MPICH, so the early ranks return before the late one even entered:
 * a derivation that makes them relations sees "reversed" messages on one node, where
 * every rank reads the same clock. Operations:
 *   count 0     Bcast (root late), Reduce (a non-root late), Allreduce, Alltoall,
 *               Allgather, Gather, Scatter (root late), Reduce_scatter (all counts 0),
 *               Reduce_scatter_block, Scan, Exscan (rank 0 late), Alltoallv (all 0),
 *               Ibcast, Iallreduce, Ialltoall, Igather, Iscan + MPI_Wait
 *   0 elements  Scatterv / Iscatterv (root late): only rank 1 gets data; Gatherv (a
 *               0-element rank late): only rank 1 sends
 *   with data   Barrier, Allreduce with MPI_IN_PLACE, Bcast: these synchronize (late
 *               rank included), so they are relations, none reversed
 * Rank 0 prints one checksum line (of the operations with data); exit 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* gcc 12 misreads MPICH's MPI_STATUSES_IGNORE as a zero-size array (see tests/mpi/st_test.h). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define MAXP 64
#define LATE_US 3000

static int rank, size;

/* The late rank sleeps before the call; the others go ahead. */
static void arrive(int late)
{
    if (rank == late) {
        struct timespec ts = { 0, LATE_US * 1000L };
        nanosleep(&ts, NULL);
    }
}

static void wait_req(MPI_Request *r)
{
    MPI_Wait(r, MPI_STATUS_IGNORE);
}

static void count0_blocking(void)
{
    int sb[MAXP] = { 0 }, rb[MAXP] = { 0 }, counts[MAXP] = { 0 }, displs[MAXP] = { 0 };
    MPI_Comm w = MPI_COMM_WORLD;
    arrive(1), MPI_Bcast(sb, 0, MPI_INT, 1, w);
    arrive(2), MPI_Reduce(sb, rb, 0, MPI_INT, MPI_SUM, 0, w);
    arrive(size - 1), MPI_Allreduce(sb, rb, 0, MPI_INT, MPI_SUM, w);
    arrive(0), MPI_Alltoall(sb, 0, MPI_INT, rb, 0, MPI_INT, w);
    arrive(1), MPI_Allgather(sb, 0, MPI_INT, rb, 0, MPI_INT, w);
    arrive(0), MPI_Gather(sb, 0, MPI_INT, rb, 0, MPI_INT, 2, w);
    arrive(2), MPI_Scatter(sb, 0, MPI_INT, rb, 0, MPI_INT, 2, w);
    arrive(1), MPI_Reduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, w);
    arrive(2), MPI_Reduce_scatter_block(sb, rb, 0, MPI_INT, MPI_SUM, w);
    arrive(0), MPI_Scan(sb, rb, 0, MPI_INT, MPI_SUM, w);
    arrive(0), MPI_Exscan(sb, rb, 0, MPI_INT, MPI_SUM, w);
    arrive(1), MPI_Alltoallv(sb, counts, displs, MPI_INT, rb, counts, displs, MPI_INT, w);
}

static void count0_nonblocking(void)
{
    int sb[MAXP] = { 0 }, rb[MAXP] = { 0 };
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request r;
    arrive(0), MPI_Ibcast(sb, 0, MPI_INT, 0, w, &r), wait_req(&r);
    arrive(1), MPI_Iallreduce(sb, rb, 0, MPI_INT, MPI_SUM, w, &r), wait_req(&r);
    arrive(2), MPI_Ialltoall(sb, 0, MPI_INT, rb, 0, MPI_INT, w, &r), wait_req(&r);
    arrive(1), MPI_Igather(sb, 0, MPI_INT, rb, 0, MPI_INT, 0, w, &r), wait_req(&r);
    arrive(0), MPI_Iscan(sb, rb, 0, MPI_INT, MPI_SUM, w, &r), wait_req(&r);
}

/* Scatterv / Gatherv where only rank 1 has elements; returns what rank 1 got. */
static long zero_members(int round)
{
    int buf[2 * MAXP] = { 0 }, mine[2] = { 0 }, counts[MAXP] = { 0 }, displs[MAXP] = { 0 };
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request r;
    counts[1] = 2;
    for (int i = 0; i < 2; i++)
        buf[i] = round + i + 1;
    int n = rank == 1 ? 2 : 0;
    arrive(0), MPI_Scatterv(buf, counts, displs, MPI_INT, mine, n, MPI_INT, 0, w);
    arrive(3 % size), MPI_Gatherv(mine, n, MPI_INT, buf, counts, displs, MPI_INT, 0, w);
    arrive(0), MPI_Iscatterv(buf, counts, displs, MPI_INT, mine, n, MPI_INT, 0, w, &r), wait_req(&r);
    return rank == 0 ? buf[0] + buf[1] : 0;
}

static long with_data(int round)
{
    long v = rank + round, b = rank == 0 ? 7 + round : 0;
    arrive(size - 1), MPI_Barrier(MPI_COMM_WORLD);
    arrive(1), MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    arrive(0), MPI_Bcast(&b, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return v + b;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3 || size > MAXP) {
        if (rank == 0)
            fprintf(stderr, "clc_zero: needs 3 .. %d ranks\n", MAXP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long sum = 0;
    for (int i = 0; i < rounds; i++) {
        count0_blocking();
        count0_nonblocking();
        sum += zero_members(i);
        sum += with_data(i);
    }
    if (rank == 0)
        printf("clc_zero: %d ranks, %d rounds, checksum %ld\n", size, rounds, sum);
    MPI_Finalize();
    return 0;
}
