/*
 * test_rc_output.c — the outputs of the root-cause analysis on a result filled by hand
 * (src/analysis/output.c, rc_output.c): analysis.json's "causes" (per wait state its waiting, the
 * part that propagated and its delayers, largest first) and "critical_path" (hops in time order,
 * seconds since the run's first event: the path's end minus the critical_path metric's total),
 * equal byte for byte whatever order the causes come in; no such sections when the root-cause
 * analysis did not run; the end-of-run summary's top cause per wait state (and how little of a wait
 * is charged when most of it had no cause); `report --causes`
 * (ranking, delays beyond --top summed, a wait state without delayers, the critical path's call
 * paths, one metric only); the metric tree printing the time trees (Delay costs, Critical path)
 * before the counts.
 */
/* link: src/analysis/output.c src/analysis/rc_output.c src/analysis/rc_common.c src/analysis/rc_build.c src/analysis/rc_build_loc.c src/analysis/rc_pack.c src/analysis/rc_replay.c src/analysis/rc_index.c src/analysis/rc_causes.c src/analysis/rc_cpath.c src/config/config.c src/util/archive_dir.c src/analysis/analysis.c src/analysis/check.c src/analysis/p2p.c src/analysis/rma_pscw.c src/analysis/rma_lock.c src/analysis/call_kinds.c src/analysis/latesender.c src/analysis/coll.c src/analysis/coll_waits.c src/analysis/omp.c src/analysis/tree.c src/analysis/icoll.c src/util/json.c src/util/fileio.c src/analysis/cube.c src/analysis/callpath.c src/analysis/source.c src/model/callpath.c src/analysis/parallel.c src/analysis/rc_dist.c src/analysis/rc_dist_flow.c src/analysis/rc_dist_sweep.c src/analysis/rc_dist_walk.c src/analysis/rc_dist_pairs.c src/util/u64map.c src/analysis/rc_dist_collect.c src/analysis/rc_dist_part.c src/analysis/coll_reduce.c src/analysis/p2p_wire.c src/exchange/exchange.c src/relations/derive.c src/relations/derive_p2p.c src/relations/derive_coll.c src/relations/derive_rma.c src/relations/derive_pscw.c src/relations/derive_lock.c src/relations/derive_omp.c src/relations/sources.c src/relations/derived.c src/relations/graph.c src/relations/walk.c src/relations/input.c src/clc/clc.c src/util/mem.c src/clc/params.c src/clc/stats.c src/model/region.c src/util/log.c */
#include "check.h"

#include <inttypes.h>
#include <string.h>

#include "../../src/analysis/analysis.h"
#include "../../src/analysis/output.h"
#include "../../src/analysis/rc_replay.h"
#include "../../src/analysis/rootcause.h"
#include "../../src/model/region.h"
#include "../../src/util/decimal.h"

enum { NC = 5, NL = 3, RES = 1000 }; /* 1000 ticks per second: a tick is a millisecond */
enum { ROOT, MAIN, RECV, SOLVE, SEND };

static char *funcs[] = { "main", "solve" };
static st_an_cnode_t cnodes[NC];
static st_an_loc_t locs[NL] = { { 0, 0 }, { 1, 0 }, { 2, 1 } };
static uint64_t span[NL] = { 2500, 2500, 2500 };

static void cnode(uint32_t k, uint32_t parent, uint32_t region)
{
    cnodes[k] = (st_an_cnode_t){ parent, region, ST_AN_NO_CNODE, ST_AN_NO_CNODE };
    if (parent == ST_AN_NO_CNODE)
        return;
    uint32_t *link = &cnodes[parent].first_child;
    while (*link != ST_AN_NO_CNODE)
        link = &cnodes[*link].next;
    *link = k;
}

/* Value v at (m, k, l) and in every ancestor of m up to `top`, as the analysis stores whole amounts. */
static void put_upto(st_an_result_t *r, int m, int top, uint32_t k, uint32_t l, double v)
{
    for (; m >= 0; m = m == top ? -1 : st_an_metric(m)->parent)
        *st_an_sev(r, m, k, l) += v;
}
#define put(r, m, k, l, v) put_upto(r, m, -1, k, l, v)
#define set(r, m, k, l, v) put_upto(r, m, m, k, l, v) /* a part of a value already there */

