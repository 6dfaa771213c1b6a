/*
 * test_rc_lib.h — what the root-cause unit tests share (test_rootcause.c, test_rootcause_random.c): a
 * call tree of logical cnodes in a chosen numbering, a timeline builder (locations, segments, calls,
 * waits, relations), the analysis result the timeline belongs to (Time from the timeline), st_rc_run
 * with the metric tree's invariants checked, and the comparison of two numberings' results.
 * Header-only (static functions); no MPI.
 */
#ifndef TEST_RC_LIB_H
#define TEST_RC_LIB_H

#include "check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "../../src/analysis/analysis.h"
#include "../../src/analysis/check.h"
#include "../../src/analysis/rootcause.h"
#include "../../src/model/region.h"
#include "../../src/relations/endpoints.h"

/* Any sanitizer report fails the test (the runner builds without -fno-sanitize-recover). */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1"; }

/* ---- the call tree: logical cnodes, mapped to the result's ids by cmap -------------------------- */

enum { C_ROOT, C_MAIN, C_SOLVE, C_WORK, C_INIT, C_RECV, C_SEND, C_BARRIER, C_BCAST, C_REDUCE, C_FIN, C_SERIAL,
       C_PAR, C_IBAR, NC };
static const uint32_t parent_of[NC] = { ST_AN_NO_CNODE, C_ROOT, C_MAIN, C_MAIN, C_MAIN, C_MAIN, C_MAIN,
                                        C_MAIN,         C_MAIN, C_MAIN, C_MAIN, C_MAIN, C_MAIN, C_PAR };
static char *func_names[] = { "main", "solve", "work", "serial" };
static inline uint32_t region_of(int k)
{
    switch (k) {
    case C_ROOT:    return UINT32_MAX;
    case C_MAIN:    return ST_AN_FUNC_REGION(0);
    case C_SOLVE:   return ST_AN_FUNC_REGION(1);
    case C_WORK:    return ST_AN_FUNC_REGION(2);
    case C_SERIAL:  return ST_AN_FUNC_REGION(3);
    case C_INIT:    return ST_REGION_MPI_Init;
    case C_RECV:    return ST_REGION_MPI_Recv;
    case C_SEND:    return ST_REGION_MPI_Send;
    case C_BARRIER: return ST_REGION_MPI_Barrier;
    case C_BCAST:   return ST_REGION_MPI_Bcast;
    case C_REDUCE:  return ST_REGION_MPI_Reduce;
    case C_FIN:     return ST_REGION_MPI_Finalize;
    case C_PAR:     return ST_REGION_OMP_PARALLEL;
    default:        return ST_REGION_OMP_IBARRIER;
    }
}

static uint32_t cmap[NC];               /* logical cnode -> the result's id */
static const uint32_t identity[NC] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };
/* another numbering, parents still before their children */
static const uint32_t shuffled[NC] = { 0, 1, 9, 4, 12, 2, 7, 11, 3, 5, 10, 6, 8, 13 };

/* ---- timelines ------------------------------------------------------------------------------------ */

#define MAXL 64
static st_rc_input_t in;
static st_rc_loc_t L[MAXL];
static size_t capc[MAXL], capp[MAXL], capw[MAXL], capr[MAXL];
static st_rc_prof_t pend[MAXL][NC]; /* the open segment's profile */
static uint32_t npend[MAXL];

static inline void *grow(void *p, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return p;
    *cap = *cap ? 2 * *cap : 8;
    p = realloc(p, *cap * size);
    REQUIRE(p);
    return p;
}

static inline void tl_reset(uint32_t nlocs)
{
    REQUIRE(nlocs <= MAXL);
    for (uint32_t l = 0; l < MAXL; l++) {
        free(L[l].calls), free(L[l].prof), free(L[l].waits), free(L[l].rels);
        memset(&L[l], 0, sizeof L[l]);
        capc[l] = capp[l] = capw[l] = capr[l] = 0, npend[l] = 0;
    }
    in.nlocs = nlocs, in.locs = L;
}

static inline void tl_loc(uint32_t l, uint64_t first, uint64_t last) { L[l].first = first, L[l].last = last; }

