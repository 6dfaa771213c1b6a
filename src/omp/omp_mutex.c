/*
 * omp_mutex.c — OMPT callbacks for locks, nest locks, critical and ordered.
 *
 * Events (lock id = the runtime's wait id, op = ompt_mutex_t of the lock: lock,
 * nest_lock, critical or ordered; test variants are recorded as their lock kind):
 *   omp_set_lock      ENTER omp_set_lock, THREAD_ACQUIRE_LOCK, LEAVE omp_set_lock
 *   omp_unset_lock    ENTER omp_unset_lock, THREAD_RELEASE_LOCK, LEAVE omp_unset_lock
 *   nest locks        the same with the nest-lock regions; a nested (re)acquisition or
 *                     a release that keeps the lock owned is only ENTER/LEAVE
 *   critical          ENTER critical, THREAD_ACQUIRE_LOCK, ENTER critical sblock, ...,
 *                     LEAVE critical sblock, THREAD_RELEASE_LOCK, LEAVE critical
 *   ordered           as critical with the ordered regions
 *   omp_test_lock     THREAD_ACQUIRE_LOCK inside omp_set_lock's regions when it
 *                     succeeded; nothing when it failed (the runtime reports no failure)
 * The ENTER before an acquisition is stamped at mutex_acquire (when waiting began).
 * Atomic constructs are not recorded (no events can be placed inside them).
 *
 * Acquisition order: every lock has a counter, incremented atomically when the lock
 * is acquired — the application holds that lock then, so the increments are already
 * serialized and the counter only makes them visible; it is the only synchronization
 * on this path. Acquire and release of one ownership carry the same order, so CLC
 * can send from the release of order k to the acquisition of order k + 1. The
 * runtime reports a release after the lock is free: in the raw trace the next
 * acquisition may be stamped before that release; the order says which came first.
 * Counters live in a fixed open-addressing table keyed by wait id, allocated once
 * (lock-free insertion; never shrinks: a lock re-created at the same address
 * continues its counter, which keeps (lock id, order) unique).
 */
#include "omp_int.h"

#include <stdlib.h>

#include "../util/log.h"

#define LOCK_SLOTS  (1u << 16) /* distinct wait ids with an acquisition order */
#define LOCK_PROBES 256u

typedef struct lock_slot {
    _Atomic uint64_t key;   /* wait id, 0 = free */
    _Atomic uint32_t count; /* acquisitions so far */
    uint32_t _pad;
} lock_slot_t;

static _Atomic(lock_slot_t *) lock_table;

static lock_slot_t *table(void)
{
    lock_slot_t *t = atomic_load_explicit(&lock_table, memory_order_acquire);
    if (ST_LIKELY(t != NULL))
        return t;
    lock_slot_t *fresh = calloc(LOCK_SLOTS, sizeof *fresh); /* once per process */
    if (!fresh)
        return NULL;
    if (atomic_compare_exchange_strong_explicit(&lock_table, &t, fresh, memory_order_acq_rel, memory_order_acquire))
        return fresh;
    free(fresh); /* another thread won */
    return t;
}

/* The counter of wait id w, inserted if absent (lock-free). NULL if the table is full. */
static lock_slot_t *lock_slot(uint64_t w)
{
    lock_slot_t *t = w ? table() : NULL;
    if (!t)
        return NULL;
    uint64_t h = (w >> 3) * 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < LOCK_PROBES; i++) {
        lock_slot_t *s = &t[((uint32_t)(h >> 48) + i) & (LOCK_SLOTS - 1)];
        uint64_t k = atomic_load_explicit(&s->key, memory_order_acquire);
        if (k == w)
            return s;
        if (k == 0 && (atomic_compare_exchange_strong_explicit(&s->key, &k, w, memory_order_acq_rel,
                                                              memory_order_acquire) || k == w))
            return s;
    }
    return NULL;
}

static ompt_mutex_t lock_kind(ompt_mutex_t kind)
{
    return kind == ompt_mutex_test_lock ? ompt_mutex_lock
         : kind == ompt_mutex_test_nest_lock ? ompt_mutex_nest_lock : kind;
}

static void no_order(void)
{
    atomic_fetch_add_explicit(&st_omp_stats.unordered, 1, memory_order_relaxed);
    st_log_warn_once("more than %u OpenMP locks or %d held at once by one thread: some lock events are "
                     "recorded without acquisition order (0)", LOCK_SLOTS, ST_OMP_HELD);
}

/* A lock event: wait id, acquisition order (0 unknown), lock kind. */
static void record_lock(st_omp_thread_t *ot, unsigned evkind, ompt_mutex_t kind, uint64_t w, uint32_t order)
{
    st_event_t *e = st_record(ot->th, evkind);
    e->id = w;
    e->bytes = order;
    e->op = (uint16_t)kind;
}

static void record_acquire(st_omp_thread_t *ot, ompt_mutex_t kind, uint64_t w)
{
    lock_slot_t *s = lock_slot(w);
    uint32_t order = s ? atomic_fetch_add_explicit(&s->count, 1, memory_order_relaxed) + 1 : 0;
    if (order && ot->nheld < ST_OMP_HELD)
        ot->held[ot->nheld++] = (st_omp_held_t){ w, order, 0 };
    else
        no_order();
    record_lock(ot, ST_EV_THREAD_ACQUIRE_LOCK, kind, w, order);
}

