/*
 * clc_hybrid.c — MPI + OpenMP program for the CLC tests (tests/clc/t_clc_hybrid.sh).
 *
 * Usage: clc_hybrid [-t THREADS] [ROUNDS] (defaults 3 and 3); MPI_THREAD_FUNNELED.
 * Every round, on every rank:
 *   the master: MPI_Sendrecv around the ring, MPI_Allreduce
 *   parallel region (THREADS threads):
 *     master construct: MPI_Sendrecv around the ring, then an explicit barrier — a
 *       message that arrives "early" on a skewed clock moves the master forward, and the
 *       barrier must carry that to every thread (OpenMP relations in the correction)
 *     critical section and an omp lock, updated by every thread
 *     single construct creating 4 tasks, taskwait
 *     implicit barrier at the end of the region (team end -> join)
 * Rank 0 prints one checksum line; exit 0.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static volatile double sink;

static double work(int n)
{
    double x = 1;
    for (int i = 0; i < n * 200; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

static long ring(long v, int tag)
{
    long in = -1;
    MPI_Sendrecv(&v, 1, MPI_LONG, (rank + 1) % size, tag, &in, 1, MPI_LONG, (rank + size - 1) % size, tag,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return in;
}

int main(int argc, char **argv)
{
    int threads = 3, rounds = 3, provided;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else
            rounds = atoi(argv[i]);
    }
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    omp_lock_t lock;
    omp_init_lock(&lock);
    long s = 0, total = 0, crit = 0, locked = 0, tasks = 0;
    for (int r = 0; r < rounds; r++) {
        s += ring(rank + r, 1);
        long m = 0, v = rank + r;
        MPI_Allreduce(&v, &m, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
        s += m;
#pragma omp parallel num_threads(threads) reduction(+ : s)
        {
#pragma omp master
            s += ring(10 * rank + r, 2);
#pragma omp barrier
            sink = work(2 + omp_get_thread_num());
#pragma omp critical
            crit++;
            omp_set_lock(&lock);
            locked += 2;
            omp_unset_lock(&lock);
#pragma omp single
            for (int k = 0; k < 4; k++) {
#pragma omp task
                {
                    sink = work(3);
#pragma omp atomic
                    tasks++;
                }
            }
#pragma omp taskwait
        }
    }
    omp_destroy_lock(&lock);
    s += crit + locked + tasks;
    MPI_Reduce(&s, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("clc_hybrid: %d ranks x %d threads, %d rounds, checksum %ld\n", size, threads, rounds, total);
    MPI_Finalize();
    return 0;
}
