/*
 * pairing_nompi.c — the program without MPI of t_pairing.sh: prints its arguments and a sum, computed
 * by an OpenMP loop when built with -fopenmp (an OpenMP-only program, which the shim traces), by a
 * plain loop otherwise (a program the shim leaves alone); exits with the status given as first argument.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long sum = 0;
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : sum) num_threads(2)
#endif
    for (long i = 0; i < 100000; i++)
        sum += i % 7;
    printf("sum %ld\n", sum);
    for (int i = 1; i < argc; i++)
        printf("argument %d: '%s'\n", i, argv[i]);
    return argc > 1 ? atoi(argv[1]) : 0;
}
