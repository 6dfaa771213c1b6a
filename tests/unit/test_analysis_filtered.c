/*
 * test_analysis_filtered.c — the calls a filter removed in the analysis' call tree (docs/analysis.md,
 * "Filtered calls"), on synthetic traces with hand-computed values: each (location, region) count
 * becomes a child cnode named after the region, with exactly the filtered visits and time; that time
 * is carved out of the exclusive time of the cnode that held it (the largest that can: the root, a
 * function or user region, an OpenMP construct's body; never an MPI call or an OpenMP wait), so the
 * location's Time still adds up to its span (the metric tree's check, check.h) and nothing counts twice;
 * it is MPI time where the region is MPI's.
 */
/* link: src/analysis/analysis.c src/analysis/check.c src/analysis/p2p.c src/analysis/rma_pscw.c src/analysis/rma_lock.c src/analysis/call_kinds.c src/analysis/latesender.c src/analysis/coll.c src/analysis/coll_waits.c src/analysis/omp.c src/analysis/tree.c src/analysis/icoll.c src/analysis/output.c src/util/json.c src/util/fileio.c src/analysis/cube.c src/analysis/callpath.c src/analysis/source.c src/model/callpath.c src/analysis/parallel.c src/analysis/rc_dist.c src/analysis/rc_dist_flow.c src/analysis/rc_dist_sweep.c src/analysis/rc_dist_walk.c src/analysis/rc_dist_pairs.c src/util/u64map.c src/analysis/rc_dist_collect.c src/analysis/rc_dist_part.c src/analysis/coll_reduce.c src/analysis/p2p_wire.c src/analysis/rc_build.c src/analysis/rc_build_loc.c src/analysis/rc_pack.c src/analysis/rc_common.c src/analysis/rc_replay.c src/analysis/rc_index.c src/analysis/rc_causes.c src/analysis/rc_cpath.c src/config/config.c src/util/archive_dir.c src/exchange/exchange.c src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/stats.c src/model/region.c src/util/log.c */
#include "test_clc_lib.h"

#include "../../src/analysis/analysis.h"
#include "../../src/analysis/check.h"
#include "../../src/model/region.h"

enum { INIT = ST_REGION_MPI_Init, SEND = ST_REGION_MPI_Send, RECV = ST_REGION_MPI_Recv, FIN = ST_REGION_MPI_Finalize,
       TSIZE = ST_REGION_MPI_Type_size, CRANK = ST_REGION_MPI_Comm_rank, MAIN = ST_REGION_PROGRAM,
       NONE = UINT32_MAX };

static tb_t t;
static st_rel_graph_t g;
static st_an_result_t R;

static void enter(uint32_t l, uint64_t time, uint32_t region) { tb_region(&t, l, ST_EV_ENTER, time, region); }
static void leave(uint32_t l, uint64_t time, uint32_t region) { tb_region(&t, l, ST_EV_LEAVE, time, region); }
static void region(uint32_t l, uint32_t r, uint64_t t0, uint64_t t1) { enter(l, t0, r), leave(l, t1, r); }

static void analyse(void)
{
    st_rel_input_t in = tb_input(&t);
    REQUIRE(st_rel_graph_build(&in, &g) == 0);
    REQUIRE(st_an_run(&in, &g, &R) == 0);
    char msg[1024];
    size_t bad = st_an_check_tree(&R, 1000000000u, msg, sizeof msg);
    if (bad)
        fprintf(stderr, "%zu violations of the metric tree, the first: %s\n", bad, msg);
    REQUIRE(bad == 0);
}

static void done(void)
{
    st_an_free(&R);
    st_rel_graph_free(&g);
    tb_free(&t);
}

/* The cnode reached from the root through regions r1, r2 (NONE: stop there); NONE if there is none. */
static uint32_t node(uint32_t r1, uint32_t r2)
{
    uint32_t k = 0;
    for (int i = 0; i < 2; i++) {
        uint32_t reg = i ? r2 : r1;
        if (reg == NONE)
            break;
        uint32_t c = R.cnodes[k].first_child;
        while (c != ST_AN_NO_CNODE && R.cnodes[c].region != reg)
            c = R.cnodes[c].next;
        if (c == ST_AN_NO_CNODE)
            return NONE;
        k = c;
    }
    return k;
}

