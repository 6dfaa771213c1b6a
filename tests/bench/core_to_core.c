/*
 * core_to_core.c — how far apart the machine's first two CPUs are: the round trip of one cache line
 * between a thread pinned to each (one writes, the other answers), the median over ROUNDS rounds of
 * TRIPS round trips. An empty OpenMP parallel region at 2 threads, a barrier and an MPI round trip
 * on shared memory are each a few such trips, so their untraced times follow this figure: on this
 * VM it was 410-520 ns whenever the untraced region took 1,400-1,750 ns (docs/performance.md, "The
 * machine"). user_bench.sh prints it before and after its runs.
 *
 * Usage: core_to_core [TRIPS] (default 100000). Prints "core_to_core_ns MEDIAN MIN MAX" (ns per
 * round trip over the rounds); exit 1 when there are fewer than 2 CPUs to pin to.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 9

static _Alignas(64) atomic_ulong line;
static unsigned long trips;
static int cpu[2];

static int pin(int c)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(c, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* The answering side: waits for each odd value and writes the next even one. */
static void *answer(void *arg)
{
    (void)arg;
    (void)pin(cpu[1]); /* unpinned, it still answers (on whichever CPU the system gives it) */
    for (unsigned long r = 0; r < ROUNDS * trips; r++) {
        while (atomic_load_explicit(&line, memory_order_acquire) != 2 * r + 1)
            ;
        atomic_store_explicit(&line, 2 * r + 2, memory_order_release);
    }
    return NULL;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    trips = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    if (trips == 0) {
        fprintf(stderr, "core_to_core: TRIPS must be a positive number, got '%s'\n", argv[1]);
        return 2;
    }
    cpu_set_t mine;
    int n = 0;
    if (sched_getaffinity(0, sizeof mine, &mine) == 0)
        for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
            if (CPU_ISSET(c, &mine))
                cpu[n++] = c;
    if (n < 2 || pin(cpu[0]) != 0) {
        fprintf(stderr, "core_to_core: needs two CPUs to pin to\n");
        return 1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, answer, NULL) != 0) {
        fprintf(stderr, "core_to_core: cannot start a thread\n");
        return 1;
    }
    double ns[ROUNDS];
    for (unsigned long k = 0; k < ROUNDS; k++) {
        double t0 = now_ns();
        for (unsigned long r = k * trips; r < (k + 1) * trips; r++) {
            atomic_store_explicit(&line, 2 * r + 1, memory_order_release);
            while (atomic_load_explicit(&line, memory_order_acquire) != 2 * r + 2)
                ;
        }
        ns[k] = (now_ns() - t0) / (double)trips;
    }
    pthread_join(t, NULL);
    qsort(ns, ROUNDS, sizeof *ns, cmp_double);
    printf("core_to_core_ns %.0f %.0f %.0f\n", ns[ROUNDS / 2], ns[0], ns[ROUNDS - 1]);
    return 0;
}
