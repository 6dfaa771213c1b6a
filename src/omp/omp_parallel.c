/*
 * omp_parallel.c — OMPT callbacks for threads, teams, barriers and worksharing.
 *
 * Events per parallel region (OTF2 terms, as Score-P writes them):
 *   master:  THREAD_FORK, then like every member:
 *   member:  THREAD_TEAM_BEGIN, ENTER parallel, ... ENTER/LEAVE implicit barrier,
 *            LEAVE parallel, THREAD_TEAM_END
 *   master:  THREAD_JOIN
 *
 * LLVM libomp reports a worker's end of the closing implicit barrier and of its
 * implicit task only when the worker is woken for its next team (or at shutdown).
 * Such late ends are stamped with the times the master published for the team —
 * when it saw the barrier complete, when it ended its implicit task — so that the
 * worker's barrier ends after every thread entered it and its team end precedes the
 * join. A worker end that arrives while the master has not published them yet is
 * stamped with the clock read before looking (worker_end_time): the master stamps its
 * join only after publishing, so that time precedes the join. No flush comes between a
 * worker's late barrier end and its team end (omp_int.h: flushes and relations).
 */
#include "omp_int.h"

/* ---- threads ------------------------------------------------------------------------- */

void st_omp_cb_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
    (void)type;
    (void)thread_data;
    st_omp_began = 1; /* LLVM's hidden-helper main thread forks its team without this */
    st_omp_any();     /* allocate the state now, not on the first event */
}

void st_omp_cb_thread_end(ompt_data_t *thread_data)
{
    /* Nothing to record: a thread's location simply ends. Its late team ends arrived before. */
    (void)thread_data;
}

/* ---- parallel regions ---------------------------------------------------------------- */

/* Remembers what this thread forked (p, or NULL when not recorded) until parallel_end. */
static void push_forked(st_omp_thread_t *ot, st_omp_par_t *p)
{
    if (ot->nforked <= ST_OMP_LEVELS)
        ot->forked[ot->nforked] = p;
    ot->nforked++;
}

static int forked_open(const st_omp_thread_t *ot, const st_omp_par_t *p)
{
    for (uint32_t i = 0; i < ot->nforked && i <= ST_OMP_LEVELS; i++)
        if (ot->forked[i] == p)
            return 1;
    return 0;
}

/*
 * Takes the next ring entry for a region this thread forks (never one of a region it
 * has not joined yet) and publishes its id; the end times are 0 until the master's end.
 */
static st_omp_par_t *new_region(st_omp_thread_t *ot, st_thread_t *th, const void *codeptr)
{
    uint64_t seq;
    st_omp_par_t *p;
    do {
        seq = ++ot->next_par;
        p = &ot->ring[seq % ST_OMP_RING];
    } while (forked_open(ot, p));
    /* Reuse the entry under the seqlock (see st_omp_master_end). */
    atomic_store_explicit(&p->id, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&p->t_barrier, 0, memory_order_relaxed);
    atomic_store_explicit(&p->t_end, 0, memory_order_relaxed);
    p->parent = st_omp_team_id(ot);
    p->codeptr = st_omp_callsite ? (uint64_t)(uintptr_t)codeptr : 0;
    atomic_store_explicit(&p->id, (uint64_t)(th->index + 1) << 40 | seq, memory_order_release);
    return p;
}

void st_omp_cb_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    (void)task;
    (void)frame;
    parallel->ptr = NULL; /* members of a team not recorded see NULL */
    st_omp_thread_t *ot = st_omp_any();
    if (!ot)
        return;
    st_thread_t *th = NULL;
    if ((st_omp_began_known && !st_omp_began) || (flags & ompt_parallel_league)) {
        /* hidden-helper team (its main thread never began), or a league: not recorded */
    } else if (ot->depth >= ST_OMP_LEVELS) {
        atomic_fetch_add_explicit(&st_omp_stats.deep_teams, 1, memory_order_relaxed);
    } else if (!st_omp_ignored(ot)) {
        th = ot->th ? ot->th : st_omp_attach(ot);
    }
    if (!th) {
        push_forked(ot, NULL);
        return;
    }
    st_omp_par_t *p = new_region(ot, th, codeptr);
    st_event_t *e = st_omp_record(th, ST_EV_THREAD_FORK);
    e->id = atomic_load_explicit(&p->id, memory_order_relaxed);
    e->bytes = requested;
    e->aux = p->parent;
    parallel->ptr = p;
    push_forked(ot, p);
    st_omp_flush_point(ot);
}

