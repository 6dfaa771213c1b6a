/*
 * check.c — the metric tree's invariants on a result (check.h). Every value is a sum of whole
 * timer ticks (exact in a double), so the tolerance is half a tick plus a relative 1e-9 for sums
 * of many values (delay costs are fractions of ticks: their sums are compared with the same).
 */
#include "check.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../model/region.h"
#include "../util/log.h"
#include "output.h"
#include "rootcause.h"

typedef struct chk {
    const st_an_result_t *r;
    double                sc; /* seconds per tick */
    size_t                bad;
    char                 *msg;
    size_t                n;
} chk_t;

/* a exceeds b by more than the rounding of sums of ticks. */
static int above(double a, double b) { return a - b > 0.5 + 1e-9 * (fabs(a) + fabs(b)); }

/* Counts a violation of metric m; the first one's line goes to msg (the path of cnode k unless k is
 * ST_AN_NO_CNODE; location l unless UINT32_MAX; what: more than the metric's name, or NULL). */
static void violation(chk_t *c, int m, const char *what, uint32_t k, uint32_t l, double a, const char *rel, double b)
{
    if (c->bad++ || !c->n)
        return;
    char *path = NULL; /* whole: a path of long C++ names runs to kilobytes */
    size_t plen = 0;
    FILE *f = k != ST_AN_NO_CNODE ? open_memstream(&path, &plen) : NULL;
    if (f) {
        st_an_print_cnode_path(f, c->r, k);
        fclose(f);
    }
    const st_an_metric_def_t *d = st_an_metric(m);
    char where[64] = "all locations";
    if (l != UINT32_MAX)
        snprintf(where, sizeof where, "rank %" PRId32 " thread %" PRIu32, c->r->locs[l].rank, c->r->locs[l].thread);
    snprintf(c->msg, c->n, "%s [%s]%s at %s on %s: %.9f s %s %.9f s", d->disp, d->uniq, what ? what : "",
             path ? path : "all call paths", where, a * c->sc, rel, b * c->sc);
    free(path);
}

/* Invariant 1: Time over all call paths adds up to each location's span. */
static void check_span(chk_t *c)
{
    const st_an_result_t *r = c->r;
    for (uint32_t l = 0; l < r->nlocs; l++) {
        double sum = 0, span = (double)r->span[l];
        for (uint32_t k = 0; k < r->ncnodes; k++)
            sum += *st_an_sev(r, ST_AN_M_TIME, k, l);
        if (above(sum, span) || above(span, sum))
            violation(c, ST_AN_M_TIME, NULL, ST_AN_NO_CNODE, l, sum, "!= the location's span", span);
    }
}

/* Invariant 2: no value is negative, and a metric holds its children, at every (call path, location). */
static void check_parents(chk_t *c)
{
    const st_an_result_t *r = c->r;
    double kids[ST_AN__METRICS];
    for (uint32_t k = 0; k < r->ncnodes; k++)
        for (uint32_t l = 0; l < r->nlocs; l++) {
            for (int m = 0; m < ST_AN__METRICS; m++)
                kids[m] = 0;
            for (int m = 0; m < ST_AN__METRICS; m++) {
                double v = *st_an_sev(r, m, k, l);
                if (above(0, v))
                    violation(c, m, NULL, k, l, v, "< minimum", 0);
                if (st_an_metric(m)->parent != ST_AN_M_ROOT)
                    kids[st_an_metric(m)->parent] += v;
            }
            for (int m = 0; m < ST_AN__METRICS; m++)
                if (above(kids[m], *st_an_sev(r, m, k, l)))
                    violation(c, m, NULL, k, l, *st_an_sev(r, m, k, l), "< the sum of its children", kids[m]);
        }
}

/* Invariant 3: a thread idles at most while its master is outside parallel regions. */
static void check_idle(chk_t *c)
{
    const st_an_result_t *r = c->r;
    uint8_t *inpar = calloc(r->ncnodes + 1, 1);
    if (!inpar)
        return; /* the other invariants still checked */
    for (uint32_t k = 1; k < r->ncnodes; k++) /* a parent precedes its children */
        inpar[k] = r->cnodes[k].region == ST_REGION_OMP_PARALLEL || inpar[r->cnodes[k].parent];
    for (uint32_t l = 0; l < r->nlocs; l++) {
        uint32_t m = UINT32_MAX;
        for (uint32_t j = 0; j < r->nlocs && m == UINT32_MAX; j++)
            if (r->locs[j].rank == r->locs[l].rank && r->locs[j].thread == 0)
                m = j;
        double idle = 0, outside = 0;
        for (uint32_t k = 0; k < r->ncnodes; k++) {
            idle += *st_an_sev(r, ST_AN_M_OMP_IDLE, k, l) - *st_an_sev(r, ST_AN_M_OMP_LIMITED, k, l);
            outside += m != UINT32_MAX && !inpar[k] ? *st_an_sev(r, ST_AN_M_TIME, k, m) : 0;
        }
        if (above(idle, outside))
            violation(c, ST_AN_M_OMP_IDLE, " less Limited parallelism", ST_AN_NO_CNODE, l, idle,
                      "> its master's Time outside parallel regions", outside);
    }
    free(inpar);
}

