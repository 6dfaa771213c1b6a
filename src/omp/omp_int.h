/*
 * omp_int.h — state shared by the OMPT callbacks of src/omp (internal).
 *
 * Every OpenMP thread owns one st_omp_thread_t, allocated at its first callback
 * (normally thread_begin) and never freed; only its owner touches it, except
 *  - the ring of parallel regions it forked (st_omp_par_t), whose published end times
 *    the team's workers read without a lock (a seqlock on the parallel id), and
 *  - st_omp_finalize(), which closes idle workers' teams after OpenMP recording ended.
 * The location (st_thread_t) is attached at the first event actually recorded, so a
 * thread that only ever runs in teams we do not record (LLVM's hidden-helper threads)
 * gets no location.
 *
 * Identifiers written into events (unique in the process, no shared counter):
 *   parallel id = (location index + 1) << 40 | regions forked by that location
 *   task id     = (location index + 1) << 32 | tasks numbered by that location
 */
#ifndef ST_OMP_INT_H
#define ST_OMP_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include "omp-tools.h"

#include "../record/record.h"
#include "../record/unwind.h"

#define ST_OMP_LEVELS  16  /* nested teams recorded per thread; deeper ones are ignored */
#define ST_OMP_REGIONS 64  /* open OpenMP regions per thread; deeper enters are dropped (counted) */
#define ST_OMP_HELD    32  /* locks one thread holds at once with a known acquisition order */
#define ST_OMP_RING    128 /* parallel regions a master remembers (workers' team begins, st_omp_finalize) */

/* Task data values: bit 63 marks a task that has started running. */
#define ST_OMP_TASK_RUNNING (1ull << 63)

/*
 * A parallel region forked by this thread, one cache line each. Workers learn the region from
 * parallel_data (st_omp_cb_parallel_begin): for a region with neither parent nor call site,
 * the usual one, the id itself (ST_OMP_PAR_BARE), from which they compute the entry's address
 * without reading it; else the entry's address, read for those at their team begin. The
 * master notes here that it ended the team, for st_omp_finalize only (which closes an idle
 * worker's team as a late end only once its master's end is in the trace): while the
 * application runs a worker reads no line its master writes at a team's end (omp_parallel.c),
 * each of which would cross between the CPUs (~470 ns when the host places them apart).
 */
typedef struct st_omp_par {
    _Alignas(ST_CACHE_LINE) _Atomic uint64_t id;        /* parallel id; 0 while the entry is being reused */
    _Atomic uint64_t t_end;     /* master: end of its implicit task; 0 while the team runs */
    uint64_t parent;            /* parallel id of the enclosing team of the master, 0 if none */
    uint64_t codeptr;           /* return address of the construct (0 when call sites are off) */
} st_omp_par_t;

/* A parallel id: (location index + 1) << ST_OMP_SEQ_BITS | the region's number on that location (above). */
#define ST_OMP_SEQ_BITS 40
static inline uint64_t st_omp_par_id(uint32_t loc, uint64_t seq)
{
    return (uint64_t)(loc + 1) << ST_OMP_SEQ_BITS | seq;
}

/* parallel_data->value of a region whose entry need not be read at a team begin: its id, this bit set
 * (ids are below 2^53: location index < ST_MAX_THREADS; a pointer in parallel_data has it clear). */
#define ST_OMP_PAR_BARE (1ull << 63)

/* Each location's ring (st_omp_attach), by location index: where a region's entry is from its id. */
extern __attribute__((visibility("hidden"))) st_omp_par_t *st_omp_rings[ST_MAX_THREADS];

/* One team this thread is a member of. */
typedef struct st_omp_level {
    st_omp_par_t *par;  /* NULL: a team that is not recorded (league, hidden helpers) */
    uint64_t id;        /* parallel id */
    uint32_t index;     /* thread number in the team */
    uint32_t size;      /* team size */
    uint32_t rbase;     /* open regions when the team began (its PARALLEL region is at rbase) */
    uint32_t _pad;
} st_omp_level_t;

typedef struct st_omp_held {
    uint64_t wait_id;
    uint32_t order;
    uint32_t _pad;
} st_omp_held_t;

