/*
 * clc_bench.c — workload of the CLC benchmark (tests/bench/clc_bench.sh).
 *
 * Usage: clc_bench ITERATIONS. Every iteration, on every rank: MPI_Sendrecv around the
 * ring, MPI_Irecv + MPI_Isend to both neighbours completed by an MPI_Testall loop, and
 * every 4th iteration an MPI_Iallreduce completed by an MPI_Test loop. The loops yield
 * the core (sched_yield): with more ranks than cores, MPICH's blocking waits would spin
 * through whole time slices. Rank 0 prints
 *   events_per_rank_estimate N
 *   finalize_ms T        (wall time of MPI_Finalize: sync, CLC, archive writing)
 *   run_ms T             (MPI_Init to MPI_Finalize)
 */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow" /* MPI_STATUSES_IGNORE, see tests/mpi/st_test.h */
#endif

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void wait_all(int n, MPI_Request *r)
{
    int done = 0;
    while (MPI_Testall(n, r, &done, MPI_STATUSES_IGNORE) == MPI_SUCCESS && !done)
        sched_yield();
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 1000;
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
        printf("checksum %ld\nevents_per_rank_estimate %ld\nfinalize_ms %.1f\nrun_ms %.1f\n", s, iters * 24, t2 - t1,
               t1 - t0);
    return 0;
}
