/*
 * hybrid.c — MPI + OpenMP test program: the constructs of constructs.c on every rank,
 * plus a parallel region in which every thread calls MPI (MPI_THREAD_MULTIPLE): a ring
 * MPI_Sendrecv with tag = thread number, so each thread's call is recorded on that
 * thread's location.
 *
 * Usage: hybrid [-t THREADS] (default 2). Rank 0 prints a checksum and the expected
 * OpenMP events per location role (constructs.h), one "EXPECT ..." line each.
 * Exit status 0, or 1 when the MPI exchange or the thread level is wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "constructs.h"

static int rank, size;
static int bad; /* wrong values received (written under atomic) */

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

int main(int argc, char **argv)
{
    int t = 2, provided = 0;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-t"))
            t = atoi(argv[++i]);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "hybrid: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double s = st_constructs_run(t, mpi_phase), total = 0;
    int allbad = 0;
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("hybrid: %d ranks x %d threads, checksum %.1f, bad exchanges %d\n", size, t, total, allbad);
        st_constructs_print_expect(stdout, t, 1);
    }
    MPI_Finalize();
    return allbad ? 1 : 0;
}