typedef struct st_omp_thread {
    st_thread_t *th;      /* location; NULL until the first recorded event */
    struct st_omp_thread *next; /* all states of the process, newest first (st_omp_finalize) */
    uint32_t depth;       /* teams this thread is in, innermost last (may exceed ST_OMP_LEVELS); set by st_omp_set_depth */
    int skip;             /* depth's consequence: the thread runs in a team not recorded (st_omp_ignored) */
    st_omp_level_t *top;  /* depth's consequence: &level[depth - 1] while 1 <= depth <= ST_OMP_LEVELS, else NULL */
    uint32_t nregions;    /* open regions in region[] */
    uint32_t lost;        /* enters not recorded because region[] was full; their leaves are skipped */
    uint32_t nheld;
    uint32_t nforked;     /* parallel regions this thread forked and has not joined yet */
    uint64_t next_par;    /* parallel regions forked */
    uint64_t next_task;   /* task ids issued */
    uint64_t acq_wait;    /* mutex_acquire seen for this wait id, awaiting mutex_acquired */
    uint64_t acq_time;
    const void *acq_codeptr;
    st_omp_level_t level[ST_OMP_LEVELS];
    st_omp_par_t *forked[ST_OMP_LEVELS + 1]; /* innermost last; NULL: a region not recorded */
    st_region_t region[ST_OMP_REGIONS];
    st_omp_held_t held[ST_OMP_HELD];
    st_omp_par_t ring[ST_OMP_RING];
} st_omp_thread_t;

/*
 * The library's own variables, declared hidden as they are defined (-fvisibility=hidden): the
 * callbacks then load them directly, not through the GOT (one instruction less per load).
 */
#define ST_OMP_HIDDEN __attribute__((visibility("hidden")))
extern ST_OMP_HIDDEN volatile int st_omp_on;   /* tool initialized and st_omp_finalize() not yet called */
extern ST_OMP_HIDDEN int st_omp_callsite;      /* record construct return addresses (SYNCTRACE_CALLSITE) */
extern ST_OMP_HIDDEN __thread st_omp_thread_t *st_omp_tls __attribute__((tls_model("initial-exec")));
extern ST_OMP_HIDDEN __thread int st_omp_began __attribute__((tls_model("initial-exec"))); /* thread_begin seen */
extern ST_OMP_HIDDEN int st_omp_began_known; /* the runtime reports thread_begin (else st_omp_began means nothing) */

/* Counters of degraded situations, reported by st_omp_finalize() (relaxed atomics, rare paths). */
typedef struct st_omp_stats {
    _Atomic uint64_t lost_regions; /* enters dropped: region stack full */
    _Atomic uint64_t deep_teams;   /* teams nested deeper than ST_OMP_LEVELS */
    _Atomic uint64_t unordered;    /* lock acquisitions/releases without acquisition order */
} st_omp_stats_t;
extern ST_OMP_HIDDEN st_omp_stats_t st_omp_stats;

/* Slow path of st_omp_any(): allocates the calling thread's state. NULL on ENOMEM (reported once). */
st_omp_thread_t *st_omp_thread_new(void);
/* Attaches the location (registers the thread with src/record). NULL if it cannot be traced. */
st_thread_t *st_omp_attach(st_omp_thread_t *ot);

/* The calling thread's state while OpenMP is recorded, whatever team it is in; else NULL. */
static inline st_omp_thread_t *st_omp_any(void)
{
    if (ST_UNLIKELY(!st_omp_on || !st_record_active))
        return NULL;
    st_omp_thread_t *ot = st_omp_tls;
    return ST_LIKELY(ot != NULL) ? ot : st_omp_thread_new();
}

/* Innermost team of ot, NULL outside any team (and beyond ST_OMP_LEVELS). */
static inline st_omp_level_t *st_omp_top(st_omp_thread_t *ot)
{
    return ot->top;
}

/*
 * Sets the number of teams ot is in, and what the callbacks read of it at every call (top,
 * skip), after the innermost team's level is filled in.
 */
static inline void st_omp_set_depth(st_omp_thread_t *ot, uint32_t depth)
{
    ot->depth = depth;
    ot->top = depth >= 1 && depth <= ST_OMP_LEVELS ? &ot->level[depth - 1] : NULL;
    ot->skip = depth > ST_OMP_LEVELS || (ot->top && ot->top->par == NULL);
}

/* True when the thread runs inside a team that is not recorded. */
static inline int st_omp_ignored(const st_omp_thread_t *ot)
{
    return ot->skip;
}

/* The calling thread's location if its current OpenMP event is to be recorded, else NULL. */
static inline st_thread_t *st_omp_self(st_omp_thread_t **otp)
{
    st_omp_thread_t *ot = st_omp_any();
    if (!ot || st_omp_ignored(ot))
        return NULL;
    *otp = ot;
    return ST_LIKELY(ot->th != NULL) ? ot->th : st_omp_attach(ot);
}

