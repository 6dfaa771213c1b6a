/*
 * test_clc_run.c — the sequential CLC on small hand-built traces with answers
 * computed by hand (params: gamma 1, delta 1, mu proc/intra/inter 2/5/10, amort 0.5,
 * so LA = 2 * jump): a single reversed message with backward amortization, a chain
 * processed against the input order, an allreduce (own enter excluded), a scan, the
 * hybrid case of seed 000 Fig. 2 (a p2p jump pushing a fork and a lock chain), a send
 * limit bending the backward ramp, a dependency cycle from inconsistent input, and an
 * input made from rank data (node names decide mu).
 */
/* link: src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/util/u64map.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/run.c src/clc/stats.c src/util/log.c */
#include "test_clc_lib.h"

static st_clc_stats_t st;

static void run(tb_t *t)
{
    st_rel_input_t in = tb_input(t);
    st_rel_graph_t g;
    st_clc_params_t p = tb_params();
    REQUIRE(st_rel_graph_build(&in, &g) == 0);
    REQUIRE(st_clc_run(&p, &in, &g, &st) == 0);
    st_rel_graph_free(&g);
}

static void require_times(const tb_t *t, uint32_t l, size_t n, const uint64_t *want)
{
    REQUIRE_EQ(t->locs[l].n, n);
    for (size_t i = 0; i < n; i++) {
        if (T(t, l, i) != want[i])
            fprintf(stderr, "location %u event %zu:\n", l, i);
        REQUIRE_EQ(T(t, l, i), want[i]);
        REQUIRE(t->locs[l].orig[i] <= T(t, l, i));
        REQUIRE(!!(t->locs[l].ev[i].flags & ST_EVF_CLC_MOVED) == (t->locs[l].orig[i] != T(t, l, i)));
    }
}

#define REQUIRE_TIMES(t, l, ...)                                         \
    do {                                                          \
        const uint64_t w_[] = { __VA_ARGS__ };                    \
        require_times(t, l, sizeof w_ / sizeof w_[0], w_);               \
    } while (0)

