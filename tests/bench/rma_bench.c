/*
 * rma_bench.c — what tracing adds to a one-sided call, next to a point-to-point call
 * (tests/bench/rma_bench.sh).
 *
 * Usage: rma_bench CALLS BATCHES [isend]. One rank. Times BATCHES rounds of one batch of CALLS calls of
 * each kind in turn (with "isend": of isend only) and prints "KIND MEDIAN_NS_PER_CALL FASTEST_BATCH_NS_PER_CALL" (waitall:
 * the median only):
 *   put         MPI_Put of 8 bytes to this rank's own window, inside an MPI_Win_lock_all epoch
 *   accumulate  MPI_Accumulate (MPI_SUM of one double) to the same window
 *   send        MPI_Send of 8 bytes to this rank, its receive posted before the batch (so it does not wait)
 *   send4k      the same with 4 KiB (a call of the length of an MPI_Accumulate here, most of it a copy)
 *   lock        a passive-target epoch on a window of its own: MPI_Win_lock (exclusive, this rank),
 *               MPI_Put of 8 bytes, MPI_Win_unlock; per epoch (with the tool: its lock ticket too)
 *   isend       MPI_Isend of the same, CALLS of them outstanding until the batch ends
 *   waitall     the MPI_Waitall that ends an isend batch (CALLS sends, CALLS receives), per request
 * With RMA_BENCH_ROUNDS=1 in the environment it also prints each round's ns per call of each kind to
 * stderr, in the order they ran ("round R: put P accumulate A send S send4k S4 isend I"): when in a run the tool's
 * work beside the calls (its writer) slows them.
 * Each batch's operations are completed outside its timing (MPI_Win_flush_all, MPI_Waitall), so a
 * figure is the issuing call itself plus what the preloaded tool adds to it: an ENTER, the RmaPut /
 * RmaAtomic record and a LEAVE for the one-sided calls; an ENTER, the send record and a LEAVE for
 * MPI_Send, and for MPI_Isend also its request's registration; the waitall row is the completion
 * of each request (for the tool: finding its entry, recording the send's completion or the receive).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch_time.h"

enum { PUT, ACCUMULATE, SEND, SEND4K, LOCK, ISEND };
#define BIG 512 /* doubles in a send4k message */

/* One timed loop per kind, each its own function so that an instruction count can be taken per kind:
 * valgrind --tool=callgrind --toggle-collect='issue_*' rma_bench 2500 8 (docs/performance.md). */
static __attribute__((noinline)) void issue_put(int calls, double *sendbuf, MPI_Win win)
{
    for (int i = 0; i < calls; i++)
        MPI_Put(&sendbuf[i], 1, MPI_DOUBLE, 0, i, 1, MPI_DOUBLE, win);
}

static __attribute__((noinline)) void issue_accumulate(int calls, double *sendbuf, MPI_Win win)
{
    for (int i = 0; i < calls; i++)
        MPI_Accumulate(&sendbuf[i], 1, MPI_DOUBLE, 0, i, 1, MPI_DOUBLE, MPI_SUM, win);
}

static __attribute__((noinline)) void issue_send(int calls, double *sendbuf)
{
    for (int i = 0; i < calls; i++)
        MPI_Send(&sendbuf[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_SELF);
}

static __attribute__((noinline)) void issue_send4k(int calls, double *big)
{
    for (int i = 0; i < calls; i++)
        MPI_Send(big, BIG, MPI_DOUBLE, 0, i, MPI_COMM_SELF);
}

static __attribute__((noinline)) void issue_lock(int calls, double *sendbuf, MPI_Win lwin)
{
    for (int i = 0; i < calls; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, lwin);
        MPI_Put(&sendbuf[i], 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, lwin);
        MPI_Win_unlock(0, lwin);
    }
}