static double at(int m, uint32_t l, uint32_t r1, uint32_t r2)
{
    uint32_t k = node(r1, r2);
    REQUIRE(k != NONE, "no cnode %u/%u", r1, r2);
    return *st_an_sev(&R, m, k, l);
}

/* Time of every cnode of location l together. */
static double time_of(uint32_t l)
{
    double sum = 0;
    for (uint32_t k = 0; k < R.ncnodes; k++)
        sum += *st_an_sev(&R, ST_AN_M_TIME, k, l);
    return sum;
}

/*
 * Two ranks. Rank 0: MPI_Init 0..10, MPI_Send 100..110, MPI_Finalize 990..1000; its filter removed
 * 1000 MPI_Type_size calls (300 ns) and 7 MPI_Comm_rank (20 ns). Rank 1: MPI_Init 0..10, MPI_Recv
 * 50..200 (a Late Sender of 50), MPI_Finalize 990..1000; 5 MPI_Comm_rank (10 ns).
 */
static void test_root(void)
{
    tb_init(&t, 2, 0);
    uint32_t a = tb_loc(&t, 0, 0), b = tb_loc(&t, 1, 0);
    region(a, INIT, 0, 10), region(b, INIT, 0, 10);
    enter(a, 100, SEND);
    st_event_t *e = tb_ev(&t, a, ST_EV_MPI_SEND, 105);
    e->peer = 1, e->bytes = 8;
    leave(a, 110, SEND);
    enter(b, 50, RECV);
    e = tb_ev(&t, b, ST_EV_MPI_RECV, 199);
    e->peer = 0, e->bytes = 8;
    leave(b, 200, RECV);
    region(a, FIN, 990, 1000), region(b, FIN, 990, 1000);
    const st_filtered_sum_t fa[] = { { 0, TSIZE, 1000, 300 }, { 0, CRANK, 7, 20 } }, fb[] = { { 0, CRANK, 5, 10 } };
    t.procs[0].filtered = fa, t.procs[0].nfiltered = 2;
    t.procs[1].filtered = fb, t.procs[1].nfiltered = 1;
    analyse();
    REQUIRE_EQ(at(ST_AN_M_VISITS, a, TSIZE, NONE), 1000);
    REQUIRE_EQ(at(ST_AN_M_TIME, a, TSIZE, NONE), 300);
    REQUIRE_EQ(at(ST_AN_M_VISITS, a, CRANK, NONE), 7);
    REQUIRE_EQ(at(ST_AN_M_TIME, a, CRANK, NONE), 20);
    REQUIRE_EQ(at(ST_AN_M_VISITS, b, CRANK, NONE), 5);
    REQUIRE_EQ(at(ST_AN_M_TIME, b, CRANK, NONE), 10);
    REQUIRE_EQ(at(ST_AN_M_VISITS, b, TSIZE, NONE), 0);
    /* carved out of the root: (1000 - 10 - 10 - 10) - 320 and (1000 - 10 - 150 - 10) - 10 */
    REQUIRE_EQ(at(ST_AN_M_TIME, a, NONE, NONE), 970 - 320);
    REQUIRE_EQ(at(ST_AN_M_TIME, b, NONE, NONE), 830 - 10);
    REQUIRE_EQ(time_of(a), 1000);
    REQUIRE_EQ(time_of(b), 1000);
    /* MPI time, and what the communication gave unchanged */
    REQUIRE_EQ(at(ST_AN_M_MPI, a, TSIZE, NONE), 300);
    REQUIRE_EQ(at(ST_AN_M_LATESENDER, b, RECV, NONE), 50);
    REQUIRE_EQ(at(ST_AN_M_VISITS, a, SEND, NONE), 1);
    done();
}

/*
 * One rank inside main (0..1000, a user region): MPI_Init 10..20, MPI_Finalize 980..990; main's own
 * time is 1000 - 20 = 980, the root's 0. The filter removed 600 ns of MPI_Type_size (3 calls): a
 * child of main, main keeps 380.
 */
static void test_enclosing(void)
{
    tb_init(&t, 1, 0);
    uint32_t a = tb_loc(&t, 0, 0);
    enter(a, 0, MAIN);
    region(a, INIT, 10, 20);
    region(a, FIN, 980, 990);
    leave(a, 1000, MAIN);
    const st_filtered_sum_t fa[] = { { 0, TSIZE, 3, 600 } };
    t.procs[0].filtered = fa, t.procs[0].nfiltered = 1;
    analyse();
    REQUIRE_EQ(node(TSIZE, NONE), NONE);
    REQUIRE_EQ(at(ST_AN_M_VISITS, a, MAIN, TSIZE), 3);
    REQUIRE_EQ(at(ST_AN_M_TIME, a, MAIN, TSIZE), 600);
    REQUIRE_EQ(at(ST_AN_M_TIME, a, MAIN, NONE), 980 - 600);
    REQUIRE_EQ(time_of(a), 1000);
    done();
}