/* Rank 0 waits 1.5 s in main/MPI_Recv (Late Sender): 1.1 s of it rank 2 thread 1's main/solve
 * caused (1.0 s directly, 0.1 s through a wait it caused), 0.2 s rank 1's main/solve, 0.05 s rank
 * 1's main/MPI_Send; 0.3 s of the waiting propagated. A Late Receiver of 0.05 s at main/MPI_Send
 * with no delayer. A barrier wait of 0.4 s at main/MPI_Recv (a stand-in call path) caused by rank 1.
 * The critical path: rank 2 thread 1 from 0.1 s (the run's start: 2.6 s minus its 2.5 s) to 2.0 s,
 * then rank 0 to 2.6 s. */
static st_rc_cause_t causes_v[] = {
    { ST_AN_M_BARRIER_WAIT, RECV, 1, SOLVE, 400, 0 },
    { ST_AN_M_LATESENDER, RECV, 1, SEND, 50, 0 },
    { ST_AN_M_LATESENDER, RECV, 2, SOLVE, 1000, 100 },
    { ST_AN_M_LATESENDER, RECV, 1, SOLVE, 200, 0 },
};
static struct st_rc_prop props[] = {
    { ST_AN_M_LATESENDER, RECV, 1500, 300 },
    { ST_AN_M_LATERECEIVER, SEND, 50, 0 },
};
static struct st_rc_hop hops[] = { { 0, 2000, 2600 }, { 2, 100, 2000 } }; /* end first */

static void result(st_an_result_t *r, st_rc_causes_t *c)
{
    cnode(ROOT, ST_AN_NO_CNODE, UINT32_MAX);
    cnode(MAIN, ROOT, ST_AN_FUNC_REGION(0));
    cnode(RECV, MAIN, ST_REGION_MPI_Recv);
    cnode(SOLVE, MAIN, ST_AN_FUNC_REGION(1));
    cnode(SEND, MAIN, ST_REGION_MPI_Send);
    *r = (st_an_result_t){ .ncnodes = NC, .cnodes = cnodes, .nlocs = NL, .locs = locs, .span = span,
                           .nfuncs = 2, .funcs = funcs };
    r->sev = calloc((size_t)ST_AN__METRICS * NC * NL, sizeof *r->sev);
    REQUIRE(r->sev);
    put(r, ST_AN_M_TIME, SOLVE, 0, 1000), put(r, ST_AN_M_TIME, RECV, 0, 1500);
    put(r, ST_AN_M_TIME, SOLVE, 1, 2000), put(r, ST_AN_M_TIME, SEND, 1, 500);
    put(r, ST_AN_M_TIME, SOLVE, 2, 2500);
    set(r, ST_AN_M_LATESENDER, RECV, 0, 1500);
    set(r, ST_AN_M_LATERECEIVER, SEND, 1, 50);
    set(r, ST_AN_M_BARRIER_WAIT, RECV, 0, 400);
    put(r, ST_AN_M_DELAY_LS, SOLVE, 2, 1000), put(r, ST_AN_M_DELAY_LS_LT, SOLVE, 2, 100);
    put(r, ST_AN_M_DELAY_LS, SOLVE, 1, 200), put(r, ST_AN_M_DELAY_LS, SEND, 1, 50);
    put(r, ST_AN_M_DELAY_BARRIER, SOLVE, 1, 400);
    put(r, ST_AN_M_CRITICAL_PATH, SOLVE, 2, 1900), put(r, ST_AN_M_CRITICAL_PATH, RECV, 0, 600);
    set(r, ST_AN_M_CP_IMBALANCE, SOLVE, 2, 300);
    *c = (st_rc_causes_t){ .n = 4, .v = causes_v, .nprop = 2, .prop = props, .npath = 2, .path = hops };
    r->causes = c;
}

/* What f wrote since it was opened, as a string (owned by *buf). */
static char *text(FILE *f, char **buf)
{
    REQUIRE(fclose(f) == 0);
    REQUIRE(*buf);
    return *buf;
}

#define MEMOUT(buf, len) open_memstream(&(buf), &(len))