/* ticks of logical cnode c in location l's open segment */
static inline void tl_seg(uint32_t l, int c, uint64_t ticks)
{
    uint32_t id = cmap[c], i = 0;
    while (i < npend[l] && pend[l][i].cnode < id)
        i++;
    if (i < npend[l] && pend[l][i].cnode == id) {
        pend[l][i].ticks += ticks;
        return;
    }
    memmove(&pend[l][i + 1], &pend[l][i], (npend[l] - i) * sizeof pend[l][0]);
    pend[l][i] = (st_rc_prof_t){ id, ticks };
    npend[l]++;
}

/* the open segment into location l's profiles; returns where it starts */
static inline uint64_t flush(uint32_t l)
{
    uint64_t at = L[l].nprof;
    for (uint32_t i = 0; i < npend[l]; i++) {
        L[l].prof = grow(L[l].prof, L[l].nprof, &capp[l], sizeof *L[l].prof);
        L[l].prof[L[l].nprof++] = pend[l][i];
    }
    npend[l] = 0;
    return at;
}

static inline void tl_call(uint32_t l, uint64_t enter, uint64_t leave, int c, uint32_t flags)
{
    st_rc_call_t x = { .enter = enter, .leave = leave, .cnode = cmap[c], .flags = flags };
    x.nprof = npend[l];
    x.prof_at = flush(l);
    x.wait_at = L[l].nwaits, x.rel_at = L[l].nrels;
    L[l].calls = grow(L[l].calls, L[l].ncalls, &capc[l], sizeof *L[l].calls);
    L[l].calls[L[l].ncalls++] = x;
}

static inline void tl_wait(uint32_t l, int metric, double ticks)
{
    L[l].waits = grow(L[l].waits, L[l].nwaits, &capw[l], sizeof *L[l].waits);
    L[l].waits[L[l].nwaits++] = (st_rc_wait_t){ metric, ticks };
    L[l].calls[L[l].ncalls - 1].nwait++;
}

static inline void tl_rel(uint32_t l, unsigned type, uint64_t a, uint64_t b, uint32_t role)
{
    L[l].rels = grow(L[l].rels, L[l].nrels, &capr[l], sizeof *L[l].rels);
    L[l].rels[L[l].nrels++] = (st_rc_rel_t){ { (uint64_t)type << 56, a, b, 0 }, role, 0 };
    L[l].calls[L[l].ncalls - 1].nrel++;
}

/* Whether location l's last call got a wait of metric m (tl_wait before): its end of the message waited there, as
 * the builder marks it (ST_RC_WAITED) */
static inline uint32_t tl_waited(uint32_t l, int m)
{
    const st_rc_call_t *x = &L[l].calls[L[l].ncalls - 1];
    for (uint32_t i = 0; i < x->nwait; i++)
        if (L[l].waits[x->wait_at + i].metric == m && L[l].waits[x->wait_at + i].ticks > 0)
            return ST_RC_WAITED;
    return 0;
}

/* message n from s to r: the send call, the receive (posting and completing) */
static inline void tl_send(uint32_t l, uint32_t s, uint32_t r, uint64_t n)
{
    tl_rel(l, ST_REL_KEY_P2P, (uint64_t)s << 32 | r, n, ST_RC_SENDS | tl_waited(l, ST_AN_M_LATERECEIVER));
}
static inline void tl_recv(uint32_t l, uint32_t s, uint32_t r, uint64_t n)
{
    tl_rel(l, ST_REL_KEY_P2P, (uint64_t)s << 32 | r, n, ST_RC_RECEIVES | ST_RC_POSTS | tl_waited(l, ST_AN_M_LATESENDER));
}

static inline void tl_end(void)
{
    for (uint32_t l = 0; l < in.nlocs; l++) {
        L[l].ntail = npend[l];
        L[l].tail_at = flush(l);
    }
}

/* ---- results ------------------------------------------------------------------------------------- */

static st_an_result_t R;
static st_rc_causes_t CZ;

static inline void result_free(void)
{
    free(R.cnodes), free(R.locs), free(R.sev), free(R.span);
    st_rc_causes_free(&CZ);
    memset(&R, 0, sizeof R);
}

