/*
 * skew.c — LD_PRELOAD library that gives every simulated node its own clock.
 *
 * Intercepts clock_gettime (all clock ids). The local clock of simulated node n at
 * true monotonic time t is
 *     L_n(t) = true(t) + off_n + drift_n·(t - T0) + wander_n(t) + step_n(t)
 * with off_n uniform in ±SKEW_OFFSET_NS, drift_n in ±SKEW_DRIFT_PPM, wander_n two
 * sinusoids of total amplitude SKEW_WANDER_NS and periods around SKEW_WANDER_PERIOD_S,
 * and step_n an abrupt drift change of ±SKEW_STEP_PPM from SKEW_STEP_AT_S seconds
 * after T0 (off unless SKEW_STEP_AT_S is set; SKEW_STEP_NODE=n: on node n only).
 * Everything derives from SKEW_SEED and n, so every process can compute every node's
 * clock: the ground truth (skew.h).
 *
 * Environment (all optional): SKEW_NODE_SIZE (ranks per node, default 1),
 * SKEW_PER_RANK=1 (every rank its own clock, overrides the node size), SKEW_SEED (1),
 * SKEW_OFFSET_NS (1e9), SKEW_DRIFT_PPM (100), SKEW_WANDER_NS (2000),
 * SKEW_WANDER_PERIOD_S (60), SKEW_STEP_AT_S, SKEW_STEP_PPM (1), SKEW_T0_NS (0; set it
 * to "now" so offsets stay near off_n — tests/skew/skew-env.sh does), SKEW_DISABLE=1,
 * SKEW_THREAD_NS (0): threads of a process get their own clocks too: the k-th thread to
 * read the clock is shifted by a further (k odd ? +1 : -1) * ceil(k / 2) * SKEW_THREAD_NS
 * (the first thread not at all), so OpenMP relations also look reversed.
 * The rank comes from PMI_RANK (MPICH hydra) or OMPI_COMM_WORLD_RANK (Open MPI), else
 * MPI_LOCALRANKID; none: no skew.
 * SKEW_BIND=1 (off by default) places the simulated nodes as a cluster would: every process of
 * node n is bound to one CPU of its affinity mask, chosen by the parity of the bits of n (plus
 * n/2 mod half the CPUs when there are more than two), so the two nodes of every pair of a
 * binomial tree (members differing in one bit) sit on different CPUs. Unbound, the scheduler
 * kept a ping-ponging pair on one of two CPUs for tens of ms: every message waited for a
 * context switch (round trips of 10 µs against 2), which no real pair of nodes does.
 * Load it before libsynctrace.so: LD_PRELOAD=libskew.so:libsynctrace.so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skew.h"

#define EXPORT __attribute__((visibility("default")))

typedef int (*cg_fn)(clockid_t, struct timespec *);

static cg_fn real_cg;
static _Atomic int state; /* 0 new, 1 initializing, 2 ready */
static int my_node = -1, node_size = 1, per_rank;
static uint64_t seed = 1;
static double off_max = 1e9, drift_max = 100e-6, wander = 2000, period = 60e9, step_at = -1, step_ppm = 1;
static int step_node = -1; /* SKEW_STEP_NODE: the only node whose drift steps; -1 every node */
static int64_t t0;
static double thread_ns;
static _Atomic int nthreads;
static __thread int thread_idx = -1;

static double envd(const char *name, double def)
{
    const char *s = getenv(name);
    return s && *s ? strtod(s, NULL) : def;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1). */
static double unit(uint64_t *x) { return (double)(splitmix(x) >> 11) / 9007199254740992.0 * 2 - 1; }

typedef struct node_param {
    double off, drift, amp[2], per[2], ph[2], step;
} node_param_t;

static node_param_t param_of(int node)
{
    node_param_t p;
    uint64_t x = seed * 1000003u + (uint64_t)node * 7919u + 17;
    p.off = off_max * unit(&x);
    p.drift = drift_max * unit(&x);
    double share = 0.5 + 0.5 * fabs(unit(&x)); /* split of the amplitude between the two terms */
    p.amp[0] = wander * share;
    p.amp[1] = wander * (1 - share);
    p.per[0] = period * (1 + 0.3 * unit(&x));
    p.per[1] = period * (0.3 + 0.1 * unit(&x));
    p.ph[0] = M_PI * unit(&x);
    p.ph[1] = M_PI * unit(&x);
    p.step = step_ppm * 1e-6 * (unit(&x) < 0 ? -1 : 1);
    if (step_node >= 0 && node != step_node)
        p.step = 0;
    return p;
}

