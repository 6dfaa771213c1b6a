/*
 * test_analysis.c — the wait-state analysis (src/analysis) on synthetic traces with
 * hand-computed values (docs/analysis.md, "Metrics"): call tree and exclusive time, visits, MPI time;
 * Late Sender (blocking, Irecv + Waitall: the largest once; Test skipped; a receive
 * before its send counted as a violation); Wrong Order from different and the same
 * source; Late Receiver (Ssend, eager Send: none, Isend + Wait); barrier wait and
 * completion; N x N full overlap; Late Broadcast with a receiver after the root; Early
 * Reduce (the latest data sender; zero-byte members left out); Early Scan (in rank order);
 * Initialization Completion and Wait at Finalize; the root causes of a Late Receiver at an Isend's Wait (charged
 * to the rank that posted the receive late, found through the Wait and the Irecv);
 * count-0 operations: nothing; intercommunicator collectives (each group waits for the other, a root for the
 * latest sender of the other group); p2p and collective counts and bytes, zero-byte messages as synchronizations; the CUBE4
 * report of a call tree not created in preorder, checked by an independent reader; call paths
 * (SYNCTRACE_CALLPATH): regions below their function frames, frames merged by function name
 * across call lines and ranks, a nested region below the frames its path does not share.
 * Every trace is also analysed in parallel (src/analysis/parallel.c: one engine per process
 * over an in-memory transport, messages delivered in random order, processes owning one rank,
 * blocks of ranks, or all) and the merged report must equal the serial one exactly; collectives
 * over trees of several levels (5, 8, 13 ranks: sub-communicators, an intercommunicator, scans,
 * nonblocking ones, MPI_Init / MPI_Finalize, an instance skipped) and the message pattern of their
 * reduction (32 processes: tree neighbours only). With one process per rank the parallel analysis
 * also runs on CLC's derivation as the in-run CLC hands it over (the ends it leaves out kept aside,
 * its partial graph read back as endpoints) and must again equal the serial one. The root-cause
 * timelines (src/analysis/rc_build.h) of the parallel analysis, merged, equal the serial one's; with the
 * root causes replayed distributed instead (rc_dist.h, as parallel_mpi.c drives it: no timeline in the
 * parts), the values, causes and critical path equal the serial ones bit for bit.
 */
/* link: src/analysis/analysis.c src/analysis/check.c src/analysis/p2p.c src/analysis/rma_pscw.c src/analysis/rma_lock.c src/analysis/call_kinds.c src/analysis/latesender.c src/analysis/coll.c src/analysis/coll_waits.c src/analysis/omp.c src/analysis/tree.c src/analysis/icoll.c src/analysis/output.c src/util/json.c src/util/fileio.c src/analysis/cube.c src/analysis/callpath.c src/analysis/source.c src/model/callpath.c src/analysis/parallel.c src/analysis/rc_dist.c src/analysis/rc_dist_flow.c src/analysis/rc_dist_sweep.c src/analysis/rc_dist_walk.c src/analysis/rc_dist_pairs.c src/util/u64map.c src/analysis/rc_dist_collect.c src/analysis/rc_dist_part.c src/analysis/coll_reduce.c src/analysis/p2p_wire.c src/analysis/rc_build.c src/analysis/rc_build_loc.c src/analysis/rc_pack.c src/analysis/rc_common.c src/analysis/rc_replay.c src/analysis/rc_index.c src/analysis/rc_causes.c src/analysis/rc_cpath.c src/config/config.c src/util/archive_dir.c src/exchange/exchange.c src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/stats.c src/model/region.c src/util/log.c */
#include "test_clc_lib.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/analysis/analysis.h"
#include "../../src/analysis/check.h"
#include "../../src/analysis/cube.h"
#include "../../src/analysis/output.h"
#include "../../src/analysis/p2p_wire.h"
#include "../../src/analysis/parallel.h"
#include "../../src/analysis/rc_build.h"
#include "../../src/util/mem.h"
#include "../../src/model/region.h"

static tb_t t;
static st_rel_graph_t g;
static st_an_result_t R;

static const st_rel_sync_region_t sync_regions[] = { { ST_REGION_MPI_Init, 0 }, { ST_REGION_MPI_Finalize, 1 } };

/* ---- the parallel analysis against the serial one ----------------------------------------------- */

typedef struct msg { int32_t from, to; void *buf; size_t len; } msg_t;
static msg_t pool[4096];
static int npool;
static uint32_t nsent[64][64]; /* messages from process to process in the last parallel run */
static size_t pool_bytes, wire_bytes[65]; /* bytes sent; per process count, by the last parallel() */

static int pool_send(void *ctx, int32_t to, void *buf, size_t len)
{
    int32_t from = *(const int32_t *)ctx;
    REQUIRE(npool < 4096);
    pool[npool++] = (msg_t){ from, to, buf, len };
    nsent[from][to]++;
    pool_bytes += len;
    return 0;
}

/* The serial cnode with the path of merged cnode k. */
static uint32_t same_path(const st_an_result_t *m, const uint32_t *map, uint32_t k)
{
    if (k == 0)
        return 0;
    for (uint32_t c = R.cnodes[map[m->cnodes[k].parent]].first_child; c != ST_AN_NO_CNODE; c = R.cnodes[c].next)
        if (R.cnodes[c].region == m->cnodes[k].region)
            return c;
    return ST_AN_NO_CNODE;
}

static size_t left_out_ends; /* OpenMP ends clc_derived left out of the graph (and read back) */
static size_t left_out_p2p;  /* point-to-point ends clc_derived left out of the graph (and read back) */

static int cmp_endpoint(const void *a, const void *b) { return st_rel_endpoint_cmp(a, b); }

/* Rank r's logical messages as the in-run CLC leaves them for the analysis (replay.c: the ends
 * whose partners are all on their own location kept aside, the partial join, st_clc_replay_keep);
 * left_out: the OpenMP ends, where they can be handed out, and the point-to-point ends left out of
 * the graph and kept as they are (ST_CLC_REPLAY_CHECK_FIRST: both checked first). */
static void clc_derived(st_rel_input_t *in, int32_t r, st_rel_derived_t *d, int left_out)
{
    st_rel_epvec_t ep = { 0 };
    st_rel_epsrc_t omp = { 0 };
    memset(d, 0, sizeof *d);
    st_rel_derive_opts_t opts = { .omit_self_ends = 1, .self_ends = &d->self_ends };
    if (left_out)
        REQUIRE(st_rel_endpoints_split(in, r, &opts, &ep, NULL, &omp, &d->p2p) == 0);
    else
        REQUIRE(st_rel_endpoints(in, r, &opts, &ep, NULL) == 0);
    unsigned take = ep.v ? ST_REL_JOIN_TAKE : 0; /* (CLC's rank always has endpoints: MPI_Init) */
    REQUIRE(st_rel_graph_join(ep.v, ep.n, in->nlocs, ST_REL_JOIN_PARTIAL | take | ST_REL_JOIN_TIMES, &d->g) == 0);
    d->omp = omp;
    left_out_ends += omp.n;
    left_out_p2p += d->p2p.n;
    st_mem_free(d->g.ports), st_mem_free(d->g.port_first);
    d->g.ports = NULL, d->g.port_first = NULL;
    REQUIRE(st_rel_self_ends_expand(&d->self_ends, in->locs) == 0);
    /* read back, they are the endpoints the analysis derives itself, in the join's order (the
     * times are the graph's; the mu classes the instances', which the analysis does not read) */
    st_rel_epvec_t own = { 0 };
    REQUIRE(st_rel_endpoints(in, r, NULL, &own, NULL) == 0);
    if (own.n > 1)
        qsort(own.v, own.n, sizeof *own.v, cmp_endpoint);
    st_rel_endpoint_t buf[3];
    st_rel_derived_pos_t pos = { 0 };
    size_t n, k = 0;
    while ((n = st_rel_derived_read(d, &pos, buf, 3)) > 0) /* in parts that end anywhere */
        for (size_t i = 0; i < n; i++, k++) {
            REQUIRE(k < own.n);
            st_rel_endpoint_t a = own.v[k], b = buf[i];
            a.time = b.time = 0, a.mumask = b.mumask = 0;
            REQUIRE(!memcmp(&a, &b, sizeof a));
        }
    REQUIRE(k == own.n);
    st_rel_epvec_free(&own);
}

/* Analyses in with np processes (process of rank r: r * np / nranks) and compares with R.
 * clc (one process per rank): each takes CLC's derivation instead of deriving (the in-run way);
 * 2: CLC's that left the OpenMP relations out of its graph. */
/* Profile entries p[0 .. n) of the merged result hold the same as q[0 .. n) of the serial one (cnodes mapped). */
static void same_prof(const st_rc_prof_t *p, const st_rc_prof_t *q, uint32_t n, const uint32_t *map)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = 0;
        while (j < n && (q[j].cnode != map[p[i].cnode] || q[j].ticks != p[i].ticks))
            j++;
        REQUIRE(j < n);
        REQUIRE(i == 0 || p[i - 1].cnode < p[i].cnode);
    }
}

/* The merged root-cause timeline of m equals the serial one (R's), location by location (lmap) and
 * call by call, cnodes mapped (map). */
static void same_timeline(const st_an_result_t *m, const uint32_t *map, const uint32_t *lmap)
{
    REQUIRE(m->timeline && R.timeline && m->timeline->nlocs == R.timeline->nlocs);
    for (uint32_t l = 0; l < m->timeline->nlocs; l++) {
        const st_rc_loc_t *a = &m->timeline->locs[l], *b = &R.timeline->locs[lmap[l]];
        REQUIRE(a->first == b->first && a->last == b->last && a->ncalls == b->ncalls && a->nprof == b->nprof &&
                a->nwaits == b->nwaits && a->nrels == b->nrels && a->ntail == b->ntail);
        for (uint32_t k = 0; k < a->ncalls; k++) {
            const st_rc_call_t *x = &a->calls[k], *y = &b->calls[k];
            REQUIRE(x->enter == y->enter && x->leave == y->leave && map[x->cnode] == y->cnode &&
                    x->flags == y->flags && x->nprof == y->nprof && x->nwait == y->nwait && x->nrel == y->nrel);
            same_prof(a->prof + x->prof_at, b->prof + y->prof_at, x->nprof, map);
            for (uint32_t i = 0; i < x->nwait; i++)
                REQUIRE(a->waits[x->wait_at + i].metric == b->waits[y->wait_at + i].metric &&
                        a->waits[x->wait_at + i].ticks == b->waits[y->wait_at + i].ticks);
            for (uint32_t i = 0; i < x->nrel; i++)
                REQUIRE(!memcmp(a->rels[x->rel_at + i].key, b->rels[y->rel_at + i].key, sizeof a->rels->key) &&
                        a->rels[x->rel_at + i].role == b->rels[y->rel_at + i].role);
        }
        same_prof(a->prof + a->tail_at, b->prof + b->tail_at, a->ntail, map);
    }
}

/* The metric tree's invariants (check.h) hold on r. */
static void check_tree(const st_an_result_t *r, const char *what)
{
    char msg[1024];
    size_t bad = st_an_check_tree(r, 1000000000u, msg, sizeof msg);
    if (bad)
        fprintf(stderr, "%s: %zu violations of the metric tree, the first: %s\n", what, bad, msg);
    REQUIRE(bad == 0);
}

/* The root causes of the engines e[0 .. np) distributed (st_an_par_rc_*: the call trees unified, the replay
 * over the in-memory transport in random order), as parallel_mpi.c drives them. */
static void rc_distributed(st_an_par_t **e, int np, int32_t *ids)
{
    void *trees[64];
    size_t tl[64];
    uint32_t *maps[64], ploc0[65], ng;
    static uint32_t kept[64][64]; /* nsent counts the analysis' own messages: kept */
    memcpy(kept, nsent, sizeof kept);
    for (int q = 0; q < np; q++)
        REQUIRE(st_an_par_tree(e[q], &trees[q], &tl[q]) == 0);
    REQUIRE(st_an_par_unify((const void *const *)trees, tl, np, &ng, maps, ploc0) == 0);
    for (int q = 0; q < np; q++) {
        st_xchg_net_t net = { pool_send, &ids[q] };
        REQUIRE(st_an_par_has_timeline(e[q]) && st_an_par_rc_begin(e[q], maps[q], ng, ploc0, &net) == 0);
    }
    for (int q = 0; q < np; q++)
        REQUIRE(st_an_par_rc_start(e[q]) == 0);
    for (;;) {
        int done = 0;
        for (int q = 0; q < np; q++) {
            int k = st_an_par_rc_progress(e[q]);
            REQUIRE(k == ST_AN_PAR_DONE || k == ST_AN_PAR_IDLE);
            done += k == ST_AN_PAR_DONE;
        }
        if (done == np && !npool)
            break;
        REQUIRE(npool > 0);
        int k = (int)(tb_rnd() % (uint64_t)npool);
        msg_t m = pool[k];
        pool[k] = pool[--npool];
        REQUIRE(st_an_par_rc_deliver(e[m.to], m.from, m.buf, m.len) == 0);
        st_mem_free(m.buf);
    }
    for (int q = 0; q < np; q++) {
        REQUIRE(st_an_par_rc_end(e[q], 1) == 0);
        free(maps[q]), free(trees[q]);
    }
    memcpy(nsent, kept, sizeof kept);
}

/* m's causes equal the serial ones (R's) bit for bit, up to the numbering of cnodes and locations (map,
 * lmap: m's -> R's). */
static void same_causes(const st_an_result_t *m, const uint32_t *map, const uint32_t *lmap)
{
    const st_rc_causes_t *a = m->causes, *b = R.causes;
    REQUIRE(a && b && a->n == b->n && a->nprop == b->nprop && a->npath == b->npath);
    for (size_t i = 0; i < a->n; i++) { /* the order by cnode may differ: find each */
        size_t j = 0;
        while (j < b->n && !(b->v[j].metric == a->v[i].metric && b->v[j].wait_cnode == map[a->v[i].wait_cnode] &&
                             b->v[j].delay_loc == lmap[a->v[i].delay_loc] && b->v[j].delay_cnode == map[a->v[i].delay_cnode]))
            j++;
        REQUIRE(j < b->n && !memcmp(&a->v[i].short_ticks, &b->v[j].short_ticks, 8) &&
                !memcmp(&a->v[i].long_ticks, &b->v[j].long_ticks, 8));
    }
    for (size_t i = 0; i < a->npath; i++)
        REQUIRE(lmap[a->path[i].loc] == b->path[i].loc && a->path[i].t0 == b->path[i].t0 && a->path[i].t1 == b->path[i].t1);
}

