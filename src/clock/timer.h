/*
 * timer.h — the clock every event is stamped with.
 *
 * The local clock is one of two sources (SYNCTRACE_TIMER, chosen once at start-up):
 *  - clock: the selected clock_gettime clock (through the PLT, so a preloaded library
 *    can skew it in tests);
 *  - tsc: the x86-64 time-stamp counter, converted to ns with the node's conversion
 *    (measured once per node and boot: the same clock in every process; tsc.c). The
 *    conversion stays fixed for the whole run, so the TSC is just another local clock
 *    with a small constant offset and drift to the system clock: the sync models and
 *    sync points treat it like any other. Calibration points taken at every sync point and
 *    at MPI_Finalize map the global clock back onto the system clock at finalize
 *    (st_timer_correct).
 * st_timer_now() maps the local clock to the global clock with the current map:
 * G(L) = L + a + b·(L - t0) (with the TSC: the map's TSC form, straight from the ticks). Clock
 * synchronization (sync_mpi.c) publishes a new map at every sync epoch with
 * st_timer_set_map(); readers take no lock, allocate nothing and make no call beyond the
 * clock read. Every map carries its epoch number so that a recorder
 * can remember which map stamped an event (st_timer_now_ep) and the finalize step can
 * recover the local time exactly. Thread-safe.
 *
 * Ordering: st_timer_local() (clock sync, ping-pongs, calibration) reads the TSC with
 * rdtscp + lfence: rdtscp waits until every earlier instruction has executed (the load
 * that saw a ping-pong message arrive), lfence keeps later ones (the send of the reply)
 * from starting before the read. Without it a read after a polling loop can run ahead
 * of the load that ends the loop, by up to a cache-line transfer (~100 ns), which is the
 * size of the offsets being measured. OpenMP lock acquisitions and releases read it the
 * same way (st_timer_now_ordered): their order rests on a clock read before, resp. after,
 * an atomic counter (omp_mutex.c), and without the fence a plain rdtsc ran up to ~50 ns
 * past such a load and reversed lock handovers between spinning threads. Event stamps
 * (st_timer_now, st_timer_now_ep) use plain rdtsc: a
 * few ns of reordering around an MPI call or an OpenMP callback is far below the sync
 * accuracy, per-location order is restored by st_record_put, and the fences would cost
 * on every event.
 */
#ifndef ST_TIMER_H
#define ST_TIMER_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/*
 * Linear map from local to global time, already flattened (see clock/model.h), and the same
 * map on the TSC's ticks, which st_timer_set_map fills in: with the TSC as the local clock an
 * event's global time is one multiply from its ticks, g0 + (ticks - tsc0) x gm / 2^64, instead of
 * two conversions (ticks -> local ns by a 32.32 multiply, local -> global by a double multiply
 * and two int/double conversions). gm is (1 + b) ns per tick in 0.64 fixed point; the two forms
 * differ by their roundings only, at most 2 ns (test_tsc), and every global time the recorder reads
 * takes the TSC form, so their order on one clock is kept. gm 0: no TSC form (the clock_gettime
 * timer, or a TSC of 1 GHz or less, whose ns per tick does not fit 0.64).
 */
typedef struct st_timer_map {
    int64_t  a;     /* offset at t0, ns */
    double   b;     /* drift, ns per ns */
    uint64_t t0;    /* local time the drift is measured from */
    uint32_t epoch; /* 1: the local clock before the initial sync; +1 per published map */
    uint64_t tsc0;  /* the TSC form: ticks it counts from (the conversion's tsc0) */
    int64_t  g0;    /* global ns at tsc0 */
    uint64_t gm;    /* global ns per tick, 0.64 fixed point; 0: none */
} st_timer_map_t;

/* TSC -> local ns: ns0 + (tsc - tsc0) · mult / 2^32 (fixed for the run). */
typedef struct st_tsc_conv {
    uint64_t tsc0, ns0, mult;
} st_tsc_conv_t;

extern clockid_t st_timer_clock;
extern int st_timer_tsc; /* nonzero: the local clock is the TSC */
extern int st_timer_tsc_shared; /* ... with the node's conversion (the same clock in every process of the node) */
extern st_tsc_conv_t st_tsc_conv;
extern __attribute__((visibility("hidden"))) _Atomic(const st_timer_map_t *) st_timer_current; /* hidden as defined: a direct load */

/*
 * Selects the clock (one of ST_CLOCK_* from config.h) and the timer (ST_TIMER_*); with
 * the TSC, measures its conversion (a few ms). Not thread-safe; call at start-up.
 */
