/*
 * omp_bench.c — EPCC-syncbench-like cost of OpenMP synchronization constructs.
 *
 * For each construct: time `inner` instances, each wrapping a small delay, and subtract
 * the same delays run without the construct (the reference); the difference per
 * instance is the construct's overhead. After a warm-up, repeated OUTER times; the
 * median is printed:
 *     ompbench <construct> <threads> <ns per instance>
 * Constructs: parallel (a parallel region), barrier, for (static loop of one iteration
 * per thread with its implicit barrier), critical, lock (omp_set/unset_lock), task
 * (create + run + taskwait by one thread).
 * Traced, the warm-up records more events per thread than the default 8 MiB trace buffer
 * holds (131072), so the buffer's pages are touched and it has been flushed once; a
 * measured round records a few thousand events, so at most one round of OUTER sees the
 * next flush and the median is the steady-state cost of the callbacks. Flushes are a
 * per-event cost of their own (tests/bench/record_bench.c).
 * Usage: omp_bench CONSTRUCT|all [SCALE [user]] (SCALE multiplies the instances; default 1).
 * Threads: OMP_NUM_THREADS.
 *
 * With "user" (tests/bench/user_bench.sh, what a user pays): empty constructs (no delay, no
 * reference), a warm-up of 1000 instances (the team started), then OUTER rounds timed as one loop,
 * flushes included; prints the mean over all of them:
 *     ompuser <construct> <threads> <ns per instance> <instances>
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTER 7

static volatile double sink;

static void delay(int n)
{
    double a = 0;
    for (int i = 0; i < n; i++)
        a += i * 0.5;
    if (a < 0)
        sink = a;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

/* Reference: the delays alone, as one thread of a team would run them. */
static double reference(int inner, int d)
{
    double t0 = omp_get_wtime();
    for (int j = 0; j < inner; j++)
        delay(d);
    return omp_get_wtime() - t0;
}

static double bench_parallel(int inner, int d)
{
    double t0 = omp_get_wtime();
    for (int j = 0; j < inner; j++) {
#pragma omp parallel
        delay(d);
    }
    return omp_get_wtime() - t0;
}

static double bench_barrier(int inner, int d)
{
    double t0 = 0, t1 = 0;
#pragma omp parallel
    {
#pragma omp barrier
#pragma omp master
        t0 = omp_get_wtime();
        for (int j = 0; j < inner; j++) {
            delay(d);
#pragma omp barrier
        }
#pragma omp master
        t1 = omp_get_wtime();
    }
    return t1 - t0;
}

static double bench_for(int inner, int d)
{
    double t0 = 0, t1 = 0;
#pragma omp parallel
    {
        int n = omp_get_num_threads();
#pragma omp barrier
#pragma omp master
        t0 = omp_get_wtime();
        for (int j = 0; j < inner; j++) {
#pragma omp for schedule(static)
            for (int i = 0; i < n; i++)
                delay(d);
        }
#pragma omp master
        t1 = omp_get_wtime();
    }
    return t1 - t0;
}

/* Mutual exclusion: inner instances in total, spread over the threads; the reference
 * is the same delays run one after the other. */
static double bench_critical(int inner, int d)
{
    double t0 = omp_get_wtime();
#pragma omp parallel
    {
        int n = omp_get_num_threads();
        for (int j = 0; j < inner / n; j++) {
#pragma omp critical
            delay(d);
        }
    }
    return omp_get_wtime() - t0;
}

static omp_lock_t lock;

static double bench_lock(int inner, int d)
{
    double t0 = omp_get_wtime();
#pragma omp parallel
    {
        int n = omp_get_num_threads();
        for (int j = 0; j < inner / n; j++) {
            omp_set_lock(&lock);
            delay(d);
            omp_unset_lock(&lock);
        }
    }
    return omp_get_wtime() - t0;
}

static double bench_task(int inner, int d)
{
    double t0 = 0, t1 = 0;
#pragma omp parallel
#pragma omp master
    {
        t0 = omp_get_wtime();
        for (int j = 0; j < inner; j++) {
#pragma omp task
            delay(d);
#pragma omp taskwait
        }
        t1 = omp_get_wtime();
    }
    return t1 - t0;
}

typedef struct bench {
    const char *name;
    double (*run)(int inner, int d);
    int inner; /* instances per measured round */
    int events; /* about how many events one instance records per thread (for the warm-up) */
} bench_t;

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    int scale = argc > 2 ? atoi(argv[2]) : 1, d = 100, found = 0, user = argc > 3 && !strcmp(argv[3], "user");
    if (scale < 1)
        scale = 1;
    omp_init_lock(&lock);
    static const bench_t benches[] = {
        { "parallel", bench_parallel, 500, 8 }, { "barrier", bench_barrier, 2000, 2 },
        { "for", bench_for, 1000, 4 },          { "critical", bench_critical, 1000, 3 },
        { "lock", bench_lock, 1000, 3 },        { "task", bench_task, 400, 10 },
    };
    for (size_t b = 0; b < sizeof benches / sizeof benches[0]; b++) {
        if (strcmp(which, "all") && strcmp(which, benches[b].name))
            continue;
        found = 1;
        int inner = benches[b].inner * scale;
        double v[OUTER];
        if (user) {
            benches[b].run(1000, 0);
            double t = 0;
            for (int k = 0; k < OUTER; k++)
                t += benches[b].run(inner, 0);
            printf("ompuser %s %d %.1f %d\n", benches[b].name, omp_get_max_threads(), t / ((double)inner * OUTER) * 1e9,
                   inner * OUTER);
            continue;
        }
        benches[b].run(150000 / benches[b].events, d); /* warm-up: team started, buffer touched */
        for (int k = 0; k < OUTER; k++) {
            double t = benches[b].run(inner, d), ref = reference(inner, d);
            v[k] = (t - ref) / inner * 1e9;
        }
        printf("ompbench %s %d %.1f\n", benches[b].name, omp_get_max_threads(), median(v, OUTER));
    }
    omp_destroy_lock(&lock);
    if (!found)
        fprintf(stderr, "omp_bench: unknown construct '%s' (parallel, barrier, for, critical, lock, task, all)\n", which);
    return found ? 0 : 2;
}