/*
 * The region joined is the innermost one this thread forked. parallel_data is not
 * used: LLVM 14 reads it from the team after freeing the team, and a nested team
 * freed that way may already serve another thread's fork.
 */
void st_omp_cb_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr)
{
    (void)parallel;
    (void)task;
    (void)flags;
    (void)codeptr;
    st_omp_thread_t *ot = st_omp_any();
    if (!ot || ot->nforked == 0)
        return;
    ot->nforked--;
    st_omp_par_t *p = ot->nforked <= ST_OMP_LEVELS ? ot->forked[ot->nforked] : NULL;
    if (!p || !ot->th)
        return;
    /*
     * A worker that found this team's end times unpublished stamped its end with the clock (ordered) before
     * looking (worker_end_time); the join must come after that read. The publication store can still sit
     * in this core's store buffer, and a plain rdtsc may run ahead of earlier instructions: the fence drains
     * the store, the ordered read waits for the fence (a join 10 ns before a worker's end was seen without).
     */
    atomic_thread_fence(memory_order_seq_cst);
    uint32_t epoch;
    uint64_t t = st_timer_now_ep_ordered(&epoch);
    st_event_t *e = st_record_in_room_at(ot->th, ST_EV_THREAD_JOIN, t, epoch);
    e->id = atomic_load_explicit(&p->id, memory_order_relaxed);
    e->aux = p->parent;
    st_omp_flush_point(ot);
}

/* Fills lv, the level of depth d, for team p and enters it; 0 when this thread cannot be traced (lv untouched). */
static int team_begin(st_omp_thread_t *ot, st_omp_level_t *lv, uint32_t d, st_omp_par_t *p, ompt_data_t *task,
                      unsigned actual, unsigned index)
{
    st_thread_t *th = ot->th ? ot->th : st_omp_attach(ot);
    if (!th)
        return 0;
    uint64_t id = atomic_load_explicit(&p->id, memory_order_acquire);
    *lv = (st_omp_level_t){ .par = p, .id = id, .index = index, .size = actual, .rbase = ot->nregions };
    st_omp_set_depth(ot, d);
    if (d == 1 && th->omp_thread_num < 0)
        th->omp_thread_num = (int)index;
    task->value = st_omp_new_task_id(ot) | ST_OMP_TASK_RUNNING;
    st_event_t *e = st_omp_record(th, ST_EV_THREAD_TEAM_BEGIN);
    e->id = id;
    e->peer = (int32_t)index;
    e->tag = (int32_t)actual;
    e->aux = p->parent;
    /* the same instant: no second clock read */
    st_omp_enter_stamped(ot, ST_REGION_OMP_PARALLEL, (const void *)(uintptr_t)p->codeptr, th->last, th->epoch);
    return 1;
}

/*
 * When a worker's end of the team's last implicit barrier (barrier = 1) or of its
 * implicit task happened, for a worker reporting it possibly late. Usually the master
 * has published its times long before (LLVM reports the end when the worker is woken
 * for the next team): they are used without reading the clock, and the master's end of
 * its implicit task is kept in lv for the worker's team end, which follows (no second
 * look). Otherwise (worker_end_time_slow, out of line) the clock is read (ordered: before
 * the second look) and the master's times looked at once more: if they are still not
 * published, the master stamps its team end and join only after this second look, so the
 * time read precedes them; if the master's entry was reused meanwhile, 1 (no better bound).
 */
static __attribute__((noinline)) uint64_t worker_end_time_slow(st_omp_level_t *lv, int barrier)
{
    uint64_t tb, te, now = st_timer_now_ordered();
    switch (st_omp_master_end(lv, &tb, &te)) {
    case ST_OMP_PUBLISHED:
        lv->t_end = te;
        return barrier ? tb : te;
    case ST_OMP_RUNNING:
        return now;
    default:
        atomic_fetch_add_explicit(&st_omp_stats.stale_ends, 1, memory_order_relaxed);
        return 1; /* the master's times are gone: no better bound than the thread's own last event */
    }
}

static inline uint64_t worker_end_time(st_omp_level_t *lv, int barrier)
{
    uint64_t tb, te;
    if (ST_LIKELY(st_omp_master_end(lv, &tb, &te) == ST_OMP_PUBLISHED)) {
        lv->t_end = te;
        return barrier ? tb : te;
    }
    return worker_end_time_slow(lv, barrier); /* not published yet (read the clock, look again) or gone */
}

