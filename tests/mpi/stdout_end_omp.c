/*
 * stdout_end_omp.c — an OpenMP program without MPI that leaves its last stdout line unterminated
 * (tests/mpi/t_stdout_ends.sh). Usage: stdout_end_omp MODE, MODE "normal" (returns 0) or
 * "signal" (flushes stdout, then raises SIGTERM).
 */
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
    long sum = 0;
    for (int r = 0; r < 5; r++) {
#pragma omp parallel reduction(+ : sum)
        sum += omp_get_thread_num() + 1;
    }
    printf("stdout_end_omp: sum %ld\n", sum > 0 ? 1L : 0L); /* the thread count may vary: only that it ran */
    printf("mode %s\n", mode);
    printf("partial");
    if (!strcmp(mode, "signal")) {
        fflush(stdout);
        raise(SIGTERM);
    }
    return 0;
}
