/*
 * test_score.c — `synctrace score`'s logic (src/cli/score.h) without MPI:
 *   - the ranking, the group sums and the proposed filter on a profile made by hand: the
 *     filter takes exactly the filterable regions visited often and briefly (thresholds
 *     inclusive), never one that may not be filtered however often it is visited, and
 *     predicts the bytes of their ENTER/LEAVE records;
 *   - OTF2 record sizes of single events (timestamps shared, compressed fields, attributes);
 *   - the profile of an archive built in memory: visits (total and per location), inclusive
 *     time, events charged to the innermost region, bytes adding up per location and per row.
 */
/* link: src/cli/score.c src/cli/score_rank.c src/cli/archive_defs.c src/cli/archive_load.c src/cli/archive_comm.c src/cli/archive_events.c src/cli/names.c src/model/event.c src/model/region.c src/analysis/call_kinds.c */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cli/archive_read.h"
#include "../../src/cli/score.h"
#include "../../src/model/callpath.h"
#include "check.h"

#define EXPECT_EQ(what, want, got)                                                          \
    do {                                                                                    \
        unsigned long long w_ = (unsigned long long)(want), g_ = (unsigned long long)(got); \
        EXPECT(w_ == g_, "%s: expected %llu, got %llu", what, w_, g_);                      \
    } while (0)

/* ---- ranking, groups, proposal on a made-up profile ---------------------------------------- */

static st_score_row_t row(const char *name, unsigned group, const char *why, uint64_t visits, uint64_t vmax,
                          uint64_t bytes, uint64_t time_ns)
{
    return (st_score_row_t){.name = name, .group = (uint8_t)group, .unfilterable = why, .visits = visits,
                            .visits_max = vmax, .events = 2 * visits, .bytes = bytes, .own_bytes = bytes,
                            .time_ns = time_ns};
}

static void proposal(void)
{
    st_score_row_t rows[] = {
        row("MPI_Send", ST_SCORE_MPI_P2P, "communication", 200000, 100000, 5000000, 20000000),
        row("MPI_Type_size", ST_SCORE_MPI_OTHER, NULL, 200000, 100000, 2400000, 40000000),
        row("MPI_Comm_rank", ST_SCORE_MPI_OTHER, NULL, 10000, 10000, 120000, 100000),       /* at the visit limit */
        row("MPI_Win_flush_all", ST_SCORE_MPI_RMA, NULL, 19999, 9999, 240000, 1000),      /* one visit short per location */
        row("MPI_Type_commit", ST_SCORE_MPI_OTHER, NULL, 50000, 50000, 600000, 500000000), /* exactly 10 us per visit */
        row("MPI_Type_free", ST_SCORE_MPI_OTHER, NULL, 50000, 50000, 600000, 500000001),   /* just over */
        row("MPI_Win_unlock_all", ST_SCORE_MPI_RMA, "synchronization", 300000, 300000, 3600000, 1000),
        row("main", ST_SCORE_USER, "not an MPI call", 2, 1, 30, 900000000),
        row("!$omp barrier", ST_SCORE_OPENMP, "an OpenMP construct", 40000, 20000, 500000, 1000),
    };
    size_t n = sizeof rows / sizeof rows[0];
    st_score_rank(rows, n);
    for (size_t i = 1; i < n; i++)
        EXPECT(rows[i - 1].bytes >= rows[i].bytes, "rank: %s before %s", rows[i - 1].name, rows[i].name);
    EXPECT(!strcmp(rows[0].name, "MPI_Send"), "rank: first is %s", rows[0].name);
    /* equal bytes: more visits first, then by name */
    EXPECT(!strcmp(rows[3].name, "MPI_Type_commit") && !strcmp(rows[4].name, "MPI_Type_free"), "rank ties: %s, %s",
           rows[3].name, rows[4].name);

    st_score_row_t g[ST_SCORE__GROUPS];
    st_score_groups(rows, n, g);
    uint64_t gb = 0, rb = 0, gv = 0, rv = 0;
    for (unsigned i = 0; i < ST_SCORE__GROUPS; i++)
        gb += g[i].bytes, gv += g[i].visits;
    for (size_t i = 0; i < n; i++)
        rb += rows[i].bytes, rv += rows[i].visits;
    EXPECT_EQ("groups: bytes add up", rb, gb);
    EXPECT_EQ("groups: visits add up", rv, gv);
    EXPECT_EQ("group mpi-other bytes", 2400000 + 120000 + 600000 + 600000, g[ST_SCORE_MPI_OTHER].bytes);
    EXPECT_EQ("group mpi-other visits/loc", 100000, g[ST_SCORE_MPI_OTHER].visits_max);
    EXPECT_EQ("group mpi-rma visits", 319999, g[ST_SCORE_MPI_RMA].visits);
    EXPECT(!strcmp(g[ST_SCORE_MPI_RMA].name, "mpi-rma"), "group name %s", g[ST_SCORE_MPI_RMA].name);

    unsigned char pick[16];
    uint64_t saved = 0;
    st_score_rule_t rule = {ST_SCORE_MIN_VISITS, ST_SCORE_MAX_NS_PER_VISIT};
    size_t k = st_score_propose(rows, n, &rule, pick, &saved);
    const char *want[] = {"MPI_Type_size", "MPI_Comm_rank", "MPI_Type_commit"};
    EXPECT_EQ("proposal: regions", 3, k);
    EXPECT_EQ("proposal: saved", 2400000 + 120000 + 600000, saved);
    for (size_t i = 0; i < n; i++) {
        int wanted = 0;
        for (size_t j = 0; j < 3; j++)
            wanted |= !strcmp(rows[i].name, want[j]);
        EXPECT(pick[i] == wanted, "proposal: %s %s", rows[i].name, wanted ? "missing" : "proposed");
        if (rows[i].unfilterable)
            EXPECT(!pick[i], "proposal: unfilterable %s proposed", rows[i].name);
    }
    /* looser limits take more, but never what may not be filtered */
    rule = (st_score_rule_t){1, 1e12};
    k = st_score_propose(rows, n, &rule, pick, &saved);
    EXPECT_EQ("loose proposal: every filterable region", 5, k);
    for (size_t i = 0; i < n; i++)
        EXPECT(!rows[i].unfilterable == !!pick[i], "loose proposal: %s", rows[i].name);
    /* a stricter visit limit takes none */
    rule = (st_score_rule_t){1000000, 1e12};
    EXPECT_EQ("strict proposal", 0, st_score_propose(rows, n, &rule, pick, &saved));
    EXPECT_EQ("strict proposal saves nothing", 0, saved);
}

