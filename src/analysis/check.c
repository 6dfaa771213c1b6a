/*
 * check.c — the metric tree's invariants on a result (check.h). Every value is a sum of whole
 * timer ticks (exact in a double), so the tolerance is half a tick plus a relative 1e-9 for sums
 * of many values.
 */
#include "check.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../model/region.h"
#include "../util/log.h"
#include "output.h"

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
 * ST_AN_NO_CNODE; what: more than the metric's name, or NULL). */
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
    snprintf(c->msg, c->n, "%s [%s]%s at %s on rank %" PRId32 " thread %" PRIu32 ": %.9f s %s %.9f s", d->disp,
             d->uniq, what ? what : "", path ? path : "all call paths", c->r->locs[l].rank, c->r->locs[l].thread,
             a * c->sc, rel, b * c->sc);
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

size_t st_an_check_tree(const st_an_result_t *r, uint64_t resolution, char *msg, size_t n)
{
    chk_t c = { r, resolution ? 1.0 / (double)resolution : 1.0, 0, msg, n };
    if (n)
        msg[0] = 0;
    if (r->span)
        check_span(&c);
    check_parents(&c);
    check_idle(&c);
    return c.bad;
}

size_t st_an_check_report(const st_an_result_t *r, uint64_t resolution)
{
    char msg[1024];
    size_t bad = st_an_check_tree(r, resolution, msg, sizeof msg);
    if (bad)
        st_log_error("analysis: the metric tree does not hold (%zu violation%s, the first: %s)", bad,
                     bad == 1 ? "" : "s", msg);
    return bad;
}
