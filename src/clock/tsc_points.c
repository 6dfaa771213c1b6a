/* tsc_points.c — arithmetic on TSC calibration points (contract in tsc_points.h). */
#include "tsc_points.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

/* local's reference through the segment [lo, lo + 1] of the points. */
static inline uint64_t through(const st_tsc_point_t *p, size_t lo, uint64_t local)
{
    size_t hi = lo + 1;
    double f = ((double)(int64_t)(local - p[lo].local)) / (double)(p[hi].local - p[lo].local);
    double r = (double)p[lo].ref + f * (double)(int64_t)(p[hi].ref - p[lo].ref);
    return r <= 0 ? 0 : (uint64_t)llround(r);
}

uint64_t st_tsc_interp(const st_tsc_point_t *p, size_t n, uint64_t local)
{
    size_t lo = 0, hi = n - 1; /* the segment [lo, lo + 1] holding local, or an end segment */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (local < p[mid].local)
            hi = mid;
        else
            lo = mid;
    }
    return through(p, lo, local);
}

void st_tsc_interp_many(const st_tsc_point_t *p, size_t n, uint64_t *time, size_t count, size_t stride)
{
    size_t lo = 0; /* the last segment whose first point is at or before the time, else 0 (st_tsc_interp's) */
    for (size_t i = 0; i < count; i++) {
        uint64_t *t = (uint64_t *)(void *)((char *)time + i * stride);
        while (lo + 2 < n && p[lo + 1].local <= *t)
            lo++;
        while (lo > 0 && p[lo].local > *t)
            lo--;
        *t = through(p, lo, *t);
    }
}

int64_t st_tsc_jump(const st_tsc_point_t *a, const st_tsc_point_t *b)
{
    int64_t d = (int64_t)(b->ref - b->local) - (int64_t)(a->ref - a->local);
    double span = b->ref > a->ref ? (double)(b->ref - a->ref) : 0;
    return fabs((double)d) > ST_TSC_FIT_BASE_NS + ST_TSC_FIT_PPM * 1e-6 * span ? d : 0;
}

double st_tsc_hz(const st_tsc_point_t *p, size_t n)
{
    if (n < 2 || p[n - 1].ref <= p[0].ref)
        return 0;
    return (double)(p[n - 1].tsc - p[0].tsc) * 1e9 / (double)(p[n - 1].ref - p[0].ref);
}

double st_tsc_nonlinearity(const st_tsc_point_t *p, size_t n)
{
    double m = 0;
    for (size_t k = 1; k + 1 < n; k++) {
        double f = (double)(p[k].tsc - p[0].tsc) / (double)(p[n - 1].tsc - p[0].tsc);
        double line = (double)p[0].ref + f * (double)(p[n - 1].ref - p[0].ref);
        m = fmax(m, fabs((double)p[k].ref - line));
    }
    return m;
}

void st_tsc_point_format(const st_tsc_point_t *p, char *buf, size_t len)
{
    snprintf(buf, len, "tsc=%" PRIu64 " local=%" PRIu64 " ref=%" PRIu64, p->tsc, p->local, p->ref);
}

int st_tsc_point_parse(const char *value, st_tsc_point_t *p)
{
    st_tsc_point_t q;
    int end = 0;
    if (!value || sscanf(value, "tsc=%" SCNu64 " local=%" SCNu64 " ref=%" SCNu64 "%n", &q.tsc, &q.local, &q.ref,
                         &end) != 3 || value[end] != 0)
        return -1;
    *p = q;
    return 0;
}
