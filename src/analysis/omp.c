/*
 * omp.c — the OpenMP metrics (docs/analysis.md, "Metric tree" and "Metrics"), from the graph's OpenMP
 * instances (relations/derive.c: fork -> team begins, team ends -> join, the k-th barrier of a team,
 * lock release -> next acquisition); nothing is derived here a second time.
 *
 *  - OpenMP time by region: barriers, critical, lock API, ordered, taskwait constructs.
 *  - Management / Fork: on each team thread fork = E(parallel) - t(FORK) and join =
 *    t(JOIN) - L(parallel), at the thread's parallel cnode, and moved into its Time there
 *    (on the master the two intervals were time of the parallel region's parent). Calls of the
 *    master inside the two intervals (buffer flushes) are their own time, not the intervals':
 *    left out on the master and, in an outermost team, on every other thread (idle meanwhile).
 *  - Wait at Barrier: min(latest team ENTER, own LEAVE) - own ENTER - the time of tasks
 *    run inside the barrier (its callees), explicit / implicit.
 *  - Lock Contention: t(release of the previous holder) - E(acquiring call), critical or API.
 *  - Idle threads (threads that were in a team; thread 0 is the master): a worker thread
 *    outside parallel regions gets the master's exclusive
 *    Time there (as Time and as idle time; its own time outside teams is dropped), and a
 *    thread of the process that is not in the team of an outermost parallel region gets
 *    the region's duration (fork to join) at the master's parallel cnode (Limited
 *    parallelism). So every thread's Time adds up to its master's.
 */
#include "internal.h"

#include <stdlib.h>

#include "../model/region.h"
#include "patterns.h"

/* Adds v to metric m and to its ancestors up to OpenMP (m's whole amount is part of each;
 * Execution and Computation above it come from tree.c). */
static void add_up(an_ctx_t *c, int m, uint32_t k, uint32_t l, double v)
{
    for (; m != ST_AN_M_ROOT; m = st_an_metric(m)->parent) {
        *st_an_sev(c->res, m, k, l) += v;
        if (m == ST_AN_M_OMP)
            break;
    }
}

/* The OpenMP time metric of a region (innermost in the metric tree), or -1. */
static int region_metric(uint32_t region)
{
    switch (region) {
    case ST_REGION_OMP_BARRIER:       return ST_AN_M_OMP_EBARRIER;
    case ST_REGION_OMP_IBARRIER:      return ST_AN_M_OMP_IBARRIER;
    case ST_REGION_OMP_CRITICAL:      return ST_AN_M_OMP_CRITICAL;
    case ST_REGION_OMP_SET_LOCK:
    case ST_REGION_OMP_UNSET_LOCK:
    case ST_REGION_OMP_SET_NEST_LOCK:
    case ST_REGION_OMP_UNSET_NEST_LOCK: return ST_AN_M_OMP_LOCK_API;
    case ST_REGION_OMP_ORDERED:       return ST_AN_M_OMP_ORDERED;
    case ST_REGION_OMP_TASKWAIT:
    case ST_REGION_OMP_TASKGROUP:     return ST_AN_M_OMP_TASKWAIT;
    default:                          return -1;
    }
}

static void region_time(an_ctx_t *c)
{
    st_an_result_t *r = c->res;
    for (uint32_t k = 1; k < r->ncnodes; k++) {
        int m = region_metric(r->cnodes[k].region);
        for (uint32_t l = 0; m >= 0 && l < r->nlocs; l++)
            add_up(c, m, k, l, *st_an_sev(r, ST_AN_M_TIME, k, l));
    }
}

static const st_rel_ref_t *ref(const an_ctx_t *c, const st_rel_inst_t *in, uint32_t slot)
{
    return &c->g->refs[in->first + slot];
}