/* Invariant 4: the critical path adds up to the run's length (its first to last event). The length is
 * that of the path's hops (res->causes), which follow each other without gap from the end back to the
 * start; no location's span exceeds it. Without the hops (a replay asked for no causes) the length is
 * unknown: then only no span may exceed the path's sum. */
static void check_cpath(chk_t *c)
{
    const st_an_result_t *r = c->r;
    const st_rc_causes_t *cz = r->causes;
    double sum = 0;
    for (uint32_t k = 0; k < r->ncnodes; k++)
        for (uint32_t l = 0; l < r->nlocs; l++)
            sum += *st_an_sev(r, ST_AN_M_CRITICAL_PATH, k, l);
    int hops = cz && cz->npath;
    if (!hops && sum == 0)
        return;
    double len = sum;
    if (hops) {
        for (size_t i = 0; i < cz->npath; i++) {
            const struct st_rc_hop *h = &cz->path[i];
            if (h->loc >= r->nlocs || h->t0 >= h->t1)
                violation(c, ST_AN_M_CRITICAL_PATH, "'s hop (empty or on no location)", ST_AN_NO_CNODE, UINT32_MAX,
                          (double)h->t0, "from", (double)h->t1);
            else if (i + 1 < cz->npath && cz->path[i + 1].t1 != h->t0)
                violation(c, ST_AN_M_CRITICAL_PATH, "'s hops (a gap or an overlap)", ST_AN_NO_CNODE, h->loc,
                          (double)cz->path[i + 1].t1, "!= the start of the later hop", (double)h->t0);
        }
        len = (double)(cz->path[0].t1 - cz->path[cz->npath - 1].t0);
        if (above(sum, len) || above(len, sum))
            violation(c, ST_AN_M_CRITICAL_PATH, NULL, ST_AN_NO_CNODE, UINT32_MAX, sum,
                      "!= the run's length (first to last event)", len);
    }
    for (uint32_t l = 0; r->span && l < r->nlocs; l++)
        if (above((double)r->span[l], len))
            violation(c, ST_AN_M_CRITICAL_PATH, hops ? "'s length" : " (the run's length)", ST_AN_NO_CNODE, l, len,
                      "< the location's span", (double)r->span[l]);
}

/* Invariant 5: once the root causes are computed, the performance impact shares out the locations' Time
 * (their activities on and off the critical path and their waiting): its total is the sum of their spans. */
static void check_impact(chk_t *c)
{
    const st_an_result_t *r = c->r;
    double impact = st_an_total(r, ST_AN_M_PERF_IMPACT), time = 0;
    for (uint32_t l = 0; l < r->nlocs; l++)
        time += (double)r->span[l];
    if (impact > 0 && (above(impact, time) || above(time, impact)))
        violation(c, ST_AN_M_PERF_IMPACT, NULL, ST_AN_NO_CNODE, UINT32_MAX, impact, "!= Time of all locations", time);
}

size_t st_an_check_tree(const st_an_result_t *r, uint64_t resolution, char *msg, size_t n)
{
    chk_t c = { r, resolution ? 1.0 / (double)resolution : 1.0, 0, msg, n };
    if (n)
        msg[0] = 0;
    if (r->span) {
        check_span(&c);
        check_impact(&c);
    }
    check_parents(&c);
    check_idle(&c);
    check_cpath(&c);
    return c.bad;
}

size_t st_an_check_report(const st_an_result_t *r, uint64_t resolution, uint64_t events_lost)
{
    char msg[1024];
    size_t bad = st_an_check_tree(r, resolution, msg, sizeof msg);
    if (bad && events_lost) {
        st_log_warn("analysis: with events lost (the archive is incomplete), the metric tree does not hold (%zu "
                    "violation%s, the first: %s); the values cover the events kept", bad, bad == 1 ? "" : "s", msg);
        return 0;
    }
    if (bad)
        st_log_error("analysis: the metric tree does not hold (%zu violation%s, the first: %s)", bad,
                     bad == 1 ? "" : "s", msg);
    return bad;
}
