/*
 * test_clc_random.c — CLC on randomized synthetic traces.
 *
 * Each trace is simulated in true time: ranks (2 per node) with 0-2 OpenMP worker
 * threads exchange blocking and nonblocking point-to-point messages, run collectives
 * (allreduce, barrier, bcast, reduce, scan) and OpenMP regions (fork/join, barrier, a
 * lock chain), with latencies no smaller than the mu CLC uses. Then every rank's clock
 * is perturbed by an offset and a drift, which reverses messages. After st_clc_run:
 *  - no relation is violated (receive >= its sends + mu), counted independently;
 *  - no event moved backward; local order and spacing kept (>= min(delta, original));
 *  - the result equals an independent reference: a naive forward fixed-point iteration
 *    plus the per-location backward pass fed by naively computed limits;
 *  - the result does not depend on the order the locations are given in.
 */
/* link: src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/util/u64map.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/run.c src/clc/stats.c src/util/log.c */
#include "test_clc_lib.h"


/* ---- simulation in true time ------------------------------------------------------------------ */

typedef struct sim {
    tb_t     t;
    int      nranks, nworkers[8];
    uint32_t master[8], worker[8][2];
    uint64_t now[64];      /* per location: earliest true time of its next event */
    uint64_t post[8];      /* per rank: post-id counter */
    uint64_t coll_seq, par_id, lock_order[8];
} sim_t;

static uint64_t lat(const sim_t *s, int a, int b) { return tb_lat(&s->t, a, b); }

static uint64_t ev(sim_t *s, uint32_t l, unsigned kind, uint64_t at, st_event_t **out)
{
    return tb_sim_ev(&s->t, s->now, l, kind, at, out);
}

static void region(sim_t *s, uint32_t l, unsigned kind, uint64_t at, uint32_t r)
{
    st_event_t *e;
    ev(s, l, kind, at, &e);
    e->region = r;
}

static void sim_p2p(sim_t *s, int a, int b)
{
    uint32_t la = s->master[a], lb = s->master[b];
    st_event_t *e;
    int32_t tag = (int32_t)(tb_rnd() % 2);
    int nb_recv = tb_rnd() % 2, nb_send = tb_rnd() % 2;
    uint64_t id = ++s->post[b];
    if (nb_recv) { /* post early */
        region(s, lb, ST_EV_ENTER, 0, TR_USER);
        ev(s, lb, ST_EV_MPI_IRECV_REQUEST, 0, &e);
        e->id = id;
        region(s, lb, ST_EV_LEAVE, 0, TR_USER);
    }
    region(s, la, ST_EV_ENTER, 0, TR_USER);
    uint64_t ts = ev(s, la, nb_send ? ST_EV_MPI_ISEND : ST_EV_MPI_SEND, 0, &e);
    e->peer = b, e->tag = tag, e->comm = 0, e->id = nb_send ? ++s->post[a] : 0;
    region(s, la, ST_EV_LEAVE, 0, TR_USER);
    region(s, lb, ST_EV_ENTER, 0, TR_USER);
    ev(s, lb, nb_recv ? ST_EV_MPI_IRECV : ST_EV_MPI_RECV, ts + lat(s, a, b), &e);
    e->peer = a, e->tag = tag, e->comm = 0, e->id = id;
    region(s, lb, ST_EV_LEAVE, 0, TR_USER);
}

static void sim_coll(sim_t *s)
{
    static const unsigned ops[] = { OP_ALLREDUCE, OP_BARRIER, OP_BCAST, OP_REDUCE, OP_SCAN };
    unsigned op = ops[tb_rnd() % 5];
    int root = (int)(tb_rnd() % (uint64_t)s->nranks), n = s->nranks;
    uint64_t b[8], seq = s->coll_seq++;
    for (int r = 0; r < n; r++) {
        region(s, s->master[r], ST_EV_ENTER, 0, TR_USER);
        b[r] = ev(s, s->master[r], ST_EV_MPI_COLL_BEGIN, 0, NULL);
    }
    for (int r = 0; r < n; r++) {
        uint64_t end = b[r] + 5;
        for (int q = 0; q < n; q++) {
            int dep = q != r && ((op == OP_ALLREDUCE || op == OP_BARRIER) || (op == OP_BCAST && q == root) ||
                                 (op == OP_REDUCE && r == root) || (op == OP_SCAN && q < r));
            if (dep)
                end = tb_max2(end, b[q] + lat(s, q, r));
        }
        st_event_t *e;
        ev(s, s->master[r], ST_EV_MPI_COLL_END, end + tb_between(0, 50), &e);
        e->op = (uint16_t)op, e->comm = 0, e->id = seq, e->bytes = 8, e->bytes2 = 8;
        e->peer = op == OP_BCAST || op == OP_REDUCE ? root : -1;
        region(s, s->master[r], ST_EV_LEAVE, 0, TR_USER);
    }
}

