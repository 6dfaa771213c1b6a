/*
 * model.h — clock models, offset estimators, sync points and re-mapping (no MPI).
 *
 * Everything here is pure arithmetic on timestamps so that it can be unit-tested on
 * synthetic input and linked into the CLI (which has no MPI). The MPI side
 * (sync_mpi.c, algs_mpi.c, pingpong_mpi.c) measures, this file computes.
 *
 * Notation (docs/clock-sync.md, "The clock model"): L is a process's local clock in ns,
 * G the global clock. A linear model over a base clock x maps it to
 *     m(x) = x + a + b·(x - t0)
 * (offset a at base time t0, drift b in ns per ns). A clock (st_clock_t) is the local
 * clock followed by up to ST_CLOCK_MAX_DEPTH models applied in order, so a model can
 * be learned over a base clock that is itself a model (HCA3 and hierarchical levels)
 * and a whole chain can be shipped to another process (ClockPropSync's flatten /
 * unflatten). Absolute times are int64 ns; only differences are ever held in doubles,
 * so CLOCK_REALTIME values (~1.7e18 ns) lose no precision.
 *
 * All functions are thread-safe (no shared state) unless said otherwise.
 */
#ifndef ST_CLOCK_MODEL_H
#define ST_CLOCK_MODEL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/event.h"
#include "timer.h"

/* ---- rounding ---------------------------------------------------------------------- */

/*
 * llround(x): the nearest integer, halves away from zero, without the library call (the
 * re-mapping rounds twice per event at MPI_Finalize, and the call was a third of its time).
 * The conversion truncates and x minus its truncation is exact for every double, so the
 * result is llround's wherever |x| < 2^62; beyond that, and for NaN, llround itself.
 */
static inline int64_t st_clock_round(double x)
{
    if (!(x > -0x1p62 && x < 0x1p62))
        return (int64_t)llround(x);
    int64_t i = (int64_t)x;
    double f = x - (double)i;
    return i + (f >= 0.5) - (f <= -0.5);
}

/* ---- linear models and clocks ---------------------------------------------------- */

typedef struct st_clock_lm {
    int64_t t0; /* base-clock time the offset refers to */
    double  a;  /* offset at t0, ns */
    double  b;  /* drift, ns per ns of the base clock */
} st_clock_lm_t;

#define ST_CLOCK_MAX_DEPTH 8

typedef struct st_clock {
    uint32_t      depth;                   /* 0: the local clock itself */
    st_clock_lm_t lm[ST_CLOCK_MAX_DEPTH];  /* lm[0] applies to the local clock, lm[1] to its result, ... */
} st_clock_t;

/* m(x); exact integer part plus rounded correction. */
int64_t st_clock_lm_apply(const st_clock_lm_t *m, int64_t x);
/* Inverse of m: the x with m(x) = y (to 1 ns). */
int64_t st_clock_lm_invert(const st_clock_lm_t *m, int64_t y);
/* outer∘inner as one model over inner's base, referred to inner's t0. */
st_clock_lm_t st_clock_lm_compose(const st_clock_lm_t *outer, const st_clock_lm_t *inner);

/* The local clock (depth 0). */
void st_clock_identity(st_clock_t *c);
/* G(local) through the whole chain. */
int64_t st_clock_read(const st_clock_t *c, int64_t local);
/* Appends m (a model over c's current output). A full chain is collapsed first. */
void st_clock_push(st_clock_t *c, const st_clock_lm_t *m);
/* The whole chain as one model over the local clock, with t0 = t0. */
st_clock_lm_t st_clock_collapse(const st_clock_t *c, int64_t t0);

/*
 * Flatten / unflatten (ClockPropSync): a versioned little-endian byte image of the
 * chain. st_clock_flatten returns the bytes needed (write happens only if cap
 * suffices); ST_CLOCK_FLAT_MAX always suffices. st_clock_unflatten returns 0, or -1
 * on a malformed buffer (c untouched).
 */