/* Parallel id of the innermost recorded team (0 outside any team). */
static inline uint64_t st_omp_team_id(const st_omp_thread_t *ot)
{
    return ot->top ? ot->top->id : 0;
}

/* Open regions of the innermost team start here (0 outside any team). */
static inline uint32_t st_omp_rbase(const st_omp_thread_t *ot)
{
    return ot->top ? ot->top->rbase : 0;
}

/*
 * Buffer flushes and OpenMP relations. A callback may report an endpoint after the
 * fact (a released lock, a worker's end of its team): a flush before its events would
 * stamp them after the flush, behind what other threads did meanwhile. So OpenMP
 * events never flush while the buffer has room (st_record_in_room): each location
 * keeps ST_OMP_ROOM free slots for them, set when it is attached, and every callback
 * that records flushes at its end (st_omp_flush_point), after its last stamp.
 * ST_OMP_ROOM exceeds the events of any two consecutive callbacks (at most
 * ST_OMP_REGIONS leaves and four more events each).
 */
#define ST_OMP_ROOM (2 * ST_OMP_REGIONS + 16)

static inline void st_omp_flush_point(st_omp_thread_t *ot)
{
    if (ot->th)
        st_record_flush_point(ot->th);
}

/*
 * Records an event stamped t (t != 0: a late callback reports an event that happened
 * earlier, at a time read before; no clock read here) or now (t = 0), never before the
 * location's previous event.
 */
static inline __attribute__((always_inline)) st_event_t *st_omp_record_at(st_thread_t *th, unsigned kind, uint64_t t)
{
    if (ST_UNLIKELY(th->pos == th->cap))
        st_record_flush(th); /* the room was too small: the floor is the flush */
    if (t == 0)
        return st_record_in_room(th, kind);
    uint64_t floor = th->last;
    return st_record_put(th, kind, t > floor ? t : floor, st_timer_epoch());
}

/*
 * Records an event at the instant of th's previous one, recorded by the same callback (a
 * team's begin and the ENTER of its region, the leaves that close a team): one clock read
 * per callback, at about 10 ns of CPU each in the project's VM (docs/performance.md).
 */
static inline st_event_t *st_omp_record_again(st_thread_t *th, unsigned kind)
{
    if (ST_UNLIKELY(th->pos == th->cap))
        st_record_flush(th);
    return st_record_put(th, kind, th->last, th->epoch);
}

static inline st_event_t *st_omp_record(st_thread_t *th, unsigned kind)
{
    return st_record_in_room(th, kind);
}

static inline uint8_t st_omp_region_flags(st_region_t r)
{
    return r == ST_REGION_OMP_IBARRIER ? ST_EVF_IMPLICIT : ST_EVF_NONE;
}

/* Remembers region r as open; 0 when the stack is full (the ENTER is not recorded). */
static inline int st_omp_push_region(st_omp_thread_t *ot, st_region_t r)
{
    if (ST_UNLIKELY(ot->nregions == ST_OMP_REGIONS || ot->lost)) {
        ot->lost++;
        atomic_fetch_add_explicit(&st_omp_stats.lost_regions, 1, memory_order_relaxed);
        return 0;
    }
    ot->region[ot->nregions++] = r;
    return 1;
}

static inline void st_omp_fill_enter(st_event_t *e, st_region_t r, const void *codeptr)
{
    e->region = r;
    e->flags = st_omp_region_flags(r);
    e->aux = st_omp_callsite ? (uint64_t)(uintptr_t)codeptr : 0;
    if (ST_UNLIKELY(st_callpath_on)) /* after the stamp: the unwind counts as the construct's time */
        st_event_set_callpath(e, st_callpath_capture());
}

/* ENTER of region r (at t, 0 = now), remembered as open. */
static inline __attribute__((always_inline)) void st_omp_enter_at(st_omp_thread_t *ot, st_region_t r, const void *codeptr, uint64_t t)
{
    if (st_omp_push_region(ot, r))
        st_omp_fill_enter(st_omp_record_at(ot->th, ST_EV_ENTER, t), r, codeptr);
}

/* ENTER of region r stamped t, read from the clock with epoch (no clock read here). */
static inline void st_omp_enter_stamped(st_omp_thread_t *ot, st_region_t r, const void *codeptr, uint64_t t,
                                        uint32_t epoch)
{
    if (st_omp_push_region(ot, r))
        st_omp_fill_enter(st_record_in_room_at(ot->th, ST_EV_ENTER, t, epoch), r, codeptr);
}

static inline void st_omp_enter(st_omp_thread_t *ot, st_region_t r, const void *codeptr)
{
    st_omp_enter_at(ot, r, codeptr, 0);
}