/* fork; team begins; a lock chain over the threads; a barrier; team ends; join. */
static void sim_omp(sim_t *s, int r)
{
    int nt = 1 + s->nworkers[r];
    uint32_t th[3] = { s->master[r], s->worker[r][0], s->worker[r][1] };
    uint64_t id = ++s->par_id, t, rel = 0, enter_max = 0, bar[3], end_max = 0;
    st_event_t *e;
    t = ev(s, th[0], ST_EV_THREAD_FORK, 0, &e);
    e->id = id;
    for (int i = 0; i < nt; i++) {
        ev(s, th[i], ST_EV_THREAD_TEAM_BEGIN, t + (i ? lat(s, r, r) : 0), &e);
        e->id = id;
    }
    for (int i = nt; i-- > 0;) { /* lock chain, last thread first */
        ev(s, th[i], ST_EV_THREAD_ACQUIRE_LOCK, rel ? rel + lat(s, r, r) : 0, &e);
        e->id = 3, e->bytes = ++s->lock_order[r];
        rel = ev(s, th[i], ST_EV_THREAD_RELEASE_LOCK, 0, &e);
        e->id = 3, e->bytes = s->lock_order[r];
    }
    for (int i = 0; i < nt; i++) {
        st_event_t *x;
        bar[i] = ev(s, th[i], ST_EV_ENTER, 0, &x);
        x->region = TR_OMP_IBARRIER;
        enter_max = tb_max2(enter_max, bar[i]);
    }
    for (int i = 0; i < nt; i++) {
        region(s, th[i], ST_EV_LEAVE, enter_max + lat(s, r, r), TR_OMP_IBARRIER);
        uint64_t te = ev(s, th[i], ST_EV_THREAD_TEAM_END, 0, &e);
        e->id = id;
        end_max = tb_max2(end_max, te + (i ? lat(s, r, r) : 0));
    }
    ev(s, th[0], ST_EV_THREAD_JOIN, end_max, &e);
    e->id = id;
}

/* Local clocks: C = T + offset + drift * T, per rank (threads of a process share it). */
static void perturb(sim_t *s)
{
    for (int r = 0; r < s->nranks; r++) {
        double off = (double)tb_between(0, 6000) - 3000.0, drift = ((double)tb_between(0, 4000) - 2000.0) * 1e-7;
        for (uint32_t l = 0; l < s->t.nlocs; l++)
            if (s->t.locs[l].rank == r)
                for (uint64_t i = 0; i < s->t.locs[l].n; i++) {
                    double tt = (double)s->t.locs[l].ev[i].time;
                    s->t.locs[l].ev[i].time = (uint64_t)(tt + 10000.0 + off + drift * tt);
                }
    }
}

static void simulate(sim_t *s, int nranks, int actions)
{
    memset(s, 0, sizeof *s);
    tb_init(&s->t, nranks, 2);
    s->nranks = nranks;
    for (int r = 0; r < nranks; r++) {
        s->master[r] = tb_loc(&s->t, r, 0);
        s->nworkers[r] = (int)(tb_rnd() % 3);
        for (int w = 0; w < s->nworkers[r]; w++)
            s->worker[r][w] = tb_loc(&s->t, r, (uint32_t)w + 1);
    }
    for (uint32_t l = 0; l < s->t.nlocs; l++)
        s->now[l] = tb_between(0, 500);
    for (int k = 0; k < actions; k++) {
        uint64_t what = tb_rnd() % 10;
        int a = (int)(tb_rnd() % (uint64_t)nranks), b = (int)(tb_rnd() % (uint64_t)nranks);
        if (what < 6 && a != b)
            sim_p2p(s, a, b);
        else if (what < 8)
            sim_coll(s);
        else if (s->nworkers[a])
            sim_omp(s, a);
        else
            region(s, s->master[a], ST_EV_ENTER, s->now[s->master[a]] + tb_between(0, 3000), TR_USER);
    }
    perturb(s);
}