#define ST_CLOCK_FLAT_MAX (8 + ST_CLOCK_MAX_DEPTH * 24)
size_t st_clock_flatten(const st_clock_t *c, void *buf, size_t cap);
int st_clock_unflatten(const void *buf, size_t len, st_clock_t *c);

/* The timer map (timer.h) equivalent to lm (a model over the local clock). */
st_timer_map_t st_clock_lm_to_map(const st_clock_lm_t *lm, uint32_t epoch);

/* ---- fitting ----------------------------------------------------------------------- */

/*
 * Weighted least-squares fit of y = a + b·(x - t0) over n points, t0 = x[n-1] (the
 * model is most used right after the last point); w may be NULL (all 1), else w[i] > 0
 * (SKaMPI fit points: 1 / width² of their bounds, so a burst that never got a quick
 * round trip hardly counts). n == 1 gives b = 0. Returns 0, or -1 when n == 0 or all x
 * are equal with n > 1 (then b = 0, a = weighted mean y). *slope_se, if not NULL,
 * receives the standard error of b (0 when n < 3).
 */
int st_clock_fit(const int64_t *x, const double *y, const double *w, size_t n, st_clock_lm_t *out,
                 double *slope_se);

/* One ping-pong as the client saw it: its send time, the reference's answer, its receive time. */
typedef struct st_clock_pp {
    int64_t s_last, t, s_now;
} st_clock_pp_t;

/*
 * Band fit over raw SKaMPI ping-pongs: the reference answered between the client's
 * s_last and s_now, so for the true model m: m(s_last) <= t <= m(s_now) — two linear
 * constraints on (a, b) per ping-pong, exact whatever the drift and the delays.
 * Returns the line that satisfies all of them with the largest margin (the centre of
 * the feasible set; if noise left none, the line violating them least), t0 = t0.
 * Preempted, slow ping-pongs constrain nothing, where least squares over burst
 * midpoints still pulls on them. With slope == 0 the slope is fixed at 0 (one burst
 * cannot tell drift). n >= 1.
 */
void st_clock_fit_band(const st_clock_pp_t *pp, size_t n, int64_t t0, int slope, st_clock_lm_t *out);

/*
 * How well the ping-pongs pin the drift down: the width of the interval of slopes
 * whose band-fit margin is within tol_ns of the best one (found at slope b). A few ppm
 * when the bursts are good and spread over the window; up to the whole search range
 * (2e-3) when only one burst was quick. n >= 1.
 */
double st_clock_band_slope_range(const st_clock_pp_t *pp, size_t n, int64_t t0, double b, double tol_ns);

/*
 * SKaMPI-Offset of one burst (paper Alg. 7) with the drift b of the client's clock
 * against the reference's taken into account: every ping-pong's bounds are moved to
 * the end of the burst (x = pp[n-1].s_now) before they are intersected. b = 0 is the
 * paper's version. Fills *lo, *hi and returns the estimate: the midpoint, or the
 * midpoint of the quickest ping-pong if the bounds do not intersect. n >= 1.
 */
double st_clock_burst_offset(const st_clock_pp_t *pp, size_t n, double b, double *lo, double *hi);

/* ---- one fit point: Mean-RTT-Offset (docs/clock-sync.md) ----------------------------- */

/*
 * Mean-RTT-Offset (Jones & Koenig) picks the median of the per-ping-pong offsets
 * o_k = t_k - (s_now_k - rtt/2) together with its timestamp: the index of the (lower)
 * median of v[0..n), n > 0; v is not modified. n <= 4096.
 */
size_t st_clock_median_index(const double *v, size_t n);

/* ---- sync epochs, sync points, re-mapping (docs/clock-sync.md, "Sync points and drift") */

enum st_clock_epoch_kind { ST_EPOCH_LOCAL, ST_EPOCH_INIT, ST_EPOCH_RESYNC, ST_EPOCH_FINAL };

