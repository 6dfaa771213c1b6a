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
 * Release before the next acquisition, also in the raw trace: the runtime reports a
 * release after the lock is free, so its next owner may stamp its acquisition first.
 * The releaser reads the clock, then the lock's counter: if the next acquisition has
 * not been counted yet, it will be stamped after that read (an acquisition is stamped
 * after it is counted). If it has, its owner published a time read before counting
 * (a seqlock: acq_order, acq_time) and the release takes the earlier of the two times;
 * if that time is overwritten already (two acquisitions since), the release is stamped
 * at the releaser's previous event, which preceded the release.
 *
 * Acquisition order: every lock has a counter, incremented atomically when the lock
 * is acquired — the application holds that lock then, so the increments are already
 * serialized and the counter only makes them visible; with the published acquisition
 * time it is the only synchronization on this path. Acquire and release of one
 * ownership carry the same order, so CLC can send from the release of order k to the
 * acquisition of order k + 1.
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
    _Atomic uint64_t key;       /* wait id, 0 = free */
    _Atomic uint32_t count;     /* acquisitions so far */
    _Atomic uint32_t acq_order; /* the latest acquisition's order (0 while it is written) */
    _Atomic uint64_t acq_time;  /* and a time read before it was counted */
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
static void fill_lock(st_event_t *e, ompt_mutex_t kind, uint64_t w, uint32_t order)
{
    e->id = w;
    e->bytes = order;
    e->op = (uint16_t)kind;
}

/* Publishes acquisition order with t (read after the acquisition), then counts it; returns order. */
static uint32_t count_acquisition(lock_slot_t *s, uint64_t t)
{
    /* Only the lock's owner writes: the count cannot change before the increment below. */
    uint32_t order = atomic_load_explicit(&s->count, memory_order_relaxed) + 1;
    atomic_store_explicit(&s->acq_order, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&s->acq_time, t, memory_order_relaxed);
    atomic_store_explicit(&s->acq_order, order, memory_order_release);
    atomic_fetch_add_explicit(&s->count, 1, memory_order_seq_cst); /* a full barrier: stamped after it */
    return order;
}

/* The ACQUIRE event (stamped after counting); t: a time read after the acquisition. */
static void record_acquire(st_omp_thread_t *ot, ompt_mutex_t kind, uint64_t w, uint64_t t)
{
    lock_slot_t *s = lock_slot(w);
    uint32_t order = s ? count_acquisition(s, t) : 0;
    if (order && ot->nheld < ST_OMP_HELD)
        ot->held[ot->nheld++] = (st_omp_held_t){ w, order, 0 };
    else
        no_order();
    uint32_t epoch;
    uint64_t at = st_timer_now_ep_ordered(&epoch); /* after the count (timer.h: ordering) */
    fill_lock(st_record_in_room_at(ot->th, ST_EV_THREAD_ACQUIRE_LOCK, at, epoch), kind, w, order);
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

/* A release the runtime reports now: its order and the time to stamp it with (epoch: of that time's map). */
typedef struct release {
    uint32_t order;
    uint32_t epoch;
    uint64_t t;
} release_t;

/*
 * The release of w by this thread (see the file comment): stamped now (read before
 * the count), at the next acquisition's published time, or at the thread's last event.
 */
static release_t release_of(st_omp_thread_t *ot, uint64_t w)
{
    release_t r = { .order = take_order(ot, w) };
    r.t = st_timer_now_ep_ordered(&r.epoch); /* before the count is read (timer.h: ordering) */
    lock_slot_t *s = r.order ? lock_slot(w) : NULL;
    if (!s) {
        no_order();
        return r;
    }
    uint32_t count = atomic_load_explicit(&s->count, memory_order_seq_cst);
    if (count == r.order)
        return r; /* the next acquisition is counted, then stamped, after this read */
    uint32_t o1 = atomic_load_explicit(&s->acq_order, memory_order_acquire);
    uint64_t t = atomic_load_explicit(&s->acq_time, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    uint32_t o2 = atomic_load_explicit(&s->acq_order, memory_order_relaxed);
    if (count == r.order + 1 && o1 == r.order + 1 && o2 == o1) {
        r.t = t < r.t ? t : r.t;
    } else { /* acquired twice since: the last event of this thread preceded the release */
        r.t = ot->th->last;
        r.epoch = ot->th->epoch;
    }
    return r;
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
    uint32_t epoch;
    uint64_t now = st_timer_now_ep(&epoch), t = acquire_time(ot, wait_id);
    const void *site = t ? ot->acq_codeptr : codeptr;
    t = t && t < now ? t : now; /* the ENTER: when waiting began */
    switch (kind) {
    case ompt_mutex_lock:
    case ompt_mutex_nest_lock: {
        st_region_t r = kind == ompt_mutex_lock ? ST_REGION_OMP_SET_LOCK : ST_REGION_OMP_SET_NEST_LOCK;
        st_omp_enter_stamped(ot, r, site, t, epoch);
        record_acquire(ot, kind, wait_id, now);
        st_omp_leave(ot, r);
        break;
    }
    case ompt_mutex_critical:
    case ompt_mutex_ordered:
        st_omp_enter_stamped(ot, kind == ompt_mutex_critical ? ST_REGION_OMP_CRITICAL : ST_REGION_OMP_ORDERED, site,
                             t, epoch);
        record_acquire(ot, kind, wait_id, now);
        st_omp_enter(ot, kind == ompt_mutex_critical ? ST_REGION_OMP_CRITICAL_SBLOCK : ST_REGION_OMP_ORDERED_SBLOCK,
                     codeptr);
        break;
    default:
        break;
    }
    st_omp_flush_point(ot);
}

void st_omp_cb_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    st_omp_thread_t *ot = NULL;
    if (kind == ompt_mutex_atomic || !st_omp_self(&ot))
        return;
    kind = lock_kind(kind);
    if (kind != ompt_mutex_lock && kind != ompt_mutex_nest_lock && kind != ompt_mutex_critical &&
        kind != ompt_mutex_ordered)
        return;
    release_t rel = release_of(ot, wait_id);
    switch (kind) {
    case ompt_mutex_lock:
    case ompt_mutex_nest_lock: {
        st_region_t r = kind == ompt_mutex_lock ? ST_REGION_OMP_UNSET_LOCK : ST_REGION_OMP_UNSET_NEST_LOCK;
        st_omp_enter_stamped(ot, r, codeptr, rel.t, rel.epoch);
        fill_lock(st_record_in_room_at(ot->th, ST_EV_THREAD_RELEASE_LOCK, rel.t, rel.epoch), kind, wait_id, rel.order);
        st_omp_leave(ot, r);
        break;
    }
    default: /* critical, ordered */
        st_omp_leave_at(ot, kind == ompt_mutex_critical ? ST_REGION_OMP_CRITICAL_SBLOCK : ST_REGION_OMP_ORDERED_SBLOCK,
                        rel.t);
        fill_lock(st_record_in_room_at(ot->th, ST_EV_THREAD_RELEASE_LOCK, rel.t, rel.epoch), kind, wait_id, rel.order);
        st_omp_leave(ot, kind == ompt_mutex_critical ? ST_REGION_OMP_CRITICAL : ST_REGION_OMP_ORDERED);
        break;
    }
    st_omp_flush_point(ot);
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
    st_omp_flush_point(ot);
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
