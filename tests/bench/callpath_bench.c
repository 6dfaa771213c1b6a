/*
 * callpath_bench.c — cost of an MPI call at a given stack depth (tests/bench/callpath_bench.sh).
 *
 * Usage: callpath_bench DEPTH CALLS BATCHES. Recurses DEPTH application frames (recurse(),
 * not inlined, no sibling calls), then times BATCHES batches of CALLS MPI_Comm_rank calls and
 * prints "callpath DEPTH MEDIAN_NS_PER_CALL". MPI_Comm_rank does no communication: the
 * figure is the call itself plus what the preloaded tool adds (an ENTER and a LEAVE, and
 * with SYNCTRACE_CALLPATH=1 the unwind of DEPTH + 2 frames and the path-cache lookup).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "batch_time.h"

static volatile int sink;

static double __attribute__((noinline)) timed_calls(int calls, int batches)
{
    double v[256];
    int rank;
    for (int b = 0; b < batches; b++) {
        double t0 = now_ns();
        for (int i = 0; i < calls; i++)
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        v[b] = (now_ns() - t0) / calls;
        sink = rank;
    }
    return median_of(v, batches);
}

static double __attribute__((noinline)) recurse(int depth, int calls, int batches)
{
    double r = depth > 1 ? recurse(depth - 1, calls, batches) : timed_calls(calls, batches);
    sink = depth;
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int depth = argc > 1 ? atoi(argv[1]) : 5, calls = argc > 2 ? atoi(argv[2]) : 10000;
    int batches = argc > 3 ? atoi(argv[3]) : 5;
    if (depth < 1 || calls < 1 || batches < 1 || batches > 256) {
        fprintf(stderr, "usage: callpath_bench DEPTH CALLS BATCHES (1..256)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double ns = recurse(depth, calls, batches);
    printf("callpath %d %.1f\n", depth, ns);
    MPI_Finalize();
    return 0;
}
