/*
 * test_rootcause.c — the root-cause replay (st_rc_run, src/analysis/rc_*.c) on synthetic timelines
 * with hand-computed answers (docs/analysis.md, "Root causes"): a Late Sender charged to the sender's
 * excess in solve (direct); a chain 2 -> 1 -> 0 (long-term cost on location 2, the middle wait
 * propagating, the last terminal and indirect); the same chain with a partial scale; a barrier of 3
 * charged to the last arriver, tied last arrivers; Late Broadcast to the root and Early Reduce to the
 * last sender; idleness charged to the master's serial time and an OpenMP barrier to the slow thread;
 * the critical path (through the slow location's solve, adding up to the run's length) and its
 * imbalance metrics; no waits (nothing charged, the path on the last location to finalize); a wait
 * with nothing to charge (S + W_D == 0); Late Receiver charged up to the receive's post; a chain over
 * 40 locations (every wait charged in full, long-term costs k * w_k); propagation from a barrier wait
 * through a Late Sender (long-term barrier cost); the same values bit for bit whatever the cnode numbering;
 * adversarial timelines (a call completing a message and a collective, MPI_Sendrecv, a collective with
 * two calls on one location, receives waiting for each other at the same moment, profiles that do not
 * fit their segments, overlapping calls, no locations); a timeline that does not fit its result. Every result also passes st_an_check_tree (check.c: a parent
 * holds its children, the critical path adds up to the run's length).
 */
/* link: src/analysis/rc_replay.c src/analysis/rc_index.c src/analysis/rc_causes.c src/analysis/rc_cpath.c src/analysis/rc_common.c src/analysis/rc_build.c src/analysis/rc_build_loc.c src/analysis/rc_pack.c src/config/config.c src/util/archive_dir.c src/analysis/analysis.c src/analysis/check.c src/analysis/p2p.c src/analysis/rma_pscw.c src/analysis/rma_lock.c src/analysis/call_kinds.c src/analysis/latesender.c src/analysis/coll.c src/analysis/coll_waits.c src/analysis/omp.c src/analysis/tree.c src/analysis/icoll.c src/analysis/output.c src/util/json.c src/util/fileio.c src/analysis/cube.c src/analysis/callpath.c src/analysis/source.c src/model/callpath.c src/analysis/parallel.c src/analysis/rc_dist.c src/analysis/rc_dist_flow.c src/analysis/rc_dist_sweep.c src/analysis/rc_dist_walk.c src/analysis/rc_dist_pairs.c src/util/u64map.c src/analysis/rc_dist_collect.c src/analysis/rc_dist_part.c src/analysis/coll_reduce.c src/analysis/p2p_wire.c src/exchange/exchange.c src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/stats.c src/model/region.c src/util/log.c */
#include "test_rc_lib.h"
#include "test_rc_scen.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

/* ---- the tests ------------------------------------------------------------------------------------ */

