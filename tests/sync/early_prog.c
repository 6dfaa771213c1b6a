/*
 * early_prog.c — an application for the end-to-end accuracy test of recorded
 * timestamps over a whole run, the first second after MPI_Init included
 * (t_sync_early.sh). Under the clock-skew library it brackets a traced, cheap
 * MPI_Get_version call with two reads of the true clock and writes, per rank, the window
 * its ENTER and LEAVE events must fall into on the global clock (rank 0's local clock
 * at those true instants). Samples are dense right after MPI_Init (bursts of BURST,
 * 1 ms apart, in the first second: the initial sync point and the first, closely
 * spaced resyncs), sparser later; an MPI_Allreduce on MPI_COMM_WORLD follows every
 * burst, so the periodic resyncs happen about when they are due.
 *
 * Without the skew library the true clock is the unskewed CLOCK_MONOTONIC (t_sync_tsc.sh:
 * events stamped from the TSC against the system clock).
 *
 * Usage: early_prog SECONDS OUTPREFIX [abort]   (writes OUTPREFIX.RANK: "i lo hi" per line)
 * With "abort" the run ends in MPI_Abort (rank 0, after every rank wrote its windows) instead of
 * MPI_Finalize: the archive comes from the ranks' dumps and `synctrace recover` (t_recover_tsc.sh).
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../skew/skew.h"

#define BURST     8   /* samples 1 ms apart between two collectives in the first second */
#define SPARSE_MS 40  /* afterwards: one sample, then this pause */

static void pause_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static uint64_t plain_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static int64_t no_delta(int node, uint64_t t) { (void)node, (void)t; return 0; }
static int node_zero(int rank) { (void)rank; return 0; }

int main(int argc, char **argv)
{
    skew_true_ns_fn true_ns = (skew_true_ns_fn)dlsym(RTLD_DEFAULT, "skew_true_ns");
    skew_delta_ns_fn delta = (skew_delta_ns_fn)dlsym(RTLD_DEFAULT, "skew_delta_ns");
    skew_node_of_rank_fn node_of = (skew_node_of_rank_fn)dlsym(RTLD_DEFAULT, "skew_node_of_rank");
    if (!true_ns && !delta && !node_of) /* no skew library: the system clock is the truth (t_sync_tsc.sh) */
        true_ns = plain_ns, delta = no_delta, node_of = node_zero;
    if (argc < 3 || !true_ns || !delta || !node_of) {
        fprintf(stderr, "usage: [LD_PRELOAD=libskew.so:]libsynctrace.so early_prog SECONDS OUTPREFIX\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rank, ref = node_of(0);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t start = true_ns(CLOCK_MONOTONIC), end = start + (uint64_t)(atof(argv[1]) * 1e9);
    size_t cap = 4096, n = 0;
    uint64_t *win = malloc(2 * cap * sizeof *win);
    for (int go = 1; go && win;) {
        uint64_t t1 = 0;
        int dense = true_ns(CLOCK_MONOTONIC) - start < 1000000000u;
        for (int k = 0; k < (dense ? BURST : 1) && n < cap; k++) {
            int major, minor;
            uint64_t t0 = true_ns(CLOCK_MONOTONIC);
            MPI_Get_version(&major, &minor);
            t1 = true_ns(CLOCK_MONOTONIC);
            win[2 * n] = t0 + (uint64_t)delta(ref, t0);
            win[2 * n + 1] = t1 + (uint64_t)delta(ref, t1);
            n++;
            pause_ms(dense ? 1 : SPARSE_MS);
        }
        /* A collective on MPI_COMM_WORLD (resyncs happen in them); every rank decides alike. */
        int more = n + BURST <= cap && t1 < end;
        MPI_Allreduce(MPI_IN_PLACE, &more, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        go = more;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", argv[2], rank);
    FILE *f = fopen(path, "w");
    for (size_t i = 0; f && win && i < n; i++)
        fprintf(f, "%zu %llu %llu\n", i, (unsigned long long)win[2 * i], (unsigned long long)win[2 * i + 1]);
    if (f)
        fclose(f);
    free(win);
    if (argc > 3 && !strcmp(argv[3], "abort")) {
        MPI_Barrier(MPI_COMM_WORLD); /* every window file is written */
        if (rank == 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(MPI_COMM_WORLD); /* the others wait here for the abort */
    }
    MPI_Finalize();
    return 0;
}
