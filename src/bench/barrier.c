/*
 * barrier.c — the barrier-based scheme of OSU and IMB, for comparison: MPI_Barrier, then n calls
 * timed with MPI_Wtime; the figure is the mean time per call, max over ranks (IMB's t_max). Batches
 * repeat until the same time slice as Round-Time's is used; n is chosen so that a batch takes
 * about a twentieth of the slice (at most IMB's 1000 repetitions).
 */
#include "bench.h"

#define CALIBRATION_CALLS 10 /* the fastest counts: one undisturbed call is enough */
#define MAX_REPS 1000

/* Time of one call (s): the fastest of a few after a barrier, max over ranks. */
static double time_one_call(const bench_ctx_t *ctx, const bench_call_t *c)
{
    double best = 1e30, worst;
    for (int i = 0; i < CALIBRATION_CALLS; i++) {
        PMPI_Barrier(ctx->comm);
        double t0 = PMPI_Wtime();
        bench_call_run(c);
        double t = PMPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    bench_polite_allreduce(&best, &worst, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    return worst;
}

int bench_barrier_scheme(const bench_ctx_t *ctx, const bench_call_t *c, bench_result_t *r)
{
    double one = time_one_call(ctx, c);
    double want = ctx->opts->slice / 20 / (one > 1e-9 ? one : 1e-9);
    long reps = want < 1 ? 1 : want > MAX_REPS ? MAX_REPS : (long)want;
    const uint64_t slice_ns = (uint64_t)(ctx->opts->slice * 1e9);
    bench_series_t lat = { 0 };
    int rc = MPI_SUCCESS;
    *r = (bench_result_t){ .scheme = "barrier", .reps = reps };
    uint64_t begin = bench_now();
    for (;;) {
        PMPI_Barrier(ctx->comm);
        double t0 = PMPI_Wtime();
        for (long i = 0; i < reps && rc == MPI_SUCCESS; i++)
            rc = bench_call_run(c);
        double t1 = PMPI_Wtime();
        if (rc != MPI_SUCCESS)
            break;
        double mine[2] = { (t1 - t0) / (double)reps * 1e9, bench_now() - begin >= slice_ns }, all[2];
        bench_polite_allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, ctx->comm);
        bench_series_add(&lat, all[0]);
        r->valid++;
        if (all[1] > 0)
            break;
    }
    r->slice_used = bench_elapsed_max(begin, ctx->comm);
    r->lat = bench_summarize(&lat);
    bench_series_free(&lat);
    return rc;
}
