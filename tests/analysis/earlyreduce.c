/*
 * earlyreduce.c — N-to-1 collectives whose members enter at known, well-separated times, for
 * Early Reduce (t_analyze_earlyreduce.sh). Root 0; 4 ranks. Before each phase the ranks align in
 * MPI_Allgather; then each rank sleeps its delay (ms) and enters the call:
 *   MPI_Reduce    root 0 at once, ranks 1 / 2 / 3 after 300 / 100 / 200
 *                 -> the root waits for the latest sender (rank 1), not the earliest (rank 2)
 *   MPI_Gatherv   root 0 at once, ranks 1 / 2 / 3 after 300 / 100 / 200, rank 1 sends 0 elements
 *                 -> rank 1 is left out: the root waits for rank 3
 *   MPI_Gather    root 0 after 150, ranks 1 / 2 / 3 after 300 / 100 / 200
 *                 -> the root waits for rank 1, though rank 2 began before it
 * Rank 0 prints "mark PHASE RANK ENTER_MS LEAVE_MS SENDS" for every member (the program's own
 * clock readings around each call; SENDS 1 if the member sends data): the test's oracle.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "true_time.h"

enum { PH_REDUCE, PH_GATHERV, PH_GATHER, NPH };
static const char *const phase_name[NPH] = { "reduce", "gatherv", "gather" };
/* delay[phase][rank] in ms */
static const int delay[NPH][4] = { { 0, 300, 100, 200 }, { 0, 300, 100, 200 }, { 150, 300, 100, 200 } };
static double mark[NPH][3]; /* enter, leave, sends */

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts))
        ;
}

static void align(void)
{
    int in = 0, out[4];
    MPI_Allgather(&in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size, v, r = 0, buf[4] = { 0 }, counts[4] = { 1, 0, 1, 1 }, displs[4] = { 0, 1, 1, 2 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "earlyreduce: needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    v = rank;
    for (int p = 0; p < NPH; p++) {
        align();
        sleep_ms(delay[p][rank]);
        mark[p][0] = now_ms();
        if (p == PH_REDUCE)
            MPI_Reduce(&v, &r, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        else if (p == PH_GATHERV)
            MPI_Gatherv(&v, counts[rank], MPI_INT, buf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
        else
            MPI_Gather(&v, 1, MPI_INT, buf, 1, MPI_INT, 0, MPI_COMM_WORLD);
        mark[p][1] = now_ms();
        mark[p][2] = rank != 0 && (p != PH_GATHERV || counts[rank] > 0);
    }
    static double all[4][NPH][3];
    /* an N-to-N collective: another MPI_Gather would add an Early Reduce of its own */
    MPI_Allgather(mark, 3 * NPH, MPI_DOUBLE, all, 3 * NPH, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int p = 0; rank == 0 && p < NPH; p++)
        for (int q = 0; q < 4; q++)
            printf("mark %s %d %.6f %.6f %d\n", phase_name[p], q, all[q][p][0], all[q][p][1], (int)all[q][p][2]);
    MPI_Finalize();
    return 0;
}
