/*
 * test_rootcause_random.c — the root-cause replay (st_rc_run) on random SPMD timelines (a ring of
 * eager sends, synchronous pairs, barriers, broadcasts; 2 to 64 locations): the metric tree's
 * invariants and the critical path's length (check.c), the classification adding up to the
 * point-to-point waits, short-term costs within the waits they stand for, the causes holding the delay
 * costs and sorted as rootcause.h says, the imbalance impact its intra- and inter-partition parts, the
 * same values bit for bit in another cnode numbering; and
 * check.c naming a critical path that does not add up.
 */
/* link: src/analysis/rc_replay.c src/analysis/rc_index.c src/analysis/rc_causes.c src/analysis/rc_cpath.c src/analysis/rc_common.c src/analysis/rc_build.c src/analysis/rc_build_loc.c src/analysis/rc_pack.c src/config/config.c src/util/archive_dir.c src/analysis/analysis.c src/analysis/check.c src/analysis/p2p.c src/analysis/rma_pscw.c src/analysis/rma_lock.c src/analysis/call_kinds.c src/analysis/latesender.c src/analysis/coll.c src/analysis/coll_waits.c src/analysis/omp.c src/analysis/tree.c src/analysis/icoll.c src/analysis/output.c src/util/json.c src/util/fileio.c src/analysis/cube.c src/analysis/callpath.c src/analysis/source.c src/model/callpath.c src/analysis/parallel.c src/analysis/rc_dist.c src/analysis/rc_dist_flow.c src/analysis/rc_dist_sweep.c src/analysis/rc_dist_walk.c src/analysis/rc_dist_pairs.c src/util/u64map.c src/analysis/rc_dist_collect.c src/analysis/rc_dist_part.c src/analysis/coll_reduce.c src/analysis/p2p_wire.c src/exchange/exchange.c src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/stats.c src/model/region.c src/util/log.c */
#include "test_rc_lib.h"
#include "test_rc_scen.h"

#include <math.h>
#include <string.h>

/* Sum of the timeline's waits of metric m. */
static double waits_of(int m)
{
    double s = 0;
    for (uint32_t l = 0; l < in.nlocs; l++)
        for (uint64_t k = 0; k < L[l].nwaits; k++)
            s += L[l].waits[k].metric == m ? L[l].waits[k].ticks : 0;
    return s;
}

static void test_random(void)
{
    static const uint32_t sizes[] = { 2, 3, 5, 8, 13, 64 };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (uint64_t seed = 1; seed <= 6; seed++) {
            RN = sizes[si], rseed = seed * 7919 + RN;
            snprintf(check_context, sizeof check_context, "[random %u/%" PRIu64 "] ", RN, seed);
            test_numbering(scen_random, 0, "random");
            /* the classification adds up to the point-to-point waits */
            double p2p = waits_of(ST_AN_M_LATESENDER) + waits_of(ST_AN_M_LATERECEIVER);
            EXPECT(fabs(total(ST_AN_M_WAIT_DI) - p2p) < 1e-6 * (1 + p2p));
            EXPECT(fabs(total(ST_AN_M_WAIT_PT) - p2p) < 1e-6 * (1 + p2p));
            EXPECT(fabs(total(ST_AN_M_WAIT_DIRECT_LS) + total(ST_AN_M_WAIT_INDIRECT_LS) -
                        waits_of(ST_AN_M_LATESENDER)) < 1e-6 * (1 + p2p));
            /* short-term costs never exceed the waits they stand for */
            static const int pairs[][2] = { { ST_AN_M_DELAY_LS, ST_AN_M_LATESENDER },
                                            { ST_AN_M_DELAY_LR, ST_AN_M_LATERECEIVER },
                                            { ST_AN_M_DELAY_BARRIER, ST_AN_M_BARRIER_WAIT },
                                            { ST_AN_M_DELAY_12N, ST_AN_M_LATEBROADCAST } };
            for (size_t i = 0; i < 4; i++)
                EXPECT(total(pairs[i][0]) <= waits_of(pairs[i][1]) + 1e-6, "%s", st_an_metric(pairs[i][0])->uniq);
            /* the causes hold the delay costs: short-term and long-term */
            double s = 0, lt = 0, ms = 0, ml = 0;
            for (size_t i = 0; i < CZ.n; i++)
                s += CZ.v[i].short_ticks, lt += CZ.v[i].long_ticks;
            for (size_t q = 0; q < 4; q++)
                ms += total(pairs[q][0]), ml += total(pairs[q][0] + 1);
            EXPECT(fabs(s - ms) < 1e-6 * (1 + ms) && fabs(lt - ml) < 1e-6 * (1 + ml), "%g %g %g %g", s, ms, lt, ml);
            /* sorted as rootcause.h says */
            for (size_t i = 0; i + 1 < CZ.n; i++) {
                const st_rc_cause_t *a = &CZ.v[i], *b = &CZ.v[i + 1];
                EXPECT(a->metric < b->metric || (a->metric == b->metric && (a->wait_cnode < b->wait_cnode ||
                       (a->wait_cnode == b->wait_cnode && a->short_ticks + a->long_ticks >= b->short_ticks + b->long_ticks))));
            }
            if (getenv("RC_VERBOSE"))
                fprintf(stderr, "%u/%" PRIu64 ": waits %g delay %g (long %g) causes %zu hops %zu cpimb %g impact %g\n", RN, seed, waits_of(ST_AN_M_LATESENDER) + waits_of(ST_AN_M_BARRIER_WAIT) + waits_of(ST_AN_M_LATEBROADCAST) + waits_of(ST_AN_M_LATERECEIVER), total(ST_AN_M_DELAY), ml, CZ.n, CZ.npath, total(ST_AN_M_CP_IMBALANCE), total(ST_AN_M_CP_IMBALANCE_IMPACT));
            expect_path_covers(0, L[0].last);
            EXPECT(total(ST_AN_M_PERF_IMPACT) <= (double)RN * (double)L[0].last + 1e-6);
            /* the imbalance impact is its intra- and inter-partition parts, at every (call path, location) */
            for (int c = 0; c < NC; c++)
                for (uint32_t l = 0; l < RN; l++) {
                    double v = V(ST_AN_M_CP_IMBALANCE_IMPACT, c, l);
                    EXPECT(fabs(V(ST_AN_M_INTRA_PARTITION, c, l) + V(ST_AN_M_INTER_PARTITION, c, l) - v) < 1e-9 * (1 + v));
                }
        }
    check_context[0] = 0;
}

