/*
 * model.c — clock models, fitting, offset estimators, sync points and re-mapping.
 *
 * Pure arithmetic, no MPI (linked into the CLI too). See model.h for the notation.
 */
#include "model.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== linear models ==================================================================== */

int64_t st_clock_lm_apply(const st_clock_lm_t *m, int64_t x)
{
    double corr = m->a + m->b * (double)(x - m->t0);
    return x + st_clock_round(corr);
}

int64_t st_clock_lm_invert(const st_clock_lm_t *m, int64_t y)
{
    /* y = x + a + b(x - t0)  =>  x - t0 = (y - t0 - a) / (1 + b); difference first for precision. */
    double dx = ((double)(y - m->t0) - m->a) / (1.0 + m->b);
    return m->t0 + st_clock_round(dx);
}

st_clock_lm_t st_clock_lm_compose(const st_clock_lm_t *outer, const st_clock_lm_t *inner)
{
    /*
     * inner(x) = x + a1 + b1 (x - t1); outer(y) = y + a2 + b2 (y - t2).
     * outer(inner(x)) = x + [a1 + a2 + b2 (t1 + a1 - t2)] + [b1 + b2 + b1 b2] (x - t1).
     */
    st_clock_lm_t r;
    r.t0 = inner->t0;
    r.a = inner->a + outer->a + outer->b * ((double)(inner->t0 - outer->t0) + inner->a);
    r.b = inner->b + outer->b + inner->b * outer->b;
    return r;
}

/* ==== clocks (chains of models) ========================================================== */

void st_clock_identity(st_clock_t *c)
{
    memset(c, 0, sizeof *c);
}

int64_t st_clock_read(const st_clock_t *c, int64_t local)
{
    int64_t x = local;
    for (uint32_t i = 0; i < c->depth; i++)
        x = st_clock_lm_apply(&c->lm[i], x);
    return x;
}

st_clock_lm_t st_clock_collapse(const st_clock_t *c, int64_t t0)
{
    st_clock_lm_t r = { t0, 0.0, 0.0 };
    for (uint32_t i = 0; i < c->depth; i++)
        r = st_clock_lm_compose(&c->lm[i], &r);
    return r;
}

void st_clock_push(st_clock_t *c, const st_clock_lm_t *m)
{
    if (c->depth == ST_CLOCK_MAX_DEPTH) {
        st_clock_lm_t all = st_clock_collapse(c, c->lm[0].t0);
        c->depth = 1;
        c->lm[0] = all;
    }
    c->lm[c->depth++] = *m;
}

/* ---- flatten / unflatten: "STCK" v1, depth, then (t0, a, b) per model, little endian ---- */

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

size_t st_clock_flatten(const st_clock_t *c, void *buf, size_t cap)
{
    size_t need = 8 + (size_t)c->depth * 24;
    if (cap < need)
        return need;
    unsigned char *p = buf;
    memcpy(p, "STCK", 4);
    p[4] = 1; /* version */
    p[5] = (unsigned char)c->depth;
    p[6] = p[7] = 0;
    for (uint32_t i = 0; i < c->depth; i++) {
        unsigned char *q = p + 8 + 24 * i;
        put_u64(q, (uint64_t)c->lm[i].t0);
        put_u64(q + 8, dbits(c->lm[i].a));
        put_u64(q + 16, dbits(c->lm[i].b));
    }
    return need;
}

int st_clock_unflatten(const void *buf, size_t len, st_clock_t *c)
{
    const unsigned char *p = buf;
    if (len < 8 || memcmp(p, "STCK", 4) != 0 || p[4] != 1 || p[5] > ST_CLOCK_MAX_DEPTH ||
        len != 8 + (size_t)p[5] * 24)
        return -1;
    st_clock_t r;
    st_clock_identity(&r);
    r.depth = p[5];
    for (uint32_t i = 0; i < r.depth; i++) {
        const unsigned char *q = p + 8 + 24 * i;
        r.lm[i].t0 = (int64_t)get_u64(q);
        r.lm[i].a = bitsd(get_u64(q + 8));
        r.lm[i].b = bitsd(get_u64(q + 16));
        if (!isfinite(r.lm[i].a) || !isfinite(r.lm[i].b) || fabs(r.lm[i].b) > 0.5)
            return -1;
    }
    *c = r;
    return 0;
}

