/*
 * test_rc_dist.c — the distributed root-cause replay (rc_dist.h) against st_rc_run: every scenario of
 * test_rc_scen.h (the hand-computed ones and random SPMD programs of 2 to 64 locations) split over 1 to
 * 5 "processes" (contiguous locations, some processes with none), the engines driven over an in-memory
 * transport that delivers the messages in a random order, the parts finished at a collector
 * (rc_dist_finish); every metric value at every (call path, location) equal bit for bit to the serial
 * replay's, and the causes, the propagation table and the critical path's hops the same. Also: a
 * malformed message fails the engine with one line; no process sends itself ends or runs, and the
 * answers to a process go in one record; the runs of a process's own keys that the builder numbered are made
 * without a home, and a key type with an unnumbered end goes to the home whole.
 */
/* link: src/analysis/rc_dist.c src/analysis/rc_dist_flow.c src/analysis/rc_dist_sweep.c src/analysis/rc_dist_walk.c src/analysis/rc_dist_pairs.c src/util/u64map.c src/analysis/rc_dist_collect.c src/analysis/rc_dist_part.c src/analysis/rc_replay.c src/analysis/rc_index.c src/analysis/rc_causes.c src/analysis/rc_cpath.c src/analysis/rc_common.c src/analysis/rc_build.c src/analysis/rc_build_loc.c src/analysis/rc_pack.c src/config/config.c src/util/archive_dir.c src/analysis/analysis.c src/analysis/check.c src/analysis/p2p.c src/analysis/rma_pscw.c src/analysis/rma_lock.c src/analysis/call_kinds.c src/analysis/latesender.c src/analysis/coll.c src/analysis/coll_waits.c src/analysis/omp.c src/analysis/tree.c src/analysis/icoll.c src/analysis/output.c src/util/json.c src/util/fileio.c src/analysis/cube.c src/analysis/callpath.c src/analysis/source.c src/model/callpath.c src/analysis/parallel.c src/analysis/coll_reduce.c src/analysis/p2p_wire.c src/exchange/exchange.c src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/stats.c src/model/region.c src/util/log.c */
#include "test_rc_lib.h"
#include "test_rc_scen.h"

#include <unistd.h>

#include "../../src/analysis/rc_dist_int.h"
#include "../../src/util/mem.h"

/* ---- an in-memory transport: a pool of messages, delivered in a random order --------------------------- */

#define MAXP 6
typedef struct msg {
    int32_t from, to;
    void   *buf;
    size_t  len;
} msg_t;
static msg_t *pool;
static size_t npool, cpool;
static int32_t ids[MAXP];
static uint64_t drng = 1;
static size_t self_bulk;             /* records of ends or runs a process sent itself */
static size_t resp_recs[MAXP][MAXP]; /* records of answers from a process to a process */
static size_t far_bulk;              /* bytes of ends or runs a process sent another one */
static int keep_omp;                 /* run_dist: rc_dist_keep_omp on every engine */
static int local_made;               /* run_dist: the engines that made runs without a home (local_runs) */
static int pairs;                    /* run_dist: rc_dist_pairs on every engine (ranks: the locations' indices) */
static int32_t towner[128];          /* then each rank's process */
static size_t cross_home;            /* ends of a point-to-point key between two processes that went to a home */
static size_t pair_recs;             /* RD_PAIRS records */
static int stagger;                  /* run_dist: each process started after what came to it before was delivered */

static int pool_send(void *ctx, int32_t to, void *buf, size_t len)
{
    int32_t from = *(int32_t *)ctx;
    st_xchg_reader_t msg = { buf, (const uint8_t *)buf + len }, rd;
    st_xchg_rec_t h;
    while (st_xchg_next(&msg, &h, &rd) == 1) {
        self_bulk += from == to && (h.type == RD_ENDS || h.type == RD_RUNS);
        if (from != to && (h.type == RD_ENDS || h.type == RD_RUNS))
            far_bulk += (size_t)(rd.end - rd.p);
        if (h.type == RD_RESP && from >= 0 && from < MAXP && to >= 0 && to < MAXP)
            resp_recs[from][to]++;
        pair_recs += h.type == RD_PAIRS;
        for (const uint8_t *q = rd.p; pairs && h.type == RD_ENDS && q + sizeof(rd_keyend_t) <= rd.end;
             q += sizeof(rd_keyend_t)) {
            rd_keyend_t k;
            memcpy(&k, q, sizeof k);
            uint64_t s = k.key[1] >> 32, r = k.key[1] & 0xffffffffu;
            cross_home += k.key[0] >> 56 == ST_REL_KEY_P2P && s < in.nlocs && r < in.nlocs && towner[s] != towner[r];
        }
    }
    if (npool == cpool) {
        cpool = cpool ? 2 * cpool : 64;
        pool = realloc(pool, cpool * sizeof *pool);
        REQUIRE(pool);
    }
    pool[npool++] = (msg_t){ *(int32_t *)ctx, to, buf, len };
    return 0;
}