static void parallel(const st_rel_input_t *in, int np, int clc, int dist)
{
    st_rel_derived_t derived[64];
    int32_t owner[64], ids[64];
    st_rel_input_t part[64];
    st_rel_loc_t locs[64][64];
    st_an_par_t *e[64];
    uint8_t flags[64][64] = { { 0 } };
    void *packs[64];
    size_t lens[64];
    for (int32_t r = 0; r < in->nranks; r++)
        owner[r] = (int32_t)((int64_t)r * np / in->nranks);
    st_rel_lockvec_t all = { 0 }; /* every process's lock epochs, as st_an_par_locks_mpi gathers them */
    for (int q = 0; q < np; q++) { /* each process's locations in rank, thread order */
        part[q] = *in;
        part[q].nlocs = 0, part[q].locs = locs[q], part[q].locks = NULL, part[q].nlocks = 0;
        for (int32_t r = 0; r < in->nranks; r++)
            for (uint32_t th = 0; th < 64; th++)
                for (uint32_t l = 0; l < in->nlocs; l++)
                    if (owner[r] == q && in->locs[l].rank == r && in->locs[l].thread == th)
                        locs[q][part[q].nlocs++] = in->locs[l];
        REQUIRE(st_rel_input_lock_order(&part[q]) == 0);
        for (size_t k = 0; k < part[q].nlocks; k++) {
            REQUIRE(st_mem_grow((void **)&all.v, &all.cap, all.n + 1, sizeof *all.v) == 0);
            all.v[all.n++] = part[q].locks[k];
        }
    }
    for (int q = 0; q < np; q++) {
        st_rel_lock_epoch_t *v = all.n ? malloc(sizeof *v * all.n) : NULL;
        REQUIRE(!all.n || v);
        if (all.n)
            memcpy(v, all.v, sizeof *v * all.n);
        st_rel_input_lock_take(&part[q], v, all.n);
    }
    st_mem_free(all.v);
    for (int q = 0; q < np; q++) {
        ids[q] = q;
        if (clc) {
            REQUIRE(np == in->nranks);
            clc_derived(&part[q], q, &derived[q], clc == 2);
        }
        st_xchg_net_t net = { pool_send, &ids[q] };
        REQUIRE(st_an_par_new(&part[q], clc ? &derived[q] : NULL, owner, q, np, &net, &e[q]) == 0);
        st_an_par_partners(e[q], flags[q]);
    }
    npool = 0, pool_bytes = 0;
    memset(nsent, 0, sizeof nsent);
    for (int q = 0; q < np; q++) {
        uint32_t incoming = 0;
        for (int p = 0; p < np; p++)
            incoming += flags[p][q];
        REQUIRE(st_an_par_start(e[q], incoming) == 0);
    }
    wire_bytes[np] = pool_bytes;
    while (npool) { /* random delivery order */
        int k = (int)(tb_rnd() % (uint64_t)npool);
        msg_t m = pool[k];
        pool[k] = pool[--npool];
        REQUIRE(st_an_par_deliver(e[m.to], m.from, m.buf, m.len) == 0);
        st_mem_free(m.buf);
    }
    for (int q = 0; q < np; q++)
        REQUIRE(st_an_par_progress(e[q]) == ST_AN_PAR_DONE);
    if (dist)
        rc_distributed(e, np, ids);
    for (int q = 0; q < np; q++)
        REQUIRE(st_an_par_pack(e[q], &packs[q], &lens[q]) == 0);
    st_an_result_t M;
    REQUIRE(st_an_par_merge((const void *const *)packs, lens, np, &M) == 0);
    REQUIRE(M.nlocs == R.nlocs && M.ncnodes == R.ncnodes);
    uint32_t map[256], lmap[64];
    REQUIRE(M.ncnodes <= 256);
    for (uint32_t k = 0; k < M.ncnodes; k++)
        REQUIRE((map[k] = same_path(&M, map, k)) != ST_AN_NO_CNODE);
    for (uint32_t l = 0; l < M.nlocs; l++) {
        lmap[l] = UINT32_MAX;
        for (uint32_t j = 0; j < in->nlocs; j++)
            if (in->locs[j].rank == M.locs[l].rank && in->locs[j].thread == M.locs[l].thread)
                lmap[l] = j;
        REQUIRE(lmap[l] != UINT32_MAX);
    }
    for (int m = 0; m < ST_AN__METRICS; m++) {
        for (uint32_t k = 0; k < M.ncnodes; k++)
            for (uint32_t l = 0; l < M.nlocs; l++)
                if (*st_an_sev(&M, m, k, l) != *st_an_sev(&R, m, map[k], lmap[l])) {
                    fprintf(stderr, "%d processes: %s cnode %u location %u: parallel %g, serial %g\n", np,
                            st_an_metric(m)->uniq, k, l, *st_an_sev(&M, m, k, l), *st_an_sev(&R, m, map[k], lmap[l]));
                    REQUIRE(0);
                }
        REQUIRE(M.ntop[m] == R.ntop[m]);
        for (uint32_t i = 0; i < M.ntop[m]; i++)
            REQUIRE(M.top[m][i].value == R.top[m][i].value && M.top[m][i].time == R.top[m][i].time &&
                  M.topgid[m][i] == R.topgid[m][i] && map[M.top[m][i].cnode] == R.top[m][i].cnode &&
                  lmap[M.top[m][i].loc] == R.top[m][i].loc);
    }
    REQUIRE(!memcmp(&M.stats, &R.stats, sizeof M.stats));
    for (uint32_t l = 0; l < M.nlocs; l++)
        REQUIRE(M.span[l] == R.span[lmap[l]]);
    if (dist) {
        REQUIRE(!M.timeline); /* no timeline travelled */
        same_causes(&M, map, lmap);
    } else
        same_timeline(&M, map, lmap);
    check_tree(&M, "parallel");
    for (int q = 0; q < np; q++)
        st_an_par_free(e[q]), free(packs[q]), st_mem_free(part[q].locks);
    st_an_free(&M);
}

static void analyse(void)
{
    st_rel_input_t in = tb_input(&t);
    in.sync = sync_regions, in.nsync = 2;
    REQUIRE(st_rel_input_lock_order(&in) == 0); /* (as st_rel_input_from_rankdata) */
    REQUIRE(st_rel_graph_build(&in, &g) == 0);
    REQUIRE(st_an_run(&in, &g, &R) == 0);
    for (uint32_t l = 0; l < in.nlocs; l++) /* the result's locations are the input's */
        REQUIRE(R.locs[l].rank == in.locs[l].rank && R.locs[l].thread == in.locs[l].thread);
    check_tree(&R, "serial");
    for (int np = 1; np <= in.nranks; np++)
        parallel(&in, np, 0, 0), parallel(&in, np, 0, 1);
    parallel(&in, in.nranks, 1, 0);
    parallel(&in, in.nranks, 2, 1);
    /* the JSON writer accepts every result (values checked by t_analyze_waits) */
    FILE *f = tmpfile();
    REQUIRE(f && st_an_write_json(f, &R, 1000000000u) == 0);
    fclose(f);
    st_mem_free(in.locks);
}

static void done(void)
{
    st_an_free(&R);
    st_rel_graph_free(&g);
    tb_free(&t);
}

/* The cnode at the end of a path of regions under the root, or ST_AN_NO_CNODE. */
static uint32_t path(int n, const uint32_t *regions)
{
    uint32_t k = 0;
    for (int i = 0; i < n && k != ST_AN_NO_CNODE; i++) {
        uint32_t c = R.cnodes[k].first_child;
        while (c != ST_AN_NO_CNODE && R.cnodes[c].region != regions[i])
            c = R.cnodes[c].next;
        k = c;
    }
    return k;
}

/* Value of metric m at the call path (regions...) on location l; the path must exist. */
#define AT(m, l, ...) at_(m, l, (const uint32_t[]){ __VA_ARGS__ }, \
                          (int)(sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)))
static uint64_t at_(int m, uint32_t l, const uint32_t *regions, int n)
{
    uint32_t k = path(n, regions);
    if (k == ST_AN_NO_CNODE) {
        fprintf(stderr, "no call path of %d regions ending in %u\n", n, regions[n - 1]);
        exit(1);
    }
    double v = *st_an_sev(&R, m, k, l);
    REQUIRE(v >= 0 && v == (double)(uint64_t)v);
    return (uint64_t)v;
}

static void enter(uint32_t l, uint64_t time, uint32_t region) { tb_region(&t, l, ST_EV_ENTER, time, region); }
static void leave(uint32_t l, uint64_t time, uint32_t region) { tb_region(&t, l, ST_EV_LEAVE, time, region); }

static st_event_t *send(uint32_t l, uint64_t time, int32_t dest, uint64_t bytes)
{
    tb_send(&t, l, time, dest, 0);
    st_event_t *e = &t.locs[l].ev[t.locs[l].n - 1];
    e->bytes = bytes;
    return e;
}

static void recv(uint32_t l, uint64_t time, int32_t src, uint64_t post, uint64_t bytes)
{
    tb_recv(&t, l, time, src, 0, post);
    t.locs[l].ev[t.locs[l].n - 1].bytes = bytes;
}

/* A blocking collective call: ENTER at b-1, COLL_BEGIN at b, COLL_END at e, LEAVE at e+1. */
static void coll(uint32_t l, uint32_t region, uint64_t b, uint64_t e, unsigned op, int32_t root, uint64_t seq,
                 uint64_t sent, uint64_t recvd)
{
    enter(l, b - 1, region);
    tb_coll(&t, l, b, e, op, root, seq, sent, recvd);
    leave(l, e + 1, region);
}

static void test_tree_and_late_sender(void)
{
    tb_init(&t, 2, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
    enter(a, 100, ST_REGION_PROGRAM);
    enter(a, 200, ST_REGION_MPI_Recv);
    recv(a, 480, 1, 1, 8);
    leave(a, 500, ST_REGION_MPI_Recv);
    enter(a, 600, ST_REGION_MPI_Recv); /* zero-byte message, sent after the receive ended */
    recv(a, 610, 1, 2, 0);
    leave(a, 620, ST_REGION_MPI_Recv);
    leave(a, 1000, ST_REGION_PROGRAM);
    enter(b, 100, ST_REGION_PROGRAM);
    enter(b, 300, ST_REGION_MPI_Send);
    send(b, 301, 0, 8);
    leave(b, 305, ST_REGION_MPI_Send);
    enter(b, 700, ST_REGION_MPI_Send);
    send(b, 701, 0, 0);
    leave(b, 702, ST_REGION_MPI_Send);
    leave(b, 900, ST_REGION_PROGRAM);
    analyse();
    REQUIRE_EQ(R.ncnodes, 4); /* root, main, main/MPI_Recv, main/MPI_Send */
    REQUIRE_EQ(AT(ST_AN_M_TIME, a, ST_REGION_PROGRAM), 900 - 300 - 20);
    REQUIRE_EQ(AT(ST_AN_M_TIME, a, ST_REGION_PROGRAM, ST_REGION_MPI_Recv), 320);
    REQUIRE_EQ(*st_an_sev(&R, ST_AN_M_TIME, 0, a), 0);
    REQUIRE_EQ(AT(ST_AN_M_VISITS, a, ST_REGION_PROGRAM, ST_REGION_MPI_Recv), 2);
    REQUIRE_EQ(AT(ST_AN_M_MPI, a, ST_REGION_PROGRAM, ST_REGION_MPI_Recv), 320);
    REQUIRE_EQ(AT(ST_AN_M_MPI, a, ST_REGION_PROGRAM), 0);
    /* 300 - 200, plus the second receive waited its whole call: min(700, 620) - 600 */
    REQUIRE_EQ(AT(ST_AN_M_LATESENDER, a, ST_REGION_PROGRAM, ST_REGION_MPI_Recv), 100 + 20);
    REQUIRE_EQ(R.stats.ls_violations, 1);
    REQUIRE_EQ(AT(ST_AN_M_LATESENDER, b, ST_REGION_PROGRAM, ST_REGION_MPI_Send), 0);
    REQUIRE_EQ(AT(ST_AN_M_LATERECEIVER, b, ST_REGION_PROGRAM, ST_REGION_MPI_Send), 0); /* eager: left before the post */
    REQUIRE_EQ(AT(ST_AN_M_COMMS_SEND, b, ST_REGION_PROGRAM, ST_REGION_MPI_Send), 1);
    REQUIRE_EQ(AT(ST_AN_M_SYNCS_SEND, b, ST_REGION_PROGRAM, ST_REGION_MPI_Send), 1);
    REQUIRE_EQ(AT(ST_AN_M_BYTES_SENT, b, ST_REGION_PROGRAM, ST_REGION_MPI_Send), 8);
    REQUIRE_EQ(AT(ST_AN_M_COMMS_RECV, a, ST_REGION_PROGRAM, ST_REGION_MPI_Recv), 1);
    REQUIRE_EQ(AT(ST_AN_M_SYNCS_RECV, a, ST_REGION_PROGRAM, ST_REGION_MPI_Recv), 1);
    REQUIRE_EQ(AT(ST_AN_M_BYTES_RCVD, a, ST_REGION_PROGRAM, ST_REGION_MPI_Recv), 8);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_LATESENDER), 120);
    done();
}

static void irecv(uint32_t l, uint64_t time, uint64_t id)
{
    enter(l, time, ST_REGION_MPI_Irecv);
    tb_ev(&t, l, ST_EV_MPI_IRECV_REQUEST, time + 1)->id = id;
    leave(l, time + 2, ST_REGION_MPI_Irecv);
}

static void irecv_done(uint32_t l, uint64_t time, int32_t src, uint64_t id)
{
    st_event_t *e = tb_ev(&t, l, ST_EV_MPI_IRECV, time);
    e->peer = src, e->id = id, e->bytes = 4;
}

/* Calls never left end at the location's last event; a LEAVE without its ENTER is no call. Time is
 * exclusive (a call's duration less its callees'), the root holding the time outside every call. */
static void test_unpaired_calls(void)
{
    tb_init(&t, 1, 0);
    uint32_t a = tb_loc(&t, 0, 0);
    leave(a, 5, ST_REGION_MPI_Send); /* unmatched */
    enter(a, 10, ST_REGION_PROGRAM);
    enter(a, 20, ST_REGION_MPI_Recv);
    leave(a, 30, ST_REGION_MPI_Recv);
    enter(a, 40, ST_REGION_MPI_Send);  /* never left, nor is PROGRAM */
    enter(a, 100, ST_REGION_MPI_Recv); /* never left, the last event */
    analyse();
    REQUIRE_EQ(*st_an_sev(&R, ST_AN_M_TIME, 0, a), 5);
    REQUIRE_EQ(AT(ST_AN_M_TIME, a, ST_REGION_PROGRAM), 90 - 10 - 60);
    REQUIRE_EQ(AT(ST_AN_M_TIME, a, ST_REGION_PROGRAM, ST_REGION_MPI_Recv), 10);
    REQUIRE_EQ(AT(ST_AN_M_TIME, a, ST_REGION_PROGRAM, ST_REGION_MPI_Send), 60);
    REQUIRE_EQ(AT(ST_AN_M_TIME, a, ST_REGION_PROGRAM, ST_REGION_MPI_Send, ST_REGION_MPI_Recv), 0);
    REQUIRE_EQ(AT(ST_AN_M_VISITS, a, ST_REGION_PROGRAM), 1);
    REQUIRE_EQ(AT(ST_AN_M_VISITS, a, ST_REGION_PROGRAM, ST_REGION_MPI_Recv), 1);
    REQUIRE_EQ(AT(ST_AN_M_VISITS, a, ST_REGION_PROGRAM, ST_REGION_MPI_Send, ST_REGION_MPI_Recv), 1);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_TIME), 95);
    REQUIRE_EQ(R.stats.unpaired, 4);
    done();
}

/* Request ids: the shim numbers a process's requests 1, 2, ... (looked up by a direct index), id
 * maps them; far apart ids (another producer) take the hashed lookup: the same values. */
