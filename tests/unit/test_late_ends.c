/*
 * test_late_ends.c — st_late_ends (src/model/late_ends.h): OpenMP workers' late team ends stamped
 * with their masters' times when a rank's data is prepared.
 *
 *   - the usual team: the worker's marked LEAVE parallel and team end get the master's team end,
 *     its last implicit barrier's LEAVE the master's LEAVE of that barrier; also when a buffer
 *     flush came between the master's barrier and its team end, and when the finalize's
 *     re-mapping moved the master's later events more than its earlier ones (a clock's rate
 *     corrected): the stamps are the master's event times as they are now;
 *   - a master's end later than the worker's next event: the stamps stay before that event;
 *   - a worker whose master's end is not there: marks cleared, the worker's own times kept, counted;
 *   - two masters (nested teams) noted out of id order: each worker finds its own;
 *   - afterwards no event carries a mark.
 */
/* link: src/model/late_ends.c */
#include <stdio.h>
#include <string.h>

#include "../../src/model/late_ends.h"
#include "../../src/model/region.h"
#include "check.h"

#define EV(t, k, r) { .time = (t), .kind = (k), .region = (r), .peer = -1 }

/* A team end of thread number num for parallel id id at t; late: marked. */
static st_event_t team_end(uint64_t t, uint64_t id, int32_t num, int late)
{
    return (st_event_t){ .time = t, .kind = ST_EV_THREAD_TEAM_END, .id = id, .peer = num,
                         .tag = late ? ST_OMP_LATE_END : 0 };
}

static st_event_t late_leave(uint64_t t, st_region_t r, uint64_t id)
{
    return (st_event_t){ .time = t, .kind = ST_EV_LEAVE, .region = r, .peer = -1, .id = id, .tag = ST_OMP_LATE_END };
}

static uint64_t resolve(st_thread_data_t *td, size_t nt)
{
    st_late_ends_t le = { 0 };
    for (size_t i = 0; i < nt; i++)
        for (uint64_t j = 0; j < td[i].nevents; j++)
            st_late_ends_note(&le, &td[i], &td[i].events[j]);
    return st_late_ends_resolve(&le);
}

static void no_marks(const st_thread_data_t *td, size_t nt)
{
    for (size_t i = 0; i < nt; i++)
        for (uint64_t j = 0; j < td[i].nevents; j++) {
            const st_event_t *e = &td[i].events[j];
            EXPECT(e->kind != ST_EV_LEAVE || (e->tag == 0 && e->id == 0), "thread %zu event %llu", i,
                   (unsigned long long)j);
            EXPECT(e->kind != ST_EV_THREAD_TEAM_END || e->tag == 0, "thread %zu event %llu", i, (unsigned long long)j);
        }
}

/* One team of two threads, the master's times after its barrier's LEAVE moved by shift more than those before (the
 * re-mapping of a clock whose rate it corrected, over a flush's wait); with flush, the master waited for the disk
 * between its barrier and its team end. */
static void usual_team(uint64_t shift, int flush)
{
    const uint64_t id = (1ull << 40) | 7, s = shift;
    st_event_t m[] = { EV(100, ST_EV_ENTER, ST_REGION_OMP_IBARRIER), EV(160, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER),
                       EV(165, ST_EV_ENTER, ST_REGION_FLUSH), EV(s + 168, ST_EV_LEAVE, ST_REGION_FLUSH),
                       EV(s + 170, ST_EV_LEAVE, ST_REGION_OMP_PARALLEL), team_end(s + 170, id, 0, 0),
                       EV(s + 175, ST_EV_THREAD_JOIN, 0) };
    if (!flush) /* no flush: the LEAVE parallel, team end and join two places earlier */
        memmove(&m[2], &m[4], 3 * sizeof m[0]);
    /* the worker's ends reported at 500, when it was woken for the next team (its begin at 600) */
    st_event_t w[] = { EV(110, ST_EV_ENTER, ST_REGION_OMP_IBARRIER), EV(s + 500, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER),
                       late_leave(s + 500, ST_REGION_OMP_PARALLEL, id), team_end(s + 500, id, 1, 1),
                       EV(s + 600, ST_EV_THREAD_TEAM_BEGIN, 0) };
    st_thread_data_t td[2] = { { .index = 0, .events = m, .nevents = flush ? 7 : 5 },
                               { .index = 1, .events = w, .nevents = 5 } };
    EXPECT(resolve(td, 2) == 0);
    EXPECT(w[1].time == 160, "barrier end %llu, the master's LEAVE 160", (unsigned long long)w[1].time);
    EXPECT(w[2].time == s + 170 && w[3].time == s + 170);
    EXPECT(w[0].time == 110 && w[4].time == s + 600); /* the others keep theirs */
    no_marks(td, 2);
}