/* The result the timeline belongs to: the call tree in cmap's numbering, Time from the timeline. */
static inline void make_result(int omp)
{
    result_free();
    R.ncnodes = NC, R.nlocs = in.nlocs;
    R.cnodes = calloc(NC, sizeof *R.cnodes);
    R.locs = calloc(in.nlocs, sizeof *R.locs);
    R.sev = calloc((size_t)ST_AN__METRICS * NC * in.nlocs, sizeof *R.sev);
    R.span = calloc(in.nlocs, sizeof *R.span);
    REQUIRE(R.cnodes && R.locs && R.sev && R.span);
    for (int k = 0; k < NC; k++)
        R.cnodes[cmap[k]] = (st_an_cnode_t){ k ? cmap[parent_of[k]] : ST_AN_NO_CNODE, region_of(k), ST_AN_NO_CNODE,
                                             ST_AN_NO_CNODE };
    for (int k = NC - 1; k > 0; k--) { /* children in logical order */
        st_an_cnode_t *p = &R.cnodes[R.cnodes[cmap[k]].parent];
        R.cnodes[cmap[k]].next = p->first_child;
        p->first_child = cmap[k];
    }
    R.nfuncs = 4, R.funcs = func_names;
    for (uint32_t l = 0; l < in.nlocs; l++) {
        R.locs[l] = omp ? (st_an_loc_t){ 0, l } : (st_an_loc_t){ (int32_t)l, 0 };
        R.span[l] = L[l].last - L[l].first;
        for (uint64_t p = 0; p < L[l].nprof; p++)
            *st_an_sev(&R, ST_AN_M_TIME, L[l].prof[p].cnode, l) += (double)L[l].prof[p].ticks;
        for (uint32_t c = 0; c < L[l].ncalls; c++)
            *st_an_sev(&R, ST_AN_M_TIME, L[l].calls[c].cnode, l) += (double)(L[l].calls[c].leave - L[l].calls[c].enter);
    }
    /* a worker's idleness: its master's time outside parallel regions, as Time and Idle threads */
    for (uint32_t l = 1; omp && l < in.nlocs; l++)
        for (int c = 0; c < NC; c++)
            if (c != C_PAR && c != C_IBAR) {
                *st_an_sev(&R, ST_AN_M_TIME, cmap[c], l) = *st_an_sev(&R, ST_AN_M_TIME, cmap[c], 0);
                *st_an_sev(&R, ST_AN_M_OMP_IDLE, cmap[c], l) = *st_an_sev(&R, ST_AN_M_TIME, cmap[c], 0);
            }
}

/* st_rc_run on the timeline; the result's invariants (check.c) hold. */
static inline void run(int omp)
{
    make_result(omp);
    REQUIRE(st_rc_run(&R, &in, &CZ) == 0);
    R.causes = &CZ;
    char msg[1024];
    size_t bad = st_an_check_tree(&R, 1, msg, sizeof msg);
    EXPECT(bad == 0, "%zu violations, the first: %s", bad, msg);
    R.causes = NULL;
    /* the performance impact shares out the locations' Time: their activities and their waiting */
    double time = 0;
    for (uint32_t l = 0; l < R.nlocs; l++)
        time += (double)R.span[l];
    EXPECT(fabs(st_an_total(&R, ST_AN_M_PERF_IMPACT) - time) <= 0.5 + 1e-9 * time,
           "performance impact %.3f, Time of all locations %.3f", st_an_total(&R, ST_AN_M_PERF_IMPACT), time);
}

static inline double V(int m, int c, uint32_t l) { return *st_an_sev(&R, m, cmap[c], l); }

/* Sum of metric m over every cnode and location. */
static inline double total(int m) { return st_an_total(&R, m); }

#define EQ(a, b) EXPECT(fabs((double)(a) - (double)(b)) < 1e-6, "%s = %.9g, expected %.9g", #a, (double)(a), (double)(b))