/* ---- record sizes ------------------------------------------------------------------------------ */

static void init_archive(st_cli_archive_t *ar, int nlocs)
{
    memset(ar, 0, sizeof *ar);
    ar->resolution = 1000000000u;
    for (unsigned a = 0; a < ST_ATTR__COUNT; a++)
        ar->attr[a] = 10 + a; /* refs of two compressed bytes */
    ar->nlocs = (size_t)nlocs;
    ar->locs = calloc((size_t)nlocs, sizeof *ar->locs);
    for (int r = 0; r < nlocs; r++)
        ar->locs[r] = (st_cli_location_t){.id = (uint64_t)r, .rank = r};
    ar->nranks = nlocs;
    static const char *const names[] = {"main", "MPI_Type_size", "MPI_Send", "MPI_Win_flush_all", "!$omp barrier",
                                        "TRACE BUFFER FLUSH"};
    static const uint8_t paradigm[] = {OTF2_PARADIGM_USER, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI,
                                       OTF2_PARADIGM_OPENMP, OTF2_PARADIGM_MEASUREMENT_SYSTEM};
    static const uint8_t role[] = {OTF2_REGION_ROLE_FUNCTION, OTF2_REGION_ROLE_FUNCTION, OTF2_REGION_ROLE_POINT2POINT,
                                   OTF2_REGION_ROLE_FUNCTION, OTF2_REGION_ROLE_BARRIER, OTF2_REGION_ROLE_ARTIFICIAL};
    ar->nregions = ar->nstrings = 6;
    ar->regions = calloc(6, sizeof *ar->regions);
    ar->strings = calloc(6, sizeof *ar->strings);
    for (uint32_t i = 0; i < 6; i++) {
        ar->strings[i] = (st_cli_string_t){.id = i, .s = strdup(names[i])};
        ar->regions[i] = (st_cli_region_t){.id = i, .name = i, .role = role[i], .paradigm = paradigm[i]};
    }
}

