/*
 * run.c — the sequential reference CLC over a whole trace (st_clc_run, clc.h).
 *
 * Forward pass: a worklist of locations (schedule.h). Each runs (st_clc_forward_loc) until a receive
 * whose sends are not computed yet; it then waits on that instance and is requeued when
 * the instance's state changes. Instance state: for PRODUCT instances the two largest
 * send values on distinct locations (a receive excludes its own location) and the count
 * of sends still missing; for PREFIX instances the prefix maxima of the sends in rank
 * order and how far they are complete. The result does not depend on the order
 * locations are processed in: LC(e) is a function of LC(prev) and of its sends' LC only.
 * If every unfinished location waits (a cycle: impossible for a trace of a real run),
 * the lowest-numbered waiting location's receive is forced with the sends known so far.
 *
 * Backward pass: send limits are taken from the receives' forward LC (both for all
 * locations before any is amortized), so locations are amortized independently — the
 * same values the parallel version exchanges in one backward round.
 */
#include "clc.h"
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

#include "../util/log.h"

#define NONE UINT32_MAX

typedef struct seq {
    const st_clc_params_t *p;
    st_rel_input_t        *in;
    const st_rel_graph_t  *g;
    st_clc_fwd_t          *fwd;       /* [nlocs] */
    /* per instance: forward top-2 sends / backward bottom-2 receives, by location */
    uint64_t *v1, *v2;
    uint32_t *l1, *l2;
    uint32_t *pending;                /* PRODUCT: sends not yet computed */
    uint32_t *frontier;               /* PREFIX: sends[0..frontier) computed */
    uint64_t *refval;                 /* PREFIX, per ref: prefix max (forward) / suffix min (backward) */
    st_clc_sched_t sched;             /* runnable locations, and those waiting on each instance */
    uint64_t  unresolved;             /* receives forced through a cycle */
} seq_t;

static uint64_t ref_time(const seq_t *s, const st_rel_ref_t *r) { return st_rel_lc(&s->in->locs[r->loc])[r->ev]; }

static int resolved(const seq_t *s, const st_rel_ref_t *r) { return s->fwd[r->loc].pos > r->ev; }

/* Keeps the two largest values on distinct locations (or the two smallest: min != 0). */
static void top2(seq_t *s, uint64_t k, uint64_t v, uint32_t loc, int min)
{
#define BETTER(a, b) (min ? (a) < (b) : (a) > (b))
    if (s->l1[k] == loc) {
        if (BETTER(v, s->v1[k]))
            s->v1[k] = v;
    } else if (s->l1[k] == NONE || BETTER(v, s->v1[k])) {
        s->v2[k] = s->v1[k], s->l2[k] = s->l1[k];
        s->v1[k] = v, s->l1[k] = loc;
    } else if (s->l2[k] == NONE || BETTER(v, s->v2[k])) {
        s->v2[k] = v, s->l2[k] = loc;
    }
#undef BETTER
}

/* The kept value for a location other than loc; 0 if none. */
static int top2_other(const seq_t *s, uint64_t k, uint32_t loc, uint64_t *v)
{
    if (s->l1[k] != NONE && s->l1[k] != loc)
        return *v = s->v1[k], 1;
    if (s->l2[k] != NONE && s->l2[k] != loc)
        return *v = s->v2[k], 1;
    return 0;
}

