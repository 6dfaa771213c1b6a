/*
 * filtersum.h — what a filter (SYNCTRACE_FILTER) removed, kept for the archive: the per-thread
 * counters of filtered calls (record.h's st_thread_t.filtered) as rank data (st_filtered_sum_t),
 * and the filter itself (its path, a digest and its rules) as rank properties.
 */
#ifndef ST_FILTERSUM_H
#define ST_FILTERSUM_H

#include <stddef.h>

#include "../model/rankdata.h"
#include "../record/record.h"

/*
 * The non-zero counters of threads[0..nth) into out (at most cap records, thread by thread,
 * regions by id) and returns how many there are (may exceed cap: the rest is not written).
 * Async-signal-safe (reads memory only); meant for when recording has stopped.
 */
uint32_t st_filtersum_snapshot(st_thread_t *const *threads, size_t nth, st_filtered_sum_t *out, uint32_t cap);

/* Every recorded thread's filtered calls into rd->filtered (allocated). 0, or -1 when out of memory
 * (logged; rd then has none). Not async-signal-safe. */
int st_filtersum_collect(st_rankdata_t *rd);

/*
 * With a filter: the properties FILTER (its path), FILTER_DIGEST ("fnv1a64:<16 hex> <n> bytes"
 * of the file's content), FILTER_RULES (how many rule lines) and FILTER_RULE.<k> (k = 1.., each
 * rule line trimmed, comments and blank lines left out; at most ST_FILTER_MAX_RULES), from the
 * filter as parsed at load (st_record_filter): the file is not read again. Without a filter nothing.
 */
void st_filtersum_props(st_rankdata_t *rd);

#endif
