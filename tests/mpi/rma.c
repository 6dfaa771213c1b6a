/*
 * rma.c — MPI one-sided communication in every kind of epoch, for the RMA records (t_rma.sh).
 * Usage: rma [-c FILE] [N] (default N = 1000). On 2 to 4 ranks (n), each rank:
 *  windows  A: MPI_Win_allocate on MPI_COMM_WORLD (its window 0); B: MPI_Win_create on a dup of
 *           MPI_COMM_WORLD (window 0 there); G: MPI_Win_allocate on MPI_COMM_WORLD (window 1);
 *           S: MPI_Win_allocate_shared on the node's communicator; Y: MPI_Win_create_dynamic on
 *           MPI_COMM_WORLD (window 2); all freed at the end, in reverse order
 *  fence    on A: fence opening the epoch (MPI_MODE_NOPRECEDE); Put of 4 ints to rank+1, Get of
 *           2 ints from rank-1, Accumulate of 3 ints to rank 0, a Put to MPI_PROC_NULL; fence
 *  late     rank 0 enters both fences, the creation of Y and its release 20 ms after the others
 *           (a window collective that synchronizes keeps them waiting for it)
 *  PSCW     on B: even ranks post to the odd ones and wait; odd ranks start on the even ones,
 *           Put 1 int to each even rank and Fetch_and_op (int, SUM) at rank 0, complete; then
 *           an epoch with MPI_MODE_NOCHECK on both sides (the posts done before a barrier on the
 *           dup, the starts after it) and no operation
 *  lock     on A: exclusive lock of rank+1, Compare_and_swap (int) and Get_accumulate (2 ints,
 *           SUM, 2 back) there, unlock; lock_all, Rput (5 ints) to rank+1 and Rget (6 ints) from
 *           rank+2 completed by one Waitall, Raccumulate (1 int) and Rget_accumulate (1 int,
 *           MPI_NO_OP: nothing sent, 1 back) at rank 0 completed by a Wait each, unlock_all
 *  GA-like  on G: lock_all; N times Accumulate (1 double, SUM) at rank (rank+i)%n and
 *           Win_flush of that rank; Win_sync; Win_flush_all; unlock_all
 * Prints a checksum per rank on rank 0.
 */
#include "st_test.h"