/* st_omp_leave_at when r is not the innermost open region (or enters were dropped). */
void st_omp_leave_search(st_omp_thread_t *ot, st_region_t r, uint64_t t);

/*
 * LEAVE of the innermost open region r of the current team (at t, 0 = now), after
 * leaving whatever is still open inside it. Nothing if r is not open there. Inline for
 * the usual case, r innermost: a barrier's or a construct's end.
 */
/* LEAVE of the innermost open region (at t, 0 = now); the caller knows one is open and none was lost. */
static inline __attribute__((always_inline)) void st_omp_leave_innermost(st_omp_thread_t *ot, uint64_t t)
{
    st_region_t r = ot->region[--ot->nregions];
    st_event_t *e = st_omp_record_at(ot->th, ST_EV_LEAVE, t);
    e->region = r;
    e->flags = st_omp_region_flags(r);
}

static inline __attribute__((always_inline)) void st_omp_leave_at(st_omp_thread_t *ot, st_region_t r, uint64_t t)
{
    uint32_t n = ot->nregions;
    if (ST_LIKELY(!ot->lost && n > st_omp_rbase(ot) && ot->region[n - 1] == r)) {
        st_omp_leave_innermost(ot, t);
        return;
    }
    st_omp_leave_search(ot, r, t);
}

static inline void st_omp_leave(st_omp_thread_t *ot, st_region_t r)
{
    st_omp_leave_at(ot, r, 0);
}

/* Leaves every region open above position base (at t, 0 = now). */
void st_omp_close_above(st_omp_thread_t *ot, uint32_t base, uint64_t t);

/*
 * Whether a worker's master has ended its team (st_omp_finalize, for an idle worker): a seqlock read of lv->par,
 * whose id the master sets to 0 while it reuses the entry. ENDED: the master's end is in its trace; STALE: the
 * entry was reused, so the master ended that team and began another (its end is in its trace too).
 */
enum { ST_OMP_RUNNING, ST_OMP_ENDED, ST_OMP_STALE };
static inline int st_omp_master_end(const st_omp_level_t *lv)
{
    st_omp_par_t *p = lv->par;
    if (atomic_load_explicit(&p->id, memory_order_acquire) != lv->id)
        return ST_OMP_STALE;
    uint64_t te = atomic_load_explicit(&p->t_end, memory_order_acquire);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&p->id, memory_order_relaxed) != lv->id)
        return ST_OMP_STALE;
    return te ? ST_OMP_ENDED : ST_OMP_RUNNING;
}

/* At st_omp_finalize, the team end of an idle worker whose master ended the team (the runtime never reports it),
 * recorded as the team end the runtime reports late when the worker is woken (omp_parallel.c's team_end): the
 * LEAVEs of the regions still open in the team (the last implicit barrier, unmarked, then the PARALLEL region) and
 * its THREAD_TEAM_END, at the worker's previous event, those of the PARALLEL region on marked (ST_OMP_LATE_END)
 * for the trace's preparation to stamp with its master's times (model/late_ends.c). The caller pops the level. */
void st_omp_late_team_end(st_omp_thread_t *ot, const st_omp_level_t *lv);

/* A fresh task id of this thread (location attached). */
static inline uint64_t st_omp_new_task_id(st_omp_thread_t *ot)
{
    uint32_t n = (uint32_t)++ot->next_task;
    if (ST_UNLIKELY(n == 0))
        n = (uint32_t)++ot->next_task;
    return (uint64_t)(ot->th->index + 1) << 32 | n;
}

/* ---- callbacks registered by ompt_tool.c ------------------------------------------- */

void st_omp_cb_thread_begin(ompt_thread_t type, ompt_data_t *thread_data);
void st_omp_cb_thread_end(ompt_data_t *thread_data);
void st_omp_cb_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr);
void st_omp_cb_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr);
void st_omp_cb_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int actual, unsigned int index, int flags);
void st_omp_cb_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                           ompt_data_t *task, const void *codeptr);
void st_omp_cb_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                    ompt_data_t *task, uint64_t count, const void *codeptr);
void st_omp_cb_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                      const void *codeptr);
void st_omp_cb_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                             const void *codeptr);
void st_omp_cb_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr);
void st_omp_cb_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr);
void st_omp_cb_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id, const void *codeptr);
void st_omp_cb_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                         const void *codeptr);
void st_omp_cb_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr);
void st_omp_cb_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *new_task, int flags,
                           int has_dependences, const void *codeptr);
void st_omp_cb_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next);
void st_omp_cb_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps);

#endif