static void test_nonblocking_ids(uint64_t (*id)(uint64_t))
{
    tb_init(&t, 4, 0);
    uint32_t l0 = tb_loc(&t, 0, 0), l1 = tb_loc(&t, 1, 0), l2 = tb_loc(&t, 2, 0), l3 = tb_loc(&t, 3, 0);
    /* rank 0: two Irecvs completed by one Waitall: the larger Late Sender, once */
    irecv(l0, 10, id(7));
    irecv(l0, 13, id(8));
    enter(l0, 20, ST_REGION_MPI_Waitall);
    irecv_done(l0, 300, 1, id(7));
    irecv_done(l0, 400, 2, id(8));
    leave(l0, 410, ST_REGION_MPI_Waitall);
    /* then an Irecv completed in MPI_Test: skipped */
    irecv(l0, 500, id(9));
    enter(l0, 510, ST_REGION_MPI_Test);
    irecv_done(l0, 515, 3, id(9));
    leave(l0, 520, ST_REGION_MPI_Test);
    enter(l1, 100, ST_REGION_MPI_Send);
    send(l1, 101, 0, 4);
    leave(l1, 102, ST_REGION_MPI_Send);
    enter(l2, 250, ST_REGION_MPI_Send);
    send(l2, 251, 0, 4);
    leave(l2, 252, ST_REGION_MPI_Send);
    /* rank 3: Isend, its Wait blocks until rank 0 posted (at 500): Late Receiver 500 - 110 */
    enter(l3, 100, ST_REGION_MPI_Isend);
    st_event_t *e = tb_ev(&t, l3, ST_EV_MPI_ISEND, 101);
    e->peer = 0, e->id = id(5), e->bytes = 4;
    leave(l3, 102, ST_REGION_MPI_Isend);
    enter(l3, 110, ST_REGION_MPI_Wait);
    tb_ev(&t, l3, ST_EV_MPI_ISEND_COMPLETE, 505)->id = id(5);
    leave(l3, 506, ST_REGION_MPI_Wait);
    analyse();
    REQUIRE_EQ(AT(ST_AN_M_LATESENDER, l0, ST_REGION_MPI_Waitall), 250 - 20);
    REQUIRE_EQ(AT(ST_AN_M_LATESENDER, l0, ST_REGION_MPI_Test), 0);
    REQUIRE_EQ(AT(ST_AN_M_LATERECEIVER, l3, ST_REGION_MPI_Wait), 500 - 110);
    REQUIRE_EQ(AT(ST_AN_M_LATERECEIVER, l1, ST_REGION_MPI_Send), 0); /* left (102) after the post (10): 10 - 100 < 0 */
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_LATESENDER), 230);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_LATERECEIVER), 390);
    REQUIRE_EQ(R.stats.ls_violations, 0);
    /* Root causes from these events (rc_build.c): the Late Receiver at rank 3's Wait finds its delayer through the
     * message's second ends (the Wait that completed the Isend, the Irecv that posted the receive), so its delay is
     * charged to rank 0, which posted late, and to nobody else; no more than the 390 it explains. */
    double lr[4] = { 0 }, lr_lt = 0;
    for (uint32_t k = 0; k < R.ncnodes; k++)
        for (uint32_t l = 0; l < R.nlocs && l < 4; l++)
            lr[l] += *st_an_sev(&R, ST_AN_M_DELAY_LR, k, l), lr_lt += *st_an_sev(&R, ST_AN_M_DELAY_LR_LT, k, l);
    if (!(lr[0] > 0 && lr[0] <= 390 && lr[1] == 0 && lr[2] == 0 && lr[3] == 0 && lr_lt == 0)) {
        fprintf(stderr, "Late Receiver at an Isend's Wait: delay_latereceiver %g %g %g %g on ranks 0-3, long-term %g "
                        "(expected 0 < rank 0's <= 390, nothing else)\n", lr[0], lr[1], lr[2], lr[3], lr_lt);
        exit(1);
    }
    done();
}

static uint64_t dense_id(uint64_t k) { return k; }
static uint64_t sparse_id(uint64_t k) { return k << 40; }
static void test_nonblocking(void)
{
    test_nonblocking_ids(dense_id);
    test_nonblocking_ids(sparse_id);
}

static void test_late_receiver_ssend(void)
{
    tb_init(&t, 2, 0);
    uint32_t s = tb_loc(&t, 0, 0), r = tb_loc(&t, 1, 0);
    enter(s, 100, ST_REGION_MPI_Ssend);
    send(s, 101, 1, 4);
    leave(s, 700, ST_REGION_MPI_Ssend);
    enter(r, 600, ST_REGION_MPI_Recv);
    recv(r, 650, 0, 1, 4);
    leave(r, 660, ST_REGION_MPI_Recv);
    analyse();
    REQUIRE_EQ(AT(ST_AN_M_LATERECEIVER, s, ST_REGION_MPI_Ssend), 500);
    REQUIRE_EQ(AT(ST_AN_M_LATESENDER, r, ST_REGION_MPI_Recv), 0);
    done();
}

static void test_collectives(void)
{
    tb_init(&t, 3, 0);
    uint32_t l[3] = { tb_loc(&t, 0, 0), tb_loc(&t, 1, 0), tb_loc(&t, 2, 0) };
    static const uint64_t bb[3] = { 100, 300, 200 }, be[3] = { 310, 320, 330 };     /* barrier */
    static const uint64_t nb[3] = { 1100, 1150, 1400 }, ne[3] = { 1410, 1420, 1405 }; /* allreduce */
    static const uint64_t cb[3] = { 2100, 2300, 2350 }, ce[3] = { 2310, 2305, 2360 }; /* bcast, root 1 */
    static const uint64_t rb[3] = { 3050, 3200, 3120 }, re[3] = { 3210, 3201, 3121 }; /* reduce, root 0 */
    static const uint64_t sb[3] = { 3600, 3800, 3700 }, se[3] = { 3810, 3820, 3830 }; /* scan */
    for (int i = 0; i < 3; i++) {
        coll(l[i], ST_REGION_MPI_Barrier, bb[i], be[i], OP_BARRIER, -1, 1, 0, 0);
        coll(l[i], ST_REGION_MPI_Allreduce, nb[i], ne[i], OP_ALLREDUCE, -1, 2, 4, 4);
        coll(l[i], ST_REGION_MPI_Allreduce, 1500, 1600 + 10 * i, OP_ALLREDUCE, -1, 3, 0, 0); /* count 0 */
        coll(l[i], ST_REGION_MPI_Bcast, cb[i], ce[i], OP_BCAST, 1, 4, i == 1 ? 4 : 0, i == 1 ? 0 : 4);
        coll(l[i], ST_REGION_MPI_Reduce, rb[i], re[i], OP_REDUCE, 0, 5, 4, i == 0 ? 12 : 0);
        /* gatherv to rank 0 whose latest member (rank 1) sends nothing; gather to rank 0 entered after rank 1 */
        static const uint64_t gb[3] = { 3250, 3380, 3300 }, ge[3] = { 3400, 3381, 3301 };
        static const uint64_t hb[3] = { 3450, 3420, 3500 }, he[3] = { 3560, 3421, 3501 };
        coll(l[i], ST_REGION_MPI_Gatherv, gb[i], ge[i], OP_GATHERV, 0, 6, i == 1 ? 0 : 4, i == 0 ? 8 : 0);
        coll(l[i], ST_REGION_MPI_Gather, hb[i], he[i], 2 /* GATHER */, 0, 7, 4, i == 0 ? 12 : 0);
        coll(l[i], ST_REGION_MPI_Scan, sb[i], se[i], OP_SCAN, -1, 8, 4, 4); /* each location's events in time order */
    }
    /* a barrier on MPI_COMM_SELF (comm index 1) synchronizes nothing */
    enter(l[0], 4000, ST_REGION_MPI_Barrier);
    tb_ev(&t, l[0], ST_EV_MPI_COLL_BEGIN, 4001);
    st_event_t *e = tb_ev(&t, l[0], ST_EV_MPI_COLL_END, 4500);
    e->op = OP_BARRIER, e->comm = 1, e->id = 1;
    leave(l[0], 4501, ST_REGION_MPI_Barrier);
    analyse();
    /* barrier: B_ref 300, E_min 310 */
    REQUIRE_EQ(AT(ST_AN_M_BARRIER_WAIT, l[0], ST_REGION_MPI_Barrier), 200);
    REQUIRE_EQ(AT(ST_AN_M_BARRIER_WAIT, l[1], ST_REGION_MPI_Barrier), 0);
    REQUIRE_EQ(AT(ST_AN_M_BARRIER_WAIT, l[2], ST_REGION_MPI_Barrier), 100);
    REQUIRE_EQ(AT(ST_AN_M_BARRIER_COMPL, l[0], ST_REGION_MPI_Barrier), 0);
    REQUIRE_EQ(AT(ST_AN_M_BARRIER_COMPL, l[1], ST_REGION_MPI_Barrier), 10);
    REQUIRE_EQ(AT(ST_AN_M_BARRIER_COMPL, l[2], ST_REGION_MPI_Barrier), 20);
    /* allreduce, full overlap: B_ref 1400, E_min 1405; the count-0 one adds nothing */
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[0], ST_REGION_MPI_Allreduce), 300);
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[1], ST_REGION_MPI_Allreduce), 250);
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[2], ST_REGION_MPI_Allreduce), 0);
    REQUIRE_EQ(AT(ST_AN_M_NXN_COMPL, l[0], ST_REGION_MPI_Allreduce), 5);
    REQUIRE_EQ(AT(ST_AN_M_NXN_COMPL, l[1], ST_REGION_MPI_Allreduce), 15);
    REQUIRE_EQ(AT(ST_AN_M_NXN_COMPL, l[2], ST_REGION_MPI_Allreduce), 0);
    /* bcast from rank 1 (begins 2300): rank 0 waits, rank 2 began after the root */
    REQUIRE_EQ(AT(ST_AN_M_LATEBROADCAST, l[0], ST_REGION_MPI_Bcast), 200);
    REQUIRE_EQ(AT(ST_AN_M_LATEBROADCAST, l[1], ST_REGION_MPI_Bcast), 0);
    REQUIRE_EQ(AT(ST_AN_M_LATEBROADCAST, l[2], ST_REGION_MPI_Bcast), 0);
    /* reduce to rank 0: waits for the latest sender (3200), not the earliest (3120); gatherv: for
     * rank 2 (3300), rank 1 (3380) sends nothing; gather: for rank 2 (3500), though rank 1 began
     * before the root (Scalasca 2.6's rule; up to 2.5 it was the earliest sender) */
    REQUIRE_EQ(AT(ST_AN_M_EARLYREDUCE, l[0], ST_REGION_MPI_Reduce), 150);
    REQUIRE_EQ(AT(ST_AN_M_EARLYREDUCE, l[0], ST_REGION_MPI_Gatherv), 50);
    REQUIRE_EQ(AT(ST_AN_M_EARLYREDUCE, l[0], ST_REGION_MPI_Gather), 50);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_EARLYREDUCE), 250);
    /* scan: rank 2 waits for rank 1 (3800), rank 0 for nobody (it is first) */
    REQUIRE_EQ(AT(ST_AN_M_EARLYSCAN, l[0], ST_REGION_MPI_Scan), 0);
    REQUIRE_EQ(AT(ST_AN_M_EARLYSCAN, l[1], ST_REGION_MPI_Scan), 0);
    REQUIRE_EQ(AT(ST_AN_M_EARLYSCAN, l[2], ST_REGION_MPI_Scan), 100);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_BARRIER_WAIT), 300);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_WAIT_NXN), 550);
    REQUIRE_EQ(R.stats.coll_violations, 0);
    /* counts: barriers and count-0 allreduces synchronize; bcast root is a source, others destinations */
    REQUIRE_EQ(AT(ST_AN_M_SYNCS_COLL, l[0], ST_REGION_MPI_Barrier), 2);
    REQUIRE_EQ(AT(ST_AN_M_SYNCS_COLL, l[0], ST_REGION_MPI_Allreduce), 1);
    REQUIRE_EQ(AT(ST_AN_M_COMMS_CXCH, l[0], ST_REGION_MPI_Allreduce), 1);
    REQUIRE_EQ(AT(ST_AN_M_COMMS_CSRC, l[1], ST_REGION_MPI_Bcast), 1);
    REQUIRE_EQ(AT(ST_AN_M_COMMS_CDST, l[0], ST_REGION_MPI_Bcast), 1);
    REQUIRE_EQ(AT(ST_AN_M_BYTES_CIN, l[0], ST_REGION_MPI_Reduce), 12);
    REQUIRE_EQ(AT(ST_AN_M_BYTES_COUT, l[2], ST_REGION_MPI_Reduce), 4);
    done();
}

/* A blocking call around one p2p event with a tag. */
static void p2p_call(uint32_t l, uint32_t region, uint64_t t0, uint64_t tev, uint64_t t1, int32_t peer, int32_t tag,
                     uint64_t post)
{
    enter(l, t0, region);
    if (region == ST_REGION_MPI_Recv)
        tb_recv(&t, l, tev, peer, tag, post);
    else
        tb_send(&t, l, tev, peer, tag);
    t.locs[l].ev[t.locs[l].n - 1].bytes = 4;
    leave(l, t1, region);
}

static void test_wrong_order(void)
{
    tb_init(&t, 3, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0), c = tb_loc(&t, 2, 0);
    const uint32_t RECV = ST_REGION_MPI_Recv, SEND = ST_REGION_MPI_Send;
    /* different sources: a receives from b (sent late, at 301) before c (sent at 51) */
    p2p_call(c, SEND, 50, 51, 52, 0, 0, 0);
    p2p_call(a, RECV, 100, 400, 410, 1, 0, 1);   /* Late Sender 300 - 100 */
    p2p_call(b, SEND, 300, 301, 302, 0, 0, 0);
    p2p_call(a, RECV, 420, 425, 430, 2, 0, 2);   /* its send (51) is earlier than 301: wrong order */
    /* same source: b sends tag 2 (901) before tag 1 (1251); a receives tag 1 first */
    p2p_call(b, SEND, 900, 901, 902, 0, 2, 0);
    p2p_call(a, RECV, 1000, 1300, 1310, 1, 1, 3); /* Late Sender 250 */
    p2p_call(b, SEND, 1250, 1251, 1252, 0, 1, 0);
    p2p_call(a, RECV, 1320, 1325, 1330, 1, 2, 4);
    /* in order: a Late Sender (100) whose later receive's send is later still */
    p2p_call(a, RECV, 2000, 2150, 2160, 1, 0, 5);
    p2p_call(b, SEND, 2100, 2101, 2102, 0, 0, 0);
    p2p_call(c, SEND, 2140, 2141, 2142, 0, 0, 0);
    p2p_call(a, RECV, 2170, 2175, 2180, 2, 0, 6);
    analyse();
    REQUIRE_EQ(AT(ST_AN_M_LATESENDER, a, RECV), 200 + 250 + 100);
    REQUIRE_EQ(AT(ST_AN_M_LATESENDER_WO, a, RECV), 450);
    REQUIRE_EQ(AT(ST_AN_M_LSWO_DIFF, a, RECV), 200);
    REQUIRE_EQ(AT(ST_AN_M_LSWO_SAME, a, RECV), 250);
    REQUIRE_EQ(R.stats.ls_violations, 0);
    done();
}

static void test_init_finalize(void)
{
    tb_init(&t, 2, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
    enter(a, 0, ST_REGION_MPI_Init), leave(a, 100, ST_REGION_MPI_Init);
    enter(b, 10, ST_REGION_MPI_Init), leave(b, 130, ST_REGION_MPI_Init);
    enter(a, 1000, ST_REGION_MPI_Finalize), leave(a, 1300, ST_REGION_MPI_Finalize);
    enter(b, 1200, ST_REGION_MPI_Finalize), leave(b, 1310, ST_REGION_MPI_Finalize);
    analyse();
    /* Init: completion only (after the first leave, 100); Finalize: wait only (for the last enter, 1200) */
    REQUIRE_EQ(AT(ST_AN_M_INIT_COMPL, a, ST_REGION_MPI_Init), 0);
    REQUIRE_EQ(AT(ST_AN_M_INIT_COMPL, b, ST_REGION_MPI_Init), 30);
    REQUIRE_EQ(AT(ST_AN_M_FINALIZE_WAIT, a, ST_REGION_MPI_Finalize), 200);
    REQUIRE_EQ(AT(ST_AN_M_FINALIZE_WAIT, b, ST_REGION_MPI_Finalize), 0);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_INIT_COMPL) + st_an_total(&R, ST_AN_M_FINALIZE_WAIT), 230);
    done();
}

