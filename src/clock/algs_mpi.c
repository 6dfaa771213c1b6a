/*
 * algs_mpi.c — the synchronization algorithms and their descriptor table.
 *
 * Each algorithm synchronizes one group (level) whose member 0 already has the
 * global clock (docs/clock-sync.md, "Algorithms" and "Levels and nodes"; paper Alg. 1-4):
 *   hca3  binomial tree, O(log p) rounds; a client learns against its reference's
 *         *global* clock, so the root's time is pushed down the tree (default);
 *   hca2  inverted binomial tree: models learned towards the root between the
 *         members' input clocks, composed there and sent back (baseline);
 *   jk    every member learns directly against the root, one after another (baseline);
 *   prop  ClockPropSync: members share the root's time source and adopt its clock
 *         (flattened chain); checked first, falls back to hca3 when not shared.
 * Adding an algorithm is one descriptor here and one line in st_sync_algs[].
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"
#include "sync_int.h"
#include "timer.h"

#define G(lv, i) ((lv)->grp.ranks[i])
/* The initial fit's drift (30 ms of ping-pongs) is not known better than this: what a clock still running on
 * it is off by at the least, per ns since its sync point (offset_step). */
#define FIT_DRIFT 1e-6

/* An error bound for the wire: ns, clipped to int32, -1 unknown. */
static int32_t err_to_wire(double err_ns)
{
    return err_ns < 0 || !isfinite(err_ns) ? -1 : err_ns > INT32_MAX ? INT32_MAX : (int32_t)lround(err_ns);
}

/* ==== binomial push-down (HCA3 pairing, also the cheap resync of hca2/hca3) ============= */

/*
 * Visits the pairs of paper Alg. 1 in order: step(lv, clk, ref_index, client_index).
 * A member is a client exactly once and a reference afterwards, so a reference always
 * times with the clock it has just learned.
 */
typedef int (*pair_fn)(st_sync_level_t *lv, st_clock_t *clk, int ref, int client);

static int binomial(st_sync_level_t *lv, st_clock_t *clk, pair_fn step)
{
    int p = lv->grp.size, r = lv->grp.me, nrounds = 0;
    while ((2 << nrounds) <= p)
        nrounds++;
    int P = 1 << nrounds;
    for (int i = nrounds; i >= 1; i--) {
        int run = 1 << i, half = 1 << (i - 1);
        if (r >= P)
            break;
        if (r % run == 0) {
            if (step(lv, clk, r, r + half) != 0)
                return -1;
        } else if (r % run == half) {
            if (step(lv, clk, r - half, r) != 0)
                return -1;
        }
    }
    if (r >= P)
        return step(lv, clk, r - P, r);
    if (r < p - P)
        return step(lv, clk, r, r + P);
    return 0;
}

/* hca3 step: learn a model over the input clock against the reference's global clock. */
static int hca3_step(st_sync_level_t *lv, st_clock_t *clk, int ref, int client)
{
    if (lv->grp.me == ref)
        return st_sync_serve(G(lv, client), clk);
    st_clock_lm_t lm;
    if (st_sync_learn(G(lv, ref), clk, &lv->par, &lm) != 0)
        return -1;
    st_clock_push(clk, &lm);
    st_sync_adopt(clk);
    return 0;
}

static int hca3_run(st_sync_level_t *lv, st_clock_t *clk)
{
    return binomial(lv, clk, hca3_step);
}

/*
 * Cheap resync step: one offset of my current global clock against the reference's
 * (new) one; the anchor rule then takes the drift from the previous sync point. The
 * offset must be measured well, or it would also spoil that drift: if even the
 * repeated bursts of st_sync_measure() stay too wide, this member keeps its clock.
 * So does the client of a reference that kept its clock: measured against that
 * clock (the old map extrapolated), its sync point would look measured but carry the
 * reference's extrapolation error into the interpolation.
 */
