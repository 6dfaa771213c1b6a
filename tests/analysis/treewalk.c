/*
 * treewalk.c — deep call paths for the metric tree's invariants (t_analyze_tree.sh), MPI only (mpi_cc)
 * or hybrid (clang -fopenmp, LLVM libomp): MPI calls 4-5 functions deep, one function (work) called
 * from two callers (phase_a, phase_b), an MPI_Allreduce at the bottom of a recursion (descend), and
 * computation between the calls, imbalanced over the ranks so that there are waits. With OpenMP,
 * parallel regions inside functions (hybrid_step/parallel_part) whose threads wait in an explicit
 * barrier, a critical section and a loop's implicit barrier, MPI between the regions on the master,
 * and a region of one thread (the others idle: limited parallelism).
 * Rank 0 prints "done".
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static volatile double sink;

/* Computation for us microseconds. */
static void __attribute__((noinline)) spin(int us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double x = 0;
    do {
        for (int i = 0; i < 200; i++)
            x += i * 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
    sink = x;
}

static void __attribute__((noinline)) exchange(int rank, int size, int us)
{
    int v = rank, w = -1;
    spin(us * (rank + 1));
    MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 1, &w, 1, MPI_INT, (rank + size - 1) % size, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    sink = w;
}

static void __attribute__((noinline)) work(int rank, int size, int us)
{
    spin(us);
    exchange(rank, size, us);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void __attribute__((noinline)) phase_a(int rank, int size)
{
    work(rank, size, 2000);
    spin(500);
}

static void __attribute__((noinline)) phase_b(int rank, int size)
{
    spin(300);
    work(rank, size, 1000);
    sink = 1;
}

static int __attribute__((noinline)) descend(int n, int rank)
{
    int r;
    if (n > 0) {
        spin(200 * (rank + 1));
        r = descend(n - 1, rank) + 1;
    } else {
        int v = rank;
        MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    return r;
}

#ifdef _OPENMP
static void __attribute__((noinline)) team_barrier(void)
{
    spin(omp_get_thread_num() ? 3000 : 500);
#pragma omp barrier
    sink = 2;
}

static void __attribute__((noinline)) team_critical(void)
{
#pragma omp critical
    spin(800);
    sink = 3;
}

static void __attribute__((noinline)) team_loop(void)
{
#pragma omp for schedule(static)
    for (int i = 0; i < 8; i++)
        spin(100 * (i + 1));
    sink = 4;
}

static void __attribute__((noinline)) parallel_part(int nthreads)
{
#pragma omp parallel num_threads(nthreads)
    {
        team_barrier();
        team_critical();
        team_loop();
    }
    sink = 5;
}

static void __attribute__((noinline)) hybrid_step(int rank, int size)
{
    parallel_part(2);
    spin(500);
    exchange(rank, size, 300);
    parallel_part(1); /* the other thread idles: limited parallelism */
    sink = 6;
}
#endif

int main(int argc, char **argv)
{
    int provided, rank, size, sum = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int it = 0; it < 3; it++) {
        phase_a(rank, size);
        phase_b(rank, size);
        sum += descend(3 + it, rank);
#ifdef _OPENMP
        hybrid_step(rank, size);
#endif
    }
    spin(1000);
    MPI_Finalize();
    if (rank == 0)
        printf(sum > 0 ? "done\n" : "wrong sum\n");
    return 0;
}
