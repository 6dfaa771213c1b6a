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
 * Such a late team end is recorded at the worker's previous event and marked
 * (ST_OMP_LATE_END on its THREAD_TEAM_END and the LEAVEs recorded with it); trace
 * preparation stamps them with the master's end of its implicit task and the LEAVE of the
 * team's last implicit barrier before them with the master's LEAVE of that barrier
 * (model/late_ends.h). A worker so reads nothing its
 * master wrote at a team's end, and the master's join waits for nothing: when the host
 * places the two CPUs apart, each cache line that crosses costs a round trip of ~470 ns,
 * and reading the master's times on the hot path cost an empty region ~250 ns there
 * (docs/performance.md). The master still notes its times in its ring entry for
 * st_omp_finalize, which closes idle workers' teams with them. No flush comes between a
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
 * has not joined yet) and publishes its id; its t_end is 0 until the master's end.
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
    atomic_store_explicit(&p->t_end, 0, memory_order_relaxed);
    p->parent = st_omp_team_id(ot);
    p->codeptr = st_omp_callsite ? (uint64_t)(uintptr_t)codeptr : 0;
    atomic_store_explicit(&p->id, st_omp_par_id(th->index, seq), memory_order_release);
    return p;
}

void st_omp_cb_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    (void)task;
    (void)frame;
    parallel->value = 0; /* members of a team not recorded see 0 */
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
    /* bare while the id's number fits its 40 bits (par_of finds the entry from them) */
    int bare = p->parent == 0 && p->codeptr == 0 && ot->next_par < (1ull << ST_OMP_SEQ_BITS);
    parallel->value = bare ? e->id | ST_OMP_PAR_BARE : (uint64_t)(uintptr_t)p;
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
    /* no fence: no worker stamps its end with a time of its own that the join must follow (team_end) */
    st_event_t *e = st_omp_record(ot->th, ST_EV_THREAD_JOIN);
    e->id = atomic_load_explicit(&p->id, memory_order_relaxed);
    e->aux = p->parent;
    st_omp_flush_point(ot);
}

/* The entry of the region whose parallel_data holds v (st_omp_cb_parallel_begin), NULL for one not recorded, and
 * its id, parent and call site: for a bare id without reading the entry (its master's line: omp_int.h). */
static inline st_omp_par_t *par_of(uint64_t v, uint64_t *id, uint64_t *parent, uint64_t *codeptr)
{
    if (v & ST_OMP_PAR_BARE) {
        *id = v & ~ST_OMP_PAR_BARE;
        *parent = *codeptr = 0;
        return &st_omp_rings[(*id >> ST_OMP_SEQ_BITS) - 1][(*id & ((1ull << ST_OMP_SEQ_BITS) - 1)) % ST_OMP_RING];
    }
    st_omp_par_t *p = (st_omp_par_t *)(uintptr_t)v;
    if (p) {
        *id = atomic_load_explicit(&p->id, memory_order_acquire);
        *parent = p->parent;
        *codeptr = p->codeptr;
    }
    return p;
}

/* Fills lv, the level of depth d, for team p (parallel_data value v) and enters it; 0 when this thread cannot be
 * traced (lv untouched). */
static int team_begin(st_omp_thread_t *ot, st_omp_level_t *lv, uint32_t d, uint64_t v, ompt_data_t *task,
                      unsigned actual, unsigned index)
{
    st_thread_t *th = ot->th ? ot->th : st_omp_attach(ot);
    if (!th)
        return 0;
    uint64_t id, parent, codeptr;
    st_omp_par_t *p = par_of(v, &id, &parent, &codeptr);
    *lv = (st_omp_level_t){ .par = p, .id = id, .index = index, .size = actual, .rbase = ot->nregions };
    st_omp_set_depth(ot, d);
    if (d == 1 && th->omp_thread_num < 0)
        th->omp_thread_num = (int)index;
    task->value = st_omp_new_task_id(ot) | ST_OMP_TASK_RUNNING;
    st_event_t *e = st_omp_record(th, ST_EV_THREAD_TEAM_BEGIN);
    e->id = id;
    e->peer = (int32_t)index;
    e->tag = (int32_t)actual;
    e->aux = parent;
    /* the same instant: no second clock read */
    st_omp_enter_stamped(ot, ST_REGION_OMP_PARALLEL, (const void *)(uintptr_t)codeptr, th->last, th->epoch);
    return 1;
}

/* Marks the LEAVEs th recorded from position from of buffer buf as a late team end of team id (ST_OMP_LATE_END):
 * recorded in one callback, so in one buffer (a flush inside would leave them unmarked, at the worker's own times). */
static void mark_late_leaves(st_thread_t *th, const st_event_t *buf, size_t from, uint64_t id)
{
    if (th->buf != buf)
        return;
    for (size_t i = from; i < th->pos; i++)
        if (th->buf[i].kind == ST_EV_LEAVE) {
            th->buf[i].id = id;
            th->buf[i].tag = ST_OMP_LATE_END;
        }
}

void st_omp_late_team_end(st_omp_thread_t *ot, const st_omp_level_t *lv)
{
    st_thread_t *th = ot->th;
    uint64_t te = th->last;
    /* inside the PARALLEL region: the implicit barrier the worker still waits in, unmarked (the LEAVE right before
     * the marked ones is the barrier's, which the preparation stamps with the master's LEAVE of it) */
    st_omp_close_above(ot, lv->rbase + 1, te);
    const st_event_t *buf = th->buf;
    size_t from = th->pos;
    st_omp_close_above(ot, lv->rbase, te);
    st_event_t *e = st_omp_record_at(th, ST_EV_THREAD_TEAM_END, te);
    e->id = lv->id;
    e->peer = (int32_t)lv->index;
    e->tag = ST_OMP_LATE_END;
    mark_late_leaves(th, buf, from, lv->id);
}

static void team_end(st_omp_thread_t *ot)
{
    st_omp_level_t *lv = st_omp_top(ot);
    if (!lv->par)
        return;
    st_thread_t *th = ot->th;
    /* a worker's end: at its previous event until the trace's preparation stamps it with its master's */
    uint64_t te = lv->index == 0 ? 0 : th->last;
    const st_event_t *buf = th->buf;
    size_t from = th->pos;
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
    if (lv->index != 0) {
        e->tag = ST_OMP_LATE_END;
        mark_late_leaves(th, buf, from, lv->id);
        return;
    }
    /* the master: that the team ended, for st_omp_finalize (a store to its own line: no worker reads it before then) */
    atomic_store_explicit(&lv->par->t_end, e->time, memory_order_release);
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
        uint64_t v = parallel ? parallel->value : 0;
        /* recorded when its parallel_begin was and the enclosing team is (ot->skip: still the enclosing one's) */
        if (!v || ot->skip || !team_begin(ot, lv, d, v, task, actual, index)) {
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
        st_omp_enter(ot, r, codeptr);
        st_record_flush_point(th);
        return;
    }
    if (lv && lv->index != 0) {
        /* A worker's barrier end. When late (the team's last barrier), its team end follows: no flush in between; trace
         * preparation then stamps it with its master's LEAVE of that barrier (model/late_ends.c). */
        st_omp_leave_at(ot, r, 0);
        return;
    }
    st_omp_leave_at(ot, r, 0);
    st_record_flush_point(th);
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
