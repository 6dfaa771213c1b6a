/*
 * test_rc_build.c — the root-cause timeline (src/analysis/rc_build.h) of synthetic traces, checked
 * call by call against hand-computed values: point-to-point (a blocking receive with its Late Sender,
 * sends, an Isend completed by a Wait with a Late Receiver, an Irecv posted in one call and completed
 * in another), a rooted collective (Late Broadcast, the root marked), MPI_Init / MPI_Finalize with
 * Wait at Finalize, exclusive time between the calls by cnode (a call inside a non-synchronizing
 * region, time outside every region at the root), a call inside a synchronizing call merged into it;
 * OpenMP: forks, joins, team begins and ends as zero-length calls, barriers with their waits, the idle
 * stretches of the workers before each outermost fork (one cut to the thread's last event, none
 * before the first fork of a thread inside a call). Profiles and call times add up to each
 * location's last - first. A timeline packed and read back is the same; malformed ones are refused.
 * Messages' second ends (completions, posts) coming as a long sorted run and a short unsorted tail.
 * (The serial and parallel analyses' timelines are compared on every trace of test_analysis.c.)
 */
/* link: src/analysis/analysis.c src/analysis/p2p.c src/analysis/rma_pscw.c src/analysis/rma_lock.c src/analysis/call_kinds.c src/analysis/latesender.c src/analysis/coll.c src/analysis/coll_waits.c src/analysis/omp.c src/analysis/tree.c src/analysis/icoll.c src/analysis/callpath.c src/analysis/source.c src/model/callpath.c src/analysis/rc_build.c src/analysis/rc_build_loc.c src/analysis/rc_pack.c src/analysis/rc_common.c src/analysis/rc_replay.c src/analysis/rc_index.c src/analysis/rc_causes.c src/analysis/rc_cpath.c src/analysis/p2p_wire.c src/exchange/exchange.c src/config/config.c src/util/archive_dir.c src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/util/u64map.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/stats.c src/model/region.c src/util/log.c */
#include "test_clc_lib.h"

#include "../../src/analysis/analysis.h"
#include "../../src/analysis/rc_build.h"
#include "../../src/config/config.h"
#include "../../src/model/region.h"
#include "../../src/util/mem.h"

static tb_t t;
static st_rel_graph_t g;
static st_an_result_t R;

static const st_rel_sync_region_t sync_regions[] = { { ST_REGION_MPI_Init, 0 }, { ST_REGION_MPI_Finalize, 1 } };

static void enter(uint32_t l, uint64_t time, uint32_t region) { tb_region(&t, l, ST_EV_ENTER, time, region); }
static void leave(uint32_t l, uint64_t time, uint32_t region) { tb_region(&t, l, ST_EV_LEAVE, time, region); }
static void region(uint32_t l, uint32_t r, uint64_t t0, uint64_t t1) { enter(l, t0, r), leave(l, t1, r); }
static void omp_ev(uint32_t l, unsigned kind, uint64_t time, uint64_t id) { tb_ev(&t, l, kind, time)->id = id; }

/* A blocking point-to-point call around one send (dest >= 0) or receive (src >= 0, post: its post id,
 * the order in which receives match) event at tev. */
static void p2p(uint32_t l, uint32_t r, uint64_t t0, uint64_t tev, uint64_t t1, int32_t dest, int32_t src, uint64_t post)
{
    enter(l, t0, r);
    if (dest >= 0) {
        tb_send(&t, l, tev, dest, 0);
        t.locs[l].ev[t.locs[l].n - 1].bytes = 8;
    } else {
        tb_recv(&t, l, tev, src, 0, post);
        t.locs[l].ev[t.locs[l].n - 1].bytes = 8;
    }
    leave(l, t1, r);
}

static void dump(void)
{
    const st_rc_input_t *in = R.timeline;
    for (uint32_t l = 0; in && l < in->nlocs; l++) {
        const st_rc_loc_t *L = &in->locs[l];
        fprintf(stderr, "location %u: first %" PRIu64 " last %" PRIu64 "\n", l, L->first, L->last);
        for (uint32_t k = 0; k < L->ncalls; k++) {
            const st_rc_call_t *x = &L->calls[k];
            fprintf(stderr, "  call %u [%" PRIu64 ", %" PRIu64 "] %s flags %u:", k, x->enter, x->leave,
                    st_an_region_name(&R, R.cnodes[x->cnode].region), x->flags);
            for (uint32_t i = 0; i < x->nprof; i++)
                fprintf(stderr, " prof(%s %" PRIu64 ")", st_an_region_name(&R, R.cnodes[L->prof[x->prof_at + i].cnode].region),
                        L->prof[x->prof_at + i].ticks);
            for (uint32_t i = 0; i < x->nwait; i++)
                fprintf(stderr, " wait(%s %g)", st_an_metric(L->waits[x->wait_at + i].metric)->uniq,
                        L->waits[x->wait_at + i].ticks);
            for (uint32_t i = 0; i < x->nrel; i++) {
                const st_rc_rel_t *r = &L->rels[x->rel_at + i];
                fprintf(stderr, " rel(%" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 " role %u)", r->key[0], r->key[1],
                        r->key[2], r->key[3], r->role);
            }
            fputc('\n', stderr);
        }
        for (uint32_t i = 0; i < L->ntail; i++)
            fprintf(stderr, "  tail(%s %" PRIu64 ")\n", st_an_region_name(&R, R.cnodes[L->prof[L->tail_at + i].cnode].region),
                    L->prof[L->tail_at + i].ticks);
    }
}

/* The cnode of a path of regions below the root (ST_AN_NO_CNODE: none). */
#define P(...) path_((const uint32_t[]){ __VA_ARGS__ }, (int)(sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)))
static uint32_t path_(const uint32_t *regions, int n)
{
    uint32_t k = 0;
    for (int i = 0; i < n && k != ST_AN_NO_CNODE; i++) {
        uint32_t c = R.cnodes[k].first_child;
        while (c != ST_AN_NO_CNODE && R.cnodes[c].region != regions[i])
            c = R.cnodes[c].next;
        k = c;
    }
    REQUIRE(k != ST_AN_NO_CNODE);
    return k;
}
#define ROOT 0u

/* Relation keys (relations/endpoints.h): a point-to-point message with tag 0 on the world communicator
 * (key 1), the k-th from s to r; an instance of a type. */
#define MSG(s, r, k) { (uint64_t)ST_REL_KEY_P2P << 56, (uint64_t)(s) << 32 | (r), 1, k }
#define INST(type, k1, k2, k3) { (uint64_t)(type) << 56, k1, k2, k3 }

/* An expected relation: its key and role (the builder's number, st_rc_rel_t.group, is checked apart). */
typedef struct xrel {
    uint64_t key[4];
    uint32_t role;
} xrel_t;

/* An expected call: times, cnode, flags, its profile, waits and relations. */
typedef struct xcall {
    uint64_t     enter, leave;
    uint32_t     cnode, flags;
    st_rc_prof_t prof[4];
    st_rc_wait_t wait[2];
    xrel_t       rel[3];
} xcall_t;