/* The order this thread acquired w with (innermost holding), forgotten now; 0 if unknown. */
static uint32_t take_order(st_omp_thread_t *ot, uint64_t w)
{
    for (uint32_t i = ot->nheld; i-- > 0;) {
        if (ot->held[i].wait_id == w) {
            uint32_t order = ot->held[i].order;
            ot->held[i] = ot->held[--ot->nheld];
            return order;
        }
    }
    return 0;
}

static void record_release(st_omp_thread_t *ot, ompt_mutex_t kind, uint64_t w)
{
    uint32_t order = take_order(ot, w);
    if (!order)
        no_order();
    record_lock(ot, ST_EV_THREAD_RELEASE_LOCK, kind, w, order);
}

/* When waiting for w began (0 if mutex_acquire was not seen); forgets it. */
static uint64_t acquire_time(st_omp_thread_t *ot, uint64_t w)
{
    uint64_t t = ot->acq_wait == w ? ot->acq_time : 0;
    ot->acq_wait = 0;
    return t;
}

void st_omp_cb_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                             const void *codeptr)
{
    (void)hint;
    (void)impl;
    st_omp_thread_t *ot = NULL;
    if (kind == ompt_mutex_atomic || !st_omp_self(&ot))
        return;
    /* Nothing recorded yet: a failing omp_test_lock is never followed by mutex_acquired. */
    ot->acq_wait = wait_id;
    ot->acq_time = st_timer_now();
    ot->acq_codeptr = codeptr;
}

void st_omp_cb_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    st_omp_thread_t *ot = NULL;
    if (kind == ompt_mutex_atomic || !st_omp_self(&ot))
        return;
    kind = lock_kind(kind);
    uint64_t t = acquire_time(ot, wait_id);
    const void *site = t ? ot->acq_codeptr : codeptr;
    switch (kind) {
    case ompt_mutex_lock:
    case ompt_mutex_nest_lock: {
        st_region_t r = kind == ompt_mutex_lock ? ST_REGION_OMP_SET_LOCK : ST_REGION_OMP_SET_NEST_LOCK;
        st_omp_enter_at(ot, r, site, t);
        record_acquire(ot, kind, wait_id);
        st_omp_leave(ot, r);
        break;
    }
    case ompt_mutex_critical:
    case ompt_mutex_ordered:
        st_omp_enter_at(ot, kind == ompt_mutex_critical ? ST_REGION_OMP_CRITICAL : ST_REGION_OMP_ORDERED, site, t);
        record_acquire(ot, kind, wait_id);
        st_omp_enter(ot, kind == ompt_mutex_critical ? ST_REGION_OMP_CRITICAL_SBLOCK : ST_REGION_OMP_ORDERED_SBLOCK,
                     codeptr);
        break;
    default:
        break;
    }
}

void st_omp_cb_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    st_omp_thread_t *ot = NULL;
    if (kind == ompt_mutex_atomic || !st_omp_self(&ot))
        return;
    kind = lock_kind(kind);
    switch (kind) {
    case ompt_mutex_lock:
    case ompt_mutex_nest_lock: {
        st_region_t r = kind == ompt_mutex_lock ? ST_REGION_OMP_UNSET_LOCK : ST_REGION_OMP_UNSET_NEST_LOCK;
        st_omp_enter(ot, r, codeptr);
        record_release(ot, kind, wait_id);
        st_omp_leave(ot, r);
        break;
    }
    case ompt_mutex_critical:
    case ompt_mutex_ordered:
        st_omp_leave(ot, kind == ompt_mutex_critical ? ST_REGION_OMP_CRITICAL_SBLOCK : ST_REGION_OMP_ORDERED_SBLOCK);
        record_release(ot, kind, wait_id);
        st_omp_leave(ot, kind == ompt_mutex_critical ? ST_REGION_OMP_CRITICAL : ST_REGION_OMP_ORDERED);
        break;
    default:
        break;
    }
}

void st_omp_cb_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id, const void *codeptr)
{
    /* The lock is already owned by this thread: an acquisition or release without transfer. */
    st_omp_thread_t *ot = NULL;
    if (!st_omp_self(&ot))
        return;
    if (endpoint == ompt_scope_begin) {
        uint64_t t = acquire_time(ot, wait_id);
        st_omp_enter_at(ot, ST_REGION_OMP_SET_NEST_LOCK, t ? ot->acq_codeptr : codeptr, t);
        st_omp_leave(ot, ST_REGION_OMP_SET_NEST_LOCK);
    } else {
        st_omp_enter(ot, ST_REGION_OMP_UNSET_NEST_LOCK, codeptr);
        st_omp_leave(ot, ST_REGION_OMP_UNSET_NEST_LOCK);
    }
}

void st_omp_cb_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                         const void *codeptr)
{
    (void)kind;
    (void)hint;
    (void)impl;
    (void)codeptr;
    /* Insert the counter now, so the first acquisition finds it without a CAS. */
    if (st_omp_on && st_record_active)
        lock_slot(wait_id);
}

void st_omp_cb_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    /* Nothing to record, and the counter stays (see the file comment). Registered so the
     * runtime's lock lifecycle is complete from the tool's point of view. */
    (void)kind;
    (void)wait_id;
    (void)codeptr;
}
