/*
 * test_cli_check.c — `synctrace check` (st_cli_check: archive -> rank data -> the shim's
 * derivation) on archives built in memory.
 *
 * Property tests: random programs of messages and collectives between ranks whose clocks
 * are skewed by known offsets; the violations check must find are computed from the
 * construction (the pairing is known), and must be found exactly, also with --raw on
 * CLC-moved copies. Collectives carry the byte counts the recorder writes; count-0
 * instances (which do not synchronize: ends may precede other members' begins) must
 * relate nothing. Plus the merge order of `dump`.
 */
/* link: src/cli/check.c src/cli/convert.c src/model/rmagroups.c src/cli/convert_rebuild.c src/cli/archive_defs.c src/cli/archive_comm.c src/cli/archive_load.c src/cli/archive_events.c src/cli/names.c src/cli/merge.c src/model/event.c src/model/region.c src/model/rankdata.c src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/util/u64map.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/stats.c src/clc/run.c src/util/log.c */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cli/archive_read.h"
#include "../../src/cli/check.h"
#include "../../src/cli/merge.h"
#include "check.h"

static char check_err[300]; /* st_cli_check's reason of a failure */
/* EXPECT(want == got) as unsigned numbers, `what` and both values reported. */
#define EXPECT_EQ(what, want, got)                                                          \
    do {                                                                                    \
        unsigned long long w_ = (unsigned long long)(want), g_ = (unsigned long long)(got); \
        EXPECT(w_ == g_, "%s: expected %llu, got %llu", what, w_, g_);                      \
    } while (0)

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng % n;
}

/* ---- building archives in memory ------------------------------------------------------------ */

#define NR 4

static void init_archive(st_cli_archive_t *ar)
{
    memset(ar, 0, sizeof *ar);
    ar->resolution = 1000000000u;
    for (unsigned a = 0; a < ST_ATTR__COUNT; a++)
        ar->attr[a] = ST_CLI_NONE;
    ar->nlocs = NR;
    ar->locs = calloc(NR, sizeof *ar->locs);
    for (int r = 0; r < NR; r++)
        ar->locs[r] = (st_cli_location_t){.id = (uint64_t)r * 65536u, .rank = r};
    ar->nranks = NR;
    /* MPI_COMM_WORLD (0): a COMM_GROUP without COMM_LOCATIONS -> members are world ranks */
    ar->ngroups = 1;
    ar->groups = calloc(1, sizeof *ar->groups);
    ar->groups[0] = (st_cli_group_t){.id = 0, .type = OTF2_GROUP_TYPE_COMM_GROUP, .paradigm = OTF2_PARADIGM_MPI,
                                     .n = NR, .members = calloc(NR, sizeof(uint64_t))};
    for (int r = 0; r < NR; r++)
        ar->groups[0].members[r] = (uint64_t)r;
    ar->ncomms = 1;
    ar->comms = calloc(1, sizeof *ar->comms);
    ar->comms[0] = (st_cli_comm_t){.id = 0, .group = 0, .group_b = ST_CLI_NONE, .paradigm = OTF2_PARADIGM_MPI};
    char err[256];
    if (st_cli_resolve_comms(ar, err, sizeof err)) {
        fprintf(stderr, "resolve: %s\n", err);
        exit(1);
    }
}

static st_event_t *push(st_cli_archive_t *ar, int rank, unsigned kind, uint64_t t)
{
    st_cli_location_t *l = &ar->locs[rank];
    st_event_t *e = st_cli_grow((void **)&l->ev, &l->n, &l->cap, sizeof *e);
    if (!e)
        exit(1);
    *e = (st_event_t){.time = t, .kind = (uint8_t)kind, .region = ST_CLI_NONE, .comm = 0, .peer = -1};
    return e;
}

/* ---- point-to-point property test ------------------------------------------------------------ */

/*
 * A random program of nmsg messages. Each rank keeps a true clock; a message leaves at the
 * sender's clock and completes at max(receiver clock, send + 5). Observed timestamps are the
 * true ones plus a per-rank skew, so a receive is a violation exactly when
 * recv + skew[to] < send + skew[from]. Receives are blocking (Enter + MpiRecv) or
 * nonblocking posted right away (MpiIrecvRequest .. MpiIrecv).
 */
