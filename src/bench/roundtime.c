/*
 * roundtime.c — the Round-Time scheme (paper Alg. 5; docs/bench.md, "The schemes") and, on top of it, the
 * barrier imbalance (paper Fig. 8).
 *
 * A round: rank 0 picks a start time on the global clock ctx->margin_ns ahead and broadcasts it;
 * every rank waits for it (one already past it makes the round invalid), runs the call between two
 * clock reads (one whose first read is more than --tolerance after the start time makes the round
 * invalid too: Alg. 5 busy-waits, a polite wait can hand the core to another process and wake up
 * a timeslice late, and such a round would not have a common start); one allreduce(MAX) gathers
 * {missed, woke late, out of time, -start, end, -end}, so every rank learns the round's latency
 * (max end - min start) and whether to go on. Rounds repeat until the slice is used or max_rounds
 * valid rounds were taken.
 *
 * The margin is measured once (bench_estimate_margin). If the machine gets busier later, every
 * round of a slice could come out late; so after LATE_STREAK rounds in a row whose start time was
 * already past when a rank got it, the margin doubles (up to a tenth of the slice) for the rest of
 * the slice. Rounds that are late now and then (a rank held up every other round) leave it alone.
 */
#include "bench.h"

#include <stdlib.h>
#include <time.h>

#define MARGIN_ROUNDS 21        /* Bcasts timed to estimate the margin (median taken) */
#define MARGIN_MIN_NS 20000.0   /* floor: clock reads, a yield and a wake-up cost this much */
#define LATE_STREAK 8           /* invalid rounds in a row that double the margin */

void bench_estimate_margin(bench_ctx_t *ctx)
{
    bench_series_t lat = { 0 };
    for (int i = 0; i < MARGIN_ROUNDS; i++) { /* the same pattern as a round: Bcast, then allreduce */
        uint64_t sent = ctx->rank == 0 ? bench_now() : 0;
        bench_polite_bcast(&sent, 1, MPI_UINT64_T, 0, ctx->comm);
        double mine = (double)(int64_t)(bench_now() - sent), worst = 0;
        bench_polite_allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
        bench_series_add(&lat, worst);
    }
    double m = ctx->opts->margin * bench_summarize(&lat).median;
    ctx->margin_ns = m > MARGIN_MIN_NS ? m : MARGIN_MIN_NS;
    bench_series_free(&lat);
}

/* Hidden test option (--test-delay): the chosen rank arrives late in one round of every period. */
static void test_delay(const bench_ctx_t *ctx, size_t round)
{
    const bench_opts_t *o = ctx->opts;
    if (o->delay_us < 0 || ctx->rank != o->delay_rank || round % (size_t)o->delay_period != (size_t)o->delay_period - 1)
        return;
    long ns = (long)(o->delay_us * 1000);
    struct timespec ts = { ns / 1000000000L, ns % 1000000000L };
    nanosleep(&ts, NULL);
}

/* The allreduce(MAX) of a round: missed the start (margin too short), woke up too late, out of time,
   -start, end, -end. */
enum { F_MISSED, F_WOKE_LATE, F_OUT, F_NEG_START, F_END, F_NEG_END, F_N };

int bench_roundtime(const bench_ctx_t *ctx, const bench_call_t *c, int exit_spread, bench_result_t *r)
{
    const uint64_t slice_ns = (uint64_t)(ctx->opts->slice * 1e9);
    const uint64_t tolerance_ns = (uint64_t)(ctx->opts->tolerance_us * 1e3);
    bench_series_t lat = { 0 };
    int rc = MPI_SUCCESS;
    uint64_t begin = bench_now();
    double margin = ctx->margin_ns;
    int streak = 0;
    *r = (bench_result_t){ .scheme = exit_spread ? "barrier-imbalance" : "roundtime", .reps = 1 };
    for (size_t round = 0;; round++) {
        uint64_t start = ctx->rank == 0 ? bench_now() + (uint64_t)margin : 0;
        bench_polite_bcast(&start, 1, MPI_UINT64_T, 0, ctx->comm);
        test_delay(ctx, round);
        int missed = bench_wait_until(start);
        uint64_t t0 = bench_now();
        int woke_late = !missed && t0 - start > tolerance_ns;
        if ((rc = bench_call_run(c)) != MPI_SUCCESS)
            break;
        uint64_t t1 = bench_now();
        int out = t1 - begin >= slice_ns;
        int64_t mine[F_N] = { missed, woke_late, out, -(int64_t)t0, (int64_t)t1, -(int64_t)t1 }, all[F_N];
        bench_polite_allreduce(mine, all, F_N, MPI_INT64_T, MPI_MAX, ctx->comm);
        if (all[F_MISSED] || all[F_WOKE_LATE]) {
            r->invalid++;
            streak = all[F_MISSED] ? streak + 1 : 0; /* a longer margin helps the missed, not the woken late */
            if (streak == LATE_STREAK) { /* the same decision on every rank: all see the same flags */
                streak = 0;
                margin = 2 * margin < slice_ns / 10 ? 2 * margin : margin;
            }
        } else {
            streak = 0;
            r->valid++;
            bench_series_add(&lat, (double)(exit_spread ? all[F_END] + all[F_NEG_END] : all[F_END] + all[F_NEG_START]));
        }
        if (all[F_OUT] || (long)r->valid >= ctx->opts->max_rounds) /* valid: the same count on every rank */
            break;
    }
    r->slice_used = bench_elapsed_max(begin, ctx->comm);
    r->margin_ns = margin;
    r->lat = bench_summarize(&lat);
    bench_series_free(&lat);
    return rc;
}