/* ---- independent reference ----------------------------------------------------------------------- */

static uint64_t **alloc_times(const tb_t *t)
{
    uint64_t **v = calloc(t->nlocs, sizeof *v);
    REQUIRE(v);
    for (uint32_t l = 0; l < t->nlocs; l++) {
        v[l] = malloc(sizeof(uint64_t) * (t->locs[l].n + 1));
        REQUIRE(v[l]);
    }
    return v;
}

static void free_times(const tb_t *t, uint64_t **v)
{
    for (uint32_t l = 0; l < t->nlocs; l++)
        free(v[l]);
    free(v);
}

/* Max over the sends this receive depends on (other locations; scans: lower ranks) + mu. */
static uint64_t naive_bound(const st_rel_graph_t *g, uint64_t **lc, uint32_t loc, const st_rel_port_t *p,
                            const st_clc_params_t *prm)
{
    const st_rel_inst_t *in = &g->inst[p->inst];
    const st_rel_ref_t *me = &g->refs[in->first + p->slot];
    uint64_t v = 0;
    int have = 0;
    for (uint32_t s = 0; s < in->nsend; s++) {
        const st_rel_ref_t *r = &g->refs[in->first + s];
        int dep = in->shape == ST_REL_PREFIX ? r->order < me->order : r->loc != loc;
        if (dep)
            v = have ? tb_max2(v, lc[r->loc][r->ev]) : lc[r->loc][r->ev], have = 1;
    }
    return have ? v + st_clc_mu(prm, in->mumask) : 0;
}

typedef struct refctx {
    const st_rel_graph_t  *g;
    uint64_t             **fwd;
    const st_clc_params_t *p;
} refctx_t;

static uint64_t naive_limit(void *ctx, uint32_t loc, const st_rel_port_t *p)
{
    refctx_t *c = ctx;
    const st_rel_inst_t *in = &c->g->inst[p->inst];
    const st_rel_ref_t *me = &c->g->refs[in->first + p->slot];
    uint64_t m = UINT64_MAX, mu = st_clc_mu(c->p, in->mumask);
    for (uint32_t s = in->nsend; s < in->nsend + in->nrecv; s++) {
        const st_rel_ref_t *r = &c->g->refs[in->first + s];
        int dep = in->shape == ST_REL_PREFIX ? r->order > me->order : r->loc != loc;
        if (dep && c->fwd[r->loc][r->ev] < m)
            m = c->fwd[r->loc][r->ev];
    }
    return m == UINT64_MAX ? m : (m > mu ? m - mu : 0);
}

/* Reference result into t's event times (t holds C on entry). */
static void reference(tb_t *t, const st_rel_graph_t *g, const st_clc_params_t *p)
{
    uint64_t **c = alloc_times(t), **lc = alloc_times(t);
    for (uint32_t l = 0; l < t->nlocs; l++)
        for (uint64_t i = 0; i < t->locs[l].n; i++)
            c[l][i] = lc[l][i] = T(t, l, i);
    for (int changed = 1, sweeps = 0; changed; sweeps++) { /* Gauss-Seidel to the fixed point */
        REQUIRE(sweeps < 100000);
        changed = 0;
        for (uint32_t l = 0; l < t->nlocs; l++)
            for (uint64_t i = 0; i < t->locs[l].n; i++) {
                uint64_t v = i ? st_clc_base(p, c[l][i], c[l][i - 1], lc[l][i - 1]) : c[l][i];
                for (uint64_t k = g->port_first[l]; k < g->port_first[l + 1]; k++)
                    if (g->ports[k].ev == i && g->ports[k].role == ST_REL_RECV)
                        v = tb_max2(v, naive_bound(g, lc, l, &g->ports[k], p));
                changed |= v != lc[l][i];
                lc[l][i] = v;
            }
    }
    refctx_t ctx = { g, lc, p };
    st_clc_scratch_t scratch = { 0 };
    for (uint32_t l = 0; l < t->nlocs; l++) {
        st_rel_loc_t *L = &t->locs[l]; /* forward values into its LC array, amortize, into the events */
        REQUIRE(L->orig == NULL && st_rel_times_alloc(L) == 0);
        memcpy(st_rel_lc(L), lc[l], sizeof(uint64_t) * L->n);
        st_clc_jump_t *j = malloc(sizeof *j * (L->n + 1));
        size_t nj = 0;
        REQUIRE(j);
        for (uint64_t i = 0; i < L->n; i++) {
            uint64_t base = i ? st_clc_base(p, c[l][i], c[l][i - 1], lc[l][i - 1]) : c[l][i];
            if (lc[l][i] > base)
                j[nj++] = (st_clc_jump_t){ i, lc[l][i] - base, 0 };
        }
        REQUIRE(st_clc_backward_loc(p, L, l, g->ports + g->port_first[l], g->port_first[l + 1] - g->port_first[l], j,
                                  nj, naive_limit, &ctx, &scratch, NULL, NULL) == 0);
        for (uint64_t i = 0; i < L->n; i++)
            L->ev[i].time = st_rel_lc(L)[i];
        st_mem_free(L->orig);
        L->orig = NULL;
        free(j);
    }
    st_clc_scratch_free(&scratch);
    free_times(t, c);
    free_times(t, lc);
}

