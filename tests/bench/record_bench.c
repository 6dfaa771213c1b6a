/*
 * record_bench.c — micro benchmark of the recording hot path (tests/bench/run-bench.sh).
 *
 * Times, in one process without MPI traffic, what a wrapper adds per event:
 *   enter_leave  st_record_enter + st_record_leave pairs (record.h + the clock read of timer.h)
 *   wrapper      an MPI_Send-shaped wrapper body: ENTER (st_mpi_enter), a send event with
 *                its fields, LEAVE — per event
 *   cold         the first fill of a fresh default-size buffer (its pages are touched for
 *                the first time: page faults included) — per event
 *   flushing     continuous recording with the default SYNCTRACE_BUFFER, buffer flushes to
 *                the spill file included — per event
 *   callsite     st_mpi_enter with SYNCTRACE_CALLSITE=1 minus without, called from 8 frames
 *                deep (libunwind walks the stack) — per MPI call, i.e. per ENTER event
 * Each figure is the median of REPS timed runs; prints "NAME MEDIAN_NS MIN_NS" lines, after
 * a line "timer tsc|clock_gettime" (SYNCTRACE_TIMER decides, as in the library).
 * Usage: record_bench [SCALE] (default 1.0: about one second in all).
 */
/* link: src/record/record.c src/model/gaps.c src/util/mem.c src/record/spill.c src/clock/timer.c src/clock/tsc.c src/util/nodeid.c src/clock/tsc_points.c src/config/config.c src/util/archive_dir.c src/util/log.c src/mpi/callsite.c src/util/addr2line.c src/util/elffunc.c src/model/symbols.c src/record/unwind.c src/model/rankdata.c src/model/rankdata_dump.c src/model/callpath.c */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/config/config.h"
#include "../../src/mpi/st_mpi.h"

#define REPS 21

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
 * The calling thread's CPU time: on a machine shared with other work, time the thread
 * spends preempted is not the recorder's cost (user and system time both count, so
 * page faults and the spill writes do).
 */
static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static void report(const char *name, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    printf("%s %.2f %.2f\n", name, v[n / 2], v[0]);
    fflush(stdout);
}

/* ---- the cases ------------------------------------------------------------------------ */

static double run_enter_leave(st_thread_t *th, size_t pairs)
{
    th->pos = 0;
    double t0 = cpu_ns();
    for (size_t i = 0; i < pairs; i++) {
        st_record_enter(th, ST_REGION_PROGRAM, 0);
        st_record_leave(th, ST_REGION_PROGRAM);
    }
    return (cpu_ns() - t0) / (2.0 * (double)pairs);
}

/* The recording a blocking-send wrapper does around its PMPI call. */
__attribute__((noinline)) static void fake_send_wrapper(st_thread_t *th, int peer)
{
    st_mpi_enter(th, ST_REGION_PROGRAM);
    st_event_t *e = st_record(th, ST_EV_MPI_SEND);
    e->peer = peer;
    e->tag = 1;
    e->comm = 0;
    e->bytes = 8;
    e->id = th->pos;
    st_mpi_leave(th, ST_REGION_PROGRAM);
}

static double run_wrapper(st_thread_t *th, size_t calls)
{
    th->pos = 0;
    double t0 = cpu_ns();
    for (size_t i = 0; i < calls; i++)
        fake_send_wrapper(th, (int)(i & 3));
    return (cpu_ns() - t0) / (3.0 * (double)calls);
}

/* Calls fake_send_wrapper from depth frames below: application stacks are not flat. */
__attribute__((noinline)) static void nested(st_thread_t *th, int depth, size_t calls)
{
    if (depth > 0) {
        nested(th, depth - 1, calls);
        __asm__ volatile("" ::: "memory"); /* keeps the recursion from becoming a loop */
        return;
    }
    for (size_t i = 0; i < calls; i++)
        fake_send_wrapper(th, (int)(i & 3));
}

