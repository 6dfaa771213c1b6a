/*
 * late_ends.h — the OpenMP workers' late team ends stamped with their masters' times.
 *
 * LLVM reports a worker's end of a team (its implicit task, and of the team's last implicit
 * barrier) only when the worker is woken for its next team. src/omp records such an end at the
 * worker's previous event and marks it (ST_OMP_LATE_END, model/event.h), so that no worker reads
 * what its master wrote while the application runs; here, in the trace's preparation, the marked
 * events get the master's end of its implicit task (its THREAD_TEAM_END's time) and the LEAVE of
 * the team's last implicit barrier just before them the master's LEAVE of that barrier, kept
 * between the worker's events before and after them. Both are the master's event times, which
 * the finalize's re-mapping has moved as it moved the worker's.
 */
#ifndef ST_MODEL_LATE_ENDS_H
#define ST_MODEL_LATE_ENDS_H

#include <stddef.h>
#include <stdint.h>

#include "rankdata.h"

typedef struct st_late_end_at {
    st_thread_data_t *t;
    uint64_t          pos; /* index of a THREAD_TEAM_END in t->events */
    uint64_t          id;  /* its parallel id */
} st_late_end_at_t;

typedef struct st_late_ends {
    st_late_end_at_t *master, *late; /* the masters' team ends; the workers' marked ones */
    size_t            nmaster, nlate, capmaster, caplate;
    int               failed; /* out of memory: nothing is stamped, the marks are cleared */
} st_late_ends_t;

/* Notes e, an event of t (in its final place in t->events), when it is a THREAD_TEAM_END. */
void st_late_ends_note(st_late_ends_t *le, const st_thread_data_t *t, const st_event_t *e);

/* Stamps the marked ends noted with their masters' times and clears every mark; frees le's memory. Returns how
 * many marked ends found no master (they keep the worker's own times). */
uint64_t st_late_ends_resolve(st_late_ends_t *le);

#endif