/* ---- the test ------------------------------------------------------------------------------------------ */

static void copy_trace(tb_t *dst, const tb_t *src, const uint32_t *perm)
{
    *dst = *src;
    for (uint32_t l = 0; l < src->nlocs; l++) {
        const st_rel_loc_t *s = &src->locs[perm ? perm[l] : l];
        dst->locs[l] = *s;
        dst->cap[l] = s->n;
        dst->locs[l].orig = NULL;
        dst->locs[l].ev = malloc(sizeof(st_event_t) * (s->n + 1));
        REQUIRE(dst->locs[l].ev);
        if (s->n)
            memcpy(dst->locs[l].ev, s->ev, sizeof(st_event_t) * s->n);
    }
}

static void run_clc(tb_t *t, const st_clc_params_t *p, st_clc_stats_t *st, st_rel_graph_t *g)
{
    st_rel_input_t in = tb_input(t);
    REQUIRE(st_rel_graph_build(&in, g) == 0);
    REQUIRE(st_clc_run(p, &in, g, st) == 0);
}

/* st_clc_violations_refs walks the instances it is given: all of them count what
 * st_clc_violations counts (here on C, where relations are violated), none count nothing
 * (the parallel engine passes its local instances, and an MPI-only rank has none). */
static void check_refs_walk(const tb_t *t, const st_rel_graph_t *g, const st_clc_params_t *p)
{
    uint64_t *times = malloc(sizeof *times * (g->nrefs + 1)), *ks = malloc(sizeof *ks * (g->ninst + 1));
    REQUIRE(times && ks);
    for (uint64_t j = 0; j < g->nrefs; j++)
        times[j] = st_rel_c_at(&t->locs[g->refs[j].loc], g->refs[j].ev);
    for (uint64_t k = 0; k < g->ninst; k++)
        ks[k] = k;
    st_clc_vcount_t all = { 0 }, listed = { 0 }, none = { 0 };
    st_clc_violations(g, t->locs, p, 1, &all);
    st_clc_violations_refs(g, ks, g->ninst, times, p, &listed);
    st_clc_violations_refs(g, ks, 0, times, p, &none);
    st_clc_violations_refs(g, NULL, 0, times, p, &none);
    for (int k = 0; k < ST_REL__KINDS; k++) {
        REQUIRE_EQ(listed.messages[k], all.messages[k]);
        REQUIRE_EQ(listed.violated[k], all.violated[k]);
        REQUIRE_EQ(listed.sum_err[k], all.sum_err[k]);
        REQUIRE_EQ(none.messages[k], 0);
    }
    free(times);
    free(ks);
}

