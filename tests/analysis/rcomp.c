/*
 * rcomp.c — OpenMP imbalance of known size in known functions, for the root-cause analysis
 * (t_analyze_rootcause.sh, rccheck.py omp). 3 threads (OMP_NUM_THREADS=3); built with -DWITH_MPI
 * it runs the same on every rank of an MPI job. Usage: rcomp [T_MS [B_MS [S_MS]]] (defaults 200,
 * 50 and 200 ms):
 *   barrier  a parallel region: sweep() shares a loop of one iteration per thread
 *            (`omp for schedule(static, 1) nowait`); every iteration computes B, thread 2's B + T;
 *            then an explicit barrier -> threads 0 and 1 wait T each (omp_ebarrier_wait):
 *            delay_ompbarrier 2T at sweep's `!$omp for` on thread 2, none on threads 0 and 1
 *   idle     the master computes S serially between that region and the next (each thread
 *            computes B in a second sweep) -> the workers are idle S each (omp_idle_threads):
 *            delay_ompidle 2S on the master, at its time in step(), none on the workers
 * Both phases are one call of step(), whose two parallel regions enclose its serial part: the
 * master's events around that part (the first region's end, the second's begin) are in step().
 * (Thread numbers here are OpenMP's; the trace numbers a process's threads in the order they first
 * record, the master 0, so the slow thread may be the trace's thread 1 or 2.)
 * The computations are busy loops on the clock (the run's time, whatever the load). Prints
 * "omp T_MS B_MS S_MS threads N" (rank 0), then "done".
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "busy.h"
#ifdef WITH_MPI
#include <mpi.h>
#endif

enum { SLOW = 2 };

/* One iteration per thread: iteration i on thread i (static, chunk 1); `slow` more on thread SLOW. */
static void __attribute__((noinline)) sweep(double base, double slow)
{
    int n = omp_get_num_threads();
#pragma omp for schedule(static, 1) nowait
    for (int i = 0; i < n; i++)
        busy_ms(i == SLOW ? base + slow : base);
}

static void __attribute__((noinline)) meet(void)
{
#pragma omp barrier
}

/* The slow thread's loop before a barrier, then serial time between two parallel regions. */
static void __attribute__((noinline)) step(double T, double B, double S)
{
#pragma omp parallel
    {
        sweep(B, T);
        meet();
    }
    busy_ms(S); /* the master alone */
#pragma omp parallel
    sweep(B, 0);
}

int main(int argc, char **argv)
{
    int rank = 0;
#ifdef WITH_MPI
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
    double T = argc > 1 ? atof(argv[1]) : 200, B = argc > 2 ? atof(argv[2]) : 50,
           S = argc > 3 ? atof(argv[3]) : 200;
    int nthreads = omp_get_max_threads();
    if (nthreads != 3) {
        fprintf(stderr, "rcomp: needs OMP_NUM_THREADS=3\n");
        return 2;
    }
    step(T, B, S);
    if (rank == 0)
        printf("omp %g %g %g threads %d\n", T, B, S, nthreads);
#ifdef WITH_MPI
    MPI_Finalize();
#endif
    if (rank == 0)
        printf("done\n");
    return 0;
}