static void test_late_sender(void)
{
    scen_late_sender();
    run(0);
    expect_up(ST_AN_M_DELAY_LS, C_SOLVE, 1, 300);
    EQ(total(ST_AN_M_DELAY), 300); /* nothing else charged (Wait at Finalize has no delay cost) */
    expect_up(ST_AN_M_WAIT_DIRECT_LS, C_RECV, 0, 300);
    expect_up(ST_AN_M_WAIT_TERM_LS, C_RECV, 0, 300);
    const int listed[] = { ST_AN_M_DELAY, ST_AN_M_DELAY_MPI, ST_AN_M_DELAY_P2P, ST_AN_M_DELAY_LS_AGGR,
                           ST_AN_M_DELAY_LS, ST_AN_M_WAIT_DI, ST_AN_M_WAIT_DIRECT, ST_AN_M_WAIT_DIRECT_LS,
                           ST_AN_M_WAIT_PT, ST_AN_M_WAIT_TERM, ST_AN_M_WAIT_TERM_LS, ST_AN_M_CRITICAL_PATH,
                           ST_AN_M_CP_IMBALANCE, ST_AN_M_PERF_IMPACT, ST_AN_M_PERF_IMPACT_CP, ST_AN_M_CP_ACTIVITIES,
                           ST_AN_M_CP_IMBALANCE_IMPACT, ST_AN_M_INTRA_PARTITION, ST_AN_M_INTER_PARTITION,
                           ST_AN_M_NON_CP_ACTIVITIES };
    expect_zero_but(listed, sizeof listed / sizeof listed[0]);
    REQUIRE(CZ.n == 1);
    EXPECT(cause(ST_AN_M_LATESENDER, C_RECV, 1, C_SOLVE) && CZ.v[0].short_ticks == 300 && CZ.v[0].long_ticks == 0);
    const struct st_rc_prop *p = prop(ST_AN_M_LATESENDER, C_RECV);
    EXPECT(CZ.nprop == 1 && p && p->wait == 300 && p->propagating == 0);

    /* (f) the critical path: all on the sender (the last to enter MPI_Finalize), through its solve */
    expect_path_covers(0, 1430);
    EXPECT(CZ.npath == 1 && CZ.path[0].loc == 1);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SOLVE, 1), 1300);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_MAIN, 1), 100);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SEND, 1), 10);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_INIT, 1), 10);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_FIN, 1), 10);
    /* T(solve) = 1000, 1300: mean 1150; imbalance = 1300 * (1300 - 1150) / 1300 */
    EQ(V(ST_AN_M_CP_IMBALANCE, C_SOLVE, 1), 150);
    EQ(V(ST_AN_M_CP_IMBALANCE, C_SEND, 1), 5); /* T(send) = 0, 10 */
    EQ(V(ST_AN_M_CP_IMBALANCE, C_MAIN, 1), 0);
    EQ(V(ST_AN_M_CP_ACTIVITIES, C_SOLVE, 0), 1000);
    EQ(V(ST_AN_M_CP_ACTIVITIES, C_SOLVE, 1), 1300);
    EQ(V(ST_AN_M_CP_ACTIVITIES, C_FIN, 0), 10); /* 15 less the wait at Finalize */
    EQ(V(ST_AN_M_NON_CP_ACTIVITIES, C_RECV, 0), 5); /* not on the path: 305 less the wait */
    EQ(total(ST_AN_M_NON_CP_ACTIVITIES), 5);
    /* location 0's excess: solve 300, send 10; its waiting (300 + 5) mapped onto them, then onto the
     * path's locations (all 1) */
    EQ(V(ST_AN_M_CP_IMBALANCE_IMPACT, C_SOLVE, 1), 300.0 * 305 / 310);
    EQ(V(ST_AN_M_CP_IMBALANCE_IMPACT, C_SEND, 1), 10.0 * 305 / 310);
    EQ(total(ST_AN_M_CP_IMBALANCE_IMPACT), 305);
    /* location 0 never sends: the path's 10 there less its own excess (5 at MPI_Recv, on no path) is
     * headroom, 5, another partition's; the rest within the partition */
    EQ(V(ST_AN_M_INTER_PARTITION, C_SEND, 1), 5);
    EQ(V(ST_AN_M_INTRA_PARTITION, C_SEND, 1), 10.0 * 305 / 310 - 5);
    EQ(V(ST_AN_M_INTRA_PARTITION, C_SOLVE, 1), 300.0 * 305 / 310);
    EQ(total(ST_AN_M_INTER_PARTITION), 5);
    /* each location's resources: its time, its waiting through the impact */
    EQ(total(ST_AN_M_PERF_IMPACT), 2 * 1430);
}

static void test_chain(void)
{
    scen_chain();
    run(0);
    /* 1's wait (300, delayer 2's send after its solve 1300 vs 1000): short-term 300; 0's wait (delayer
     * 1's send, no excess, W_D = 300, scale 1) passes 300 on to 1's wait: long-term 300 */
    EQ(V(ST_AN_M_DELAY_LS, C_SOLVE, 2), 300);
    EQ(V(ST_AN_M_DELAY_LS_LT, C_SOLVE, 2), 300);
    EQ(V(ST_AN_M_DELAY_LS_AGGR, C_SOLVE, 2), 600);
    EQ(V(ST_AN_M_DELAY, C_SOLVE, 2), 600);
    EQ(total(ST_AN_M_DELAY), 600);
    EXPECT(V(ST_AN_M_DELAY, C_SOLVE, 1) == 0 && V(ST_AN_M_DELAY, C_RECV, 1) == 0);
    /* the middle wait propagating and direct, the last terminal and indirect (scale * W_D = 300) */
    expect_up(ST_AN_M_WAIT_PROP_LS, C_RECV, 1, 300);
    EXPECT(V(ST_AN_M_WAIT_TERM, C_RECV, 1) == 0);
    expect_up(ST_AN_M_WAIT_DIRECT_LS, C_RECV, 1, 300);
    expect_up(ST_AN_M_WAIT_TERM_LS, C_RECV, 0, 300);
    EXPECT(V(ST_AN_M_WAIT_PROP, C_RECV, 0) == 0);
    expect_up(ST_AN_M_WAIT_INDIRECT_LS, C_RECV, 0, 300);
    EXPECT(V(ST_AN_M_WAIT_DIRECT, C_RECV, 0) == 0);
    /* the causes of Late Sender at MPI_Recv: 2's solve, 300 directly (1's wait) and 300 through 1 (0's) */
    REQUIRE(CZ.n == 1);
    EXPECT(cause(ST_AN_M_LATESENDER, C_RECV, 2, C_SOLVE) && CZ.v[0].short_ticks == 300 && CZ.v[0].long_ticks == 300);
    const struct st_rc_prop *p = prop(ST_AN_M_LATESENDER, C_RECV);
    EXPECT(p && p->wait == 600 && p->propagating == 300);

    /* (f) from 1 (the first of the last two to enter MPI_Finalize) back to its receive, where 2's send
     * began when it left: on to 2 at 1310, through its solve */
    expect_path_covers(0, 1430);
    REQUIRE(CZ.npath == 2);
    EXPECT(CZ.path[0].loc == 1 && CZ.path[0].t0 == 1310 && CZ.path[1].loc == 2);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SOLVE, 2), 1300);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_INIT, 2), 10);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SEND, 1), 10);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_MAIN, 1), 100);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_FIN, 1), 10);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_RECV, 1), 0);
    EQ(total(ST_AN_M_CRITICAL_PATH), 1430);
    /* T(solve) = 1000, 1000, 1300: mean 1100; imbalance = 1300 * 200 / 1300 */
    EQ(V(ST_AN_M_CP_IMBALANCE, C_SOLVE, 2), 200);
    EQ(total(ST_AN_M_PERF_IMPACT), 3 * 1430);
}

