/*
 * test_trace_check.c — st_trace_check finds backwards time, unmatched or crossed leaves and
 * regions left open in complete runs, and accepts a correct trace.
 */
/* link: src/model/trace_check.c src/util/log.c */
#include <stdio.h>
#include <stdlib.h>

#include "../../src/model/trace_check.h"
#include "check.h"

static size_t run(st_event_t *ev, size_t n, uint32_t flags)
{
    st_thread_data_t t = { .index = 0, .omp_num = -1, .events = ev, .nevents = n };
    st_rankdata_t rd = { .rank = 3, .nranks = 4, .flags = flags, .nthreads = 1, .threads = &t };
    return st_trace_check(&rd);
}

#define EV(t, k, r) { .time = (t), .kind = (k), .region = (r), .peer = -1 }

int main(void)
{
    st_event_t good[] = { EV(1, ST_EV_ENTER, 5), EV(2, ST_EV_ENTER, 6), EV(2, ST_EV_MPI_SEND, 0),
                          EV(3, ST_EV_LEAVE, 6), EV(4, ST_EV_LEAVE, 5) };
    REQUIRE(run(good, 5, 0) == 0);
    st_event_t back[] = { EV(5, ST_EV_ENTER, 5), EV(4, ST_EV_LEAVE, 5) };
    REQUIRE(run(back, 2, 0) == 1);
    st_event_t crossed[] = { EV(1, ST_EV_ENTER, 5), EV(2, ST_EV_ENTER, 6), EV(3, ST_EV_LEAVE, 5), EV(4, ST_EV_LEAVE, 6) };
    REQUIRE(run(crossed, 4, 0) >= 1);
    st_event_t orphan[] = { EV(1, ST_EV_LEAVE, 5) };
    REQUIRE(run(orphan, 1, 0) == 1);
    st_event_t open_[] = { EV(1, ST_EV_ENTER, 5), EV(2, ST_EV_ENTER, 6), EV(3, ST_EV_LEAVE, 6) };
    REQUIRE(run(open_, 3, 0) == 1);
    REQUIRE(run(open_, 3, ST_RANKF_INCOMPLETE) == 0); /* an aborted run may stop inside a region */
    printf("trace_check: ok\n");
    return 0;
}