static size_t dpick(size_t n)
{
    drng = drng * 6364136223846793005ull + 1442695040888963407ull;
    return (size_t)((drng >> 33) % n);
}

/* ---- one split ------------------------------------------------------------------------------------ */

static double *serial_sev; /* st_rc_run's values: all metrics */
static st_rc_causes_t serial_cz;

/* The serial replay of the current timeline (R, CZ by test_rc_lib.h's run), saved. */
static void run_serial(int omp)
{
    run(omp);
    size_t n = (size_t)ST_AN__METRICS * NC * in.nlocs;
    free(serial_sev);
    serial_sev = malloc((n ? n : 1) * sizeof *serial_sev);
    REQUIRE(serial_sev);
    memcpy(serial_sev, R.sev, n * sizeof *serial_sev);
    st_rc_causes_free(&serial_cz);
    serial_cz = CZ;
    memset(&CZ, 0, sizeof CZ);
}

/* The distributed replay of the current timeline over np processes, process p owning locations
 * ploc0[p] .. ploc0[p + 1); the merged result in R, the causes in CZ. Returns how many messages went. */
static size_t run_dist(int omp, int np, const uint32_t *ploc0)
{
    make_result(omp); /* the wait-state values (Time, Idle threads) the processes have of their locations */
    st_an_result_t local[MAXP];
    st_rc_input_t part_in[MAXP];
    rc_dist_t *e[MAXP];
    st_xchg_net_t net[MAXP];
    for (int p = 0; p < np; p++) {
        uint32_t nl = ploc0[p + 1] - ploc0[p];
        local[p] = (st_an_result_t){ .ncnodes = NC, .nlocs = nl };
        local[p].sev = calloc((size_t)ST_AN__METRICS * NC * (nl ? nl : 1), sizeof(double));
        REQUIRE(local[p].sev);
        for (int m = 0; m < ST_AN__METRICS; m++)
            for (uint32_t c = 0; c < NC; c++)
                for (uint32_t l = 0; l < nl; l++)
                    *st_an_sev(&local[p], m, c, l) = *st_an_sev(&R, m, c, ploc0[p] + l);
        part_in[p] = (st_rc_input_t){ nl, nl ? &L[ploc0[p]] : NULL };
        ids[p] = p;
        net[p] = (st_xchg_net_t){ pool_send, &ids[p] };
        REQUIRE(rc_dist_new(&local[p], &part_in[p], ploc0, p, np, &net[p], &e[p]) == 0);
        if (keep_omp)
            rc_dist_keep_omp(e[p]);
    }
    if (pairs) { /* the scenarios' ranks are their locations */
        REQUIRE(in.nlocs <= sizeof towner / sizeof towner[0]);
        for (uint32_t x = 0; x < in.nlocs; x++) {
            int p = 0;
            while (p + 1 < np && ploc0[p + 1] <= x)
                p++;
            towner[x] = p;
        }
        for (int p = 0; p < np; p++)
            REQUIRE(rc_dist_pairs(e[p], towner, in.nlocs) == 0);
    }
    size_t sent = 0;
    for (int p = 0; p < np; p++) {
        for (size_t i = 0; stagger && i < npool;) { /* what the processes started before sent it, first */
            if (pool[i].to != p) {
                i++;
                continue;
            }
            msg_t m = pool[i];
            pool[i] = pool[--npool];
            sent++;
            REQUIRE(rc_dist_deliver(e[m.to], m.from, m.buf, m.len) == 0);
            st_mem_free(m.buf);
        }
        REQUIRE(rc_dist_start(e[p]) == 0);
    }
    for (;;) {
        int done = 0;
        for (int p = 0; p < np; p++) {
            int k = rc_dist_progress(e[p]);
            REQUIRE(k != RC_DIST_FAILED);
            done += k == RC_DIST_DONE;
        }
        if (done == np && !npool)
            break;
        if (!npool) {
            char why[300];
            for (int p = 0; p < np; p++) {
                rc_dist_waiting(e[p], why, sizeof why);
                fprintf(stderr, "process %d: %s\n", p, why);
            }
        }
        REQUIRE(npool > 0); /* not done and nothing under way: a deadlock */
        size_t i = dpick(npool);
        msg_t m = pool[i];
        pool[i] = pool[--npool];
        sent++;
        REQUIRE(rc_dist_deliver(e[m.to], m.from, m.buf, m.len) == 0);
        st_mem_free(m.buf);
    }
    rc_dist_part_t parts[MAXP];
    for (int p = 0; p < np; p++) {
        REQUIRE(rc_dist_take(e[p], &parts[p]) == 0);
        local_made += e[p]->idend != NULL;
        rc_dist_free(e[p]);
    }
    /* the collector: the parts' values merged in process order, then the finish */
    for (int p = 0; p < np; p++) {
        for (int m = 0; m < ST_AN__METRICS; m++)
            for (uint32_t c = 0; c < NC; c++)
                for (uint32_t l = 0; l < local[p].nlocs; l++)
                    *st_an_sev(&R, m, c, ploc0[p] + l) = *st_an_sev(&local[p], m, c, l);
        free(local[p].sev);
    }
    st_rc_causes_free(&CZ);
    REQUIRE(rc_dist_finish(&R, parts, np, &CZ) == 0);
    return sent;
}