static void p2p_property(int trial)
{
    st_cli_archive_t ar;
    init_archive(&ar);
    int64_t skew[NR];
    uint64_t clock[NR], want = 0;
    for (int r = 0; r < NR; r++)
        skew[r] = (int64_t)rnd(40), clock[r] = 1000;
    int nmsg = 50 + (int)rnd(200);
    for (int i = 0; i < nmsg; i++) {
        int from = (int)rnd(NR), to = (int)((from + 1 + rnd(NR - 1)) % NR);
        uint32_t tag = (uint32_t)rnd(3);
        uint64_t ts = clock[from] += 1 + rnd(10);
        st_event_t *s = push(&ar, from, ST_EV_MPI_SEND, ts + (uint64_t)skew[from]);
        s->peer = to, s->tag = (int32_t)tag;
        uint64_t post = clock[to] += 1;
        uint64_t tr = (clock[to] = (clock[to] > ts + 5 ? clock[to] : ts + 5) + rnd(3));
        if (rnd(2)) {
            push(&ar, to, ST_EV_ENTER, post + (uint64_t)skew[to]);
        } else {
            push(&ar, to, ST_EV_MPI_IRECV_REQUEST, post + (uint64_t)skew[to])->id = (uint64_t)i;
        }
        st_event_t *rv = push(&ar, to, ar.locs[to].ev[ar.locs[to].n - 1].kind == ST_EV_ENTER ? ST_EV_MPI_RECV
                                                                                                  : ST_EV_MPI_IRECV,
                                  tr + (uint64_t)skew[to]);
        rv->peer = from, rv->tag = (int32_t)tag;
        if (rv->kind == ST_EV_MPI_IRECV)
            rv->id = (uint64_t)i;
        if (rv->kind == ST_EV_MPI_RECV)
            push(&ar, to, ST_EV_LEAVE, tr + 1 + (uint64_t)skew[to]), clock[to]++;
        want += (int64_t)tr + skew[to] < (int64_t)ts + skew[from];
    }
    st_cli_check_t res = {0};
    EXPECT_EQ("p2p rc", 0, st_cli_check(&ar, &res, check_err, sizeof check_err));
    EXPECT_EQ("p2p matched", nmsg, res.matched);
    EXPECT_EQ("p2p unmatched", 0, res.unmatched_sends + res.unmatched_recvs);
    EXPECT_EQ("p2p violations", want, res.p2p);
    if (failures)
        fprintf(stderr, "  (trial %d, %d messages)\n", trial, nmsg);

    /* A CLC-like correction: move every receive to at least its send; the moved events keep their old time. */
    st_cli_check_t raw = {.raw = 1}, fixed = {0};
    for (int r = 0; r < NR; r++)
        for (size_t k = 0; k < ar.locs[r].n; k++) {
            st_event_t *e = &ar.locs[r].ev[k];
            if (e->kind == ST_EV_MPI_SEND)
                continue;
            st_event_set_orig_time(e, e->time);
            e->flags |= ST_EVF_CLC_MOVED;
            e->time += 1000; /* uniform shift keeps local order and removes every violation */
        }
    st_cli_check(&ar, &fixed, check_err, sizeof check_err);
    st_cli_check(&ar, &raw, check_err, sizeof check_err);
    EXPECT_EQ("p2p after correction", 0, fixed.p2p);
    EXPECT_EQ("p2p --raw after correction", want, raw.p2p);
    st_cli_archive_free(&ar);
}

/* ---- collectives property test -------------------------------------------------------------- */

/* The begin an end of rank r must not precede, for each class (docs/clc.md, "Logical messages"). */
enum { ALLREDUCE, BCAST, REDUCE, SCAN, EXSCAN, NCLASS };
static const unsigned class_op[NCLASS] = {OTF2_COLLECTIVE_OP_ALLREDUCE, OTF2_COLLECTIVE_OP_BCAST,
                                          OTF2_COLLECTIVE_OP_REDUCE, OTF2_COLLECTIVE_OP_SCAN,
                                          OTF2_COLLECTIVE_OP_EXSCAN};

