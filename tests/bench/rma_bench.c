/*
 * rma_bench.c — what tracing adds to a one-sided call, next to a point-to-point call
 * (tests/bench/rma_bench.sh).
 *
 * Usage: rma_bench CALLS BATCHES [isend]. One rank. Times BATCHES batches of CALLS calls of each kind
 * (with "isend": of isend only) and prints "KIND MEDIAN_NS_PER_CALL FASTEST_BATCH_NS_PER_CALL" (waitall:
 * the median only):
 *   put         MPI_Put of 8 bytes to this rank's own window, inside an MPI_Win_lock_all epoch
 *   accumulate  MPI_Accumulate (MPI_SUM of one double) to the same window
 *   send        MPI_Send of 8 bytes to this rank, its receive posted before the batch (so it does not wait)
 *   isend       MPI_Isend of the same, CALLS of them outstanding until the batch ends
 *   waitall     the MPI_Waitall that ends an isend batch (CALLS sends, CALLS receives), per request
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

enum { PUT, ACCUMULATE, SEND, ISEND };

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

static __attribute__((noinline)) void issue_isend(int calls, double *sendbuf, MPI_Request *reqs)
{
    for (int i = 0; i < calls; i++)
        MPI_Isend(&sendbuf[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_SELF, &reqs[i]);
}

/* The median over batches of the ns per call of kind, and in *fastest the fastest batch's (the floor,
 * which this VM's noise moves less); win holds one double per call. For ISEND, *wait is the median ns
 * per request of the batches' MPI_Waitall. */
static double timed(int kind, int calls, int batches, MPI_Win win, double *sendbuf, double *recvbuf,
                    MPI_Request *reqs, MPI_Status *st, double *wait, double *fastest)
{
    double v[256], w[256];
    for (int b = 0; b < batches; b++) {
        if (kind == SEND || kind == ISEND)
            for (int i = 0; i < calls; i++)
                MPI_Irecv(&recvbuf[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_SELF, &reqs[calls + i]);
        double t0 = now_ns();
        if (kind == PUT)
            issue_put(calls, sendbuf, win);
        else if (kind == ACCUMULATE)
            issue_accumulate(calls, sendbuf, win);
        else if (kind == SEND)
            issue_send(calls, sendbuf);
        else
            issue_isend(calls, sendbuf, reqs);
        v[b] = (now_ns() - t0) / calls;
        if (kind == SEND)
            MPI_Waitall(calls, reqs + calls, st);
        else if (kind == ISEND) {
            t0 = now_ns();
            MPI_Waitall(2 * calls, reqs, st);
            w[b] = (now_ns() - t0) / (2 * calls);
        }
        else
            MPI_Win_flush_all(win);
    }
    if (kind == ISEND)
        *wait = median_of(w, batches);
    double m = median_of(v, batches); /* sorts v */
    *fastest = v[0];
    return m;
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
    MPI_Request *reqs = calloc(2 * (size_t)calls, sizeof *reqs);
    MPI_Status *st = calloc(2 * (size_t)calls, sizeof *st);
    if (!sendbuf || !recvbuf || !reqs || !st) {
        fprintf(stderr, "rma_bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)calls * (MPI_Aint)sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
    MPI_Win_lock_all(0, win);
    static const char *name[] = { "put", "accumulate", "send", "isend" };
    double wait = 0, fastest;
    for (int k = argc > 3 && !strcmp(argv[3], "isend") ? ISEND : PUT; k <= ISEND; k++) {
        timed(k, calls, 1, win, sendbuf, recvbuf, reqs, st, &wait, &fastest); /* warm-up: page faults */
        double median = timed(k, calls, batches, win, sendbuf, recvbuf, reqs, st, &wait, &fastest);
        printf("%s %.2f %.2f\n", name[k], median, fastest);
    }
    printf("waitall %.2f\n", wait);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(sendbuf), free(recvbuf), free(reqs), free(st);
    MPI_Finalize();
    return 0;
}
