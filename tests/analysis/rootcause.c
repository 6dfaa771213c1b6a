/*
 * rootcause.c — imbalance of known size in known functions, for the root-cause analysis
 * (delay costs, wait-state classification, critical path: t_analyze_rootcause.sh, rccheck.py).
 * 3 ranks. Usage: rootcause MODE [T_MS [W_MS]] (defaults 200 and 200 ms). Every rank first runs
 * work(W): the same amount everywhere, which no delay may be charged to. Then, by MODE:
 *   imbalance   rank k runs solve(k*T), then exchanges with its neighbours: it sends to rank k-1
 *               (ranks 1, 2), then receives from rank k+1 (ranks 0, 1): rank 0 waits T for rank 1,
 *               rank 1 (after its send) waits T for rank 2
 *               -> delay_latesender T at solve on rank 1 and T at solve on rank 2 (rank 2's solve
 *               took 2T, its receiver's T: the excess over the receiver is what is charged), none
 *               on rank 0 and none at work; the critical path runs through rank 2's solve (2T)
 *   chain       rank 2 runs solve(T) and sends to 1; rank 1 receives from 2, then sends to 0 (relay);
 *               rank 0 receives from 1 -> rank 1 waits T for rank 2 (direct, propagating), rank 0
 *               waits T for rank 1 (indirect, terminal): delay_latesender T and
 *               delay_latesender_longterm T at solve on rank 2, nothing on ranks 0 and 1
 *   collective  rank 2 runs slow(T) before MPI_Allreduce, then rank 1 runs slow(T) before
 *               MPI_Barrier (work(W) before each on every rank) -> delay_n2n 2T at slow on rank 2,
 *               delay_barrier 2T at slow on rank 1 (the sum of the other two ranks' waits)
 *   balanced    twice: every rank runs solve(T), then a ring exchange (MPI_Sendrecv) and
 *               MPI_Allreduce -> no delay cost above noise
 *   handshake   rank 0 sends to rank 1 at once (a small message: it does not wait), then receives
 *               rank 1's answer; rank 1 runs solve(T), receives that message (already there: no wait
 *               either) and answers -> rank 0 waits T: delay_latesender T at solve on rank 1. The
 *               message nobody waited for is no synchronization point: the delay interval runs from
 *               MPI_Init, not from it (where rank 1 would have no excess and nothing be charged)
 *   posted      rank 0 posts two receives from rank 1 (MPI_Irecv) and waits for both (MPI_Waitall);
 *               rank 1 runs solve(T), then sends both (MPI_Isend, MPI_Waitall) -> rank 0 waits T:
 *               delay_latesender T at solve on rank 1. The posts are no synchronization point of
 *               that wait: the interval does not start at rank 0's post of the first message and
 *               rank 1's send of it (where rank 1 would have no excess before its second send)
 * The computations are busy loops on the clock (the run's time, whatever the load: a rank that
 * loses its core still finishes its loop on time). The functions are noinline and begin and end
 * with MPI_Comm_rank: the trace has no events of application functions (call paths come from the
 * stacks of recorded calls, SYNCTRACE_CALLPATH=1), so those two calls are what shows that the
 * time between them was spent in the function. Rank 0 prints "MODE T_MS W_MS ranks N", then "done".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "busy.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow" /* MPI_STATUSES_IGNORE, see tests/mpi/st_test.h */
#endif

static volatile double sink;

/* A recorded call that synchronizes nothing, made by the function itself (not through a helper,
 * whose frame would be the innermost one): a mark in the trace inside that function. */
#define MARK()                               \
    do {                                     \
        int r_;                              \
        MPI_Comm_rank(MPI_COMM_WORLD, &r_);  \
        sink = r_;                           \
    } while (0)

static void __attribute__((noinline)) work(double ms)
{
    MARK();
    busy_ms(ms);
    MARK();
}

static void __attribute__((noinline)) solve(double ms)
{
    MARK();
    busy_ms(ms);
    MARK();
}

static void __attribute__((noinline)) slow(double ms)
{
    MARK();
    busy_ms(ms);
    MARK();
}

static void __attribute__((noinline)) exchange(int rank, int nranks)
{
    int v = rank;
    if (rank > 0)
        MPI_Send(&v, 1, MPI_INT, rank - 1, 1, MPI_COMM_WORLD);
    if (rank < nranks - 1)
        MPI_Recv(&v, 1, MPI_INT, rank + 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sink = v;
}

static void __attribute__((noinline)) relay(int rank)
{
    int v = rank;
    if (rank == 2) {
        MPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    sink = v;
}

static void __attribute__((noinline)) reduce(void)
{
    double x = 1.0, y;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    sink = y;
}

static void __attribute__((noinline)) sync_all(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void __attribute__((noinline)) handshake(int rank)
{
    int v = rank;
    if (rank == 0) {
        MPI_Send(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    }
    sink = v;
}

static void __attribute__((noinline)) posted(int rank)
{
    int v[2] = { rank, rank };
    MPI_Request q[2];
    if (rank == 0) {
        MPI_Irecv(&v[0], 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &q[0]);
        MPI_Irecv(&v[1], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &q[1]);
    } else if (rank == 1) {
        MPI_Isend(&v[0], 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(&v[1], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &q[1]);
    }
    if (rank < 2)
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    sink = v[0] + v[1];
}

static void __attribute__((noinline)) ring(int rank, int nranks)
{
    int out = rank, in;
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % nranks, 3, &in, 1, MPI_INT, (rank + nranks - 1) % nranks, 3,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sink = in;
}

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *mode = argc > 1 ? argv[1] : "";
    double T = argc > 2 ? atof(argv[2]) : 200, W = argc > 3 ? atof(argv[3]) : 200;
    int ok = nranks == 3 && (!strcmp(mode, "imbalance") || !strcmp(mode, "chain") ||
                             !strcmp(mode, "collective") || !strcmp(mode, "balanced") || !strcmp(mode, "handshake") ||
                             !strcmp(mode, "posted"));
    if (!ok) {
        if (rank == 0)
            fprintf(stderr, "usage: rootcause imbalance|chain|collective|balanced|handshake|posted [T_MS [W_MS]] on 3 ranks\n");
        MPI_Finalize();
        return 2;
    }
    work(W);
    if (!strcmp(mode, "imbalance")) {
        solve(rank * T);
        exchange(rank, nranks);
    } else if (!strcmp(mode, "chain")) {
        if (rank == 2)
            solve(T);
        relay(rank);
    } else if (!strcmp(mode, "handshake")) {
        if (rank == 1)
            solve(T);
        handshake(rank);
    } else if (!strcmp(mode, "posted")) {
        if (rank == 1)
            solve(T);
        posted(rank);
    } else if (!strcmp(mode, "collective")) {
        if (rank == 2)
            slow(T);
        reduce();
        work(W);
        if (rank == 1)
            slow(T);
        sync_all();
    } else {
        for (int it = 0; it < 2; it++) {
            solve(T);
            ring(rank, nranks);
            reduce();
        }
    }
    if (rank == 0)
        printf("%s %g %g ranks %d\n", mode, T, W, nranks);
    MPI_Finalize();
    if (rank == 0)
        printf("done\n");
    return 0;
}
