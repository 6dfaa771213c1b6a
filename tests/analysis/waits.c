/*
 * waits.c — MPI program with injected waits of known size, one pattern per MPI function so
 * that each metric can be checked at the call path of the call that waits
 * (t_analyze_waits.sh, t_analyze_skew.sh). Before each phase the ranks align in MPI_Allgather (its waits
 * are not checked). Needs 4 ranks. Times in ms (argv[1] scales them, default 1).
 *   MPI_Recv      rank 1 sleeps LS_BLOCK before MPI_Send to 0   -> mpi_latesender on 0
 *   MPI_Wait      rank 1 sleeps LS_NB before Isend to 0 (0: Irecv + Wait) -> mpi_latesender on 0
 *   MPI_Waitall   ranks 1 / 2 sleep LS_MULTI_A / _B before sending to 0 -> the larger, once, on 0
 *   MPI_Waitany   0 receives from 1 (sleeps WRONG_ORDER), then from 2 (sent at once): the
 *                 first Late Sender is also Wrong Order (different sources)
 *   MPI_Sendrecv  ranks 0 and 1 exchange, 1 sleeps SENDRECV first      -> mpi_latesender on 0
 *   MPI_Wait      persistent requests (Recv_init / Send_init + MPI_Start), 1 sleeps PERSIST
 *                 before its Start -> mpi_latesender on 0 (added to the MPI_Wait above)
 *   MPI_Ssend     rank 2 sleeps LR before MPI_Recv from 3           -> mpi_latereceiver on 3
 *   MPI_Barrier   rank 1 sleeps BARRIER                             -> mpi_barrier_wait on 0, 2, 3
 *   MPI_Allreduce rank 2 sleeps NXN                                 -> mpi_wait_nxn on 0, 1, 3
 *   MPI_Bcast     root 3 sleeps BCAST                               -> mpi_latebroadcast on 0, 1, 2
 *   MPI_Reduce    ranks 1, 2, 3 sleep REDUCE, root 0                -> mpi_earlyreduce on 0 (it waits
 *                 for the earliest of them: earlyreduce.c tells earliest and latest apart)
 *   MPI_Gather    count 0 on every rank, root 1 sleeps              -> nothing (zero payload)
 *   MPI_Scan      rank 1 sleeps SCAN                                -> mpi_earlyscan on 2, 3
 *   MPI_Alltoall  on {0,1} and {2,3} (MPI_Comm_split): ranks 1 / 2 sleep SUB_A / SUB_B
 *                 -> mpi_wait_nxn on 0 (SUB_A) and 3 (SUB_B): each instance on its own group
 *   MPI_Finalize  rank 3 sleeps FINALIZE                            -> mpi_finalize_wait on 0, 1, 2
 *                 (each rank prints its own mark after MPI_Finalize)
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "true_time.h"

enum { LS_BLOCK = 100, LS_NB = 80, LS_MULTI_A = 30, LS_MULTI_B = 90, WRONG_ORDER = 70, SENDRECV = 45, PERSIST = 55, LR = 120, BARRIER = 60,
       NXN = 70, BCAST = 50, REDUCE = 40, GATHER0 = 60, SCAN = 40, SUB_A = 60, SUB_B = 30, FINALIZE = 50 };

static double scale = 1.0;

/* The program's own view of each phase: when each rank entered and left the call that
 * waits or causes the wait (CLOCK_MONOTONIC, shared by the processes of one node), printed
 * by rank 0 at the end as "mark PHASE RANK ENTER_MS LEAVE_MS": the test's oracle, since
 * on a loaded machine a rank may arrive later than its sleep alone says. */
enum { PH_RECV, PH_WAIT, PH_WAITALL, PH_WO1, PH_WO2, PH_SENDRECV, PH_PERSIST, PH_SSEND, PH_BARRIER, PH_ALLREDUCE, PH_BCAST, PH_REDUCE, PH_GATHER, PH_SCAN, PH_SUBCOMM, NPH };
static const char *const phase_name[NPH] = { "recv", "wait", "waitall", "wo1", "wo2", "sendrecv", "persist", "ssend", "barrier", "allreduce", "bcast",
                                             "reduce", "gather", "scan", "subcomm" };
static double mark[NPH][2];

#define ENTER(ph) (mark[ph][0] = now_ms())
#define LEAVE(ph) (mark[ph][1] = now_ms())

static void sleep_ms(int ms)
{
    double ns = ms * scale * 1e6;
    struct timespec ts = { (time_t)(ns / 1e9), (long)((long long)ns % 1000000000LL) };
    while (nanosleep(&ts, &ts))
        ;
}

