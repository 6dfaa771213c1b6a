/*
 * pingpong_mpi.c — polite waiting, ping-pongs, offset measurement and LEARN_CLOCK_MODEL.
 *
 * The building blocks of every synchronization algorithm (docs/clock-sync.md, "The clock model"):
 * a reference answers pings with its clock's time; the client brackets each answer
 * between its own send and receive times. No wait blocks in MPI (MPICH busy-polls
 * there): inside a burst of ping-pongs a wait is PMPI_Test + sched_yield for up to
 * 100 µs, then sleeps; every other wait (a rank waiting for its turn) sleeps at once,
 * 10 µs doubling up to 1 ms, so that it does not take a core from the pair that is
 * measuring (2 cores, up to 8 ranks here). Minima of round trips, never means, decide
 * accuracy; a preempted ping-pong only loosens its own bounds.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/log.h"
#include "sync_int.h"
#include "timer.h"
#include "../util/clockread.h"

#define SPIN_NS  100000  /* yield-only phase of a wait inside a burst of ping-pongs */
#define NAP_MIN  10000   /* first sleep after it (at once for other waits); doubles per poll ... */
#define NAP_MAX  1000000 /* ... up to this: idle ranks must not keep waking up next to a measuring pair */
#define PP_EXTEND 4     /* a burst may grow to this many times its ping-pongs */
#define ACCEPT_MIN_NS 3000 /* bounds wider than this and than 4 x the narrowest seen: a bad burst */
#define SPREAD_TOL_NS 20   /* drift uncertainty: slopes whose band margin is within this of the best */
#define MAX_SPREAD    20e-6 /* ... spanning more than this: measure more fit points */
#define DRIFT_TOL     50e-6 /* drift of a clock being measured against its reference, at most (initial fit) */

