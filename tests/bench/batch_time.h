/*
 * batch_time.h — the wall clock and the median of batch times shared by the per-call benches
 * (filter_bench.c, callpath_bench.c, rma_bench.c): each times batches of calls and reports the
 * median of the batches' ns per call.
 */
#ifndef BATCH_TIME_H
#define BATCH_TIME_H

#include <stdlib.h>
#include <time.h>

static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorts v). */
static inline double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

#endif