int main(void)
{
    usual_team(0, 0);
    usual_team(0, 1);
    usual_team(577, 0);
    usual_team(577, 1); /* a master's end of waiting kept as a time or as a difference beside its events misses it */

    /* the master's end later than the worker's next event (times read on two CPUs): kept before it */
    {
        const uint64_t id = (1ull << 40) | 1;
        st_event_t m[] = { EV(100, ST_EV_ENTER, ST_REGION_OMP_IBARRIER), EV(300, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER),
                           team_end(400, id, 0, 0) };
        st_event_t w[] = { EV(110, ST_EV_ENTER, ST_REGION_OMP_IBARRIER), EV(200, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER),
                           late_leave(200, ST_REGION_OMP_PARALLEL, id), team_end(200, id, 1, 1),
                           EV(350, ST_EV_ENTER, ST_REGION_OMP_TASK) };
        st_thread_data_t td[2] = { { .index = 0, .events = m, .nevents = 3 }, { .index = 1, .events = w, .nevents = 5 } };
        EXPECT(resolve(td, 2) == 0);
        EXPECT(w[1].time == 300 && w[2].time == 350 && w[3].time == 350, "%llu %llu %llu",
               (unsigned long long)w[1].time, (unsigned long long)w[2].time, (unsigned long long)w[3].time);
        no_marks(td, 2);
    }

    /* no master's end (its events lost): marks cleared, times kept, counted */
    {
        const uint64_t id = (2ull << 40) | 3;
        st_event_t w[] = { EV(110, ST_EV_ENTER, ST_REGION_OMP_IBARRIER), EV(500, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER),
                           late_leave(500, ST_REGION_OMP_PARALLEL, id), team_end(500, id, 1, 1) };
        st_thread_data_t td[1] = { { .index = 1, .events = w, .nevents = 4 } };
        EXPECT(resolve(td, 1) == 1);
        EXPECT(w[1].time == 500 && w[2].time == 500 && w[3].time == 500);
        no_marks(td, 1);
    }

    /* nested teams: thread 1 masters id b (noted first), thread 0 masters id a < b; workers 2 and 3 */
    {
        const uint64_t a = (1ull << 40) | 5, b = (2ull << 40) | 1;
        st_event_t m0[] = { team_end(1000, a, 0, 0) };
        st_event_t m1[] = { EV(760, ST_EV_ENTER, ST_REGION_OMP_IBARRIER), EV(770, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER),
                            team_end(800, b, 0, 0), team_end(1000, a, 1, 1) };
        st_event_t w2[] = { EV(700, ST_EV_ENTER, ST_REGION_OMP_IBARRIER), EV(900, ST_EV_LEAVE, ST_REGION_OMP_IBARRIER),
                            late_leave(900, ST_REGION_OMP_PARALLEL, b), team_end(900, b, 1, 1) };
        st_thread_data_t td[3] = { { .index = 1, .events = m1, .nevents = 4 }, { .index = 0, .events = m0, .nevents = 1 },
                                   { .index = 2, .events = w2, .nevents = 4 } };
        EXPECT(resolve(td, 3) == 0);
        EXPECT(w2[1].time == 770 && w2[2].time == 800 && w2[3].time == 800);
        EXPECT(m1[3].time == 1000); /* thread 1's own late end in team a, no LEAVE marked before it */
        no_marks(td, 3);
    }

    if (failures)
        fprintf(stderr, "test_late_ends: %d checks failed\n", failures);
    return failures != 0;
}