/* The cause (metric, wait cnode, delay loc, delay cnode), or NULL. */
static inline const st_rc_cause_t *cause(int m, int wc, uint32_t dl, int dc)
{
    for (size_t i = 0; i < CZ.n; i++)
        if (CZ.v[i].metric == m && CZ.v[i].wait_cnode == cmap[wc] && CZ.v[i].delay_loc == dl &&
            CZ.v[i].delay_cnode == cmap[dc])
            return &CZ.v[i];
    return NULL;
}

static inline const struct st_rc_prop *prop(int m, int c)
{
    for (size_t i = 0; i < CZ.nprop; i++)
        if (CZ.prop[i].metric == m && CZ.prop[i].cnode == cmap[c])
            return &CZ.prop[i];
    return NULL;
}

/* The critical path's sum over every cnode and location equals the run's length; its hops cover it. */
static inline void expect_path_covers(uint64_t first, uint64_t last)
{
    EQ(total(ST_AN_M_CRITICAL_PATH), last - first);
    REQUIRE(CZ.npath > 0);
    EXPECT(CZ.path[0].t1 == last && CZ.path[CZ.npath - 1].t0 == first);
    for (size_t i = 0; i + 1 < CZ.npath; i++)
        EXPECT(CZ.path[i + 1].t1 == CZ.path[i].t0 && CZ.path[i + 1].loc != CZ.path[i].loc);
}

/* Every metric of the replay that is not listed is zero everywhere. */
static inline void expect_zero_but(const int *ms, size_t n)
{
    for (int m = ST_AN_M_DELAY; m < ST_AN__METRICS; m++) {
        int listed = 0;
        for (size_t i = 0; i < n; i++)
            listed |= ms[i] == m;
        if (!listed)
            EXPECT(total(m) == 0, "%s = %g", st_an_metric(m)->uniq, total(m));
    }
}

/* Metric m at (c, l) and each of its ancestors there hold v (each of them only m's value). */
static inline void expect_up(int m, int c, uint32_t l, double v)
{
    for (; m != ST_AN_M_ROOT; m = st_an_metric(m)->parent)
        EXPECT(fabs(V(m, c, l) - v) < 1e-6, "%s at cnode %d loc %u = %.9g, expected %.9g", st_an_metric(m)->uniq, c,
               l, V(m, c, l), v);
}

/* ---- MPI_Init and MPI_Finalize --------------------------------------------------------------------- */

/* Every location's MPI_Init [0, 10] (first event 0, last `last`). */
static inline void mpi_init(uint32_t n, uint64_t last)
{
    tl_reset(n);
    for (uint32_t l = 0; l < n; l++) {
        tl_loc(l, 0, last);
        tl_call(l, 0, 10, C_INIT, ST_RC_INIT);
        tl_rel(l, ST_REL_KEY_SYNC, 0, 0, ST_RC_SENDS | ST_RC_RECEIVES);
    }
}

static inline void mpi_finalize(uint32_t l, uint64_t enter, uint64_t leave, double wait)
{
    tl_call(l, enter, leave, C_FIN, ST_RC_FINALIZE);
    if (wait > 0)
        tl_wait(l, ST_AN_M_FINALIZE_WAIT, wait);
    tl_rel(l, ST_REL_KEY_SYNC, 1, 0, ST_RC_SENDS | ST_RC_RECEIVES);
}

/* ---- the same values whatever the numbering ------------------------------------------------------ */

typedef struct saved {
    double        *sev; /* [metric - DELAY][logical cnode][loc] */
    st_rc_cause_t *v;   /* logical cnodes */
    size_t         n, nprop, npath;
    struct st_rc_prop *prop;
    struct st_rc_hop  *path;
} saved_t;

static inline uint32_t logical(uint32_t id)
{
    for (uint32_t k = 0; k < NC; k++)
        if (cmap[k] == id)
            return k;
    REQUIRE(0);
    return 0;
}