static void align(void)
{
    int in = 0, out[64];
    MPI_Allgather(&in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
}

static void p2p(int rank)
{
    int v = rank, w[2];
    MPI_Request rq[2];
    MPI_Status st[2];
    align();
    if (rank == 1) {
        sleep_ms(LS_BLOCK);
        ENTER(PH_RECV);
        MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        LEAVE(PH_RECV);
    } else if (rank == 0) {
        ENTER(PH_RECV);
        MPI_Recv(&w[0], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        LEAVE(PH_RECV);
    }
    align();
    if (rank == 1) {
        sleep_ms(LS_NB);
        ENTER(PH_WAIT);
        MPI_Isend(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        MPI_Irecv(&w[0], 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq[0]);
        ENTER(PH_WAIT);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        LEAVE(PH_WAIT);
    }
    align();
    if (rank == 1 || rank == 2) {
        sleep_ms(rank == 1 ? LS_MULTI_A : LS_MULTI_B);
        ENTER(PH_WAITALL);
        MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Irecv(&w[0], 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(&w[1], 1, MPI_INT, 2, 3, MPI_COMM_WORLD, &rq[1]);
        ENTER(PH_WAITALL);
        MPI_Waitall(2, rq, st);
        LEAVE(PH_WAITALL);
    }
    align();
    if (rank == 1 || rank == 2) {
        if (rank == 1)
            sleep_ms(WRONG_ORDER);
        ENTER(rank == 1 ? PH_WO1 : PH_WO2);
        MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int idx;
        MPI_Irecv(&w[0], 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq[0]);
        ENTER(PH_WO1);
        MPI_Waitany(1, rq, &idx, MPI_STATUS_IGNORE);
        LEAVE(PH_WO1);
        MPI_Irecv(&w[1], 1, MPI_INT, 2, 5, MPI_COMM_WORLD, &rq[1]);
        ENTER(PH_WO2);
        MPI_Waitany(1, &rq[1], &idx, MPI_STATUS_IGNORE);
        LEAVE(PH_WO2);
    }
    align();
    if (rank <= 1) {
        if (rank == 1)
            sleep_ms(SENDRECV);
        ENTER(PH_SENDRECV);
        MPI_Sendrecv(&v, 1, MPI_INT, 1 - rank, 6, &w[0], 1, MPI_INT, 1 - rank, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        LEAVE(PH_SENDRECV);
    }
    align();
    if (rank <= 1) {
        MPI_Request pr;
        if (rank == 1) {
            MPI_Send_init(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &pr);
            sleep_ms(PERSIST);
            ENTER(PH_PERSIST);
        } else {
            MPI_Recv_init(&w[0], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &pr);
        }
        MPI_Start(&pr);
        if (rank == 0)
            ENTER(PH_PERSIST);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        LEAVE(PH_PERSIST);
        MPI_Request_free(&pr);
    }
    align();
    if (rank == 3) {
        ENTER(PH_SSEND);
        MPI_Ssend(&v, 1, MPI_INT, 2, 4, MPI_COMM_WORLD);
        LEAVE(PH_SSEND);
    } else if (rank == 2) {
        sleep_ms(LR);
        ENTER(PH_SSEND);
        MPI_Recv(&w[0], 1, MPI_INT, 3, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        LEAVE(PH_SSEND);
    }
}

static void colls(int rank)
{
    int v = rank, r = 0, buf[64];
    align();
    if (rank == 1)
        sleep_ms(BARRIER);
    ENTER(PH_BARRIER);
    MPI_Barrier(MPI_COMM_WORLD);
    LEAVE(PH_BARRIER);
    align();
    if (rank == 2)
        sleep_ms(NXN);
    ENTER(PH_ALLREDUCE);
    MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    LEAVE(PH_ALLREDUCE);
    align();
    if (rank == 3)
        sleep_ms(BCAST);
    ENTER(PH_BCAST);
    MPI_Bcast(&v, 1, MPI_INT, 3, MPI_COMM_WORLD);
    LEAVE(PH_BCAST);
    align();
    if (rank != 0)
        sleep_ms(REDUCE);
    ENTER(PH_REDUCE);
    MPI_Reduce(&v, &r, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    LEAVE(PH_REDUCE);
    align();
    if (rank == 1)
        sleep_ms(GATHER0);
    ENTER(PH_GATHER);
    MPI_Gather(&v, 0, MPI_INT, buf, 0, MPI_INT, 1, MPI_COMM_WORLD);
    LEAVE(PH_GATHER);
    align();
    if (rank == 1)
        sleep_ms(SCAN);
    ENTER(PH_SCAN);
    MPI_Scan(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    LEAVE(PH_SCAN);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
    align();
    if (rank == 1 || rank == 2)
        sleep_ms(rank == 1 ? SUB_A : SUB_B);
    ENTER(PH_SUBCOMM);
    MPI_Alltoall(&v, 1, MPI_INT, buf, 1, MPI_INT, half);
    LEAVE(PH_SUBCOMM);
    MPI_Comm_free(&half);
    align();
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        scale = atof(argv[1]);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "waits: needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    p2p(rank);
    colls(rank);
    static double all[4][NPH][2];
    MPI_Allgather(mark, 2 * NPH, MPI_DOUBLE, all, 2 * NPH, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int p = 0; rank == 0 && p < NPH; p++)
        for (int r = 0; r < 4; r++)
            if (all[r][p][0] > 0)
                printf("mark %s %d %.6f %.6f\n", phase_name[p], r, all[r][p][0], all[r][p][1]);
    fflush(stdout);
    align();
    if (rank == 3)
        sleep_ms(FINALIZE);
    double fin = now_ms();
    MPI_Finalize();
    printf("mark finalize %d %.6f %.6f\n", rank, fin, now_ms());
    return 0;
}