static void test_single_message(void)
{
    tb_t t;
    tb_init(&t, 2, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
    tb_region(&t, a, ST_EV_ENTER, 100, TR_USER);
    tb_send(&t, a, 110, 1, 0);
    tb_region(&t, a, ST_EV_LEAVE, 120, TR_USER);
    tb_region(&t, b, ST_EV_ENTER, 0, TR_USER);
    tb_region(&t, b, ST_EV_LEAVE, 20, TR_USER);
    tb_region(&t, b, ST_EV_ENTER, 60, TR_USER);
    tb_recv(&t, b, 70, 0, 0, 1);
    tb_region(&t, b, ST_EV_LEAVE, 80, TR_USER);
    tb_region(&t, b, ST_EV_ENTER, 200, TR_USER);
    run(&t);
    /* recv: 110 + 10 = 120 (jump 50); after it intervals kept (gamma 1); before it the
     * ramp over [0, 70]: 20 + 50*20/70 = 34, 60 + 50*60/70 = 102. */
    REQUIRE_TIMES(&t, a, 100, 110, 120);
    REQUIRE_TIMES(&t, b, 0, 34, 102, 120, 130, 250);
    REQUIRE_EQ(st.reversed.violated[ST_REL_P2P], 1);
    REQUIRE_EQ(st.reversed.max_err[ST_REL_P2P], 40);
    REQUIRE_EQ(st.violations.violated[ST_REL_P2P], 1);
    REQUIRE_EQ(st.jumps[ST_REL_P2P], 1);
    REQUIRE_EQ(st.remaining.violated[ST_REL_P2P], 0);
    REQUIRE_EQ(st.remaining.messages[ST_REL_P2P], 1);
    REQUIRE_EQ(st.moved, 5);
    REQUIRE_EQ(st.max_shift, 50);
    REQUIRE_EQ(st.ramps, 1);
    REQUIRE_EQ(st.ramps_bent, 0);
    REQUIRE_EQ(st.events, 9);
    tb_free(&t);
}

static void test_chain(void)
{
    tb_t t;
    tb_init(&t, 3, 0);
    /* locations listed against the dependency order: the worklist must wait */
    uint32_t l2 = tb_loc(&t, 2, 0), l1 = tb_loc(&t, 1, 0), l0 = tb_loc(&t, 0, 0);
    tb_send(&t, l0, 1000, 1, 0);
    tb_recv(&t, l1, 500, 0, 0, 1);
    tb_send(&t, l1, 510, 2, 0);
    tb_recv(&t, l2, 100, 1, 0, 1);
    tb_region(&t, l2, ST_EV_ENTER, 150, TR_USER);
    run(&t);
    REQUIRE_TIMES(&t, l0, 1000);
    REQUIRE_TIMES(&t, l1, 1010, 1020);
    REQUIRE_TIMES(&t, l2, 1030, 1080);
    REQUIRE_EQ(st.jumps[ST_REL_P2P], 2);
    REQUIRE_EQ(st.reversed.violated[ST_REL_P2P], 2);
    REQUIRE_EQ(st.remaining.violated[ST_REL_P2P], 0);
    tb_free(&t);
}

static void test_allreduce(void)
{
    tb_t t;
    tb_init(&t, 3, 2); /* ranks 0,1 on node 0, rank 2 on node 1: mu = min(5, 10) */
    uint32_t l[3];
    for (int r = 0; r < 3; r++)
        l[r] = tb_loc(&t, r, 0);
    tb_coll(&t, l[0], 100, 130, OP_ALLREDUCE, -1, 0, 8, 8);
    tb_coll(&t, l[1], 140, 142, OP_ALLREDUCE, -1, 0, 8, 8);
    tb_coll(&t, l[2], 90, 120, OP_ALLREDUCE, -1, 0, 8, 8);
    run(&t);
    REQUIRE_TIMES(&t, l[0], 100, 145); /* max(140, 90) + 5 */
    REQUIRE_TIMES(&t, l[1], 140, 142); /* max(100, 90) + 5 < 142; its own enter does not count */
    REQUIRE_TIMES(&t, l[2], 90, 145);
    REQUIRE_EQ(st.jumps[ST_REL_COLL], 2);
    REQUIRE_EQ(st.reversed.violated[ST_REL_COLL], 2);
    REQUIRE_EQ(st.remaining.violated[ST_REL_COLL], 0);
    tb_free(&t);
}

static void test_scan(void)
{
    tb_t t;
    tb_init(&t, 3, 0);
    uint32_t l[3];
    for (int r = 0; r < 3; r++)
        l[r] = tb_loc(&t, r, 0);
    tb_coll(&t, l[0], 100, 105, OP_SCAN, -1, 0, 8, 8);
    tb_coll(&t, l[1], 200, 210, OP_SCAN, -1, 0, 8, 8);
    tb_coll(&t, l[2], 110, 120, OP_SCAN, -1, 0, 8, 8);
    run(&t);
    REQUIRE_TIMES(&t, l[0], 100, 105); /* rank 0 depends on nobody */
    REQUIRE_TIMES(&t, l[1], 200, 210);
    REQUIRE_TIMES(&t, l[2], 110, 210); /* max(100, 200) + 10 */
    REQUIRE_EQ(st.jumps[ST_REL_COLL], 1);
    tb_free(&t);
}

/* Seed 000, Fig. 2: correcting an MPI message must not make a thread start before its fork. */
static void test_hybrid(void)
{
    tb_t t;
    tb_init(&t, 2, 0);
    uint32_t s = tb_loc(&t, 0, 0), m = tb_loc(&t, 1, 0), w = tb_loc(&t, 1, 1);
    tb_send(&t, s, 100, 1, 0);
    tb_recv(&t, m, 50, 0, 0, 1);
    tb_ev(&t, m, ST_EV_THREAD_FORK, 60)->id = 7;
    tb_ev(&t, m, ST_EV_THREAD_TEAM_BEGIN, 61)->id = 7;
    st_event_t *e = tb_ev(&t, m, ST_EV_THREAD_ACQUIRE_LOCK, 70);
    e->id = 5, e->bytes = 1;
    e = tb_ev(&t, m, ST_EV_THREAD_RELEASE_LOCK, 80);
    e->id = 5, e->bytes = 1;
    tb_ev(&t, m, ST_EV_THREAD_TEAM_END, 90)->id = 7;
    tb_ev(&t, m, ST_EV_THREAD_JOIN, 100)->id = 7;
    tb_ev(&t, w, ST_EV_THREAD_TEAM_BEGIN, 62)->id = 7;
    e = tb_ev(&t, w, ST_EV_THREAD_ACQUIRE_LOCK, 81);
    e->id = 5, e->bytes = 2;
    e = tb_ev(&t, w, ST_EV_THREAD_RELEASE_LOCK, 88);
    e->id = 5, e->bytes = 2;
    tb_ev(&t, w, ST_EV_THREAD_TEAM_END, 95)->id = 7;
    run(&t);
    REQUIRE_TIMES(&t, m, 110, 120, 121, 130, 140, 150, 160);
    REQUIRE_TIMES(&t, w, 122, 142, 149, 156); /* fork + 2; release + 2; then intervals kept */
    REQUIRE_EQ(st.reversed.violated[ST_REL_OMP], 0);
    REQUIRE_EQ(st.reversed.messages[ST_REL_OMP], 3); /* fork -> worker, release -> acquire, worker end -> join */
    REQUIRE_EQ(st.jumps[ST_REL_OMP], 2);
    REQUIRE_EQ(st.jumps[ST_REL_P2P], 1);
    REQUIRE_EQ(st.remaining.violated[ST_REL_OMP] + st.remaining.violated[ST_REL_P2P], 0);
    tb_free(&t);
}

/* A send inside the amortization interval may only move up to its receive - mu. */
static void test_bent_ramp(void)
{
    tb_t t;
    tb_init(&t, 3, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0), c = tb_loc(&t, 2, 0);
    tb_region(&t, a, ST_EV_ENTER, 0, TR_USER);
    tb_send(&t, a, 40, 1, 1);
    tb_region(&t, a, ST_EV_ENTER, 60, TR_USER);
    tb_recv(&t, a, 100, 2, 0, 1);
    tb_recv(&t, b, 52, 0, 1, 1);
    tb_send(&t, c, 130, 0, 0);
    run(&t);
    /* jump 40 at 100, interval [20, 100]; the send at 40 may reach 52 - 10 = 42:
     * ramp (0,0) -> (20,2) -> (80,40): 40 -> 42, 60 -> 60 + 2 + 38*20/60 = 74. */
    REQUIRE_TIMES(&t, a, 0, 42, 74, 140);
    REQUIRE_TIMES(&t, b, 52);
    REQUIRE_EQ(st.ramps, 1);
    REQUIRE_EQ(st.ramps_bent, 1);
    REQUIRE_EQ(st.remaining.violated[ST_REL_P2P], 0);
    tb_free(&t);
}

/* Receives before their own sends on both sides: cyclic, only from inconsistent input. */
static void test_cycle(void)
{
    uint64_t first[4] = { 0 };
    for (int rep = 0; rep < 2; rep++) {
        tb_t t;
        tb_init(&t, 2, 0);
        uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
        tb_recv(&t, a, 10, 1, 0, 1);
        tb_send(&t, a, 20, 1, 0);
        tb_recv(&t, b, 10, 0, 0, 1);
        tb_send(&t, b, 20, 0, 0);
        run(&t);
        REQUIRE(st.unresolved >= 1);
        REQUIRE(T(&t, a, 1) > T(&t, a, 0) && T(&t, b, 1) > T(&t, b, 0));
        uint64_t now[4] = { T(&t, a, 0), T(&t, a, 1), T(&t, b, 0), T(&t, b, 1) };
        if (rep)
            REQUIRE(!memcmp(first, now, sizeof now));
        memcpy(first, now, sizeof now);
        tb_free(&t);
    }
}

static void test_no_violation_no_move(void)
{
    tb_t t;
    tb_init(&t, 2, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
    tb_send(&t, a, 100, 1, 0);
    tb_region(&t, a, ST_EV_ENTER, 100, TR_USER); /* equal stamps stay equal */
    tb_recv(&t, b, 200, 0, 0, 1);
    run(&t);
    REQUIRE_TIMES(&t, a, 100, 100);
    REQUIRE_TIMES(&t, b, 200);
    REQUIRE_EQ(st.moved, 0);
    REQUIRE_EQ(st.dev_time[ST_CLC_DEV_EXACT], st.interval_time);
    tb_free(&t);
}

static void test_rankdata(void)
{
    st_rankdata_t rd[3];
    st_thread_data_t th[3];
    st_event_t ev[3][2];
    int32_t world[3] = { 0, 1, 2 };
    st_comm_def_t comm = { .key = 1, .parent = ST_NO_COMM, .flags = ST_COMMF_WORLD, .size = 3, .world = world };
    memset(rd, 0, sizeof rd);
    memset(ev, 0, sizeof ev);
    for (int r = 0; r < 3; r++) {
        th[r] = (st_thread_data_t){ .index = 0, .omp_num = -1, .events = ev[r], .nevents = 2 };
        rd[r] = (st_rankdata_t){ .rank = r, .nranks = 3, .nthreads = 1, .threads = &th[r], .ncomms = 1,
                                 .comms = &comm };
        strcpy(rd[r].nodename, r < 2 ? "node-a" : "node-b");
    }
    /* rank 0 sends to 1 (same node) and 2 (other node) at 100, 101; both receive at 50. */
    ev[0][0] = (st_event_t){ .time = 100, .kind = ST_EV_MPI_SEND, .peer = 1 };
    ev[0][1] = (st_event_t){ .time = 101, .kind = ST_EV_MPI_SEND, .peer = 2 };
    for (int r = 1; r < 3; r++) {
        ev[r][0] = (st_event_t){ .time = 50, .kind = ST_EV_MPI_RECV, .peer = 0, .id = 1 };
        ev[r][1] = (st_event_t){ .time = 60, .kind = ST_EV_ENTER, .region = TR_USER };
    }
    st_rel_input_t in;
    st_rel_graph_t g;
    st_clc_params_t p = tb_params();
    REQUIRE(st_rel_input_from_rankdata(rd, 3, &in) == 0);
    REQUIRE(in.nlocs == 3 && in.nranks == 3 && in.procs[0].node == in.procs[1].node && in.procs[0].node != in.procs[2].node);
    REQUIRE(st_rel_graph_build(&in, &g) == 0);
    REQUIRE(st_clc_run(&p, &in, &g, &st) == 0);
    REQUIRE_EQ(ev[1][0].time, 105); /* intra-node mu 5 */
    REQUIRE_EQ(ev[2][0].time, 111); /* inter-node mu 10 */
    REQUIRE_EQ(in.locs[1].orig[0], 50);
    REQUIRE(ev[1][0].flags & ST_EVF_CLC_MOVED);
    st_rel_graph_free(&g);
    st_rel_input_free(&in);
}

static void emit_count(void *ctx, const char *key, const char *value)
{
    (void)value;
    REQUIRE(!strncmp(key, "clc.", 4));
    ++*(int *)ctx;
}

static void test_emit(void)
{
    int n = 0;
    st_clc_stats_t sum = st;
    st_clc_stats_merge(&sum, &st);
    REQUIRE_EQ(sum.events, 2 * st.events);
    st_clc_stats_emit(&sum, emit_count, &n);
    REQUIRE(n > 30);
}

int main(void)
{
    test_single_message();
    test_chain();
    test_allreduce();
    test_scan();
    test_hybrid();
    test_bent_ramp();
    test_cycle();
    test_no_violation_no_move();
    test_rankdata();
    test_emit();
    printf("test_clc_run: ok\n");
    return 0;
}
