/*
 * relations.c — many OpenMP relations in one run: the constructs of constructs.c
 * (parallel regions, barriers, critical, locks, tasks, ordered, nested teams)
 * repeated R times with T threads, so that with a small SYNCTRACE_BUFFER every thread
 * flushes its buffer several times, at whatever callback happens to fill it.
 * Built with -DST_RELATIONS_MPI it is hybrid: MPI_THREAD_MULTIPLE, every repetition
 * ends with a ring MPI_Sendrecv from every thread (tag = thread number) and an
 * MPI_Allreduce on the master.
 *
 * Usage: relations [-t T] [-r R] (defaults 3 and 30). Prints one checksum line (rank 0).
 * Exit status 0, or 1 when a value exchanged over MPI is wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef ST_RELATIONS_MPI
#include <mpi.h>
#endif

#include "constructs.h"

#ifdef ST_RELATIONS_MPI
static int rank, size, bad;

static void mpi_phase(int tid)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank * 100 + tid, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, right, tid, &in, 1, MPI_INT, left, tid, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in != left * 100 + tid) {
#pragma omp atomic
        bad++;
    }
}
#endif

int main(int argc, char **argv)
{
    int t = 3, r = 30;
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "-t"))
            t = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r"))
            r = atoi(argv[++i]);
    }
    double s = 0;
#ifdef ST_RELATIONS_MPI
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "relations: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int k = 0; k < r; k++) {
        double one = st_constructs_run(t, mpi_phase), all = 0;
        MPI_Allreduce(&one, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        s += all;
    }
    int allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("relations: %d ranks x %d threads x %d repetitions, checksum %.1f, bad exchanges %d\n", size, t, r,
               s, allbad);
    MPI_Finalize();
    return allbad ? 1 : 0;
#else
    for (int k = 0; k < r; k++)
        s += st_constructs_run(t, NULL);
    printf("relations: %d threads x %d repetitions, checksum %.1f\n", t, r, s);
    return 0;
#endif
}
