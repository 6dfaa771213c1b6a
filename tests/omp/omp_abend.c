/*
 * omp_abend.c — an OpenMP program (no MPI) that ends abnormally (tests/omp/t_omp_abend.sh).
 *
 * Usage: omp_abend segv | spin [SECONDS] | rounds N. All run 20 parallel regions of 3 threads first.
 * segv: then the initial thread stores through NULL. spin: then the 3 threads allocate and free
 * blocks of 16 B .. 8 KiB in a loop (one parallel region per 200 blocks) for SECONDS (default
 * 30), printing "running" once, so that a signal finds them inside malloc. rounds: the same loop
 * for exactly N regions (the same events every run). spin and rounds print "done" (flushed) as
 * the last thing before main returns: what follows is the tool's exit work.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "segv";
    int counted = !strcmp(mode, "rounds");
    double seconds = argc > 2 && !counted ? atof(argv[2]) : 30, start = now();
    long nrounds = counted && argc > 2 ? atol(argv[2]) : 0;
    long sum = 0;
    for (int r = 0; r < 20; r++) {
#pragma omp parallel num_threads(3) reduction(+ : sum)
        sum += omp_get_thread_num();
    }
    printf("sum %ld\n", sum);
    fflush(stdout);
    if (!strcmp(mode, "segv")) {
        volatile int *p = NULL;
        *p = 1;
    }
    for (int round = 0; counted ? round < nrounds : now() - start < seconds; round++) {
#pragma omp parallel num_threads(3)
        {
            uint64_t x = 88172645463325252ull + (uint64_t)omp_get_thread_num() + (uint64_t)round;
            for (int k = 0; k < 200; k++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                char *b = malloc(16 + x % 8192);
                if (b)
                    b[0] = 1;
                free(b);
            }
        }
        if (round == 20) {
            printf("running\n");
            fflush(stdout);
        }
    }
    printf("done\n");
    fflush(stdout);
    return 0;
}