/*
 * More filtered time than the root and main hold (only when clocks disagree): the largest first,
 * then the next; what neither holds is left out rather than counted twice. Span 0..100: MPI_Finalize
 * 0..1, main 20..100 (own 60: MPI_Init 30..50), the root's own 19. 1000 ns filtered: 60 from main
 * (with the visits), 19 from the root.
 */
static void test_too_much(void)
{
    tb_init(&t, 1, 0);
    uint32_t a = tb_loc(&t, 0, 0);
    region(a, FIN, 0, 1); /* the span starts at 0 */
    enter(a, 20, MAIN);
    region(a, INIT, 30, 50);
    leave(a, 100, MAIN);
    const st_filtered_sum_t fa[] = { { 0, TSIZE, 9, 1000 } };
    t.procs[0].filtered = fa, t.procs[0].nfiltered = 1;
    analyse();
    REQUIRE_EQ(at(ST_AN_M_VISITS, a, MAIN, TSIZE), 9);
    REQUIRE_EQ(at(ST_AN_M_TIME, a, MAIN, TSIZE), 60);
    REQUIRE_EQ(at(ST_AN_M_VISITS, a, TSIZE, NONE), 0);
    REQUIRE_EQ(at(ST_AN_M_TIME, a, TSIZE, NONE), 19);
    REQUIRE_EQ(at(ST_AN_M_TIME, a, MAIN, NONE), 0);
    REQUIRE_EQ(at(ST_AN_M_TIME, a, NONE, NONE), 0);
    REQUIRE_EQ(time_of(a), 100);
    done();
}

static void ev_id(uint32_t l, unsigned kind, uint64_t time, uint64_t id) { tb_ev(&t, l, kind, time)->id = id; }

/*
 * OpenMP: master m (MPI_Init 0..10, fork 100, team 102..701 with the parallel region 103..700, join
 * 703, MPI_Finalize 790..800) and worker w (team 105..699, parallel region 106..698). Calls filtered on
 * the worker (300 ns) ran in its part of the parallel region: a child of the parallel region there,
 * carved out of its time; the metric tree, with the idle threads and the OpenMP metrics, still holds.
 */
static void test_openmp(void)
{
    tb_init(&t, 1, 0);
    uint32_t m = tb_loc(&t, 0, 0), w = tb_loc(&t, 0, 1);
    region(m, INIT, 0, 10);
    ev_id(m, ST_EV_THREAD_FORK, 100, 7);
    ev_id(m, ST_EV_THREAD_TEAM_BEGIN, 102, 7);
    region(m, ST_REGION_OMP_PARALLEL, 103, 700);
    ev_id(m, ST_EV_THREAD_TEAM_END, 701, 7);
    ev_id(m, ST_EV_THREAD_JOIN, 703, 7);
    region(m, FIN, 790, 800);
    ev_id(w, ST_EV_THREAD_TEAM_BEGIN, 105, 7);
    region(w, ST_REGION_OMP_PARALLEL, 106, 698);
    ev_id(w, ST_EV_THREAD_TEAM_END, 699, 7);
    const st_filtered_sum_t fa[] = { { 1, TSIZE, 40, 300 } };
    t.procs[0].filtered = fa, t.procs[0].nfiltered = 1;
    analyse();
    REQUIRE_EQ(at(ST_AN_M_VISITS, w, ST_REGION_OMP_PARALLEL, TSIZE), 40);
    REQUIRE_EQ(at(ST_AN_M_TIME, w, ST_REGION_OMP_PARALLEL, TSIZE), 300);
    REQUIRE_EQ(at(ST_AN_M_MPI, w, ST_REGION_OMP_PARALLEL, TSIZE), 300);
    REQUIRE_EQ(at(ST_AN_M_VISITS, m, ST_REGION_OMP_PARALLEL, TSIZE), 0);
    done();
}

int main(void)
{
    test_root();
    test_enclosing();
    test_too_much();
    test_openmp();
    printf("test_analysis_filtered: %s (%d failure(s))\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