static void test_chain_partial(void)
{
    scen_chain_partial();
    run(0);
    /* 0's wait 200: S = 100 (1's serial), W_D = 300, scale = 1/2 */
    expect_up(ST_AN_M_DELAY_LS, C_SERIAL, 1, 50);
    EQ(V(ST_AN_M_WAIT_INDIRECT_LS, C_RECV, 0), 150);
    EQ(V(ST_AN_M_WAIT_DIRECT_LS, C_RECV, 0), 50);
    EQ(V(ST_AN_M_WAIT_DI, C_RECV, 0), 200);
    /* 1's wait 300 on 2's solve (scale 1), with R = 150 passed on from 0's */
    EQ(V(ST_AN_M_DELAY_LS, C_SOLVE, 2), 300);
    EQ(V(ST_AN_M_DELAY_LS_LT, C_SOLVE, 2), 150);
    EQ(total(ST_AN_M_DELAY), 500);
    EQ(V(ST_AN_M_WAIT_PROP_LS, C_RECV, 1), 150);
    EQ(V(ST_AN_M_WAIT_TERM_LS, C_RECV, 1), 150);
    EQ(V(ST_AN_M_WAIT_TERM_LS, C_RECV, 0), 200);
    REQUIRE(CZ.n == 2); /* the larger cause first */
    EXPECT(CZ.v[0].delay_loc == 2 && CZ.v[0].delay_cnode == cmap[C_SOLVE] && CZ.v[0].short_ticks == 300 &&
           CZ.v[0].long_ticks == 150);
    EXPECT(CZ.v[1].delay_loc == 1 && CZ.v[1].delay_cnode == cmap[C_SERIAL] && CZ.v[1].short_ticks == 50 &&
           CZ.v[1].long_ticks == 0);
    const struct st_rc_prop *p = prop(ST_AN_M_LATESENDER, C_RECV);
    EXPECT(p && p->wait == 500 && p->propagating == 150);
    /* the path: 0 (first of three to finalize at 1520), back to 1's send at 1410, 2's send at 1310 */
    expect_path_covers(0, 1530);
    REQUIRE(CZ.npath == 3);
    EXPECT(CZ.path[0].loc == 0 && CZ.path[0].t0 == 1410 && CZ.path[1].loc == 1 && CZ.path[1].t0 == 1310 &&
           CZ.path[2].loc == 2);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_RECV, 0), 5);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SERIAL, 1), 100);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SOLVE, 2), 1300);
}

static void test_barrier(void)
{
    scen_barrier(0);
    run(0);
    /* 0 waits 200 (2's solve 200 over its 0), 1 waits 50 (200 over 150): both on 2's solve */
    expect_up(ST_AN_M_DELAY_BARRIER, C_SOLVE, 2, 250);
    EQ(total(ST_AN_M_DELAY), 250);
    EQ(total(ST_AN_M_WAIT_DI) + total(ST_AN_M_WAIT_PT), 0); /* point-to-point only */
    EXPECT(CZ.n == 1 && cause(ST_AN_M_BARRIER_WAIT, C_BARRIER, 2, C_SOLVE));
    expect_path_covers(0, 325);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_BARRIER, 0), 5);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SOLVE, 2), 200);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_WORK, 2), 100);

    /* tied last arrivers (1 and 2 at 310): the smaller location is the delayer */
    scen_barrier(1);
    run(0);
    expect_up(ST_AN_M_DELAY_BARRIER, C_SOLVE, 1, 200);
    EQ(total(ST_AN_M_DELAY), 200);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SOLVE, 1), 200);
}

static void test_rooted(void)
{
    scen_rooted(0);
    run(0);
    expect_up(ST_AN_M_DELAY_12N, C_SOLVE, 0, 400);
    EQ(total(ST_AN_M_DELAY), 400);
    expect_path_covers(0, 325);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SOLVE, 0), 200);

    /* Early Reduce: the root waits 80 for 2, the last sender, which worked 80 after the broadcast
     * (the interval starts at the broadcast both took part in) */
    scen_rooted(1);
    run(0);
    expect_up(ST_AN_M_DELAY_N21, C_WORK, 2, 80);
    expect_up(ST_AN_M_DELAY_12N, C_SOLVE, 0, 400);
    EQ(total(ST_AN_M_DELAY), 480);
    /* the path: 0's reduce back to 2 at 395, 2's broadcast back to 0 at 310 */
    expect_path_covers(0, 420);
    REQUIRE(CZ.npath == 3);
    EXPECT(CZ.path[0].loc == 0 && CZ.path[1].loc == 2 && CZ.path[2].loc == 0);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_WORK, 2), 80);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_BCAST, 2), 5);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_REDUCE, 0), 15);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SOLVE, 0), 200);
}