static void team_end(st_omp_thread_t *ot)
{
    st_omp_level_t *lv = st_omp_top(ot);
    if (!lv->par)
        return;
    uint64_t te = lv->index == 0 ? 0 : lv->t_end ? lv->t_end : worker_end_time(lv, 0);
    st_thread_t *th = ot->th;
    st_event_t *e;
    if (ST_LIKELY(ot->nregions == lv->rbase + 1 && !ot->lost)) {
        /* the usual case: only the team's PARALLEL region is open; its LEAVE, and the team's end at its instant */
        st_omp_leave_innermost(ot, te);
        e = st_omp_record_again(th, ST_EV_THREAD_TEAM_END);
    } else {
        int closed = ot->nregions > lv->rbase;
        st_omp_close_above(ot, lv->rbase, te);
        /* the master's end at now: at the instant of the leaves just recorded (one clock read) */
        e = te == 0 && closed ? st_omp_record_again(th, ST_EV_THREAD_TEAM_END)
                              : st_omp_record_at(th, ST_EV_THREAD_TEAM_END, te);
    }
    e->id = lv->id;
    e->peer = (int32_t)lv->index;
    if (lv->index == 0) { /* publish for the workers' late ends */
        atomic_store_explicit(&lv->par->t_barrier, lv->t_wait, memory_order_relaxed);
        atomic_store_explicit(&lv->par->t_end, e->time, memory_order_release);
    }
}

void st_omp_cb_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int actual, unsigned int index, int flags)
{
    if (flags & ompt_task_initial)
        return; /* the initial task of a thread or of a league: no team of ours */
    st_omp_thread_t *ot = st_omp_any();
    if (!ot)
        return;
    if (endpoint == ompt_scope_begin) {
        uint32_t d = ot->depth + 1;
        if (d > ST_OMP_LEVELS) {
            atomic_fetch_add_explicit(&st_omp_stats.deep_teams, 1, memory_order_relaxed);
            st_omp_set_depth(ot, d);
            return;
        }
        st_omp_level_t *lv = &ot->level[d - 1];
        st_omp_par_t *p = parallel ? parallel->ptr : NULL;
        /* recorded when its parallel_begin was and the enclosing team is (ot->skip: still the enclosing one's) */
        if (!p || ot->skip || !team_begin(ot, lv, d, p, task, actual, index)) {
            *lv = (st_omp_level_t){ .par = NULL };
            st_omp_set_depth(ot, d);
        }
    } else if (endpoint == ompt_scope_end && ot->depth > 0) {
        if (ot->depth <= ST_OMP_LEVELS && ot->th)
            team_end(ot);
        st_omp_set_depth(ot, ot->depth - 1);
    }
    st_omp_flush_point(ot);
}

/* ---- barriers, taskwait, taskgroup, reduction ------------------------------------------ */

static st_region_t sync_region_of(ompt_sync_region_t kind)
{
    switch ((int)kind) {
    case ompt_sync_region_barrier_explicit:
    case ompt_sync_region_barrier_implementation: /* gcc's GOMP_barrier: explicit and worksharing barriers */
    case 1: /* ompt_sync_region_barrier (deprecated) */
        return ST_REGION_OMP_BARRIER;
    case 2: /* ompt_sync_region_barrier_implicit (deprecated; LLVM 14 uses it for all implicit barriers) */
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
        return ST_REGION_OMP_IBARRIER;
    case ompt_sync_region_taskwait:
        return ST_REGION_OMP_TASKWAIT;
    case ompt_sync_region_taskgroup:
        return ST_REGION_OMP_TASKGROUP;
    case ompt_sync_region_reduction:
        return ST_REGION_OMP_REDUCTION;
    default: /* barrier_teams: leagues are not recorded */
        return ST_REGION_NONE;
    }
}

static int is_workshare(st_region_t r)
{
    const uint64_t ws = UINT64_C(1) << ST_REGION_OMP_LOOP | UINT64_C(1) << ST_REGION_OMP_SECTIONS |
                        UINT64_C(1) << ST_REGION_OMP_SINGLE | UINT64_C(1) << ST_REGION_OMP_WORKSHARE |
                        UINT64_C(1) << ST_REGION_OMP_DISTRIBUTE;
    _Static_assert(ST_REGION_OMP_DISTRIBUTE < 64 && ST_REGION_OMP_WORKSHARE < 64, "region ids fit the mask");
    return (unsigned)r < 64 && (ws >> r & 1);
}