/* Number of refs in [first, first+n) with order < o (sorted by order). */
static uint32_t count_below(const st_rel_ref_t *refs, uint32_t n, uint32_t o)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (refs[mid].order < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- forward callbacks -------------------------------------------------------------------------- */

static int fwd_recv_bound(void *ctx, uint32_t loc, const st_rel_port_t *p, int force, uint64_t *bound, uint8_t *kind)
{
    seq_t *s = ctx;
    const st_rel_inst_t *in = &s->g->inst[p->inst];
    uint64_t v = 0, mu = st_clc_mu(s->p, in->mumask);
    int have;
    *kind = in->kind;
    if (in->shape == ST_REL_PREFIX) {
        uint32_t need = count_below(&s->g->refs[in->first], in->nsend, s->g->refs[in->first + p->slot].order);
        if (s->frontier[p->inst] < need && !force)
            return 0;
        if (need > s->frontier[p->inst])
            need = s->frontier[p->inst];
        have = need > 0;
        if (have)
            v = s->refval[in->first + need - 1];
    } else {
        if (s->pending[p->inst] && !force)
            return 0;
        have = top2_other(s, p->inst, loc, &v);
    }
    *bound = have ? v + mu : 0;
    return 1;
}

static void fwd_send_done(void *ctx, uint32_t loc, const st_rel_port_t *p, uint64_t lc)
{
    seq_t *s = ctx;
    const st_rel_inst_t *in = &s->g->inst[p->inst];
    if (in->shape != ST_REL_PREFIX) {
        top2(s, p->inst, lc, loc, 0);
        if (--s->pending[p->inst] == 0)
            st_clc_sched_wake(&s->sched, p->inst);
        return;
    }
    uint32_t f = s->frontier[p->inst], f0 = f;
    for (; f < in->nsend && resolved(s, &s->g->refs[in->first + f]); f++) {
        uint64_t t = ref_time(s, &s->g->refs[in->first + f]);
        s->refval[in->first + f] = f && s->refval[in->first + f - 1] > t ? s->refval[in->first + f - 1] : t;
    }
    s->frontier[p->inst] = f;
    if (f != f0)
        st_clc_sched_wake(&s->sched, p->inst);
}

static const st_clc_fwd_ops_t fwd_ops = { fwd_recv_bound, fwd_send_done };

/* ---- forward driver -------------------------------------------------------------------------------- */

/* Runs queued locations until none is runnable. Returns 0 or -1 (out of memory). */
static int drain(seq_t *s, uint32_t forced)
{
    while (s->sched.qlen) {
        uint32_t l = st_clc_sched_next(&s->sched);
        const st_rel_port_t *ports = s->g->ports + s->g->port_first[l];
        uint64_t np = s->g->port_first[l + 1] - s->g->port_first[l];
        int rc = st_clc_forward_loc(s->p, &s->in->locs[l], l, ports, np, &s->fwd[l], &fwd_ops, s, l == forced);
        forced = NONE;
        if (rc == ST_CLC_NOMEM)
            return -1;
        if (rc == ST_CLC_BLOCKED) {
            uint64_t k = ports[s->fwd[l].blocked].inst;
            st_clc_sched_wait(&s->sched, l, k);
        }
    }
    return 0;
}

static int forward(seq_t *s)
{
    uint32_t n = s->g->nlocs;
    for (uint32_t l = 0; l < n; l++)
        st_clc_sched_enqueue(&s->sched, l);
    uint32_t forced = NONE;
    for (;;) {
        if (drain(s, forced))
            return -1;
        uint32_t l = 0;
        while (l < n && s->fwd[l].pos >= s->in->locs[l].n)
            l++;
        if (l == n)
            return 0;
        /* Every unfinished location waits: a cycle. Force the lowest one's receive. */
        const st_rel_port_t *port = s->g->ports + s->g->port_first[l] + s->fwd[l].blocked;
        if (s->unresolved++ == 0)
            st_log_warn("CLC: cyclic happened-before relations (inconsistent trace) at rank %d thread %u event %llu;"
                        " receive corrected with the sends known so far",
                        s->in->locs[l].rank, s->in->locs[l].thread, (unsigned long long)port->ev);
        st_clc_sched_unlink(&s->sched, port->inst, l);
        st_clc_sched_enqueue(&s->sched, l);
        forced = l;
    }
}

/* ---- backward -------------------------------------------------------------------------------------------- */

/* Receive minima of every instance from the forward LC, before any location is amortized. */
static void prepare_limits(seq_t *s)
{
    const st_rel_graph_t *g = s->g;
    for (uint64_t k = 0; k < g->ninst; k++) {
        const st_rel_inst_t *in = &g->inst[k];
        const st_rel_ref_t *recv = &g->refs[in->first + in->nsend];
        s->l1[k] = s->l2[k] = NONE;
        if (in->shape == ST_REL_PREFIX) {
            uint64_t m = UINT64_MAX;
            for (uint32_t i = in->nrecv; i-- > 0;) {
                uint64_t t = ref_time(s, &recv[i]);
                m = t < m ? t : m;
                s->refval[in->first + in->nsend + i] = m;
            }
        } else {
            for (uint32_t i = 0; i < in->nrecv; i++)
                top2(s, k, ref_time(s, &recv[i]), recv[i].loc, 1);
        }
    }
}

static uint64_t limit_of(void *ctx, uint32_t loc, const st_rel_port_t *p)
{
    seq_t *s = ctx;
    const st_rel_inst_t *in = &s->g->inst[p->inst];
    uint64_t v, mu = st_clc_mu(s->p, in->mumask);
    if (in->shape == ST_REL_PREFIX) {
        const st_rel_ref_t *recv = &s->g->refs[in->first + in->nsend];
        uint32_t o = s->g->refs[in->first + p->slot].order;
        uint32_t i = count_below(recv, in->nrecv, o + 1); /* receives of order > o */
        if (i >= in->nrecv)
            return UINT64_MAX;
        v = s->refval[in->first + in->nsend + i];
    } else if (!top2_other(s, p->inst, loc, &v)) {
        return UINT64_MAX;
    }
    return v > mu ? v - mu : 0;
}

static int backward(seq_t *s, st_clc_stats_t *stats)
{
    st_clc_scratch_t scratch = { 0 };
    uint64_t ramps = 0, bent = 0;
    int rc = 0;
    prepare_limits(s);
    for (uint32_t l = 0; rc == 0 && l < s->g->nlocs; l++) {
        const st_rel_port_t *ports = s->g->ports + s->g->port_first[l];
        uint64_t np = s->g->port_first[l + 1] - s->g->port_first[l];
        rc = st_clc_backward_loc(s->p, &s->in->locs[l], l, ports, np, s->fwd[l].jumps, s->fwd[l].njumps, limit_of, s,
                                 &scratch, &ramps, &bent);
    }
    st_clc_scratch_free(&scratch);
    if (stats) {
        stats->ramps = ramps;
        stats->ramps_bent = bent;
    }
    return rc;
}

/* ---- entry point ------------------------------------------------------------------------------------------- */

static void seq_free(seq_t *s)
{
    for (uint32_t l = 0; s->fwd && l < s->g->nlocs; l++)
        st_mem_free(s->fwd[l].jumps);
    st_mem_free(s->fwd);
    st_mem_free(s->v1), st_mem_free(s->v2), st_mem_free(s->l1), st_mem_free(s->l2);
    st_mem_free(s->pending), st_mem_free(s->frontier), st_mem_free(s->refval);
    st_mem_free(s->sched.wait_head), st_mem_free(s->sched.wait_next);
    st_mem_free(s->sched.queue), st_mem_free(s->sched.queued);
}

static int seq_init(seq_t *s)
{
    size_t ni = s->g->ninst ? s->g->ninst : 1, nl = s->g->nlocs ? s->g->nlocs : 1;
    s->fwd = st_mem_calloc(nl, sizeof *s->fwd);
    s->v1 = st_mem_calloc(ni, sizeof(uint64_t)), s->v2 = st_mem_calloc(ni, sizeof(uint64_t));
    s->l1 = st_mem_malloc(ni * sizeof(uint32_t)), s->l2 = st_mem_malloc(ni * sizeof(uint32_t));
    s->pending = st_mem_malloc(ni * sizeof(uint32_t)), s->frontier = st_mem_calloc(ni, sizeof(uint32_t));
    s->refval = st_mem_calloc(s->g->nrefs ? s->g->nrefs : 1, sizeof(uint64_t));
    s->sched.wait_head = st_mem_malloc(ni * sizeof(uint32_t));
    s->sched.wait_next = st_mem_malloc(nl * sizeof(uint32_t));
    s->sched.queue = st_mem_malloc(nl * sizeof(uint32_t)), s->sched.queued = st_mem_calloc(nl, 1);
    if (!s->fwd || !s->v1 || !s->v2 || !s->l1 || !s->l2 || !s->pending || !s->frontier || !s->refval ||
        !s->sched.wait_head || !s->sched.wait_next || !s->sched.queue || !s->sched.queued)
        return -1;
    s->sched.nlocs = s->g->nlocs, s->sched.fwd = s->fwd, s->sched.locs = s->in->locs;
    for (uint64_t k = 0; k < s->g->ninst; k++) {
        s->l1[k] = s->l2[k] = s->sched.wait_head[k] = NONE;
        s->pending[k] = s->g->inst[k].nsend;
    }
    for (uint32_t l = 0; l < s->g->nlocs; l++)
        s->sched.wait_next[l] = NONE;
    return 0;
}

int st_clc_run(const st_clc_params_t *p, st_rel_input_t *in, const st_rel_graph_t *g, st_clc_stats_t *stats)
{
    seq_t s = { .p = p, .in = in, .g = g };
    st_clc_stats_t local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    stats->deps = g->ds;
    int rc = -1;
    if (g->nlocs != in->nlocs || st_rel_save_orig(in) || seq_init(&s))
        goto out;
    st_clc_violations(g, in->locs, NULL, 1, &stats->reversed);
    st_clc_violations(g, in->locs, p, 1, &stats->violations);
    if (forward(&s) || backward(&s, stats))
        goto out;
    for (uint32_t l = 0; l < g->nlocs; l++)
        for (size_t j = 0; j < s.fwd[l].njumps; j++)
            stats->jumps[s.fwd[l].jumps[j].kind < ST_REL__KINDS ? s.fwd[l].jumps[j].kind : 0]++;
    stats->unresolved = s.unresolved;
    st_clc_violations(g, in->locs, p, 0, &stats->remaining);
    st_clc_finish_locs(stats, in->locs, in->nlocs, NULL, NULL);
    rc = 0;
out:
    seq_free(&s);
    return rc;
}