static st_event_t *push(st_cli_archive_t *ar, int loc, unsigned kind, uint64_t t, uint32_t region)
{
    st_cli_location_t *l = &ar->locs[loc];
    st_event_t *e = st_cli_grow((void **)&l->ev, &l->n, &l->cap, sizeof *e);
    if (!e)
        exit(1);
    *e = (st_event_t){.time = t, .kind = (uint8_t)kind, .region = region, .peer = -1};
    st_event_set_callpath(e, ST_CP_NONE);
    return e;
}

static void record_sizes(void)
{
    st_cli_archive_t ar;
    init_archive(&ar, 1);
    st_event_t e = {.time = 100, .kind = ST_EV_ENTER, .region = 5};
    st_event_set_callpath(&e, ST_CP_NONE);
    EXPECT_EQ("enter, new time", 9 + 1 + 2, st_score_event_bytes(&ar, &e, 99));
    EXPECT_EQ("enter, same time", 1 + 2, st_score_event_bytes(&ar, &e, 100));
    e.region = 0;
    EXPECT_EQ("enter of region 0", 1 + 1, st_score_event_bytes(&ar, &e, 100));
    e.region = 300;
    EXPECT_EQ("enter of region 300", 1 + 3, st_score_event_bytes(&ar, &e, 100));
    e.aux = 1 + 7; /* call site string 7: list = type, length, count, (ref, type, value) */
    EXPECT_EQ("enter with a call site", 1 + 1 + 2 + (2 + 1 + 2) + 1 + 3,
              st_score_event_bytes(&ar, &e, 100));
    st_event_t s = {.time = 200, .kind = ST_EV_MPI_SEND, .peer = 1, .comm = 0, .tag = 0, .bytes = 1 << 20};
    /* type, length, peer 2, comm 1, tag 1, bytes 4 */
    EXPECT_EQ("send", 9 + 1 + 1 + 2 + 1 + 1 + 4, st_score_event_bytes(&ar, &s, 100));
    st_event_t cb = {.time = 200, .kind = ST_EV_MPI_COLL_BEGIN};
    EXPECT_EQ("coll_begin", 2, st_score_event_bytes(&ar, &cb, 200));
    EXPECT_EQ("chunk overhead of nothing", 0, st_score_chunk_overhead(0));
    EXPECT_EQ("chunk overhead of one chunk", 27, st_score_chunk_overhead(1000));
    EXPECT_EQ("chunk overhead of three chunks", 81, st_score_chunk_overhead(2u << 20));
    st_cli_archive_free(&ar);
}

/* ---- the profile of an archive --------------------------------------------------------------- */

static const char *filterable_mpi(const char *name)
{
    return strcmp(name, "MPI_Type_size") && strcmp(name, "MPI_Win_flush_all") ? "test: not filterable" : NULL;
}