static void check_result(const tb_t *t, const st_rel_graph_t *g, const st_clc_params_t *p, const st_clc_stats_t *st)
{
    check_refs_walk(t, g, p);
    st_clc_vcount_t v = { 0 };
    st_clc_violations(g, t->locs, p, 0, &v);
    for (int k = 0; k < ST_REL__KINDS; k++) {
        REQUIRE_EQ(v.violated[k], 0);
        REQUIRE_EQ(st->remaining.violated[k], 0);
        REQUIRE_EQ(st->remaining.messages[k], st->reversed.messages[k]);
    }
    REQUIRE_EQ(st->unresolved, 0);
    for (uint32_t l = 0; l < t->nlocs; l++) {
        const st_rel_loc_t *L = &t->locs[l];
        for (uint64_t i = 0; i < L->n; i++) {
            REQUIRE(L->ev[i].time >= L->orig[i]);
            if (i) {
                uint64_t dc = L->orig[i] - L->orig[i - 1], need = dc < p->delta ? dc : p->delta;
                REQUIRE(L->orig[i] > L->orig[i - 1]); /* the generator keeps C strictly increasing */
                REQUIRE(L->ev[i].time - L->ev[i - 1].time >= need && L->ev[i].time > L->ev[i - 1].time);
            }
        }
    }
}

static uint64_t reversed_total, jumps_total, bent_total, omp_jumps;

static void one_trace(int nranks, int actions, const st_clc_params_t *p)
{
    sim_t s;
    simulate(&s, nranks, actions);
    tb_t a, b, r;
    uint32_t perm[64];
    for (uint32_t l = 0; l < s.t.nlocs; l++)
        perm[l] = l;
    for (uint32_t l = s.t.nlocs; l > 1; l--) { /* Fisher-Yates */
        uint32_t k = (uint32_t)(tb_rnd() % l), x = perm[l - 1];
        perm[l - 1] = perm[k], perm[k] = x;
    }
    copy_trace(&a, &s.t, NULL);
    copy_trace(&b, &s.t, perm);
    copy_trace(&r, &s.t, NULL);
    st_clc_stats_t sa, sb;
    st_rel_graph_t ga, gb;
    run_clc(&a, p, &sa, &ga);
    run_clc(&b, p, &sb, &gb);
    check_result(&a, &ga, p, &sa);
    reference(&r, &ga, p);
    for (uint32_t l = 0; l < a.nlocs; l++)
        for (uint64_t i = 0; i < a.locs[l].n; i++) {
            if (T(&a, l, i) != T(&r, l, i))
                fprintf(stderr, "seed state %llu: location %u event %llu differs from the reference\n",
                        (unsigned long long)*tb_seed(), l, (unsigned long long)i);
            REQUIRE_EQ(T(&a, l, i), T(&r, l, i));
        }
    for (uint32_t l = 0; l < b.nlocs; l++) /* order-independent */
        for (uint64_t i = 0; i < b.locs[l].n; i++)
            REQUIRE_EQ(T(&a, perm[l], i), T(&b, l, i));
    REQUIRE(!memcmp(&sa.violations, &sb.violations, sizeof sa.violations) && sa.moved == sb.moved);
    reversed_total += sa.reversed.violated[ST_REL_P2P] + sa.reversed.violated[ST_REL_COLL];
    jumps_total += sa.jumps[ST_REL_P2P] + sa.jumps[ST_REL_COLL] + sa.jumps[ST_REL_OMP];
    omp_jumps += sa.jumps[ST_REL_OMP];
    bent_total += sa.ramps_bent;
    st_rel_graph_free(&ga);
    st_rel_graph_free(&gb);
    tb_free(&a);
    tb_free(&b);
    tb_free(&r);
    tb_free(&s.t);
}

int main(void)
{
    st_clc_params_t p;
    st_clc_params_default(&p);
    p.mu_intra = 50, p.mu_inter = 200, p.mu_proc = 2;
    *tb_seed() = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 300; k++)
        one_trace(2 + k % 5, 10 + (int)(tb_rnd() % 60), &p);
    p.gamma = 1.0, p.amort = 0.25, p.delta = 5;
    for (int k = 0; k < 100; k++)
        one_trace(2 + k % 5, 10 + (int)(tb_rnd() % 60), &p);
    st_clc_params_default(&p);
    for (int k = 0; k < 3; k++)
        one_trace(6, 800, &p);
    fprintf(stderr, "reversed %llu, jumps %llu (omp %llu), bent ramps %llu\n", (unsigned long long)reversed_total,
            (unsigned long long)jumps_total, (unsigned long long)omp_jumps, (unsigned long long)bent_total);
    REQUIRE(reversed_total > 100 && jumps_total > 100 && omp_jumps > 0 && bent_total > 0); /* not vacuous */
    printf("test_clc_random: ok\n");
    return 0;
}
