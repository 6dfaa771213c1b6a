/*
 * test_analysis_flush.c — buffer flushes ("TRACE BUFFER FLUSH" regions) where the recorder puts them,
 * on synthetic traces with hand-computed values: a flush is its own time (Overhead) and no part of a
 * wait or of OpenMP management, so the metric tree holds (check.h) and the master's <root> keeps its
 * time.
 *  - A master's flushes between its fork and its team begin and between its team end and its join
 *    (the fork and join intervals): left out of the intervals on the master and its worker, who is
 *    idle meanwhile (the master's Time at the flush).
 *  - A flush inside MPI_Waitall after the send completed, a receive posted during the flush: Late
 *    Receiver only until the flush began.
 *  - A flush inside a blocking MPI_Recv before its receive event: Late Sender less the flush.
 */
/* link: src/analysis/analysis.c src/analysis/check.c src/analysis/p2p.c src/analysis/rma_pscw.c src/analysis/rma_lock.c src/analysis/call_kinds.c src/analysis/latesender.c src/analysis/coll.c src/analysis/coll_waits.c src/analysis/omp.c src/analysis/tree.c src/analysis/icoll.c src/analysis/output.c src/util/json.c src/util/fileio.c src/analysis/cube.c src/analysis/callpath.c src/analysis/source.c src/model/callpath.c src/analysis/parallel.c src/analysis/rc_dist.c src/analysis/rc_dist_flow.c src/analysis/rc_dist_sweep.c src/analysis/rc_dist_walk.c src/analysis/rc_dist_pairs.c src/util/u64map.c src/analysis/rc_dist_collect.c src/analysis/rc_dist_part.c src/analysis/coll_reduce.c src/analysis/p2p_wire.c src/analysis/rc_build.c src/analysis/rc_build_loc.c src/analysis/rc_pack.c src/analysis/rc_common.c src/analysis/rc_replay.c src/analysis/rc_index.c src/analysis/rc_causes.c src/analysis/rc_cpath.c src/config/config.c src/util/archive_dir.c src/exchange/exchange.c src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/stats.c src/model/region.c src/util/log.c */
#include "test_clc_lib.h"

#include "../../src/analysis/analysis.h"
#include "../../src/analysis/check.h"
#include "../../src/model/region.h"

enum { FLUSH = ST_REGION_FLUSH, PAR = ST_REGION_OMP_PARALLEL, INIT = ST_REGION_MPI_Init };

static tb_t t;
static st_rel_graph_t g;
static st_an_result_t R;

static void enter(uint32_t l, uint64_t time, uint32_t region) { tb_region(&t, l, ST_EV_ENTER, time, region); }
static void leave(uint32_t l, uint64_t time, uint32_t region) { tb_region(&t, l, ST_EV_LEAVE, time, region); }
static void region(uint32_t l, uint32_t r, uint64_t t0, uint64_t t1) { enter(l, t0, r), leave(l, t1, r); }
static void ev_id(uint32_t l, unsigned kind, uint64_t time, uint64_t id) { tb_ev(&t, l, kind, time)->id = id; }

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

/* Value of metric m at the child of the root for region r (r UINT32_MAX: the root), or at its child
 * r2 when r2 != UINT32_MAX, on location l. */
static double at(int m, uint32_t l, uint32_t r, uint32_t r2)
{
    uint32_t k = 0;
    for (uint32_t want = 0; want < 2; want++) {
        uint32_t reg = want ? r2 : r;
        if (reg == UINT32_MAX)
            break;
        uint32_t c = R.cnodes[k].first_child;
        while (c != ST_AN_NO_CNODE && R.cnodes[c].region != reg)
            c = R.cnodes[c].next;
        REQUIRE(c != ST_AN_NO_CNODE);
        k = c;
    }
    return *st_an_sev(&R, m, k, l);
}

/*
 * One process, master m and worker w. m: MPI_Init 0..10, fork 100, flush 101..601, team begin 602,
 * parallel 603..700, team end 701, flush 702..1202, join 1203, region 1290..1300. w: team begin 605,
 * parallel 606..698, team end 699.
 */
