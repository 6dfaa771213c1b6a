/* trace_check.c — see trace_check.h. */
#include "trace_check.h"

#include <inttypes.h>
#include <stdlib.h>

#include "region.h"
#include "../util/log.h"

#define MAX_REPORTS 5
#define MAX_DEPTH   256

static void report(size_t *found, const st_rankdata_t *rd, const st_thread_data_t *t, uint64_t i, const char *what)
{
    if (++*found <= MAX_REPORTS)
        st_log_warn("trace check: rank %d thread %u event %" PRIu64 ": %s", rd->rank, t->index, i, what);
}

static void check_thread(const st_rankdata_t *rd, const st_thread_data_t *t, size_t *found)
{
    uint32_t stack[MAX_DEPTH];
    size_t depth = 0;
    for (uint64_t i = 0; i < t->nevents; i++) {
        const st_event_t *e = &t->events[i];
        if (i && e->time < t->events[i - 1].time)
            report(found, rd, t, i, "time goes backwards");
        if (e->kind == ST_EV_ENTER) {
            if (depth == MAX_DEPTH)
                report(found, rd, t, i, "regions nested deeper than 256");
            else
                stack[depth++] = e->region;
        } else if (e->kind == ST_EV_LEAVE) {
            if (!depth)
                report(found, rd, t, i, "leave without a matching enter");
            else if (stack[--depth] != e->region)
                report(found, rd, t, i, "leave of a region that is not the innermost open one");
        }
    }
    if (depth && !(rd->flags & ST_RANKF_INCOMPLETE))
        report(found, rd, t, t->nevents, "regions still open at the end of a complete run");
}

size_t st_trace_check(const st_rankdata_t *rd)
{
    size_t found = 0;
    for (uint32_t i = 0; i < rd->nthreads; i++)
        if (rd->threads[i].events)
            check_thread(rd, &rd->threads[i], &found);
    if (found > MAX_REPORTS)
        st_log_warn("trace check: rank %d: %zu problems in all", rd->rank, found);
    return found;
}
