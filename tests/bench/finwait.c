/*
 * finwait.c — does a rank that waits in MPI_Finalize for a slow peer take that peer's core?
 * (tests/bench/finwait_bench.sh)
 *
 * Usage: finwait SLOW_MS, 2 ranks. After MPI_Init both ranks move to one CPU (the lowest CPU
 * either may run on), so that they share a core as oversubscribed ranks do. After a barrier,
 * rank 1 (the waiter) calls MPI_Finalize at once, while rank 0 (the slow peer) first computes
 * for SLOW_MS ms of its own CPU time, then calls MPI_Finalize. Traced, the waiter spends that
 * time in the tool's finalize exchanges, waiting for the peer; untraced, in the MPI library's
 * MPI_Finalize (or not at all). After MPI_Finalize each rank prints one line:
 *     finwait slow CPU_MS WALL_MS      the peer's compute: CPU time and wall time it took
 *     finwait waiter CPU_MS WALL_MS    the waiter's MPI_Finalize: process CPU time and wall time
 * A waiter that yields its core lets the peer finish in about SLOW_MS wall (WALL/CPU near 1, plus
 * what other processes on that CPU take); one that busy-polls takes about half the core
 * (WALL/CPU near 2) and its own CPU time is close to its wall time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static volatile double sink;

/* Computes until this thread has used ms of CPU time. */
static void compute(double ms)
{
    double end = now_ms(CLOCK_THREAD_CPUTIME_ID) + ms, a = 0;
    while (now_ms(CLOCK_THREAD_CPUTIME_ID) < end)
        for (int i = 0; i < 10000; i++)
            a += i * 0.5;
    sink = a;
}

/* Moves this process to the lowest CPU any rank may run on (the same one for both ranks). */
static int share_one_cpu(void)
{
    cpu_set_t set;
    int mine = CPU_SETSIZE, cpu;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) {
                mine = c;
                break;
            }
    MPI_Allreduce(&mine, &cpu, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

int main(int argc, char **argv)
{
    double slow_ms = argc > 1 ? atof(argv[1]) : 1000;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || slow_ms <= 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 finwait SLOW_MS (SLOW_MS > 0)\n");
        MPI_Finalize();
        return 2;
    }
    if (share_one_cpu() != 0 && rank == 0)
        fprintf(stderr, "finwait: cannot move the ranks to one CPU; they may not share a core\n");
    MPI_Barrier(MPI_COMM_WORLD);
    double w0 = now_ms(CLOCK_MONOTONIC), c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
    if (rank == 0) {
        compute(slow_ms);
        double w1 = now_ms(CLOCK_MONOTONIC), c1 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
        MPI_Finalize();
        printf("finwait slow %.1f %.1f\n", c1 - c0, w1 - w0);
    } else {
        MPI_Finalize();
        double w1 = now_ms(CLOCK_MONOTONIC), c1 = now_ms(CLOCK_PROCESS_CPUTIME_ID);
        printf("finwait waiter %.1f %.1f\n", c1 - c0, w1 - w0);
    }
    return 0;
}
