/*
 * icoll.c — nonblocking collectives with injected waits of known size, each completed by
 * MPI_Wait (t_analyze_icoll.sh). Needs 4 ranks. Before each phase the ranks align in
 * MPI_Allgather (its waits are not checked). The late rank sleeps before its I-call; the
 * others start theirs at once and wait in MPI_Wait:
 *   ibarrier    rank 1 sleeps 60 ms             -> mpi_barrier_wait at MPI_Wait on 0, 2, 3
 *   iallreduce  rank 2 sleeps 70 ms             -> mpi_wait_nxn on 0, 1, 3
 *   ibcast      root 3 sleeps 50 ms             -> mpi_latebroadcast on 0, 1, 2
 *   ireduce     rank 1 sleeps 40 ms, root 0     -> mpi_earlyreduce on 0
 *   iscan       rank 1 sleeps 45 ms             -> mpi_earlyscan on 2, 3 (not 0: it needs no data of 1)
 *   ialltoallv  rank 0 sleeps 30 ms             -> nothing (not analysed, as in Scalasca)
 *   ibarrier2   rank 2 sleeps 35 ms; every rank polls with MPI_Test -> nothing (Test calls are
 *               skipped); the Test that completes it is collective synchronization time
 * Rank 0 prints "mark PHASE RANK ICALL_MS WAIT_ENTER_MS WAIT_LEAVE_MS" per rank and phase:
 * the program's own clock (CLOCK_MONOTONIC, shared on one node; the true time under the skew library) right before the I-call and
 * around the completing call, the test's oracle.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "true_time.h"

enum { PH_IBARRIER, PH_IALLREDUCE, PH_IBCAST, PH_IREDUCE, PH_ISCAN, PH_IALLTOALLV, PH_IBARRIER2, NPH };
static const char *const phase_name[NPH] = { "ibarrier", "iallreduce", "ibcast", "ireduce", "iscan", "ialltoallv",
                                             "ibarrier2" };
static const int late_rank[NPH] = { 1, 2, 3, 1, 1, 0, 2 }, late_ms[NPH] = { 60, 70, 50, 40, 45, 30, 35 };
static double mark[NPH][3];


static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts))
        ;
}

static void align(void)
{
    int in = 0, out[64];
    MPI_Allgather(&in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
}

/* One phase: the late rank sleeps, every rank starts the operation, then completes it. */
static void phase(int ph, int rank, int size)
{
    int v = rank + 1, w[64], counts[64], displs[64];
    MPI_Request rq;
    for (int i = 0; i < size; i++)
        counts[i] = 1, displs[i] = i;
    align();
    if (rank == late_rank[ph])
        sleep_ms(late_ms[ph]);
    mark[ph][0] = now_ms();
    switch (ph) {
    case PH_IBARRIER:
    case PH_IBARRIER2:  MPI_Ibarrier(MPI_COMM_WORLD, &rq); break;
    case PH_IALLREDUCE: MPI_Iallreduce(&v, w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq); break;
    case PH_IBCAST:     MPI_Ibcast(&v, 1, MPI_INT, 3, MPI_COMM_WORLD, &rq); break;
    case PH_IREDUCE:    MPI_Ireduce(&v, w, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &rq); break;
    case PH_ISCAN:      MPI_Iscan(&v, w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq); break;
    default:            MPI_Ialltoallv(&v, counts, displs, MPI_INT, w, counts, displs, MPI_INT, MPI_COMM_WORLD, &rq);
    }
    mark[ph][1] = now_ms();
    if (ph == PH_IBARRIER2) {
        int done = 0;
        while (!done)
            MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    } else {
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    mark[ph][2] = now_ms();
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "icoll: needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int ph = 0; ph < NPH; ph++)
        phase(ph, rank, size);
    double all[4][NPH][3];
    MPI_Gather(mark, NPH * 3, MPI_DOUBLE, all, NPH * 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int ph = 0; ph < NPH; ph++)
            for (int r = 0; r < size; r++)
                printf("mark %s %d %.6f %.6f %.6f\n", phase_name[ph], r, all[r][ph][0], all[r][ph][1], all[r][ph][2]);
    MPI_Finalize();
    return 0;
}