/* R and CZ equal the serial replay's bit for bit. */
static void expect_serial(const char *what)
{
    size_t bad = 0;
    for (int m = 0; m < ST_AN__METRICS; m++)
        for (uint32_t c = 0; c < NC; c++)
            for (uint32_t l = 0; l < in.nlocs; l++) {
                double a = serial_sev[((size_t)m * NC + c) * in.nlocs + l], b = *st_an_sev(&R, m, c, l);
                if (memcmp(&a, &b, sizeof a) && !bad++)
                    fprintf(stderr, "%s: %s at cnode %u loc %u: serial %.17g, distributed %.17g\n", what,
                            st_an_metric(m)->uniq, c, l, a, b);
            }
    EXPECT(bad == 0, "%s: %zu values differ", what, bad);
    EXPECT(serial_cz.n == CZ.n, "%s: %zu causes, serial %zu", what, CZ.n, serial_cz.n);
    for (size_t i = 0; i < serial_cz.n && i < CZ.n; i++) {
        const st_rc_cause_t *a = &serial_cz.v[i], *b = &CZ.v[i];
        EXPECT(a->metric == b->metric && a->wait_cnode == b->wait_cnode && a->delay_loc == b->delay_loc &&
                   a->delay_cnode == b->delay_cnode && !memcmp(&a->short_ticks, &b->short_ticks, 8) &&
                   !memcmp(&a->long_ticks, &b->long_ticks, 8),
               "%s: cause %zu differs", what, i);
    }
    EXPECT(serial_cz.nprop == CZ.nprop, "%s: %zu propagation entries, serial %zu", what, CZ.nprop, serial_cz.nprop);
    for (size_t i = 0; i < serial_cz.nprop && i < CZ.nprop; i++) {
        const struct st_rc_prop *a = &serial_cz.prop[i], *b = &CZ.prop[i];
        EXPECT(a->metric == b->metric && a->cnode == b->cnode && !memcmp(&a->wait, &b->wait, 8) &&
                   !memcmp(&a->propagating, &b->propagating, 8),
               "%s: propagation entry %zu differs", what, i);
    }
    EXPECT(serial_cz.npath == CZ.npath, "%s: %zu hops, serial %zu", what, CZ.npath, serial_cz.npath);
    for (size_t i = 0; i < serial_cz.npath && i < CZ.npath; i++)
        EXPECT(serial_cz.path[i].loc == CZ.path[i].loc && serial_cz.path[i].t0 == CZ.path[i].t0 &&
                   serial_cz.path[i].t1 == CZ.path[i].t1,
               "%s: hop %zu differs", what, i);
}