static int offset_step(st_sync_level_t *lv, st_clock_t *clk, int ref, int client)
{
    /* [0] the reference was measured in this sync, [1] its error bound in ns (-1 unknown) */
    int32_t ref_state[2] = { st_sync.measured, err_to_wire(st_sync.err_ns) };
    if (lv->grp.me == ref) {
        if (st_sync_send(ref_state, sizeof ref_state, G(lv, client), ST_TAG_MEASURED) != 0)
            return -1;
        return ref_state[0] ? st_sync_serve(G(lv, client), clk) : 0;
    }
    if (st_sync_recv(ref_state, sizeof ref_state, G(lv, ref), ST_TAG_MEASURED) != 0)
        return -1;
    if (!ref_state[0]) {
        st_log_debug("clock sync: rank %d kept its clock; keeping mine", G(lv, ref));
        st_sync_reject();
        return 0;
    }
    st_sync_point_t best;
    /* A clock kept runs on from its last measured sync point. Where its drift is still the initial fit's (no
     * resync was measured: a run without collectives on the world, or whose resyncs all failed), T ns later it
     * is off by FIT_DRIFT x T at the least, by tens of ppm x T under load: 600 us after 30 s on 16 ranks sharing
     * 2 cores, against bounds 11.6 us wide that the quick-burst rule below refused. Bounds narrower than
     * FIT_DRIFT x T are then the better clock, and the drift anchored to them is off by less than FIT_DRIFT. A
     * drift anchored to two sync points (a few 0.01 ppm) keeps the quick-burst rule alone. */
    int64_t since = st_sync_since_fit_only();
    double quick = st_sync_accept_width(G(lv, ref)), accept = fmax(quick, since > 0 ? FIT_DRIFT * (double)since : 0);
    if (st_sync_measure(G(lv, ref), clk, lv->par.npp, lv->par.offset, &best, NULL) != 0 ||
        st_sync_done(G(lv, ref)) != 0)
        return -1;
    /*
     * What the bounds leave open: the true offset lies in [lo, hi] relative to the reference's clock, whose
     * own bound adds. Taking the midpoint leaves half the width; keeping a clock inside the bounds, up to
     * the width.
     */
    double open = st_sync_point_width(&best);
    if (lv->par.offset == ST_OFFSET_SKAMPI && open > quick && open <= accept)
        st_log_debug("clock sync: offset to rank %d within %.0f ns taken: the initial fit's drift ran for %.1f s",
                     G(lv, ref), open, (double)since / 1e9);
    if (lv->par.offset == ST_OFFSET_SKAMPI && !(open <= accept)) {
        st_log_debug("clock sync: offset to rank %d only within %.0f ns; keeping my clock", G(lv, ref), open);
        st_sync_reject();
        return 0;
    }
    double ref_err = ref_state[1] < 0 ? -1 : ref_state[1];
    /* A freshly learned clock that the exact bounds do not contradict is the better estimate. */
    if (st_sync.verify && best.lo <= 0 && best.hi >= 0) {
        st_sync.err_ns = ref_err < 0 || !isfinite(open) ? -1 : ref_err + open;
        return 0;
    }
    /* The sync point where the chosen burst ended (best.when on clk), not now: up to 7 more bursts may have
       followed it. */
    st_clock_lm_t now = st_clock_collapse(clk, (int64_t)st_timer_local());
    int64_t at = st_clock_lm_invert(&now, best.when);
    st_clock_lm_t lm = { best.when, best.off, 0.0 };
    st_clock_push(clk, &lm);
    st_sync_adopt_at(clk, at);
    st_sync.err_ns = ref_err < 0 || !isfinite(open) ? -1 : ref_err + 0.5 * open;
    return 0;
}

static int tree_resync(st_sync_level_t *lv, st_clock_t *clk)
{
    return binomial(lv, clk, offset_step);
}

/* ==== HCA2 ================================================================================ */

typedef struct hca2_entry {
    int32_t       member; /* group index */
    int32_t       pad;
    st_clock_lm_t lm;     /* member's input clock -> holder's input clock */
} hca2_entry_t;

/* Client c hands its list (itself composed with lm, and its subtree) to its reference. */
static int hca2_up(st_sync_level_t *lv, const st_clock_t *clk, int ref, hca2_entry_t *list, int *n)
{
    st_clock_lm_t lm;
    if (st_sync_learn(G(lv, ref), clk, &lv->par, &lm) != 0)
        return -1;
    for (int i = 0; i < *n; i++)
        list[i].lm = st_clock_lm_compose(&lm, &list[i].lm);
    list[*n] = (hca2_entry_t){ lv->grp.me, 0, lm };
    (*n)++;
    int32_t cnt = *n;
    if (st_sync_send(&cnt, sizeof cnt, G(lv, ref), ST_TAG_MODEL) != 0 ||
        st_sync_send(list, (int)(cnt * sizeof *list), G(lv, ref), ST_TAG_MODEL) != 0)
        return -1;
    *n = 0;
    return 0;
}

static int hca2_collect(st_sync_level_t *lv, const st_clock_t *clk, int client, hca2_entry_t *list, int *n)
{
    int32_t cnt = 0;
    if (st_sync_serve(G(lv, client), clk) != 0 || st_sync_recv(&cnt, sizeof cnt, G(lv, client), ST_TAG_MODEL) != 0 ||
        cnt < 0 || cnt + *n > lv->grp.size)
        return -1;
    if (st_sync_recv(list + *n, (int)(cnt * sizeof *list), G(lv, client), ST_TAG_MODEL) != 0)
        return -1;
    *n += cnt;
    return 0;
}