/* The ENTER of the parallel region after a team begin (b) on location l, or AN_NO_EV. */
static uint64_t parallel_enter(const an_ctx_t *c, uint32_t l, uint64_t b)
{
    const st_rel_loc_t *L = &c->in->locs[l];
    for (uint64_t i = b + 1; i < L->n; i++) { /* the scan's arrays first: an ENTER is where call[i] == i */
        if (an_call(c, l, i) == i)
            return an_region(c, l, i) == ST_REGION_OMP_PARALLEL ? i : AN_NO_EV;
        if (L->ev[i].kind == ST_EV_THREAD_TEAM_END)
            break;
    }
    return AN_NO_EV;
}

/* The join ending the team forked by (fork instance) fi: the JOIN instance of the same
 * team, found among the forking location's ports after the fork. AN_NO_EV if none. */
static uint64_t join_of(const an_ctx_t *c, const st_rel_inst_t *fi)
{
    const st_rel_ref_t *f = ref(c, fi, 0);
    const st_rel_graph_t *g = c->g;
    uint64_t lo = g->port_first[f->loc], hi = g->port_first[f->loc + 1];
    while (lo < hi) { /* first port at or after the fork */
        uint64_t mid = lo + (hi - lo) / 2;
        if (g->ports[mid].ev < f->ev)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint64_t p = lo; p < g->port_first[f->loc + 1]; p++) {
        const st_rel_inst_t *ji = &g->inst[g->ports[p].inst];
        if (g->ports[p].role == ST_REL_RECV && st_rel_inst_type(ji) == ST_REL_KEY_OMP_JOIN &&
            ji->key[1] == fi->key[1] && ji->key[2] == fi->key[2])
            return g->ports[p].ev;
    }
    return AN_NO_EV;
}

/* (A thread OpenMP does not know keeps its own time.) */
uint32_t *an_omp_masters(const an_ctx_t *c)
{
    uint32_t n = c->in->nlocs, *m = malloc(sizeof *m * (n + 1));
    uint8_t *team = calloc(n + 1, 1);
    for (uint64_t i = 0; m && team && i < c->g->ninst; i++) {
        const st_rel_inst_t *in = &c->g->inst[i];
        for (uint32_t s = in->nsend; st_rel_inst_type(in) == ST_REL_KEY_OMP_FORK && s < in->nsend + in->nrecv; s++)
            team[ref(c, in, s)->loc] = 1;
    }
    for (uint32_t l = 0; m && team && l < n; l++) {
        m[l] = UINT32_MAX;
        for (uint32_t k = 0; team[l] && k < n; k++)
            if (team[k] && c->in->locs[k].rank == c->in->locs[l].rank && c->in->locs[k].thread == 0)
                m[l] = k;
    }
    if (!team)
        free(m), m = NULL;
    free(team);
    return m;
}

/* A thread's stretch of time [t0, t1): an outermost region's fork to join given to a thread not in its
 * team as limited parallelism (at cnode), or a nested team's fork to join on a thread of that team. */
typedef struct stretch { uint32_t loc, cnode; uint64_t t0, t1; } stretch_t;
typedef struct stretches { stretch_t *v; size_t n, cap; } stretches_t;

static int stretch_push(stretches_t *v, stretch_t x)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 64;
        stretch_t *nv = realloc(v->v, sizeof *nv * cap);
        if (!nv)
            return -1;
        v->v = nv, v->cap = cap;
    }
    v->v[v->n++] = x;
    return 0;
}