/*
 * A worksharing region still open when the next barrier or worksharing construct of
 * the team begins is over: constructs of this kind do not nest. gcc-built programs need
 * this (GOMP_single_start has no end call).
 */
static inline __attribute__((always_inline)) void close_open_workshare(st_omp_thread_t *ot)
{
    uint32_t base = st_omp_rbase(ot);
    while (ot->nregions > base && !ot->lost && is_workshare(ot->region[ot->nregions - 1]))
        st_omp_close_above(ot, ot->nregions - 1, 0);
}

void st_omp_cb_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                           ompt_data_t *task, const void *codeptr)
{
    (void)parallel;
    (void)task;
    st_region_t r = sync_region_of(kind);
    st_omp_thread_t *ot = NULL;
    st_thread_t *th;
    if (r == ST_REGION_NONE || !(th = st_omp_self(&ot)))
        return;
    st_omp_level_t *lv = r == ST_REGION_OMP_IBARRIER ? st_omp_top(ot) : NULL; /* NULL outside a team too */
    if (endpoint == ompt_scope_begin) {
        if (r == ST_REGION_OMP_BARRIER || r == ST_REGION_OMP_IBARRIER)
            close_open_workshare(ot);
        if (lv)
            lv->t_wait = 0;
        st_omp_enter(ot, r, codeptr);
        st_record_flush_point(th);
        return;
    }
    if (lv && lv->index != 0) {
        /* A worker's late barrier end is followed by its late team end: no flush in between. */
        st_omp_leave_at(ot, r, worker_end_time(lv, 1));
        return;
    }
    st_omp_leave_at(ot, r, 0);
    if (lv && !lv->t_wait)
        lv->t_wait = th->last; /* no wait-end callback: the barrier's leave */
    st_record_flush_point(th);
}

void st_omp_cb_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
    (void)parallel;
    (void)task;
    (void)codeptr;
    if (endpoint != ompt_scope_end || sync_region_of(kind) != ST_REGION_OMP_IBARRIER)
        return;
    /*
     * The master's end of waiting is when the barrier completed: its workers' late ends use it. No event:
     * only a recorded team's master (its level has a team, so its location is attached) reads the clock.
     */
    st_omp_thread_t *ot = st_omp_tls;
    st_omp_level_t *lv = ot ? ot->top : NULL;
    if (lv && lv->index == 0 && lv->par && st_omp_on && st_record_active)
        lv->t_wait = st_timer_now();
}

/* ---- worksharing, masked ------------------------------------------------------------------ */

static st_region_t work_region_of(ompt_work_t wstype)
{
    switch (wstype) {
    case ompt_work_loop: return ST_REGION_OMP_LOOP;
    case ompt_work_sections: return ST_REGION_OMP_SECTIONS;
    case ompt_work_single_executor:
    case ompt_work_single_other: return ST_REGION_OMP_SINGLE;
    case ompt_work_workshare: return ST_REGION_OMP_WORKSHARE;
    case ompt_work_distribute: return ST_REGION_OMP_DISTRIBUTE;
    case ompt_work_taskloop: return ST_REGION_OMP_TASKLOOP;
    default: return ST_REGION_NONE; /* scope: no region of its own */
    }
}

void st_omp_cb_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                    ompt_data_t *task, uint64_t count, const void *codeptr)
{
    (void)parallel;
    (void)task;
    (void)count;
    st_region_t r = work_region_of(wstype);
    st_omp_thread_t *ot = NULL;
    if (r == ST_REGION_NONE || !st_omp_self(&ot))
        return;
    if (endpoint == ompt_scope_begin) {
        if (r != ST_REGION_OMP_TASKLOOP) /* a taskloop may run inside a single */
            close_open_workshare(ot);
        st_omp_enter(ot, r, codeptr);
    } else {
        st_omp_leave(ot, r);
    }
    st_omp_flush_point(ot);
}

void st_omp_cb_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                      const void *codeptr)
{
    (void)parallel;
    (void)task;
    st_omp_thread_t *ot = NULL;
    if (!st_omp_self(&ot))
        return;
    if (endpoint == ompt_scope_begin)
        st_omp_enter(ot, ST_REGION_OMP_MASKED, codeptr);
    else
        st_omp_leave(ot, ST_REGION_OMP_MASKED);
    st_omp_flush_point(ot);
}