/* Root sends every member its composed model; members apply it over their input clock. */
static int hca2_scatter(st_sync_level_t *lv, st_clock_t *clk, hca2_entry_t *list, int n)
{
    if (lv->grp.me == 0) {
        for (int i = 0; i < n; i++)
            if (st_sync_send(&list[i].lm, sizeof list[i].lm, G(lv, list[i].member), ST_TAG_MODEL) != 0)
                return -1;
        return 0;
    }
    st_clock_lm_t lm;
    if (st_sync_recv(&lm, sizeof lm, G(lv, 0), ST_TAG_MODEL) != 0)
        return -1;
    st_clock_push(clk, &lm);
    st_sync_adopt(clk);
    return 0;
}

static int hca2_run(st_sync_level_t *lv, st_clock_t *clk)
{
    int p = lv->grp.size, r = lv->grp.me, nrounds = 0, n = 0, rc = 0;
    while ((2 << nrounds) <= p)
        nrounds++;
    int P = 1 << nrounds;
    hca2_entry_t *list = calloc((size_t)p, sizeof *list);
    if (!list)
        return -1;
    /* Members beyond the largest power of two first hand their model to r - P. */
    if (r >= P)
        rc = hca2_up(lv, clk, r - P, list, &n);
    else if (r < p - P)
        rc = hca2_collect(lv, clk, r + P, list, &n);
    for (int i = 1; rc == 0 && i <= nrounds && r < P; i++) {
        int run = 1 << i, half = 1 << (i - 1);
        if (r % run == 0)
            rc = hca2_collect(lv, clk, r + half, list, &n);
        else if (r % run == half) {
            rc = hca2_up(lv, clk, r - half, list, &n);
            break; /* handed everything up; wait for the scatter */
        }
    }
    if (rc == 0)
        rc = hca2_scatter(lv, clk, list, n);
    free(list);
    return rc;
}

/* ==== JK ================================================================================== */

/*
 * The root takes the members one by one, each a pair step (the reference side of
 * hca3_step or offset_step); a member waits (sleeping politely) for its turn.
 */
static int star(st_sync_level_t *lv, st_clock_t *clk, pair_fn step)
{
    int go = 1;
    if (lv->grp.me == 0) {
        for (int i = 1; i < lv->grp.size; i++)
            if (st_sync_send(&go, sizeof go, G(lv, i), ST_TAG_GO) != 0 || step(lv, clk, 0, i) != 0)
                return -1;
        return 0;
    }
    if (st_sync_recv(&go, sizeof go, G(lv, 0), ST_TAG_GO) != 0)
        return -1;
    return step(lv, clk, 0, lv->grp.me);
}

static int jk_run(st_sync_level_t *lv, st_clock_t *clk)
{
    return star(lv, clk, hca3_step); /* learn against the root's global clock */
}

static int jk_resync(st_sync_level_t *lv, st_clock_t *clk)
{
    return star(lv, clk, offset_step);
}

/* ==== ClockPropSync ========================================================================== */

extern const st_sync_alg_t st_sync_hca3;

/*
 * Is the root's raw local clock also mine? With one time source the root's time t lies
 * between my send and receive times, i.e. 0 is inside the SKaMPI bounds; a separate
 * clock is off by far more than the bound width. Collective over the group.
 */
static int shared_time_source(st_sync_level_t *lv)
{
    st_clock_t raw;
    st_clock_identity(&raw);
    int32_t ok = 1, all = 1;
    if (lv->grp.me == 0) {
        int go = 1;
        for (int i = 1; i < lv->grp.size; i++) {
            if (st_sync_send(&go, sizeof go, G(lv, i), ST_TAG_GO) != 0 || st_sync_serve(G(lv, i), &raw) != 0 ||
                st_sync_recv(&ok, sizeof ok, G(lv, i), ST_TAG_FLAG) != 0)
                return -1;
            all &= ok;
        }
        for (int i = 1; i < lv->grp.size; i++)
            if (st_sync_send(&all, sizeof all, G(lv, i), ST_TAG_FLAG) != 0)
                return -1;
        return all;
    }
    int go;
    st_sync_point_t pt;
    const double tol = 50; /* ns: timestamp granularity */
    if (st_sync_recv(&go, sizeof go, G(lv, 0), ST_TAG_GO) != 0 ||
        st_sync_measure(G(lv, 0), &raw, lv->par.npp, ST_OFFSET_SKAMPI, &pt, NULL) != 0 || st_sync_done(G(lv, 0)) != 0)
        return -1;
    ok = pt.lo <= tol && pt.hi >= -tol;
    if (!ok)
        st_log_debug("clock sync: my clock is %.0f ns off the clock of rank %d (bounds %.0f..%.0f)", pt.off,
                     G(lv, 0), pt.lo, pt.hi);
    if (st_sync_send(&ok, sizeof ok, G(lv, 0), ST_TAG_FLAG) != 0 || st_sync_recv(&all, sizeof all, G(lv, 0), ST_TAG_FLAG) != 0)
        return -1;
    return all;
}