static __attribute__((noinline)) void issue_isend(int calls, double *sendbuf, MPI_Request *reqs)
{
    for (int i = 0; i < calls; i++)
        MPI_Isend(&sendbuf[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_SELF, &reqs[i]);
}

/* One batch of kind: its ns per call, and for ISEND in *wait the ns per request of the MPI_Waitall that
 * ends it; win holds one double per call, bigrecv BIG per call. */
static double batch(int kind, int calls, MPI_Win win, MPI_Win lwin, double *sendbuf, double *recvbuf, double *bigrecv,
                    MPI_Request *reqs, MPI_Status *st, double *wait)
{
    if (kind == SEND || kind == ISEND)
        for (int i = 0; i < calls; i++)
            MPI_Irecv(&recvbuf[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_SELF, &reqs[calls + i]);
    if (kind == SEND4K)
        for (int i = 0; i < calls; i++)
            MPI_Irecv(&bigrecv[(size_t)i * BIG], BIG, MPI_DOUBLE, 0, i, MPI_COMM_SELF, &reqs[calls + i]);
    double t0 = now_ns();
    if (kind == PUT)
        issue_put(calls, sendbuf, win);
    else if (kind == ACCUMULATE)
        issue_accumulate(calls, sendbuf, win);
    else if (kind == SEND)
        issue_send(calls, sendbuf);
    else if (kind == SEND4K)
        issue_send4k(calls, bigrecv + (size_t)calls * BIG);
    else if (kind == LOCK)
        issue_lock(calls, sendbuf, lwin);
    else
        issue_isend(calls, sendbuf, reqs);
    double v = (now_ns() - t0) / calls;
    if (kind == SEND || kind == SEND4K)
        MPI_Waitall(calls, reqs + calls, st);
    else if (kind == ISEND) {
        t0 = now_ns();
        MPI_Waitall(2 * calls, reqs, st);
        *wait = (now_ns() - t0) / (2 * calls);
    }
    else if (kind != LOCK)
        MPI_Win_flush_all(win);
    return v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int calls = argc > 1 ? atoi(argv[1]) : 2500, batches = argc > 2 ? atoi(argv[2]) : 8;
    if (calls < 1 || calls > 1000000 || batches < 1 || batches > 256) {
        fprintf(stderr, "usage: rma_bench CALLS (1..10^6) BATCHES (1..256)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *base, *sendbuf = calloc((size_t)calls, sizeof *sendbuf), *recvbuf = calloc((size_t)calls, sizeof *recvbuf);
    double *bigrecv = calloc(((size_t)calls + 1) * BIG, sizeof *bigrecv); /* the last BIG: the send buffer */
    MPI_Request *reqs = calloc(2 * (size_t)calls, sizeof *reqs);
    MPI_Status *st = calloc(2 * (size_t)calls, sizeof *st);
    if (!sendbuf || !recvbuf || !bigrecv || !reqs || !st) {
        fprintf(stderr, "rma_bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)calls * (MPI_Aint)sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
    MPI_Win_lock_all(0, win);
    double *lbase;
    MPI_Win lwin;
    MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_SELF, &lbase, &lwin);
    static const char *name[] = { "put", "accumulate", "send", "send4k", "lock", "isend" };
    /* The kinds take turns batch by batch (after one warm-up round: page faults), so that whatever
     * slows a stretch of the run - the tool's buffer hand-off and its writer, another process -
     * falls on each kind alike (timed kind after kind, the making of the tool's spare buffer and its
     * first hand-off fell on the MPI_Accumulate batches in every run). */
    int first = argc > 3 && !strcmp(argv[3], "isend") ? ISEND : PUT;
    double v[ISEND + 1][256], w[256], unused;
    for (int b = -1; b < batches; b++)
        for (int k = first; k <= ISEND; k++) {
            double t = batch(k, calls, win, lwin, sendbuf, recvbuf, bigrecv, reqs, st, b >= 0 ? &w[b] : &unused);
            if (b >= 0)
                v[k][b] = t;
        }
    if (getenv("RMA_BENCH_ROUNDS"))
        for (int b = 0; b < batches; b++) {
            fprintf(stderr, "round %d:", b);
            for (int k = first; k <= ISEND; k++)
                fprintf(stderr, " %s %.1f", name[k], v[k][b]);
            fprintf(stderr, "\n");
        }
    for (int k = first; k <= ISEND; k++) {
        double median = median_of(v[k], batches); /* sorts v[k] */
        printf("%s %.2f %.2f\n", name[k], median, v[k][0]);
    }
    double wait = median_of(w, batches);
    printf("waitall %.2f\n", wait);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Win_free(&lwin);
    free(sendbuf), free(recvbuf), free(bigrecv), free(reqs), free(st);
    MPI_Finalize();
    return 0;
}
