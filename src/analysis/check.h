/*
 * check.h — the invariants of an analysis result's metric tree (docs/analysis.md, "Consistency of
 * the metric tree"), checked on every result before it is written: by the in-run analysis
 * (inrun_mpi.c), `synctrace analyze` (serial and parallel), `report` and `export`.
 * MPI-free, single-threaded.
 */
#ifndef ST_AN_CHECK_H
#define ST_AN_CHECK_H

#include <stddef.h>

#include "analysis.h"

/*
 * Checks result r (resolution: timer ticks per second, for the message):
 *   1. on every location, Time over all call paths adds up to the location's span (r->span);
 *   2. at every (call path, location) no value is negative and every metric holds at least the
 *      sum of its children;
 *   3. on every thread, Idle threads less Limited parallelism is at most the Time of its master
 *      (thread 0 of its rank) at the call paths outside parallel regions (0 without a master);
 *   4. the critical path (rootcause.h) over all call paths and locations adds up to the run's length
 *      (first to last event): the extent of its hops (r->causes), which follow each other without
 *      gap; no location's span exceeds that length (without hops: the critical path's sum);
 *   5. once the root causes are computed (Performance impact > 0), the Performance impact over all
 *      call paths and locations adds up to the sum of the locations' spans.
 * Returns the number of violations; the first is described in msg (one line, no newline; "" if
 * none): the metric, the call path, the location and the two numbers.
 */
size_t st_an_check_tree(const st_an_result_t *r, uint64_t resolution, char *msg, size_t n);

/*
 * st_an_check_tree, and if anything is violated one error line on stderr (st_log_error) naming the
 * first violation and how many there are. Returns the number of violations.
 * events_lost: nonzero when some rank could not write events (EVENTS_LOST). With some lost,
 * the invariants are not promised: a thread that lost events inside an OpenMP team is set against its
 * master's time, whose holes lie elsewhere (model/gaps.h). Then the line is a warning that says so,
 * and 0 is returned.
 */
size_t st_an_check_report(const st_an_result_t *r, uint64_t resolution, uint64_t events_lost);

#endif