static const char want_causes[] =
    "  \"causes\": [\n"
    "    {\"metric\": \"mpi_barrier_wait\", \"cnode\": 2, \"wait\": 0.40000000000000002, \"propagating\": 0, \"delayers\": [\n"
    "      {\"location\": 1, \"rank\": 1, \"thread\": 0, \"cnode\": 3, \"short_term\": 0.40000000000000002, \"long_term\": 0}]},\n"
    "    {\"metric\": \"mpi_latesender\", \"cnode\": 2, \"wait\": 1.5, \"propagating\": 0.29999999999999999, \"delayers\": [\n"
    "      {\"location\": 2, \"rank\": 2, \"thread\": 1, \"cnode\": 3, \"short_term\": 1, \"long_term\": 0.10000000000000001},\n"
    "      {\"location\": 1, \"rank\": 1, \"thread\": 0, \"cnode\": 3, \"short_term\": 0.20000000000000001, \"long_term\": 0},\n"
    "      {\"location\": 1, \"rank\": 1, \"thread\": 0, \"cnode\": 4, \"short_term\": 0.050000000000000003, \"long_term\": 0}]},\n"
    "    {\"metric\": \"mpi_latereceiver\", \"cnode\": 4, \"wait\": 0.050000000000000003, \"propagating\": 0, \"delayers\": []}\n"
    "  ],\n"
    "  \"critical_path\": [\n"
    "    {\"location\": 2, \"rank\": 2, \"thread\": 1, \"t0\": 0, \"t1\": 1.9},\n"
    "    {\"location\": 0, \"rank\": 0, \"thread\": 0, \"t0\": 1.9, \"t1\": 2.5}\n"
    "  ],\n"
    "  \"stats\": ";

static void test_json(st_an_result_t *r)
{
    char *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    FILE *f = MEMOUT(a, na);
    REQUIRE(f && st_an_write_json(f, r, RES) == 0);
    text(f, &a);
    const char *at = strstr(a, "  \"causes\": [");
    EXPECT(at && !strncmp(at, want_causes, strlen(want_causes)), "analysis.json's causes:\n%s", at ? at : a);
    EXPECT(strstr(a, "\"worst\": [") < at, "causes before the worst instances");
    /* the causes in another order: the same bytes */
    st_rc_cause_t swapped[4] = { causes_v[2], causes_v[0], causes_v[3], causes_v[1] };
    st_rc_cause_t *orig = r->causes->v;
    r->causes->v = swapped;
    f = MEMOUT(b, nb);
    REQUIRE(f && st_an_write_json(f, r, RES) == 0);
    text(f, &b);
    EXPECT(na == nb && !memcmp(a, b, na), "analysis.json depends on the order of the causes");
    r->causes->v = orig;
    free(b);
    /* no root-cause analysis: no sections, the rest as before */
    st_rc_causes_t *c = r->causes;
    r->causes = NULL;
    f = MEMOUT(b, nb);
    REQUIRE(f && st_an_write_json(f, r, RES) == 0);
    text(f, &b);
    EXPECT(!strstr(b, "\"causes\"") && !strstr(b, "\"critical_path\":"), "sections without a root-cause analysis");
    size_t head = (size_t)(at - a);
    EXPECT(!strncmp(a, b, head) && !strcmp(b + head, strstr(a, "  \"stats\": ")), "the rest of the file changed");
    r->causes = c;
    free(a), free(b);
}

static void test_brief(st_an_result_t *r)
{
    char *a = NULL;
    size_t na = 0;
    FILE *f = MEMOUT(a, na);
    REQUIRE(f);
    st_an_print_brief(f, r, RES, 5);
    text(f, &a);
    static const char want[] =
        "wait states: Time 7.500000 s over 3 locations; largest:\n"
        "  mpi_latesender                   1.500000 s  20.00%\n"
        "    Late Sender 1.500000 s at main/MPI_Recv: 1.100000 s caused by rank 2 thread 1 in main/solve\n"
        "  mpi_barrier_wait                 0.400000 s   5.33%\n"
        "    Wait at Barrier 0.400000 s at main/MPI_Recv: 0.400000 s caused by rank 1 in main/solve\n"
        "  mpi_latereceiver                 0.050000 s   0.67%\n";
    EXPECT(!strcmp(a, want), "summary:\n%s", a);
    free(a);
    /* a wait mostly without a cause (its delayer's excess a quarter of it) says how little is charged */
    causes_v[0].short_ticks = 100;
    f = MEMOUT(a, na);
    REQUIRE(f);
    st_an_print_brief(f, r, RES, 5);
    text(f, &a);
    EXPECT(strstr(a, "    Wait at Barrier 0.400000 s at main/MPI_Recv: 0.100000 s caused by rank 1 in main/solve; of the "
                     "wait only 0.100000 s is charged to delays in all (the rest: no excess time of a delayer)\n") &&
               strstr(a, "caused by rank 2 thread 1 in main/solve\n"),
           "summary with a wait mostly without a cause:\n%s", a);
    free(a);
    f = MEMOUT(a, na);
    REQUIRE(f && st_an_print_causes(f, r, RES, ST_AN_M_BARRIER_WAIT, 10) == 0);
    text(f, &a);
    EXPECT(strstr(a, "0.100000 s (25.0%) charged to the delays below\n     (the rest had no excess time of a delayer"),
           "report --causes with a wait mostly without a cause:\n%s", a);
    free(a);
    causes_v[0].short_ticks = 400;
}