/* The current scenario (built by scen) serially, then split over 1 .. 5 processes: contiguous splits,
 * one location each, random cuts (empty processes too), each with a few delivery orders. */
static void check_splits(void (*scen)(void), int omp, const char *what)
{
    scen();
    run_serial(omp);
    uint32_t n = in.nlocs;
    for (int np = 1; np <= 5; np++)
        for (int variant = 0; variant < 3; variant++) {
            uint32_t ploc0[MAXP + 1];
            ploc0[0] = 0, ploc0[np] = n;
            for (int p = 1; p < np; p++) {
                if (variant == 0) /* even */
                    ploc0[p] = (uint32_t)((uint64_t)n * (uint64_t)p / (uint64_t)np);
                else /* random cuts, non-decreasing */
                    ploc0[p] = ploc0[p - 1] + (uint32_t)dpick(n - ploc0[p - 1] + 1);
            }
            drng = 12345 + (uint64_t)np * 31 + (uint64_t)variant;
            scen(); /* (the serial run left the timeline as it was: rebuilt all the same) */
            run_dist(omp, np, ploc0);
            char ctx[160];
            snprintf(ctx, sizeof ctx, "%s over %d processes (cuts variant %d)", what, np, variant);
            expect_serial(ctx);
        }
}

static void scen_barrier_untied(void) { scen_barrier(0); }
static void scen_barrier_tie(void) { scen_barrier(1); }
static void scen_bcast(void) { scen_rooted(0); }
static void scen_reduce(void) { scen_rooted(1); }

/* The messages go in a fixed number of rounds, whatever the number of waits and of moves of the critical path
 * between processes: a random program of 16 locations (hundreds of waits, chains of them alternating between
 * the processes) over 2 and 5 processes takes at most 8 messages from each process to each (the ends, runs,
 * packages and jump tables, coefficients, snapshots, the plan, the answers, the table), and the values are
 * still the serial replay's. A process keeps its own ends and runs (none in a message to itself), and the
 * answers to a waiter's owner go in one record (the most: one; some process answers some). */
static void test_rounds(void)
{
    RN = 16, rseed = 4242;
    scen_random();
    run_serial(0);
    size_t waits = 0;
    for (uint32_t l = 0; l < in.nlocs; l++)
        waits += L[l].nwaits;
    EXPECT(waits > 100, "the program has %zu waits", waits);
    for (int np = 2; np <= 5; np += 3) {
        uint32_t ploc0[MAXP + 1];
        for (int p = 0; p <= np; p++)
            ploc0[p] = (uint32_t)((uint64_t)in.nlocs * (uint64_t)p / (uint64_t)np);
        drng = 99 + (uint64_t)np;
        scen_random();
        self_bulk = 0;
        memset(resp_recs, 0, sizeof resp_recs);
        size_t sent = run_dist(0, np, ploc0);
        char ctx[96];
        snprintf(ctx, sizeof ctx, "random 16/4242 over %d processes (rounds)", np);
        expect_serial(ctx);
        EXPECT(sent <= (size_t)(8 * np * np), "%s: %zu messages for %zu waits, at most %d expected", ctx, sent, waits,
               8 * np * np);
        EXPECT(self_bulk == 0, "%s: %zu records of ends or runs to the sender itself", ctx, self_bulk);
        size_t most = 0;
        for (int a = 0; a < np; a++)
            for (int b = 0; b < np; b++)
                most = resp_recs[a][b] > most ? resp_recs[a][b] : most;
        EXPECT(most == 1, "%s: at most %zu records of answers from one process to one, 1 expected", ctx, most);
    }
}

/* With rc_dist_keep_omp (a parallel analysis' processes hold whole ranks) the OpenMP keys' ends and runs stay at
 * their process: the OpenMP program (two threads of one rank, only OpenMP relations) over 2 to 5 processes, its
 * locations at one of them and the others empty, sends no ends or runs at all, and the values are the serial
 * replay's. (Without it, its keys' homes are chosen by their hashes, some of them at the empty processes.) */
