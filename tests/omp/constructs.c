/*
 * constructs.c — the OpenMP phases of the OpenMP test programs and their expected
 * events (see constructs.h). Built with clang -fopenmp or gcc -fopenmp.
 */
#include "constructs.h"

#include <omp.h>
#include <sched.h>
#include <string.h>
#include <time.h>

const char *const st_x_names[X__N] = {
#define X(id, name) name,
    ST_X_KEYS(X)
#undef X
};
const char *const st_role_names[ROLE__N] = { "master", "worker", "nested", "all" };

#ifdef __clang__
#define GOMP 0
#else
#define GOMP 1 /* gcc: GOMP entry points (see constructs.h) */
#endif

/* An opaque call after a worksharing construct: keeps gcc from merging the
 * construct's barrier into the barrier that ends the parallel region. */
__attribute__((noinline)) static void touch(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* Waits until n threads arrived (at most 20 s): keeps all inner teams of the nested
 * phase alive at once, so each has its own new thread (the pool cannot lend one
 * inner team's thread to another) and per-location counts are fixed. */
static int arrived;

static void rendezvous(int n)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    __atomic_add_fetch(&arrived, 1, __ATOMIC_SEQ_CST);
    do {
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < n && t.tv_sec - t0.tv_sec < 20);
}

static void phase_loops(int t, double *a, int n)
{
#pragma omp parallel num_threads(t)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < n; i++)
            a[i] = i;
        touch(a);
    }
#pragma omp parallel num_threads(t)
    {
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < n; i++)
            a[i] += 1.0;
        touch(a);
    }
}

static void phase_sync(int t, double *a)
{
#pragma omp parallel num_threads(t)
    {
        touch(a);
#pragma omp barrier
        touch(a);
#pragma omp barrier
        touch(a);
    }
#pragma omp parallel num_threads(t)
    {
#pragma omp single
        a[0] += 1.0;
        touch(a);
    }
#pragma omp parallel num_threads(t)
    {
#pragma omp sections
        {
#pragma omp section
            a[1] += 1.0;
#pragma omp section
            a[2] += 1.0;
        }
        touch(a);
    }
}

static long phase_mutex(int t)
{
    long crit = 0, named = 0, locked = 0, nested = 0; /* each guarded by its own mutex */
    omp_lock_t lock;
    omp_nest_lock_t nest;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
#pragma omp parallel num_threads(t)
    {
        for (int k = 0; k < ST_CONSTRUCTS_ITERS; k++) {
#pragma omp critical
            crit += 1;
#pragma omp critical(st_named)
            named += 2;
        }
    }
#pragma omp parallel num_threads(t)
    {
        for (int k = 0; k < ST_CONSTRUCTS_ITERS; k++) {
            omp_set_lock(&lock);
            locked += 1;
            omp_unset_lock(&lock);
            while (!omp_test_lock(&lock)) /* failed attempts record nothing */
                sched_yield();
            locked += 1;
            omp_unset_lock(&lock);
            omp_set_nest_lock(&nest);
            omp_set_nest_lock(&nest);
            nested += 1;
            omp_unset_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
            while (!omp_test_nest_lock(&nest))
                sched_yield();
            nested += 1;
            omp_unset_nest_lock(&nest);
        }
    }
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
    return crit + named + locked + nested;
}

static long phase_tasks(int t)
{
    long sum = 0;
#pragma omp parallel num_threads(t)
    {
#pragma omp master
        {
            for (int i = 0; i < ST_CONSTRUCTS_TASKS; i++) {
#pragma omp task shared(sum)
                {
#pragma omp atomic
                    sum += i;
                }
            }
#pragma omp taskwait
#pragma omp taskgroup
            {
                for (int i = 0; i < ST_CONSTRUCTS_TASKS; i++) {
#pragma omp task shared(sum)
                    {
#pragma omp atomic
                        sum += 10 * i;
                    }
                }
            }
        }
    }
    return sum;
}

static long phase_ordered_nested(int t, double *a)
{
    long c = 0;
#pragma omp parallel num_threads(t)
    {
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < 2 * t; i++) {
#pragma omp ordered
            c = c * 3 + i;
        }
        touch(a);
    }
    arrived = 0;
#pragma omp parallel num_threads(t)
    {
#pragma omp parallel num_threads(2)
        rendezvous(2 * t);
    }
    touch(a);
    return c;
}

double st_constructs_run(int t, void (*extra)(int tid))
{
    double a[64];
    omp_set_dynamic(0);
    omp_set_max_active_levels(2);
    phase_loops(t, a, 64);
    phase_sync(t, a);
    long c = phase_mutex(t) + phase_tasks(t) + phase_ordered_nested(t, a);
    if (extra) {
#pragma omp parallel num_threads(t)
        extra(omp_get_thread_num());
    }
    double s = (double)c;
    for (int i = 0; i < 64; i++)
        s += a[i];
    return s;
}