static void test_omp(void)
{
    scen_omp();
    run(1);
    /* the worker's idleness (100) on the master's serial time before the fork */
    expect_up(ST_AN_M_DELAY_OMPIDLE, C_SERIAL, 0, 60);
    expect_up(ST_AN_M_DELAY_OMPIDLE, C_MAIN, 0, 40);
    /* the master's barrier wait (50) on the worker's longer loop */
    expect_up(ST_AN_M_DELAY_OMPBARRIER, C_PAR, 1, 50);
    EQ(total(ST_AN_M_DELAY), 150);
    EQ(total(ST_AN_M_DELAY_MPI), 0);
    EXPECT(cause(ST_AN_M_OMP_IDLE, C_MAIN, 0, C_SERIAL) && cause(ST_AN_M_OMP_IBARRIER_WAIT, C_IBAR, 1, C_PAR));
    /* the path: no MPI_Finalize, so from the first location with the last event (0), to the worker
     * at the barrier, back to the master at the fork */
    expect_path_covers(0, 300);
    REQUIRE(CZ.npath == 3);
    EXPECT(CZ.path[0].loc == 0 && CZ.path[1].loc == 1 && CZ.path[2].loc == 0 && CZ.path[1].t0 == 100);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_PAR, 1), 150);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SERIAL, 0), 60);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_MAIN, 0), 90);
    /* T(par) = 100, 150: imbalance 150 * (150 - 125) / 150; the worker's idle time is no activity */
    EQ(V(ST_AN_M_CP_IMBALANCE, C_PAR, 1), 25);
    EQ(V(ST_AN_M_CP_ACTIVITIES, C_PAR, 0), 100);
    EQ(V(ST_AN_M_CP_ACTIVITIES, C_MAIN, 1), 0);
    EQ(total(ST_AN_M_NON_CP_ACTIVITIES), 0);
    /* the master's barrier wait (50) onto the worker's loop, the worker's idleness (150) onto the
     * master's serial 60 and main 90 */
    EQ(V(ST_AN_M_CP_IMBALANCE_IMPACT, C_PAR, 1), 50);
    EQ(V(ST_AN_M_CP_IMBALANCE_IMPACT, C_SERIAL, 0), 60);
    EQ(V(ST_AN_M_CP_IMBALANCE_IMPACT, C_MAIN, 0), 90);
    /* the worker never runs the master's serial code (another partition): its idleness is inter-partition;
     * the master's barrier wait on the worker's longer loop is within the partition of the loop */
    EQ(V(ST_AN_M_INTER_PARTITION, C_SERIAL, 0), 60);
    EQ(V(ST_AN_M_INTER_PARTITION, C_MAIN, 0), 90);
    EQ(V(ST_AN_M_INTRA_PARTITION, C_PAR, 1), 50);
    EQ(total(ST_AN_M_INTRA_PARTITION), 50);
    EQ(total(ST_AN_M_INTER_PARTITION), 150);
    EQ(total(ST_AN_M_PERF_IMPACT), 2 * 300);
}

static void test_partitions(void)
{
    scen_partitions();
    run(0);
    /* the path: 0 (first of four to finalize) back to its barrier, on to 1 (the last arriver) at 410 */
    expect_path_covers(0, 425);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SOLVE, 1), 400);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_BARRIER, 0), 5);
    /* waits: 0 100, 2 and 3 200 each. Excess CP - T at solve: 100 on 0, 400 on 2 and 3 (never solve),
     * all of each location's waiting mapped there: 500 onto the path's solve (on 1) */
    EQ(V(ST_AN_M_CP_IMBALANCE_IMPACT, C_SOLVE, 1), 500);
    EQ(total(ST_AN_M_CP_IMBALANCE_IMPACT), 500);
    /* 2 and 3 never solve: headroom 400 - 200 (their work, on no path) = 200 each, inter-partition; 0's
     * 100 (it solves, less than 1) within the partition */
    EQ(V(ST_AN_M_INTER_PARTITION, C_SOLVE, 1), 400);
    EQ(V(ST_AN_M_INTRA_PARTITION, C_SOLVE, 1), 100);
    EQ(total(ST_AN_M_INTER_PARTITION), 400);
    EQ(total(ST_AN_M_INTRA_PARTITION), 100);
    EQ(V(ST_AN_M_PERF_IMPACT_CP, C_SOLVE, 1), 400 + 500);
    /* an imbalance within the other partition, off the path: 2 works 300 and waits 100; its headroom
     * 400 - 300 = 100, 3's still 200: inter-partition 300 of the impact's 400, 0's 100 within */
    L[2].prof[L[2].calls[1].prof_at].ticks = 300;
    L[2].calls[1].enter = 310, L[2].waits[0].ticks = 100;
    run(0);
    EQ(V(ST_AN_M_CP_IMBALANCE_IMPACT, C_SOLVE, 1), 400);
    EQ(V(ST_AN_M_INTER_PARTITION, C_SOLVE, 1), 300);
    EQ(V(ST_AN_M_INTRA_PARTITION, C_SOLVE, 1), 100);
}