/*
 * One published map. Epoch ids are 1-based indices into a rank's epoch table
 * (table[0] is the local clock used before the initial sync); event epoch 0 means
 * "not recorded" and is inferred from the time. The sync point of an epoch is
 * (local, global): the best estimate of G at local time `local`, measured by that
 * sync; map passes through it.
 */
typedef struct st_clock_epoch {
    uint16_t      kind;       /* st_clock_epoch_kind */
    uint16_t      measured;   /* 0: the sync could not measure well; map is the previous one (no sync point) */
    int64_t       local;      /* L of the sync point: where the clock was measured, at or before publishing */
    int64_t       global;     /* G at that moment according to the new map */
    st_clock_lm_t map;        /* the map over the local clock */
    double        jump_ns;    /* new map minus previous map when published (online error of the previous epoch) */
    int64_t       rtt_min_ns; /* smallest ping-pong round trip this rank saw in this sync, -1 none */
    int64_t       cost_ns;    /* wall time this rank spent in the sync */
    double        err_ns;     /* bound of the sync point's error against rank 0's clock from the exact SKaMPI
                                 bounds along the sync tree; -1 unknown (a learned model, an old archive) */
} st_clock_epoch_t;

/*
 * The anchor rule used when a sync publishes a map: the new map passes through the
 * fresh sync point (L, G = fresh(L)); its slope is taken from the line through the
 * previous measured sync point when that lies at least min_base_ns before (long
 * baselines estimate drift far better than the short window of one sync), else from
 * fresh. ep[0..n) is the rank's epoch table so far (may be empty).
 */
st_clock_lm_t st_clock_anchor(const st_clock_lm_t *fresh, int64_t L, const st_clock_epoch_t *ep, size_t n,
                              double min_base_ns);

/*
 * Piecewise-linear global time through the measured sync points of epochs 1..n-1
 * (table as above), extrapolated before the first point along the line to a measured
 * point 0.2-10 s later (the first sync's map when there is none) and with the last map
 * after the last.
 */
int64_t st_clock_interp(const st_clock_epoch_t *ep, size_t n, int64_t local);

/*
 * Re-maps one location's events (in record order) at finalize: each event's local
 * time is recovered from the map it was stamped with (its epoch field, or inferred
 * from the time when 0), then mapped again: with interpolate, through
 * st_clock_interp(); without, with its own epoch's map, except that events stamped
 * before the initial sync (epoch 1) are extrapolated back from its point as
 * st_clock_interp() does. Per-location time is
 * kept non-decreasing. n_ep >= 1; with n_ep == 1 (no sync) nothing changes.
 * Returns the largest |change| in ns (statistics).
 */
double st_clock_remap(const st_clock_epoch_t *ep, size_t n_ep, st_event_t *ev, size_t n, int interpolate);

/*
 * Quality estimates of a rank's epoch table, for the report: the largest |jump| of a
 * resync or final sync (how far the online clock had drifted: the error of
 * extrapolating each map), and the largest leave-one-out error of interpolation
 * (sync point k predicted from k-1 and k+1: interpolation over twice the spacing).
 * 0 when there are too few sync points.
 */
double st_clock_max_jump(const st_clock_epoch_t *ep, size_t n);
double st_clock_interp_loo(const st_clock_epoch_t *ep, size_t n);

/*
 * An epoch as text for the archive properties ("sync.epoch.N") and back, so that
 * `synctrace recover` can re-map the events of a run that never reached finalize:
 * "KIND[ unmeasured] local=L global=G b=B jump_ns=J rtt_ns=R cost_us=C err_ns=E" with B in
 * full precision (E -1: unknown; texts without it, from older archives, parse with E unknown). st_clock_epoch_parse returns 0, or -1 if value is not such a text.
 */
void st_clock_epoch_format(const st_clock_epoch_t *e, char *buf, size_t len);
int st_clock_epoch_parse(const char *value, st_clock_epoch_t *e);

/* Epoch id of an event (0: unknown). The event field is proposed as `epoch`. */
#define ST_EVENT_EPOCH(e) ((e)->epoch)

#endif