/* check.c names a critical path that does not add up to the run's length, hops with a gap, a span
 * longer than the run, and critical-path values without their hops. */
static void test_check_names(void)
{
    RN = 3, rseed = 5;
    scen_random();
    run(0);
    REQUIRE(CZ.npath > 1);
    char msg[1024];
    R.causes = &CZ;
    *st_an_sev(&R, ST_AN_M_CRITICAL_PATH, cmap[C_SOLVE], 1) += 1;
    EXPECT(st_an_check_tree(&R, 1, msg, sizeof msg) == 1 && strstr(msg, "critical_path") &&
           strstr(msg, "!= the run's length (first to last event)"), "%s", msg);
    *st_an_sev(&R, ST_AN_M_CRITICAL_PATH, cmap[C_SOLVE], 1) -= 1;
    EXPECT(st_an_check_tree(&R, 1, msg, sizeof msg) == 0, "%s", msg);
    CZ.path[1].t0 += 1; /* a gap between the last two hops */
    EXPECT(st_an_check_tree(&R, 1, msg, sizeof msg) >= 1 && strstr(msg, "a gap or an overlap"), "%s", msg);
    CZ.path[1].t0 -= 1;
    /* the performance impact must share out every location's Time, a tick more or less is named */
    *st_an_sev(&R, ST_AN_M_PERF_IMPACT, cmap[C_SOLVE], 1) += 1;
    EXPECT(st_an_check_tree(&R, 1, msg, sizeof msg) == 1 && strstr(msg, "performance_impact") &&
           strstr(msg, "!= Time of all locations"), "%s", msg);
    *st_an_sev(&R, ST_AN_M_PERF_IMPACT, cmap[C_SOLVE], 1) -= 1;
    /* (its Time and impact too, so that only the path's length is short) */
    double more = (double)(L[0].last + 1 - (L[2].last - L[2].first));
    R.span[2] = L[0].last + 1;
    *st_an_sev(&R, ST_AN_M_TIME, 0, 2) += more;
    *st_an_sev(&R, ST_AN_M_PERF_IMPACT, 0, 2) += more;
    EXPECT(st_an_check_tree(&R, 1, msg, sizeof msg) == 1 && strstr(msg, "< the location's span") &&
           strstr(msg, "rank 2 thread 0"), "%s", msg);
    *st_an_sev(&R, ST_AN_M_TIME, 0, 2) -= more;
    *st_an_sev(&R, ST_AN_M_PERF_IMPACT, 0, 2) -= more;
    R.span[2] = L[2].last - L[2].first;
    /* without the hops (a replay asked for no causes): the same values; the length unknown, the spans
     * still checked against the sum */
    R.causes = NULL;
    saved_t a;
    save(&a);
    st_rc_causes_free(&CZ);
    REQUIRE(st_rc_run(&R, &in, NULL) == 0);
    expect_same_values(&a, "no causes");
    saved_free(&a);
    EXPECT(st_an_check_tree(&R, 1, msg, sizeof msg) == 0, "%s", msg);
    *st_an_sev(&R, ST_AN_M_CRITICAL_PATH, cmap[C_SOLVE], 1) -= 2;
    EXPECT(st_an_check_tree(&R, 1, msg, sizeof msg) == 3 && strstr(msg, "(the run's length)") &&
           strstr(msg, "< the location's span"), "%s", msg);
}

int main(void)
{
    memcpy(cmap, identity, sizeof cmap);
    test_random();
    test_check_names();
    result_free();
    tl_reset(0);
    if (failures)
        return 1;
    printf("test_rootcause_random: ok\n");
    return 0;
}
