/*
 * test_gaps.c — st_events_close_gaps (src/model/gaps.h): a location's events with holes where
 * events were lost come out well nested.
 *
 * An exact case (a multi wait whose LEAVE is in the hole, as a full disk left it in the CI run of
 * session 20), a widened hole, an OpenMP worker's team cut by a hole, and 2000 random traces: well-nested programs of ENTER/LEAVE and
 * other events, with random stretches cut out and their positions given as holes. After the
 * rewrite st_trace_check finds nothing (no crossed or orphan LEAVE, nothing left open in a run
 * marked complete); every kept event other than a LEAVE is there, in order, unchanged; the
 * LEAVEs added sit at holes at the time of the event before; and the count of dropped events
 * is what was removed.
 */
/* link: src/model/gaps.c src/util/mem.c src/model/trace_check.c src/util/log.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/model/gaps.h"
#include "../../src/model/trace_check.h"
#include "check.h"

#define EV(t, k, r) { .time = (t), .kind = (k), .region = (r), .peer = -1 }

static size_t problems(st_event_t *ev, size_t n)
{
    st_thread_data_t t = { .index = 0, .omp_num = -1, .events = ev, .nevents = n };
    st_rankdata_t rd = { .rank = 0, .nranks = 1, .flags = 0, .nthreads = 1, .threads = &t };
    return st_trace_check(&rd);
}

static st_event_t *copy(const st_event_t *ev, size_t n)
{
    st_event_t *c = malloc((n ? n : 1) * sizeof *c);
    REQUIRE(c != NULL);
    memcpy(c, ev, n * sizeof *c);
    return c;
}

/* Init [hole: Waitall's LEAVE and what followed] Irecv Irecv Waitall, Finalize: 4 = main. */
static void test_waitall(void)
{
    const st_event_t in[] = { EV(1, ST_EV_ENTER, 4), EV(2, ST_EV_ENTER, 7), EV(3, ST_EV_MPI_IRECV, 0),
                              /* hole: LEAVE 7 (t 9) and ENTER 8 (t 10) were lost */
                              EV(11, ST_EV_MPI_IRECV_REQUEST, 0), EV(12, ST_EV_LEAVE, 8), EV(13, ST_EV_ENTER, 8),
                              EV(14, ST_EV_LEAVE, 8), EV(15, ST_EV_LEAVE, 4) };
    const st_gap_t hole = { 3, 3 };
    size_t n = sizeof in / sizeof in[0];
    uint64_t dropped = 99;
    st_event_t *out = st_events_close_gaps(copy(in, n), &n, &hole, 1, &dropped);
    REQUIRE(out != NULL);
    const st_event_t want[] = { EV(1, ST_EV_ENTER, 4), EV(2, ST_EV_ENTER, 7), EV(3, ST_EV_MPI_IRECV, 0),
                                EV(3, ST_EV_LEAVE, 7), EV(3, ST_EV_LEAVE, 4), EV(11, ST_EV_MPI_IRECV_REQUEST, 0),
                                EV(13, ST_EV_ENTER, 8), EV(14, ST_EV_LEAVE, 8) };
    REQUIRE_EQ(n, sizeof want / sizeof want[0]);
    EXPECT(dropped == 2, "dropped %llu LEAVEs, expected 2 (region 8's first, main's)", (unsigned long long)dropped);
    for (size_t i = 0; i < n; i++)
        EXPECT(out[i].kind == want[i].kind && out[i].region == want[i].region && out[i].time == want[i].time,
               "event %zu: kind %u region %u time %llu", i, out[i].kind, out[i].region,
               (unsigned long long)out[i].time);
    EXPECT(problems(out, n) == 0);
    free(out);

    /* no hole: the array itself comes back */
    n = sizeof in / sizeof in[0];
    st_event_t *same = copy(in, n);
    EXPECT(st_events_close_gaps(same, &n, NULL, 0, NULL) == same);
    free(same);
}

/* A widened hole: events [2, 4) are dropped with the hole. */
static void test_widened(void)
{
    const st_event_t in[] = { EV(1, ST_EV_ENTER, 4), EV(2, ST_EV_MPI_SEND, 0), EV(3, ST_EV_ENTER, 5),
                              EV(4, ST_EV_LEAVE, 5), EV(5, ST_EV_ENTER, 6), EV(6, ST_EV_LEAVE, 6),
                              EV(7, ST_EV_LEAVE, 4) };
    const st_gap_t hole = { 2, 4 };
    size_t n = sizeof in / sizeof in[0];
    uint64_t dropped;
    st_event_t *out = st_events_close_gaps(copy(in, n), &n, &hole, 1, &dropped);
    REQUIRE(out != NULL);
    /* ENTER 4, SEND, LEAVE 4 (t 2, the hole), ENTER 6, LEAVE 6; main's LEAVE dropped */
    REQUIRE_EQ(n, 5);
    EXPECT(dropped == 3, "dropped %llu, expected 2 in the range + main's LEAVE", (unsigned long long)dropped);
    EXPECT(out[2].kind == ST_EV_LEAVE && out[2].region == 4 && out[2].time == 2);
    EXPECT(out[3].kind == ST_EV_ENTER && out[3].region == 6 && out[4].kind == ST_EV_LEAVE);
    EXPECT(problems(out, n) == 0);
    free(out);
}

/* A worker whose hole falls inside a team: the team is closed at the hole and the rest of it (up to
 * the team end the hole orphaned) is dropped; the next team is kept. */