static uint32_t nprof(const st_rc_prof_t *p, uint32_t max)
{
    uint32_t n = 0;
    while (n < max && p[n].ticks)
        n++;
    return n;
}

static void prof_is(const st_rc_prof_t *got, uint32_t n, const st_rc_prof_t *want, uint32_t max)
{
    REQUIRE_EQ(n, nprof(want, max));
    for (uint32_t i = 0; i < n; i++)
        REQUIRE(got[i].cnode == want[i].cnode && got[i].ticks == want[i].ticks, " entry %u: cnode %u %" PRIu64, i,
                got[i].cnode, got[i].ticks);
}

/* Location l's timeline is first, last, the calls x[0 .. n) and the tail. */
static void timeline_is(uint32_t l, uint64_t first, uint64_t last, const xcall_t *x, uint32_t n,
                        const st_rc_prof_t *tail)
{
    const st_rc_loc_t *L = &R.timeline->locs[l];
    snprintf(check_context, sizeof check_context, "[location %u] ", l);
    REQUIRE(L->first == first && L->last == last);
    REQUIRE_EQ(L->ncalls, n);
    for (uint32_t k = 0; k < n; k++) {
        const st_rc_call_t *c = &L->calls[k];
        snprintf(check_context, sizeof check_context, "[location %u call %u] ", l, k);
        REQUIRE(c->enter == x[k].enter && c->leave == x[k].leave && c->cnode == x[k].cnode && c->flags == x[k].flags);
        prof_is(L->prof + c->prof_at, c->nprof, x[k].prof, 4);
        uint32_t nw = 0, nr = 0;
        while (nw < 2 && x[k].wait[nw].ticks)
            nw++;
        while (nr < 3 && x[k].rel[nr].key[0])
            nr++;
        REQUIRE_EQ(c->nwait, nw);
        for (uint32_t i = 0; i < nw; i++)
            REQUIRE(L->waits[c->wait_at + i].metric == x[k].wait[i].metric &&
                    L->waits[c->wait_at + i].ticks == x[k].wait[i].ticks);
        REQUIRE_EQ(c->nrel, nr);
        for (uint32_t i = 0; i < nr; i++)
            REQUIRE(!memcmp(L->rels[c->rel_at + i].key, x[k].rel[i].key, sizeof x[k].rel[i].key) &&
                    L->rels[c->rel_at + i].role == x[k].rel[i].role, " relation %u", i);
    }
    snprintf(check_context, sizeof check_context, "[location %u tail] ", l);
    prof_is(L->prof + L->tail_at, L->ntail, tail, 4);
    check_context[0] = 0;
}

typedef struct kg {
    const uint64_t *key;
    uint32_t        group;
} kg_t;

static int cmp_kg(const void *a, const void *b)
{
    const kg_t *x = a, *y = b;
    int k = memcmp(x->key, y->key, 4 * sizeof *x->key);
    return k ? k : (x->group > y->group) - (x->group < y->group);
}

/* The builder's numbers of the relations (st_rc_rel_t.group, which the distributed replay groups a process's own
 * keys by): every OpenMP relation has one, the same key the same number at every end (an idle stretch: its
 * fork's), different keys different numbers. */
static void groups_consistent(void)
{
    size_t n = 0, k = 0;
    for (uint32_t l = 0; l < R.timeline->nlocs; l++)
        n += R.timeline->locs[l].nrels;
    kg_t *v = malloc((n ? n : 1) * sizeof *v);
    REQUIRE(v);
    for (uint32_t l = 0; l < R.timeline->nlocs; l++)
        for (uint64_t r = 0; r < R.timeline->locs[l].nrels; r++) {
            const st_rc_rel_t *x = &R.timeline->locs[l].rels[r];
            unsigned t = (unsigned)(x->key[0] >> 56);
            EXPECT(x->group || t < ST_REL_KEY_OMP_FORK, "location %u relation %" PRIu64 ": an OpenMP key (type %u) "
                   "without the builder's number", l, r, t);
            if (x->group)
                v[k++] = (kg_t){ x->key, x->group };
        }
    qsort(v, k, sizeof *v, cmp_kg);
    for (size_t i = 1; i < k; i++) {
        int same_key = !memcmp(v[i - 1].key, v[i].key, 4 * sizeof *v[i].key);
        EXPECT(same_key == (v[i - 1].group == v[i].group), "two relations of %s, with %s (%u, %u)",
               same_key ? "one key" : "two keys", v[i - 1].group == v[i].group ? "one number" : "two numbers",
               v[i - 1].group, v[i].group);
    }
    free(v);
}

/* What holds for every timeline: calls in time order, none inside another, within first .. last;
 * profiles by cnode, positive; relations by key, one per key; waits by metric, positive; the profiles
 * and the calls' times add up to last - first. */
static void invariants(void)
{
    for (uint32_t l = 0; l < R.timeline->nlocs; l++) {
        const st_rc_loc_t *L = &R.timeline->locs[l];
        uint64_t sum = 0, at = L->first;
        for (uint32_t k = 0; k <= L->ncalls; k++) {
            const st_rc_call_t *c = k < L->ncalls ? &L->calls[k] : NULL;
            uint64_t p0 = c ? c->prof_at : L->tail_at, np = c ? c->nprof : L->ntail;
            REQUIRE(p0 + np <= L->nprof);
            for (uint64_t i = 0; i < np; i++) {
                REQUIRE(L->prof[p0 + i].ticks > 0 && L->prof[p0 + i].cnode < R.ncnodes);
                REQUIRE(i == 0 || L->prof[p0 + i - 1].cnode < L->prof[p0 + i].cnode);
                sum += L->prof[p0 + i].ticks;
            }
            if (!c)
                break;
            REQUIRE(at <= c->enter && c->enter <= c->leave && c->cnode < R.ncnodes);
            sum += c->leave - c->enter, at = c->leave;
            REQUIRE(c->wait_at + c->nwait <= L->nwaits && c->rel_at + c->nrel <= L->nrels);
            for (uint32_t i = 0; i < c->nwait; i++)
                REQUIRE(L->waits[c->wait_at + i].ticks > 0 &&
                        (i == 0 || L->waits[c->wait_at + i - 1].metric < L->waits[c->wait_at + i].metric));
            for (uint32_t i = 1; i < c->nrel; i++)
                REQUIRE(memcmp(&L->rels[c->rel_at + i - 1].key, &L->rels[c->rel_at + i].key, 32) != 0);
        }
        REQUIRE(at <= L->last);
        REQUIRE_EQ(sum, L->last - L->first);
    }
    groups_consistent();
}

/* Unpacks w[0 .. n) into a fresh timeline of R's locations (cnodes as they are, nc of them; cnode c0, when below
 * R.ncnodes, mapped to to). */