/* Observed violations of rank r in an instance with observed begins ob[] and ends oe[]. */
static int violated(int cls, int root, int r, const uint64_t *ob, const uint64_t *oe)
{
    uint64_t need = 0;
    for (int s = 0; s < NR; s++) {
        int dep = cls == ALLREDUCE || (cls == BCAST && s == root) || (cls == REDUCE && r == root) ||
                  (cls == SCAN && s <= r) || (cls == EXSCAN && s < r);
        if (dep && ob[s] > need)
            need = ob[s];
    }
    return oe[r] < need;
}

/* Bytes the recorder writes for rank r (wrappers/mpi_functions.tbl, 8-byte blocks). */
static void coll_bytes(int cls, int root, int r, uint64_t *sent, uint64_t *recvd)
{
    switch (cls) {
    case BCAST: *sent = r == root ? 8 * NR : 0, *recvd = r == root ? 0 : 8; break;
    case REDUCE: *sent = 8, *recvd = r == root ? 8 * NR : 0; break;
    case SCAN: *sent = 8 * (uint64_t)(NR - r), *recvd = 8 * (uint64_t)(r + 1); break;
    case EXSCAN: *sent = 8 * (uint64_t)(NR - r - 1), *recvd = 8 * (uint64_t)r; break;
    default: *sent = *recvd = 8 * NR; break;
    }
}

/* Random sequences of collectives on MPI_COMM_WORLD with skewed clocks; some have count 0. */
static void coll_property(void)
{
    st_cli_archive_t ar;
    init_archive(&ar);
    int64_t skew[NR];
    uint64_t clock[NR], want = 0, want_rel = 0;
    for (int r = 0; r < NR; r++)
        skew[r] = (int64_t)rnd(30), clock[r] = 1000;
    int ninst = 20 + (int)rnd(30), nzero = 0;
    for (int i = 0; i < ninst; i++) {
        int cls = (int)rnd(NCLASS), root = (int)rnd(NR), zero = rnd(4) == 0;
        uint64_t b[NR], maxb = 0, ob[NR], oe[NR];
        for (int r = 0; r < NR; r++) {
            b[r] = clock[r] += 1 + rnd(20);
            maxb = b[r] > maxb ? b[r] : maxb;
            ob[r] = b[r] + (uint64_t)skew[r];
        }
        for (int r = 0; r < NR; r++) {
            /* count 0: nobody waits for anybody (MPICH returns at once) */
            uint64_t e = (zero ? b[r] : cls == BCAST ? b[root] : maxb) + 2 + rnd(5), sent = 0, recvd = 0;
            clock[r] = e = e > b[r] ? e : b[r] + 1;
            oe[r] = e + (uint64_t)skew[r];
            push(&ar, r, ST_EV_MPI_COLL_BEGIN, ob[r]);
            st_event_t *x = push(&ar, r, ST_EV_MPI_COLL_END, oe[r]);
            x->op = (uint16_t)class_op[cls];
            x->peer = cls == BCAST || cls == REDUCE ? root : -1;
            if (!zero)
                coll_bytes(cls, root, r, &sent, &recvd);
            x->bytes = sent, x->bytes2 = recvd;
        }
        nzero += zero;
        for (int r = 0; r < NR && !zero; r++) {
            want += (uint64_t)violated(cls, root, r, ob, oe);
            want_rel += cls == ALLREDUCE || (cls == BCAST && r != root) || (cls == REDUCE && r == root) ||
                        (cls == SCAN && r > 0) || (cls == EXSCAN && r > 0);
        }
    }
    st_cli_check_t res = {0};
    EXPECT_EQ("coll rc", 0, st_cli_check(&ar, &res, check_err, sizeof check_err));
    EXPECT_EQ("coll instances", ninst, res.coll_instances);
    EXPECT_EQ("coll incomplete", 0, res.coll_incomplete);
    EXPECT_EQ("coll without a relation (count 0)", nzero, res.coll_unrelated);
    EXPECT_EQ("coll relations", want_rel, res.relations);
    EXPECT_EQ("coll violations", want, res.coll);
    st_cli_archive_free(&ar);
}