static inline void save(saved_t *s)
{
    size_t nm = ST_AN__METRICS - ST_AN_M_DELAY;
    s->sev = malloc(nm * NC * in.nlocs * sizeof *s->sev);
    s->v = malloc((CZ.n + 1) * sizeof *s->v);
    s->prop = malloc((CZ.nprop + 1) * sizeof *s->prop);
    s->path = malloc((CZ.npath + 1) * sizeof *s->path);
    REQUIRE(s->sev && s->v && s->prop && s->path);
    for (size_t m = 0; m < nm; m++)
        for (int c = 0; c < NC; c++)
            for (uint32_t l = 0; l < in.nlocs; l++)
                s->sev[(m * NC + (size_t)c) * in.nlocs + l] = V(ST_AN_M_DELAY + (int)m, c, l);
    for (size_t i = 0; i < CZ.n; i++) {
        s->v[i] = CZ.v[i];
        s->v[i].wait_cnode = logical(CZ.v[i].wait_cnode), s->v[i].delay_cnode = logical(CZ.v[i].delay_cnode);
    }
    for (size_t i = 0; i < CZ.nprop; i++)
        s->prop[i] = CZ.prop[i], s->prop[i].cnode = logical(CZ.prop[i].cnode);
    if (CZ.npath)
        memcpy(s->path, CZ.path, CZ.npath * sizeof *s->path);
    s->n = CZ.n, s->nprop = CZ.nprop, s->npath = CZ.npath;
}

/* The result's values equal s's exactly (every double bit for bit), up to the cnode numbering. */
static inline void expect_same_values(const saved_t *s, const char *what)
{
    size_t nm = ST_AN__METRICS - ST_AN_M_DELAY, bad = 0;
    for (size_t m = 0; m < nm; m++)
        for (int c = 0; c < NC; c++)
            for (uint32_t l = 0; l < in.nlocs; l++) {
                double a = s->sev[(m * NC + (size_t)c) * in.nlocs + l], b = V(ST_AN_M_DELAY + (int)m, c, l);
                if (memcmp(&a, &b, sizeof a) && !bad++)
                    fprintf(stderr, "%s: %s at cnode %d loc %u: %.17g, renumbered %.17g\n", what,
                            st_an_metric(ST_AN_M_DELAY + (int)m)->uniq, c, l, a, b);
            }
    EXPECT(bad == 0, "%s: %zu values differ", what, bad);
}

/* The result equals s exactly (values and causes), up to the cnode numbering. */
static inline void expect_same(const saved_t *s, const char *what)
{
    expect_same_values(s, what);
    REQUIRE(s->n == CZ.n && s->nprop == CZ.nprop && s->npath == CZ.npath);
    for (size_t i = 0; i < s->n; i++) {
        const st_rc_cause_t *c = cause(s->v[i].metric, (int)s->v[i].wait_cnode, s->v[i].delay_loc, (int)s->v[i].delay_cnode);
        EXPECT(c && !memcmp(&c->short_ticks, &s->v[i].short_ticks, sizeof(double)) &&
               !memcmp(&c->long_ticks, &s->v[i].long_ticks, sizeof(double)), "%s: cause %zu", what, i);
    }
    for (size_t i = 0; i < s->nprop; i++) {
        const struct st_rc_prop *p = prop(s->prop[i].metric, (int)s->prop[i].cnode);
        EXPECT(p && p->wait == s->prop[i].wait && p->propagating == s->prop[i].propagating, "%s: prop %zu", what, i);
    }
    for (size_t i = 0; i < s->npath; i++) /* field by field: a hop's padding is not part of it */
        EXPECT(s->path[i].loc == CZ.path[i].loc && s->path[i].t0 == CZ.path[i].t0 && s->path[i].t1 == CZ.path[i].t1,
               "%s: the path differs at hop %zu", what, i);
}

static inline void saved_free(saved_t *s) { free(s->sev), free(s->v), free(s->prop), free(s->path); }

/* Each scenario in both numberings. */
static inline void test_numbering(void (*scen)(void), int omp, const char *what)
{
    saved_t s;
    memcpy(cmap, identity, sizeof cmap);
    scen();
    run(omp);
    save(&s);
    memcpy(cmap, shuffled, sizeof cmap);
    scen();
    run(omp);
    expect_same(&s, what);
    saved_free(&s);
    memcpy(cmap, identity, sizeof cmap);
}

#endif
