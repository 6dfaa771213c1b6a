/* fake_compare.c — stands in for IMB-MPI1 and the OSU collective benchmarks in
 * t_rtbench_compare.sh: an MPI program that prints their output format with known figures, so the
 * test can check that tests/bench/roundtime_compare.sh takes the right column of each.
 *
 * Called as IMB-MPI1 OP... [-option value...]: a section per OP (Allreduce, Bcast, Alltoall, Barrier)
 * with t_min = b, t_max = 3b, t_avg = 2b, where b = (index of OP in that list + 1) per byte size 8 and
 * 10 times that at any other size; the sizes are read from the -msglen file. With -sync off (calls
 * back to back) every figure is a tenth of that.
 * Called as osu_<op> [-m S:S] [-f ...]: one row with Avg = 4b, Min = 3b, Max = 5b for size S (b as
 * above; osu_barrier has no size column). Only rank 0 prints. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const ops[] = { "Allreduce", "Bcast", "Alltoall", "Barrier" };

static double base(const char *op, long bytes)
{
    for (int i = 0; i < 4; i++)
        if (strcasecmp(op, ops[i]) == 0)
            return (i + 1) * (bytes == 8 || bytes < 0 ? 1.0 : 10.0);
    return 0;
}

static void imb(int argc, char **argv, int np)
{
    long sizes[16];
    int nsizes = 0;
    double f10 = 1;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-sync") == 0 && strcmp(argv[i + 1], "off") == 0)
            f10 = 0.1;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-msglen") == 0) {
            FILE *f = fopen(argv[i + 1], "r");
            if (!f) {
                perror(argv[i + 1]);
                return;
            }
            while (nsizes < 16 && fscanf(f, "%ld", &sizes[nsizes]) == 1)
                nsizes++;
            fclose(f);
        }
    printf("# List of Benchmarks to run:\n\n");
    for (int i = 1; i < argc && argv[i][0] != '-'; i++) {
        printf("#----------------------------------------------------------------\n"
               "# Benchmarking %s \n# #processes = %d \n"
               "#----------------------------------------------------------------\n",
               argv[i], np);
        if (strcasecmp(argv[i], "Barrier") == 0) {
            double b = f10 * base(argv[i], -1);
            printf(" #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n");
            printf("         1000     %8.2f     %8.2f     %8.2f\n\n", b, 3 * b, 2 * b);
            continue;
        }
        printf("       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n");
        for (int k = 0; k < nsizes; k++) {
            double b = f10 * base(argv[i], sizes[k]);
            printf(" %12ld %12d %12.2f %12.2f %12.2f\n", sizes[k], 1000, b, 3 * b, 2 * b);
        }
        printf("\n");
    }
}

static void osu(const char *name, int argc, char **argv)
{
    const char *op = name + 4; /* after "osu_" */
    long size = 0;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "-m") == 0)
            size = strtol(argv[i + 1], NULL, 10);
    printf("\n# OSU MPI %s Latency Test v7.4\n", op);
    if (strcmp(op, "barrier") == 0) {
        double b = base(op, -1);
        printf("# Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n");
        printf("%18.2f%18.2f%18.2f%12d\n", 4 * b, 3 * b, 5 * b, 1000);
        return;
    }
    double b = base(op, size);
    printf("# Datatype: MPI_CHAR.\n");
    printf("# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n");
    printf("%-10ld%18.2f%18.2f%18.2f%12d\n", size, 4 * b, 3 * b, 5 * b, 1000);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (rank == 0) {
        if (strncmp(name, "osu_", 4) == 0)
            osu(name, argc, argv);
        else
            imb(argc, argv, np);
    }
    MPI_Finalize();
    return 0;
}