/* Scan on locations created in the reverse order of the ranks: the prefix follows the ranks. */
static void test_scan_order(void)
{
    tb_init(&t, 3, 0);
    uint32_t l2 = tb_loc(&t, 2, 0), l1 = tb_loc(&t, 1, 0), l0 = tb_loc(&t, 0, 0);
    coll(l0, ST_REGION_MPI_Scan, 100, 400, OP_SCAN, -1, 1, 4, 4);
    coll(l1, ST_REGION_MPI_Scan, 300, 410, OP_SCAN, -1, 1, 4, 4);
    coll(l2, ST_REGION_MPI_Scan, 150, 420, OP_SCAN, -1, 1, 4, 4);
    analyse();
    REQUIRE_EQ(AT(ST_AN_M_EARLYSCAN, l0, ST_REGION_MPI_Scan), 0);
    REQUIRE_EQ(AT(ST_AN_M_EARLYSCAN, l1, ST_REGION_MPI_Scan), 0);
    REQUIRE_EQ(AT(ST_AN_M_EARLYSCAN, l2, ST_REGION_MPI_Scan), 150);
    done();
}

/* A call tree whose creation order is not its preorder (main/MPI_Comm_rank is found after
 * MPI_Send): the CUBE4 report, read by tests/analysis/cubecheck.py (an independent reader),
 * must hold the JSON's values. */
static void test_cube(void)
{
    const char *root = getenv("ST_ROOT");
    if (!root) {
        fprintf(stderr, "test_cube skipped: ST_ROOT not set (run through tests/run-tests.sh)\n");
        return;
    }
    tb_init(&t, 2, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
    enter(a, 100, ST_REGION_PROGRAM);
    enter(a, 200, ST_REGION_MPI_Recv);
    recv(a, 480, 1, 1, 8);
    leave(a, 500, ST_REGION_MPI_Recv);
    leave(a, 1000, ST_REGION_PROGRAM);
    enter(b, 300, ST_REGION_MPI_Send);
    send(b, 301, 0, 8);
    leave(b, 305, ST_REGION_MPI_Send);
    enter(b, 310, ST_REGION_PROGRAM);
    enter(b, 800, ST_REGION_MPI_Comm_rank);
    leave(b, 801, ST_REGION_MPI_Comm_rank);
    leave(b, 950, ST_REGION_PROGRAM);
    analyse();
    REQUIRE(path(2, (const uint32_t[]){ ST_REGION_PROGRAM, ST_REGION_MPI_Comm_rank }) == 4); /* after MPI_Send (3) */
    /* a link planted where the report goes is replaced, never written through */
    FILE *f = fopen("victim", "w");
    REQUIRE(f && fputs("victim\n", f) >= 0 && fclose(f) == 0);
    unlink("t.cubex"), unlink("t.json");
    REQUIRE(symlink("victim", "t.cubex") == 0 && symlink("victim", "t.json") == 0);
    REQUIRE(st_an_write_file("t.cubex", &R, 1000000000u) == 0);
    REQUIRE(st_an_write_file("t.json", &R, 1000000000u) == 0);
    struct stat st;
    REQUIRE(lstat("t.cubex", &st) == 0 && S_ISREG(st.st_mode) && lstat("t.json", &st) == 0 && S_ISREG(st.st_mode));
    REQUIRE(stat("victim", &st) == 0 && st.st_size == 7);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "python3 '%s/tests/analysis/cubecheck.py' t.cubex t.json", root);
    REQUIRE(system(cmd) == 0);
    REQUIRE(st_an_write_file("no/such/dir/t.cubex", &R, 1000000000u) == ENOENT);
    /* a writer that gives up (no call paths: nothing to report) leaves no file, final or temporary */
    st_an_result_t empty = R;
    empty.ncnodes = 0;
    REQUIRE(st_an_write_file("e.cubex", &empty, 1000000000u) == EIO);
    REQUIRE(system("ls | grep -q '^e\\.cubex'") != 0);
    done();
}

/* 4 ranks, one location each (l), and an intercommunicator between {0, 1} and {2, 3} as comm index 1. */
static void tb_intercomm_2x2(uint32_t l[4])
{
    static int32_t ga[2] = { 0, 1 }, gb[2] = { 2, 3 };
    tb_init(&t, 4, 0);
    for (int32_t r = 0; r < 4; r++) {
        int a = r < 2;
        t.comms[r][1] = (st_comm_def_t){ .key = 500, .parent = 0, .flags = ST_COMMF_INTER, .size = 2, .remote_size = 2,
                                         .world = a ? ga : gb, .remote_world = a ? gb : ga };
        l[r] = tb_loc(&t, r, 0);
    }
}

/* An intercommunicator between {0, 1} and {2, 3} as comm index 1 (instead of MPI_COMM_SELF):
 * each group's members wait for the latest member of the other group they receive from. */
static void test_intercomm(void)
{
    uint32_t l[4];
    tb_intercomm_2x2(l);
    static const uint64_t nb[4] = { 100, 150, 300, 200 }; /* allreduce begins; all end at 400+ */
    static const uint64_t cb[4] = { 1000, 1050, 900, 1100 }; /* bcast from rank 0 to {2, 3} */
    for (int r = 0; r < 4; r++) {
        coll(l[r], ST_REGION_MPI_Allreduce, nb[r], 400 + (uint64_t)r, OP_ALLREDUCE, -1, 1, 4, 4);
        coll(l[r], ST_REGION_MPI_Bcast, cb[r], 1200 + (uint64_t)r, OP_BCAST, r == 1 ? -1 : 0, 2, r == 0 ? 4 : 0,
             r >= 2 ? 4 : 0);
        /* reduce to rank 0 from {2, 3} (begin 1400, 1500): the root (1300) waits for the latest */
        uint64_t rb = 1300 + (r == 1 ? 10 : r >= 2 ? 100 * (uint64_t)(r - 1) : 0);
        coll(l[r], ST_REGION_MPI_Reduce, rb, 1600 + (uint64_t)r, OP_REDUCE, r == 1 ? -1 : 0, 3, r >= 2 ? 4 : 0,
             r == 0 ? 8 : 0);
    }
    for (int r = 0; r < 4; r++) { /* both on the intercommunicator */
        for (uint64_t i = 0; i < t.locs[l[r]].n; i++)
            if (t.locs[l[r]].ev[i].kind == ST_EV_MPI_COLL_END)
                t.locs[l[r]].ev[i].comm = 1, t.locs[l[r]].ev[i].flags = ST_EVF_INTERCOMM;
    }
    analyse();
    /* {0, 1} wait for 2 (300), {2, 3} for 1 (150): nobody there waits */
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[0], ST_REGION_MPI_Allreduce), 200);
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[1], ST_REGION_MPI_Allreduce), 150);
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[2], ST_REGION_MPI_Allreduce), 0);
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[3], ST_REGION_MPI_Allreduce), 0);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_NXN_COMPL), 0);
    /* the root (1000) is late for rank 2 (900) only */
    REQUIRE_EQ(AT(ST_AN_M_LATEBROADCAST, l[2], ST_REGION_MPI_Bcast), 100);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_LATEBROADCAST), 100);
    REQUIRE_EQ(AT(ST_AN_M_EARLYREDUCE, l[0], ST_REGION_MPI_Reduce), 200);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_EARLYREDUCE), 200);
    REQUIRE_EQ(R.stats.coll_skipped, 0);
    done();
}

/* ---- OpenMP ---------------------------------------------------------------------------------- */

static void omp_ev(uint32_t l, unsigned kind, uint64_t time, uint64_t id) { tb_ev(&t, l, kind, time)->id = id; }

/* A lock event: op = lock kind (1 omp_lock, 5 critical), bytes = acquisition order. */
static void lock_ev(uint32_t l, unsigned kind, uint64_t time, unsigned op, uint64_t id, uint64_t order)
{
    st_event_t *e = tb_ev(&t, l, kind, time);
    e->op = (uint8_t)op, e->id = id, e->bytes = order;
}

static void region(uint32_t l, uint32_t region, uint64_t t0, uint64_t t1)
{
    enter(l, t0, region);
    leave(l, t1, region);
}

/*
 * One process, 3 OpenMP threads and one thread never in a team. Team 7 (all three, fork 100, join 410): explicit barrier entered
 * at 120 / 180 / 190, implicit at 300 / 350 / 390; a critical section w1 holds until 250
 * while the master waits from 210. Serial 410..1000. Team 8 (master and w1 only, fork 1000,
 * join 1110): the master waits in omp_set_lock from 1010 for w1's release at 1045.
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
    region(m, ST_REGION_OMP_TASK, 320, 330); /* a task run while waiting: not a wait */
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
    region(other, MAIN, 500, 540); /* a thread of the process never in a team: its own time only */
    analyse();

    /* barriers: everyone waits for the last to enter */
    REQUIRE_EQ(AT(ST_AN_M_OMP_EBARRIER_WAIT, m, MAIN, PAR, BAR), 70);
    REQUIRE_EQ(AT(ST_AN_M_OMP_EBARRIER_WAIT, w1, PAR, BAR), 10);
    REQUIRE_EQ(AT(ST_AN_M_OMP_EBARRIER_WAIT, w2, PAR, BAR), 0);
    REQUIRE_EQ(AT(ST_AN_M_OMP_IBARRIER_WAIT, m, MAIN, PAR, IBAR), 90 - 10);
    REQUIRE_EQ(AT(ST_AN_M_OMP_IBARRIER_WAIT, w1, PAR, IBAR), 40);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_OMP_EBARRIER_WAIT), 80);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_OMP_IBARRIER_WAIT), 120);
    REQUIRE_EQ(AT(ST_AN_M_OMP_EBARRIER, m, MAIN, PAR, BAR), 80);
    REQUIRE_EQ(AT(ST_AN_M_OMP_BARRIER, w2, PAR, IBAR), 10);
    /* locks: the previous holder's release - the acquiring call's enter; first ones free */
    REQUIRE_EQ(AT(ST_AN_M_OMP_LOCK_CONT_CRITICAL, m, MAIN, PAR, CRIT), 40);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_OMP_LOCK_CONT_CRITICAL), 40);
    REQUIRE_EQ(AT(ST_AN_M_OMP_LOCK_CONT_API, m, MAIN, PAR, SET), 35);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_OMP_LOCK_CONT_API), 35);
    REQUIRE_EQ(AT(ST_AN_M_OMP_CRITICAL, m, MAIN, PAR, CRIT), 61);
    REQUIRE_EQ(AT(ST_AN_M_OMP_LOCK_API, m, MAIN, PAR, SET), 41);
    REQUIRE_EQ(AT(ST_AN_M_OMP_LOCK_API, m, MAIN, PAR, UNSET), 2);
    /* management: fork (E(parallel) - fork) + join (join - L(parallel)), per team thread */
    REQUIRE_EQ(AT(ST_AN_M_OMP_FORK, m, MAIN, PAR), 10 + 5);
    REQUIRE_EQ(AT(ST_AN_M_OMP_MGMT, m, MAIN, PAR), 19 + 15);
    REQUIRE_EQ(AT(ST_AN_M_OMP_FORK, w1, PAR), 12 + 3);
    REQUIRE_EQ(AT(ST_AN_M_OMP_MGMT, w1, PAR), 19 + 9);
    REQUIRE_EQ(AT(ST_AN_M_OMP_MGMT, w2, PAR), 20);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_OMP_MGMT), 34 + 28 + 20);
    /* OpenMP time: management and synchronization constructs */
    REQUIRE_EQ(AT(ST_AN_M_OMP, m, MAIN, PAR), 34);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_OMP_SYNC), (80 + 61 + 90 + 41 + 2) + (21 + 46 + 50 + 2 + 6) + (12 + 10));
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_OMP), st_an_total(&R, ST_AN_M_OMP_SYNC) + 82);
    /* management moved into the parallel region's time; the master's serial time in main */
    REQUIRE_EQ(AT(ST_AN_M_TIME, m, MAIN), 1200 - 291 - 95 - 34);
    REQUIRE_EQ(AT(ST_AN_M_TIME, m, MAIN, PAR), 50 + 52 + 34);
    REQUIRE_EQ(AT(ST_AN_M_TIME, m, MAIN, PAR, IBAR, ST_REGION_OMP_TASK), 10);
    /* idle threads: workers get the master's serial time, w2 the whole of team 8 */
    REQUIRE_EQ(AT(ST_AN_M_OMP_IDLE, w1, MAIN), 780);
    REQUIRE_EQ(AT(ST_AN_M_OMP_IDLE, w2, MAIN), 780);
    REQUIRE_EQ(AT(ST_AN_M_OMP_IDLE, m, MAIN), 0);
    REQUIRE_EQ(AT(ST_AN_M_OMP_LIMITED, w2, MAIN, PAR), 110);
    REQUIRE_EQ(AT(ST_AN_M_OMP_IDLE, w2, MAIN, PAR), 110);
    REQUIRE_EQ(AT(ST_AN_M_OMP_LIMITED, w1, MAIN, PAR), 0);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_OMP_LIMITED), 110);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_OMP_IDLE), 780 * 2 + 110);
    REQUIRE_EQ(AT(ST_AN_M_TIME, w1, PAR), 174 + 93 + 28);
    REQUIRE_EQ(AT(ST_AN_M_TIME, other, MAIN), 40);
    REQUIRE_EQ(AT(ST_AN_M_OMP_IDLE, other, MAIN), 0);
    REQUIRE_EQ(AT(ST_AN_M_OMP_LIMITED, other, MAIN, PAR), 0);
    /* every thread's time adds up to its master's span */
    for (uint32_t l = 0; l < 3; l++) {
        double sum = 0;
        for (uint32_t k = 0; k < R.ncnodes; k++)
            sum += *st_an_sev(&R, ST_AN_M_TIME, k, l);
        REQUIRE_EQ(sum, 1200);
    }
    done();
}

/* The metric tree above the patterns (tree.c): Execution, Overhead, Computation and the MPI
 * subtree by region name and role, each a whole amount that includes its children. */
static void test_metric_tree(void)
{
    tb_init(&t, 1, 0);
    uint32_t a = tb_loc(&t, 0, 0);
    static const struct { uint32_t region; uint64_t b, e; } calls[] = {
        { ST_REGION_MPI_Comm_size, 110, 120 },       { ST_REGION_MPI_File_open, 130, 150 },
        { ST_REGION_MPI_File_write_all, 160, 190 },  { ST_REGION_MPI_File_read, 200, 205 },
        { ST_REGION_MPI_Win_create, 210, 225 },      { ST_REGION_MPI_Type_commit, 230, 237 },
        { ST_REGION_FLUSH, 240, 280 },               { ST_REGION_MPI_Comm_split, 285, 295 },
    };
    enter(a, 100, ST_REGION_PROGRAM);
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        enter(a, calls[i].b, calls[i].region);
        leave(a, calls[i].e, calls[i].region);
    }
    enter(a, 300, ST_REGION_MPI_Wait); /* a flush inside a call: overhead, not the call's time */
    enter(a, 310, ST_REGION_FLUSH);
    leave(a, 330, ST_REGION_FLUSH);
    leave(a, 350, ST_REGION_MPI_Wait);
    leave(a, 1000, ST_REGION_PROGRAM);
    analyse();
    const uint32_t P = ST_REGION_PROGRAM;
    REQUIRE_EQ(AT(ST_AN_M_MPI_MGMT_COMM, a, P, ST_REGION_MPI_Comm_size), 10);
    REQUIRE_EQ(AT(ST_AN_M_MPI_MGMT_COMM, a, P, ST_REGION_MPI_Comm_split), 10); /* by name, not its collective role */
    REQUIRE_EQ(AT(ST_AN_M_MPI_COLL, a, P, ST_REGION_MPI_Comm_split), 0);
    REQUIRE_EQ(AT(ST_AN_M_MPI_MGMT_FILE, a, P, ST_REGION_MPI_File_open), 20);
    REQUIRE_EQ(AT(ST_AN_M_MPI_IO_COLL, a, P, ST_REGION_MPI_File_write_all), 30);
    REQUIRE_EQ(AT(ST_AN_M_MPI_IO_INDIV, a, P, ST_REGION_MPI_File_read), 5);
    REQUIRE_EQ(AT(ST_AN_M_MPI_MGMT_WIN, a, P, ST_REGION_MPI_Win_create), 15);
    REQUIRE_EQ(AT(ST_AN_M_MPI, a, P, ST_REGION_MPI_Type_commit), 7); /* MPI, in no category */
    REQUIRE_EQ(AT(ST_AN_M_MPI_P2P, a, P, ST_REGION_MPI_Wait), 30);
    REQUIRE_EQ(AT(ST_AN_M_OVERHEAD, a, P, ST_REGION_MPI_Wait, ST_REGION_FLUSH), 20);
    REQUIRE_EQ(AT(ST_AN_M_EXECUTION, a, P, ST_REGION_FLUSH), 0);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_TIME), 900);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_OVERHEAD), 60);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_EXECUTION), 840);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_MPI), 10 + 20 + 30 + 5 + 15 + 7 + 10 + 30);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_MPI_MGMT), 10 + 20 + 15 + 10);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_MPI_IO), 35);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_MPI_COMM), 30);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_COMP), 840 - 127);
    REQUIRE_EQ(AT(ST_AN_M_COMP, a, P), 840 - 127);
    done();
}