static void test_omp_home(void)
{
    scen_omp();
    run_serial(1);
    for (int np = 2; np <= 5; np++)
        for (int at = 0; at < np; at++) { /* the process that holds both threads */
            uint32_t ploc0[MAXP + 1];
            for (int p = 0; p <= np; p++)
                ploc0[p] = p <= at ? 0 : in.nlocs;
            drng = 7 + (uint64_t)np * 13 + (uint64_t)at;
            scen_omp();
            keep_omp = 1, far_bulk = 0;
            run_dist(1, np, ploc0);
            keep_omp = 0;
            char ctx[96];
            snprintf(ctx, sizeof ctx, "openmp, OpenMP keys at home, over %d processes (at %d)", np, at);
            expect_serial(ctx);
            EXPECT(far_bulk == 0, "%s: %zu bytes of ends or runs went to another process, none expected", ctx, far_bulk);
        }
}

/* The relations numbered as the builder numbers them (st_rc_rel_t.group: 1 + the key's number, the same at every
 * end of a key), except the relation `spoil` (in the order of the locations and their relations; none: -1),
 * which gets none. */
static void number_groups(long spoil)
{
    uint32_t ng = 0;
    long k = 0;
    for (uint32_t l = 0; l < in.nlocs; l++)
        for (uint64_t r = 0; r < L[l].nrels; r++, k++) {
            st_rc_rel_t *R = &L[l].rels[r];
            R->group = 0;
            for (uint32_t m = 0; m <= l && !R->group; m++) /* an earlier end of the key */
                for (uint64_t q = 0; q < (m == l ? r : L[m].nrels) && !R->group; q++)
                    if (!memcmp(L[m].rels[q].key, R->key, sizeof R->key))
                        R->group = L[m].rels[q].group;
            if (!R->group)
                R->group = ++ng;
        }
    for (uint32_t l = 0, k2 = 0; l < in.nlocs; l++)
        for (uint64_t r = 0; r < L[l].nrels; r++, k2++)
            if ((long)k2 == spoil)
                L[l].rels[r].group = 0;
    (void)k;
}

/* A process whose keys' ends are all its own (the only process; or the OpenMP keys with rc_dist_keep_omp) and
 * numbered by the builder makes their runs itself, without a home's hash table (rc_dist.c's local_runs): the
 * values are still the serial replay's, the runs made so (local_made); a key type of which one end has no number
 * goes to the home whole (the numbered ends of a key are never split from it). */
static void test_local_runs(void)
{
    static void (*const scen[])(void) = { scen_random, scen_mixed_relations, scen_sendrecv, scen_barrier_tie, scen_omp };
    static const char *const name[] = { "random 16/31", "mixed relations", "sendrecv", "barrier", "openmp" };
    for (size_t s = 0; s < sizeof scen / sizeof scen[0]; s++)
        for (long spoil = -1; spoil <= 3; spoil += 4) {
            int omp = scen[s] == scen_omp;
            RN = 16, rseed = 31;
            scen[s]();
            run_serial(omp);
            for (int np = 1; np <= (omp ? 3 : 1); np++) { /* OpenMP: both threads at the last process */
                uint32_t ploc0[MAXP + 1];
                for (int p = 0; p <= np; p++)
                    ploc0[p] = p < np ? 0 : in.nlocs;
                drng = 5 + (uint64_t)np + (uint64_t)s * 17;
                scen[s]();
                number_groups(spoil);
                keep_omp = omp, local_made = 0;
                run_dist(omp, np, ploc0);
                keep_omp = 0;
                char ctx[128];
                snprintf(ctx, sizeof ctx, "%s, numbered relations%s, over %d processes", name[s],
                         spoil < 0 ? "" : " (one without)", np);
                expect_serial(ctx);
                if (spoil < 0)
                    EXPECT(local_made == 1, "%s: %d processes made runs without a home, 1 expected", ctx, local_made);
            }
        }
}

/* The point-to-point keys of ranks at two processes without a home (rc_dist_pairs, rc_dist_pairs.c): every split
 * of the scenarios gives the serial replay's values with the processes' ends ordered by key (mode 1: no numbers),
 * by the builder's wire numbers (mode 2: each key's place in the keys' order, as the join numbers them), and by
 * numbers out of the keys' order (mode 3: the keys numbered backwards, which the engine must see and sort); no
 * end of such a key goes to a home. In mode 2 each process starts only after the lists of those started before
 * came to it (kept, merged at its start). */