static void test_no_waits(void)
{
    scen_no_waits();
    run(0);
    EQ(total(ST_AN_M_DELAY) + total(ST_AN_M_WAIT_DI) + total(ST_AN_M_WAIT_PT), 0);
    EXPECT(CZ.n == 0 && CZ.nprop == 0);
    /* all on 1 (the last to enter MPI_Finalize), before its first and after its last event at the root */
    expect_path_covers(0, 500);
    EXPECT(CZ.npath == 1 && CZ.path[0].loc == 1);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_WORK, 1), 380);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_FIN, 1), 80);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_ROOT, 1), 40);
    /* T(work) = 300, 380; T(fin) = 200, 80 */
    EQ(V(ST_AN_M_CP_ACTIVITIES, C_FIN, 0), 80);
    EQ(V(ST_AN_M_NON_CP_ACTIVITIES, C_FIN, 0), 120);
    EQ(V(ST_AN_M_CP_IMBALANCE, C_WORK, 1), 380.0 * 40 / 380);
}

static void test_nothing_to_charge(void)
{
    scen_nothing_to_charge();
    run(0);
    EQ(total(ST_AN_M_DELAY), 0);
    expect_up(ST_AN_M_WAIT_DIRECT_LS, C_RECV, 0, 50); /* all direct: nothing passed on */
    expect_up(ST_AN_M_WAIT_TERM_LS, C_RECV, 0, 50);
    EXPECT(CZ.n == 0);
    expect_path_covers(0, 200);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_INIT, 1), 60);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_RECV, 0), 5);
}

static void scen_barrier_plain(void) { scen_barrier(0); }
static void scen_bcast_reduce(void) { scen_rooted(1); }

/* Late Receiver: a synchronous send waits 190 for the receive's post (MPI_Irecv at 300), completed
 * later in MPI_Wait: the post is the delayer, so the receiver's solve before it is charged (not its
 * work between post and completion). Then the same with a blocking receive (no separate post). */
static void test_late_receiver(void)
{
    for (int blocking = 0; blocking < 2; blocking++) {
        mpi_init(2, 500);
        tl_seg(0, C_SOLVE, 100);
        tl_call(0, 110, 311, C_SEND, 0), tl_wait(0, ST_AN_M_LATERECEIVER, 190), tl_send(0, 0, 1, 0);
        tl_seg(0, C_MAIN, 179);
        tl_seg(1, C_SOLVE, 290);
        if (blocking) {
            tl_call(1, 300, 402, C_RECV, 0), tl_rel(1, ST_REL_KEY_P2P, (uint64_t)0 << 32 | 1, 0, ST_RC_RECEIVES);
        } else {
            tl_call(1, 300, 301, C_RECV, 0), tl_rel(1, ST_REL_KEY_P2P, (uint64_t)0 << 32 | 1, 0, ST_RC_POSTS);
            tl_seg(1, C_WORK, 99);
            tl_call(1, 400, 402, C_RECV, 0), tl_rel(1, ST_REL_KEY_P2P, (uint64_t)0 << 32 | 1, 0, ST_RC_RECEIVES);
        }
        tl_seg(1, C_MAIN, 88);
        mpi_finalize(0, 490, 500, 0), mpi_finalize(1, 490, 500, 0);
        tl_end();
        run(0);
        expect_up(ST_AN_M_DELAY_LR, C_SOLVE, 1, 190);
        EQ(total(ST_AN_M_DELAY), 190);
        expect_up(ST_AN_M_WAIT_DIRECT_LR, C_SEND, 0, 190);
        expect_up(ST_AN_M_WAIT_TERM_LR, C_SEND, 0, 190);
        EQ(V(ST_AN_M_CRITICAL_PATH, C_SOLVE, 1), 290);
    }
}

/* A chain over 40 locations: 39 computes T more and sends to 38, each receives (1 tick in the call
 * after the wait) and passes on, so wait k is T + 38 - k. Wait k's delay is the 1 tick in 39's.. k+1's
 * receive (short-term) and R_k = k * w_k passed on; all 39 waits end at 39's solve: T short-term and
 * 38 T long-term; location k + 1's receive gets 1 short-term and k long-term. */