static void test_fork_join(void)
{
    tb_init(&t, 1, 0);
    uint32_t m = tb_loc(&t, 0, 0), w = tb_loc(&t, 0, 1);
    region(m, INIT, 0, 10);
    ev_id(m, ST_EV_THREAD_FORK, 100, 7);
    region(m, FLUSH, 101, 601);
    ev_id(m, ST_EV_THREAD_TEAM_BEGIN, 602, 7);
    region(m, PAR, 603, 700);
    ev_id(m, ST_EV_THREAD_TEAM_END, 701, 7);
    region(m, FLUSH, 702, 1202);
    ev_id(m, ST_EV_THREAD_JOIN, 1203, 7);
    region(m, INIT, 1290, 1300);
    ev_id(w, ST_EV_THREAD_TEAM_BEGIN, 605, 7);
    region(w, PAR, 606, 698);
    ev_id(w, ST_EV_THREAD_TEAM_END, 699, 7);
    analyse();
    /* the master: <root> is its time outside regions and intervals, (100 - 10) + (1290 - 1203) */
    REQUIRE_EQ(at(ST_AN_M_TIME, m, UINT32_MAX, 0), 90 + 87);
    REQUIRE_EQ(at(ST_AN_M_TIME, m, FLUSH, UINT32_MAX), 1000);
    REQUIRE_EQ(at(ST_AN_M_OVERHEAD, m, FLUSH, UINT32_MAX), 1000);
    REQUIRE_EQ(at(ST_AN_M_OMP_FORK, m, PAR, UINT32_MAX), (603 - 100) - 500);
    REQUIRE_EQ(at(ST_AN_M_OMP_MGMT, m, PAR, UINT32_MAX), (603 - 100) - 500 + (1203 - 700) - 500);
    /* the worker: its intervals less the master's flushes, idle at the master's flush meanwhile */
    REQUIRE_EQ(at(ST_AN_M_OMP_FORK, w, PAR, UINT32_MAX), (606 - 100) - 500);
    REQUIRE_EQ(at(ST_AN_M_OMP_MGMT, w, PAR, UINT32_MAX), (606 - 100) - 500 + (1203 - 698) - 500);
    REQUIRE_EQ(at(ST_AN_M_OMP_IDLE, w, FLUSH, UINT32_MAX), 1000);
    REQUIRE_EQ(at(ST_AN_M_OVERHEAD, w, FLUSH, UINT32_MAX), 0);
    done();
}

/* Rank 0: Isend 100..102, MPI_Waitall 200: the send completes at 210, a flush 220..1220, leave 1221.
 * Rank 1 posts its receive at 500 (during the flush) and receives at 600 in MPI_Wait. */
static void test_late_receiver(void)
{
    tb_init(&t, 2, 0);
    uint32_t s = tb_loc(&t, 0, 0), r = tb_loc(&t, 1, 0);
    enter(s, 100, ST_REGION_MPI_Isend);
    st_event_t *e = tb_ev(&t, s, ST_EV_MPI_ISEND, 101);
    e->peer = 1, e->id = 5, e->bytes = 4;
    leave(s, 102, ST_REGION_MPI_Isend);
    enter(s, 200, ST_REGION_MPI_Waitall);
    ev_id(s, ST_EV_MPI_ISEND_COMPLETE, 210, 5);
    region(s, FLUSH, 220, 1220);
    leave(s, 1221, ST_REGION_MPI_Waitall);
    enter(r, 500, ST_REGION_MPI_Irecv);
    ev_id(r, ST_EV_MPI_IRECV_REQUEST, 501, 9);
    leave(r, 502, ST_REGION_MPI_Irecv);
    enter(r, 590, ST_REGION_MPI_Wait);
    e = tb_ev(&t, r, ST_EV_MPI_IRECV, 600);
    e->peer = 0, e->id = 9, e->bytes = 4;
    leave(r, 601, ST_REGION_MPI_Wait);
    analyse();
    REQUIRE_EQ(at(ST_AN_M_LATERECEIVER, s, ST_REGION_MPI_Waitall, UINT32_MAX), 220 - 200);
    REQUIRE_EQ(at(ST_AN_M_TIME, s, ST_REGION_MPI_Waitall, UINT32_MAX), 1021 - 1000);
    REQUIRE_EQ(at(ST_AN_M_OVERHEAD, s, ST_REGION_MPI_Waitall, FLUSH), 1000);
    done();
}

/* Rank 1: MPI_Recv 100, a flush 150..650 before its receive event 660, leave 661; the send enters at
 * 400 (rank 0) and the receive waited from 100 to 400 less the flush's part of it (150..400). */
static void test_late_sender(void)
{
    tb_init(&t, 2, 0);
    uint32_t s = tb_loc(&t, 0, 0), r = tb_loc(&t, 1, 0);
    enter(s, 400, ST_REGION_MPI_Send);
    tb_send(&t, s, 401, 1, 0);
    leave(s, 402, ST_REGION_MPI_Send);
    enter(r, 100, ST_REGION_MPI_Recv);
    region(r, FLUSH, 150, 650);
    tb_recv(&t, r, 660, 0, 0, 1);
    leave(r, 661, ST_REGION_MPI_Recv);
    analyse();
    REQUIRE_EQ(at(ST_AN_M_LATESENDER, r, ST_REGION_MPI_Recv, UINT32_MAX), 150 - 100);
    REQUIRE_EQ(at(ST_AN_M_TIME, r, ST_REGION_MPI_Recv, UINT32_MAX), 561 - 500);
    done();
}

int main(void)
{
    test_fork_join();
    test_late_receiver();
    test_late_sender();
    printf("test_analysis_flush: ok\n");
    return 0;
}