/*
 * The root ships its whole clock (flattened chain) and whether it was measured in this
 * sync; members adopt it unchanged, and share the root's verdict (a root that kept its
 * clock ships the clock they copied last time).
 */
static int prop_copy(st_sync_level_t *lv, st_clock_t *clk)
{
    unsigned char buf[ST_CLOCK_FLAT_MAX];
    if (lv->grp.me == 0) {
        int32_t hdr[3] = { (int32_t)st_clock_flatten(clk, buf, sizeof buf), st_sync.measured,
                           err_to_wire(st_sync.err_ns) };
        for (int i = 1; i < lv->grp.size; i++)
            if (st_sync_send(hdr, sizeof hdr, G(lv, i), ST_TAG_MODEL) != 0 ||
                st_sync_send(buf, hdr[0], G(lv, i), ST_TAG_MODEL) != 0)
                return -1;
        return 0;
    }
    int32_t hdr[3] = { 0, 0, -1 }, len;
    if (st_sync_recv(hdr, sizeof hdr, G(lv, 0), ST_TAG_MODEL) != 0 || (len = hdr[0]) < 0 ||
        len > (int32_t)sizeof buf || st_sync_recv(buf, len, G(lv, 0), ST_TAG_MODEL) != 0)
        return -1;
    if (!hdr[1])
        st_sync_reject();
    st_sync.err_ns = hdr[2]; /* the same clock on the same time source */
    if (st_clock_unflatten(buf, (size_t)len, clk) != 0) {
        st_log_warn("clock sync: malformed clock model from rank %d; keeping my own", G(lv, 0));
        return -1;
    }
    return 0;
}

static int prop_run(st_sync_level_t *lv, st_clock_t *clk)
{
    if (lv->par.check && !lv->fallback) {
        int shared = shared_time_source(lv);
        if (shared < 0)
            return -1;
        if (!shared) {
            lv->fallback = 1;
            if (lv->grp.me == 0)
                st_log_warn("clock sync: ranks %d..%d do not share a time source; level %d uses hca3 instead of prop",
                            G(lv, 0), G(lv, lv->grp.size - 1), lv->index + 1);
        }
    }
    if (lv->fallback) {
        /* Parameters of prop do not fit a learning algorithm: use hca3's defaults. */
        lv->par = st_sync_hca3.defaults;
        return st_sync_hca3.run(lv, clk);
    }
    return prop_copy(lv, clk);
}

static int prop_resync(st_sync_level_t *lv, st_clock_t *clk)
{
    return lv->fallback ? st_sync_hca3.resync(lv, clk) : prop_copy(lv, clk);
}

/* ==== the table ================================================================================ */

/* Defaults: fit points, ping-pongs per fit point, offset alg, recompute intercept, check, window. */
const st_sync_alg_t st_sync_hca3 = {
    "hca3", "fit,pp,offset,intercept,window,lsq", "HCA3: binomial tree pushing the root's time down (paper Alg. 1)",
    { 12, 16, ST_OFFSET_SKAMPI, 0, 0, 0, 30e6 }, hca3_run, tree_resync,
};
static const st_sync_alg_t hca2 = {
    "hca2", "fit,pp,offset,intercept,window,lsq", "HCA2: models learned up an inverted binomial tree, merged, sent back",
    { 12, 16, ST_OFFSET_SKAMPI, 0, 0, 0, 30e6 }, hca2_run, tree_resync,
};
static const st_sync_alg_t jk = {
    "jk", "fit,pp,offset,intercept,window,lsq", "JK: every member learns against the root in turn (O(p))",
    { 12, 16, ST_OFFSET_SKAMPI, 0, 0, 0, 30e6 }, jk_run, jk_resync,
};
static const st_sync_alg_t prop = {
    "prop", "pp,check", "ClockPropSync: members adopt the root's clock (shared time source, checked)",
    { 0, 8, ST_OFFSET_SKAMPI, 0, 1, 0, 0 }, prop_run, prop_resync,
};

const st_sync_alg_t *const st_sync_algs[] = { &st_sync_hca3, &hca2, &jk, &prop, NULL };

const st_sync_alg_t *st_sync_alg_find(const char *name)
{
    for (const st_sync_alg_t *const *a = st_sync_algs; *a; a++)
        if (!strcmp((*a)->name, name))
            return *a;
    return NULL;
}
