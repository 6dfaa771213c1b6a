/*
 * pathwaits.c — injected waits in named functions, for call paths (t_analyze_callpath.sh).
 * 2 ranks x 2 OpenMP threads. Times in ms. Each wait sits in a function named after its role,
 * called through exchange() from main, so with SYNCTRACE_CALLPATH=1 the analysis must put it
 * at main/exchange/<victim>/<MPI or OpenMP region>:
 *   late_sender_victim   rank 0: MPI_Recv; rank 1 sleeps LS in late_sender_culprit before MPI_Send
 *                        -> mpi_latesender on rank 0
 *   barrier_victim       MPI_Barrier; rank 1 sleeps BARRIER first -> mpi_barrier_wait on rank 0
 *   omp_barrier_victim   #pragma omp barrier in a parallel region; thread 1 sleeps OMPB first
 *                        -> omp_ebarrier_wait on thread 0 of each rank
 *   critical_victim      #pragma omp critical; thread 0 holds it CRIT ms in critical_holder, thread 1
 *                        comes CRIT_LAG ms later -> omp_lock_contention_critical ~ CRIT - CRIT_LAG on
 *                        thread 1 of each rank
 *   recurse(DEPTH)       DEPTH nested calls of recurse, then MPI_Barrier (no wait): the path's depth
 * Each rank prints nothing; rank 0 prints "done".
 * With the argument "abort" rank 0 ends the run with MPI_Abort after the waits instead of MPI_Finalize
 * (t_recover_callpath.sh: the archive comes from the dumps).
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { LS = 120, BARRIER = 80, OMPB = 90, CRIT = 110, CRIT_LAG = 20, DEPTH = 7 };

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static volatile int sink;

static void __attribute__((noinline)) late_sender_victim(void)
{
    int v;
    MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sink = v;
}

static void __attribute__((noinline)) late_sender_culprit(void)
{
    int v = 42;
    sleep_ms(LS);
    MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    sink = v;
}

static void __attribute__((noinline)) barrier_victim(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    sink = 1;
}

static void __attribute__((noinline)) omp_barrier_victim(void)
{
#pragma omp barrier
    sink = 2;
}

static void __attribute__((noinline)) critical_holder(void)
{
#pragma omp critical
    sleep_ms(CRIT);
    sink = 3;
}

static void __attribute__((noinline)) critical_victim(void)
{
    sleep_ms(CRIT_LAG);
#pragma omp critical
    sink = 4;
}

static void __attribute__((noinline)) recurse(int n)
{
    if (n > 1)
        recurse(n - 1);
    else
        MPI_Barrier(MPI_COMM_WORLD);
    sink = n;
}

static void __attribute__((noinline)) exchange(int rank)
{
    if (rank == 0)
        late_sender_victim();
    else if (rank == 1)
        late_sender_culprit();
    if (rank == 1)
        sleep_ms(BARRIER);
    barrier_victim();
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1)
            sleep_ms(OMPB);
        omp_barrier_victim();
        if (omp_get_thread_num() == 0)
            critical_holder();
        else
            critical_victim();
    }
    recurse(DEPTH);
}

int main(int argc, char **argv)
{
    int rank, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    exchange(rank);
    if (argc > 1 && !strcmp(argv[1], "abort")) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(MPI_COMM_WORLD); /* the others wait here for the abort */
    }
    MPI_Finalize();
    if (rank == 0)
        printf("done\n");
    return 0;
}
