/*
 * clc_bench.c — workload of the CLC benchmark (tests/bench/clc_bench.sh).
 *
 * Usage: clc_bench ITERATIONS [THREADS]. Every iteration, on every rank: a message to the
 * right neighbour (MPI_Irecv + MPI_Send), MPI_Irecv + MPI_Isend to both neighbours, and
 * every 4th iteration an MPI_Iallreduce, each completed by MPI_Waitall after polling with
 * PMPI_Request_get_status + sched_yield: with more ranks than cores, MPICH's blocking
 * waits would spin through whole time slices; the polls are not traced, so every run
 * records the same events. With THREADS > 0 (built with OpenMP), every iteration
 * also runs a parallel region of THREADS threads (a worksharing loop and a critical
 * section): most events are then OpenMP events, as in hybrid applications.
 * Rank 0 prints
 *   finalize_ms T        (wall time of MPI_Finalize: sync, CLC, archive writing)
 *   run_ms T             (MPI_Init to MPI_Finalize)
 * and every rank, after MPI_Finalize
 *   vmhwm_kb RANK KB     (its peak resident memory, /proc/self/status VmHWM)
 */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow" /* MPI_STATUSES_IGNORE, see tests/mpi/st_test.h */
#endif

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Peak resident memory of this process (VmHWM), -1 if unknown. */
static long peak_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

/* Polls with PMPI_Request_get_status (not traced, does not complete the request) so the
 * trace has the same events however long the wait, then completes with a traced MPI_Waitall. */
static void wait_all(int n, MPI_Request *r)
{
    for (int i = 0; i < n; i++) {
        int done = 0;
        while (PMPI_Request_get_status(r[i], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
            sched_yield();
    }
    MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 1000;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    (void)threads; /* used with OpenMP only */
    int rank, size;
    double t0 = now_ms();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long s = 0, a, b[2], c;
    for (long i = 0; i < iters; i++) {
        a = rank + i;
        MPI_Request r[4];
        MPI_Irecv(&c, 1, MPI_LONG, left, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Send(&a, 1, MPI_LONG, right, 1, MPI_COMM_WORLD);
        wait_all(1, r);
        MPI_Irecv(&b[0], 1, MPI_LONG, left, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&b[1], 1, MPI_LONG, right, 2, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(&a, 1, MPI_LONG, right, 2, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(&a, 1, MPI_LONG, left, 2, MPI_COMM_WORLD, &r[3]);
        wait_all(4, r);
        s += c + b[0] - b[1];
#ifdef _OPENMP
        if (threads > 0) {
            double acc = 0;
#pragma omp parallel num_threads(threads) reduction(+ : acc)
            {
#pragma omp for
                for (int k = 0; k < 64; k++)
                    acc += k * 0.5;
#pragma omp critical
                s++;
            }
            s += (long)acc;
        }
#endif
        if (i % 4 == 0) {
            long m;
            MPI_Iallreduce(&a, &m, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD, &r[0]);
            wait_all(1, r);
            s += m;
        }
    }
    double t1 = now_ms();
    MPI_Finalize();
    double t2 = now_ms();
    if (rank == 0)
        printf("checksum %ld\nfinalize_ms %.1f\nrun_ms %.1f\n", s, t2 - t1, t1 - t0);
    printf("vmhwm_kb %d %ld\n", rank, peak_kb()); /* tests/bench/scaling_bench.sh */
    return 0;
}
