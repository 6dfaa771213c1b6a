/* gomp_late_work.c — the OpenMP part gomp_late.c loads at run time: n parallel regions of 2 threads. */
#include <omp.h>

long gomp_late_work(int n);

long gomp_late_work(int n)
{
    long sum = 0;
    for (int r = 0; r < n; r++) {
#pragma omp parallel num_threads(2) reduction(+ : sum)
        sum += omp_get_thread_num() + 1;
    }
    return sum;
}