static void test_report(st_an_result_t *r)
{
    char *a = NULL;
    size_t na = 0;
    FILE *f = MEMOUT(a, na);
    REQUIRE(f && st_an_print_causes(f, r, RES, -1, 2) == 0);
    text(f, &a);
    static const char want[] =
        "the largest 2 wait states (metric at a call path) and the delays that caused them\n"
        "(delay = short-term, excess time that made them wait, + long-term, through the waits it caused):\n"
        "1. Late Sender [mpi_latesender] at main/MPI_Recv: 1.500000 s waiting, 0.300000 s (20.0%) of it propagated "
        "(made others wait), 1.350000 s (90.0%) charged to the delays below\n"
        "        delay [s]   short-term    long-term   rank thread  call path of the delay\n"
        "         1.100000     1.000000     0.100000      2      1  main/solve\n"
        "         0.200000     0.200000     0.000000      1      0  main/solve\n"
        "         0.050000  in 1 more delay (--top N shows more)\n"
        "2. Wait at Barrier [mpi_barrier_wait] at main/MPI_Recv: 0.400000 s waiting, 0.000000 s (0.0%) of it "
        "propagated (made others wait), 0.400000 s (100.0%) charged to the delays below\n"
        "        delay [s]   short-term    long-term   rank thread  call path of the delay\n"
        "         0.400000     0.400000     0.000000      1      0  main/solve\n"
        "critical path: 2.500000 s (the run from its first to its last event), 2 hops over 2 locations; the call "
        "paths on it most (--metric critical_path for more):\n"
        "         1.900000 s  76.00%  main/solve\n"
        "         0.600000 s  24.00%  main/MPI_Recv\n";
    EXPECT(!strcmp(a, want), "report --causes:\n%s", a);
    free(a);
    /* one metric: its wait states only, a wait state without delayers said so, no critical path */
    f = MEMOUT(a, na);
    REQUIRE(f && st_an_print_causes(f, r, RES, ST_AN_M_LATERECEIVER, 10) == 0);
    text(f, &a);
    EXPECT(strstr(a, "the 1 wait state of mpi_latereceiver") && strstr(a, "1. Late Receiver [mpi_latereceiver] at "
                                                                         "main/MPI_Send: 0.050000 s waiting") &&
               strstr(a, "no delay found") && !strstr(a, "Late Sender") && !strstr(a, "critical path"),
           "report --causes --metric mpi_latereceiver:\n%s", a);
    free(a);
    /* no root-cause analysis */
    st_rc_causes_t *c = r->causes;
    r->causes = NULL;
    f = MEMOUT(a, na);
    REQUIRE(f && st_an_print_causes(f, r, RES, -1, 10) == 0);
    text(f, &a);
    EXPECT(!strcmp(a, "no root causes: the root-cause analysis did not run (SYNCTRACE_ROOTCAUSE=off)\n"), "%s", a);
    r->causes = c;
    free(a);
}

static void test_tree(st_an_result_t *r)
{
    char *a = NULL;
    size_t na = 0;
    FILE *f = MEMOUT(a, na);
    REQUIRE(f);
    st_an_print_summary(f, r, RES);
    text(f, &a);
    const char *delay = strstr(a, "\nDelay costs "), *cp = strstr(a, "\nCritical path "), *visits = strstr(a, "\nVisits");
    EXPECT(delay && cp && delay < cp && (!visits || cp < visits), "metric tree:\n%s", a);
    EXPECT(strstr(a, "\n      Late Sender                                             1.350000 s  18.00%  delay_latesender_aggregate\n"
                     "        Short-term                                            1.250000 s  16.67%  delay_latesender\n"
                     "        Long-term                                             0.100000 s   1.33%  delay_latesender_longterm\n"),
           "metric tree:\n%s", a);
    EXPECT(strstr(a, "\nCritical path                                                 2.500000 s  33.33%  critical_path\n"
                     "  Imbalance                                                   0.300000 s   4.00%  critical_path_imbalance\n"),
           "metric tree:\n%s", a);
    free(a);
}

/* The hops' times: with a power-of-ten resolution the exact decimal in its shortest form (a fraction's leading
 * zeros kept, trailing ones dropped), else %.17g of the seconds. */
/* The hops' times, seconds since the path's start (the end less the critical_path total, 2.5 s): with a
 * power-of-ten resolution the exact decimal in its shortest form (a fraction's leading zeros kept, trailing
 * ones dropped; a hop that began before the start negative), else %.17g of the seconds. */