static void test_long_chain(void)
{
    enum { N = 40, T = 1000 };
    const uint64_t F = 110 + T + N + 5;
    mpi_init(N, F + 10);
    tl_seg(N - 1, C_SOLVE, 100 + T);
    tl_call(N - 1, 110 + T, 111 + T, C_SEND, 0), tl_send(N - 1, N - 1, N - 2, 0);
    tl_seg(N - 1, C_MAIN, F - 111 - T);
    for (uint32_t k = 0; k + 1 < N; k++) {
        uint64_t s = 110 + T + (N - 2 - k); /* when k + 1 sends */
        tl_seg(k, C_SOLVE, 100);
        tl_call(k, 110, s + 1, C_RECV, 0), tl_wait(k, ST_AN_M_LATESENDER, (double)(s - 110)), tl_recv(k, k + 1, k, 0);
        if (k) {
            tl_call(k, s + 1, s + 2, C_SEND, 0), tl_send(k, k, k - 1, 0);
            tl_seg(k, C_MAIN, F - s - 2);
        } else
            tl_seg(k, C_MAIN, F - s - 1);
    }
    for (uint32_t l = 0; l < N; l++)
        mpi_finalize(l, F, F + 10, 0);
    tl_end();
    run(0);
    EQ(V(ST_AN_M_DELAY_LS, C_SOLVE, N - 1), T);
    EQ(V(ST_AN_M_DELAY_LS_LT, C_SOLVE, N - 1), (N - 2) * T);
    for (uint32_t k = 0; k + 2 < N; k++) {
        EQ(V(ST_AN_M_DELAY_LS, C_RECV, k + 1), 1);
        EQ(V(ST_AN_M_DELAY_LS_LT, C_RECV, k + 1), k);
        EQ(V(ST_AN_M_WAIT_INDIRECT_LS, C_RECV, k), T + N - 3 - k);
        EQ(V(ST_AN_M_WAIT_DIRECT_LS, C_RECV, k), 1);
        EQ(V(ST_AN_M_WAIT_PROP_LS, C_RECV, k), k ? T + N - 2 - k : 0);
    }
    EQ(V(ST_AN_M_WAIT_DIRECT_LS, C_RECV, N - 2), T);
    EQ(V(ST_AN_M_WAIT_PROP_LS, C_RECV, N - 2), T);
    /* nothing lost: every wait charged in full */
    EQ(total(ST_AN_M_DELAY), (N - 1) * T + (N - 1) * (N - 2) / 2);
    const st_rc_cause_t *c = cause(ST_AN_M_LATESENDER, C_RECV, N - 1, C_SOLVE);
    EXPECT(c && fabs(c->short_ticks - T) < 1e-6 && fabs(c->long_ticks - (N - 2) * T) < 1e-6);
    expect_path_covers(0, F + 10);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_SOLVE, N - 1), 100 + T);
}

/* Propagation across kinds: 1 waits T for 2's solve (Late Sender), then 0 waits T + 2 for 1 at a
 * barrier of the two: the barrier wait's share passed on to 1's Late Sender ends at 2's solve as
 * long-term barrier cost, and is a cause of the barrier wait. */
static void test_cross_kinds(void)
{
    enum { T = 500 };
    const uint64_t F = 120 + T;
    mpi_init(3, F + 10);
    tl_seg(2, C_SOLVE, 100 + T);
    tl_call(2, 110 + T, 111 + T, C_SEND, 0), tl_send(2, 2, 1, 0);
    tl_seg(2, C_MAIN, F - 111 - T);
    tl_seg(1, C_SOLVE, 100);
    tl_call(1, 110, 111 + T, C_RECV, 0), tl_wait(1, ST_AN_M_LATESENDER, T), tl_recv(1, 2, 1, 0);
    tl_seg(1, C_MAIN, 1);
    tl_call(1, 112 + T, 113 + T, C_BARRIER, 0), tl_rel(1, ST_REL_KEY_COLL, 1, 8, ST_RC_SENDS | ST_RC_RECEIVES);
    tl_seg(1, C_MAIN, F - 113 - T);
    tl_seg(0, C_SOLVE, 100);
    tl_call(0, 110, 113 + T, C_BARRIER, 0), tl_wait(0, ST_AN_M_BARRIER_WAIT, T + 2);
    tl_rel(0, ST_REL_KEY_COLL, 1, 8, ST_RC_SENDS | ST_RC_RECEIVES);
    tl_seg(0, C_MAIN, F - 113 - T);
    for (uint32_t l = 0; l < 3; l++)
        mpi_finalize(l, F, F + 10, 0);
    tl_end();
    run(0);
    /* the barrier wait: S = 2 (1's receive 1, main 1), W_D = T, scale 1 */
    EQ(V(ST_AN_M_DELAY_BARRIER, C_RECV, 1), 1);
    EQ(V(ST_AN_M_DELAY_BARRIER, C_MAIN, 1), 1);
    EQ(V(ST_AN_M_DELAY_LS, C_SOLVE, 2), T);
    EQ(V(ST_AN_M_DELAY_BARRIER_LT, C_SOLVE, 2), T);
    EQ(V(ST_AN_M_DELAY_COLL, C_SOLVE, 2), T);
    EQ(V(ST_AN_M_DELAY_P2P, C_SOLVE, 2), T);
    EQ(V(ST_AN_M_DELAY, C_SOLVE, 2), 2 * T);
    EQ(total(ST_AN_M_DELAY), 2 * T + 2);
    EQ(V(ST_AN_M_WAIT_PROP_LS, C_RECV, 1), T); /* it made 0 wait at the barrier */
    const st_rc_cause_t *c = cause(ST_AN_M_BARRIER_WAIT, C_BARRIER, 2, C_SOLVE);
    EXPECT(c && c->short_ticks == 0 && fabs(c->long_ticks - T) < 1e-9);
    c = cause(ST_AN_M_LATESENDER, C_RECV, 2, C_SOLVE);
    EXPECT(c && c->short_ticks == T && c->long_ticks == 0);
}