/* ---- stored post order ------------------------------------------------------------------------ */

/*
 * Two threads of rank 1 receive on one channel with blocking MPI_Recv: thread 1 posted
 * first (post id 1), so it got the first send (t=100) and completed late (300); thread 0
 * posted second and got the second send (200), but its completion is stamped 190: one
 * violation. The archive stores the post ids (synctrace:post_id); without them the order
 * of blocking receives on different threads is unknown and rebuilt by completion time,
 * which pairs them the other way round and hides the violation.
 */
static void post_order_stored(void)
{
    for (int stored = 0; stored < 2; stored++) {
        st_cli_archive_t ar;
        init_archive(&ar);
        st_cli_location_t *l = realloc(ar.locs, sizeof *l * (NR + 1));
        if (!l)
            exit(1);
        memmove(&l[3], &l[2], sizeof *l * (NR - 2));
        l[2] = (st_cli_location_t){.id = 65536u + 1, .rank = 1, .thread = 1};
        ar.locs = l, ar.nlocs = NR + 1;
        static const struct { int loc; unsigned kind; uint64_t t, post; } ev[] = {
            {0, ST_EV_MPI_SEND, 100, 0}, {0, ST_EV_MPI_SEND, 200, 0},
            {1, ST_EV_ENTER, 120, 0}, {1, ST_EV_MPI_RECV, 190, 2}, {1, ST_EV_LEAVE, 191, 0},
            {2, ST_EV_ENTER, 90, 0}, {2, ST_EV_MPI_RECV, 300, 1}, {2, ST_EV_LEAVE, 301, 0},
        };
        for (size_t i = 0; i < sizeof ev / sizeof *ev; i++) {
            st_cli_location_t *L = &ar.locs[ev[i].loc];
            st_event_t *e = st_cli_grow((void **)&L->ev, &L->n, &L->cap, sizeof *e);
            *e = (st_event_t){.time = ev[i].t, .kind = (uint8_t)ev[i].kind, .region = ST_CLI_NONE,
                              .peer = ev[i].loc ? 0 : 1};
            if (ev[i].kind == ST_EV_MPI_RECV && stored)
                e->id = ev[i].post, e->flags |= ST_CLI_EVF_ORDER;
        }
        st_cli_check_t res = {0};
        EXPECT_EQ("post order rc", 0, st_cli_check(&ar, &res, check_err, sizeof check_err));
        EXPECT_EQ("post order matched", 2, res.matched);
        EXPECT_EQ(stored ? "violations with stored post ids" : "violations with rebuilt post order", stored, res.p2p);
        st_cli_archive_free(&ar);
    }
}

/* ---- merge order ---------------------------------------------------------------------------- */

static void merge_order(void)
{
    st_cli_archive_t ar;
    init_archive(&ar);
    uint64_t times[NR][3] = {{5, 9, 9}, {1, 9, 20}, {5, 5, 6}, {0, 0, 0}};
    for (int r = 0; r < NR; r++)
        for (int k = 0; k < 3; k++)
            push(&ar, r, ST_EV_ENTER, times[r][k])->region = (uint32_t)(r * 10 + k);
    st_cli_merge_t m;
    EXPECT_EQ("merge init", 0, st_cli_merge_init(&m, &ar));
    static const uint32_t want[] = {30, 31, 32, 10, 0, 20, 21, 22, 1, 2, 11, 12};
    size_t loc, n = 0;
    const st_event_t *e;
    while (st_cli_merge_next(&m, &loc, &e)) {
        EXPECT_EQ("merge: event order", want[n < 12 ? n : 11], e->region);
        EXPECT_EQ("merge: location", e->region / 10, loc);
        n++;
    }
    EXPECT_EQ("merge: count", 12, n);
    st_cli_merge_free(&m);
    st_cli_archive_free(&ar);
}

int main(void)
{
    for (int t = 0; t < 200 && !failures; t++)
        p2p_property(t);
    for (int t = 0; t < 200 && !failures; t++)
        coll_property();
    post_order_stored();
    merge_order();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