/* A collective call on window 0 of world (comm 0, tag 0): ENTER at b - 1, RMA_COLL_BEGIN at b, RMA_COLL_END
 * at e (op, sync level), LEAVE at e + 1. */
static void rma_coll(uint32_t l, uint32_t region, uint64_t b, uint64_t e, unsigned op, uint64_t level)
{
    enter(l, b - 1, region);
    tb_ev(&t, l, ST_EV_RMA_COLL_BEGIN, b)->comm = ST_NO_COMM;
    if (op == 17) /* OTF2_COLLECTIVE_OP_CREATE_HANDLE */
        tb_ev(&t, l, ST_EV_RMA_WIN_CREATE, e - 1)->comm = 0;
    st_event_t *x = tb_ev(&t, l, ST_EV_RMA_COLL_END, e);
    x->comm = 0, x->tag = 0, x->op = (uint16_t)op, x->bytes = level;
    leave(l, e + 1, region);
}

/* An RMA operation call on window 0 to target: ENTER at t0, its record at t0 + 1, LEAVE at t1. */
static void rma_op(uint32_t l, uint32_t region, unsigned kind, uint64_t t0, uint64_t t1, int32_t target)
{
    enter(l, t0, region);
    st_event_t *e = tb_ev(&t, l, kind, t0 + 1);
    e->comm = 0, e->tag = 0, e->peer = target, e->bytes = 16;
    leave(l, t1, region);
}

/* The collective waits on a window (docs/analysis.md "One-sided communication (RMA)"): Wait at Create /
 * Fence / Free by the latest begin when all calls overlap, none when they do not or the fence only
 * opens an epoch (MPI_MODE_NOPRECEDE: no relation); Early Fence until the last operation to the
 * member returned; the one-sided calls' time in Scalasca's categories. */
static void test_rma(void)
{
    enum { CREATE = 17, FREE = 18, SYNC = 3 /* OTF2_RMA_SYNC_LEVEL_PROCESS | MEMORY */, MEMORY = 2 };
    const uint32_t F = ST_REGION_MPI_Win_fence;
    tb_init(&t, 3, 0);
    uint32_t l[3] = { tb_loc(&t, 0, 0), tb_loc(&t, 1, 0), tb_loc(&t, 2, 0) };
    static const uint64_t cb[3] = { 100, 100, 140 };                                  /* create, ends 150 */
    static const uint64_t fb[3] = { 250, 300, 260 };                                  /* closing fence, ends 310 */
    static const uint64_t nb[3] = { 400, 420, 410 }, ne[3] = { 405, 425, 415 };     /* no overlap */
    static const uint64_t qb[3] = { 450, 470, 460 }, qe[3] = { 470, 480, 475 };     /* an end at the latest begin */
    static const uint64_t pb[3] = { 600, 650, 600 };                                  /* NOPRECEDE fence, ends 660 */
    static const uint64_t xb[3] = { 700, 730, 710 };                                  /* free, ends 740 */
    for (int i = 0; i < 3; i++) {
        enter(l[i], 10, ST_REGION_PROGRAM);
        rma_coll(l[i], ST_REGION_MPI_Win_create, cb[i], 150, CREATE, 0);
        rma_coll(l[i], F, 200, 210, 0, SYNC); /* opens the epoch: all at once */
        if (i == 0) /* a get from rank 1, long before rank 1's fence */
            rma_op(l[i], ST_REGION_MPI_Get, ST_EV_RMA_GET, 220, 225, 1);
        if (i == 1) { /* puts to rank 2: the last returns at 280, while rank 2 waits in its fence; then an
                       * accumulate to rank 0, returning at 290 (a later time at a lower rank) */
            rma_op(l[i], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 230, 240, 2);
            rma_op(l[i], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 270, 280, 2);
            rma_op(l[i], ST_REGION_MPI_Accumulate, ST_EV_RMA_ATOMIC, 282, 290, 0);
        }
        rma_coll(l[i], F, fb[i], 310, 0, SYNC);
        rma_coll(l[i], F, nb[i], ne[i], 0, SYNC);
        rma_coll(l[i], F, qb[i], qe[i], 0, SYNC);
        if (i == 1) /* after a fence that did not synchronize: in the next epoch, to rank 0 */
            rma_op(l[i], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 500, 520, 0);
        rma_coll(l[i], F, pb[i], 660, 0, MEMORY);
        rma_coll(l[i], ST_REGION_MPI_Win_free, xb[i], 740, FREE, 0);
        enter(l[i], 800, ST_REGION_MPI_Win_lock);
        leave(l[i], 805, ST_REGION_MPI_Win_lock);
        leave(l[i], 900, ST_REGION_PROGRAM);
    }
    analyse();
    const uint32_t P = ST_REGION_PROGRAM;
    /* create: latest begin 140, earliest end 150 */
    REQUIRE_EQ(AT(ST_AN_M_RMA_WAIT_CREATE, l[0], P, ST_REGION_MPI_Win_create), 40);
    REQUIRE_EQ(AT(ST_AN_M_RMA_WAIT_CREATE, l[1], P, ST_REGION_MPI_Win_create), 40);
    REQUIRE_EQ(AT(ST_AN_M_RMA_WAIT_CREATE, l[2], P, ST_REGION_MPI_Win_create), 0);
    /* fences: the closing one (latest begin 300): rank 0 50, rank 2 40; of rank 2's, Early Fence until the
     * second put returned (280 - its enter 259), of rank 0's until the accumulate returned (290 - 249); rank 1
     * was targeted by a get, but did not wait. The one
     * whose earliest end is the latest begin (470, as CLC leaves it): rank 0 20, rank 2 10 */
    REQUIRE_EQ(AT(ST_AN_M_RMA_WAIT_FENCE, l[0], P, F), 50 + 20);
    REQUIRE_EQ(AT(ST_AN_M_RMA_WAIT_FENCE, l[1], P, F), 0);
    REQUIRE_EQ(AT(ST_AN_M_RMA_WAIT_FENCE, l[2], P, F), 40 + 10);
    REQUIRE_EQ(AT(ST_AN_M_RMA_EARLY_FENCE, l[0], P, F), 41);
    REQUIRE_EQ(AT(ST_AN_M_RMA_EARLY_FENCE, l[1], P, F), 0);
    REQUIRE_EQ(AT(ST_AN_M_RMA_EARLY_FENCE, l[2], P, F), 21);
    /* free: latest begin 730 */
    REQUIRE_EQ(AT(ST_AN_M_RMA_WAIT_FREE, l[0], P, ST_REGION_MPI_Win_free), 30);
    REQUIRE_EQ(AT(ST_AN_M_RMA_WAIT_FREE, l[2], P, ST_REGION_MPI_Win_free), 20);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_RMA_WAIT_FENCE), 120);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_RMA_EARLY_FENCE), 62);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_RMA_WAIT_FREE), 50);
    REQUIRE_EQ(R.stats.coll_violations, 0);
    /* time: fences active target, operations one-sided communication, lock passive, window calls management */
    REQUIRE_EQ(AT(ST_AN_M_RMA_SYNC_ACTIVE, l[0], P, F), 12 + 62 + 7 + 22 + 62);
    REQUIRE_EQ(AT(ST_AN_M_RMA_COMM, l[1], P, ST_REGION_MPI_Put), 10 + 10 + 20);
    REQUIRE_EQ(AT(ST_AN_M_RMA_COMM, l[0], P, ST_REGION_MPI_Get), 5);
    REQUIRE_EQ(AT(ST_AN_M_RMA_COMM, l[1], P, ST_REGION_MPI_Accumulate), 8);
    REQUIRE_EQ(AT(ST_AN_M_RMA_SYNC_PASSIVE, l[0], P, ST_REGION_MPI_Win_lock), 5);
    REQUIRE_EQ(AT(ST_AN_M_MPI_MGMT_WIN, l[0], P, ST_REGION_MPI_Win_free), 42);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_RMA_SYNC), st_an_total(&R, ST_AN_M_RMA_SYNC_ACTIVE) + 15);
    done();
}

/* A PSCW synchronization call on window 0 (op: 1 post, 2 start, 3 complete, 4 wait; group: the rank's
 * group index + 1, or 0): ENTER at t0, its RMA_GROUP_SYNC at t1 - 1, LEAVE at t1. */
static void pscw_call(uint32_t l, uint32_t region, uint64_t t0, uint64_t t1, unsigned op, uint64_t group)
{
    enter(l, t0, region);
    st_event_t *e = tb_ev(&t, l, ST_EV_RMA_GROUP_SYNC, t1 - 1);
    e->comm = 0, e->tag = 0, e->op = (uint16_t)op, e->id = group, e->bytes = 1;
    leave(l, t1, region);
}

/* One passive-target call on location l (window: comm 0, window 0): ENTER at t0, its RMA event (a
 * request at t0, a release at t1 - 1), LEAVE at t1. */
static void lock_call(uint32_t l, uint32_t region, unsigned kind, uint64_t t0, uint64_t t1, int32_t peer, unsigned op)
{
    enter(l, t0, region);
    st_event_t *e = tb_ev(&t, l, kind, kind == ST_EV_RMA_REQUEST_LOCK ? t0 : t1 - 1);
    e->comm = 0, e->tag = 0, e->peer = peer, e->op = (uint16_t)op;
    leave(l, t1, region);
}

/* Lock Contention (docs/analysis.md "One-sided communication (RMA)"): at the call of the later epoch
 * open when the earlier conflicting one entered MPI_Win_unlock, from that call's enter; exclusive locks
 * only (shared ones and MPI_Win_lock_all are shared); the same in every parallel split. */
static void test_rma_lock(void)
{
    enum { EXCL = 0, SHARED = 1 };
    const uint32_t P = ST_REGION_PROGRAM, LK = ST_REGION_MPI_Win_lock, UL = ST_REGION_MPI_Win_unlock;
    const uint32_t LA = ST_REGION_MPI_Win_lock_all, UA = ST_REGION_MPI_Win_unlock_all;
    tb_init(&t, 3, 0);
    for (int r = 0; r < 3; r++)
        t.comms[r][0].nwins = 1;
    uint32_t l[3] = { tb_loc(&t, 0, 0), tb_loc(&t, 1, 0), tb_loc(&t, 2, 0) };
    for (int i = 0; i < 3; i++)
        enter(l[i], 10, P);
    /* target 0: rank 1 holds the lock (its flush completed its put) and enters MPI_Win_unlock at 200;
     * rank 2 waits in its unlock from 114: 86 there (its unlock returns before rank 1's) */
    lock_call(l[1], LK, ST_EV_RMA_REQUEST_LOCK, 100, 101, 0, EXCL);
    rma_op(l[1], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 102, 103, 0);
    enter(l[1], 104, ST_REGION_MPI_Win_flush);
    st_event_t *c = tb_ev(&t, l[1], ST_EV_RMA_OP_COMPLETE_REMOTE, 105);
    c->comm = 0, c->tag = 0, c->id = 1;
    leave(l[1], 106, ST_REGION_MPI_Win_flush);
    lock_call(l[1], UL, ST_EV_RMA_RELEASE_LOCK, 200, 260, 0, 0);
    lock_call(l[2], LK, ST_EV_RMA_REQUEST_LOCK, 110, 111, 0, EXCL);
    rma_op(l[2], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 112, 113, 0);
    lock_call(l[2], UL, ST_EV_RMA_RELEASE_LOCK, 114, 230, 0, 0);
    /* target 1: rank 2 waits in MPI_Win_lock (310 .. 405) until rank 0 entered its unlock (400): 90 */
    lock_call(l[0], LK, ST_EV_RMA_REQUEST_LOCK, 300, 301, 1, EXCL);
    rma_op(l[0], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 302, 303, 1);
    lock_call(l[0], UL, ST_EV_RMA_RELEASE_LOCK, 400, 402, 1, 0);
    lock_call(l[2], LK, ST_EV_RMA_REQUEST_LOCK, 310, 405, 1, EXCL);
    rma_op(l[2], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 406, 407, 1);
    lock_call(l[2], UL, ST_EV_RMA_RELEASE_LOCK, 408, 410, 1, 0);
    /* target 2: rank 1's put (512 .. 640) waits until rank 0 entered its unlock (600): 88, communication */
    lock_call(l[0], LK, ST_EV_RMA_REQUEST_LOCK, 500, 501, 2, EXCL);
    rma_op(l[0], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 502, 503, 2);
    lock_call(l[0], UL, ST_EV_RMA_RELEASE_LOCK, 600, 602, 2, 0);
    lock_call(l[1], LK, ST_EV_RMA_REQUEST_LOCK, 510, 511, 2, EXCL);
    rma_op(l[1], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 512, 640, 2);
    lock_call(l[1], UL, ST_EV_RMA_RELEASE_LOCK, 641, 643, 2, 0);
    /* target 0 again: ranks 1 and 2 shared, rank 2's unlock long (714 .. 850): no conflict, no wait;
     * rank 0's lock_all with a put to 0, then rank 1 exclusive waits in MPI_Win_lock (905 .. 1001) until
     * rank 0 entered MPI_Win_unlock_all (1000): 95 */
    lock_call(l[1], LK, ST_EV_RMA_REQUEST_LOCK, 700, 701, 0, SHARED);
    rma_op(l[1], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 702, 703, 0);
    lock_call(l[1], UL, ST_EV_RMA_RELEASE_LOCK, 800, 802, 0, 0);
    lock_call(l[2], LK, ST_EV_RMA_REQUEST_LOCK, 710, 711, 0, SHARED);
    rma_op(l[2], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 712, 713, 0);
    lock_call(l[2], UL, ST_EV_RMA_RELEASE_LOCK, 714, 850, 0, 0);
    lock_call(l[0], LA, ST_EV_RMA_REQUEST_LOCK, 900, 901, -1, SHARED);
    rma_op(l[0], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 902, 903, 0);
    lock_call(l[0], UA, ST_EV_RMA_RELEASE_LOCK, 1000, 1003, -1, 0);
    lock_call(l[1], LK, ST_EV_RMA_REQUEST_LOCK, 905, 1001, 0, EXCL);
    rma_op(l[1], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 1002, 1003, 0);
    lock_call(l[1], UL, ST_EV_RMA_RELEASE_LOCK, 1004, 1006, 0, 0);
    for (int i = 0; i < 3; i++)
        leave(l[i], 2000, P);
    analyse();
    REQUIRE_EQ(AT(ST_AN_M_RMA_SYNC_LOCK_COMP, l[2], P, UL), 86);
    REQUIRE_EQ(AT(ST_AN_M_RMA_SYNC_LOCK_COMP, l[2], P, LK), 90);
    REQUIRE_EQ(AT(ST_AN_M_RMA_COMM_LOCK_COMP, l[1], P, ST_REGION_MPI_Put), 88);
    REQUIRE_EQ(AT(ST_AN_M_RMA_SYNC_LOCK_COMP, l[1], P, LK), 95);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_RMA_SYNC_LOCK_COMP), 86 + 90 + 95);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_RMA_COMM_LOCK_COMP), 88);
    /* target 0: 1 -> 2, 2 -> each of the shared run (3), the run -> rank 1 (3); targets 1 and 2: one each */
    uint64_t n = 0;
    for (uint64_t k = 0; k < g.ninst; k++)
        n += st_rel_inst_type(&g.inst[k]) == ST_REL_KEY_RMA_LOCK && g.inst[k].nsend == 1 && g.inst[k].nrecv == 1;
    REQUIRE_EQ(n, 9);
    done();
}