/* ---- adversarial timelines ------------------------------------------------------------------------ */

/* A Late Sender at a call that also completed a collective (a nonblocking barrier) whose latest member
 * entered after the sender: the sender is the delayer (the message's relation, not the collective's). */
static void test_mixed_relations(void)
{
    scen_mixed_relations();
    run(0);
    expect_up(ST_AN_M_DELAY_LS, C_SOLVE, 1, 200);
    EQ(total(ST_AN_M_DELAY), 200);
}

/* A receive whose message the sender sent from a MPI_Sendrecv that also received this location's
 * earlier message: that earlier send shares a relation with the delayer call itself, not with a call
 * before it, so the interval starts at MPI_Init (and the sender's 250 more in solve is charged). */
static void test_sendrecv(void)
{
    scen_sendrecv();
    run(0);
    /* delta_W: solve 150, send 2; delta_D: solve 400; d(solve) = 250, scale = 248 / 250 */
    expect_up(ST_AN_M_DELAY_LS, C_SOLVE, 1, 248);
    EQ(total(ST_AN_M_DELAY), 248);
}

/* A collective of 10 members (its best ends kept per key) in which location 9 has two calls, both later
 * than the other members: a wait at its earlier one (a clock artifact) is delayed by location 8, the
 * latest member on another location (d(work) = 180 - 100, scale 40 / 80). */
static void test_collective_two_ends(void)
{
    mpi_init(10, 515);
    for (uint32_t l = 0; l < 9; l++) {
        tl_seg(l, C_WORK, 100 + 10 * l);
        tl_call(l, 110 + 10 * l, 505, C_BARRIER, 0), tl_rel(l, ST_REL_KEY_COLL, 4, 3, ST_RC_SENDS | ST_RC_RECEIVES);
    }
    tl_seg(9, C_WORK, 100), tl_seg(9, C_SERIAL, 90);
    tl_call(9, 200, 245, C_BARRIER, 0), tl_wait(9, ST_AN_M_BARRIER_WAIT, 40);
    tl_rel(9, ST_REL_KEY_COLL, 4, 3, ST_RC_SENDS | ST_RC_RECEIVES);
    tl_seg(9, C_WORK, 255);
    tl_call(9, 500, 505, C_BARRIER, 0), tl_rel(9, ST_REL_KEY_COLL, 4, 3, ST_RC_SENDS | ST_RC_RECEIVES);
    for (uint32_t l = 0; l < 10; l++)
        mpi_finalize(l, 505, 515, 0);
    tl_end();
    run(0);
    expect_up(ST_AN_M_DELAY_BARRIER, C_WORK, 8, 40);
    EQ(total(ST_AN_M_DELAY), 40);
}

/* Two receives that wait for each other's location at the same moment (a clock artifact): the path
 * goes from 0 to 1 at 20 and does not return to 0 at 20 (it would go round for ever). */
static void test_cycle(void)
{
    scen_cycle();
    run(0);
    expect_path_covers(0, 30);
    REQUIRE(CZ.npath == 2);
    EXPECT(CZ.path[0].loc == 0 && CZ.path[0].t0 == 20 && CZ.path[1].loc == 1);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_FIN, 0), 10);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_RECV, 1), 15);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_MAIN, 1), 5);
    /* 1's wait (15, tied with 0's, processed first: it left as late, and is on the larger location):
     * S = 5 (0's main 10 over 5), W_D = 10 */
    expect_up(ST_AN_M_DELAY_LS, C_MAIN, 0, 5);
    EQ(total(ST_AN_M_DELAY), 5);
}

/* Profiles longer and shorter than their segments, overlapping calls, a worker's idle stretch before
 * its first event: the path still adds up to the run's length in whole ticks. */