static double run_calls(st_thread_t *th, size_t calls, int callsite)
{
    st_mpi_callsite_on = callsite;
    th->pos = 0;
    double t0 = cpu_ns();
    nested(th, 8, calls);
    double per_call = (cpu_ns() - t0) / (double)calls;
    st_mpi_callsite_on = 0;
    return per_call;
}

typedef struct flush_arg {
    size_t events;
    double ns[REPS];
    int reps;
    uint64_t flushes;
} flush_arg_t;

/* On its own thread, so it gets a buffer of the default SYNCTRACE_BUFFER size. */
static void *run_flushing(void *p)
{
    flush_arg_t *fa = p;
    st_thread_t *th = st_thread_self();
    if (!th)
        return NULL;
    for (int r = 0; r < fa->reps; r++) {
        double t0 = cpu_ns();
        for (size_t i = 0; i < fa->events / 2; i++) {
            st_record_enter(th, ST_REGION_PROGRAM, 0);
            st_record_leave(th, ST_REGION_PROGRAM);
        }
        fa->ns[r] = (cpu_ns() - t0) / (double)(fa->events & ~(size_t)1);
    }
    fa->flushes = th->flushes;
    return NULL;
}

/* On a new thread: fills its fresh buffer once (no flush), as the first events of a run do. */
static void *run_cold(void *p)
{
    double *ns = p;
    st_thread_t *th = st_thread_self();
    if (!th)
        return NULL;
    size_t pairs = (th->cap - 2) / 2;
    double t0 = cpu_ns();
    for (size_t i = 0; i < pairs; i++) {
        st_record_enter(th, ST_REGION_PROGRAM, 0);
        st_record_leave(th, ST_REGION_PROGRAM);
    }
    *ns = (cpu_ns() - t0) / (2.0 * (double)pairs);
    return NULL;
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(scale > 0) || scale > 100) {
        fprintf(stderr, "usage: record_bench [SCALE 0..100]\n");
        return 2;
    }
    char err[512];
    if (st_config_load(err, sizeof err) != 0) {
        fprintf(stderr, "record_bench: %s\n", err);
        return 2;
    }
    size_t default_buffer = st_config.buffer;
    size_t n = (size_t)(400000 * scale) & ~(size_t)1;
    if (n < 1000)
        n = 1000;
    st_config.buffer = (n + 16) * sizeof(st_event_t); /* the timed loops never flush */
    st_timer_init(st_config.clock, st_config.timer);
    printf("timer %s\n", st_timer_tsc ? "tsc" : "clock_gettime");
    st_record_active = 1;
    st_thread_t *th = st_thread_self();
    if (!th) {
        fprintf(stderr, "record_bench: cannot allocate the event buffer\n");
        return 1;
    }
    double v[REPS], w[REPS];

    run_enter_leave(th, n / 2); /* warm-up: page in the buffer */
    for (int r = 0; r < REPS; r++)
        v[r] = run_enter_leave(th, n / 2);
    report("enter_leave", v, REPS);

    for (int r = 0; r < REPS; r++)
        v[r] = run_wrapper(th, n / 3);
    report("wrapper", v, REPS);

    size_t calls = n / 8;
    for (int r = 0; r < REPS; r++) {
        double off = run_calls(th, calls, 0), on = run_calls(th, calls, 1);
        v[r] = on - off;
        w[r] = off;
    }
    report("call_plain", w, REPS);
    report("callsite", v, REPS);

    st_config.buffer = default_buffer;
    pthread_t t;
    for (int r = 0; r < 7; r++) {
        pthread_create(&t, NULL, run_cold, &v[r]);
        pthread_join(t, NULL);
    }
    report("cold", v, 7);

    flush_arg_t fa = { .events = (size_t)(1000000 * scale), .reps = 5 };
    pthread_create(&t, NULL, run_flushing, &fa);
    pthread_join(t, NULL);
    report("flushing", fa.ns, fa.reps);
    printf("flushes %llu\n", (unsigned long long)fa.flushes);
    return 0;
}