st_timer_map_t st_clock_lm_to_map(const st_clock_lm_t *lm, uint32_t epoch)
{
    st_timer_map_t m = { .a = st_clock_round(lm->a), .b = lm->b, .t0 = (uint64_t)lm->t0, .epoch = epoch }; /* TSC form: st_timer_set_map */
    return m;
}

/* ==== fitting ============================================================================= */

int st_clock_fit(const int64_t *x, const double *y, const double *w, size_t n, st_clock_lm_t *out,
                 double *slope_se)
{
    if (slope_se)
        *slope_se = 0;
    if (n == 0)
        return -1;
    int64_t t0 = x[n - 1];
    double sw = 0, mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1;
        sw += wi;
        mx += wi * (double)(x[i] - t0);
        my += wi * y[i];
    }
    mx /= sw;
    my /= sw;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        double wi = w ? w[i] : 1, dx = (double)(x[i] - t0) - mx;
        sxx += wi * dx * dx;
        sxy += wi * dx * (y[i] - my);
    }
    out->t0 = t0;
    if (n == 1 || sxx <= 0) {
        out->b = 0;
        out->a = my;
        return n == 1 ? 0 : -1;
    }
    out->b = sxy / sxx;
    out->a = my - out->b * mx; /* value at x = t0 */
    if (slope_se && n >= 3) {
        double sse = 0;
        for (size_t i = 0; i < n; i++) {
            double r = y[i] - (out->a + out->b * (double)(x[i] - t0));
            sse += (w ? w[i] : 1) * r * r;
        }
        *slope_se = sqrt(sse / (double)(n - 2) / sxx);
    }
    return 0;
}

/* Half the width of the feasible intercepts for slope b (negative: infeasible), and their centre. */
static double band_margin(const st_clock_pp_t *pp, size_t n, int64_t t0, double b, double *a)
{
    double top = INFINITY, bot = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double hi = (double)(pp[i].t - pp[i].s_last) - b * (double)(pp[i].s_last - t0);
        double lo = (double)(pp[i].t - pp[i].s_now) - b * (double)(pp[i].s_now - t0);
        if (hi < top)
            top = hi;
        if (lo > bot)
            bot = lo;
    }
    *a = 0.5 * (top + bot);
    return 0.5 * (top - bot);
}

void st_clock_fit_band(const st_clock_pp_t *pp, size_t n, int64_t t0, int slope, st_clock_lm_t *out)
{
    out->t0 = t0;
    out->b = 0;
    if (!slope) {
        band_margin(pp, n, t0, 0, &out->a);
        return;
    }
    /*
     * The margin is concave in b (a minimum of linear functions minus a maximum of
     * linear ones), so a ternary search finds its maximum. Drift between two clocks is
     * far below 1e-3 (1000 ppm); 100 steps narrow that to ~1e-20.
     */
    double l = -1e-3, r = 1e-3, a;
    for (int it = 0; it < 100; it++) {
        double m1 = l + (r - l) / 3, m2 = r - (r - l) / 3;
        if (band_margin(pp, n, t0, m1, &a) < band_margin(pp, n, t0, m2, &a))
            l = m1;
        else
            r = m2;
    }
    out->b = 0.5 * (l + r);
    band_margin(pp, n, t0, out->b, &out->a);
}

/* The slope between inside (margin >= level) and outside where the margin crosses level. */
static double band_cross(const st_clock_pp_t *pp, size_t n, int64_t t0, double inside, double outside,
                         double level)
{
    double a;
    if (band_margin(pp, n, t0, outside, &a) >= level)
        return outside;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (inside + outside);
        if (band_margin(pp, n, t0, mid, &a) >= level)
            inside = mid;
        else
            outside = mid;
    }
    return 0.5 * (inside + outside);
}

