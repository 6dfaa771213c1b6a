/*
 * test_clc_deps.c — deriving logical messages from recorded events: p2p matching by
 * channel in post order (blocking and nonblocking, cancelled and PROC_NULL sends), the
 * numbering of channels used by one thread in order (written straight to the output) and of
 * shared or out-of-order ones (grouped and sorted) against the rule, collective roles by
 * class (1-to-N, N-to-1 with empty members, N-to-N, scan, nonblocking completed on another
 * thread, intercommunicator), the payload rule (count-0 operations and 0-element members
 * take no part, barriers always do), MPI_Init/Finalize, and OpenMP fork/join, barriers (two
 * teams), locks, tasks and taskwait; the collectives on RMA windows (numbered per window in
 * time order, a fence opening an epoch relates nothing); mu classes of instances; the ends the CLC engine omits
 * (omit_self_ends); for every graph: endpoints in the join's order with their events'
 * times, ports in the forward pass' order.
 */
/* link: src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/util/u64map.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/stats.c src/util/log.c */
#include "test_clc_lib.h"

static st_rel_graph_t g;

/* The join that takes the endpoints (ST_REL_JOIN_TAKE) builds the instances in their block
 * and yields the same graph as st_rel_graph_build (g); with ST_REL_JOIN_TIMES, the refs'
 * times. (Whether the shrunk block stays in place is the allocator's business: ASan's
 * realloc always moves.) */
static void same_when_taken(const st_rel_input_t *in)
{
    st_rel_epvec_t ep = { 0 };
    for (int32_t r = 0; r < in->nranks; r++) {
        size_t from = ep.n;
        REQUIRE(st_rel_endpoints(in, r, NULL, &ep, NULL) == 0);
        for (size_t i = from + 1; i < ep.n; i++) /* a rank's endpoints come in the join's order */
            REQUIRE(st_rel_endpoint_cmp(&ep.v[i - 1], &ep.v[i]) < 0);
    }
    for (size_t i = 0; i < ep.n; i++) /* every endpoint carries its event's time */
        REQUIRE_EQ(ep.v[i].time, in->locs[ep.v[i].ref.loc].ev[ep.v[i].ref.ev].time);
    st_rel_graph_t h = { .ds = g.ds };
    REQUIRE(st_rel_graph_join(ep.v, ep.n, in->nlocs, ST_REL_JOIN_TAKE | ST_REL_JOIN_TIMES, &h) == 0);
    REQUIRE(h.ref_time && !g.ref_time);
    for (uint64_t r = 0; r < h.nrefs; r++)
        REQUIRE_EQ(h.ref_time[r], in->locs[h.refs[r].loc].ev[h.refs[r].ev].time);
    REQUIRE_EQ(h.ninst, g.ninst);
    REQUIRE_EQ(h.nrefs, g.nrefs);
    REQUIRE(!memcmp(h.inst, g.inst, sizeof *g.inst * g.ninst) && !memcmp(h.refs, g.refs, sizeof *g.refs * g.nrefs));
    REQUIRE(!memcmp(h.port_first, g.port_first, sizeof *g.port_first * (g.nlocs + 1)));
    REQUIRE(!memcmp(h.ports, g.ports, sizeof *g.ports * g.port_first[g.nlocs]));
    st_rel_graph_free(&h);
}

/* Every location's ports are in the forward pass' order: by event, receives first, each the
 * slot of its event's ref (the join places them by buckets of events, then sorts inside). */
static void ports_in_order(const st_rel_graph_t *h)
{
    for (uint32_t l = 0; l < h->nlocs; l++)
        for (uint64_t j = h->port_first[l]; j < h->port_first[l + 1]; j++) {
            const st_rel_port_t *p = &h->ports[j], *q = p - 1;
            const st_rel_ref_t *x = &h->refs[h->inst[p->inst].first + p->slot];
            REQUIRE(x->loc == l && x->ev == p->ev);
            REQUIRE(p->role == (p->slot < h->inst[p->inst].nsend ? ST_REL_SEND : ST_REL_RECV));
            REQUIRE(j == h->port_first[l] || q->ev < p->ev || (q->ev == p->ev && q->role >= p->role));
        }
}

/* Whether st_rel_endpoints_split hands the OpenMP ends out itself (SPLIT_YES, where a rank has
 * any / _NO), or either. */
enum { SPLIT_ANY, SPLIT_YES, SPLIT_NO };

/* The CLC engine's derivation of one rank (st_rel_endpoints_split, the OpenMP ends handed to
 * st_rel_graph_join_src without 64-byte endpoints of their own) yields the graph st_rel_endpoints
 * and st_rel_graph_join yield, with and without the self ends left out; split: whether the
 * OpenMP ends must have been handed out (their runs few enough to be merged in order). */
static void same_when_split(const st_rel_input_t *in0, int split)
{
    for (int omit = 0; omit < 2; omit++)
        for (int32_t r = 0; r < in0->nranks; r++) {
            st_rel_input_t in = *in0;
            st_rel_derive_opts_t opts = { .omit_self_ends = omit };
            st_rel_epvec_t ep = { 0 }, ep2 = { 0 };
            st_rel_epsrc_t omp;
            st_rel_graph_t a = { 0 }, b = { 0 };
            REQUIRE(st_rel_endpoints(&in, r, &opts, &ep, NULL) == 0);
            REQUIRE(st_rel_endpoints_split(&in, r, &opts, &ep2, NULL, &omp, NULL) == 0);
            int has_omp = 0;
            for (size_t i = 0; i < ep.n; i++)
                has_omp |= ep.v[i].kind == ST_REL_OMP;
            REQUIRE(has_omp || !omp.read); /* (none: nothing to hand out) */
            REQUIRE(split == SPLIT_ANY || (split == SPLIT_YES && has_omp) == (omp.read != NULL));
            REQUIRE(ep2.n + omp.n == ep.n);
            REQUIRE(ep2.cap >= ep2.n + st_rel_inst_room(omp.n)); /* the room the join builds the instances in */
            for (size_t i = 0; i < ep2.n; i++) /* what is in out, and in the same order */
                REQUIRE(!memcmp(&ep2.v[i], &ep.v[i], sizeof *ep.v));
            REQUIRE(st_rel_graph_join(ep.v, ep.n, in.nlocs, ST_REL_JOIN_PARTIAL | ST_REL_JOIN_TIMES, &a) == 0);
            REQUIRE(st_rel_graph_join_src(ep2.v, ep2.n, &omp, in.nlocs,
                                        ST_REL_JOIN_PARTIAL | ST_REL_JOIN_TAKE | ST_REL_JOIN_TIMES, &b) == 0);
            st_rel_endpoint_t x;
            REQUIRE(st_rel_epsrc_read(&omp, &x, 1) == 0); /* read to its end */
            st_rel_epsrc_free(&omp);
            REQUIRE_EQ(b.ninst, a.ninst);
            REQUIRE_EQ(b.nrefs, a.nrefs);
            REQUIRE(!memcmp(b.inst, a.inst, sizeof *a.inst * a.ninst));
            REQUIRE(!memcmp(b.refs, a.refs, sizeof *a.refs * a.nrefs));
            REQUIRE(!memcmp(b.ref_time, a.ref_time, sizeof *a.ref_time * a.nrefs));
            REQUIRE(!memcmp(b.port_first, a.port_first, sizeof *a.port_first * (a.nlocs + 1)));
            REQUIRE(!memcmp(b.ports, a.ports, sizeof *a.ports * a.port_first[a.nlocs]));
            REQUIRE(!memcmp(&b.ds, &a.ds, sizeof a.ds));
            st_rel_graph_free(&a), st_rel_graph_free(&b);
            st_rel_epvec_free(&ep);
        }
}

static void build(tb_t *t, const st_rel_sync_region_t *sync, uint32_t nsync)
{
    st_rel_input_t in = tb_input(t);
    in.sync = sync, in.nsync = nsync;
    REQUIRE(st_rel_graph_build(&in, &g) == 0);
    ports_in_order(&g);
    same_when_taken(&in);
    same_when_split(&in, SPLIT_ANY);
}

/* (loc, ev) has exactly the partners listed (as loc, ev pairs) in role-opposite sets. */
static void partners(uint32_t loc, uint64_t ev, uint8_t role, int n, const uint64_t *want)
{
    st_rel_ref_t r[16];
    int got = tb_partners(&g, loc, ev, role, r, 16);
    if (got != n)
        fprintf(stderr, "event (%u, %llu): %d partners, expected %d\n", loc, (unsigned long long)ev, got, n);
    REQUIRE(got == n);
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int j = 0; j < got; j++)
            found |= r[j].loc == want[2 * i] && r[j].ev == want[2 * i + 1];
        if (!found)
            fprintf(stderr, "event (%u, %llu): partner (%llu, %llu) missing\n", loc, (unsigned long long)ev,
                    (unsigned long long)want[2 * i], (unsigned long long)want[2 * i + 1]);
        REQUIRE(found);
    }
}

#define SENDS_OF(loc, ev, ...)                                                  \
    do {                                                                        \
        const uint64_t w_[] = { __VA_ARGS__ };                                  \
        partners(loc, ev, ST_REL_RECV, (int)(sizeof w_ / sizeof w_[0] / 2), w_); \
    } while (0)
#define NO_PORT(loc, ev) REQUIRE(tb_partners(&g, loc, ev, ST_REL_RECV, NULL, 0) + tb_partners(&g, loc, ev, ST_REL_SEND, NULL, 0) == 0)