/* Three ranks, one location each (l): rank 0 exposes to ranks 1 and 2 (its group table's one group),
 * they access rank 0 (theirs); all inside the program's region from 10. */
static int32_t pscw_origins[2] = { 1, 2 }, pscw_target[1] = { 0 };
static void pscw_world(uint32_t l[3])
{
    static const st_group_def_t g0 = { 2, pscw_origins }, g12 = { 1, pscw_target };
    tb_init(&t, 3, 0);
    for (int i = 0; i < 3; i++)
        l[i] = tb_loc(&t, i, 0);
    t.procs[0].groups = &g0, t.procs[0].ngroups = 1;
    t.procs[1].groups = t.procs[2].groups = &g12, t.procs[1].ngroups = t.procs[2].ngroups = 1;
    for (int i = 0; i < 3; i++)
        enter(l[i], 10, ST_REGION_PROGRAM);
}

/* General active target (docs/analysis.md "One-sided communication (RMA)"): rank 0 exposes its window
 * to ranks 1 and 2 five times. Early Wait at its MPI_Win_wait until the last origin entered
 * MPI_Win_complete, Late Complete the part after the last operation to rank 0 returned (an origin
 * without operations adds none); Late Post at the origins' call open when rank 0 posted (complete, a
 * blocking start, a put, or none); the same in every parallel split (the wire carries the origins'
 * complete and last operation, and the target's post). */

static void test_rma_pscw(void)
{
    enum { POST = 1, START, COMPLETE, WAIT };
    uint32_t l[3];
    pscw_world(l);
    /* epoch 1: rank 1 puts (returns 130) and completes at 160, rank 2 puts (returns 115) and completes at
     * 140; rank 0 waits from 110: Early Wait 160 - 110, Late Complete 160 - 130 */
    pscw_call(l[0], ST_REGION_MPI_Win_post, 100, 102, POST, 1);
    pscw_call(l[0], ST_REGION_MPI_Win_wait, 110, 201, WAIT, 0);
    pscw_call(l[1], ST_REGION_MPI_Win_start, 100, 102, START, 1);
    rma_op(l[1], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 120, 130, 0);
    pscw_call(l[1], ST_REGION_MPI_Win_complete, 160, 162, COMPLETE, 0);
    pscw_call(l[2], ST_REGION_MPI_Win_start, 100, 102, START, 1);
    rma_op(l[2], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 105, 115, 0);
    pscw_call(l[2], ST_REGION_MPI_Win_complete, 140, 142, COMPLETE, 0);
    /* epoch 2: rank 1 completes at 370 without an operation, rank 2 puts (returns 315) and completes at
     * 320; rank 0 waits from 310: Early Wait 60, Late Complete 370 - 315 */
    pscw_call(l[0], ST_REGION_MPI_Win_post, 300, 302, POST, 1);
    pscw_call(l[0], ST_REGION_MPI_Win_wait, 310, 381, WAIT, 0);
    pscw_call(l[1], ST_REGION_MPI_Win_start, 300, 302, START, 1);
    pscw_call(l[1], ST_REGION_MPI_Win_complete, 370, 372, COMPLETE, 0);
    pscw_call(l[2], ST_REGION_MPI_Win_start, 300, 302, START, 1);
    rma_op(l[2], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 305, 315, 0);
    pscw_call(l[2], ST_REGION_MPI_Win_complete, 320, 322, COMPLETE, 0);
    /* epoch 3: the origins complete long before rank 0 waits: no wait */
    pscw_call(l[0], ST_REGION_MPI_Win_post, 500, 502, POST, 1);
    pscw_call(l[0], ST_REGION_MPI_Win_wait, 600, 602, WAIT, 0);
    for (int i = 1; i < 3; i++) {
        pscw_call(l[i], ST_REGION_MPI_Win_start, 500, 502, START, 1);
        pscw_call(l[i], ST_REGION_MPI_Win_complete, 510, 512, COMPLETE, 0);
    }
    /* epoch 4: rank 0 posts late, at 700: rank 1's MPI_Win_complete (from 650) waits for it, rank 2's
     * MPI_Win_start blocks until it (from 600): Late Post 50 and 100 */
    pscw_call(l[0], ST_REGION_MPI_Win_post, 700, 702, POST, 1);
    pscw_call(l[0], ST_REGION_MPI_Win_wait, 710, 760, WAIT, 0);
    pscw_call(l[1], ST_REGION_MPI_Win_start, 600, 602, START, 1);
    rma_op(l[1], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 610, 620, 0);
    pscw_call(l[1], ST_REGION_MPI_Win_complete, 650, 701, COMPLETE, 0);
    pscw_call(l[2], ST_REGION_MPI_Win_start, 600, 702, START, 1);
    pscw_call(l[2], ST_REGION_MPI_Win_complete, 705, 707, COMPLETE, 0);
    /* epoch 5: rank 0 posts at 850, inside rank 1's put (810 .. 860): Late Post 40 at the put; rank 2 had
     * no call open then: none; rank 2 completes at 880, after rank 0 began waiting (860): Early Wait 20,
     * all after rank 1's put returned (860): Late Complete 20 */
    pscw_call(l[0], ST_REGION_MPI_Win_post, 850, 852, POST, 1);
    pscw_call(l[0], ST_REGION_MPI_Win_wait, 860, 900, WAIT, 0);
    pscw_call(l[1], ST_REGION_MPI_Win_start, 800, 802, START, 1);
    rma_op(l[1], ST_REGION_MPI_Put, ST_EV_RMA_PUT, 810, 860, 0);
    pscw_call(l[1], ST_REGION_MPI_Win_complete, 870, 872, COMPLETE, 0);
    pscw_call(l[2], ST_REGION_MPI_Win_start, 800, 802, START, 1);
    pscw_call(l[2], ST_REGION_MPI_Win_complete, 880, 882, COMPLETE, 0);
    for (int i = 0; i < 3; i++)
        leave(l[i], 1000, ST_REGION_PROGRAM);
    analyse();
    const uint32_t P = ST_REGION_PROGRAM, W = ST_REGION_MPI_Win_wait;
    REQUIRE_EQ(AT(ST_AN_M_RMA_EARLY_WAIT, l[0], P, W), 50 + 60 + 20);
    REQUIRE_EQ(AT(ST_AN_M_RMA_LATE_COMPLETE, l[0], P, W), 30 + 55 + 20);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_RMA_EARLY_WAIT), 130);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_RMA_LATE_COMPLETE), 105);
    REQUIRE_EQ(AT(ST_AN_M_RMA_SYNC_LATE_POST, l[1], P, ST_REGION_MPI_Win_complete), 50);
    REQUIRE_EQ(AT(ST_AN_M_RMA_SYNC_LATE_POST, l[2], P, ST_REGION_MPI_Win_start), 100);
    REQUIRE_EQ(AT(ST_AN_M_RMA_COMM_LATE_POST, l[1], P, ST_REGION_MPI_Put), 40);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_RMA_SYNC_LATE_POST), 150);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_RMA_COMM_LATE_POST), 40);
    /* ten relations (two origins, five epochs), none reversed */
    uint64_t n = 0;
    for (uint64_t k = 0; k < g.ninst; k++)
        n += st_rel_inst_type(&g.inst[k]) == ST_REL_KEY_RMA_PSCW && g.inst[k].nsend == 1 && g.inst[k].nrecv == 1;
    REQUIRE_EQ(n, 10);
    REQUIRE_EQ(AT(ST_AN_M_RMA_SYNC_ACTIVE, l[0], P, W), 91 + 71 + 2 + 50 + 40);
    done();
}

/* A post or start with the notes the recorder writes after its RMA_GROUP_SYNC, at its time (an RmaSync
 * of type `type`, 2 NOTIFY_OUT / 1 NOTIFY_IN, per peer of peers[0 .. n), in the group's order). */
static void pscw_notes_call(uint32_t l, uint32_t region, uint64_t t0, uint64_t t1, unsigned op, const int32_t *peers,
                            int n, unsigned type)
{
    enter(l, t0, region);
    st_event_t *e = tb_ev(&t, l, ST_EV_RMA_GROUP_SYNC, t1 - 1);
    e->comm = 0, e->tag = 0, e->op = (uint16_t)op, e->id = 1, e->bytes = 1;
    for (int i = 0; i < n; i++) {
        st_event_t *x = tb_ev(&t, l, ST_EV_RMA_SYNC, t1 - 1);
        x->comm = 0, x->tag = 0, x->op = (uint16_t)type, x->peer = peers[i];
    }
    leave(l, t1, region);
}

/* Post -> start (relations: ST_REL_KEY_RMA_POST, docs/clc.md Decisions 12): a target's post's note to an
 * origin -> the origin's start that took it, the k-th of each side of a pair meeting, only where both
 * notes are recorded (rank 2 gave up on the first epoch's: none, and the second still meets its own);
 * send and receive are the notes' events; the analysis reads none (serial == every parallel split, the
 * same Late Post as without them). */
static void test_rma_post_start(void)
{
    enum { POST = 1, START, COMPLETE, WAIT, NOTIFY_IN = 1, NOTIFY_OUT = 2 };
    uint32_t l[3];
    pscw_world(l);
    /* epoch 1: rank 0 posts at 100 (notes to 1 and 2); rank 1's start took its note (returns 104), rank
     * 2's (from 20) did not (no NOTIFY_IN); epoch 2 alike, both notified: Late Post 80 + 80 at rank 2's start */
    for (int k = 0; k < 2; k++) {
        uint64_t b = 100 + 200 * (uint64_t)k;
        pscw_notes_call(l[0], ST_REGION_MPI_Win_post, b, b + 2, POST, pscw_origins, 2, NOTIFY_OUT);
        pscw_call(l[0], ST_REGION_MPI_Win_wait, b + 10, b + 40, WAIT, 0);
        pscw_notes_call(l[1], ST_REGION_MPI_Win_start, b, b + 4, START, pscw_target, 1, NOTIFY_IN);
        pscw_call(l[1], ST_REGION_MPI_Win_complete, b + 20, b + 22, COMPLETE, 0);
        pscw_notes_call(l[2], ST_REGION_MPI_Win_start, b - 80, b + 4, START, pscw_target, k, NOTIFY_IN);
        pscw_call(l[2], ST_REGION_MPI_Win_complete, b + 30, b + 32, COMPLETE, 0);
    }
    for (int i = 0; i < 3; i++)
        leave(l[i], 1000, ST_REGION_PROGRAM);
    analyse();
    uint64_t n = 0, pscw = 0;
    for (uint64_t k = 0; k < g.ninst; k++) {
        const st_rel_inst_t *in = &g.inst[k];
        pscw += st_rel_inst_type(in) == ST_REL_KEY_RMA_PSCW && in->nsend == 1 && in->nrecv == 1;
        if (st_rel_inst_type(in) != ST_REL_KEY_RMA_POST || in->nsend != 1 || in->nrecv != 1)
            continue;
        n++;
        const st_rel_ref_t *s = &g.refs[in->first], *r = s + 1;
        const st_event_t *se = &t.locs[s->loc].ev[s->ev], *re = &t.locs[r->loc].ev[r->ev];
        REQUIRE(s->loc == l[0] && se->kind == ST_EV_RMA_SYNC && se->op == NOTIFY_OUT);
        REQUIRE(re->kind == ST_EV_RMA_SYNC && re->op == NOTIFY_IN && re->peer == 0 && se->peer == t.locs[r->loc].rank);
        REQUIRE(r->loc != l[2] || in->key[3] == 1);
        /* sender << 32 | receiver, as a message's: the parallel correction reads who sends from it */
        REQUIRE(in->key[1] == ((uint64_t)0 << 32 | (uint32_t)t.locs[r->loc].rank));
        REQUIRE(se->time <= re->time);
    }
    REQUIRE_EQ(n, 3);    /* rank 1's two, rank 2's second (its k = 1) */
    REQUIRE_EQ(pscw, 4); /* complete -> wait as without notes */
    const uint32_t P = ST_REGION_PROGRAM;
    REQUIRE_EQ(AT(ST_AN_M_RMA_SYNC_LATE_POST, l[2], P, ST_REGION_MPI_Win_start), 80 + 80);
    done();
}

/* A nonblocking collective: the I-call (its ICOLL_REQUEST at time+1, request id). */
static void icall(uint32_t l, uint32_t region, uint64_t time, uint64_t id)
{
    enter(l, time, region);
    tb_ev(&t, l, ST_EV_MPI_ICOLL_REQUEST, time + 1)->id = id;
    leave(l, time + 2, region);
}

static void icoll_done(uint32_t l, uint64_t time, unsigned op, int32_t root, uint64_t seq, uint64_t id, uint64_t sent,
                       uint64_t recvd)
{
    st_event_t *e = tb_ev(&t, l, ST_EV_MPI_ICOLL_COMPLETE, time);
    e->op = (uint16_t)op, e->comm = 0, e->peer = root, e->id = id, e->aux = seq, e->bytes = sent, e->bytes2 = recvd;
}

/* Nonblocking collectives (icoll.c): the completing call waits for the latest I-call it
 * depends on; Test skipped; a Waitall's largest once; Ialltoallv skipped; the completing
 * calls' time is collective (tree.c). */