static void test_json_times(st_an_result_t *r)
{
    struct st_rc_hop h[] = { { 0, 2105, 2600 }, { 2, 0, 2105 } }; /* end first; the start at tick 100 */
    struct st_rc_hop *orig = r->causes->path;
    r->causes->path = h;
    static const struct {
        uint64_t res;
        const char *want;
    } cases[] = {
        { RES, "\"t0\": -0.1, \"t1\": 2.005},\n    {\"location\": 0, \"rank\": 0, \"thread\": 0, \"t0\": 2.005, \"t1\": 2.5}" },
        { 1000000000, "\"t0\": -0.0000001, \"t1\": 0.000002005},\n    {\"location\": 0, \"rank\": 0, \"thread\": 0, \"t0\": 0.000002005, \"t1\": 0.0000025}" },
        { 1, "\"t0\": -100, \"t1\": 2005},\n    {\"location\": 0, \"rank\": 0, \"thread\": 0, \"t0\": 2005, \"t1\": 2500}" },
        { 1024, "\"t0\": -0.09765625, \"t1\": 1.9580078125},\n    {\"location\": 0, \"rank\": 0, \"thread\": 0, \"t0\": 1.9580078125, \"t1\": 2.44140625}" },
        { 3, "\"t0\": -33.333333333333329, \"t1\": 668.33333333333326},\n    {\"location\": 0, \"rank\": 0, \"thread\": 0, \"t0\": 668.33333333333326, \"t1\": 833.33333333333326}" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *a = NULL;
        size_t na = 0;
        FILE *f = MEMOUT(a, na);
        REQUIRE(f && st_an_write_json(f, r, cases[i].res) == 0);
        text(f, &a);
        const char *at = strstr(a, "\"critical_path\": [");
        EXPECT(at && strstr(at, cases[i].want), "resolution %llu: critical path times:\n%s", (unsigned long long)cases[i].res,
               at ? at : a);
        free(a);
    }
    r->causes->path = orig;
}

/* st_u64_dec against printf at every length and at the digit pairs' edges */
static void test_u64_dec(void)
{
    const uint64_t v[] = { 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 1009, 10000, 99999, 100000, 1234567,
                           10000000000000000000u, 18446744073709551615u, 9999999999999999999u };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        char a[21], b[32];
        size_t n = st_u64_dec(a, v[i]);
        snprintf(b, sizeof b, "%" PRIu64, v[i]);
        REQUIRE(n == strlen(b) && !strcmp(a, b), "%s for %s", a, b);
    }
    for (uint64_t x = 1, k = 0; k < 19; k++, x *= 10) { /* 10^k - 1, 10^k, 10^k + 1 */
        for (int d = -1; d <= 1; d++) {
            char a[21], b[32];
            uint64_t y = x + (uint64_t)(int64_t)d;
            st_u64_dec(a, y);
            snprintf(b, sizeof b, "%" PRIu64, y);
            REQUIRE(!strcmp(a, b), "%s for %s", a, b);
        }
    }
}

/* rc_llround against llround: halves, just below and above them, the doubles' integer range, beyond it,
 * negative, infinite and NaN (libm's answer either way: the same call) */
static void test_llround(void)
{
    const double v[] = { 0.0, 0.25, 0.5, 0.49999999999999994, 0.5000000000000001, 1.5, 2.5, 3.5, 1e6 + 0.5,
                         4503599627370495.5, 4503599627370496.0, 4503599627370497.0, 9007199254740993.0, 1e18 + 0.5,
                         9.1e18, 9.3e18, -0.5, -2.5, -1e6 - 0.5, 1e300 };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        REQUIRE(rc_llround(v[i]) == (int64_t)llround(v[i]), "%.17g: %" PRId64 " against %lld", v[i], rc_llround(v[i]),
                llround(v[i]));
    for (int k = 0; k < 1000000; k++) { /* tick counts with quarters, eighths and tiny fractions */
        double x = (double)k * 0.125 + (double)(k % 7) * 1e-9;
        REQUIRE(rc_llround(x) == (int64_t)llround(x), "%.17g", x);
    }
}

int main(void)
{
    test_u64_dec();
    test_llround();
    st_an_result_t r;
    st_rc_causes_t c;
    result(&r, &c);
    test_json(&r);
    test_json_times(&r);
    test_brief(&r);
    test_report(&r);
    test_tree(&r);
    free(r.sev);
    return failures != 0;
}