static int cmp_key4(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    for (int w = 0; w < 4; w++)
        if (x[w] != y[w])
            return x[w] < y[w] ? -1 : 1;
    return 0;
}

static void number_wire(int backwards)
{
    uint64_t (*k)[4] = NULL;
    size_t n = 0, cap = 0;
    for (uint32_t l = 0; l < in.nlocs; l++)
        for (uint64_t r = 0; r < L[l].nrels; r++)
            if (L[l].rels[r].key[0] >> 56 == ST_REL_KEY_P2P) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 64;
                    k = realloc(k, cap * sizeof *k);
                    REQUIRE(k);
                }
                memcpy(k[n++], L[l].rels[r].key, sizeof *k);
            }
    if (n)
        qsort(k, n, sizeof *k, cmp_key4);
    size_t u = 0; /* the distinct keys, in order */
    for (size_t i = 0; i < n; i++)
        if (!u || cmp_key4(k[u - 1], k[i]))
            memcpy(k[u++], k[i], sizeof *k);
    for (uint32_t l = 0; l < in.nlocs; l++)
        for (uint64_t r = 0; r < L[l].nrels; r++) {
            st_rc_rel_t *R = &L[l].rels[r];
            if (R->key[0] >> 56 != ST_REL_KEY_P2P)
                continue;
            const uint64_t(*f)[4] = bsearch(R->key, k, u, sizeof *k, cmp_key4);
            REQUIRE(f);
            uint32_t below = (uint32_t)(f - (const uint64_t(*)[4])k);
            R->group = backwards ? (uint32_t)u - below : below + 1;
        }
    free(k);
}

static int pair_mode;
static void scen_pairs_random(void) { scen_random(), pair_mode > 1 ? number_wire(pair_mode == 3) : (void)0; }
static void scen_pairs_chain(void) { scen_chain(), pair_mode > 1 ? number_wire(pair_mode == 3) : (void)0; }
static void scen_pairs_sendrecv(void) { scen_sendrecv(), pair_mode > 1 ? number_wire(pair_mode == 3) : (void)0; }
static void scen_pairs_mixed(void) { scen_mixed_relations(), pair_mode > 1 ? number_wire(pair_mode == 3) : (void)0; }
static void scen_pairs_cycle(void) { scen_cycle(), pair_mode > 1 ? number_wire(pair_mode == 3) : (void)0; }
static void scen_pairs_omp(void) { scen_omp(), pair_mode > 1 ? number_wire(pair_mode == 3) : (void)0; }

static void test_pairs(void)
{
    pairs = 1;
    for (pair_mode = 1; pair_mode <= 3; pair_mode++) {
        stagger = pair_mode == 2;
        char what[96];
        cross_home = pair_recs = 0;
        snprintf(what, sizeof what, "pairs (mode %d): chain", pair_mode);
        check_splits(scen_pairs_chain, 0, what);
        snprintf(what, sizeof what, "pairs (mode %d): sendrecv", pair_mode);
        check_splits(scen_pairs_sendrecv, 0, what);
        snprintf(what, sizeof what, "pairs (mode %d): mixed relations", pair_mode);
        check_splits(scen_pairs_mixed, 0, what);
        snprintf(what, sizeof what, "pairs (mode %d): cycle", pair_mode);
        check_splits(scen_pairs_cycle, 0, what);
        snprintf(what, sizeof what, "pairs (mode %d): openmp", pair_mode);
        check_splits(scen_pairs_omp, 1, what);
        static const uint32_t sizes[] = { 2, 5, 13, 64 };
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            RN = sizes[si], rseed = 31 * RN + (uint64_t)pair_mode;
            snprintf(what, sizeof what, "pairs (mode %d): random %u/%" PRIu64, pair_mode, RN, rseed);
            check_splits(scen_pairs_random, 0, what);
        }
        EXPECT(cross_home == 0, "pairs (mode %d): %zu ends of keys between two processes went to a home", pair_mode,
               cross_home);
        EXPECT(pair_recs > 0, "pairs (mode %d): no list of shared keys' ends went", pair_mode);
    }
    pairs = stagger = 0;
}