static void test_icoll(void)
{
    enum { OP_ALLTOALLV = 9 };
    tb_init(&t, 3, 0);
    uint32_t l[3] = { tb_loc(&t, 0, 0), tb_loc(&t, 1, 0), tb_loc(&t, 2, 0) };
    static const uint64_t ib[3] = { 100, 400, 110 }, iw[3] = { 150, 410, 160 }; /* Ibarrier: rank 1 late */
    for (int r = 0; r < 3; r++) {
        icall(l[r], ST_REGION_MPI_Ibarrier, ib[r], 10 + (uint64_t)r);
        enter(l[r], iw[r], ST_REGION_MPI_Wait);
        icoll_done(l[r], 420 + (uint64_t)r, OP_BARRIER, -1, 1, 10 + (uint64_t)r, 0, 0);
        leave(l[r], 421 + (uint64_t)r, ST_REGION_MPI_Wait);
    }
    /* Ibcast (root 2, late) and Iallreduce; rank 0 completes both in one Waitall */
    static const uint64_t bc[3] = { 1000, 1010, 1300 }, ar[3] = { 1020, 1030, 1320 };
    for (int r = 0; r < 3; r++) {
        icall(l[r], ST_REGION_MPI_Ibcast, bc[r], 20 + (uint64_t)r);
        icall(l[r], ST_REGION_MPI_Iallreduce, ar[r], 30 + (uint64_t)r);
    }
    enter(l[0], 1100, ST_REGION_MPI_Waitall);
    icoll_done(l[0], 1400, OP_BCAST, 2, 2, 20, 0, 4);
    icoll_done(l[0], 1401, OP_ALLREDUCE, -1, 3, 30, 4, 4);
    leave(l[0], 1402, ST_REGION_MPI_Waitall);
    enter(l[1], 1100, ST_REGION_MPI_Wait);
    icoll_done(l[1], 1400, OP_BCAST, 2, 2, 21, 0, 4);
    leave(l[1], 1402, ST_REGION_MPI_Wait);
    enter(l[1], 1410, ST_REGION_MPI_Test);
    icoll_done(l[1], 1411, OP_ALLREDUCE, -1, 3, 31, 4, 4);
    leave(l[1], 1412, ST_REGION_MPI_Test);
    enter(l[2], 1330, ST_REGION_MPI_Waitall);
    icoll_done(l[2], 1340, OP_BCAST, 2, 2, 22, 4, 0);
    icoll_done(l[2], 1341, OP_ALLREDUCE, -1, 3, 32, 4, 4);
    leave(l[2], 1342, ST_REGION_MPI_Waitall);
    /* Ialltoallv, rank 0 late: not analysed (who exchanges with whom is not recorded) */
    static const uint64_t av[3] = { 2500, 2000, 2010 }, aw[3] = { 2503, 2100, 2110 };
    for (int r = 0; r < 3; r++) {
        icall(l[r], ST_REGION_MPI_Ialltoallv, av[r], 40 + (uint64_t)r);
        enter(l[r], aw[r], ST_REGION_MPI_Wait);
        icoll_done(l[r], 2600 + (uint64_t)r, OP_ALLTOALLV, -1, 4, 40 + (uint64_t)r, 4, 4);
        leave(l[r], 2601 + (uint64_t)r, ST_REGION_MPI_Wait);
    }
    analyse();
    REQUIRE_EQ(AT(ST_AN_M_BARRIER_WAIT, l[0], ST_REGION_MPI_Wait), 401 - 150);
    REQUIRE_EQ(AT(ST_AN_M_BARRIER_WAIT, l[1], ST_REGION_MPI_Wait), 0);
    REQUIRE_EQ(AT(ST_AN_M_BARRIER_WAIT, l[2], ST_REGION_MPI_Wait), 401 - 160);
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[0], ST_REGION_MPI_Waitall), 1321 - 1100); /* the larger, once */
    REQUIRE_EQ(AT(ST_AN_M_LATEBROADCAST, l[0], ST_REGION_MPI_Waitall), 0);
    REQUIRE_EQ(AT(ST_AN_M_LATEBROADCAST, l[1], ST_REGION_MPI_Wait), 1301 - 1100);
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[1], ST_REGION_MPI_Test), 0);
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[2], ST_REGION_MPI_Waitall), 0);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_WAIT_NXN), 221);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_LATEBROADCAST), 201);
    REQUIRE_EQ(R.stats.coll_skipped, 1);
    REQUIRE_EQ(R.stats.coll_violations, 0);
    /* the completing calls' time: Ibarrier synchronization, the others collective communication */
    REQUIRE_EQ(AT(ST_AN_M_MPI_SYNC_COLL, l[0], ST_REGION_MPI_Wait), 421 - 150);
    REQUIRE_EQ(AT(ST_AN_M_MPI_COLL, l[0], ST_REGION_MPI_Wait), 2601 - 2503);
    REQUIRE_EQ(AT(ST_AN_M_MPI_P2P, l[0], ST_REGION_MPI_Wait), 0);
    REQUIRE_EQ(AT(ST_AN_M_MPI_COLL, l[1], ST_REGION_MPI_Test), 2);
    REQUIRE_EQ(AT(ST_AN_M_MPI_SYNC_COLL, l[1], ST_REGION_MPI_Ibarrier), 2);
    REQUIRE_EQ(AT(ST_AN_M_MPI_COLL, l[1], ST_REGION_MPI_Ialltoallv), 2);
    done();
}

/* A nonblocking collective on an intercommunicator: each group waits, at its completing
 * call, for the latest I-call of the other group. */
/* A Waitall completing an Iallreduce and an Ibarrier: its time is Communication / Collective, so of
 * its waits it gets the Iallreduce's, not the larger Ibarrier's (that would not be a part of its
 * time: the metric tree's check in analyse() fails then). */
static void test_icoll_mixed(void)
{
    tb_init(&t, 2, 0);
    uint32_t l[2] = { tb_loc(&t, 0, 0), tb_loc(&t, 1, 0) };
    static const uint64_t ar[2] = { 100, 300 }, ib[2] = { 110, 500 }, wa[2] = { 200, 520 };
    for (int r = 0; r < 2; r++) {
        icall(l[r], ST_REGION_MPI_Iallreduce, ar[r], 10 + (uint64_t)r);
        icall(l[r], ST_REGION_MPI_Ibarrier, ib[r], 20 + (uint64_t)r);
        enter(l[r], wa[r], ST_REGION_MPI_Waitall);
        icoll_done(l[r], 590, OP_ALLREDUCE, -1, 1, 10 + (uint64_t)r, 4, 4);
        icoll_done(l[r], 591, OP_BARRIER, -1, 2, 20 + (uint64_t)r, 0, 0);
        leave(l[r], 600, ST_REGION_MPI_Waitall);
    }
    analyse();
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[0], ST_REGION_MPI_Waitall), 301 - 200);
    REQUIRE_EQ(AT(ST_AN_M_BARRIER_WAIT, l[0], ST_REGION_MPI_Waitall), 0);
    REQUIRE_EQ(AT(ST_AN_M_MPI_COLL, l[0], ST_REGION_MPI_Waitall), 600 - 200);
    REQUIRE_EQ(AT(ST_AN_M_MPI_SYNC_COLL, l[0], ST_REGION_MPI_Waitall), 0);
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_BARRIER_WAIT), 0);
    done();
}

static void test_icoll_intercomm(void)
{
    uint32_t l[4];
    tb_intercomm_2x2(l);
    static const uint64_t ic[4] = { 100, 250, 110, 120 }, wt[4] = { 105, 260, 115, 125 };
    for (int r = 0; r < 4; r++) {
        icall(l[r], ST_REGION_MPI_Iallreduce, ic[r], 60 + (uint64_t)r);
        enter(l[r], wt[r], ST_REGION_MPI_Wait);
        icoll_done(l[r], 390 + (uint64_t)r, OP_ALLREDUCE, -1, 1, 60 + (uint64_t)r, 4, 4);
        st_event_t *e = &t.locs[l[r]].ev[t.locs[l[r]].n - 1];
        e->comm = 1, e->flags = ST_EVF_INTERCOMM;
        leave(l[r], 400 + (uint64_t)r, ST_REGION_MPI_Wait);
    }
    analyse();
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[0], ST_REGION_MPI_Wait), 121 - 105); /* {0, 1} wait for 3's I-call */
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[1], ST_REGION_MPI_Wait), 0);
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[2], ST_REGION_MPI_Wait), 251 - 115); /* {2, 3} for 1's */
    REQUIRE_EQ(AT(ST_AN_M_WAIT_NXN, l[3], ST_REGION_MPI_Wait), 251 - 125);
    REQUIRE_EQ(R.stats.coll_violations, 0);
    done();
}

static void test_metric_table(void)
{
    REQUIRE(st_an_metric_find("mpi_latesender") == ST_AN_M_LATESENDER);
    REQUIRE(st_an_metric_find("nope") == -1);
    for (int m = 0; m < ST_AN__METRICS; m++) {
        REQUIRE(st_an_metric(m)->parent < m); /* a parent precedes its children */
        for (int k = 0; k < m; k++)
            REQUIRE(strcmp(st_an_metric(m)->uniq, st_an_metric(k)->uniq) != 0);
    }
}

/* ---- call paths ------------------------------------------------------------------------------ */

/* The cnode at the end of a path of region/function names under the root, or ST_AN_NO_CNODE. */
static uint32_t named(int n, const char *const *names)
{
    uint32_t k = 0;
    for (int i = 0; i < n && k != ST_AN_NO_CNODE; i++) {
        uint32_t c = R.cnodes[k].first_child;
        while (c != ST_AN_NO_CNODE && strcmp(st_an_region_name(&R, R.cnodes[c].region), names[i]))
            c = R.cnodes[c].next;
        k = c;
    }
    return k;
}
#define NAMED(...) named((int)(sizeof((const char *[]){ __VA_ARGS__ }) / sizeof(char *)), (const char *[]){ __VA_ARGS__ })

static void enter_at(uint32_t l, uint64_t time, uint32_t region, uint32_t node)
{
    enter(l, time, region);
    st_event_set_callpath(&t.locs[l].ev[t.locs[l].n - 1], node);
}

static void test_callpaths(void)
{
    /* rank 0: main calls solve from two lines (nodes 0-2 and 3-5), solve calls exchange */
    static const st_cpnode_t tree0[] = { { ST_CP_NONE, 0, 0x10 }, { 0, 0, 0x20 }, { 1, 0, 0x30 },
                                         { ST_CP_NONE, 0, 0x11 }, { 3, 0, 0x20 }, { 4, 0, 0x30 } };
    static const st_callsite_t text0[] = { { .pc = 0x30, .text = "exchange (a.c:14)" },
                                           { .pc = 0x10, .text = "main (a.c:5)" },
                                           { .pc = 0x20, .text = "solve (a.c:9)" },
                                           { .pc = 0x11, .text = "main (a.c:6)" } };
    /* rank 1: other addresses, an unsymbolized exchange: the same functions */
    static const st_cpnode_t tree1[] = { { ST_CP_NONE, 0, 0x1010 }, { 0, 0, 0x1030 } };
    static const st_callsite_t text1[] = { { .pc = 0x1010, .text = "main (b.c:1)" },
                                           { .pc = 0x1030, .text = "exchange+0x1a (libx.so)" } };
    tb_init(&t, 2, 0);
    t.procs[0].ncpnodes = 6, t.procs[0].cpnodes = tree0, t.procs[0].ncallsites = 4, t.procs[0].callsites = text0;
    t.procs[1].ncpnodes = 2, t.procs[1].cpnodes = tree1, t.procs[1].ncallsites = 2, t.procs[1].callsites = text1;
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
    enter(a, 100, ST_REGION_PROGRAM);
    enter_at(a, 200, ST_REGION_MPI_Recv, 2);
    recv(a, 480, 1, 1, 8);
    leave(a, 500, ST_REGION_MPI_Recv);
    enter_at(a, 600, ST_REGION_MPI_Recv, 5); /* the other line of main: the same cnode */
    recv(a, 650, 1, 2, 8);
    leave(a, 660, ST_REGION_MPI_Recv);
    enter_at(a, 700, ST_REGION_MPI_Comm_rank, 1); /* a region opened in solve ... */
    enter_at(a, 710, ST_REGION_MPI_Comm_size, 2); /* ... and one in exchange inside it */
    leave(a, 720, ST_REGION_MPI_Comm_size);
    leave(a, 730, ST_REGION_MPI_Comm_rank);
    enter_at(a, 740, ST_REGION_MPI_Comm_size, ST_CP_NONE); /* no path: under the enclosing region */
    leave(a, 750, ST_REGION_MPI_Comm_size);
    leave(a, 1000, ST_REGION_PROGRAM);
    enter(b, 100, ST_REGION_PROGRAM);
    enter_at(b, 300, ST_REGION_MPI_Send, 1);
    send(b, 301, 0, 8);
    leave(b, 305, ST_REGION_MPI_Send);
    enter_at(b, 610, ST_REGION_MPI_Send, 1);
    send(b, 611, 0, 8);
    leave(b, 615, ST_REGION_MPI_Send);
    leave(b, 900, ST_REGION_PROGRAM);
    analyse(); /* PROGRAM is a region named "main" too: paths start main/main */
    REQUIRE(R.nfuncs == 3); /* main, solve, exchange: by name, across lines and ranks */
    uint32_t recv_k = NAMED("main", "main", "solve", "exchange", "MPI_Recv");
    REQUIRE(recv_k != ST_AN_NO_CNODE);
    if (recv_k != ST_AN_NO_CNODE) {
        REQUIRE(*st_an_sev(&R, ST_AN_M_VISITS, recv_k, a) == 2);
        REQUIRE(*st_an_sev(&R, ST_AN_M_LATESENDER, recv_k, a) == 100 + 10); /* sends enter at 300 and 610 */
    }
    uint32_t send_k = NAMED("main", "main", "exchange", "MPI_Send");
    REQUIRE(send_k != ST_AN_NO_CNODE && *st_an_sev(&R, ST_AN_M_VISITS, send_k, b) == 2);
    uint32_t nest = NAMED("main", "main", "solve", "MPI_Comm_rank", "exchange", "MPI_Comm_size");
    REQUIRE(nest != ST_AN_NO_CNODE && *st_an_sev(&R, ST_AN_M_VISITS, nest, a) == 1);
    uint32_t bare = NAMED("main", "MPI_Comm_size");
    REQUIRE(bare != ST_AN_NO_CNODE && *st_an_sev(&R, ST_AN_M_VISITS, bare, a) == 1);
    /* Time: a call's time is taken off the call around it (main, the PROGRAM region), never off the
     * frames above it, which have none: every value of rank 0 is exact and they add up to its span */
    uint32_t prog = NAMED("main"), frames[] = { NAMED("main", "main"), NAMED("main", "main", "solve"),
                                                NAMED("main", "main", "solve", "exchange") };
    REQUIRE(prog != ST_AN_NO_CNODE && *st_an_sev(&R, ST_AN_M_TIME, prog, a) == 900 - 300 - 60 - 30 - 10);
    REQUIRE(*st_an_sev(&R, ST_AN_M_TIME, 0, a) == 0 && *st_an_sev(&R, ST_AN_M_TIME, recv_k, a) == 300 + 60);
    REQUIRE(*st_an_sev(&R, ST_AN_M_TIME, NAMED("main", "main", "solve", "MPI_Comm_rank"), a) == 30 - 10);
    REQUIRE(*st_an_sev(&R, ST_AN_M_TIME, nest, a) == 10 && *st_an_sev(&R, ST_AN_M_TIME, bare, a) == 10);
    for (int i = 0; i < 3; i++)
        REQUIRE(frames[i] != ST_AN_NO_CNODE && *st_an_sev(&R, ST_AN_M_TIME, frames[i], a) == 0);
    REQUIRE(st_an_total(&R, ST_AN_M_TIME) == 900 + 800 && R.span[a] == 900 && R.span[b] == 800);
    char buf[256] = "";
    FILE *mem = fmemopen(buf, sizeof buf, "w");
    REQUIRE(mem != NULL);
    st_an_print_cnode_path(mem, &R, recv_k);
    fclose(mem);
    REQUIRE(!strcmp(buf, "main/main/solve/exchange/MPI_Recv"));
    done();
}

/* ---- collectives over trees of several levels ------------------------------------------------ */

static st_comm_def_t mcomms[64][4];
static int32_t odd_world[32], even_world[32];

/* n ranks (one location each, l) with the comm tables: 0 world, 1 self, 2 the split into the odd
 * ranks in reverse order (key 700) and the even ranks (key 701), 3 an intercommunicator between
 * the even and the odd ranks (key 800). */
static void tb_split(int32_t n, uint32_t *l)
{
    tb_init(&t, n, 0);
    uint32_t no = 0, ne = 0;
    for (int32_t r = n - 1; r >= 0; r--)
        if (r % 2)
            odd_world[no++] = r;
    for (int32_t r = 0; r < n; r++)
        if (r % 2 == 0)
            even_world[ne++] = r;
    for (int32_t r = 0; r < n; r++) {
        int odd = r % 2;
        mcomms[r][0] = t.comms[r][0], mcomms[r][1] = t.comms[r][1];
        mcomms[r][2] = (st_comm_def_t){ .key = odd ? 700 : 701, .parent = 0, .size = odd ? no : ne,
                                        .world = odd ? odd_world : even_world };
        mcomms[r][3] = (st_comm_def_t){ .key = 800, .parent = 0, .flags = ST_COMMF_INTER, .size = odd ? no : ne,
                                        .remote_size = odd ? ne : no, .world = odd ? odd_world : even_world,
                                        .remote_world = odd ? even_world : odd_world };
        t.procs[r].comms = mcomms[r], t.procs[r].ncomms = 4;
        l[r] = tb_loc(&t, r, 0);
    }
}

/* The last event of location l (a COLL_END) on comm index comm. */
static void on_comm(uint32_t l, uint32_t comm)
{
    st_event_t *e = &t.locs[l].ev[t.locs[l].n - 2];
    REQUIRE(e->kind == ST_EV_MPI_COLL_END);
    e->comm = comm;
    e->flags = comm == 3 ? ST_EVF_INTERCOMM : 0;
}