static void test_inconsistent(void)
{
    tl_reset(2);
    tl_loc(0, 0, 100), tl_loc(1, 50, 100);
    tl_seg(0, C_MAIN, 30), tl_seg(0, C_SOLVE, 7); /* [0, 20) */
    tl_call(0, 20, 40, C_RECV, 0);
    tl_seg(0, C_MAIN, 5); /* [40, 60) */
    tl_call(0, 60, 80, C_SEND, 0);
    tl_call(0, 70, 90, C_SEND, 0), tl_rel(0, ST_REL_KEY_OMP_FORK, 1, 0, ST_RC_SENDS);
    tl_seg(0, C_MAIN, 33), tl_seg(0, C_WORK, 17); /* [90, 100) */
    tl_call(1, 0, 75, C_MAIN, ST_RC_IDLE), tl_wait(1, ST_AN_M_OMP_IDLE, 75);
    tl_rel(1, ST_REL_KEY_OMP_FORK, 1, 0, ST_RC_RECEIVES);
    tl_seg(1, C_PAR, 3);
    tl_call(1, 78, 100, C_IBAR, 0);
    tl_end();
    make_result(1);
    REQUIRE(st_rc_run(&R, &in, &CZ) == 0);
    EXPECT(total(ST_AN_M_CRITICAL_PATH) == 100, "%.17g", total(ST_AN_M_CRITICAL_PATH));
    for (int c = 0; c < NC; c++)
        for (uint32_t l = 0; l < 2; l++)
            EXPECT(V(ST_AN_M_CRITICAL_PATH, c, l) == floor(V(ST_AN_M_CRITICAL_PATH, c, l)));
    expect_path_covers(0, 100);
    /* the tail [90, 100): main 33 and work 17 scaled to 10 (floors 6 and 3, the rest 1 at the root) */
    EQ(V(ST_AN_M_CRITICAL_PATH, C_WORK, 0) + V(ST_AN_M_CRITICAL_PATH, C_WORK, 1), 3);
}

/* A location without events (no calls, first and last 0) does not stretch the run back to 0; a second
 * replay of the same result gives the same values (not twice them). */
static void test_empty_location_and_rerun(void)
{
    tl_reset(3);
    for (uint32_t l = 0; l < 2; l++) {
        tl_loc(l, 1000, 1100);
        tl_seg(l, C_WORK, 50 + 20 * l);
        mpi_finalize(l, 1050 + 20 * l, 1100, 0);
    }
    tl_end();
    run(0);
    expect_path_covers(1000, 1100);
    EQ(V(ST_AN_M_CRITICAL_PATH, C_WORK, 1), 70);
    st_rc_causes_free(&CZ); /* (st_rc_run fills it anew) */
    REQUIRE(st_rc_run(&R, &in, &CZ) == 0);
    EQ(total(ST_AN_M_CRITICAL_PATH), 100);
    EQ(V(ST_AN_M_CP_ACTIVITIES, C_WORK, 0), 50);
}

/* No locations at all: nothing, no failure. */
static void test_empty(void)
{
    tl_reset(0);
    make_result(0);
    EXPECT(st_rc_run(&R, &in, &CZ) == 0 && CZ.n == 0 && CZ.npath == 0);
}

/* ---- a timeline that does not fit its result ----------------------------------------------------- */

static void test_bad_timeline(void)
{
    scen_chain();
    make_result(0);
    L[1].calls[1].cnode = NC; /* no such call path */
    fprintf(stderr, "(a warning is expected:)\n");
    EXPECT(st_rc_run(&R, &in, &CZ) == 0);
    for (int m = ST_AN_M_DELAY; m < ST_AN__METRICS; m++)
        EXPECT(total(m) == 0);
    EXPECT(CZ.n == 0 && CZ.npath == 0);
    L[1].calls[1].cnode = cmap[C_RECV];
    L[1].calls[1].nwait = 5; /* waits beyond the location's */
    EXPECT(st_rc_run(&R, &in, &CZ) == 0 && total(ST_AN_M_DELAY) == 0 && total(ST_AN_M_CRITICAL_PATH) == 0);
    L[1].calls[1].nwait = 1;
    in.nlocs = 2; /* not the result's locations */
    EXPECT(st_rc_run(&R, &in, &CZ) == 0 && total(ST_AN_M_CRITICAL_PATH) == 0);
}

int main(void)
{
    alarm(120); /* a critical path that goes round in circles ends the test */
    memcpy(cmap, identity, sizeof cmap);
    test_late_sender();
    test_chain();
    test_chain_partial();
    test_barrier();
    test_rooted();
    test_omp();
    test_partitions();
    test_no_waits();
    test_nothing_to_charge();
    test_late_receiver();
    test_long_chain();
    test_cross_kinds();
    test_numbering(scen_late_sender, 0, "late sender");
    test_numbering(scen_chain, 0, "chain");
    test_numbering(scen_chain_partial, 0, "partial chain");
    test_numbering(scen_barrier_plain, 0, "barrier");
    test_numbering(scen_bcast_reduce, 0, "broadcast and reduce");
    test_numbering(scen_omp, 1, "openmp");
    test_numbering(scen_partitions, 0, "partitions");
    test_mixed_relations();
    test_sendrecv();
    test_collective_two_ends();
    test_cycle();
    test_inconsistent();
    test_empty_location_and_rerun();
    test_empty();
    test_bad_timeline();
    result_free();
    tl_reset(0);
    if (failures)
        return 1;
    printf("test_rootcause: ok\n");
    return 0;
}