static void test_team(void)
{
    st_event_t in[] = { { .time = 1, .kind = ST_EV_THREAD_TEAM_BEGIN, .id = 7, .peer = 1 }, EV(2, ST_EV_ENTER, 20),
                        /* hole */
                        EV(10, ST_EV_ENTER, 21), EV(11, ST_EV_LEAVE, 21), EV(12, ST_EV_LEAVE, 20),
                        { .time = 13, .kind = ST_EV_THREAD_TEAM_END, .id = 7, .peer = 1 },
                        { .time = 14, .kind = ST_EV_THREAD_TEAM_BEGIN, .id = 8, .peer = 1 }, EV(15, ST_EV_ENTER, 20),
                        EV(16, ST_EV_LEAVE, 20), { .time = 17, .kind = ST_EV_THREAD_TEAM_END, .id = 8, .peer = 1 } };
    const st_gap_t hole = { 2, 2 };
    size_t n = sizeof in / sizeof in[0];
    uint64_t dropped;
    st_event_t *out = st_events_close_gaps(copy(in, n), &n, &hole, 1, &dropped);
    REQUIRE(out != NULL);
    REQUIRE_EQ(n, 8);
    EXPECT(dropped == 4, "dropped %llu: the rest of team 7 is 4 events", (unsigned long long)dropped);
    EXPECT(out[2].kind == ST_EV_LEAVE && out[2].region == 20 && out[2].time == 2, "region 20 closed at the hole");
    EXPECT(out[3].kind == ST_EV_THREAD_TEAM_END && out[3].id == 7 && out[3].peer == 1 && out[3].time == 2,
           "team 7 ended at the hole (kind %u id %llu)", out[3].kind, (unsigned long long)out[3].id);
    EXPECT(out[4].kind == ST_EV_THREAD_TEAM_BEGIN && out[4].id == 8 && out[4].time == 14, "team 8 kept");
    EXPECT(problems(out, n) == 0);
    free(out);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t m)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng % m);
}

/* A well-nested program of n events (regions 1..9, nested at most 12 deep), all closed at the end. */
static size_t program(st_event_t *ev, size_t n)
{
    uint32_t stack[16], depth = 0;
    size_t k = 0;
    while (k + depth < n) {
        uint32_t c = rnd(3);
        if (c == 0 && depth < 12) {
            stack[depth++] = 1 + rnd(9);
            ev[k] = (st_event_t)EV(k, ST_EV_ENTER, stack[depth - 1]);
        } else if (c == 1 && depth) {
            ev[k] = (st_event_t)EV(k, ST_EV_LEAVE, stack[--depth]);
        } else {
            ev[k] = (st_event_t)EV(k, ST_EV_MPI_SEND, 0);
        }
        ev[k].id = k + 1; /* who it was (an added LEAVE has id 0) */
        k++;
    }
    while (depth)
        ev[k] = (st_event_t)EV(k, ST_EV_LEAVE, stack[--depth]), ev[k].id = k + 1, k++;
    return k;
}

static void test_random(void)
{
    enum { N = 300 };
    st_event_t full[N], kept[N];
    for (int round = 0; round < 2000; round++) {
        size_t n = program(full, 40 + rnd(N - 40));
        /* cut up to 4 stretches out; a hole lies where each was */
        st_gap_t holes[4];
        size_t nk = 0, nh = 0, i = 0;
        while (i < n) {
            if (nh < 4 && rnd(40) == 0) {
                if (!nh || holes[nh - 1].at != nk) /* (right after the last hole: the same hole) */
                    holes[nh++] = (st_gap_t){ nk, nk };
                i += 1 + rnd(30);
                continue;
            }
            kept[nk++] = full[i++];
        }
        size_t m = nk;
        uint64_t dropped;
        st_event_t *out = st_events_close_gaps(copy(kept, nk), &m, holes, nh, &dropped);
        REQUIRE(out != NULL);
        EXPECT(problems(out, m) == 0, "round %d: %zu problems after closing %zu holes", round, problems(out, m), nh);
        /* every kept event other than a LEAVE, in order and unchanged; LEAVEs added only at a hole */
        size_t j = 0, gone = 0;
        for (size_t a = 0; a < m; a++) {
            if (out[a].id == 0) { /* added */
                int at_hole = 0;
                for (size_t h = 0; h < nh; h++)
                    at_hole |= holes[h].at == j;
                EXPECT(out[a].kind == ST_EV_LEAVE && at_hole && j && out[a].time == kept[j - 1].time,
                       "round %d: an added event (kind %u) after kept event %zu is no LEAVE at a hole", round,
                       out[a].kind, j);
                continue;
            }
            for (; j < nk && kept[j].id != out[a].id; j++, gone++)
                EXPECT(kept[j].kind == ST_EV_LEAVE, "round %d: kept event %zu (kind %u) is missing", round, j,
                       kept[j].kind);
            REQUIRE(j < nk, "round %d: event id %llu out of order", round, (unsigned long long)out[a].id);
            EXPECT(!memcmp(&out[a], &kept[j], sizeof out[a]), "round %d: event %zu changed", round, j);
            j++;
        }
        for (; j < nk; j++, gone++)
            EXPECT(kept[j].kind == ST_EV_LEAVE, "round %d: kept event %zu (kind %u) is missing", round, j,
                   kept[j].kind);
        EXPECT(dropped == gone, "round %d: %llu dropped reported, %zu gone", round, (unsigned long long)dropped, gone);
        free(out);
    }
}

int main(void)
{
    test_waitall();
    test_widened();
    test_team();
    test_random();
    printf("test_gaps: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
