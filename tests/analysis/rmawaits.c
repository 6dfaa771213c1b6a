/*
 * rmawaits.c — one-sided (RMA) wait states of known size (t_analyze_rma.sh), 3 ranks. Each phase
 * is a function of its own, so that with SYNCTRACE_CALLPATH=1 the wait sits at
 * main/<phase>/<MPI call>; before each phase the ranks align in MPI_Barrier (not checked). Times
 * in ms; the late rank computes (busy loop), it does not sleep:
 *   phase_create      rank 2 computes CREATE before MPI_Win_create   -> mpi_rma_wait_at_create on 0, 1
 *   phase_fence_late  rank 1 computes FENCE before MPI_Win_fence     -> mpi_rma_wait_at_fence on 0, 2;
 *                     the epoch it closes has no operation: no mpi_rma_early_fence
 *   phase_fence_early rank 1 computes EARLY, puts 4 ints to rank 2 (MPI_Put), computes LATE, then
 *                     MPI_Win_fence -> mpi_rma_wait_at_fence ~ EARLY + LATE on 0 and 2, of which
 *                     mpi_rma_early_fence ~ EARLY on 2 (until the put to it returned), none on 0
 *   phase_free        rank 0 computes FREE before MPI_Win_free      -> mpi_rma_wait_at_free on 1, 2
 * General active target (rank 0 posts to 1 and 2 and waits; 1 and 2 start on 0, put 1 int, complete):
 *   phase_early_wait  rank 1 computes EWAIT after MPI_Win_start, then puts and completes at once
 *                     -> mpi_rma_early_wait ~ EWAIT at rank 0's MPI_Win_wait, no mpi_rma_late_complete
 *   phase_late_complete rank 1 puts, computes LCOMPLETE, then MPI_Win_complete
 *                     -> mpi_rma_early_wait ~ LCOMPLETE at rank 0's MPI_Win_wait, all of it
 *                     mpi_rma_late_complete (the put had returned)
 *   phase_late_post   rank 0 computes LPOST before MPI_Win_post; 1 and 2 start, put and complete at
 *                     once -> mpi_rma_sync_late_post (complete, or a blocking start) or
 *                     mpi_rma_comm_late_post (a put that waits for the post) ~ LPOST on 1 and 2
 * Passive target (origin A locks target T's window, puts 1 int, flushes: it holds the lock; tells B
 * with a message, computes LOCK, unlocks; B locks as soon as it hears, puts 1 int, unlocks):
 *   phase_lock_excl   T 0, A 1, B 2, both exclusive -> mpi_rma_sync_lock_competition (MPI_Win_lock
 *                     or _unlock) or mpi_rma_comm_lock_competition (a put) ~ LOCK on 2: from the
 *                     call of B's epoch open when A entered MPI_Win_unlock to that moment
 *   phase_lock_shared T 1, A 0, B 2, both shared: no conflict, no wait, no relation
 * The oracle is the program's own clock (true_time.h: the skew library's true time when it is
 * loaded): rank 0 prints "mark PHASE RANK ENTER_MS LEAVE_MS" around each rank's call of each phase
 * (the PSCW phases: rank 0's MPI_Win_wait, the origins' MPI_Win_complete), "mark put 1 ENTER_MS
 * LEAVE_MS" around the fence epoch's put, "mark PHASE_put RANK ..." around an origin's PSCW put and
 * "mark PHASE_sync RANK ..." around rank 0's MPI_Win_post and the origins' MPI_Win_start; in the
 * passive-target phases "mark PHASE RANK" around A's and B's MPI_Win_unlock, "PHASE_put" around their
 * put, "PHASE_sync" around their MPI_Win_lock. argv[1] scales the times (default 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "true_time.h"

enum { CREATE = 40, FENCE = 50, EARLY = 30, LATE = 30, FREE = 40, EWAIT = 40, LCOMPLETE = 30, LPOST = 40, LOCK = 40 };
/* a PSCW phase has three marks: rank 0's wait / an origin's complete, an origin's put, rank 0's post /
 * an origin's start */
enum { PH_CREATE, PH_FENCE_LATE, PH_FENCE_EARLY, PH_FREE, PH_PUT, PH_EWAIT, PH_LCOMPLETE = PH_EWAIT + 3,
       PH_LPOST = PH_LCOMPLETE + 3, PH_LOCK_EXCL = PH_LPOST + 3, PH_LOCK_SHARED = PH_LOCK_EXCL + 3,
       NPH = PH_LOCK_SHARED + 3 };