static int cmp_stretch(const void *a, const void *b)
{
    const stretch_t *x = a, *y = b;
    if (x->loc != y->loc)
        return x->loc < y->loc ? -1 : 1;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* A thread not in an outermost team may be in a nested team meanwhile (a thread of the pool): its
 * time there is its nested region's (fork to join, team() adds it), not limited parallelism, so
 * the overlap of each nested stretch with its limited ones is taken off them. */
static void limited_less_nested(an_ctx_t *c, stretches_t *limited, stretches_t *nested)
{
    an_sort(limited->v, limited->n, sizeof *limited->v, cmp_stretch);
    an_sort(nested->v, nested->n, sizeof *nested->v, cmp_stretch);
    size_t g = 0;
    for (size_t i = 0; i < nested->n; i++) {
        const stretch_t *b = &nested->v[i];
        while (g < limited->n && (limited->v[g].loc < b->loc ||
                                  (limited->v[g].loc == b->loc && limited->v[g].t1 <= b->t0)))
            g++; /* the limited stretches of a thread do not overlap: outermost regions follow each other */
        for (size_t h = g; h < limited->n && limited->v[h].loc == b->loc && limited->v[h].t0 < b->t1; h++) {
            const stretch_t *x = &limited->v[h];
            uint64_t lo = x->t0 > b->t0 ? x->t0 : b->t0, hi = x->t1 < b->t1 ? x->t1 : b->t1;
            double d = hi > lo ? (double)(hi - lo) : 0;
            *st_an_sev(c->res, ST_AN_M_TIME, x->cnode, x->loc) -= d;
            *st_an_sev(c->res, ST_AN_M_OMP_IDLE, x->cnode, x->loc) -= d;
            *st_an_sev(c->res, ST_AN_M_OMP_LIMITED, x->cnode, x->loc) -= d;
        }
    }
}

/* The time of the calls directly inside the events (from, to) of location l: a master's buffer flushes
 * between its fork and its team begin, or between its team end and its join. */
static uint64_t calls_between(const an_ctx_t *c, uint32_t l, uint64_t from, uint64_t to)
{
    uint64_t sum = 0;
    for (uint64_t i = from + 1; i < to; i++)
        if (an_is_enter(c, l, i)) {
            uint64_t j = an_leave(c, l, i);
            if (j == AN_NO_EV || j >= to)
                break;
            sum += (uint64_t)st_an_diff(an_time(c, l, j), an_time(c, l, i));
            i = j;
        }
    return sum;
}

/* Management and Fork of one parallel region instance; limited parallelism when it is
 * outermost and smaller than its process (inpar: cnode lies in a parallel region), noted in
 * limited; a nested team's stretches in nested. 0, or -1 (memory). */
static int team(an_ctx_t *c, const st_rel_inst_t *fi, const uint32_t *master, const uint8_t *inpar,
                uint8_t *inteam, stretches_t *limited, stretches_t *nested)
{
    st_an_result_t *r = c->res;
    const st_rel_ref_t *f = ref(c, fi, 0);
    uint64_t join = join_of(c, fi);
    int rc = 0;
    if (fi->nsend != 1 || join == AN_NO_EV)
        return 0;
    uint64_t t_fork = an_time(c, f->loc, f->ev), t_join = an_time(c, f->loc, join);
    int outermost = !inpar[an_cnode(c, f->loc, an_call(c, f->loc, f->ev))];
    /* the master's calls in its fork and join intervals (buffer flushes): their time is their own */
    double in_fork = 0, in_join = 0;
    for (uint32_t s = 1; s < fi->nsend + fi->nrecv; s++) {
        const st_rel_ref_t *m = ref(c, fi, s);
        uint64_t e = m->loc == f->loc ? parallel_enter(c, m->loc, m->ev) : AN_NO_EV;
        if (e != AN_NO_EV && an_leave(c, m->loc, e) != AN_NO_EV && an_leave(c, m->loc, e) < join) {
            in_fork = (double)calls_between(c, f->loc, f->ev, e);
            in_join = (double)calls_between(c, f->loc, an_leave(c, m->loc, e), join);
        }
    }
    uint32_t pk = ST_AN_NO_CNODE; /* the forking thread's parallel cnode */
    for (uint32_t s = 1; s < fi->nsend + fi->nrecv; s++) {
        const st_rel_ref_t *m = ref(c, fi, s);
        uint64_t e = parallel_enter(c, m->loc, m->ev);
        if (e == AN_NO_EV)
            continue;
        inteam[m->loc] = 1;
        uint32_t k = an_cnode(c, m->loc, e);
        double fork = (double)st_an_diff(an_time(c, m->loc, e), t_fork);
        double jn = (double)st_an_diff(t_join, an_leave_time(c, m->loc, e));
        /* Not in the intervals: the master's calls there, on the master (they are its callees' time), and on
         * the workers of an outermost team, who are idle meanwhile (idle_outside gives them the master's Time
         * at those calls); a nested team's workers keep the whole intervals (its master's callees are no
         * time of theirs). */
        if (m->loc == f->loc || outermost)
            fork -= in_fork, jn -= in_join;
        fork = fork > 0 ? fork : 0, jn = jn > 0 ? jn : 0;
        add_up(c, ST_AN_M_OMP_FORK, k, m->loc, fork);
        add_up(c, ST_AN_M_OMP_MGMT, k, m->loc, jn);
        an_note(c, ST_AN_M_OMP_MGMT, m->loc, e, fork + jn);
        an_note(c, ST_AN_M_OMP_FORK, m->loc, e, fork);
        *st_an_sev(r, ST_AN_M_TIME, k, m->loc) += fork + jn;
        if (m->loc == f->loc) { /* the master: both intervals were the time of the call around the fork */
            *st_an_sev(r, ST_AN_M_TIME, an_cnode(c, f->loc, an_call(c, f->loc, f->ev)), m->loc) -= fork + jn;
            pk = k;
        }
    }
    if (pk != ST_AN_NO_CNODE && outermost)
        for (uint32_t l = 0; rc == 0 && l < c->in->nlocs; l++)
            if (master[l] != UINT32_MAX && master[l] == master[f->loc] && !inteam[l]) {
                double d = (double)st_an_diff(t_join, t_fork) - in_fork - in_join; /* as a worker's */
                d = d > 0 ? d : 0;
                *st_an_sev(r, ST_AN_M_TIME, pk, l) += d;
                *st_an_sev(r, ST_AN_M_OMP_IDLE, pk, l) += d;
                *st_an_sev(r, ST_AN_M_OMP_LIMITED, pk, l) += d;
                rc = stretch_push(limited, (stretch_t){ l, pk, t_fork, t_join });
            }
    for (uint32_t s = 1; s < fi->nsend + fi->nrecv; s++) {
        uint32_t l = ref(c, fi, s)->loc;
        if (rc == 0 && !outermost && inteam[l] && l != f->loc)
            rc = stretch_push(nested, (stretch_t){ l, 0, t_fork, t_join });
        inteam[l] = 0;
    }
    return rc;
}

/* Time of the calls directly inside call (tasks a thread runs while it waits in a barrier). */
static uint64_t callee_time(const an_ctx_t *c, uint32_t l, uint64_t call)
{
    uint64_t sum = 0, end = an_leave(c, l, call);
    end = end != AN_NO_EV ? end : c->in->locs[l].n;
    for (uint64_t i = call + 1; i < end; i++)
        if (c->in->locs[l].ev[i].kind == ST_EV_ENTER) {
            sum += (uint64_t)st_an_diff(an_leave_time(c, l, i), an_time(c, l, i));
            if (an_leave(c, l, i) == AN_NO_EV)
                break;
            i = an_leave(c, l, i);
        }
    return sum;
}

/* Wait at Barrier of one barrier instance: every thread waits for the last to enter,
 * less the tasks it ran meanwhile (they are its callees' time, not waiting). */
static void barrier(an_ctx_t *c, const st_rel_inst_t *bi)
{
    uint64_t latest = 0;
    for (uint32_t s = 0; s < bi->nsend; s++)
        latest = latest > an_time(c, ref(c, bi, s)->loc, ref(c, bi, s)->ev) ? latest
               : an_time(c, ref(c, bi, s)->loc, ref(c, bi, s)->ev);
    for (uint32_t s = bi->nsend; s < bi->nsend + bi->nrecv; s++) {
        const st_rel_ref_t *m = ref(c, bi, s);
        uint64_t call = an_call(c, m->loc, m->ev), leave = an_time(c, m->loc, m->ev);
        if (call == AN_NO_EV)
            continue;
        int metric = an_region(c, m->loc, call) == ST_REGION_OMP_BARRIER ? ST_AN_M_OMP_EBARRIER_WAIT
                                                                        : ST_AN_M_OMP_IBARRIER_WAIT;
        an_add(c, metric, m->loc, call, (double)st_an_diff(latest < leave ? latest : leave, an_time(c, m->loc, call)) -
                                        (double)callee_time(c, m->loc, call));
    }
}

/* Lock Contention of one acquisition: it waits for the previous holder's release. */
static void lock(an_ctx_t *c, const st_rel_inst_t *li)
{
    if (li->nsend != 1 || li->nrecv != 1)
        return;
    const st_rel_ref_t *rel = ref(c, li, 0), *acq = ref(c, li, 1);
    uint64_t call = an_call(c, acq->loc, acq->ev);
    if (call == AN_NO_EV || an_region(c, acq->loc, call) == ST_REGION_OMP_ORDERED)
        return; /* an ordered construct's time is Ordered, which has no contention child (Lock API's would not hold) */
    int metric = an_region(c, acq->loc, call) == ST_REGION_OMP_CRITICAL ? ST_AN_M_OMP_LOCK_CONT_CRITICAL
                                                                        : ST_AN_M_OMP_LOCK_CONT_API;
    an_add(c, metric, acq->loc, call,
           (double)st_an_diff(an_time(c, rel->loc, rel->ev), an_time(c, acq->loc, call)));
}

/* A worker thread outside parallel regions: idle for the master's time there. */
static void idle_outside(an_ctx_t *c, const uint32_t *master, const uint8_t *inpar)
{
    st_an_result_t *r = c->res;
    for (uint32_t l = 0; l < r->nlocs; l++) {
        uint32_t m = master[l];
        if (m == UINT32_MAX || m == l)
            continue;
        r->span[l] = r->span[m]; /* its Time is the master's outside parallel regions */
        for (uint32_t k = 0; k < r->ncnodes; k++) {
            if (inpar[k])
                continue;
            double v = *st_an_sev(r, ST_AN_M_TIME, k, m);
            *st_an_sev(r, ST_AN_M_TIME, k, l) = v;
            *st_an_sev(r, ST_AN_M_OMP_IDLE, k, l) = v > 0 ? v : 0;
        }
    }
}

int an_omp(an_ctx_t *c)
{
    st_an_result_t *r = c->res;
    uint32_t *master = an_omp_masters(c);
    uint8_t *inpar = calloc(r->ncnodes + 1, 1), *inteam = calloc(r->nlocs + 1, 1);
    int rc = master && inpar && inteam ? 0 : -1;
    for (uint32_t k = 1; rc == 0 && k < r->ncnodes; k++)
        inpar[k] = r->cnodes[k].region == ST_REGION_OMP_PARALLEL || inpar[r->cnodes[k].parent];
    stretches_t limited = { 0 }, nested = { 0 };
    if (rc == 0) {
        region_time(c);
        for (uint64_t i = 0; rc == 0 && i < c->g->ninst; i++) {
            const st_rel_inst_t *in = &c->g->inst[i];
            switch (st_rel_inst_type(in)) {
            case ST_REL_KEY_OMP_FORK:    rc = team(c, in, master, inpar, inteam, &limited, &nested); break;
            case ST_REL_KEY_OMP_BARRIER: barrier(c, in); break;
            case ST_REL_KEY_OMP_LOCK:    lock(c, in); break;
            default: break;
            }
        }
    }
    if (rc == 0) {
        limited_less_nested(c, &limited, &nested);
        idle_outside(c, master, inpar);
    }
    free(master), free(inpar), free(inteam), free(limited.v), free(nested.v);
    return rc;
}