double st_clock_band_slope_range(const st_clock_pp_t *pp, size_t n, int64_t t0, double b, double tol_ns)
{
    double a, level = band_margin(pp, n, t0, b, &a) - tol_ns;
    return band_cross(pp, n, t0, b, 1e-3, level) - band_cross(pp, n, t0, b, -1e-3, level);
}

double st_clock_burst_offset(const st_clock_pp_t *pp, size_t n, double b, double *lo, double *hi)
{
    int64_t x = pp[n - 1].s_now, best = INT64_MAX;
    double l = -INFINITY, h = INFINITY, best_mid = 0;
    for (size_t i = 0; i < n; i++) {
        double pl = (double)(pp[i].t - pp[i].s_now) + b * (double)(x - pp[i].s_now);
        double ph = (double)(pp[i].t - pp[i].s_last) + b * (double)(x - pp[i].s_last);
        l = pl > l ? pl : l;
        h = ph < h ? ph : h;
        if (pp[i].s_now - pp[i].s_last < best) {
            best = pp[i].s_now - pp[i].s_last;
            best_mid = 0.5 * (pl + ph);
        }
    }
    *lo = l;
    *hi = h;
    return l <= h ? 0.5 * (l + h) : best_mid;
}

/* ==== offset estimators ======================================================================= */

