/* stats.c — lists of latencies and their summaries. */
#include "bench.h"

#include <stdlib.h>

int bench_series_add(bench_series_t *s, double x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        double *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return 0;
}

void bench_series_free(bench_series_t *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bench_summary_t bench_summarize(bench_series_t *s)
{
    bench_summary_t r = { 0 };
    if (!s->n)
        return r;
    qsort(s->v, s->n, sizeof *s->v, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += s->v[i];
    r.n = s->n;
    r.min = s->v[0];
    r.max = s->v[s->n - 1];
    r.median = s->n % 2 ? s->v[s->n / 2] : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
    r.mean = sum / (double)s->n;
    return r;
}