/* ---- expectations ------------------------------------------------------------------ */

/* Adds v to key k of the outer-team roles (master and workers). */
static void both(long x[ROLE__N][X__N], int k, long v)
{
    x[ROLE_MASTER][k] += v;
    x[ROLE_WORKER][k] += v;
}

/* One outermost parallel region: team events, the region, its closing implicit barrier. */
static void region(long x[ROLE__N][X__N])
{
    x[ROLE_MASTER][X_FORK]++;
    x[ROLE_MASTER][X_JOIN]++;
    both(x, X_TBEGIN, 1);
    both(x, X_TEND, 1);
    both(x, X_PARALLEL, 1);
    both(x, X_IBARRIER, 1);
}

/* The barrier closing a worksharing construct: implicit with clang, GOMP_barrier with gcc. */
static void ws_barrier(long x[ROLE__N][X__N])
{
    both(x, GOMP ? X_BARRIER : X_IBARRIER, 1);
}

void st_constructs_expect(int t, int with_extra, long x[ROLE__N][X__N])
{
    const long it = ST_CONSTRUCTS_ITERS, nt = ST_CONSTRUCTS_TASKS;
    memset(x, 0, sizeof(long) * ROLE__N * X__N);
    int regions = 10 + (with_extra != 0);
    for (int i = 0; i < regions; i++)
        region(x);
    /* loops: static (gcc inlines it: no loop region), dynamic */
    both(x, X_LOOP, GOMP ? 1 : 2);
    ws_barrier(x);
    ws_barrier(x);
    /* explicit barriers, single, sections (gcc: a loop) */
    both(x, X_BARRIER, 2);
    both(x, X_SINGLE, 1);
    ws_barrier(x);
    both(x, GOMP ? X_LOOP : X_SECTIONS, 1);
    ws_barrier(x);
    /* critical (unnamed, named); lock: set + test; nest lock: set-set-unset-unset + test-unset */
    both(x, X_CRITICAL, 2 * it);
    both(x, X_CRITICAL_SB, 2 * it);
    both(x, X_SET_LOCK, 2 * it);
    both(x, X_UNSET_LOCK, 2 * it);
    both(x, X_SET_NEST, 3 * it);
    both(x, X_UNSET_NEST, 3 * it);
    both(x, X_ACQ, 2 * it + 2 * it + 2 * it);
    both(x, X_REL, 2 * it + 2 * it + 2 * it);
    /* tasks: the master creates them (clang: in a masked region), anyone runs them */
    x[ROLE_MASTER][X_MASKED] += GOMP ? 0 : 1;
    x[ROLE_MASTER][X_TASK_CREATE] += 2 * nt;
    x[ROLE_MASTER][X_TCREATE] += 2 * nt;
    x[ROLE_MASTER][X_TASKWAIT] += 1;
    x[ROLE_MASTER][X_TASKGROUP] += 1;
    /* ordered: 2 iterations per thread */
    both(x, X_LOOP, 1);
    both(x, X_ORDERED, 2);
    both(x, X_ORDERED_SB, 2);
    both(x, X_ACQ, 2);
    both(x, X_REL, 2);
    ws_barrier(x);
    /* nested: every outer thread forks an inner team of 2 with one new thread */
    both(x, X_FORK, 1);
    both(x, X_JOIN, 1);
    both(x, X_TBEGIN, 1);
    both(x, X_TEND, 1);
    both(x, X_PARALLEL, 1);
    both(x, X_IBARRIER, 1);
    x[ROLE_NESTED][X_TBEGIN] = x[ROLE_NESTED][X_TEND] = 1;
    x[ROLE_NESTED][X_PARALLEL] = x[ROLE_NESTED][X_IBARRIER] = 1;
    /* task execution is spread over the threads: per-location counts are not fixed */
    for (int r = 0; r < ROLE__N; r++)
        x[r][X_TASK] = x[r][X_TSWITCH] = x[r][X_TCOMPLETE] = -1;
    for (int k = 0; k < X__N; k++)
        x[ROLE_ALL][k] = -1;
    x[ROLE_ALL][X_TASK] = 2 * nt;
    x[ROLE_ALL][X_TCOMPLETE] = 2 * nt;
    x[ROLE_ALL][X_TSWITCH] = 4 * nt; /* to the task, and back after its completion */
    (void)t;
}

void st_constructs_print_expect(FILE *out, int t, int with_extra)
{
    long x[ROLE__N][X__N];
    st_constructs_expect(t, with_extra, x);
    fprintf(out, "EXPECT\tworker\tlocations\t%d\n", t - 1);
    fprintf(out, "EXPECT\tnested\tlocations\t%d\n", t);
    for (int r = 0; r < ROLE__N; r++)
        for (int k = 0; k < X__N; k++)
            if (x[r][k] >= 0)
                fprintf(out, "EXPECT\t%s\t%s\t%ld\n", st_role_names[r], st_x_names[k], x[r][k]);
}