/* SKEW_BIND: node's processes to one CPU of the mask (see the header). */
static void bind_node(int node)
{
    cpu_set_t set;
    if (node < 0 || sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
        return;
    int n = CPU_COUNT(&set), want = (__builtin_popcount((unsigned)node) & 1) + 2 * ((node / 2) % (n / 2)), k = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &set) && k++ == want) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one);
            return;
        }
    }
}

static int rank_from_env(void)
{
    const char *r = getenv("PMI_RANK");
    if (!r)
        r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r)
        r = getenv("MPI_LOCALRANKID");
    return r ? atoi(r) : -1;
}

static void init(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&state, &expect, 1)) {
        while (atomic_load(&state) != 2)
            ;
        return;
    }
    real_cg = (cg_fn)dlsym(RTLD_NEXT, "clock_gettime");
    node_size = (int)envd("SKEW_NODE_SIZE", 1);
    if (node_size < 1)
        node_size = 1;
    per_rank = (int)envd("SKEW_PER_RANK", 0);
    seed = (uint64_t)envd("SKEW_SEED", 1);
    off_max = envd("SKEW_OFFSET_NS", 1e9);
    drift_max = envd("SKEW_DRIFT_PPM", 100) * 1e-6;
    wander = envd("SKEW_WANDER_NS", 2000);
    period = envd("SKEW_WANDER_PERIOD_S", 60) * 1e9;
    step_at = getenv("SKEW_STEP_AT_S") ? envd("SKEW_STEP_AT_S", 0) * 1e9 : -1;
    step_ppm = envd("SKEW_STEP_PPM", 1);
    step_node = (int)envd("SKEW_STEP_NODE", -1);
    t0 = (int64_t)envd("SKEW_T0_NS", 0);
    thread_ns = envd("SKEW_THREAD_NS", 0);
    int rank = rank_from_env();
    my_node = envd("SKEW_DISABLE", 0) != 0 || rank < 0 ? -1 : per_rank ? rank : rank / node_size;
    if (envd("SKEW_BIND", 0) != 0)
        bind_node(my_node);
    atomic_store(&state, 2);
}

__attribute__((constructor)) static void skew_load(void) { init(); }

EXPORT int skew_node_of_rank(int rank)
{
    if (atomic_load(&state) != 2)
        init();
    return per_rank ? rank : rank / node_size;
}

EXPORT int skew_node(void)
{
    if (atomic_load(&state) != 2)
        init();
    return my_node;
}

EXPORT int64_t skew_delta_ns(int node, uint64_t t)
{
    if (atomic_load(&state) != 2)
        init();
    if (node < 0)
        return 0;
    node_param_t p = param_of(node);
    double dt = (double)((int64_t)t - t0);
    double d = p.off + p.drift * dt;
    for (int i = 0; i < 2; i++)
        d += p.amp[i] * (sin(2 * M_PI * dt / p.per[i] + p.ph[i]) - sin(p.ph[i]));
    if (step_at >= 0 && dt > step_at)
        d += p.step * (dt - step_at);
    return (int64_t)llround(d);
}

EXPORT uint64_t skew_true_ns(clockid_t id)
{
    struct timespec ts;
    if (atomic_load(&state) != 2)
        init();
    real_cg(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

EXPORT int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (atomic_load(&state) != 2)
        init();
    int rc = real_cg(id, ts);
    if (rc != 0 || my_node < 0)
        return rc;
    /* Only the clocks that tell time; CPU-time clocks stay untouched. */
    if (id != CLOCK_MONOTONIC && id != CLOCK_REALTIME && id != CLOCK_MONOTONIC_RAW && id != CLOCK_BOOTTIME &&
        id != CLOCK_MONOTONIC_COARSE && id != CLOCK_REALTIME_COARSE)
        return rc;
    struct timespec m;
    if (id == CLOCK_MONOTONIC)
        m = *ts;
    else
        real_cg(CLOCK_MONOTONIC, &m);
    uint64_t tm = (uint64_t)m.tv_sec * 1000000000u + (uint64_t)m.tv_nsec;
    int64_t v = (int64_t)((uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec) + skew_delta_ns(my_node, tm);
    if (thread_ns > 0) {
        if (thread_idx < 0)
            thread_idx = atomic_fetch_add(&nthreads, 1);
        int k = thread_idx;
        v += (int64_t)((k % 2 ? 1 : -1) * ((k + 1) / 2) * thread_ns);
    }
    if (v < 0)
        v = 0;
    ts->tv_sec = (time_t)(v / 1000000000);
    ts->tv_nsec = (long)(v % 1000000000);
    return rc;
}
