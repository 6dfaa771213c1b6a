/*
 * ompwaits.c — OpenMP waits of known size for the analysis tests (t_analyze_omp.sh);
 * built with -DWITH_MPI it runs the same phases on every rank of an MPI job.
 * Phases, each in its own parallel region of the full team (T threads) unless said:
 *   ebarrier  thread 1 sleeps D before an explicit barrier   -> omp_ebarrier_wait (T-1) D
 *   ibarrier  thread 1 sleeps D before the region's end       -> omp_ibarrier_wait (T-1) D
 *   critical  thread 1 holds a critical section for D, the others enter it at D/2
 *                                                              -> omp_lock_contention_critical (T-1) D/2
 *   lock      the same with an omp_lock_t                      -> omp_lock_contention_api (T-1) D/2
 *   serial    the master sleeps S between parallel regions     -> omp_idle_threads (T-1) S
 *   limited   a region of 2 threads, both sleep D              -> omp_limited_parallelism (T-2) D
 * Prints "T D S" (threads, milliseconds) on stdout, and per process "rank R PHASE MS" for
 * ebarrier, ibarrier, critical, lock and limited: the waits its own clock readings imply (on a
 * loaded machine a sleeping thread wakes late, a thread starts late).
 * Every region ends in an implicit barrier, and on a loaded machine any of them can hold a
 * real wait (thread 1 leaves the explicit barrier late while the others spin on the cores), so
 * "ibarrier" sums the readings at the end of every region, not only the ibarrier phase's.
 */
#include <omp.h>
#include <stdio.h>
#include <time.h>
#ifdef WITH_MPI
#include <mpi.h>
#endif

enum { D_MS = 60, S_MS = 150 };

enum { MAX_THREADS = 64 };
static double arrive[MAX_THREADS], at_end[MAX_THREADS];

/* Sum over the first n of (latest - own), in milliseconds. */
static double waits_ms(const double *at, int n)
{
    double last = 0, sum = 0;
    for (int i = 0; i < n; i++)
        last = at[i] > last ? at[i] : last;
    for (int i = 0; i < n; i++)
        sum += last - at[i];
    return sum * 1e3;
}

/* The last statement of every parallel region: this thread reaches the implicit barrier. */
#define AT_END() (at_end[omp_get_thread_num()] = omp_get_wtime())

/* Lock contention from the readings: the k-th holder (in acquisition order) waited from its
 * arrival until the (k-1)-th released. */
static int holder[MAX_THREADS], nheld;
static double release[MAX_THREADS];

static double contention_ms(void)
{
    double sum = 0;
    for (int k = 1; k < nheld; k++)
        sum += release[k - 1] > arrive[holder[k]] ? release[k - 1] - arrive[holder[k]] : 0;
    nheld = 0;
    return sum * 1e3;
}

/* Inside the critical section / lock: this thread holds it (k-th), then releases at the end. */
static int hold(void)
{
    holder[nheld] = omp_get_thread_num();
    return nheld++;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts))
        ;
}

int main(int argc, char **argv)
{
#ifdef WITH_MPI
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Barrier(MPI_COMM_WORLD);
#else
    (void)argc, (void)argv;
#endif
    int T = omp_get_max_threads(), rank = 0;
    double ebarrier, ibarrier, critical, lockwait, limited;
#ifdef WITH_MPI
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
    if (T > MAX_THREADS)
        return 1;
    omp_lock_t lock;
    omp_init_lock(&lock);

#pragma omp parallel
    {
        if (omp_get_thread_num() == 1)
            sleep_ms(D_MS);
        arrive[omp_get_thread_num()] = omp_get_wtime();
#pragma omp barrier
        AT_END();
    }
    ebarrier = waits_ms(arrive, T);
    ibarrier = waits_ms(at_end, T);
#pragma omp parallel
    {
        if (omp_get_thread_num() == 1)
            sleep_ms(D_MS);
        AT_END();
    }
    ibarrier += waits_ms(at_end, T);
#pragma omp parallel
    {
        if (omp_get_thread_num() != 1)
            sleep_ms(D_MS / 2);
        arrive[omp_get_thread_num()] = omp_get_wtime();
#pragma omp critical
        {
            int k = hold();
            if (omp_get_thread_num() == 1)
                sleep_ms(D_MS);
            release[k] = omp_get_wtime();
        }
        AT_END();
    }
    critical = contention_ms();
    ibarrier += waits_ms(at_end, T);
#pragma omp parallel
    {
        if (omp_get_thread_num() != 1)
            sleep_ms(D_MS / 2);
        arrive[omp_get_thread_num()] = omp_get_wtime();
        omp_set_lock(&lock);
        int k = hold();
        if (omp_get_thread_num() == 1)
            sleep_ms(D_MS);
        release[k] = omp_get_wtime();
        omp_unset_lock(&lock);
        AT_END();
    }
    lockwait = contention_ms();
    ibarrier += waits_ms(at_end, T);
    sleep_ms(S_MS);
    limited = omp_get_wtime();
#pragma omp parallel num_threads(2)
    {
        sleep_ms(D_MS);
        AT_END();
    }
    limited = (omp_get_wtime() - limited) * 1e3 * (T - 2);
    ibarrier += waits_ms(at_end, 2);

    omp_destroy_lock(&lock);
    if (rank == 0)
        printf("%d %d %d\n", T, D_MS, S_MS);
    printf("rank %d ebarrier %.3f\nrank %d ibarrier %.3f\nrank %d critical %.3f\nrank %d lock %.3f\n"
           "rank %d limited %.3f\n", rank, ebarrier, rank, ibarrier, rank, critical, rank, lockwait, rank, limited);
#ifdef WITH_MPI
    MPI_Finalize();
#endif
    return 0;
}