/* Rank 0 comes 20 ms late. */
static void late(int rank)
{
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    if (rank == 0)
        nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = st_test_arg(argc, argv, 0, 1000);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ST_TEST_REQUIRE(size >= 2 && size <= 4, "run on 2 to 4 ranks, not %d", size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, far = (rank + 2) % size;
    uint64_t h = ST_TEST_SEED;

    MPI_Comm dup, node;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int *a, *b = calloc(64, sizeof *b), *s;
    double *g;
    MPI_Win wa, wb, wg, ws, wy;
    MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &wa);
    MPI_Win_create(b, 64 * sizeof(int), sizeof(int), MPI_INFO_NULL, dup, &wb);
    /* 8 doubles: MPICH 4.0.2 puts the accumulates into rank 0's memory on a window of one double */
    MPI_Win_allocate(8 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &g, &wg);
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &s, &ws);
    late(rank);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wy);
    for (int i = 0; i < 64; i++)
        a[i] = rank * 100 + i;
    *g = 0;
    *s = rank;

    /* ---- fence epoch on A ---- */
    int put4[4] = { rank, rank + 1, rank + 2, rank + 3 }, get2[2] = { 0, 0 }, acc3[3] = { 1, 2, 3 };
    late(rank);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, wa);
    MPI_Put(put4, 4, MPI_INT, right, 10, 4, MPI_INT, wa);
    MPI_Get(get2, 2, MPI_INT, left, 0, 2, MPI_INT, wa);
    MPI_Accumulate(acc3, 3, MPI_INT, 0, 20, 3, MPI_INT, MPI_SUM, wa);
    MPI_Put(put4, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, wa);
    late(rank);
    MPI_Win_fence(0, wa);
    ST_TEST_REQUIRE(get2[0] == left * 100 && a[10] == left, "fence epoch: got %d, a[10] = %d", get2[0], a[10]);
    h = st_test_mix(h, (uint64_t)(a[20] + get2[1]));

    /* ---- post-start-complete-wait on B ---- */
    MPI_Group world_group, evens, odds;
    MPI_Comm_group(dup, &world_group);
    int ev[2] = { 0, 2 }, od[2] = { 1, 3 }, nev = (size + 1) / 2, nod = size / 2;
    MPI_Group_incl(world_group, nev, ev, &evens);
    MPI_Group_incl(world_group, nod, od, &odds);
    if (rank % 2 == 0) {
        MPI_Win_post(odds, 0, wb);
        MPI_Win_wait(wb);
        h = st_test_mix(h, (uint64_t)(b[1] + b[3] + b[40]));
    } else {
        int one = rank, fetched = -1;
        MPI_Win_start(evens, 0, wb);
        for (int t = 0; t < nev; t++)
            MPI_Put(&one, 1, MPI_INT, ev[t], rank, 1, MPI_INT, wb);
        MPI_Fetch_and_op(&one, &fetched, MPI_INT, 0, 40, MPI_SUM, wb);
        MPI_Win_complete(wb);
        h = st_test_mix(h, 1);
    }
    if (rank % 2 == 0) {
        MPI_Win_post(odds, MPI_MODE_NOCHECK, wb);
        MPI_Barrier(dup);
        MPI_Win_wait(wb);
    } else {
        MPI_Barrier(dup);
        MPI_Win_start(evens, MPI_MODE_NOCHECK, wb);
        MPI_Win_complete(wb);
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&world_group);

    /* ---- passive target on A ---- */
    int cas_new = rank, cas_cmp = -12345, cas_old = 0, gacc[2] = { 1, 1 }, gres[2] = { 0, 0 };
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, wa);
    MPI_Compare_and_swap(&cas_new, &cas_cmp, &cas_old, MPI_INT, right, 50, wa);
    MPI_Get_accumulate(gacc, 2, MPI_INT, gres, 2, MPI_INT, right, 51, 2, MPI_INT, MPI_SUM, wa);
    MPI_Win_unlock(right, wa);
    MPI_Barrier(MPI_COMM_WORLD);
    int rput5[5] = { 5, 5, 5, 5, 5 }, rget6[6], racc = 1, rgacc_res = 0;
    MPI_Request req[2], r1, r2;
    MPI_Win_lock_all(0, wa);
    MPI_Rput(rput5, 5, MPI_INT, right, 30, 5, MPI_INT, wa, &req[0]);
    MPI_Rget(rget6, 6, MPI_INT, far, 0, 6, MPI_INT, wa, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    MPI_Raccumulate(&racc, 1, MPI_INT, 0, 60, 1, MPI_INT, MPI_SUM, wa, &r1);
    MPI_Wait(&r1, MPI_STATUS_IGNORE);
    MPI_Rget_accumulate(NULL, 0, MPI_INT, &rgacc_res, 1, MPI_INT, 0, 61, 1, MPI_INT, MPI_NO_OP, wa, &r2);
    MPI_Wait(&r2, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(wa);
    h = st_test_mix(h, (uint64_t)(cas_old + gres[0] + rget6[0] / 100));

    /* ---- Global-Arrays-like: accumulate + flush by the thousand on G ---- */
    double one = 1.0;
    MPI_Win_lock_all(0, wg);
    for (long i = 0; i < iters; i++) {
        int t = (int)((rank + i) % size);
        MPI_Accumulate(&one, 1, MPI_DOUBLE, t, 0, 1, MPI_DOUBLE, MPI_SUM, wg);
        MPI_Win_flush(t, wg);
    }
    MPI_Win_sync(wg);
    MPI_Win_flush_all(wg);
    MPI_Win_unlock_all(wg);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, wg);
    ST_TEST_REQUIRE(*g == (double)iters, "GA accumulate: %g, not %ld", *g, iters);
    MPI_Win_unlock(rank, wg);
    h = st_test_mix(h, (uint64_t)*g);

    late(rank);
    MPI_Win_free(&wy);
    MPI_Win_free(&ws);
    MPI_Win_free(&wg);
    MPI_Win_free(&wb);
    MPI_Win_free(&wa);
    free(b);
    MPI_Comm_free(&node);
    MPI_Comm_free(&dup);
    st_test_report("rma", h, rank, size);
    st_test_write_counts(rank);
    MPI_Finalize();
    return 0;
}
