/*
 * trace_prog.c — an application for the end-to-end test of recorded timestamps
 * (t_sync_trace.sh): it brackets an MPI_Comm_rank call (cheap: the window is about a
 * microsecond wide) with the true time from the clock-skew library, then makes an
 * MPI_Barrier (so that resyncs happen), and writes, per rank, the window that the
 * MPI_Comm_rank ENTER and LEAVE events must fall into on the global clock (rank 0's
 * local clock at those true instants).
 *
 * Usage: trace_prog N SLEEP_MS OUTPREFIX   (writes OUTPREFIX.RANK: "i lo hi" per line)
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../skew/skew.h"

int main(int argc, char **argv)
{
    skew_true_ns_fn true_ns = (skew_true_ns_fn)dlsym(RTLD_DEFAULT, "skew_true_ns");
    skew_delta_ns_fn delta = (skew_delta_ns_fn)dlsym(RTLD_DEFAULT, "skew_delta_ns");
    skew_node_of_rank_fn node_of = (skew_node_of_rank_fn)dlsym(RTLD_DEFAULT, "skew_node_of_rank");
    if (argc < 4 || !true_ns || !delta || !node_of) {
        fprintf(stderr, "usage: LD_PRELOAD=libskew.so:libsynctrace.so trace_prog N SLEEP_MS OUTPREFIX\n");
        return 2;
    }
    int n = atoi(argv[1]), rank;
    MPI_Init(&argc, &argv);
    struct timespec pause = { 0, atol(argv[2]) * 1000000L };
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t *win = malloc(2 * (size_t)n * sizeof *win);
    int ref = node_of(0);
    for (int i = 0; i < n && win; i++) {
        int me;
        uint64_t t0 = true_ns(CLOCK_MONOTONIC);
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        uint64_t t1 = true_ns(CLOCK_MONOTONIC);
        MPI_Barrier(MPI_COMM_WORLD);
        win[2 * i] = t0 + (uint64_t)delta(ref, t0);
        win[2 * i + 1] = t1 + (uint64_t)delta(ref, t1);
        nanosleep(&pause, NULL);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", argv[3], rank);
    FILE *f = fopen(path, "w");
    for (int i = 0; f && win && i < n; i++)
        fprintf(f, "%d %llu %llu\n", i, (unsigned long long)win[2 * i], (unsigned long long)win[2 * i + 1]);
    if (f)
        fclose(f);
    free(win);
    MPI_Finalize();
    return 0;
}
