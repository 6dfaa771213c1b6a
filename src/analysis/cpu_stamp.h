/*
 * cpu_stamp.h — what a step of the analysis cost: the calling thread's CPU time and the process's
 * page faults (at MPI_Finalize much of the analysis' time goes to faults on fresh pages). The
 * SYNCTRACE_VERBOSE=2 lines of the wait-state analysis and the root causes report both.
 */
#ifndef ST_ANALYSIS_CPU_STAMP_H
#define ST_ANALYSIS_CPU_STAMP_H

#include <sys/resource.h>

#include "../util/clockread.h"

typedef struct an_stamp {
    double ms;     /* the thread's CPU time, ms */
    long   faults; /* the process's minor page faults */
} an_stamp_t;

static inline void an_stamp(an_stamp_t *s)
{
    struct rusage ru;
    s->ms = st_clock_ms(CLOCK_THREAD_CPUTIME_ID);
    s->faults = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

/* *sum += the cost since `since`. */
static inline void an_stamp_add(an_stamp_t *sum, const an_stamp_t *since)
{
    an_stamp_t now;
    an_stamp(&now);
    sum->ms += now.ms - since->ms, sum->faults += now.faults - since->faults;
}

#endif