static int unpack_to(const uint8_t *w, size_t n, uint32_t nc, st_rc_input_t *out, uint32_t c0, uint32_t to)
{
    uint32_t *map = malloc(sizeof *map * (R.ncnodes + 1));
    REQUIRE(map);
    for (uint32_t k = 0; k < R.ncnodes; k++)
        map[k] = k == c0 ? to : k;
    *out = (st_rc_input_t){ R.timeline->nlocs, calloc(R.timeline->nlocs + 1, sizeof *out->locs) };
    int rc = an_rc_unpack(w, n, out->nlocs, 0, map, nc, out);
    free(map);
    return rc;
}
static int unpack(const uint8_t *w, size_t n, uint32_t nc, st_rc_input_t *out) { return unpack_to(w, n, nc, out, UINT32_MAX, 0); }

/* The offset after n varints from at. */
static size_t skip_var(const uint8_t *p, size_t at, int n)
{
    while (n--)
        while (p[at++] & 0x80)
            ;
    return at;
}

/* R's timeline packed and read back is the same; a part that breaks the format is refused. */
static void packed(int malformed)
{
    const st_rc_input_t *in = R.timeline;
    size_t n = an_rc_pack_size(in);
    uint8_t *w = malloc(n + 1);
    REQUIRE(w && an_rc_pack(in, w) == w + n);
    REQUIRE(n < 40 * (size_t)(in->locs[0].ncalls + in->locs[0].nrels + 1) * in->nlocs); /* compact: tens of bytes a call */
    st_rc_input_t back;
    REQUIRE(unpack(w, n, R.ncnodes, &back) == 0);
    for (uint32_t l = 0; l < in->nlocs; l++) {
        const st_rc_loc_t *a = &in->locs[l], *b = &back.locs[l];
        REQUIRE(a->first == b->first && a->last == b->last && a->ncalls == b->ncalls && a->nprof == b->nprof &&
                a->nwaits == b->nwaits && a->nrels == b->nrels && a->ntail == b->ntail && a->tail_at == b->tail_at);
        for (uint32_t k = 0; k < a->ncalls; k++) { /* the builder's layout: in call order */
            const st_rc_call_t *x = &a->calls[k], *y = &b->calls[k];
            REQUIRE(x->enter == y->enter && x->leave == y->leave && x->cnode == y->cnode && x->flags == y->flags &&
                    x->prof_at == y->prof_at && x->nprof == y->nprof && x->wait_at == y->wait_at &&
                    x->nwait == y->nwait && x->rel_at == y->rel_at && x->nrel == y->nrel);
        }
        for (uint64_t i = 0; i < a->nprof; i++)
            REQUIRE(a->prof[i].cnode == b->prof[i].cnode && a->prof[i].ticks == b->prof[i].ticks);
        for (uint64_t i = 0; i < a->nwaits; i++)
            REQUIRE(a->waits[i].metric == b->waits[i].metric && a->waits[i].ticks == b->waits[i].ticks);
        for (uint64_t i = 0; i < a->nrels; i++)
            REQUIRE(!memcmp(a->rels[i].key, b->rels[i].key, 32) && a->rels[i].role == b->rels[i].role);
    }
    st_rc_input_free(&back);
    if (malformed) {
        REQUIRE(unpack(w, n - 1, R.ncnodes, &back) != 0); /* cut short */
        st_rc_input_free(&back);
        w[n] = 0;
        REQUIRE(unpack(w, n + 1, R.ncnodes, &back) != 0); /* a byte after the end */
        st_rc_input_free(&back);
        REQUIRE(unpack(w, n, 1, &back) != 0); /* a cnode the part does not have */
        st_rc_input_free(&back);
        /* a call's cnode in its 28 bits (st_rc_call_t): the largest that fits comes back whole, the next is refused */
        uint32_t c0 = in->locs[0].calls[0].cnode;
        REQUIRE(unpack_to(w, n, R.ncnodes, &back, c0, ST_RC_CNODES - 1) == 0);
        REQUIRE(back.locs[0].calls[0].cnode == ST_RC_CNODES - 1, " cnode %u came back as %u", ST_RC_CNODES - 1,
                (unsigned)back.locs[0].calls[0].cnode);
        st_rc_input_free(&back);
        REQUIRE(unpack_to(w, n, R.ncnodes, &back, c0, ST_RC_CNODES) != 0, " a cnode beyond a call's 28 bits accepted");
        st_rc_input_free(&back);
        REQUIRE(in->locs[0].ncalls > 0 && in->locs[0].ncalls < 127 && in->locs[0].nrels < 127);
        size_t ncalls = skip_var(w, 0, 2), nrels = skip_var(w, ncalls, 3), cnode = skip_var(w, nrels, 4);
        REQUIRE(R.ncnodes < 127 && w[cnode] < 0x7f);
        uint8_t *x = malloc(n + 1);
        REQUIRE(x);
        size_t flags = skip_var(w, cnode, 1);
        REQUIRE(w[flags] < 0x7f);
        for (int k = 0; k < 5; k++) {
            memcpy(x, w, n);
            if (k == 0)
                x[ncalls]++; /* one call more than there are */
            else if (k == 1)
                x[nrels]++; /* relations do not add up */
            else if (k == 2)
                x[cnode] = 0x7f; /* the first call's cnode: 127 */
            else if (k == 3)
                x[flags] = 8; /* flags no call has (a call's 4 bits would hold them) */
            else
                x[n - 1] |= 0x80; /* the last number does not end */
            REQUIRE(unpack(x, n, R.ncnodes, &back) != 0, " corruption %d", k);
            st_rc_input_free(&back);
        }
        free(x);
    }
    free(w);
}

static void analyse(void)
{
    st_rel_input_t in = tb_input(&t);
    in.sync = sync_regions, in.nsync = 2;
    REQUIRE(st_rel_graph_build(&in, &g) == 0);
    REQUIRE(st_an_run(&in, &g, &R) == 0);
    REQUIRE(R.timeline && R.timeline->nlocs == in.nlocs);
    if (getenv("TEST_RC_DUMP"))
        dump();
    invariants();
    packed(0);
}

static void done(void)
{
    st_an_free(&R);
    st_rel_graph_free(&g);
    tb_free(&t);
}

/* Two ranks: Init; a blocking receive with a Late Sender; sends; an Isend whose Wait waits for the
 * receive's post (Late Receiver); an Irecv posted in one call and completed in a Wait; Finalize. */