static const char *const phase_name[NPH] = { "create", "fence_late", "fence_early", "free", "put",
                                             "early_wait", "early_wait_put", "early_wait_sync",
                                             "late_complete", "late_complete_put", "late_complete_sync",
                                             "late_post", "late_post_put", "late_post_sync",
                                             "lock_excl", "lock_excl_put", "lock_excl_sync",
                                             "lock_shared", "lock_shared_put", "lock_shared_sync" };

static double scale = 1.0, mark[NPH][2];
static volatile double sink;

static void busy_ms(int ms)
{
    double end = now_ms() + ms * scale, x = 1.0;
    while (now_ms() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

void __attribute__((noinline)) phase_create(int rank, int *buf, MPI_Win *win)
{
    if (rank == 2)
        busy_ms(CREATE);
    mark[PH_CREATE][0] = now_ms();
    MPI_Win_create(buf, 16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, win);
    mark[PH_CREATE][1] = now_ms();
}

void __attribute__((noinline)) phase_fence_late(int rank, MPI_Win win)
{
    if (rank == 1)
        busy_ms(FENCE);
    mark[PH_FENCE_LATE][0] = now_ms();
    MPI_Win_fence(0, win);
    mark[PH_FENCE_LATE][1] = now_ms();
}

void __attribute__((noinline)) phase_fence_early(int rank, MPI_Win win)
{
    int v[4] = { 1, 2, 3, 4 };
    if (rank == 1) {
        busy_ms(EARLY);
        mark[PH_PUT][0] = now_ms();
        MPI_Put(v, 4, MPI_INT, 2, 0, 4, MPI_INT, win);
        mark[PH_PUT][1] = now_ms();
        busy_ms(LATE);
    }
    mark[PH_FENCE_EARLY][0] = now_ms();
    MPI_Win_fence(0, win);
    mark[PH_FENCE_EARLY][1] = now_ms();
}

/* One PSCW epoch: rank 0 exposes its window to 1 and 2 (after computing `before_post` ms); each of them
 * puts one int to it. Rank 1 computes `before_put` ms between start and put and `after_put` ms between
 * put and complete. */
static void __attribute__((noinline)) pscw_epoch(int rank, MPI_Win win, MPI_Group origins, MPI_Group target, int ph,
                                                 int before_post, int before_put, int after_put)
{
    int v = 10 + rank;
    if (rank == 0) {
        busy_ms(before_post);
        mark[ph + 2][0] = now_ms();
        MPI_Win_post(origins, 0, win);
        mark[ph + 2][1] = now_ms();
        mark[ph][0] = now_ms();
        MPI_Win_wait(win);
        mark[ph][1] = now_ms();
        return;
    }
    mark[ph + 2][0] = now_ms();
    MPI_Win_start(target, 0, win);
    mark[ph + 2][1] = now_ms();
    if (rank == 1)
        busy_ms(before_put);
    mark[ph + 1][0] = now_ms();
    MPI_Put(&v, 1, MPI_INT, 0, 8 + rank, 1, MPI_INT, win);
    mark[ph + 1][1] = now_ms();
    if (rank == 1)
        busy_ms(after_put);
    mark[ph][0] = now_ms();
    MPI_Win_complete(win);
    mark[ph][1] = now_ms();
}

void __attribute__((noinline)) phase_early_wait(int rank, MPI_Win win, MPI_Group origins, MPI_Group target)
{
    pscw_epoch(rank, win, origins, target, PH_EWAIT, 0, EWAIT, 0);
}

void __attribute__((noinline)) phase_late_complete(int rank, MPI_Win win, MPI_Group origins, MPI_Group target)
{
    pscw_epoch(rank, win, origins, target, PH_LCOMPLETE, 0, 0, LCOMPLETE);
}

void __attribute__((noinline)) phase_late_post(int rank, MPI_Win win, MPI_Group origins, MPI_Group target)
{
    pscw_epoch(rank, win, origins, target, PH_LPOST, LPOST, 0, 0);
}

/* One passive-target epoch each of origins a and b at target t (lock type): a holds the lock first (its
 * flush completes its put: the lock was granted), tells b, computes `hold` ms and unlocks; b locks as
 * soon as it hears. */
static void __attribute__((noinline)) lock_epochs(int rank, MPI_Win win, int ph, int type, int t, int a, int b,
                                                  int hold)
{
    int v = 20 + rank, go = 0;
    if (rank != a && rank != b)
        return;
    if (rank == b)
        MPI_Recv(&go, 1, MPI_INT, a, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    mark[ph + 2][0] = now_ms();
    MPI_Win_lock(type, t, 0, win);
    mark[ph + 2][1] = now_ms();
    mark[ph + 1][0] = now_ms();
    MPI_Put(&v, 1, MPI_INT, t, 12 + (rank == b), 1, MPI_INT, win);
    mark[ph + 1][1] = now_ms();
    if (rank == a) {
        MPI_Win_flush(t, win);
        MPI_Send(&go, 1, MPI_INT, b, 7, MPI_COMM_WORLD);
        busy_ms(hold);
    }
    mark[ph][0] = now_ms();
    MPI_Win_unlock(t, win);
    mark[ph][1] = now_ms();
}

void __attribute__((noinline)) phase_lock_excl(int rank, MPI_Win win)
{
    lock_epochs(rank, win, PH_LOCK_EXCL, MPI_LOCK_EXCLUSIVE, 0, 1, 2, LOCK);
}

void __attribute__((noinline)) phase_lock_shared(int rank, MPI_Win win)
{
    lock_epochs(rank, win, PH_LOCK_SHARED, MPI_LOCK_SHARED, 1, 0, 2, LOCK);
}

void __attribute__((noinline)) phase_free(int rank, MPI_Win *win)
{
    if (rank == 0)
        busy_ms(FREE);
    mark[PH_FREE][0] = now_ms();
    MPI_Win_free(win);
    mark[PH_FREE][1] = now_ms();
}

int main(int argc, char **argv)
{
    int rank, size, buf[16] = { 0 };
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "rmawaits: needs 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (argc > 1)
        scale = atof(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    phase_create(rank, buf, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_fence(0, win); /* opens the first epoch */
    MPI_Barrier(MPI_COMM_WORLD);
    phase_fence_late(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    phase_fence_early(rank, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win); /* closes the fence epochs: PSCW epochs follow */
    MPI_Group world, origins, target;
    int ranks_o[2] = { 1, 2 }, rank_t[1] = { 0 };
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 2, ranks_o, &origins);
    MPI_Group_incl(world, 1, rank_t, &target);
    MPI_Barrier(MPI_COMM_WORLD);
    phase_early_wait(rank, win, origins, target);
    MPI_Barrier(MPI_COMM_WORLD);
    phase_late_complete(rank, win, origins, target);
    MPI_Barrier(MPI_COMM_WORLD);
    phase_late_post(rank, win, origins, target);
    MPI_Group_free(&origins);
    MPI_Group_free(&target);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);
    phase_lock_excl(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    phase_lock_shared(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    phase_free(rank, &win);
    double all[3][NPH][2];
    MPI_Gather(mark, 2 * NPH, MPI_DOUBLE, all, 2 * NPH, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int p = 0; p < NPH; p++)
            for (int r = 0; r < 3; r++)
                if (p >= PH_LOCK_EXCL ? all[r][p][1] > 0
                                      : (p != PH_PUT || r == 1) && (p < PH_EWAIT || (p - PH_EWAIT) % 3 != 1 || r > 0))
                    printf("mark %s %d %.3f %.3f\n", phase_name[p], r, all[r][p][0], all[r][p][1]);
    }
    if (rank == 2 && buf[3] != 4)
        fprintf(stderr, "rmawaits: rank 2 did not get the put (%d)\n", buf[3]);
    if (rank == 0 && (buf[9] != 11 || buf[10] != 12))
        fprintf(stderr, "rmawaits: rank 0 did not get the puts (%d %d)\n", buf[9], buf[10]);
    if ((rank == 0 && (buf[12] != 21 || buf[13] != 22)) || (rank == 1 && (buf[12] != 20 || buf[13] != 22)))
        fprintf(stderr, "rmawaits: rank %d did not get the locked puts (%d %d)\n", rank, buf[12], buf[13]);
    MPI_Finalize();
    return 0;
}