static void profile(void)
{
    st_cli_archive_t ar;
    init_archive(&ar, 2);
    /* location 0: main { 1000 x MPI_Type_size (2 ns each), MPI_Send { send } }, then an event outside main;
     * location 1: main { 300 x MPI_Type_size, 5 x MPI_Win_flush_all }, main left open at the end */
    uint64_t t = 1000;
    push(&ar, 0, ST_EV_ENTER, t, 0);
    for (int i = 0; i < 1000; i++) {
        push(&ar, 0, ST_EV_ENTER, ++t, 1);
        push(&ar, 0, ST_EV_LEAVE, t += 2, 1);
    }
    push(&ar, 0, ST_EV_ENTER, ++t, 2);
    st_event_t *snd = push(&ar, 0, ST_EV_MPI_SEND, t, 0);
    snd->peer = 1, snd->bytes = 8;
    push(&ar, 0, ST_EV_LEAVE, t += 10, 2);
    push(&ar, 0, ST_EV_LEAVE, ++t, 0);
    uint64_t main0 = t - 1000;
    push(&ar, 0, ST_EV_MPI_ISEND_COMPLETE, ++t, 0)->id = 3;
    t = 5000;
    push(&ar, 1, ST_EV_ENTER, t, 0);
    for (int i = 0; i < 300; i++) {
        push(&ar, 1, ST_EV_ENTER, ++t, 1);
        push(&ar, 1, ST_EV_LEAVE, t += 4, 1);
    }
    for (int i = 0; i < 5; i++) {
        push(&ar, 1, ST_EV_ENTER, ++t, 3);
        push(&ar, 1, ST_EV_LEAVE, ++t, 3);
    }
    uint64_t main1 = t - 5000;

    st_score_t s;
    REQUIRE(st_score_build(&ar, filterable_mpi, &s) == 0);
    EXPECT_EQ("rows: regions + outside", 7, s.nrows);
    const st_score_row_t *r = s.rows;
    EXPECT_EQ("main visits", 2, r[0].visits);
    EXPECT_EQ("main visits/loc", 1, r[0].visits_max);
    EXPECT_EQ("main time (open at the end: to the last event)", main0 + main1, r[0].time_ns);
    EXPECT_EQ("main events: its own four", 3, r[0].events);
    EXPECT_EQ("Type_size visits", 1300, r[1].visits);
    EXPECT_EQ("Type_size visits/loc", 1000, r[1].visits_max);
    EXPECT_EQ("Type_size time", 1000 * 2 + 300 * 4, r[1].time_ns);
    EXPECT_EQ("Type_size events", 2600, r[1].events);
    EXPECT_EQ("Type_size bytes = own bytes", r[1].bytes, r[1].own_bytes);
    EXPECT_EQ("Type_size bytes (every record with its timestamp: 9 + 1 + 2)", 2600 * 12, r[1].bytes);
    EXPECT_EQ("MPI_Send events: enter, send, leave", 3, r[2].events);
    EXPECT(r[2].bytes > r[2].own_bytes, "MPI_Send: the send inside is charged to it, not to its own records");
    EXPECT_EQ("flush_all visits", 5, r[3].visits);
    EXPECT_EQ("outside any region", 1, r[6].events);
    EXPECT(r[1].unfilterable == NULL && r[3].unfilterable == NULL && r[2].unfilterable && r[0].unfilterable,
           "unfilterable as the callback says");
    EXPECT(r[6].unfilterable != NULL, "the outside row cannot be filtered");
    EXPECT_EQ("groups", ST_SCORE_MPI_OTHER, r[1].group);
    EXPECT_EQ("group of MPI_Send", ST_SCORE_MPI_P2P, r[2].group);
    EXPECT_EQ("group of MPI_Win_flush_all", ST_SCORE_MPI_RMA, r[3].group);
    EXPECT_EQ("group of the barrier", ST_SCORE_OPENMP, r[4].group);
    EXPECT_EQ("group of the flush", ST_SCORE_MEASUREMENT, r[5].group);
    EXPECT_EQ("group of main", ST_SCORE_USER, r[0].group);
    uint64_t rows = 0, locs = 0, evs = 0, by_event = 0;
    for (size_t i = 0; i < s.nrows; i++)
        rows += s.rows[i].bytes, evs += s.rows[i].events;
    for (size_t i = 0; i < s.nlocs; i++) {
        locs += s.locs[i].bytes;
        uint64_t prev = 0;
        for (size_t k = 0; k < ar.locs[i].n; k++) {
            by_event += st_score_event_bytes(&ar, &ar.locs[i].ev[k], prev);
            prev = ar.locs[i].ev[k].time;
        }
        EXPECT_EQ("file = records + chunk overhead", s.locs[i].bytes + 27, s.locs[i].file_bytes);
    }
    EXPECT_EQ("rows' bytes = locations' bytes", locs, rows);
    EXPECT_EQ("rows' bytes = the events' bytes", by_event, rows);
    EXPECT_EQ("total bytes", rows, s.bytes);
    EXPECT_EQ("every event charged once", ar.locs[0].n + ar.locs[1].n, evs);
    EXPECT_EQ("region id by name", ST_REGION_FLUSH, st_score_region_id("TRACE BUFFER FLUSH"));
    EXPECT(st_score_region_id("no such region") == ST_REGION__COUNT, "unknown name");

    /* the proposal on this profile: Type_size (1000 on location 0) with a limit of 1000 */
    st_score_rank(s.rows, s.nrows);
    unsigned char pick[8];
    uint64_t saved;
    st_score_rule_t rule = {1000, 10000};
    EXPECT_EQ("profile proposal", 1, st_score_propose(s.rows, s.nrows, &rule, pick, &saved));
    EXPECT_EQ("profile proposal saves Type_size's records", 2600 * 12, saved);
    st_score_free(&s);
    st_cli_archive_free(&ar);
}

int main(void)
{
    proposal();
    record_sizes();
    profile();
    if (!failures)
        printf("test_score: ok\n");
    return failures != 0;
}