static void test_p2p(void)
{
    tb_t t;
    tb_init(&t, 3, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
    tb_send(&t, a, 10, 1, 0);                                /* a0: 1st on (0->1, tag 0) */
    tb_send(&t, a, 15, 1, 1);                                /* a1: tag 1 */
    st_event_t *e = tb_ev(&t, a, ST_EV_MPI_ISEND, 20);       /* a2: 2nd */
    e->peer = 1, e->id = 5;
    tb_send(&t, a, 30, 1, 0);                                /* a3: 3rd */
    e = tb_ev(&t, a, ST_EV_MPI_ISEND, 35);                   /* a4: cancelled */
    e->peer = 1, e->id = 9;
    tb_ev(&t, a, ST_EV_MPI_REQUEST_CANCELLED, 36)->id = 9;   /* a5 */
    e = tb_ev(&t, a, ST_EV_MPI_SEND, 37);                    /* a6: to MPI_PROC_NULL */
    e->peer = 1, e->flags = ST_EVF_PROC_NULL;
    tb_send(&t, a, 40, 2, 0);                                /* a7: never received */

    tb_ev(&t, b, ST_EV_MPI_IRECV_REQUEST, 5)->id = 3;        /* b0: posted first */
    tb_region(&t, b, ST_EV_ENTER, 90, TR_USER);              /* b1 */
    tb_recv(&t, b, 100, 0, 0, 4);                            /* b2: posted second */
    tb_region(&t, b, ST_EV_LEAVE, 101, TR_USER);             /* b3 */
    e = tb_ev(&t, b, ST_EV_MPI_IRECV, 120);                  /* b4: completes the first post */
    e->peer = 0, e->id = 3;
    tb_recv(&t, b, 130, 0, 1, 6);                            /* b5: tag 1 */
    tb_recv(&t, b, 140, 0, 0, 7);                            /* b6: third */
    build(&t, NULL, 0);
    SENDS_OF(b, 4, a, 0);
    SENDS_OF(b, 2, a, 2);
    SENDS_OF(b, 6, a, 3);
    SENDS_OF(b, 5, a, 1);
    NO_PORT(a, 4);
    NO_PORT(a, 6);
    NO_PORT(a, 7);
    REQUIRE_EQ(g.ds.cancelled, 1);
    REQUIRE_EQ(g.ds.unmatched_send, 1);
    REQUIRE_EQ(g.ds.unmatched_recv, 0);
    REQUIRE_EQ(tb_inst(&g, b, 4, ST_REL_RECV)->mumask, ST_REL_MU_INTER);
    REQUIRE_EQ(tb_inst(&g, b, 4, ST_REL_RECV)->kind, ST_REL_P2P);
    REQUIRE_EQ(tb_inst(&g, b, 4, ST_REL_RECV)->key[1], (uint64_t)0 << 32 | 1); /* sender 0, receiver 1 */
    st_rel_graph_free(&g);

    /* One process alone (the parallel version's view): its sends keep their instances. */
    st_rel_input_t in = tb_input(&t);
    st_rel_epvec_t ep = { 0 };
    REQUIRE(st_rel_endpoints(&in, 0, NULL, &ep, NULL) == 0);
    REQUIRE_EQ(ep.n, 5);
    REQUIRE(st_rel_graph_join(ep.v, ep.n, in.nlocs, ST_REL_JOIN_PARTIAL, &g) == 0);
    REQUIRE_EQ(g.ninst, 5);
    REQUIRE(g.inst[0].nsend == 1 && g.inst[0].nrecv == 0);
    st_rel_graph_free(&g);
    REQUIRE(st_rel_graph_join(ep.v, ep.n, in.nlocs, 0, &g) == 0);
    REQUIRE_EQ(g.ninst, 0);
    REQUIRE_EQ(g.ds.unmatched_send, 5);
    st_rel_graph_free(&g);
    st_rel_epvec_free(&ep);
    tb_free(&t);
}

/* ---- point-to-point numbering: the in-order path and the general one ---------------------------- */

/* The p2p endpoints of rank `me` by the rule itself (relations/derive.c): per channel (tag, sender, receiver,
 * comm key), sends by (time, loc, ev), receives by (post id, time, loc, ev), the k-th of each
 * numbered k; cancelled ISENDs and PROC_NULL left out; all in the join's order. */
typedef struct ref_item { uint64_t key[3], o1, o2, time; uint32_t loc; uint64_t ev; uint8_t role; } ref_item_t;

static int cmp_ref_item(const void *a, const void *b)
{
    const ref_item_t *x = a, *y = b;
    const uint64_t kx[] = { x->key[0], x->key[1], x->key[2], x->role, x->o1, x->o2, x->loc, x->ev };
    const uint64_t ky[] = { y->key[0], y->key[1], y->key[2], y->role, y->o1, y->o2, y->loc, y->ev };
    for (int i = 0; i < 8; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

static size_t p2p_reference(const tb_t *t, int32_t me, st_rel_endpoint_t *out)
{
    static ref_item_t it[4096];
    size_t n = 0, m = 0;
    for (uint32_t l = 0; l < t->nlocs; l++)
        for (uint64_t i = 0; t->locs[l].rank == me && i < t->locs[l].n; i++) {
            const st_event_t *e = &t->locs[l].ev[i];
            int send = e->kind == ST_EV_MPI_SEND || e->kind == ST_EV_MPI_ISEND;
            if ((!send && e->kind != ST_EV_MPI_RECV && e->kind != ST_EV_MPI_IRECV) || e->peer < 0 ||
                (e->flags & ST_EVF_PROC_NULL))
                continue;
            int cancelled = 0;
            for (uint64_t j = 0; e->kind == ST_EV_MPI_ISEND && j < t->nlocs; j++)
                for (uint64_t q = 0; t->locs[j].rank == me && q < t->locs[j].n; q++)
                    cancelled |= t->locs[j].ev[q].kind == ST_EV_MPI_REQUEST_CANCELLED && t->locs[j].ev[q].id == e->id;
            if (cancelled)
                continue;
            uint64_t from = (uint32_t)(send ? me : e->peer), to = (uint32_t)(send ? e->peer : me);
            REQUIRE(n < 4096);
            it[n++] = (ref_item_t){ .key = { (uint32_t)e->tag, from << 32 | to, t->comms[me][e->comm].key },
                                    .o1 = send ? e->time : e->id, .o2 = send ? 0 : e->time, .time = e->time,
                                    .loc = l, .ev = i,
                                    .role = send ? ST_REL_SEND : ST_REL_RECV };
        }
    qsort(it, n, sizeof *it, cmp_ref_item);
    for (size_t i = 0, k = 0; i < n; i++) {
        k = i > 0 && !memcmp(it[i].key, it[i - 1].key, sizeof it[i].key) && it[i].role == it[i - 1].role ? k + 1 : 0;
        uint32_t from = (uint32_t)(it[i].key[1] >> 32), to = (uint32_t)it[i].key[1];
        out[m++] = (st_rel_endpoint_t){
            .key = { (uint64_t)ST_REL_KEY_P2P << 56 | it[i].key[0], it[i].key[1], it[i].key[2], k },
            .ref = { .loc = it[i].loc, .ev = it[i].ev }, .time = it[i].time, .role = it[i].role, .kind = ST_REL_P2P,
            .shape = ST_REL_PRODUCT, .mumask = from == to ? ST_REL_MU_PROC : ST_REL_MU_INTER,
        };
    }
    qsort(out, m, sizeof *out, (int (*)(const void *, const void *))st_rel_endpoint_cmp);
    return m;
}

/* Rank 0 talks to itself and to ranks 1 and 2 over three tags: sends (some nonblocking, some
 * cancelled) in time order; receives completed in post order unless `shuffle` (then also a
 * second thread shares the channels). Its p2p endpoints must be the reference's, in order. */
static void p2p_numbering(uint64_t seed, int shuffle)
{
    tb_t t;
    tb_init(&t, 3, 0);
    *tb_seed() = seed;
    uint32_t loc[2] = { tb_loc(&t, 0, 0), tb_loc(&t, 0, 1) };
    uint64_t now[2] = { 1, 1 }, post = 1, req = 1000;
    for (int i = 0; i < 600; i++) {
        int th = shuffle ? (int)tb_between(0, 1) : 0;
        uint32_t l = loc[th];
        int32_t peer = (int32_t)tb_between(0, 2), tag = (int32_t)tb_between(0, 2);
        uint64_t what = tb_between(0, 9);
        st_event_t *e;
        now[th] += tb_between(1, 20);
        if (what < 4) {
            e = tb_ev(&t, l, what == 3 ? ST_EV_MPI_ISEND : ST_EV_MPI_SEND, now[th]);
            e->peer = peer, e->tag = tag, e->comm = 0, e->id = what == 3 ? req++ : 0;
            if (what == 3 && tb_between(0, 3) == 0) /* cancelled, later, maybe on the other thread */
                tb_ev(&t, loc[shuffle ? !th : th], ST_EV_MPI_REQUEST_CANCELLED, now[th] + 1)->id = e->id;
        } else if (what < 9) {
            /* completion order = post order, or (shuffle) a post from a few back */
            uint64_t id = shuffle && post > 4 && tb_between(0, 2) == 0 ? post - tb_between(1, 4) : post;
            post++;
            e = tb_ev(&t, l, what == 8 ? ST_EV_MPI_IRECV : ST_EV_MPI_RECV, now[th]);
            e->peer = peer, e->tag = tag, e->comm = 0, e->id = id;
        } else {
            tb_region(&t, l, ST_EV_ENTER, now[th], TR_USER);
        }
        if (tb_between(0, 30) == 0) { /* to MPI_PROC_NULL */
            e = tb_ev(&t, l, ST_EV_MPI_SEND, ++now[th]);
            e->peer = 1, e->flags = ST_EVF_PROC_NULL;
        }
    }
    st_rel_input_t in = tb_input(&t);
    st_rel_epvec_t ep = { 0 };
    static st_rel_endpoint_t want[4096];
    size_t n = p2p_reference(&t, 0, want);
    REQUIRE(st_rel_endpoints(&in, 0, NULL, &ep, NULL) == 0);
    REQUIRE(n > 300 && ep.n >= n);
    for (size_t i = 0; i < ep.n; i++)
        if (i < n ? memcmp(&ep.v[i], &want[i], sizeof want[i]) != 0 : ep.v[i].kind == ST_REL_P2P) {
            fprintf(stderr, "seed %llu shuffle %d: endpoint %zu differs from the reference\n", (unsigned long long)seed,
                    shuffle, i);
            REQUIRE(0);
        }
    st_rel_epvec_free(&ep);
    tb_free(&t);
}

static void test_p2p_numbering(void)
{
    for (uint64_t seed = 1; seed <= 20; seed++) {
        p2p_numbering(seed * 7919, 0);
        p2p_numbering(seed * 7919, 1);
    }
}

static void test_collectives(void)
{
    tb_t t;
    tb_init(&t, 3, 2); /* node 0: ranks 0, 1; node 1: rank 2 */
    uint32_t l[3], w1;
    for (int r = 0; r < 3; r++)
        l[r] = tb_loc(&t, r, 0);
    w1 = tb_loc(&t, 1, 1); /* a second thread of rank 1 */
    /* events 0,1: bcast root 1; 2,3: reduce root 0; 4,5: gatherv root 0 (rank 2 sends nothing); 6,7: scan */
    for (int r = 0; r < 3; r++) {
        uint64_t b = 100 * (uint64_t)r;
        tb_coll(&t, l[r], b + 1, b + 2, OP_BCAST, 1, 0, r == 1 ? 8 : 0, r == 1 ? 0 : 8);
        tb_coll(&t, l[r], b + 3, b + 4, OP_REDUCE, 0, 1, 8, r == 0 ? 8 : 0);
        tb_coll(&t, l[r], b + 5, b + 6, OP_GATHERV, 0, 2, r == 2 ? 0 : 8, r == 0 ? 16 : 0);
        tb_coll(&t, l[r], b + 7, b + 8, OP_SCAN, -1, 3, 8, 8);
        /* 8: ENTER Iallreduce, 9: ICOLL_REQUEST, 10: LEAVE, 11: ICOLL_COMPLETE (rank 1: on thread 1) */
        tb_region(&t, l[r], ST_EV_ENTER, b + 9, TR_USER);
        tb_ev(&t, l[r], ST_EV_MPI_ICOLL_REQUEST, b + 10)->id = 50 + (uint64_t)r;
        tb_region(&t, l[r], ST_EV_LEAVE, b + 11, TR_USER);
        st_event_t *e = tb_ev(&t, r == 1 ? w1 : l[r], ST_EV_MPI_ICOLL_COMPLETE, b + 12);
        e->op = OP_ALLREDUCE, e->comm = 0, e->id = 50 + (uint64_t)r, e->aux = 4, e->bytes = e->bytes2 = 8;
    }
    build(&t, NULL, 0);
    SENDS_OF(l[0], 1, l[1], 0);
    SENDS_OF(l[2], 1, l[1], 0);
    NO_PORT(l[1], 1); /* the root receives nothing in a bcast */
    REQUIRE_EQ(tb_inst(&g, l[1], 0, ST_REL_SEND)->mumask, ST_REL_MU_INTRA | ST_REL_MU_INTER);
    SENDS_OF(l[0], 3, l[1], 2, l[2], 2);
    NO_PORT(l[1], 3);
    SENDS_OF(l[0], 5, l[1], 4); /* rank 2 had no data for the gatherv */
    NO_PORT(l[2], 4);
    const st_rel_inst_t *scan = tb_inst(&g, l[2], 7, ST_REL_RECV);
    REQUIRE(scan->shape == ST_REL_PREFIX && scan->nsend == 3 && scan->nrecv == 3);
    for (uint32_t i = 0; i < 3; i++) /* sorted by communicator rank */
        REQUIRE(g.refs[scan->first + i].order == i && g.refs[scan->first + i].loc == l[i]);
    /* nonblocking: the ICOLL_REQUEST (start of the I-call) is the send; rank 1 completed on its other thread */
    SENDS_OF(w1, 0, l[0], 9, l[1], 9, l[2], 9);
    SENDS_OF(l[0], 11, l[0], 9, l[1], 9, l[2], 9);
    REQUIRE_EQ(g.ds.no_begin, 0);
    st_rel_graph_free(&g);
    tb_free(&t);
}

/* The payload rule: a member sends only with bytes sent > 0, receives only with bytes
 * received > 0; a barrier synchronizes without data. */
static void test_payload(void)
{
    tb_t t;
    tb_init(&t, 3, 0);
    uint32_t l[3];
    for (int r = 0; r < 3; r++)
        l[r] = tb_loc(&t, r, 0);
    /* 0,1: count-0 allreduce; 2,3: count-0 bcast root 0; 4,5: barrier; 6,7: scatterv root 0,
     * rank 2 gets 0 elements; 8,9: allreduce with MPI_IN_PLACE on rank 0 (own block not
     * counted, still data for the others); 10,11: count-0 scan; 12,13: reduce root 1,
     * rank 0 contributes 0 bytes (its own block; never in a real reduce, but the rule is per member) */
    for (int r = 0; r < 3; r++) {
        uint64_t b = 100 * (uint64_t)r;
        tb_coll(&t, l[r], b + 1, b + 2, OP_ALLREDUCE, -1, 0, 0, 0);
        tb_coll(&t, l[r], b + 3, b + 4, OP_BCAST, 0, 1, 0, 0);
        tb_coll(&t, l[r], b + 5, b + 6, OP_BARRIER, -1, 2, 0, 0);
        tb_coll(&t, l[r], b + 7, b + 8, OP_SCATTERV, 0, 3, r == 0 ? 16 : 0, r == 1 ? 16 : 0);
        tb_coll(&t, l[r], b + 9, b + 10, OP_ALLREDUCE, -1, 4, r == 0 ? 16 : 24, r == 0 ? 16 : 24);
        tb_coll(&t, l[r], b + 11, b + 12, OP_SCAN, -1, 5, 0, 0);
        tb_coll(&t, l[r], b + 13, b + 14, OP_REDUCE, 1, 6, r == 0 ? 0 : 8, r == 1 ? 16 : 0);
    }
    build(&t, NULL, 0);
    for (int r = 0; r < 3; r++) {
        NO_PORT(l[r], 0); NO_PORT(l[r], 1);  /* count-0 allreduce: an event, not a relation */
        NO_PORT(l[r], 2); NO_PORT(l[r], 3);  /* count-0 bcast, root included */
        NO_PORT(l[r], 10); NO_PORT(l[r], 11); /* count-0 scan */
    }
    SENDS_OF(l[0], 5, l[0], 4, l[1], 4, l[2], 4); /* barrier without bytes */
    SENDS_OF(l[1], 7, l[0], 6);             /* scatterv: rank 1 gets data ... */
    NO_PORT(l[2], 7);                       /* ... rank 2 none */
    SENDS_OF(l[1], 9, l[0], 8, l[1], 8, l[2], 8); /* MPI_IN_PLACE does not hide rank 0 */
    SENDS_OF(l[0], 9, l[0], 8, l[1], 8, l[2], 8);
    SENDS_OF(l[1], 13, l[2], 12);          /* reduce: rank 0 contributes nothing */
    NO_PORT(l[0], 12);
    st_rel_graph_free(&g);
    tb_free(&t);
}

static void test_intercomm_sync(void)
{
    tb_t t;
    tb_init(&t, 3, 0);
    int32_t g0[] = { 0 }, g12[] = { 1, 2 };
    for (int r = 0; r < 3; r++) { /* comm index 1 becomes an intercomm {0} <-> {1, 2} */
        st_comm_def_t *d = &t.comms[r][1];
        *d = (st_comm_def_t){ .key = 555, .parent = 0, .flags = ST_COMMF_INTER, .size = r ? 2 : 1,
                              .world = r ? g12 : g0, .remote_size = r ? 1 : 2, .remote_world = r ? g0 : g12 };
    }
    uint32_t l[3];
    const st_rel_sync_region_t sync[] = { { TR_INIT, 0 }, { TR_FINALIZE, 1 } };
    for (int r = 0; r < 3; r++) {
        l[r] = tb_loc(&t, r, 0);
        tb_region(&t, l[r], ST_EV_ENTER, 1, TR_INIT);
        tb_region(&t, l[r], ST_EV_LEAVE, 2, TR_INIT);
        tb_ev(&t, l[r], ST_EV_MPI_COLL_BEGIN, 3);
        st_event_t *e = tb_ev(&t, l[r], ST_EV_MPI_COLL_END, 4);
        e->op = OP_ALLREDUCE, e->comm = 1, e->id = 0, e->flags = ST_EVF_INTERCOMM, e->bytes = e->bytes2 = 8;
        tb_region(&t, l[r], ST_EV_ENTER, 5, TR_FINALIZE);
        tb_region(&t, l[r], ST_EV_LEAVE, 6, TR_FINALIZE);
        tb_ev(&t, l[r], ST_EV_MPI_COLL_BEGIN, 7); /* 6, 7: count-0 allreduce on the intercommunicator */
        e = tb_ev(&t, l[r], ST_EV_MPI_COLL_END, 8);
        e->op = OP_ALLREDUCE, e->comm = 1, e->id = 1, e->flags = ST_EVF_INTERCOMM;
    }
    build(&t, sync, 2);
    for (int r = 0; r < 3; r++) {
        NO_PORT(l[r], 6);
        NO_PORT(l[r], 7);
    }
    SENDS_OF(l[0], 1, l[0], 0, l[1], 0, l[2], 0);
    SENDS_OF(l[0], 5, l[0], 4, l[1], 4, l[2], 4);
    SENDS_OF(l[0], 3, l[1], 2, l[2], 2); /* group {0} receives from group {1,2} */
    SENDS_OF(l[1], 3, l[0], 2);
    SENDS_OF(l[2], 3, l[0], 2);
    st_rel_graph_free(&g);
    tb_free(&t);
}

/* A collective on RMA window `win` of comm index `comm` (ST_NO_COMM: a window the recorder did not
 * know): RMA_COLL_BEGIN at t0 (it names no window), RMA_COLL_END at t1 with op and sync level. */
static void rma_coll(tb_t *t, uint32_t l, uint64_t t0, uint64_t t1, unsigned op, uint32_t comm, int32_t win,
                     uint64_t level)
{
    tb_ev(t, l, ST_EV_RMA_COLL_BEGIN, t0)->comm = ST_NO_COMM;
    st_event_t *e = tb_ev(t, l, ST_EV_RMA_COLL_END, t1);
    e->op = (uint16_t)op, e->comm = comm, e->tag = win, e->bytes = level;
}

/* One-sided communication: the collectives on a window (creation, fence, release) are N-to-N
 * instances over the window's communicator, begin -> every other member's end, numbered per
 * window in the process's time order (rank 1 fences window 1 on its second thread, between its
 * main thread's creation and release of it); a fence that only opens an epoch (sync level
 * MEMORY alone: MPI_MODE_NOPRECEDE) and a window the recorder did not know relate nothing. */
static void test_rma_colls(void)
{
    enum { CREATE = 17, DESTROY = 18, PROCESS_MEMORY = 3, MEMORY = 2 };
    tb_t t;
    tb_init(&t, 3, 2); /* node 0: ranks 0, 1; node 1: rank 2 */
    uint32_t l[3], w1;
    for (int r = 0; r < 3; r++)
        l[r] = tb_loc(&t, r, 0);
    w1 = tb_loc(&t, 1, 1);
    for (int r = 0; r < 3; r++) {
        uint64_t b = 100 * (uint64_t)r;
        rma_coll(&t, l[r], b + 1, b + 2, CREATE, 0, 0, 0);                /* 0, 1: window 0 created */
        rma_coll(&t, l[r], b + 3, b + 4, CREATE, 0, 1, 0);                /* 2, 3: window 1 */
        rma_coll(&t, l[r], b + 5, b + 6, OP_BARRIER, 0, 0, MEMORY);       /* 4, 5: NOPRECEDE fence */
        rma_coll(&t, l[r], b + 7, b + 8, OP_BARRIER, 0, 0, PROCESS_MEMORY); /* 6, 7: fence on window 0 */
        /* ranks 0, 2: 8, 9; rank 1: on thread 1, 0, 1: a fence on window 1 */
        rma_coll(&t, r == 1 ? w1 : l[r], b + 9, b + 10, OP_BARRIER, 0, 1, PROCESS_MEMORY);
        rma_coll(&t, l[r], b + 11, b + 12, OP_BARRIER, ST_NO_COMM, 0, PROCESS_MEMORY); /* an unknown window */
        rma_coll(&t, l[r], b + 13, b + 14, DESTROY, 0, 0, 0);             /* window 0 released */
        rma_coll(&t, l[r], b + 15, b + 16, DESTROY, 0, 1, 0);             /* window 1 released */
    }
    build(&t, NULL, 0);
    SENDS_OF(l[0], 1, l[0], 0, l[1], 0, l[2], 0);
    SENDS_OF(l[2], 3, l[0], 2, l[1], 2, l[2], 2);
    for (int r = 0; r < 3; r++) {
        NO_PORT(l[r], 4);
        NO_PORT(l[r], 5);
    }
    SENDS_OF(l[1], 7, l[0], 6, l[1], 6, l[2], 6);
    SENDS_OF(w1, 1, l[0], 8, w1, 0, l[2], 8);
    SENDS_OF(l[0], 9, l[0], 8, w1, 0, l[2], 8);
    NO_PORT(l[0], 10);
    NO_PORT(l[0], 11);
    NO_PORT(l[1], 8);
    NO_PORT(l[1], 9);
    SENDS_OF(l[0], 13, l[0], 12, l[1], 10, l[2], 12); /* window 0's release, its 4th collective */
    SENDS_OF(l[1], 13, l[0], 14, l[1], 12, l[2], 14); /* window 1's: its 3rd (after the fence on thread 1) */
    const st_rel_inst_t *f = tb_inst(&g, l[0], 7, ST_REL_RECV);
    REQUIRE_EQ(st_rel_inst_type(f), ST_REL_KEY_RMA_COLL);
    REQUIRE(f->key[1] == 2 && f->key[2] == 1 && f->key[3] == 0); /* seq, world's key, window */
    REQUIRE(f->kind == ST_REL_COLL && f->shape == ST_REL_PRODUCT && f->nsend == 3 && f->nrecv == 3);
    REQUIRE_EQ(f->mumask, ST_REL_MU_INTRA | ST_REL_MU_INTER);
    f = tb_inst(&g, l[1], 13, ST_REL_RECV);
    REQUIRE(f->key[1] == 2 && f->key[3] == 1);
    REQUIRE_EQ(tb_inst(&g, w1, 1, ST_REL_RECV)->key[1], 1);
    REQUIRE_EQ(g.ds.no_begin, 0);
    st_rel_graph_free(&g);
    tb_free(&t);
}

static void pscw_sync(tb_t *t, uint32_t l, uint64_t time, unsigned op, uint64_t group)
{
    st_event_t *e = tb_ev(t, l, ST_EV_RMA_GROUP_SYNC, time);
    e->comm = 0, e->tag = 0, e->op = (uint16_t)op, e->id = group;
}

/* General active target (relations/derive_pscw.c): each origin's MPI_Win_complete (its ENTER) -> each
 * target's MPI_Win_wait, the k-th epoch of a pair with the k-th; post -> start relates nothing; an
 * epoch of a target whose post names only some origins matches only theirs. */
static void test_pscw(void)
{
    enum { POST = 1, START, COMPLETE, WAIT };
    static int32_t both[2] = { 1, 2 }, one[1] = { 1 }, zero[1] = { 0 };
    static const st_group_def_t g0[2] = { { 2, both }, { 1, one } }, g12 = { 1, zero };
    tb_t t;
    tb_init(&t, 3, 2); /* node 0: ranks 0, 1; node 1: rank 2 */
    uint32_t l[3];
    for (int r = 0; r < 3; r++)
        l[r] = tb_loc(&t, r, 0);
    t.procs[0].groups = g0, t.procs[0].ngroups = 2;
    t.procs[1].groups = t.procs[2].groups = &g12, t.procs[1].ngroups = t.procs[2].ngroups = 1;
    pscw_sync(&t, l[0], 1, POST, 1);                   /* 0: to ranks 1, 2 */
    pscw_sync(&t, l[0], 50, WAIT, 0);                  /* 1 */
    pscw_sync(&t, l[0], 60, POST, 2);                  /* 2: to rank 1 only */
    pscw_sync(&t, l[0], 90, WAIT, 0);                  /* 3 */
    for (int k = 0; k < 2; k++) {                      /* rank 1: two epochs, 0 .. 3 and 4 .. 7 */
        uint64_t b = 60 * (uint64_t)k;
        pscw_sync(&t, l[1], b + 2, START, 1);
        tb_region(&t, l[1], ST_EV_ENTER, b + 10, TR_USER);
        pscw_sync(&t, l[1], b + 11, COMPLETE, 0);
        tb_region(&t, l[1], ST_EV_LEAVE, b + 12, TR_USER);
    }
    pscw_sync(&t, l[2], 3, START, 1);                  /* rank 2: one epoch, 0 .. 3 */
    tb_region(&t, l[2], ST_EV_ENTER, 20, TR_USER);
    pscw_sync(&t, l[2], 21, COMPLETE, 0);
    tb_region(&t, l[2], ST_EV_LEAVE, 22, TR_USER);
    build(&t, NULL, 0);
    SENDS_OF(l[0], 1, l[1], 1, l[2], 1);
    SENDS_OF(l[0], 3, l[1], 5);
    NO_PORT(l[0], 0);
    NO_PORT(l[0], 2);
    NO_PORT(l[1], 0);
    NO_PORT(l[1], 2);
    const st_rel_inst_t *f = tb_inst(&g, l[1], 5, ST_REL_SEND);
    REQUIRE_EQ(st_rel_inst_type(f), ST_REL_KEY_RMA_PSCW);
    REQUIRE(f->key[1] == (1ull << 32 | 0) && f->key[2] == st_rel_win_key(1, 0) && f->key[3] == 1); /* origin 1, target 0, 2nd */
    REQUIRE(f->kind == ST_REL_P2P && f->nsend == 1 && f->nrecv == 1 && f->mumask == ST_REL_MU_INTRA);
    REQUIRE_EQ(tb_inst(&g, l[2], 1, ST_REL_SEND)->mumask, ST_REL_MU_INTER);
    REQUIRE_EQ(g.ds.unmatched_send + g.ds.unmatched_recv, 0);
    st_rel_graph_free(&g);
    tb_free(&t);
}

/* One lock call on location l of window (comm 0, window 0): ENTER at t0, the call's RMA event (a request
 * at t0, a release at t1 - 1), LEAVE at t1; returns the RMA event's index. */
static uint64_t lock_call(tb_t *t, uint32_t l, unsigned kind, uint64_t t0, uint64_t t1, int32_t peer, unsigned op)
{
    tb_region(t, l, ST_EV_ENTER, t0, TR_USER);
    st_event_t *e = tb_ev(t, l, kind, kind == ST_EV_RMA_REQUEST_LOCK ? t0 : t1 - 1);
    e->comm = 0, e->tag = 0, e->peer = peer, e->op = (uint16_t)op;
    uint64_t i = t->locs[l].n - 1;
    tb_region(t, l, ST_EV_LEAVE, t1, TR_USER);
    return i;
}

static void put_call(tb_t *t, uint32_t l, uint64_t t0, int32_t target)
{
    tb_region(t, l, ST_EV_ENTER, t0, TR_USER);
    st_event_t *e = tb_ev(t, l, ST_EV_RMA_PUT, t0);
    e->comm = 0, e->tag = 0, e->peer = target, e->bytes = 4, e->id = (uint64_t)target << 40 | 1;
    tb_region(t, l, ST_EV_LEAVE, t0 + 1, TR_USER);
}

/* Passive-target locks (relations/locks.h): per target the epochs with an operation in the order of
 * their unlock (its ENTER when a flush proved the lock held, else its return); exclusive ones conflict
 * with their neighbours, a run of shared ones (MPI_Win_lock_all: shared at every target it used) with
 * none inside; each unlock ENTER -> the unlock return of every epoch of the next run. */
static void test_locks(void)
{
    enum { EXCL = 0, SHARED = 1 };
    tb_t t;
    tb_init(&t, 3, 0);
    for (int r = 0; r < 3; r++)
        t.comms[r][0].nwins = 1;
    uint32_t l[3] = { tb_loc(&t, 0, 0), tb_loc(&t, 1, 0), tb_loc(&t, 2, 0) };
    /* target 0: rank 1 exclusive, puts, flushes (the lock is held), unlocks slowly (200 .. 260); rank 2
     * exclusive, waits in its unlock (114 .. 230), which returns first: still rank 1 -> rank 2 */
    lock_call(&t, l[1], ST_EV_RMA_REQUEST_LOCK, 100, 101, 0, EXCL);
    put_call(&t, l[1], 102, 0);
    tb_region(&t, l[1], ST_EV_ENTER, 104, TR_USER);
    st_event_t *c = tb_ev(&t, l[1], ST_EV_RMA_OP_COMPLETE_REMOTE, 105);
    c->comm = 0, c->tag = 0, c->id = 1; /* window rank 0, first operation */
    tb_region(&t, l[1], ST_EV_LEAVE, 106, TR_USER);
    uint64_t x1 = lock_call(&t, l[1], ST_EV_RMA_RELEASE_LOCK, 200, 260, 0, 0);
    lock_call(&t, l[2], ST_EV_RMA_REQUEST_LOCK, 110, 111, 0, EXCL);
    put_call(&t, l[2], 112, 0);
    uint64_t x2 = lock_call(&t, l[2], ST_EV_RMA_RELEASE_LOCK, 114, 230, 0, 0);
    /* target 0: rank 0 exclusive without an operation (no epoch); ranks 1 and 2 shared, rank 0 lock_all
     * with a put to 0 and to 1: one run after rank 2's epoch, none related inside it */
    lock_call(&t, l[0], ST_EV_RMA_REQUEST_LOCK, 600, 601, 0, EXCL);
    lock_call(&t, l[0], ST_EV_RMA_RELEASE_LOCK, 602, 604, 0, 0);
    lock_call(&t, l[1], ST_EV_RMA_REQUEST_LOCK, 700, 701, 0, SHARED);
    put_call(&t, l[1], 702, 0);
    uint64_t s1 = lock_call(&t, l[1], ST_EV_RMA_RELEASE_LOCK, 800, 802, 0, 0);
    lock_call(&t, l[2], ST_EV_RMA_REQUEST_LOCK, 710, 711, 0, SHARED);
    put_call(&t, l[2], 712, 0);
    uint64_t s2 = lock_call(&t, l[2], ST_EV_RMA_RELEASE_LOCK, 714, 850, 0, 0);
    lock_call(&t, l[0], ST_EV_RMA_REQUEST_LOCK, 900, 901, -1, SHARED);
    put_call(&t, l[0], 902, 0);
    put_call(&t, l[0], 903, 1);
    uint64_t a0 = lock_call(&t, l[0], ST_EV_RMA_RELEASE_LOCK, 1000, 1003, -1, 0);
    /* target 0: rank 1 exclusive after the run; target 1: rank 2 shared beside the lock_all: no conflict */
    lock_call(&t, l[1], ST_EV_RMA_REQUEST_LOCK, 905, 1001, 0, EXCL);
    put_call(&t, l[1], 1002, 0);
    uint64_t x3 = lock_call(&t, l[1], ST_EV_RMA_RELEASE_LOCK, 1004, 1006, 0, 0);
    lock_call(&t, l[2], ST_EV_RMA_REQUEST_LOCK, 905, 906, 1, SHARED);
    put_call(&t, l[2], 907, 1);
    lock_call(&t, l[2], ST_EV_RMA_RELEASE_LOCK, 1010, 1012, 1, 0);
    st_rel_input_t in = tb_input(&t);
    REQUIRE(st_rel_input_lock_order(&in) == 0);
    REQUIRE_EQ(in.nlocks, 8); /* target 0: 2 exclusive, 2 shared, the lock_all, 1 exclusive; target 1: 2 */
    REQUIRE(st_rel_graph_build(&in, &g) == 0);
    ports_in_order(&g);
    same_when_taken(&in);
    same_when_split(&in, SPLIT_ANY);
    SENDS_OF(l[2], x2, l[1], x1 - 1);                          /* rank 1's unlock ENTER -> rank 2's release */
    SENDS_OF(l[1], s1, l[2], x2 - 1);                          /* rank 2 -> each of the shared run */
    SENDS_OF(l[2], s2, l[2], x2 - 1);
    SENDS_OF(l[0], a0, l[2], x2 - 1);
    SENDS_OF(l[1], x3, l[1], s1 - 1, l[2], s2 - 1, l[0], a0 - 1); /* the run -> rank 1's last epoch */
    uint64_t n = 0;
    for (uint64_t k = 0; k < g.ninst; k++)
        n += st_rel_inst_type(&g.inst[k]) == ST_REL_KEY_RMA_LOCK;
    REQUIRE_EQ(n, 7); /* none at target 1, none inside the shared run, none of rank 0's empty epoch */
    const st_rel_inst_t *f = tb_inst(&g, l[1], x1 - 1, ST_REL_SEND);
    REQUIRE_EQ(st_rel_inst_type(f), ST_REL_KEY_RMA_LOCK);
    REQUIRE(f->key[1] == (1ull << 32 | 2) && f->key[2] == st_rel_win_key(1, 0));
    REQUIRE(f->kind == ST_REL_P2P && f->nsend == 1 && f->nrecv == 1 && f->mumask == ST_REL_MU_INTER);
    st_rel_graph_free(&g);
    /* without a table (CLC's inputs) no lock relation */
    st_mem_free(in.locks);
    in.locks = NULL, in.nlocks = 0;
    REQUIRE(st_rel_graph_build(&in, &g) == 0);
    for (uint64_t k = 0; k < g.ninst; k++)
        REQUIRE(st_rel_inst_type(&g.inst[k]) != ST_REL_KEY_RMA_LOCK);
    st_rel_graph_free(&g);
    tb_free(&t);
}

/* An exclusive epoch of location l at target 0 with one put: MPI_Win_lock t0 .. t0 + 2 (its ticket,
 * 0 none, recorded at t0 + 1 as the call returns), the put at t0 + 3, MPI_Win_unlock t0 + 5 .. t0 + 7.
 * *acq: the RMA_ACQUIRE_LOCK's index; returns the RMA_RELEASE_LOCK's. */
static uint64_t ticket_epoch_op(tb_t *t, uint32_t l, uint64_t t0, uint64_t ticket, uint64_t *acq, int op)
{
    tb_region(t, l, ST_EV_ENTER, t0, TR_USER);
    st_event_t *e = tb_ev(t, l, ST_EV_RMA_REQUEST_LOCK, t0);
    e->comm = 0, e->tag = 0, e->peer = 0, e->op = 0;
    *acq = UINT64_MAX;
    if (ticket) {
        e = tb_ev(t, l, ST_EV_RMA_ACQUIRE_LOCK, t0 + 1);
        e->comm = 0, e->tag = 0, e->peer = 0, e->op = 0, e->id = ticket;
        *acq = t->locs[l].n - 1;
    }
    tb_region(t, l, ST_EV_LEAVE, t0 + 2, TR_USER);
    if (op)
        put_call(t, l, t0 + 3, 0);
    return lock_call(t, l, ST_EV_RMA_RELEASE_LOCK, t0 + 5, t0 + 8, 0, 0);
}

/* An exclusive MPI_Win_lock epoch at target 0 with a ticket and a put at t0 + 3: its RMA_RELEASE_LOCK. */
static uint64_t ticket_epoch(tb_t *t, uint32_t l, uint64_t t0, uint64_t ticket, uint64_t *acq)
{
    return ticket_epoch_op(t, l, t0, ticket, acq, 1);
}

/* An epoch without an operation holds the lock where it has a ticket (MPI_Win_lock returned holding it):
 * it is in the order, and the epoch after it waited for it; without a ticket it is left out, as MPI lets
 * such an epoch never acquire the lock. */
static void test_lock_empty_epoch(void)
{
    for (int ticketed = 0; ticketed < 2; ticketed++) {
        tb_t t;
        tb_init(&t, 3, 0);
        for (int r = 0; r < 3; r++)
            t.comms[r][0].nwins = 1;
        uint32_t l1 = tb_loc(&t, 1, 0), l2 = tb_loc(&t, 2, 0);
        uint64_t a1, a2; /* rank 1 locks target 0 first and does nothing; then rank 2, with a put */
        uint64_t r1 = ticket_epoch_op(&t, l1, 100, ticketed ? 1 : 0, &a1, 0);
        ticket_epoch_op(&t, l2, 104, ticketed ? 2 : 0, &a2, 1);
        st_rel_input_t in = tb_input(&t);
        REQUIRE(st_rel_input_lock_order(&in) == 0);
        REQUIRE_EQ(in.nlocks, ticketed ? 2 : 1);
        REQUIRE(st_rel_graph_build(&in, &g) == 0);
        if (ticketed)
            SENDS_OF(l2, a2, l1, r1 - 1);
        st_rel_graph_free(&g);
        st_mem_free(in.locks);
        tb_free(&t);
    }
}

/* Lock tickets (RMA_ACQUIRE_LOCK, the order the lock was granted in at the target): a (window, target)
 * whose epochs all have one is ordered by them, whatever the times say, and its relations end at the
 * later epoch's lock return; CLC keeps only those (st_rel_input_lock_keep_ticketed); a target where one
 * epoch lacks a ticket is ordered by the times, as without tickets. The relations of a pair of origins
 * are numbered 0, 1, ... per window (key[3]), as the parallel correction matches a partner's messages. */
static void test_lock_tickets(void)
{
    for (int one_missing = 0; one_missing < 2; one_missing++) {
        tb_t t;
        tb_init(&t, 3, 0);
        for (int r = 0; r < 3; r++)
            t.comms[r][0].nwins = 1;
        uint32_t l0 = tb_loc(&t, 0, 0), l1 = tb_loc(&t, 1, 0), l2 = tb_loc(&t, 2, 0);
        /* rank 1 held the lock first (ticket 1), then rank 2 (ticket 2), then rank 1 again (ticket 3);
         * rank 1's clock is far ahead: its epochs look later than rank 2's */
        uint64_t a1, a2, a3;
        uint64_t r2 = ticket_epoch(&t, l2, 100, 2, &a2);
        uint64_t r1 = ticket_epoch(&t, l1, 500, 1, &a1);
        uint64_t r3 = ticket_epoch(&t, l1, 600, one_missing ? 0 : 3, &a3);
        /* rank 0's MPI_Win_lock_all, earliest by the times, last by its ticket at target 0 (4; and 1 at
         * target 1, where it has no operation: no epoch there), a put to 0 */
        tb_region(&t, l0, ST_EV_ENTER, 10, TR_USER);
        st_event_t *e = tb_ev(&t, l0, ST_EV_RMA_REQUEST_LOCK, 10);
        e->comm = 0, e->tag = 0, e->peer = -1, e->op = 1;
        for (int32_t target = 0; target < 2; target++) {
            e = tb_ev(&t, l0, ST_EV_RMA_ACQUIRE_LOCK, 11);
            e->comm = 0, e->tag = 0, e->peer = target, e->op = 1, e->id = target ? 1 : 4;
        }
        uint64_t a0 = t.locs[l0].n - 2;
        tb_region(&t, l0, ST_EV_LEAVE, 12, TR_USER);
        put_call(&t, l0, 13, 0);
        lock_call(&t, l0, ST_EV_RMA_RELEASE_LOCK, 20, 22, -1, 0);
        (void)a1, (void)r1;
        st_rel_input_t in = tb_input(&t);
        REQUIRE(st_rel_input_lock_order(&in) == 0);
        REQUIRE_EQ(in.nlocks, 4);
        for (size_t i = 0; i < 4; i++)
            REQUIRE_EQ(in.locks[i].by_ticket, !one_missing);
        REQUIRE(st_rel_graph_build(&in, &g) == 0);
        same_when_taken(&in);
        same_when_split(&in, SPLIT_ANY);
        if (!one_missing) { /* by the tickets: 1 -> 2 -> 1 -> the lock_all, at the lock returns */
            SENDS_OF(l2, a2, l1, r1 - 1);
            SENDS_OF(l1, a3, l2, r2 - 1);
            SENDS_OF(l0, a0, l1, r3 - 1);
            const st_rel_inst_t *f = tb_inst(&g, l1, r1 - 1, ST_REL_SEND);
            REQUIRE(f->key[1] == (1ull << 32 | 2) && f->key[3] == 0);
        } else { /* by the times: rank 2's epoch first, then rank 1's two (one phase each) */
            SENDS_OF(l1, r1, l2, r2 - 1);
            NO_PORT(l2, a2);
        }
        st_rel_graph_free(&g);
        /* CLC's table: the ticketed epochs only */
        st_rel_input_lock_keep_ticketed(&in);
        REQUIRE_EQ(in.nlocks, one_missing ? 0 : 4);
        st_mem_free(in.locks);
        tb_free(&t);
    }
}

static void lock_ev(tb_t *t, uint32_t l, unsigned kind, uint64_t time, uint64_t order)
{
    st_event_t *e = tb_ev(t, l, kind, time);
    e->id = 5, e->bytes = order, e->op = 1;
}

static void task_switch(tb_t *t, uint32_t l, uint64_t time, uint64_t to, uint64_t from)
{
    st_event_t *e = tb_ev(t, l, ST_EV_THREAD_TASK_SWITCH, time);
    e->id = to, e->aux = from;
}

/* Two teams of two threads (the later one with the smaller id), two barriers each: a thread's
 * barrier ends come in time order, the join's order is by (team, barrier). */
static void test_openmp_teams(void)
{
    tb_t t;
    tb_init(&t, 1, 0);
    uint32_t m = tb_loc(&t, 0, 0), w = tb_loc(&t, 0, 1);
    uint64_t now = 1;
    for (uint64_t team = 9; team >= 5; team -= 4) {
        tb_ev(&t, m, ST_EV_THREAD_FORK, now++)->id = team;
        tb_ev(&t, m, ST_EV_THREAD_TEAM_BEGIN, now++)->id = team;
        tb_ev(&t, w, ST_EV_THREAD_TEAM_BEGIN, now++)->id = team;
        for (int b = 0; b < 2; b++, now += 20)
            for (uint32_t l = m; l <= w; l++) {
                tb_region(&t, l, ST_EV_ENTER, now + l, TR_OMP_BARRIER);
                tb_region(&t, l, ST_EV_LEAVE, now + 10 + l, TR_OMP_BARRIER);
            }
        tb_ev(&t, w, ST_EV_THREAD_TEAM_END, now++)->id = team;
        tb_ev(&t, m, ST_EV_THREAD_TEAM_END, now++)->id = team;
        tb_ev(&t, m, ST_EV_THREAD_JOIN, now++)->id = team;
    }
    build(&t, NULL, 0); /* also checks the rank's endpoints come in the join's order */
    SENDS_OF(m, 3, m, 2, w, 1);   /* team 9, barrier 0: both ENTERs */
    SENDS_OF(w, 4, m, 4, w, 3);   /* team 9, barrier 1 */
    SENDS_OF(m, 13, m, 12, w, 9); /* team 5, barrier 1 */
    st_rel_graph_free(&g);
    tb_free(&t);
}

/* Team 7 of master m and worker w opens: the fork and the team begins (m0, m1, w0). */
static void team7_open(tb_t *t, uint32_t m, uint32_t w)
{
    tb_ev(t, m, ST_EV_THREAD_FORK, 1)->id = 7;
    tb_ev(t, m, ST_EV_THREAD_TEAM_BEGIN, 2)->id = 7;
    tb_ev(t, w, ST_EV_THREAD_TEAM_BEGIN, 3)->id = 7;
}

/* ... and closes after the events of both: the implicit barrier (m at 70-71, w at 65-73), the team
 * ends (72, 74) and the join (80): m's last four events, w's last three. */
static void team7_close(tb_t *t, uint32_t m, uint32_t w)
{
    tb_region(t, m, ST_EV_ENTER, 70, TR_OMP_IBARRIER);
    tb_region(t, m, ST_EV_LEAVE, 71, TR_OMP_IBARRIER);
    tb_ev(t, m, ST_EV_THREAD_TEAM_END, 72)->id = 7;
    tb_ev(t, m, ST_EV_THREAD_JOIN, 80)->id = 7;
    tb_region(t, w, ST_EV_ENTER, 65, TR_OMP_IBARRIER);
    tb_region(t, w, ST_EV_LEAVE, 73, TR_OMP_IBARRIER);
    tb_ev(t, w, ST_EV_THREAD_TEAM_END, 74)->id = 7;
}

static void test_openmp(void)
{
    tb_t t;
    tb_init(&t, 1, 0);
    uint32_t m = tb_loc(&t, 0, 0), w = tb_loc(&t, 0, 1);
    team7_open(&t, m, w);                                       /* m0, m1, w0 */
    tb_ev(&t, m, ST_EV_THREAD_TASK_CREATE, 10)->id = 11;        /* m2 */
    tb_ev(&t, m, ST_EV_THREAD_TASK_CREATE, 11)->id = 12;        /* m3 */
    tb_region(&t, m, ST_EV_ENTER, 20, TR_OMP_TASKWAIT);         /* m4 */
    task_switch(&t, m, 21, 12, 42);                             /* m5: runs child 12; implicit task is 42 */
    tb_ev(&t, m, ST_EV_THREAD_TASK_COMPLETE, 25)->id = 12;      /* m6 */
    task_switch(&t, m, 26, 42, 12);                             /* m7 */
    tb_region(&t, m, ST_EV_LEAVE, 40, TR_OMP_TASKWAIT);         /* m8 */
    lock_ev(&t, m, ST_EV_THREAD_ACQUIRE_LOCK, 41, 1);           /* m9 */
    lock_ev(&t, m, ST_EV_THREAD_RELEASE_LOCK, 42, 1);           /* m10 */
    tb_region(&t, m, ST_EV_ENTER, 50, TR_OMP_BARRIER);          /* m11 */
    tb_region(&t, m, ST_EV_LEAVE, 51, TR_OMP_BARRIER);          /* m12 */
    lock_ev(&t, m, ST_EV_THREAD_ACQUIRE_LOCK, 60, 3);           /* m13 */
    lock_ev(&t, m, ST_EV_THREAD_RELEASE_LOCK, 61, 3);           /* m14 */

    task_switch(&t, w, 15, 11, 99);                             /* w1 */
    tb_ev(&t, w, ST_EV_THREAD_TASK_COMPLETE, 30)->id = 11;      /* w2 */
    task_switch(&t, w, 31, 99, 11);                             /* w3 */
    lock_ev(&t, w, ST_EV_THREAD_ACQUIRE_LOCK, 43, 2);           /* w4 */
    lock_ev(&t, w, ST_EV_THREAD_RELEASE_LOCK, 44, 2);           /* w5 */
    tb_region(&t, w, ST_EV_ENTER, 52, TR_OMP_BARRIER);          /* w6 */
    tb_region(&t, w, ST_EV_LEAVE, 53, TR_OMP_BARRIER);          /* w7 */
    team7_close(&t, m, w);                                      /* m15-m18, w8-w10 */
    build(&t, NULL, 0);
    { /* one rank's endpoints come in the join's order, though each thread's were met in turn */
        st_rel_input_t in = tb_input(&t);
        st_rel_epvec_t ep = { 0 };
        REQUIRE(st_rel_endpoints(&in, 0, NULL, &ep, NULL) == 0);
        for (size_t i = 1; i < ep.n; i++)
            REQUIRE(st_rel_endpoint_cmp(&ep.v[i - 1], &ep.v[i]) <= 0);
        st_rel_epvec_free(&ep);
    }
    SENDS_OF(w, 0, m, 0);           /* fork -> team begin */
    SENDS_OF(m, 18, m, 17, w, 10);  /* team ends -> join */
    SENDS_OF(w, 1, m, 2);           /* create 11 -> its start */
    SENDS_OF(m, 5, m, 3);           /* create 12 -> its start */
    SENDS_OF(m, 7, m, 5);           /* implicit task 42: switched away, resumed */
    SENDS_OF(w, 3, w, 1);           /* task 99 likewise */
    SENDS_OF(m, 8, m, 6, w, 2);     /* taskwait exit <- both children's completions */
    SENDS_OF(w, 4, m, 10);          /* lock order 1 -> 2 -> 3 */
    SENDS_OF(m, 13, w, 5);
    NO_PORT(m, 14);                 /* last release: nobody acquires after it */
    SENDS_OF(w, 7, m, 11, w, 6);    /* first barrier of team 7 */
    SENDS_OF(m, 16, m, 15, w, 8);   /* second barrier (implicit) */
    REQUIRE_EQ(tb_inst(&g, w, 0, ST_REL_RECV)->kind, ST_REL_OMP);
    REQUIRE_EQ(tb_inst(&g, w, 0, ST_REL_RECV)->mumask, ST_REL_MU_PROC);
    st_rel_graph_free(&g);
    tb_free(&t);
}

/* A worker whose clock was held back (its events stamped with one time, 20, taken from its
 * master's clock) must keep its own order in the task and taskwait relations: the type of an
 * item breaks ties between threads only. Ordered by type, task 11's switch away (w3) came before
 * its start (w1) and sent to it, and the create of 13 (w6) before the taskwait it follows (w4),
 * whose exit then waited for 13's completion: both relations run backwards on the worker and close
 * a cycle in CLC (seen under per-thread clock skew in t_clc_hybrid). */
static void test_openmp_ties(void)
{
    tb_t t;
    tb_init(&t, 1, 0);
    uint32_t m = tb_loc(&t, 0, 0), w = tb_loc(&t, 0, 1);
    team7_open(&t, m, w);                                       /* m0, m1, w0 */
    tb_ev(&t, m, ST_EV_THREAD_TASK_CREATE, 10)->id = 11;        /* m2 */
    task_switch(&t, m, 22, 13, 42);                             /* m3: runs 13 */
    tb_ev(&t, m, ST_EV_THREAD_TASK_COMPLETE, 25)->id = 13;      /* m4 */
    task_switch(&t, m, 26, 42, 13);                             /* m5 */

    task_switch(&t, w, 20, 11, 99);                             /* w1: runs 11 */
    tb_ev(&t, w, ST_EV_THREAD_TASK_COMPLETE, 20)->id = 11;      /* w2 */
    task_switch(&t, w, 20, 99, 11);                             /* w3 */
    tb_region(&t, w, ST_EV_ENTER, 20, TR_OMP_TASKWAIT);         /* w4: no child yet */
    tb_region(&t, w, ST_EV_LEAVE, 20, TR_OMP_TASKWAIT);         /* w5 */
    tb_ev(&t, w, ST_EV_THREAD_TASK_CREATE, 20)->id = 13;        /* w6 */
    tb_region(&t, w, ST_EV_ENTER, 30, TR_OMP_TASKWAIT);         /* w7 */
    tb_region(&t, w, ST_EV_LEAVE, 31, TR_OMP_TASKWAIT);         /* w8 */
    team7_close(&t, m, w);                                      /* m6-m9, w9-w11 */
    build(&t, NULL, 0);
    SENDS_OF(w, 1, m, 2);  /* create 11 -> its start, not its switch away */
    SENDS_OF(w, 3, w, 1);  /* the worker's implicit task 99: away at w1, back at w3 */
    SENDS_OF(m, 3, w, 6);  /* create 13 -> its start */
    SENDS_OF(w, 8, m, 4);  /* the second taskwait's exit <- 13's completion */
    NO_PORT(w, 5);         /* the first taskwait waited for nothing */
    for (uint64_t k = 0; k < g.ninst; k++) { /* no relation runs backwards on one location */
        const st_rel_inst_t *in = &g.inst[k];
        for (uint32_t i = 0; i < in->nsend; i++)
            for (uint32_t j = in->nsend; j < in->nsend + in->nrecv; j++)
                REQUIRE(g.refs[in->first + i].loc != g.refs[in->first + j].loc ||
                        g.refs[in->first + i].ev < g.refs[in->first + j].ev);
    }
    st_rel_graph_free(&g);
    tb_free(&t);
}

/* Has ep an end (loc, ev, role)? */
static int has_end(const st_rel_epvec_t *ep, uint32_t loc, uint64_t ev, uint8_t role)
{
    for (size_t i = 0; i < ep->n; i++)
        if (ep->v[i].ref.loc == loc && ep->v[i].ref.ev == ev && ep->v[i].role == role)
            return 1;
    return 0;
}

/* omit_self_ends (the CLC engine's derivation) leaves out exactly the OpenMP ends whose
 * partners are all on their own location, and nothing else. */
static void test_omit_self_ends(void)
{
    tb_t t;
    tb_init(&t, 1, 0);
    uint32_t m = tb_loc(&t, 0, 0), w = tb_loc(&t, 0, 1);
    tb_ev(&t, m, ST_EV_THREAD_FORK, 1)->id = 7;                 /* m0 */
    tb_ev(&t, m, ST_EV_THREAD_TEAM_BEGIN, 2)->id = 7;           /* m1: its fork is its own */
    lock_ev(&t, m, ST_EV_THREAD_ACQUIRE_LOCK, 10, 1);           /* m2 */
    lock_ev(&t, m, ST_EV_THREAD_RELEASE_LOCK, 11, 1);           /* m3: -> m4, same thread */
    lock_ev(&t, m, ST_EV_THREAD_ACQUIRE_LOCK, 12, 2);           /* m4 */
    lock_ev(&t, m, ST_EV_THREAD_RELEASE_LOCK, 13, 2);           /* m5: -> w1 */
    tb_ev(&t, m, ST_EV_THREAD_TEAM_END, 30)->id = 7;            /* m6: its join is its own */
    tb_ev(&t, m, ST_EV_THREAD_JOIN, 40)->id = 7;                /* m7 */
    tb_ev(&t, w, ST_EV_THREAD_TEAM_BEGIN, 3)->id = 7;           /* w0 */
    lock_ev(&t, w, ST_EV_THREAD_ACQUIRE_LOCK, 14, 3);           /* w1 */
    lock_ev(&t, w, ST_EV_THREAD_RELEASE_LOCK, 15, 3);           /* w2: last release */
    tb_ev(&t, w, ST_EV_THREAD_TEAM_END, 31)->id = 7;            /* w3 */
    st_rel_input_t in = tb_input(&t);
    st_rel_epvec_t all = { 0 }, some = { 0 };
    REQUIRE(st_rel_endpoints(&in, 0, NULL, &all, NULL) == 0);
    REQUIRE(st_rel_endpoints(&in, 0, &(st_rel_derive_opts_t){ .omit_self_ends = 1 }, &some, NULL) == 0);
    REQUIRE_EQ(all.n, some.n + 4);
    for (size_t i = 0; i < some.n; i++)
        REQUIRE(has_end(&all, some.v[i].ref.loc, some.v[i].ref.ev, some.v[i].role));
    static const struct { uint32_t loc; uint64_t ev; uint8_t role; } gone[] = {
        { 0, 1, ST_REL_RECV }, { 0, 6, ST_REL_SEND }, { 0, 3, ST_REL_SEND }, { 0, 4, ST_REL_RECV },
    };
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++) {
        uint32_t loc = gone[i].loc ? w : m;
        REQUIRE(has_end(&all, loc, gone[i].ev, gone[i].role) && !has_end(&some, loc, gone[i].ev, gone[i].role));
    }
    REQUIRE(has_end(&some, w, 0, ST_REL_RECV) && has_end(&some, m, 0, ST_REL_SEND)); /* fork -> worker */
    REQUIRE(has_end(&some, w, 3, ST_REL_SEND) && has_end(&some, m, 7, ST_REL_RECV)); /* worker -> join */
    REQUIRE(has_end(&some, m, 5, ST_REL_SEND) && has_end(&some, w, 1, ST_REL_RECV)); /* lock m -> w */
    for (size_t i = 1; i < some.n; i++)
        REQUIRE(st_rel_endpoint_cmp(&some.v[i - 1], &some.v[i]) <= 0);
    st_rel_epvec_free(&all);
    st_rel_epvec_free(&some);
    tb_free(&t);
}

/* The join takes no more of a source's endpoints than the source said it has (its refs are
 * sized by that), nor endpoints out of the join's order: an error, not an overrun. */
static void test_join_src_guards(void)
{
    st_rel_endpoint_t v[3];
    for (int i = 0; i < 3; i++)
        v[i] = (st_rel_endpoint_t){ .key = { (uint64_t)ST_REL_KEY_OMP_BARRIER << 56, 0, 7, (uint64_t)i },
                                    .ref = { .loc = 0, .ev = (uint64_t)i }, .role = ST_REL_SEND, .kind = ST_REL_OMP };
    tb_array_src_t a = { v, 3, 0 };
    st_rel_epsrc_t src = tb_array_src(&a);
    st_rel_graph_t h = { 0 };
    REQUIRE(st_rel_graph_join_src(NULL, 0, &src, 1, ST_REL_JOIN_PARTIAL, &h) == 0 && h.ninst == 3);
    st_rel_graph_free(&h);
    a.at = 0, src.n = 2; /* claims fewer than it gives */
    REQUIRE(st_rel_graph_join_src(NULL, 0, &src, 1, ST_REL_JOIN_PARTIAL, &h) == -1 && h.ninst == 0);
    st_rel_endpoint_t w = v[2];
    v[2] = v[0], v[0] = w; /* out of order */
    a.at = 0, src.n = 3;
    REQUIRE(st_rel_graph_join_src(NULL, 0, &src, 1, ST_REL_JOIN_PARTIAL, &h) == -1 && h.ninst == 0);
}

/* The split derivation (same_when_split) where the join reads the OpenMP ends in parts: an
 * instance of more ends than a part (the taskwait of 1500 children, 1501 ends), instances
 * going on from one part into the next, point-to-point and collective endpoints in out before
 * them; and where one thread's teams come with falling ids, so that its fork, join and barrier
 * ends make more runs than the merge takes (the ends then go into out, for the join's sort). */
static void test_split(void)
{
    tb_t t;
    tb_init(&t, 2, 0);
    uint32_t m = tb_loc(&t, 0, 0), w = tb_loc(&t, 0, 1), o = tb_loc(&t, 1, 0);
    uint64_t now = 1;
    tb_send(&t, m, now++, 1, 3);
    tb_recv(&t, o, now++, 0, 3, 1);
    tb_coll(&t, m, now, now + 1, OP_ALLREDUCE, -1, 1, 8, 8);
    tb_coll(&t, o, now, now + 1, OP_ALLREDUCE, -1, 1, 8, 8);
    now += 2;
    tb_ev(&t, m, ST_EV_THREAD_FORK, now++)->id = 7;
    tb_ev(&t, m, ST_EV_THREAD_TEAM_BEGIN, now++)->id = 7;
    tb_ev(&t, w, ST_EV_THREAD_TEAM_BEGIN, now++)->id = 7;
    for (uint64_t k = 0; k < 1500; k++)
        tb_ev(&t, m, ST_EV_THREAD_TASK_CREATE, now++)->id = 1000 + k;
    tb_region(&t, m, ST_EV_ENTER, now++, TR_OMP_TASKWAIT);
    for (uint64_t k = 0; k < 1500; k++) {
        task_switch(&t, w, now++, 1000 + k, 99);
        tb_ev(&t, w, ST_EV_THREAD_TASK_COMPLETE, now++)->id = 1000 + k;
        task_switch(&t, w, now++, 99, 1000 + k);
    }
    tb_region(&t, m, ST_EV_LEAVE, now++, TR_OMP_TASKWAIT);
    for (int b = 0; b < 700; b++, now += 4) /* 700 barrier instances of 4 ends: across parts */
        for (uint32_t l = m; l <= w; l++) {
            tb_region(&t, l, ST_EV_ENTER, now + l, TR_OMP_BARRIER);
            tb_region(&t, l, ST_EV_LEAVE, now + 2 + l, TR_OMP_BARRIER);
        }
    tb_ev(&t, w, ST_EV_THREAD_TEAM_END, now++)->id = 7;
    tb_ev(&t, m, ST_EV_THREAD_TEAM_END, now++)->id = 7;
    tb_ev(&t, m, ST_EV_THREAD_JOIN, now++)->id = 7;
    st_rel_input_t in = tb_input(&t);
    REQUIRE(st_rel_graph_build(&in, &g) == 0);
    REQUIRE_EQ(tb_inst(&g, m, 1506, ST_REL_RECV)->nsend, 1500); /* the taskwait's exit: every completion */
    same_when_split(&in, SPLIT_YES);
    st_rel_graph_free(&g);
    tb_free(&t);

    tb_init(&t, 1, 0);
    m = tb_loc(&t, 0, 0), w = tb_loc(&t, 0, 1);
    now = 1;
    for (uint64_t team = 200; team > 100; team--) { /* 100 teams, ids falling: 100 runs of each kind */
        tb_ev(&t, m, ST_EV_THREAD_FORK, now++)->id = team;
        tb_ev(&t, m, ST_EV_THREAD_TEAM_BEGIN, now++)->id = team;
        tb_ev(&t, w, ST_EV_THREAD_TEAM_BEGIN, now++)->id = team;
        for (uint32_t l = m; l <= w; l++) {
            tb_region(&t, l, ST_EV_ENTER, now + l, TR_OMP_BARRIER);
            tb_region(&t, l, ST_EV_LEAVE, now + 2 + l, TR_OMP_BARRIER);
        }
        now += 4;
        tb_ev(&t, w, ST_EV_THREAD_TEAM_END, now++)->id = team;
        tb_ev(&t, m, ST_EV_THREAD_TEAM_END, now++)->id = team;
        tb_ev(&t, m, ST_EV_THREAD_JOIN, now++)->id = team;
    }
    in = tb_input(&t);
    REQUIRE(st_rel_graph_build(&in, &g) == 0);
    same_when_split(&in, SPLIT_NO);
    st_rel_graph_free(&g);
    tb_free(&t);
}

int main(void)
{
    test_p2p();
    test_p2p_numbering();
    test_collectives();
    test_payload();
    test_intercomm_sync();
    test_rma_colls();
    test_pscw();
    test_locks();
    test_lock_tickets();
    test_lock_empty_epoch();
    test_openmp();
    test_openmp_teams();
    test_openmp_ties();
    test_omit_self_ends();
    test_split();
    test_join_src_guards();
    printf("test_clc_deps: ok\n");
    return 0;
}