static void nap(int64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Test until done: yield while spin_ns has not passed, then sleep, each sleep twice the last. */
static int wait_req(MPI_Request *req, int64_t spin_ns)
{
    int done = 0, rc;
    int64_t start = 0, sleep = NAP_MIN;
    for (;;) {
        rc = PMPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        if (!start)
            start = st_clock_ns(CLOCK_MONOTONIC);
        if (st_clock_ns(CLOCK_MONOTONIC) - start < spin_ns) {
            sched_yield();
            continue;
        }
        nap(sleep);
        sleep = sleep * 2 < NAP_MAX ? sleep * 2 : NAP_MAX;
    }
}

int st_sync_wait(MPI_Request *req)
{
    return wait_req(req, 0);
}

/* Inside a burst the partner answers within microseconds: spin (politely) first. */
static int wait_pp(MPI_Request *req)
{
    return wait_req(req, SPIN_NS);
}

int st_sync_send(const void *buf, int n, int peer, int tag)
{
    MPI_Request r;
    int rc = PMPI_Isend(buf, n, MPI_BYTE, peer, tag, st_sync.comm, &r);
    return rc == MPI_SUCCESS ? st_sync_wait(&r) : rc;
}

int st_sync_recv(void *buf, int n, int peer, int tag)
{
    MPI_Request r;
    int rc = PMPI_Irecv(buf, n, MPI_BYTE, peer, tag, st_sync.comm, &r);
    return rc == MPI_SUCCESS ? st_sync_wait(&r) : rc;
}

int64_t st_sync_read(const st_clock_t *clk)
{
    return st_clock_read(clk, (int64_t)st_timer_local());
}

/* ==== reference side ==================================================================== */

int st_sync_serve(int client, const st_clock_t *mine)
{
    int64_t cmd = 0, t = 0;
    MPI_Request rr, sr;
    int first = 1;
    if (PMPI_Irecv(&cmd, 1, MPI_INT64_T, client, ST_TAG_PING, st_sync.comm, &rr) != MPI_SUCCESS)
        return -1;
    for (;;) {
        /* The first ping may be long in coming (the client's turn); later ones follow at once. */
        if ((first ? st_sync_wait(&rr) : wait_pp(&rr)) != MPI_SUCCESS)
            return -1;
        first = 0;
        if (cmd < 0)
            return 0;
        t = st_sync_read(mine);
        if (PMPI_Isend(&t, 1, MPI_INT64_T, client, ST_TAG_PONG, st_sync.comm, &sr) != MPI_SUCCESS ||
            PMPI_Irecv(&cmd, 1, MPI_INT64_T, client, ST_TAG_PING, st_sync.comm, &rr) != MPI_SUCCESS ||
            wait_pp(&sr) != MPI_SUCCESS)
            return -1;
    }
}

/* ==== client side ========================================================================= */

/* One ping-pong: *s_last before the ping, *t the reference's answer, *s_now on arrival. */
static int pingpong(int ref, const st_clock_t *mine, int64_t *s_last, int64_t *t, int64_t *s_now)
{
    int64_t cmd = 0;
    MPI_Request r[2];
    if (PMPI_Irecv(t, 1, MPI_INT64_T, ref, ST_TAG_PONG, st_sync.comm, &r[0]) != MPI_SUCCESS)
        return -1;
    *s_last = st_sync_read(mine);
    if (PMPI_Isend(&cmd, 1, MPI_INT64_T, ref, ST_TAG_PING, st_sync.comm, &r[1]) != MPI_SUCCESS ||
        wait_pp(&r[0]) != MPI_SUCCESS)
        return -1;
    *s_now = st_sync_read(mine);
    return wait_pp(&r[1]) == MPI_SUCCESS ? 0 : -1;
}

static void note_rtt(int ref, int64_t rtt)
{
    int inter = st_sync.node && st_sync.node[ref] != st_sync.node[st_sync.rank];
    if (rtt >= 0 && rtt < st_sync.rtt_min[inter])
        st_sync.rtt_min[inter] = rtt;
    if (rtt >= 0 && rtt < st_sync.rtt_now)
        st_sync.rtt_now = rtt;
}

int st_sync_done(int ref)
{
    int64_t cmd = -1;
    MPI_Request r;
    if (PMPI_Isend(&cmd, 1, MPI_INT64_T, ref, ST_TAG_PING, st_sync.comm, &r) != MPI_SUCCESS)
        return -1;
    return st_sync_wait(&r) == MPI_SUCCESS ? 0 : -1;
}

double st_sync_good_width(int ref)
{
    int inter = st_sync.node && st_sync.node[ref] != st_sync.node[st_sync.rank];
    return st_sync.rtt_min[inter] == INT64_MAX ? 0 : 1.5 * (double)st_sync.rtt_min[inter];
}

/* Appends to raw (grown as needed); on allocation failure the ping-pong is only not kept. */
static void keep(st_sync_raw_t *raw, const st_clock_pp_t *pp)
{
    if (raw->n == raw->cap) {
        size_t cap = raw->cap ? 2 * raw->cap : 256;
        st_clock_pp_t *n = realloc(raw->pp, cap * sizeof *n);
        if (!n)
            return;
        raw->pp = n;
        raw->cap = cap;
    }
    raw->pp[raw->n++] = *pp;
}

/*
 * The offset at the end of a burst. Each ping-pong's bounds hold at its own time; moved
 * to the end with drift 0 they also widen by DRIFT_TOL x their age, since the clock
 * being measured may be the initial fit's, tens of ppm off under load. A burst that
 * preemption stretched over tens of ms thus has wide bounds (and is repeated, or its
 * offset rejected) instead of narrow ones that disagree with the truth by microseconds.
 */
static void burst_point(const st_clock_pp_t *pp, size_t n, st_sync_point_t *pt)
{
    int64_t x = pp[n - 1].s_now;
    double lo = -INFINITY, hi = INFINITY, l0, h0;
    for (size_t i = 0; i < n; i++) {
        double slack = DRIFT_TOL * (double)(x - pp[i].s_last);
        lo = fmax(lo, (double)(pp[i].t - pp[i].s_now) - slack);
        hi = fmin(hi, (double)(pp[i].t - pp[i].s_last) + slack);
    }
    pt->when = x;
    pt->off = lo <= hi ? 0.5 * (lo + hi) : st_clock_burst_offset(pp, n, 0, &l0, &h0);
    pt->lo = lo;
    pt->hi = hi;
}

/* SKaMPI-Offset (paper Alg. 7): intersect the bounds of npp or more ping-pongs. */
static int measure_skampi(int ref, const st_clock_t *mine, int npp, st_sync_point_t *pt, st_sync_raw_t *raw)
{
    st_sync_raw_t local = { NULL, 0, 0 };
    st_sync_raw_t *r = raw ? raw : &local;
    size_t first = r->n;
    double want = st_sync_good_width(ref), lo = -INFINITY, hi = INFINITY;
    int64_t rtt = INT64_MAX;
    int64_t t_start = st_clock_ns(CLOCK_MONOTONIC);
    /* npp ping-pongs; more while the bounds are wide: 4·npp, or 16·npp within 2 ms. */
    for (int i = 0; i < npp || (hi - lo > want && (i < PP_EXTEND * npp ||
                                                   (i < 4 * PP_EXTEND * npp && st_clock_ns(CLOCK_MONOTONIC) - t_start < 2000000)));
         i++) {
        st_clock_pp_t pp;
        if (pingpong(ref, mine, &pp.s_last, &pp.t, &pp.s_now) != 0) {
            free(local.pp);
            return -1;
        }
        keep(r, &pp);
        lo = fmax(lo, (double)(pp.t - pp.s_now));
        hi = fmin(hi, (double)(pp.t - pp.s_last));
        rtt = pp.s_now - pp.s_last < rtt ? pp.s_now - pp.s_last : rtt;
    }
    note_rtt(ref, rtt);
    if (r->n > first)
        burst_point(r->pp + first, r->n - first, pt);
    free(local.pp);
    return r->n > first ? 0 : -1;
}

/*
 * Mean-RTT-Offset (paper Alg. 8): the mean round trip of this pair is measured once
 * (cached per reference), then each ping-pong gives t - (s_now - rtt/2); the fit point
 * is the median with its timestamp.
 */
static int measure_meanrtt(int ref, const st_clock_t *mine, int npp, st_sync_point_t *pt)
{
    static int rtt_ref = -1;
    static double rtt_mean;
    int64_t s_last = 0, t = 0, s_now = 0, rmin = INT64_MAX;
    if (rtt_ref != ref) {
        double sum = 0;
        for (int i = 0; i < npp; i++) {
            if (pingpong(ref, mine, &s_last, &t, &s_now) != 0)
                return -1;
            sum += (double)(s_now - s_last);
            if (s_now - s_last < rmin)
                rmin = s_now - s_last;
        }
        rtt_mean = sum / npp;
        rtt_ref = ref;
        note_rtt(ref, rmin);
    }
    double *o = malloc((size_t)npp * sizeof *o);
    int64_t *at = malloc((size_t)npp * sizeof *at);
    int rc = o && at ? 0 : -1;
    for (int i = 0; rc == 0 && i < npp; i++) {
        rc = pingpong(ref, mine, &s_last, &t, &s_now);
        o[i] = (double)(t - s_now) + rtt_mean / 2;
        at[i] = s_now;
    }
    if (rc == 0) {
        size_t m = st_clock_median_index(o, (size_t)npp);
        pt->when = at[m];
        pt->off = o[m];
        pt->lo = -INFINITY;
        pt->hi = INFINITY;
    }
    free(o);
    free(at);
    return rc;
}

double st_sync_point_width(const st_sync_point_t *pt)
{
    return pt->hi >= pt->lo ? pt->hi - pt->lo : INFINITY;
}

double st_sync_accept_width(int ref)
{
    return fmax(4 * st_sync_good_width(ref), ACCEPT_MIN_NS);
}

int st_sync_measure(int ref, const st_clock_t *mine, int npp, int offset_alg, st_sync_point_t *pt,
                    st_sync_raw_t *raw)
{
    if (npp < 1)
        npp = 1;
    if (offset_alg == ST_OFFSET_MEANRTT)
        return measure_meanrtt(ref, mine, npp, pt);
    /* A burst whose bounds stayed wide (this pair was preempted throughout) is repeated. */
    double good = st_sync_good_width(ref);
    double enough = st_sync.thorough && good > 0 ? good : st_sync_accept_width(ref);
    st_sync_point_t p;
    for (int i = 0; i < (st_sync.tries > 0 ? st_sync.tries : 1); i++) {
        if (measure_skampi(ref, mine, npp, &p, raw) != 0)
            return -1;
        if (i == 0 || st_sync_point_width(&p) < st_sync_point_width(pt))
            *pt = p;
        if (st_sync_point_width(pt) <= enough)
            break;
    }
    return 0;
}

/* ==== LEARN_CLOCK_MODEL (paper Alg. 2) ========================================================= */

typedef struct fit_data {
    int64_t      *x;     /* fit point times */
    double       *y;     /* fit point offsets */
    size_t       *end;   /* SKaMPI: raw.pp[end[k-1] .. end[k]) are the bursts of point k */
    int           n, cap;
    st_sync_raw_t raw;
} fit_data_t;

static int fit_grow(fit_data_t *fd, int more)
{
    if (fd->n + more <= fd->cap)
        return 0;
    int cap = fd->n + more;
    int64_t *x = realloc(fd->x, (size_t)cap * sizeof *x);
    if (x)
        fd->x = x;
    double *y = realloc(fd->y, (size_t)cap * sizeof *y);
    if (y)
        fd->y = y;
    size_t *e = realloc(fd->end, (size_t)cap * sizeof *e);
    if (e)
        fd->end = e;
    if (!x || !y || !e)
        return -1;
    fd->cap = cap;
    return 0;
}

/* count more fit points, one every spacing ns; the first waits for the reference's answer. */
static int fit_points(int ref, const st_clock_t *base, const st_sync_params_t *par, fit_data_t *fd, int count,
                      int64_t spacing)
{
    int64_t start = 0;
    if (fit_grow(fd, count) != 0)
        return -1;
    for (int k = 0; k < count; k++) {
        st_sync_point_t pt;
        int64_t wait = k ? start + k * spacing - st_clock_ns(CLOCK_MONOTONIC) : (fd->n ? spacing : 0);
        if (wait > 0)
            nap(wait);
        if (st_sync_measure(ref, base, par->npp, par->offset, &pt, &fd->raw) != 0)
            return -1;
        if (k == 0)
            start = st_clock_ns(CLOCK_MONOTONIC);
        fd->x[fd->n] = pt.when;
        fd->y[fd->n] = pt.off;
        fd->end[fd->n++] = fd->raw.n;
    }
    return 0;
}

/*
 * The paper's least squares over fit points. SKaMPI points are estimated twice: the
 * first fit's drift then moves each ping-pong's bounds to the end of its burst, since
 * up to 200 ppm over a burst slowed down by preemption is a visible error.
 */
static void fit_lsq(const st_sync_params_t *par, fit_data_t *fd, st_clock_lm_t *out, double *se)
{
    int n = fd->n;
    st_clock_fit(fd->x, fd->y, NULL, (size_t)n, out, se);
    if (par->offset != ST_OFFSET_SKAMPI || fd->raw.n < fd->end[n - 1])
        return;
    for (int k = 0; k < n; k++) {
        size_t b = k ? fd->end[k - 1] : 0;
        double lo, hi;
        if (fd->end[k] > b)
            fd->y[k] = st_clock_burst_offset(fd->raw.pp + b, fd->end[k] - b, out->b, &lo, &hi);
    }
    st_clock_fit(fd->x, fd->y, NULL, (size_t)n, out, se);
}

/* Fits the model; returns how uncertain its drift is (ns per ns; +inf: unknown). */
static double fit_model(const st_sync_params_t *par, fit_data_t *fd, st_clock_lm_t *out)
{
    int n = fd->n;
    if (par->offset == ST_OFFSET_SKAMPI && !par->lsq && fd->raw.n == fd->end[n - 1] && fd->raw.n) {
        st_clock_fit_band(fd->raw.pp, fd->raw.n, fd->x[n - 1], n > 1, out);
        return n > 1 ? st_clock_band_slope_range(fd->raw.pp, fd->raw.n, fd->x[n - 1], out->b, SPREAD_TOL_NS) : 0;
    }
    double se = 0;
    fit_lsq(par, fd, out, &se);
    return n > 2 ? 4 * se : 0;
}

static void debug_fit(int ref, const fit_data_t *fd, int n, const st_clock_lm_t *m)
{
    if (st_log_verbosity() < 2)
        return;
    for (int k = 0; k < n; k++)
        st_log_debug("fit point vs %d: x=%+.3f ms y=%.1f resid=%.1f", ref, (double)(fd->x[k] - fd->x[n - 1]) / 1e6,
                     fd->y[k] - fd->y[n - 1], fd->y[k] - (m->a + m->b * (double)(fd->x[k] - m->t0)));
}

/* Optional: one more burst sets the intercept (paper Alg. 2, COMPUTE_AND_SET_INTERCEPT). */
static int recompute_intercept(int ref, const st_clock_t *base, const st_sync_params_t *par, st_clock_lm_t *out)
{
    st_sync_raw_t raw = { NULL, 0, 0 };
    st_sync_point_t pt;
    int rc = st_sync_measure(ref, base, par->npp, par->offset, &pt, &raw);
    if (rc == 0) {
        double lo, hi;
        if (raw.n)
            pt.off = st_clock_burst_offset(raw.pp, raw.n, out->b, &lo, &hi);
        out->t0 = pt.when; /* a = o* - b·(x* - t0) with t0 = x*: the measured offset itself */
        out->a = pt.off;
    }
    free(raw.pp);
    return rc;
}

/*
 * Under load only a few bursts may get quick round trips; the drift is then barely
 * determined and a model extrapolated from it is off by microseconds within 0.1 s.
 * While the drift is uncertain by more than MAX_SPREAD, more fit points are added
 * (half as many again each time) until 3 windows have passed.
 */
int st_sync_learn(int ref, const st_clock_t *base, const st_sync_params_t *par, st_clock_lm_t *out)
{
    int n = par->nfit > 0 ? par->nfit : 1;
    int64_t spacing = n > 1 ? (int64_t)(par->window_ns / (n - 1)) : 0, t0 = st_clock_ns(CLOCK_MONOTONIC);
    fit_data_t fd = { NULL, NULL, NULL, 0, 0, { NULL, 0, 0 } };
    int rc = fit_points(ref, base, par, &fd, n, spacing);
    double spread = rc == 0 ? fit_model(par, &fd, out) : 0;
    while (rc == 0 && n > 1 && spread > MAX_SPREAD && st_clock_ns(CLOCK_MONOTONIC) - t0 < 3 * (int64_t)par->window_ns) {
        rc = fit_points(ref, base, par, &fd, (n + 1) / 2, spacing);
        if (rc == 0)
            spread = fit_model(par, &fd, out);
    }
    if (rc == 0) {
        st_log_debug("clock sync: %d fit points against rank %d in %.1f ms, %zu ping-pongs, drift within %.2f ppm",
                     fd.n, ref, (double)(fd.x[fd.n - 1] - fd.x[0]) / 1e6, fd.raw.n, spread * 1e6);
        debug_fit(ref, &fd, fd.n, out);
        if (par->intercept > 0)
            rc = recompute_intercept(ref, base, par, out);
    }
    free(fd.x);
    free(fd.y);
    free(fd.end);
    free(fd.raw.pp);
    if (rc == 0)
        rc = st_sync_done(ref);
    else
        st_log_debug("clock sync: measuring against rank %d failed", ref);
    return rc;
}
