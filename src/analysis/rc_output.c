/*
 * rc_output.c — `synctrace report DIR --causes` (output.h: st_an_print_causes): the largest wait
 * states with the delays that caused them and how much of their waiting propagated, then the
 * critical path in brief. The wait states come from output.c (st_an_wstates), so the text shows
 * what analysis.json's "causes" holds.
 */
#include "output.h"

#include <inttypes.h>
#include <stdlib.h>

#include "rootcause.h"

/* Largest waiting first; equal ones by metric, then call path (a total order: deterministic). */
static int cmp_wait(const void *a, const void *b)
{
    const st_an_wstate_t *x = *(const st_an_wstate_t *const *)a, *y = *(const st_an_wstate_t *const *)b;
    if (x->wait != y->wait)
        return x->wait > y->wait ? -1 : 1;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    return (x->cnode > y->cnode) - (x->cnode < y->cnode);
}

static void print_wstate(FILE *f, const st_an_result_t *r, const st_an_wstates_t *ws, const st_an_wstate_t *w,
                         unsigned rank, double sc, unsigned top)
{
    const st_an_metric_def_t *d = st_an_metric(w->metric);
    fprintf(f, "%u. %s [%s] at ", rank, d->disp, d->uniq);
    st_an_print_cnode_path(f, r, w->cnode);
    fprintf(f, ": %.6f s waiting, %.6f s (%.1f%%) of it propagated (made others wait)", w->wait * sc,
            w->propagating * sc, w->wait > 0 ? 100.0 * w->propagating / w->wait : 0.0);
    double charged = st_an_wstate_charged(r, ws, w);
    if (w->n)
        fprintf(f, ", %.6f s (%.1f%%) charged to the delays below", charged * sc,
                w->wait > 0 ? 100.0 * charged / w->wait : 0.0);
    fputc('\n', f);
    if (w->n && st_an_wstate_mostly_uncharged(w, charged))
        fprintf(f, "     (the rest had no excess time of a delayer in its delay interval: e.g. a worker thread that "
                   "started late after a fork, a delayer already late when the interval began)\n");
    if (!w->n) {
        fprintf(f, "     no delay found (the waiting began with no excess time of its delayer)\n");
        return;
    }
    fprintf(f, "     %12s %12s %12s %6s %6s  %s\n", "delay [s]", "short-term", "long-term", "rank", "thread",
            "call path of the delay");
    double rest = 0;
    size_t more = 0;
    for (size_t j = 0; j < w->n; j++) {
        const st_rc_cause_t *x = &r->causes->v[ws->cause[w->first + j]];
        if (j >= top) {
            rest += x->short_ticks + x->long_ticks, more++;
            continue;
        }
        const st_an_loc_t *L = x->delay_loc < r->nlocs ? &r->locs[x->delay_loc] : &(st_an_loc_t){ -1, 0 };
        fprintf(f, "     %12.6f %12.6f %12.6f %6" PRId32 " %6" PRIu32 "  ", (x->short_ticks + x->long_ticks) * sc,
                x->short_ticks * sc, x->long_ticks * sc, L->rank, L->thread);
        st_an_print_cnode_path(f, r, x->delay_cnode);
        fputc('\n', f);
    }
    if (more)
        fprintf(f, "     %12.6f  in %zu more delay%s (--top N shows more)\n", rest * sc, more, more == 1 ? "" : "s");
}

/* The critical path: its length, hops and locations, and the call paths that take most of it. */
static int print_path(FILE *f, const st_an_result_t *r, double sc, unsigned top)
{
    const st_rc_causes_t *c = r->causes;
    if (!c->npath) {
        fprintf(f, "critical path: none (no events)\n");
        return 0;
    }
    double *on = calloc((size_t)r->ncnodes + 1, sizeof *on);
    unsigned char *seen = calloc((size_t)r->nlocs + 1, 1);
    if (!on || !seen) {
        free(on), free(seen);
        return -1;
    }
    size_t nlocs = 0;
    for (size_t i = 0; i < c->npath; i++)
        if (c->path[i].loc < r->nlocs && !seen[c->path[i].loc]++)
            nlocs++;
    for (uint32_t k = 0; k < r->ncnodes; k++)
        for (uint32_t l = 0; l < r->nlocs; l++)
            on[k] += *st_an_sev(r, ST_AN_M_CRITICAL_PATH, k, l);
    double len = st_an_total(r, ST_AN_M_CRITICAL_PATH);
    fprintf(f, "critical path: %.6f s (the run from its first to its last event), %zu hop%s over %zu location%s; "
               "the call paths on it most (--metric critical_path for more):\n",
            len * sc, c->npath, c->npath == 1 ? "" : "s", nlocs, nlocs == 1 ? "" : "s");
    for (unsigned i = 0; i < top; i++) { /* selection of the largest: top is small */
        uint32_t best = UINT32_MAX;
        for (uint32_t k = 0; k < r->ncnodes; k++)
            if (on[k] > 0 && (best == UINT32_MAX || on[k] > on[best]))
                best = k;
        if (best == UINT32_MAX)
            break;
        fprintf(f, "     %12.6f s %6.2f%%  ", on[best] * sc, len > 0 ? 100.0 * on[best] / len : 0.0);
        st_an_print_cnode_path(f, r, best);
        fputc('\n', f);
        on[best] = 0;
    }
    free(on), free(seen);
    return 0;
}

int st_an_print_causes(FILE *f, const st_an_result_t *r, uint64_t resolution, int m, unsigned top)
{
    if (!r->causes) {
        fprintf(f, "no root causes: the root-cause analysis did not run (SYNCTRACE_ROOTCAUSE=off)\n");
        return 0;
    }
    double sc = 1.0 / (double)(resolution ? resolution : 1);
    st_an_wstates_t ws;
    if (st_an_wstates(r, &ws))
        return -1;
    const st_an_wstate_t **by = malloc(sizeof *by * (ws.n + 1));
    if (!by) {
        st_an_wstates_free(&ws);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < ws.n; i++)
        if ((m < 0 || ws.v[i].metric == m) && ws.v[i].wait > 0)
            by[n++] = &ws.v[i];
    qsort(by, n, sizeof *by, cmp_wait);
    if (!n)
        fprintf(f, "no wait states%s%s with causes\n", m >= 0 ? " of " : "", m >= 0 ? st_an_metric(m)->uniq : "");
    size_t shown = n < top ? n : top;
    if (shown)
        fprintf(f, "the %s%zu wait state%s%s%s (metric at a call path) and the delays that caused them\n"
                   "(delay = short-term, excess time that made them wait, + long-term, through the waits it caused):\n",
                shown < n ? "largest " : "", shown, shown == 1 ? "" : "s", m >= 0 ? " of " : "",
                m >= 0 ? st_an_metric(m)->uniq : "");
    for (size_t i = 0; i < shown; i++)
        print_wstate(f, r, &ws, by[i], (unsigned)i + 1, sc, top);
    free(by);
    st_an_wstates_free(&ws);
    return m < 0 ? print_path(f, r, sc, top < 5 ? top : 5) : 0;
}