static void test_p2p(void)
{
    enum { MAIN = ST_REGION_PROGRAM };
    tb_init(&t, 2, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
    region(a, ST_REGION_MPI_Init, 0, 10);
    enter(a, 10, MAIN);
    p2p(a, ST_REGION_MPI_Recv, 100, 150, 151, -1, 1, 1);
    p2p(a, ST_REGION_MPI_Send, 200, 201, 210, 1, -1, 0);
    enter(a, 220, ST_REGION_MPI_Isend);
    st_event_t *e = tb_ev(&t, a, ST_EV_MPI_ISEND, 221);
    e->peer = 1, e->id = 5, e->bytes = 4;
    leave(a, 222, ST_REGION_MPI_Isend);
    enter(a, 230, ST_REGION_MPI_Wait);
    omp_ev(a, ST_EV_MPI_ISEND_COMPLETE, 290, 5);
    leave(a, 291, ST_REGION_MPI_Wait);
    leave(a, 300, MAIN);
    region(a, ST_REGION_MPI_Finalize, 300, 400);

    region(b, ST_REGION_MPI_Init, 0, 20);
    enter(b, 20, MAIN);
    p2p(b, ST_REGION_MPI_Send, 140, 141, 145, 0, -1, 0);
    enter(b, 160, ST_REGION_MPI_Irecv);
    omp_ev(b, ST_EV_MPI_IRECV_REQUEST, 161, 9);
    leave(b, 162, ST_REGION_MPI_Irecv);
    enter(b, 190, ST_REGION_MPI_Wait);
    e = tb_ev(&t, b, ST_EV_MPI_IRECV, 205);
    e->peer = 0, e->id = 9, e->bytes = 8;
    leave(b, 206, ST_REGION_MPI_Wait);
    p2p(b, ST_REGION_MPI_Recv, 280, 290, 291, -1, 0, 10);
    leave(b, 350, MAIN);
    region(b, ST_REGION_MPI_Finalize, 350, 400);
    analyse();
    enum { INIT = ST_REGION_MPI_Init, FIN = ST_REGION_MPI_Finalize, RECV = ST_REGION_MPI_Recv,
           SEND = ST_REGION_MPI_Send, ISEND = ST_REGION_MPI_Isend, IRECV = ST_REGION_MPI_Irecv, WAIT = ST_REGION_MPI_Wait };
    const uint64_t sync0[4] = { (uint64_t)ST_REL_KEY_SYNC << 56, 0, 0, 0 }, sync1[4] = { sync0[0], 1, 0, 0 };
    uint32_t main_ = P(MAIN);
    xcall_t xa[] = {
        { 0, 10, P(INIT), ST_RC_INIT, { { 0 } }, { { 0 } },
          { { { sync0[0], sync0[1], sync0[2], sync0[3] }, ST_RC_SENDS | ST_RC_RECEIVES } } },
        { 100, 151, P(MAIN, RECV), 0, { { main_, 90 } }, { { ST_AN_M_LATESENDER, 40 } },
          { { MSG(1, 0, 0), ST_RC_RECEIVES | ST_RC_POSTS | ST_RC_WAITED } } },
        { 200, 210, P(MAIN, SEND), 0, { { main_, 49 } }, { { 0 } }, { { MSG(0, 1, 0), ST_RC_SENDS } } },
        { 220, 222, P(MAIN, ISEND), 0, { { main_, 10 } }, { { 0 } }, { { MSG(0, 1, 1), ST_RC_SENDS } } },
        /* the Isend's Wait: the Late Receiver (the receive on b was posted at 280) and the message, no role but
         * that it waited */
        { 230, 291, P(MAIN, WAIT), 0, { { main_, 8 } }, { { ST_AN_M_LATERECEIVER, 50 } },
          { { MSG(0, 1, 1), ST_RC_WAITED } } },
        { 300, 400, P(FIN), ST_RC_FINALIZE, { { main_, 9 } }, { { ST_AN_M_FINALIZE_WAIT, 50 } },
          { { { sync1[0], sync1[1], sync1[2], sync1[3] }, ST_RC_SENDS | ST_RC_RECEIVES } } },
    };
    timeline_is(a, 0, 400, xa, 6, (st_rc_prof_t[4]){ { 0 } });
    xcall_t xb[] = {
        { 0, 20, P(INIT), ST_RC_INIT, { { 0 } }, { { 0 } },
          { { { sync0[0], sync0[1], sync0[2], sync0[3] }, ST_RC_SENDS | ST_RC_RECEIVES } } },
        { 140, 145, P(MAIN, SEND), 0, { { main_, 120 } }, { { 0 } }, { { MSG(1, 0, 0), ST_RC_SENDS } } },
        /* the Irecv posts, its Wait receives (Late Sender: the Send at 200) */
        { 160, 162, P(MAIN, IRECV), 0, { { main_, 15 } }, { { 0 } }, { { MSG(0, 1, 0), ST_RC_POSTS } } },
        { 190, 206, P(MAIN, WAIT), 0, { { main_, 28 } }, { { ST_AN_M_LATESENDER, 10 } },
          { { MSG(0, 1, 0), ST_RC_RECEIVES | ST_RC_WAITED } } },
        { 280, 291, P(MAIN, RECV), 0, { { main_, 74 } }, { { 0 } }, { { MSG(0, 1, 1), ST_RC_RECEIVES | ST_RC_POSTS } } },
        { 350, 400, P(FIN), ST_RC_FINALIZE, { { main_, 59 } }, { { 0 } },
          { { { sync1[0], sync1[1], sync1[2], sync1[3] }, ST_RC_SENDS | ST_RC_RECEIVES } } },
    };
    timeline_is(b, 0, 400, xb, 6, (st_rc_prof_t[4]){ { 0 } });
    done();
}

/* A blocking collective call: ENTER at b-1, COLL_BEGIN at b, COLL_END at e, LEAVE at e+1; inner (may be
 * NULL) adds events inside it between the two. */
static void coll(uint32_t l, uint32_t r, uint64_t b, uint64_t e, unsigned op, int32_t root, uint64_t sent,
                 uint64_t recvd, void (*inner)(uint32_t))
{
    enter(l, b - 1, r);
    tb_ev(&t, l, ST_EV_MPI_COLL_BEGIN, b);
    if (inner)
        inner(l);
    st_event_t *x = tb_ev(&t, l, ST_EV_MPI_COLL_END, e);
    x->op = (uint16_t)op, x->comm = 0, x->peer = root, x->id = 0, x->bytes = sent, x->bytes2 = recvd;
    leave(l, e + 1, r);
}

static void send_inside(uint32_t l) { p2p(l, ST_REGION_MPI_Send, 152, 153, 154, 0, -1, 0); }

/* Three ranks in a broadcast from rank 1: rank 0 enters before the root (Late Broadcast), rank 2 after;
 * the root's call holds a send to rank 0 (a synchronizing call inside another: one call, both
 * relations). Rank 0 has no region around its calls (time between them at the root), rank 2 one. */
static void test_collective(void)
{
    enum { MAIN = ST_REGION_PROGRAM, BCAST = ST_REGION_MPI_Bcast };
    tb_init(&t, 3, 0);
    uint32_t l0 = tb_loc(&t, 0, 0), l1 = tb_loc(&t, 1, 0), l2 = tb_loc(&t, 2, 0);
    coll(l0, BCAST, 101, 200, OP_BCAST, 1, 0, 8, NULL);
    p2p(l0, ST_REGION_MPI_Recv, 300, 305, 310, -1, 1, 1);
    coll(l1, BCAST, 151, 160, OP_BCAST, 1, 8, 8, send_inside);
    enter(l2, 50, MAIN);
    coll(l2, BCAST, 171, 200, OP_BCAST, 1, 0, 8, NULL);
    leave(l2, 300, MAIN);
    analyse();
    const xrel_t bc_recv = { INST(ST_REL_KEY_COLL, 0, 1, 0), ST_RC_RECEIVES };
    xcall_t x0[] = {
        { 100, 201, P(BCAST), 0, { { 0 } }, { { ST_AN_M_LATEBROADCAST, 50 } }, { bc_recv } },
        { 300, 310, P(ST_REGION_MPI_Recv), 0, { { ROOT, 99 } }, { { 0 } }, { { MSG(1, 0, 0), ST_RC_RECEIVES | ST_RC_POSTS } } },
    };
    timeline_is(l0, 100, 310, x0, 2, (st_rc_prof_t[4]){ { 0 } });
    xcall_t x1[] = { { 150, 161, P(BCAST), 0, { { 0 } }, { { 0 } },
                       { { MSG(1, 0, 0), ST_RC_SENDS }, { INST(ST_REL_KEY_COLL, 0, 1, 0), ST_RC_SENDS | ST_RC_ROOT } } } };
    timeline_is(l1, 150, 161, x1, 1, (st_rc_prof_t[4]){ { 0 } });
    xcall_t x2[] = { { 170, 201, P(MAIN, BCAST), 0, { { P(MAIN), 120 } }, { { 0 } }, { bc_recv } } };
    timeline_is(l2, 50, 300, x2, 1, (st_rc_prof_t[4]){ { P(MAIN), 99 } });
    done();
}

static void lock_ev(uint32_t l, unsigned kind, uint64_t time, unsigned op, uint64_t id, uint64_t order)
{
    st_event_t *e = tb_ev(&t, l, kind, time);
    e->op = (uint8_t)op, e->id = id, e->bytes = order;
}

/*
 * One process, 3 OpenMP threads and one never in a team (test_analysis.c's trace). Team 7 (all three,
 * fork 100, join 410): explicit barrier entered at 120 / 180 / 190, implicit at 300 / 350 / 390; a
 * critical section (no synchronizing call). Serial 410..1000. Team 8 (master and w1, fork 1000, join
 * 1110). The workers idle from the master's first event (0) to fork 7, and from join 7 to fork 8; w2,
 * not in team 8, too, and its timeline ends there.
 */
static void test_openmp(void)
{
    enum { PAR = ST_REGION_OMP_PARALLEL, BAR = ST_REGION_OMP_BARRIER, IBAR = ST_REGION_OMP_IBARRIER,
           CRIT = ST_REGION_OMP_CRITICAL, SET = ST_REGION_OMP_SET_LOCK, UNSET = ST_REGION_OMP_UNSET_LOCK,
           MAIN = ST_REGION_PROGRAM };
    tb_init(&t, 1, 0);
    uint32_t m = tb_loc(&t, 0, 0), w1 = tb_loc(&t, 0, 1), w2 = tb_loc(&t, 0, 2), other = tb_loc(&t, 0, 3);
    enter(m, 0, MAIN);
    omp_ev(m, ST_EV_THREAD_FORK, 100, 7);
    omp_ev(m, ST_EV_THREAD_TEAM_BEGIN, 101, 7);
    enter(m, 110, PAR);
    region(m, BAR, 120, 200);
    enter(m, 210, CRIT);
    lock_ev(m, ST_EV_THREAD_ACQUIRE_LOCK, 260, 5, 9, 2);
    lock_ev(m, ST_EV_THREAD_RELEASE_LOCK, 270, 5, 9, 2);
    leave(m, 271, CRIT);
    enter(m, 300, IBAR);
    region(m, ST_REGION_OMP_TASK, 320, 330); /* a task run while waiting: the barrier call's time */
    leave(m, 400, IBAR);
    leave(m, 401, PAR);
    omp_ev(m, ST_EV_THREAD_TEAM_END, 402, 7);
    omp_ev(m, ST_EV_THREAD_JOIN, 410, 7);
    omp_ev(m, ST_EV_THREAD_FORK, 1000, 8);
    omp_ev(m, ST_EV_THREAD_TEAM_BEGIN, 1001, 8);
    enter(m, 1005, PAR);
    enter(m, 1010, SET);
    lock_ev(m, ST_EV_THREAD_ACQUIRE_LOCK, 1050, 1, 5, 2);
    leave(m, 1051, SET);
    enter(m, 1060, UNSET);
    lock_ev(m, ST_EV_THREAD_RELEASE_LOCK, 1061, 1, 5, 2);
    leave(m, 1062, UNSET);
    leave(m, 1100, PAR);
    omp_ev(m, ST_EV_THREAD_TEAM_END, 1101, 8);
    omp_ev(m, ST_EV_THREAD_JOIN, 1110, 8);
    leave(m, 1200, MAIN);

    omp_ev(w1, ST_EV_THREAD_TEAM_BEGIN, 103, 7);
    enter(w1, 112, PAR);
    region(w1, BAR, 180, 201);
    enter(w1, 205, CRIT);
    lock_ev(w1, ST_EV_THREAD_ACQUIRE_LOCK, 206, 5, 9, 1);
    lock_ev(w1, ST_EV_THREAD_RELEASE_LOCK, 250, 5, 9, 1);
    leave(w1, 251, CRIT);
    region(w1, IBAR, 350, 400);
    leave(w1, 403, PAR);
    omp_ev(w1, ST_EV_THREAD_TEAM_END, 404, 7);
    omp_ev(w1, ST_EV_THREAD_TEAM_BEGIN, 1002, 8);
    enter(w1, 1003, PAR);
    enter(w1, 1004, SET);
    lock_ev(w1, ST_EV_THREAD_ACQUIRE_LOCK, 1005, 1, 5, 1);
    leave(w1, 1006, SET);
    enter(w1, 1040, UNSET);
    lock_ev(w1, ST_EV_THREAD_RELEASE_LOCK, 1045, 1, 5, 1);
    leave(w1, 1046, UNSET);
    leave(w1, 1104, PAR);
    omp_ev(w1, ST_EV_THREAD_TEAM_END, 1105, 8);

    omp_ev(w2, ST_EV_THREAD_TEAM_BEGIN, 104, 7);
    enter(w2, 115, PAR);
    region(w2, BAR, 190, 202);
    region(w2, IBAR, 390, 400);
    leave(w2, 405, PAR);
    omp_ev(w2, ST_EV_THREAD_TEAM_END, 406, 7);
    region(other, MAIN, 500, 540);
    analyse();
    uint32_t mn = P(MAIN), par = P(MAIN, PAR), wpar = P(PAR), crit = P(MAIN, PAR, CRIT), wcrit = P(PAR, CRIT);
    const xrel_t f7s = { INST(ST_REL_KEY_OMP_FORK, 0, 7, 0), ST_RC_SENDS },
                      f7r = { INST(ST_REL_KEY_OMP_FORK, 0, 7, 0), ST_RC_RECEIVES },
                      j7s = { INST(ST_REL_KEY_OMP_JOIN, 0, 7, 0), ST_RC_SENDS },
                      j7r = { INST(ST_REL_KEY_OMP_JOIN, 0, 7, 0), ST_RC_RECEIVES },
                      f8s = { INST(ST_REL_KEY_OMP_FORK, 0, 8, 0), ST_RC_SENDS },
                      f8r = { INST(ST_REL_KEY_OMP_FORK, 0, 8, 0), ST_RC_RECEIVES },
                      j8s = { INST(ST_REL_KEY_OMP_JOIN, 0, 8, 0), ST_RC_SENDS },
                      j8r = { INST(ST_REL_KEY_OMP_JOIN, 0, 8, 0), ST_RC_RECEIVES },
                      b0 = { INST(ST_REL_KEY_OMP_BARRIER, 0, 7, 0), ST_RC_SENDS | ST_RC_RECEIVES },
                      b1 = { INST(ST_REL_KEY_OMP_BARRIER, 0, 7, 1), ST_RC_SENDS | ST_RC_RECEIVES };
    /* the master: zero-length calls at its fork, team begin, team end and join, in main */
    xcall_t xm[] = {
        { 100, 100, mn, 0, { { mn, 100 } }, { { 0 } }, { f7s } },
        { 101, 101, mn, 0, { { mn, 1 } }, { { 0 } }, { f7r } },
        { 120, 200, P(MAIN, PAR, BAR), 0, { { mn, 9 }, { par, 10 } }, { { ST_AN_M_OMP_EBARRIER_WAIT, 70 } }, { b0 } },
        { 300, 400, P(MAIN, PAR, IBAR), 0, { { par, 39 }, { crit, 61 } }, { { ST_AN_M_OMP_IBARRIER_WAIT, 80 } }, { b1 } },
        { 402, 402, mn, 0, { { mn, 1 }, { par, 1 } }, { { 0 } }, { j7s } },
        { 410, 410, mn, 0, { { mn, 8 } }, { { 0 } }, { j7r } },
        { 1000, 1000, mn, 0, { { mn, 590 } }, { { 0 } }, { f8s } },
        { 1001, 1001, mn, 0, { { mn, 1 } }, { { 0 } }, { f8r } },
        { 1101, 1101, mn, 0, { { mn, 5 }, { par, 52 }, { P(MAIN, PAR, SET), 41 }, { P(MAIN, PAR, UNSET), 2 } },
          { { 0 } }, { j8s } },
        { 1110, 1110, mn, 0, { { mn, 9 } }, { { 0 } }, { j8r } },
    };
    timeline_is(m, 0, 1200, xm, 10, (st_rc_prof_t[4]){ { mn, 90 } });
    /* w1: idle (at the master's main) from the master's first event to fork 7 and from join 7 to fork 8 */
    xcall_t x1[] = {
        { 0, 100, mn, ST_RC_IDLE, { { 0 } }, { { ST_AN_M_OMP_IDLE, 100 } }, { f7r } },
        { 103, 103, ROOT, 0, { { ROOT, 3 } }, { { 0 } }, { f7r } },
        { 180, 201, P(PAR, BAR), 0, { { ROOT, 9 }, { wpar, 68 } }, { { ST_AN_M_OMP_EBARRIER_WAIT, 10 } }, { b0 } },
        { 350, 400, P(PAR, IBAR), 0, { { wpar, 103 }, { wcrit, 46 } }, { { ST_AN_M_OMP_IBARRIER_WAIT, 40 } }, { b1 } },
        { 404, 404, ROOT, 0, { { ROOT, 1 }, { wpar, 3 } }, { { 0 } }, { j7s } },
        { 410, 1000, mn, ST_RC_IDLE, { { ROOT, 6 } }, { { ST_AN_M_OMP_IDLE, 590 } }, { f8r } },
        { 1002, 1002, ROOT, 0, { { ROOT, 2 } }, { { 0 } }, { f8r } },
        { 1105, 1105, ROOT, 0, { { ROOT, 2 }, { wpar, 93 }, { P(PAR, SET), 2 }, { P(PAR, UNSET), 6 } }, { { 0 } },
          { j8s } },
    };
    timeline_is(w1, 0, 1105, x1, 8, (st_rc_prof_t[4]){ { 0 } });
    /* w2: not in team 8, idle before its fork all the same; its timeline ends at the fork */
    xcall_t x2[] = {
        { 0, 100, mn, ST_RC_IDLE, { { 0 } }, { { ST_AN_M_OMP_IDLE, 100 } }, { f7r } },
        { 104, 104, ROOT, 0, { { ROOT, 4 } }, { { 0 } }, { f7r } },
        { 190, 202, P(PAR, BAR), 0, { { ROOT, 11 }, { wpar, 75 } }, { { 0 } }, { b0 } },
        { 390, 400, P(PAR, IBAR), 0, { { wpar, 188 } }, { { 0 } }, { b1 } },
        { 406, 406, ROOT, 0, { { ROOT, 1 }, { wpar, 5 } }, { { 0 } }, { j7s } },
        { 410, 1000, mn, ST_RC_IDLE, { { ROOT, 4 } }, { { ST_AN_M_OMP_IDLE, 590 } }, { f8r } },
    };
    timeline_is(w2, 0, 1000, x2, 6, (st_rc_prof_t[4]){ { 0 } });
    timeline_is(other, 500, 540, NULL, 0, (st_rc_prof_t[4]){ { mn, 40 } });
    packed(1);
    done();
}

/* A worker inside a call of its own when its master forks gets no idle stretch before it; the join of
 * a team it was not in ends its next stretch; its last event before a fork cuts the stretch. */
static void test_idle_cut(void)
{
    enum { PAR = ST_REGION_OMP_PARALLEL, MAIN = ST_REGION_PROGRAM };
    tb_init(&t, 1, 0);
    uint32_t m = tb_loc(&t, 0, 0), w = tb_loc(&t, 0, 1);
    enter(m, 0, MAIN); /* the first stretch: 0 .. 100 */
    omp_ev(m, ST_EV_THREAD_FORK, 100, 3);
    omp_ev(m, ST_EV_THREAD_TEAM_BEGIN, 101, 3);
    region(m, PAR, 102, 200);
    omp_ev(m, ST_EV_THREAD_TEAM_END, 201, 3);
    omp_ev(m, ST_EV_THREAD_JOIN, 210, 3);
    omp_ev(m, ST_EV_THREAD_FORK, 300, 4);
    omp_ev(m, ST_EV_THREAD_TEAM_BEGIN, 301, 4);
    region(m, PAR, 302, 400);
    omp_ev(m, ST_EV_THREAD_TEAM_END, 401, 4);
    omp_ev(m, ST_EV_THREAD_JOIN, 410, 4);
    leave(m, 500, MAIN);

    enter(w, 50, MAIN); /* inside main at fork 3: no stretch */
    omp_ev(w, ST_EV_THREAD_TEAM_BEGIN, 105, 3);
    region(w, PAR, 106, 198);
    omp_ev(w, ST_EV_THREAD_TEAM_END, 199, 3);
    leave(w, 250, MAIN); /* its last event before fork 4: the stretch from the join (210) is cut to it */
    omp_ev(w, ST_EV_THREAD_TEAM_BEGIN, 305, 4);
    region(w, PAR, 306, 398);
    omp_ev(w, ST_EV_THREAD_TEAM_END, 399, 4);
    analyse();
    uint32_t mn = P(MAIN);
    const xrel_t f3r = { INST(ST_REL_KEY_OMP_FORK, 0, 3, 0), ST_RC_RECEIVES },
                      j3s = { INST(ST_REL_KEY_OMP_JOIN, 0, 3, 0), ST_RC_SENDS },
                      f4r = { INST(ST_REL_KEY_OMP_FORK, 0, 4, 0), ST_RC_RECEIVES },
                      j4s = { INST(ST_REL_KEY_OMP_JOIN, 0, 4, 0), ST_RC_SENDS };
    xcall_t xw[] = {
        { 105, 105, mn, 0, { { mn, 55 } }, { { 0 } }, { f3r } },
        { 199, 199, mn, 0, { { mn, 2 }, { P(MAIN, PAR), 92 } }, { { 0 } }, { j3s } },
        { 250, 300, mn, ST_RC_IDLE, { { mn, 51 } }, { { ST_AN_M_OMP_IDLE, 50 } }, { f4r } },
        { 305, 305, ROOT, 0, { { ROOT, 5 } }, { { 0 } }, { f4r } },
        { 399, 399, ROOT, 0, { { ROOT, 2 }, { P(PAR), 92 } }, { { 0 } }, { j4s } },
    };
    timeline_is(w, 50, 399, xw, 5, (st_rc_prof_t[4]){ { 0 } });
    done();
}


/* Two ranks, one location each (*a, *b), past MPI_Init (0-10) and inside the program's region from 10. */
static void two_ranks_in_main(uint32_t *a, uint32_t *b)
{
    tb_init(&t, 2, 0);
    *a = tb_loc(&t, 0, 0), *b = tb_loc(&t, 1, 0);
    region(*a, ST_REGION_MPI_Init, 0, 10);
    region(*b, ST_REGION_MPI_Init, 0, 10);
    enter(*a, 10, ST_REGION_PROGRAM);
    enter(*b, 10, ST_REGION_PROGRAM);
}

/* The second ends of the messages (the Isends' completions, the Irecvs' posts) in the order of their first
 * ends, with a short unsorted tail after a long sorted run: rank 0 makes 32 Isends, each completed by a Wait,
 * then twice an Irecv, an Isend and a Wait that receives and completes both (the post's call lies before the
 * completion's). Every Irecv's call must post its message, every last Wait complete the Isend and receive,
 * the calls in time order. */
static void test_second_ends(void)
{
    enum { MAIN = ST_REGION_PROGRAM, N = 32 };
    uint32_t a, b;
    two_ranks_in_main(&a, &b);
    uint64_t T = 100, post = 1;
    for (int k = 0; k < N + 2; k++, T += 100) {
        if (k >= N) { /* the Irecv of the message from b */
            enter(a, T, ST_REGION_MPI_Irecv);
            omp_ev(a, ST_EV_MPI_IRECV_REQUEST, T + 1, 100 + (uint64_t)k);
            leave(a, T + 2, ST_REGION_MPI_Irecv);
            p2p(b, ST_REGION_MPI_Send, T + 10, T + 11, T + 12, 0, -1, 0);
        }
        enter(a, T + 20, ST_REGION_MPI_Isend);
        st_event_t *e = tb_ev(&t, a, ST_EV_MPI_ISEND, T + 21);
        e->peer = 1, e->id = 200 + (uint64_t)k, e->bytes = 4;
        leave(a, T + 22, ST_REGION_MPI_Isend);
        enter(a, T + 30, k >= N ? ST_REGION_MPI_Waitall : ST_REGION_MPI_Wait);
        if (k >= N) {
            e = tb_ev(&t, a, ST_EV_MPI_IRECV, T + 31);
            e->peer = 1, e->id = 100 + (uint64_t)k, e->bytes = 8;
        }
        omp_ev(a, ST_EV_MPI_ISEND_COMPLETE, T + 32, 200 + (uint64_t)k);
        leave(a, T + 33, k >= N ? ST_REGION_MPI_Waitall : ST_REGION_MPI_Wait);
        p2p(b, ST_REGION_MPI_Recv, T + 40, T + 41, T + 42, -1, 0, post++);
    }
    leave(a, T, MAIN);
    leave(b, T, MAIN);
    region(a, ST_REGION_MPI_Finalize, T, T + 10);
    region(b, ST_REGION_MPI_Finalize, T, T + 10);
    analyse();
    const st_rc_loc_t *L = &R.timeline->locs[a];
    REQUIRE_EQ(L->ncalls, 2 + 2 * N + 3 * 2);
    for (int k = 0; k < N + 2; k++) {
        uint64_t T0 = 100 + 100 * (uint64_t)k;
        const st_rc_call_t *c = &L->calls[1 + 2 * k + (k > N)];
        if (k >= N) { /* the Irecv posts the k-th message from b (its (k - N)-th) */
            const uint64_t key[4] = MSG(1, 0, (uint64_t)(k - N));
            REQUIRE(c->enter == T0 && c->nrel == 1 && !memcmp(L->rels[c->rel_at].key, key, sizeof key) &&
                        L->rels[c->rel_at].role == ST_RC_POSTS,
                    " Irecv %d: enter %" PRIu64 ", %u relations", k, c->enter, c->nrel);
            c++;
        }
        const uint64_t sent[4] = MSG(0, 1, (uint64_t)k);
        REQUIRE(c->enter == T0 + 20 && c->nrel == 1 && !memcmp(L->rels[c->rel_at].key, sent, sizeof sent) &&
                    L->rels[c->rel_at].role == ST_RC_SENDS,
                " Isend %d: enter %" PRIu64 ", %u relations", k, c->enter, c->nrel);
        c++;
        REQUIRE(c->enter == T0 + 30 && c->nrel == (k >= N ? 2u : 1u), " Wait %d: enter %" PRIu64 ", %u relations", k,
                c->enter, c->nrel);
        for (uint32_t i = 0; i < c->nrel; i++) { /* the completion (no role), the receive; by key */
            const st_rc_rel_t *r = &L->rels[c->rel_at + i];
            REQUIRE(r->role == (r->key[1] == 1 ? 0u : (uint32_t)ST_RC_RECEIVES),
                    " Wait %d relation %u: role %u", k, i, r->role);
        }
    }
    done();
}

/* A relation end's 16 bytes (rc_build.h): location, call and every role bit come back as they went in, at the
 * limits too, the key reference whole (its side and channel bits); at >> 4 orders by location, then call, whatever
 * the roles; what does not fit is refused. */
static void test_end_word(void)
{
    static const uint32_t locs[] = { 0, 1, 65535, 65536, AN_RC_END_LOCS - 1 };
    static const uint64_t calls[] = { 0, 1, UINT32_MAX, (uint64_t)UINT32_MAX + 1, AN_RC_END_CALLS - 1 };
    static const uint64_t krefs[] = { 0, 12345, AN_RC_KEY_SIDE | 7, AN_RC_KEY_SIDE | AN_RC_KEY_CHAN | (3ull << 32) | 9, UINT64_MAX };
    REQUIRE_EQ(sizeof(an_rc_end_t), 16);
    for (size_t a = 0; a < sizeof locs / sizeof *locs; a++)
        for (size_t k = 0; k < sizeof calls / sizeof *calls; k++)
            for (uint32_t role = 0; role < 16; role++) {
                uint64_t kref = krefs[(a + k + role) % (sizeof krefs / sizeof *krefs)];
                REQUIRE(an_rc_end_fits(locs[a], calls[k]), " loc %u call %" PRIu64, locs[a], calls[k]);
                an_rc_end_t e = an_rc_end(kref, locs[a], calls[k], role);
                REQUIRE(an_rc_end_loc(&e) == locs[a] && an_rc_end_call(&e) == calls[k] && an_rc_end_role(&e) == role &&
                            e.kref == kref,
                        " loc %u call %" PRIu64 " role %u kref %" PRIx64 " came back as loc %u call %" PRIu64
                        " role %u kref %" PRIx64,
                        locs[a], calls[k], role, kref, an_rc_end_loc(&e), an_rc_end_call(&e), an_rc_end_role(&e), e.kref);
                if (k) { /* the previous call of the location, with every role, comes first */
                    an_rc_end_t p = an_rc_end(0, locs[a], calls[k - 1], 15);
                    REQUIRE(p.at >> 4 < e.at >> 4, " loc %u: call %" PRIu64 " after %" PRIu64, locs[a], calls[k - 1], calls[k]);
                }
                if (a) { /* the previous location's last call comes first */
                    an_rc_end_t p = an_rc_end(0, locs[a - 1], AN_RC_END_CALLS - 1, 15);
                    REQUIRE(p.at >> 4 < e.at >> 4, " loc %u after loc %u", locs[a - 1], locs[a]);
                }
            }
    REQUIRE(!an_rc_end_fits(AN_RC_END_LOCS, 0) && !an_rc_end_fits(0, AN_RC_END_CALLS) && !an_rc_end_fits(UINT32_MAX, 0) &&
                !an_rc_end_fits(0, UINT64_MAX),
            " an end that does not fit accepted");
}

/* A call that takes in the calls inside it (rc_build_loc.c's collect) counts their relations and waits before they
 * are merged, one per key and per metric: here an outer receive around 130 receives with a Late Sender each and 130
 * Isend / Wait pairs with a Late Receiver at each Wait, 261 waits in turn Late Sender and Late Receiver before the
 * merge (more than the 8 bits of a finished call's count hold), 2 after: every wait's ticks are in the call's two, and
 * its relations are one per message. */
static void test_merged_counts(void)
{
    enum { MAIN = ST_REGION_PROGRAM, K = 130 };
    enum { RECV = ST_REGION_MPI_Recv, SEND = ST_REGION_MPI_Send };
    uint32_t a, b;
    two_ranks_in_main(&a, &b);
    enter(a, 100, RECV); /* the outer receive: its message is its last (post K + 1) */
    uint64_t U = 200, post_a = 1, post_b = 1;
    for (int k = 0; k < K; k++, U += 100) {
        p2p(a, RECV, U, U + 50, U + 51, -1, 1, post_a++); /* Late Sender: b sends at U + 40 */
        p2p(b, SEND, U + 40, U + 41, U + 45, 0, -1, 0);
        enter(a, U + 60, ST_REGION_MPI_Isend);
        st_event_t *e = tb_ev(&t, a, ST_EV_MPI_ISEND, U + 61);
        e->peer = 1, e->id = 1000 + (uint64_t)k, e->bytes = 4;
        leave(a, U + 62, ST_REGION_MPI_Isend);
        enter(a, U + 63, ST_REGION_MPI_Wait); /* Late Receiver: b posts at U + 80 */
        omp_ev(a, ST_EV_MPI_ISEND_COMPLETE, U + 90, 1000 + (uint64_t)k);
        leave(a, U + 91, ST_REGION_MPI_Wait);
        p2p(b, RECV, U + 80, U + 85, U + 86, -1, 0, post_b++);
    }
    p2p(b, SEND, U + 10, U + 11, U + 12, 0, -1, 0);
    tb_recv(&t, a, U + 20, 1, 0, post_a);
    t.locs[a].ev[t.locs[a].n - 1].bytes = 8;
    leave(a, U + 21, RECV);
    leave(a, U + 30, MAIN);
    leave(b, U + 30, MAIN);
    region(a, ST_REGION_MPI_Finalize, U + 30, U + 40);
    region(b, ST_REGION_MPI_Finalize, U + 30, U + 40);
    analyse();
    const st_rc_loc_t *L = &R.timeline->locs[a];
    const st_rc_call_t *c = NULL;
    for (uint32_t k = 0; k < L->ncalls; k++)
        if (L->calls[k].enter == 100)
            c = &L->calls[k];
    REQUIRE(c, " no call at the outer receive");
    REQUIRE(c->leave == U + 21 && c->nrel == 2 * K + 1 && c->nwait == 2, " the outer receive: leave %" PRIu64
            ", %u relations (%d expected), %u waits (2 expected)", (uint64_t)c->leave, (unsigned)c->nrel, 2 * K + 1,
            (unsigned)c->nwait);
    static const int metric[2] = { ST_AN_M_LATESENDER, ST_AN_M_LATERECEIVER };
    for (int m = 0; m < 2; m++) {
        double want = 0, got = 0;
        for (uint32_t n = 0; n < R.ncnodes; n++)
            want += *st_an_sev(&R, metric[m], n, a);
        for (uint32_t i = 0; i < c->nwait; i++)
            if (L->waits[c->wait_at + i].metric == metric[m])
                got += L->waits[c->wait_at + i].ticks;
        REQUIRE(want > K && got == want, " metric %d: the outer receive's wait %g, the location's %g", metric[m], got,
                want);
    }
    done();
}

int main(void)
{
    st_config_loaded = 1, st_config.rootcause = ST_ROOTCAUSE_ON; /* whatever the environment says */
    an_rc_keep_timeline = 1;
    test_p2p();
    test_collective();
    test_openmp();
    test_idle_cut();
    test_second_ends();
    test_end_word();
    test_merged_counts();
    return failures != 0;
}