/* A malformed message (a record of no type the engine knows) fails the engine. */
static void test_malformed(void)
{
    scen_late_sender();
    make_result(0);
    uint32_t ploc0[3] = { 0, 1, 2 };
    st_rc_input_t pin = { 1, &L[0] };
    st_an_result_t loc = { .ncnodes = NC, .nlocs = 1 };
    loc.sev = calloc((size_t)ST_AN__METRICS * NC, sizeof(double));
    REQUIRE(loc.sev);
    ids[0] = 0;
    st_xchg_net_t net = { pool_send, &ids[0] };
    rc_dist_t *e;
    REQUIRE(rc_dist_new(&loc, &pin, ploc0, 0, 2, &net, &e) == 0);
    uint8_t bad[32] = { 0x7f };
    bad[8] = 0; /* no payload */
    EXPECT(rc_dist_deliver(e, 1, bad, sizeof bad) == -1);
    EXPECT(rc_dist_progress(e) == RC_DIST_FAILED);
    rc_dist_free(e);
    /* a partner's list of shared keys' ends out of the keys' order (two messages, the second's key smaller) */
    int32_t owner[2] = { 0, 1 };
    REQUIRE(rc_dist_new(&loc, &pin, ploc0, 0, 2, &net, &e) == 0);
    REQUIRE(rc_dist_pairs(e, owner, 2) == 0);
    REQUIRE(rc_dist_start(e) == 0);
    uint64_t msg[4 + 2 + 2 * 5] = { 0 };
    st_xchg_rec_t h = { .type = RD_PAIRS, .len = sizeof msg - 4 * sizeof(uint64_t) };
    memcpy(msg, &h, sizeof h);
    msg[4] = 2, msg[5] = 0;                                                        /* two sends, no receives */
    msg[6] = (uint64_t)ST_REL_KEY_P2P << 56, msg[7] = 1ull << 32, msg[9] = 5;     /* message 5 from rank 1 */
    msg[11] = (uint64_t)ST_REL_KEY_P2P << 56, msg[12] = 1ull << 32, msg[14] = 4;  /* then message 4 */
    EXPECT(sizeof h == 4 * sizeof(uint64_t));
    EXPECT(rc_dist_deliver(e, 1, msg, sizeof msg) == -1);
    EXPECT(rc_dist_progress(e) == RC_DIST_FAILED);
    rc_dist_free(e);
    free(loc.sev);
    while (npool)
        st_mem_free(pool[--npool].buf);
}

int main(void)
{
    alarm(300);
    memcpy(cmap, identity, sizeof cmap);
    check_splits(scen_late_sender, 0, "late sender");
    check_splits(scen_chain, 0, "chain");
    check_splits(scen_chain_partial, 0, "partial chain");
    check_splits(scen_barrier_untied, 0, "barrier");
    check_splits(scen_barrier_tie, 0, "barrier, tied last arrivers");
    check_splits(scen_bcast, 0, "broadcast");
    check_splits(scen_reduce, 0, "reduce");
    check_splits(scen_omp, 1, "openmp");
    check_splits(scen_no_waits, 0, "no waits");
    check_splits(scen_nothing_to_charge, 0, "nothing to charge");
    check_splits(scen_partitions, 0, "partitions");
    check_splits(scen_mixed_relations, 0, "mixed relations");
    check_splits(scen_sendrecv, 0, "sendrecv");
    check_splits(scen_cycle, 0, "cycle");
    static const uint32_t sizes[] = { 2, 3, 5, 8, 13, 64 };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            RN = sizes[si], rseed = seed * 7919 + RN;
            char what[64];
            snprintf(what, sizeof what, "random %u/%" PRIu64, RN, seed);
            check_splits(scen_random, 0, what);
        }
    memcpy(cmap, shuffled, sizeof cmap); /* another cnode numbering */
    check_splits(scen_chain, 0, "chain, shuffled cnodes");
    RN = 8, rseed = 77;
    check_splits(scen_random, 0, "random 8/77, shuffled cnodes");
    memcpy(cmap, identity, sizeof cmap);
    test_rounds();
    test_omp_home();
    test_local_runs();
    test_pairs();
    test_malformed();
    result_free();
    st_rc_causes_free(&serial_cz);
    free(serial_sev);
    free(pool);
    if (failures)
        return 1;
    printf("test_rc_dist: ok\n");
    return 0;
}
