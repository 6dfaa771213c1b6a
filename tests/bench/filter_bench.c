/*
 * filter_bench.c — what a filtered MPI call costs (tests/bench/filter_bench.sh).
 *
 * Usage: filter_bench CALLS BATCHES. Times BATCHES batches of CALLS MPI_Comm_rank calls and
 * prints "comm_rank MEDIAN_NS_PER_CALL"; then, as the yardstick of a clock read, BATCHES batches
 * of CALLS pairs of TSC reads (rdtsc, the tool's default event clock) and of clock_gettime
 * (CLOCK_MONOTONIC) reads: "rdtsc_pair NS" and "gettime_pair NS". MPI_Comm_rank does no
 * communication: its figure is the call itself plus what the preloaded tool adds (an ENTER and a
 * LEAVE when recorded; two clock reads and two counters when a filter excludes it).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>

#include "batch_time.h"
#endif

static volatile uint64_t sink;

/* The median over batches of the ns per iteration of what (0: MPI_Comm_rank, 1: rdtsc pair, 2: clock_gettime pair). */
static double timed(int what, int calls, int batches)
{
    double v[256];
    for (int b = 0; b < batches; b++) {
        uint64_t acc = 0;
        double t0 = now_ns();
        for (int i = 0; i < calls; i++) {
            if (what == 0) {
                int rank;
                MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                acc += (uint64_t)rank;
            } else if (what == 1) {
#if defined(__x86_64__)
                uint64_t a = __rdtsc();
                acc += __rdtsc() - a;
#endif
            } else {
                struct timespec a, z;
                clock_gettime(CLOCK_MONOTONIC, &a);
                clock_gettime(CLOCK_MONOTONIC, &z);
                acc += (uint64_t)(z.tv_nsec - a.tv_nsec);
            }
        }
        v[b] = (now_ns() - t0) / calls;
        sink = acc;
    }
    return median_of(v, batches);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int calls = argc > 1 ? atoi(argv[1]) : 10000, batches = argc > 2 ? atoi(argv[2]) : 5;
    if (calls < 1 || batches < 1 || batches > 256) {
        fprintf(stderr, "usage: filter_bench CALLS BATCHES (1..256)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    timed(0, calls, 1); /* warm-up: first calls, page faults */
    printf("comm_rank %.2f\n", timed(0, calls, batches));
    printf("rdtsc_pair %.2f\n", timed(1, calls, batches));
    printf("gettime_pair %.2f\n", timed(2, calls, batches));
    MPI_Finalize();
    return 0;
}