void st_timer_init(int clock, int timer);

/*
 * Fills in map's TSC form (st_timer_map_tsc) and publishes it. The caller keeps *map alive
 * and unchanged from then on (maps are never freed: a reader may still hold the old
 * pointer). Thread-safe.
 */
void st_timer_set_map(st_timer_map_t *map);

/* Fills in the TSC form of map (a, b, t0 set) from the current conversion; gm 0 without the TSC. */
void st_timer_map_tsc(st_timer_map_t *map);

/* Resolution of the local clock in ns (clock_getres; 1 with the TSC), at least 1. */
uint64_t st_timer_resolution_ns(void);

static inline uint64_t st_tsc_to_ns(uint64_t tsc)
{
    int64_t d = (int64_t)(tsc - st_tsc_conv.tsc0);
    return st_tsc_conv.ns0 + (uint64_t)(int64_t)(((__int128)d * (__int128)st_tsc_conv.mult) >> 32);
}

static inline uint64_t st_timer_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(st_timer_clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The TSC after every earlier instruction and before every later one (see above). */
static inline uint64_t st_tsc_ordered(void)
{
#if defined(__x86_64__)
    unsigned aux;
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
#else
    return 0;
#endif
}

/* The local clock, ordered with the surrounding code: for clock sync and calibration. */
static inline uint64_t st_timer_local(void)
{
    return st_timer_tsc ? st_tsc_to_ns(st_tsc_ordered()) : st_timer_clock_ns();
}

/* The local clock as events read it: plain rdtsc with the TSC. */
static inline uint64_t st_timer_stamp(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(st_timer_tsc, 1))
        return st_tsc_to_ns(__rdtsc());
#endif
    return st_timer_clock_ns();
}

static inline uint64_t st_timer_apply(const st_timer_map_t *m, uint64_t local)
{
    int64_t dl = (int64_t)(local - m->t0);
    return local + (uint64_t)(m->a + (int64_t)(m->b * (double)dl));
}

/* The global time under map m of TSC reading tsc before m's tsc0, or of local time read now
 * (ordered: with st_timer_local): the ways st_timer_global rarely takes, out of line. */
uint64_t st_timer_global_early(const st_timer_map_t *m, uint64_t tsc);
uint64_t st_timer_global_local(const st_timer_map_t *m, int ordered);

/* The global time of TSC reading tsc under map m, which has a TSC form (gm != 0). */
static inline uint64_t st_timer_global_tsc(const st_timer_map_t *m, uint64_t tsc)
{
    uint64_t d = tsc - m->tsc0;
    if (__builtin_expect((int64_t)d >= 0, 1))
        return (uint64_t)(m->g0 + (int64_t)(uint64_t)(((unsigned __int128)d * m->gm) >> 64));
    return st_timer_global_early(m, tsc);
}

/* The global time now, read with the plain clock read (stamp) or the ordered one (st_timer_local). */
static inline uint64_t st_timer_global(const st_timer_map_t *m, int ordered)
{
#if defined(__x86_64__)
    if (__builtin_expect(m->gm != 0, 1))
        return st_timer_global_tsc(m, ordered ? st_tsc_ordered() : __rdtsc());
#endif
    return st_timer_global_local(m, ordered);
}

static inline uint64_t st_timer_now(void)
{
    return st_timer_global(atomic_load_explicit(&st_timer_current, memory_order_acquire), 0);
}

/* st_timer_now() read with st_timer_local(): for a time that must precede the caller's next loads. */
static inline uint64_t st_timer_now_ordered(void)
{
    return st_timer_global(atomic_load_explicit(&st_timer_current, memory_order_acquire), 1);
}

/* st_timer_now_ordered() that also reports the epoch of the map it used. */
static inline uint64_t st_timer_now_ep_ordered(uint32_t *epoch)
{
    const st_timer_map_t *m = atomic_load_explicit(&st_timer_current, memory_order_acquire);
    *epoch = m->epoch;
    return st_timer_global(m, 1);
}

/* The epoch of the current map, without reading the clock (for an event stamped with a time read before). */
static inline uint32_t st_timer_epoch(void)
{
    return atomic_load_explicit(&st_timer_current, memory_order_acquire)->epoch;
}

/* st_timer_now() that also reports the epoch of the map it used (for event records). */
static inline uint64_t st_timer_now_ep(uint32_t *epoch)
{
    const st_timer_map_t *m = atomic_load_explicit(&st_timer_current, memory_order_acquire);
    *epoch = m->epoch;
    return st_timer_global(m, 0);
}

#endif