size_t st_clock_median_index(const double *v, size_t n)
{
    size_t idx[4096];
    if (n > 4096)
        n = 4096;
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    /* Insertion sort of indices: n is small and qsort has no context argument in C11. */
    for (size_t i = 1; i < n; i++) {
        size_t k = idx[i], j = i;
        while (j > 0 && v[idx[j - 1]] > v[k]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = k;
    }
    return idx[(n - 1) / 2];
}

/* ==== sync points and re-mapping =================================================================== */

st_clock_lm_t st_clock_anchor(const st_clock_lm_t *fresh, int64_t L, const st_clock_epoch_t *ep, size_t n,
                              double min_base_ns)
{
    st_clock_lm_t r;
    int64_t G = st_clock_lm_apply(fresh, L);
    r.t0 = L;
    r.a = (double)(G - L);
    r.b = fresh->b;
    size_t k = n;
    while (k > 1 && !ep[k - 1].measured)
        k--;
    if (k > 1 && (double)(L - ep[k - 1].local) >= min_base_ns)
        r.b = (double)(G - ep[k - 1].global) / (double)(L - ep[k - 1].local) - 1.0;
    return r;
}

/* Interpolation through the measured sync points, with a cursor for ordered queries. */
typedef struct interp {
    const st_clock_epoch_t *ep;
    size_t *pts; /* indices (>= 1) of measured epochs, ascending */
    size_t  np, cur;
    int64_t shift0; /* correction of the first point's global time (see first_point_check) */
    double  b0;     /* drift before the first point (see drift_before_first) */
} interp_t;

/* Beyond this disagreement with the line back from the next two points, the first point is doubted. */
#define ST_FIRST_POINT_DOUBT_NS 400
/* ... when those points follow within this time (the first resyncs come after 0.25 and 0.5 s). */
#define ST_FIRST_POINT_BASE_NS  1500000000LL

/*
 * The initial sync point is measured in MPI_Init while every rank starts at once, and its offset can be
 * off by a microsecond when ranks share cores; the next points (the first resyncs) are measured on a quieter
 * machine. When the line through the next two points, extended back, misses the first point by more than
 * ST_FIRST_POINT_DOUBT_NS, the first point is moved halfway towards it: the two estimates of the same offset
 * weighted alike, since neither is known to be better. Below that the first point is kept as measured
 * (the back-extension's own error is a few hundred ns).
 */
static int64_t first_point_check(const st_clock_epoch_t *ep, const size_t *pts, size_t np)
{
    if (np < 3)
        return 0;
    const st_clock_epoch_t *p1 = &ep[pts[0]], *p2 = &ep[pts[1]], *p3 = &ep[pts[2]];
    int64_t d12 = p2->local - p1->local, d23 = p3->local - p2->local;
    if (d12 <= 0 || d23 <= 0 || d12 > ST_FIRST_POINT_BASE_NS || d23 > ST_FIRST_POINT_BASE_NS)
        return 0;
    double back = (double)p2->global - (double)(p3->global - p2->global) * (double)d12 / (double)d23;
    double d = back - (double)p1->global;
    return fabs(d) > ST_FIRST_POINT_DOUBT_NS ? st_clock_round(d / 2) : 0;
}

/* The line back from the first point is drawn to a measured point at least this far after it ... */
#define ST_BEFORE_FIRST_MIN_BASE_NS 200000000LL
/* ... and at most this far (the farthest such: real oscillators drift apart by far less than a ppm in 10 s). */
#define ST_BEFORE_FIRST_MAX_BASE_NS 10000000000LL

/*
 * Events stamped before the first sync point (before MPI_Init's sync, seconds earlier when ranks share cores)
 * are extrapolated back from it. The first sync's own drift comes from its short initial fit, tens of ppm off
 * under load (measured: -148 ppm for a clock of -66, 1.5 s before the point: 140 us); the line from the first
 * point to a later measured one joins two offsets known to a few us over seconds. Without such a point the
 * first sync's drift stays.
 */
static double drift_before_first(const st_clock_epoch_t *ep, const size_t *pts, size_t np)
{
    const st_clock_epoch_t *a = &ep[pts[0]];
    for (size_t j = np; j-- > 1;) {
        int64_t base = ep[pts[j]].local - a->local;
        if (base >= ST_BEFORE_FIRST_MIN_BASE_NS && base <= ST_BEFORE_FIRST_MAX_BASE_NS)
            return (double)(ep[pts[j]].global - a->global) / (double)base - 1.0;
    }
    return a->map.b;
}

/* Global time of local time L on the line back from the first point (its global time moved by shift). */
static int64_t before_first(const interp_t *ip, int64_t L, int64_t shift)
{
    const st_clock_epoch_t *a = &ip->ep[ip->pts[0]];
    int64_t d = L - a->local;
    return a->global + shift + d + st_clock_round(ip->b0 * (double)d);
}

static int interp_init(interp_t *ip, const st_clock_epoch_t *ep, size_t n)
{
    ip->ep = ep;
    ip->np = ip->cur = 0;
    ip->pts = malloc((n ? n : 1) * sizeof *ip->pts);
    if (!ip->pts)
        return -1;
    for (size_t i = 1; i < n; i++)
        if (ep[i].measured && (ip->np == 0 || ep[i].local > ep[ip->pts[ip->np - 1]].local))
            ip->pts[ip->np++] = i;
    ip->shift0 = first_point_check(ep, ip->pts, ip->np);
    ip->b0 = ip->np ? drift_before_first(ep, ip->pts, ip->np) : 0;
    return 0;
}

static int64_t interp_at(interp_t *ip, int64_t L)
{
    const st_clock_epoch_t *ep = ip->ep;
    if (ip->np == 0)
        return L;
    while (ip->cur + 1 < ip->np && ep[ip->pts[ip->cur + 1]].local <= L)
        ip->cur++;
    while (ip->cur > 0 && ep[ip->pts[ip->cur]].local > L)
        ip->cur--;
    const st_clock_epoch_t *a = &ep[ip->pts[ip->cur]];
    int64_t sa = ip->cur == 0 ? ip->shift0 : 0; /* the first point's correction */
    if (L < a->local)
        return before_first(ip, L, sa);
    if (ip->cur + 1 == ip->np) /* after the last point */
        return st_clock_lm_apply(&a->map, L) + sa;
    const st_clock_epoch_t *b = &ep[ip->pts[ip->cur + 1]];
    double f = (double)(L - a->local) / (double)(b->local - a->local);
    return a->global + sa + st_clock_round(f * (double)(b->global - a->global - sa));
}

int64_t st_clock_interp(const st_clock_epoch_t *ep, size_t n, int64_t local)
{
    interp_t ip;
    if (interp_init(&ip, ep, n) != 0)
        return n > 1 ? st_clock_lm_apply(&ep[n - 1].map, local) : local;
    int64_t g = interp_at(&ip, local);
    free(ip.pts);
    return g;
}

/*
 * Epoch of an event whose epoch was not recorded: the stamping map switched from
 * k-1 to k when the rank published k at local time ep[k].local; the earliest time the
 * new map can produce is ep[k].global, the latest the old one could is
 * old(ep[k].local). Switch (per location, never back) at the midpoint: exact when the
 * map jumped forward; when it jumped back, events stamped inside the overlap (jump-
 * sized) window may be given the wrong map, i.e. be off by up to the jump. Recording
 * the epoch in the event (st_timer_now_ep) avoids this.
 */
static size_t infer_epoch(const st_clock_epoch_t *ep, size_t n, size_t cur, uint64_t t)
{
    while (cur + 1 < n) {
        const st_clock_epoch_t *nx = &ep[cur + 1];
        double old_end = (double)st_clock_lm_apply(&ep[cur].map, nx->local);
        if ((double)t < 0.5 * (old_end + (double)nx->global))
            break;
        cur++;
    }
    return cur;
}

/*
 * Whether every map the re-mapping may take is the identity: each epoch's model has neither offset nor drift,
 * each sync point lies where the local clock is (G = L), the first point is not moved and the line before it
 * has no drift (so on the rank whose clock is the global one: rank 0, every rank of a 1-rank run). Then each
 * path of st_clock_remap gives L back, bit for bit, for an event that names its epoch and lies within 2^53 ns
 * of that epoch's t0 (the inverse model's difference is then exact in a double): the inverse and the models
 * exactly, the interpolation between two points a, b as a.G + round(f (b.G - a.G)) with f = (L - a.L) /
 * (b.L - a.L), whose rounding error stays far below half a ns while b.L - a.L < 2^50 ns (13 days), also asked.
 */
static int remap_is_identity(const interp_t *ip, const st_clock_epoch_t *ep, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (ep[k].map.a != 0.0 || ep[k].map.b != 0.0 || ep[k].global != ep[k].local)
            return 0;
    for (size_t j = 1; j < ip->np; j++)
        if (ep[ip->pts[j]].local - ep[ip->pts[j - 1]].local >= (INT64_C(1) << 50))
            return 0;
    return ip->shift0 == 0 && ip->b0 == 0.0;
}

/* With identity maps (remap_is_identity), event e keeps its time: it names its epoch and lies near its t0. */
static int keeps_time(const st_clock_epoch_t *ep, size_t n, const st_event_t *e)
{
    uint32_t id = ST_EVENT_EPOCH(e);
    int64_t d;
    if (id < 1 || id > n || e->time > (uint64_t)INT64_MAX || __builtin_sub_overflow((int64_t)e->time, ep[id - 1].map.t0, &d))
        return 0;
    return d > -(INT64_C(1) << 53) && d < (INT64_C(1) << 53);
}

double st_clock_remap(const st_clock_epoch_t *ep, size_t n_ep, st_event_t *ev, size_t n, int interpolate)
{
    interp_t ip;
    if (n_ep < 2 || interp_init(&ip, ep, n_ep) != 0)
        return 0;
    size_t cur = 0, i = 0;
    uint64_t last = 0;
    double maxchange = 0;
    /* Identity maps: the times stay, only the location's order is kept (as below), while the events keep their
     * times; from the first that might not on (no epoch recorded: nothing inferred yet, cur is still 0), the
     * general path. The arithmetic per event was 10-15 ns per event; this is a read of the time. */
    if (remap_is_identity(&ip, ep, n_ep))
        for (; i < n && keeps_time(ep, n_ep, &ev[i]); i++) {
            if (ev[i].time < last) {
                double d = fabs((double)last - (double)ev[i].time); /* (as below, to the bit) */
                maxchange = d > maxchange ? d : maxchange;
                ev[i].time = last;
            }
            last = ev[i].time;
        }
    for (; i < n; i++) {
        uint32_t id = ST_EVENT_EPOCH(&ev[i]);
        size_t k = (id >= 1 && id <= n_ep) ? id - 1 : (cur = infer_epoch(ep, n_ep, cur, ev[i].time));
        int64_t L = st_clock_lm_invert(&ep[k].map, (int64_t)ev[i].time);
        int64_t g = interpolate                       ? interp_at(&ip, L)
                    : k == 0 && ip.np && ip.pts[0] == 1 ? before_first(&ip, L, 0)
                                                        : st_clock_lm_apply(&ep[k ? k : 1].map, L);
        uint64_t t = g < 0 ? 0 : (uint64_t)g;
        if (t < last)
            t = last;
        double d = fabs((double)t - (double)ev[i].time);
        if (d > maxchange)
            maxchange = d;
        ev[i].time = last = t;
    }
    free(ip.pts);
    return maxchange;
}

double st_clock_max_jump(const st_clock_epoch_t *ep, size_t n)
{
    double m = 0;
    for (size_t k = 2; k < n; k++)
        if (ep[k].measured && fabs(ep[k].jump_ns) > m)
            m = fabs(ep[k].jump_ns);
    return m;
}

double st_clock_interp_loo(const st_clock_epoch_t *ep, size_t n)
{
    double m = 0;
    for (size_t k = 2; k + 1 < n; k++) {
        const st_clock_epoch_t *a = &ep[k - 1], *c = &ep[k + 1];
        if (c->local <= a->local || !a->measured || !ep[k].measured || !c->measured)
            continue;
        double f = (double)(ep[k].local - a->local) / (double)(c->local - a->local);
        double pred = (double)a->global + f * (double)(c->global - a->global);
        double e = fabs(pred - (double)ep[k].global);
        if (e > m)
            m = e;
    }
    return m;
}

/* ==== epochs as text ======================================================================== */

static const char *const kind_names[] = { "local", "init", "resync", "final" };

void st_clock_epoch_format(const st_clock_epoch_t *e, char *buf, size_t len)
{
    snprintf(buf, len,
             "%s%s local=%" PRId64 " global=%" PRId64 " b=%.17g jump_ns=%.0f rtt_ns=%" PRId64 " cost_us=%.0f err_ns=%.0f",
             e->kind < 4 ? kind_names[e->kind] : "?", e->measured ? "" : " unmeasured", e->local, e->global, e->map.b,
             e->jump_ns, e->rtt_min_ns, (double)e->cost_ns / 1e3, e->err_ns < 0 ? -1.0 : e->err_ns);
}

int st_clock_epoch_parse(const char *value, st_clock_epoch_t *e)
{
    char kind[16];
    int n = 0;
    st_clock_epoch_t r;
    memset(&r, 0, sizeof r);
    if (sscanf(value, "%15s%n", kind, &n) != 1)
        return -1;
    r.kind = 99;
    for (uint16_t k = 0; k < 4; k++)
        if (!strcmp(kind, kind_names[k]))
            r.kind = k;
    value += n;
    r.measured = 1;
    if (!strncmp(value, " unmeasured", 11)) {
        r.measured = 0;
        value += 11;
    }
    double cost;
    r.err_ns = -1; /* archives before the error bound was recorded */
    if (r.kind == 99 || sscanf(value, " local=%" SCNd64 " global=%" SCNd64 " b=%lg jump_ns=%lg rtt_ns=%" SCNd64
                               " cost_us=%lg%n", &r.local, &r.global, &r.map.b, &r.jump_ns, &r.rtt_min_ns, &cost, &n) != 6)
        return -1;
    double err;
    if (sscanf(value + n, " err_ns=%lg", &err) == 1 && err >= 0)
        r.err_ns = err;
    r.cost_ns = (int64_t)(cost * 1e3);
    r.map.t0 = r.local;
    r.map.a = (double)(r.global - r.local);
    *e = r;
    return 0;
}