/* Random begins on a 10-tick grid (ties among the latest), ends after begin + 5. */
static uint64_t rb(uint64_t T) { return T + 10 * tb_between(0, 6); }
static uint64_t re_(uint64_t b, uint64_t lo, uint64_t hi)
{
    uint64_t e = tb_between(lo, hi);
    return e > b + 5 ? e : b + 5;
}

/* Every kind of collective on n ranks, on world, on the two halves of a split (one of them in
 * reverse rank order: its scan follows the communicator's ranks) and on an intercommunicator;
 * N x N instances with and without full overlap; nonblocking ones (one of them a scan);
 * MPI_Init and MPI_Finalize; random times. The parallel engines (1 .. n processes, random
 * delivery) reduce them over trees of several levels and must match the serial result. */
static void test_coll_trees(int32_t n, uint64_t seed)
{
    uint32_t l[64];
    *tb_seed() = seed;
    tb_split(n, l);
    for (int32_t r = 0; r < n; r++) {
        uint32_t L = l[r];
        int32_t crank = r % 2 ? (int32_t)((n - 1 - r) / 2) : r / 2; /* rank in its half (roots: world ranks) */
        uint64_t b;
        enter(L, 1 + 10 * tb_between(0, 5), ST_REGION_MPI_Init);
        leave(L, 100 + 10 * tb_between(0, 5), ST_REGION_MPI_Init);
        b = rb(1000), coll(L, ST_REGION_MPI_Barrier, b, re_(b, 1060, 1200), OP_BARRIER, -1, 1, 0, 0);
        b = rb(2000), coll(L, ST_REGION_MPI_Allreduce, b, re_(b, 2070, 2200), OP_ALLREDUCE, -1, 2, 4, 4);
        b = rb(3000), coll(L, ST_REGION_MPI_Allreduce, b, re_(b, 3000, 3080), OP_ALLREDUCE, -1, 3, 4, 4);
        b = crank == 0 ? 4070 : rb(4000); /* a late root */
        coll(L, ST_REGION_MPI_Bcast, b, re_(b, 4000, 4100), OP_BCAST, r % 2 ? odd_world[0] : 0, 4, crank == 0 ? 4 : 0,
                           crank == 0 ? 0 : 4);
        on_comm(L, 2);
        b = r == 2 ? 4990 : rb(5000); /* an early root */
        coll(L, ST_REGION_MPI_Reduce, b, re_(b, 5000, 5100), OP_REDUCE, 2, 5, 4, r == 2 ? 4 * (uint64_t)n : 0);
        b = rb(6000), coll(L, ST_REGION_MPI_Scan, b, re_(b, 6000, 6100), OP_SCAN, -1, 6, 4, 4);
        on_comm(L, 2);
        b = rb(7000), coll(L, ST_REGION_MPI_Allreduce, b, re_(b, 7000, 7100), OP_ALLREDUCE, -1, 7, 4, 4);
        on_comm(L, 3);
        b = rb(8000), coll(L, ST_REGION_MPI_Barrier, b, re_(b, 8000, 8100), OP_BARRIER, -1, 8, 0, 0);
        on_comm(L, 3);
        uint64_t ti = 9000 + 50 * tb_between(0, 4); /* the later I-calls keep the others waiting */
        icall(L, ST_REGION_MPI_Iallreduce, ti, 50);
        icall(L, ST_REGION_MPI_Iscan, ti + 10, 51);
        enter(L, ti + 20, ST_REGION_MPI_Waitall);
        icoll_done(L, 9400, OP_ALLREDUCE, -1, 9, 50, 4, 4);
        icoll_done(L, 9401, OP_SCAN, -1, 10, 51, 4, 4);
        leave(L, 9402, ST_REGION_MPI_Waitall);
        if (r == n - 1) { /* a barrier whose begin this rank did not record: not analysed, counted once */
            enter(L, 10000, ST_REGION_MPI_Barrier);
            st_event_t *e = tb_ev(&t, L, ST_EV_MPI_COLL_END, 10500);
            e->op = OP_BARRIER, e->id = 11;
            leave(L, 10501, ST_REGION_MPI_Barrier);
        } else {
            coll(L, ST_REGION_MPI_Barrier, 10000 + 30 * (uint64_t)r, 10500, OP_BARRIER, -1, 11, 0, 0); /* r < 16 */
        }
        enter(L, 20000 + 10 * tb_between(0, 5), ST_REGION_MPI_Finalize);
        leave(L, 20100 + 10 * tb_between(0, 5), ST_REGION_MPI_Finalize);
    }
    analyse();
    /* every pattern took part (the comparison above is not vacuous) */
    static const int used[] = { ST_AN_M_INIT_COMPL, ST_AN_M_FINALIZE_WAIT, ST_AN_M_BARRIER_WAIT,
                                ST_AN_M_BARRIER_COMPL, ST_AN_M_WAIT_NXN, ST_AN_M_NXN_COMPL, ST_AN_M_LATEBROADCAST,
                                ST_AN_M_EARLYREDUCE, ST_AN_M_EARLYSCAN };
    for (size_t i = 0; i < sizeof used / sizeof *used; i++)
        if (!(st_an_total(&R, used[i]) > 0)) {
            fprintf(stderr, "%d ranks: no %s\n", n, st_an_metric(used[i])->uniq);
            REQUIRE(0);
        }
    REQUIRE_EQ(R.stats.coll_skipped, 1);
    uint64_t nonblocking = 0;
    for (int32_t r = 0; r < n; r++)
        nonblocking += AT(ST_AN_M_EARLYSCAN, l[r], ST_REGION_MPI_Waitall) +
                       AT(ST_AN_M_WAIT_NXN, l[r], ST_REGION_MPI_Waitall);
    REQUIRE(nonblocking > 0);
    done();
}

/* The message pattern: with one process per rank, a process sends only to its neighbours in the
 * binomial trees (world and MPI_Init / MPI_Finalize: the same tree), never to every member of
 * the communicator, and the number of messages does not grow with the number of instances. */
static void test_coll_messages(void)
{
    enum { P = 32, LOG2P = 5, N = 20 };
    uint32_t l[P];
    *tb_seed() = 77;
    tb_init(&t, P, 0);
    for (int32_t r = 0; r < P; r++)
        l[r] = tb_loc(&t, r, 0);
    for (int32_t r = 0; r < P; r++) {
        enter(l[r], 1 + 10 * tb_between(0, 5), ST_REGION_MPI_Init), leave(l[r], 100, ST_REGION_MPI_Init);
        for (uint64_t k = 0; k < N; k++) {
            uint64_t T = 1000 * (k + 1), b = rb(T);
            if (k % 2)
                coll(l[r], ST_REGION_MPI_Allreduce, b, re_(b, T, T + 80), OP_ALLREDUCE, -1, k + 1, 4, 4);
            else
                coll(l[r], ST_REGION_MPI_Scan, b, re_(b, T + 70, T + 100), OP_SCAN, -1, k + 1, 4, 4);
        }
        enter(l[r], 90000, ST_REGION_MPI_Finalize), leave(l[r], 90100, ST_REGION_MPI_Finalize);
    }
    analyse(); /* the last parallel run: one process per rank */
    REQUIRE(st_an_total(&R, ST_AN_M_WAIT_NXN) > 0 && st_an_total(&R, ST_AN_M_EARLYSCAN) > 0);
    for (int q = 0; q < P; q++) {
        uint32_t dests = 0, msgs = 0;
        for (int d = 0; d < P; d++)
            dests += nsent[q][d] > 0, msgs += nsent[q][d];
        /* tree neighbours: parent + children; per round (<= 2) and channel (world, Init/Finalize) one message each */
        REQUIRE(dests <= LOG2P + 1);
        REQUIRE(msgs <= 2 * 2 * (LOG2P + 1));
    }
    done();
}

/* What the processes of a parallel analysis exchange for point-to-point messages: runs of a
 * channel's values (p2p_wire.c), at most 48 bytes per message for both directions together
 * (a send's 3 values, a receive's 1, plus the runs' heads), not keyed records or stand-ins;
 * a receive whose send was never recorded (an incomplete trace) is dropped as in the serial
 * analysis, and the values are the serial ones (analyse()). */
/* The remote receives come out of the join in event order, although the ends and runs are in
 * channel order (the Late Sender pass then sorts nothing), each with its own sender's values. */
static void test_pwire_join_order(void)
{
    enum { K = 3 };
    an_pwire_t w = { 0 };
    w.nrecv = 2 * K;
    w.recv = st_mem_malloc(sizeof *w.recv * w.nrecv);
    w.got_send = st_mem_malloc(sizeof *w.got_send * 3 * w.nrecv);
    REQUIRE(w.recv && w.got_send);
    for (size_t i = 0; i < w.nrecv; i++) { /* channel 0's ends at events 10, 30, 50; channel 1's at 20, 40, 60 */
        w.recv[i] = (an_pw_end_t){ 0, 10 + 20 * (i % K) + 10 * (i / K) };
        uint64_t v[3] = { 1000 + i, 100 + i, i };
        memcpy(&w.got_send[3 * i], v, sizeof v);
    }
    for (uint64_t ch = 0; ch < 2; ch++) {
        an_pw_run_t r = { { ch, (uint64_t)(3 + ch) << 32, 0 }, 0, K, ch * K };
        REQUIRE(!st_mem_grow((void **)&w.lrecv.v, &w.lrecv.cap, w.lrecv.n + 1, sizeof *w.lrecv.v));
        REQUIRE(!st_mem_grow((void **)&w.rsend.v, &w.rsend.cap, w.rsend.n + 1, sizeof *w.rsend.v));
        w.lrecv.v[w.lrecv.n++] = r, w.rsend.v[w.rsend.n++] = r;
    }
    an_ctx_t c = { 0 };
    REQUIRE(an_pwire_join(&w, &c) == 0);
    REQUIRE(c.msgs.nrecv == w.nrecv && c.msgs.nsend == 0);
    for (size_t i = 0; i < c.msgs.nrecv; i++) {
        const an_recv_t *m = &c.msgs.recv[i];
        size_t end = i % 2 * K + i / 2; /* the end at event 10 + 10 i */
        REQUIRE(m->loc == 0 && m->ev == 10 + 10 * i);
        REQUIRE(m->src == (int32_t)(3 + i % 2) && m->t_send == 100 + end && m->t_scall == 1000 + end && m->sbytes == end);
    }
    st_mem_free(c.msgs.recv), st_mem_free(c.msgs.send);
    an_pwire_free(&w);
}

static void test_wire_volume(void)
{
    enum { N = 400 };
    tb_init(&t, 2, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
    double late = 0;
    for (uint64_t i = 0; i < N; i++) { /* two channels each way (tags 0 and 1); a's receives wait i % 3 */
        uint64_t t0 = 1000 + 100 * i;
        for (int32_t tag = 0; tag < 2; tag++) {
            uint64_t s = t0 + 10 * (uint64_t)tag;
            enter(b, s, ST_REGION_MPI_Send);
            tb_send(&t, b, s + 1, 0, tag);
            leave(b, s + 2, ST_REGION_MPI_Send);
            enter(a, s - i % 3, ST_REGION_MPI_Recv);
            tb_recv(&t, a, s + 5, 1, tag, 2 * i + (uint64_t)tag + 1);
            leave(a, s + 6, ST_REGION_MPI_Recv);
            late += (double)(i % 3);
        }
        for (int32_t tag = 0; tag < 2; tag++) {
            uint64_t s = t0 + 50 + 10 * (uint64_t)tag;
            enter(a, s, ST_REGION_MPI_Send);
            tb_send(&t, a, s + 1, 1, tag);
            leave(a, s + 2, ST_REGION_MPI_Send);
            enter(b, s, ST_REGION_MPI_Recv);
            tb_recv(&t, b, s + 5, 0, tag, 2 * i + (uint64_t)tag + 1);
            leave(b, s + 6, ST_REGION_MPI_Recv);
        }
    }
    enter(a, 1000 + 100 * N, ST_REGION_MPI_Recv); /* its send is not in the trace */
    tb_recv(&t, a, 1000 + 100 * N + 5, 1, 0, 2 * N + 1);
    leave(a, 1000 + 100 * N + 6, ST_REGION_MPI_Recv);
    analyse();
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_SYNCS_RECV), 4 * N); /* zero-byte messages; the unmatched receive: none */
    REQUIRE_EQ(st_an_total(&R, ST_AN_M_LATESENDER), late);
    if (wire_bytes[2] > 48 * 4 * N)
        fprintf(stderr, "test_wire_volume: %zu bytes for %d messages\n", wire_bytes[2], 4 * N);
    REQUIRE(wire_bytes[2] <= 48 * 4 * N);
    done();
}

/*
 * The OpenMP ends the in-run CLC leaves out of its derivation (a team master's TEAM_BEGIN and
 * TEAM_END; a lock released and next acquired by the same thread) reach the analysis that takes
 * CLC's derivation (analyse: parallel with it == serial). One process: the master holds lock 4
 * twice (120-130, 150-160: the second acquisition's release is its own), w waits from 135 to 170
 * for the second release.
 */
static void test_clc_self_ends(void)
{
    enum { PAR = ST_REGION_OMP_PARALLEL, SET = ST_REGION_OMP_SET_LOCK, MAIN = ST_REGION_PROGRAM,
           ACQ = ST_EV_THREAD_ACQUIRE_LOCK, REL = ST_EV_THREAD_RELEASE_LOCK };
    tb_init(&t, 1, 0);
    uint32_t m = tb_loc(&t, 0, 0), w = tb_loc(&t, 0, 1);
    enter(m, 0, MAIN);
    omp_ev(m, ST_EV_THREAD_FORK, 100, 3);
    omp_ev(m, ST_EV_THREAD_TEAM_BEGIN, 104, 3);
    enter(m, 106, PAR);
    enter(m, 110, SET);
    lock_ev(m, ACQ, 120, 1, 4, 1);
    leave(m, 121, SET);
    lock_ev(m, REL, 130, 1, 4, 1);
    enter(m, 140, SET);
    lock_ev(m, ACQ, 150, 1, 4, 2);
    leave(m, 151, SET);
    lock_ev(m, REL, 160, 1, 4, 2);
    leave(m, 200, PAR);
    omp_ev(m, ST_EV_THREAD_TEAM_END, 201, 3);
    omp_ev(m, ST_EV_THREAD_JOIN, 230, 3);
    leave(m, 300, MAIN);
    omp_ev(w, ST_EV_THREAD_TEAM_BEGIN, 102, 3);
    enter(w, 103, PAR);
    enter(w, 135, SET);
    lock_ev(w, ACQ, 170, 1, 4, 3);
    leave(w, 171, SET);
    lock_ev(w, REL, 180, 1, 4, 3);
    leave(w, 220, PAR);
    omp_ev(w, ST_EV_THREAD_TEAM_END, 221, 3);
    analyse();
    done();
}

int main(void)
{
    an_rc_keep_timeline = 1; /* the timelines stay with the results: compared */
    test_metric_table();
    test_metric_tree();
    test_rma();
    test_rma_pscw();
    test_rma_post_start();
    test_rma_lock();
    test_clc_self_ends();
    test_icoll();
    test_icoll_mixed();
    test_icoll_intercomm();
    test_tree_and_late_sender();
    test_nonblocking();
    test_unpaired_calls();
    test_late_receiver_ssend();
    test_wrong_order();
    test_init_finalize();
    test_scan_order();
    test_cube();
    test_intercomm();
    test_collectives();
    test_openmp();
    test_callpaths();
    test_coll_trees(5, 1);
    test_coll_trees(8, 2);
    test_coll_trees(13, 3);
    test_coll_messages();
    test_wire_volume();
    test_pwire_join_order();
    REQUIRE(left_out_ends >= 20); /* the hybrid traces' OpenMP ends (35) were read back from outside the graph */
    REQUIRE(left_out_p2p >= 20); /* and point-to-point ends, read first (st_rel_derived_read) */
    printf("test_analysis: ok\n");
    return 0;
}
