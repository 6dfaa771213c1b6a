/*
 * omp_only.c — OpenMP without MPI: the constructs of constructs.c in one process.
 * Traced with the library preloaded, the archive is written when the program exits.
 * Usage: omp_only [-t THREADS] (default 3). Prints a checksum and the "EXPECT ..." lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constructs.h"

int main(int argc, char **argv)
{
    int t = 3;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-t"))
            t = atoi(argv[++i]);
    double s = st_constructs_run(t, NULL);
    printf("omp_only: %d threads, checksum %.1f\n", t, s);
    st_constructs_print_expect(stdout, t, 0);
    return 0;
}
