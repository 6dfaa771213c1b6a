/*
 * omp_thread.c — per-thread OpenMP state, the open-region stack, and the end of
 * OpenMP recording (st_omp_finalize).
 *
 * The region stack mirrors the ENTERs recorded on the thread, so every LEAVE names a
 * region that is open and a region the runtime never closes (gcc's single construct
 * has no end call) is closed when the next construct proves it over.
 */
#include "omp.h"
#include "omp_int.h"

#include <stdlib.h>

#include "../config/config.h"
#include "../util/log.h"

volatile int st_omp_on;
int st_omp_callsite;
__thread st_omp_thread_t *st_omp_tls __attribute__((tls_model("initial-exec")));
__thread int st_omp_began __attribute__((tls_model("initial-exec")));
int st_omp_began_known;
st_omp_stats_t st_omp_stats;
st_omp_par_t *st_omp_rings[ST_MAX_THREADS];

static atomic_int finalized;
static _Atomic(st_omp_thread_t *) all_threads; /* every state ever allocated (lock-free push) */

st_omp_thread_t *st_omp_thread_new(void)
{
    if (st_config.buffer) /* configuration loaded (see ompt_tool.c): it may come after tool init */
        st_omp_callsite = st_config.callsite;
    st_omp_thread_t *ot = st_record_alloc_line(sizeof *ot); /* no line shared with another thread's state */
    if (!ot) {
        st_log_warn_once("cannot allocate OpenMP thread state; this thread's OpenMP events are not recorded");
        return NULL;
    }
    ot->next = atomic_load_explicit(&all_threads, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&all_threads, &ot->next, ot, memory_order_release,
                                                  memory_order_relaxed))
        ;
    st_omp_tls = ot;
    return ot;
}

st_thread_t *st_omp_attach(st_omp_thread_t *ot)
{
    st_thread_t *th = st_thread_self();
    if (th) {
        th->omp = ot;
        ot->th = th;
        st_omp_rings[th->index] = ot->ring; /* before any region it forks names it (parallel_begin attaches first) */
        st_record_set_room(th, ST_OMP_ROOM);
    }
    return th;
}

/* ---- open regions ------------------------------------------------------------------ */

void st_omp_close_above(st_omp_thread_t *ot, uint32_t base, uint64_t t)
{
    ot->lost = 0; /* dropped enters were nested inside what is closed now */
    for (int first = 1; ot->nregions > base; first = 0) {
        st_region_t r = ot->region[--ot->nregions];
        /* leaves at now share the first one's clock read */
        st_event_t *e = t == 0 && !first ? st_omp_record_again(ot->th, ST_EV_LEAVE) : st_omp_record_at(ot->th, ST_EV_LEAVE, t);
        e->region = r;
        e->flags = st_omp_region_flags(r);
    }
}

void st_omp_leave_search(st_omp_thread_t *ot, st_region_t r, uint64_t t)
{
    if (ot->lost) {
        ot->lost--;
        return;
    }
    uint32_t base = st_omp_rbase(ot), i = ot->nregions;
    while (i > base && ot->region[i - 1] != r)
        i--;
    if (i > base)
        st_omp_close_above(ot, i - 1, t);
}

/* ---- end of OpenMP recording -------------------------------------------------------- */

/*
 * Closes the innermost team of an idle thread as the runtime would have reported it later: a worker's whose master
 * ended the team as a late team end (st_omp_late_team_end: the trace's preparation stamps it with the master's
 * times); the calling thread's own team that still runs at now. Returns 0, or -1 if another thread's team still
 * runs.
 */
static int close_team(st_omp_thread_t *ot, int own)
{
    st_omp_level_t *lv = st_omp_top(ot);
    if (!lv || !lv->par) {
        st_omp_set_depth(ot, ot->depth - 1);
        return 0;
    }
    int state = lv->index == 0 ? ST_OMP_RUNNING : st_omp_master_end(lv);
    if (state == ST_OMP_RUNNING && !own)
        return -1;
    if (state == ST_OMP_RUNNING) {
        st_omp_close_above(ot, lv->rbase, 0);
        st_event_t *e = st_omp_record_at(ot->th, ST_EV_THREAD_TEAM_END, 0);
        e->id = lv->id;
        e->peer = (int32_t)lv->index;
    } else {
        st_omp_late_team_end(ot, lv);
    }
    st_omp_set_depth(ot, ot->depth - 1);
    return 0;
}

void st_omp_finalize(void)
{
    if (atomic_exchange(&finalized, 1))
        return;
    st_omp_on = 0;
    unsigned running = 0;
    for (st_omp_thread_t *ot = atomic_load_explicit(&all_threads, memory_order_acquire); ot; ot = ot->next) {
        while (ot->th && ot->depth > 0) {
            if (ot->depth > ST_OMP_LEVELS) {
                st_omp_set_depth(ot, ot->depth - 1);
            } else if (close_team(ot, ot == st_omp_tls) != 0) {
                running++;
                break;
            }
        }
    }
    if (running)
        st_log_warn("%u OpenMP threads were still inside a parallel region when recording ended; "
                    "their open regions stay unclosed in the trace", running);
    if (st_omp_stats.lost_regions || st_omp_stats.deep_teams || st_omp_stats.unordered)
        st_log_info("OpenMP: %llu regions nested deeper than %d not recorded, %llu teams nested deeper than %d "
                    "not recorded, %llu lock events without acquisition order",
                    (unsigned long long)st_omp_stats.lost_regions, ST_OMP_REGIONS,
                    (unsigned long long)st_omp_stats.deep_teams, ST_OMP_LEVELS,
                    (unsigned long long)st_omp_stats.unordered);
}
