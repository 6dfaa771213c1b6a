/*
 * nonblock.c — nonblocking and persistent point-to-point test program (tests/mpi/t_nonblock.sh).
 *
 * Usage: nonblock [-c COUNTFILE] [ROUNDS] (default 5). Sections, in order (N ranks,
 * R rounds; left/right are ring neighbours):
 *   waitall    R x (MPI_Irecv left tag 1, MPI_Irecv right tag 2, MPI_Isend right tag 1,
 *              MPI_Isend left tag 2, MPI_Waitall of the 4)
 *   waitany    rank 0: N-1 x MPI_Irecv (source r, tag 20), N-1 x MPI_Waitany;
 *              ranks>0: MPI_Send to 0
 *   waitsome   rank 0: N-1 x MPI_Irecv (source r, tag 30), then for r = 1..N-1: MPI_Send
 *              "go" to r (tag 31), MPI_Waitsome -> exactly one completes (partial completion);
 *              ranks>0: MPI_Recv go, MPI_Send to 0 (tag 30)
 *   testsome   the same with tags 40/41 and an MPI_Testsome loop (counted)
 *   test       MPI_Irecv left, MPI_Isend right (tag 50), MPI_Test loop on the receive
 *              (counted), MPI_Wait on the send
 *   persistent MPI_Recv_init left / MPI_Send_init right (tag 60): R x (MPI_Startall, MPI_Waitall);
 *              a second pair (tag 61): R x (MPI_Start recv, MPI_Start send, MPI_Wait, MPI_Wait);
 *              4 x MPI_Request_free
 *   cancel     MPI_Irecv from self (tag 999, never sent), MPI_Cancel, MPI_Wait, MPI_Test_cancelled
 *   wildcard   rank 0: N-1 x MPI_Irecv (MPI_ANY_SOURCE, MPI_ANY_TAG), MPI_Waitall with
 *              MPI_STATUSES_IGNORE; ranks>0: MPI_Send to 0 (tag 70+rank); then MPI_Barrier
 * After each section: st_test_report (one MPI_Gather). Rank 0 prints the checksums.
 */
#include "st_test.h"

#define MAXN 64

static int rank, size, left, right;

static uint64_t section_waitall(int rounds)
{
    uint64_t h = ST_TEST_SEED;
    for (int r = 0; r < rounds; r++) {
        int64_t out[2] = { rank * 10 + r, -rank - r }, in[2] = { 0, 0 };
        MPI_Request req[4];
        MPI_Status st[4];
        MPI_Irecv(&in[0], 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&in[1], 1, MPI_INT64_T, right, 2, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&out[0], 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&out[1], 1, MPI_INT64_T, left, 2, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, st);
        ST_TEST_REQUIRE(st[0].MPI_SOURCE == left && st[1].MPI_SOURCE == right, "waitall statuses");
        h = st_test_mix(st_test_mix(h, in[0]), in[1]);
    }
    return h;
}

static uint64_t section_waitany(void)
{
    uint64_t h = ST_TEST_SEED;
    if (rank == 0) {
        int64_t in[MAXN] = { 0 };
        MPI_Request req[MAXN];
        for (int r = 1; r < size; r++)
            MPI_Irecv(&in[r], 1, MPI_INT64_T, r, 20, MPI_COMM_WORLD, &req[r - 1]);
        int64_t sum = 0;
        for (int k = 1; k < size; k++) {
            int idx;
            MPI_Status st;
            MPI_Waitany(size - 1, req, &idx, &st);
            ST_TEST_REQUIRE(idx >= 0 && st.MPI_SOURCE == idx + 1, "waitany index %d", idx);
            sum += in[idx + 1];
        }
        h = st_test_mix(h, sum);
    } else {
        int64_t v = rank * rank + 3;
        MPI_Send(&v, 1, MPI_INT64_T, 0, 20, MPI_COMM_WORLD);
    }
    return h;
}

/* Rank 0 releases one sender at a time, so each completion call completes exactly one request. */
static uint64_t section_some(int tag, int use_test)
{
    uint64_t h = ST_TEST_SEED;
    if (rank == 0) {
        int64_t in[MAXN] = { 0 };
        MPI_Request req[MAXN];
        int idx[MAXN], outcount;
        MPI_Status st[MAXN];
        for (int r = 1; r < size; r++)
            MPI_Irecv(&in[r], 1, MPI_INT64_T, r, tag, MPI_COMM_WORLD, &req[r - 1]);
        for (int r = 1; r < size; r++) {
            int go = r;
            MPI_Send(&go, 1, MPI_INT, r, tag + 1, MPI_COMM_WORLD);
            if (use_test) {
                for (outcount = 0; outcount == 0;) {
                    MPI_Testsome(size - 1, req, &outcount, idx, st);
                    st_test_count("MPI_Testsome");
                    if (outcount == 0)
                        st_test_pause();
                }
            } else {
                MPI_Waitsome(size - 1, req, &outcount, idx, st);
            }
            ST_TEST_REQUIRE(outcount == 1 && idx[0] == r - 1 && st[0].MPI_SOURCE == r,
                            "partial completion: outcount %d", outcount);
            h = st_test_mix(h, in[r]);
        }
    } else {
        int go;
        MPI_Recv(&go, 1, MPI_INT, 0, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int64_t v = 1000 * go + tag;
        MPI_Send(&v, 1, MPI_INT64_T, 0, tag, MPI_COMM_WORLD);
    }
    return h;
}

static uint64_t section_test(void)
{
    int64_t out = rank + 77, in = 0;
    MPI_Request rreq, sreq;
    MPI_Irecv(&in, 1, MPI_INT64_T, left, 50, MPI_COMM_WORLD, &rreq);
    MPI_Isend(&out, 1, MPI_INT64_T, right, 50, MPI_COMM_WORLD, &sreq);
    int flag = 0;
    while (!flag) {
        MPI_Test(&rreq, &flag, MPI_STATUS_IGNORE);
        st_test_count("MPI_Test");
        if (!flag)
            st_test_pause();
    }
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    return st_test_mix(ST_TEST_SEED, in);
}

static uint64_t section_persistent(int rounds)
{
    uint64_t h = ST_TEST_SEED;
    int64_t out = 0, in = 0, out2 = 0, in2 = 0;
    MPI_Request pair[2], r2, s2;
    MPI_Recv_init(&in, 1, MPI_INT64_T, left, 60, MPI_COMM_WORLD, &pair[0]);
    MPI_Send_init(&out, 1, MPI_INT64_T, right, 60, MPI_COMM_WORLD, &pair[1]);
    MPI_Recv_init(&in2, 1, MPI_INT64_T, left, 61, MPI_COMM_WORLD, &r2);
    MPI_Send_init(&out2, 1, MPI_INT64_T, right, 61, MPI_COMM_WORLD, &s2);
    for (int r = 0; r < rounds; r++) {
        out = rank * 100 + r;
        MPI_Startall(2, pair);
        MPI_Waitall(2, pair, MPI_STATUSES_IGNORE);
        h = st_test_mix(h, in);
    }
    for (int r = 0; r < rounds; r++) {
        out2 = rank * 1000 - r;
        MPI_Start(&r2);
        MPI_Start(&s2);
        MPI_Wait(&r2, MPI_STATUS_IGNORE);
        MPI_Wait(&s2, MPI_STATUS_IGNORE);
        h = st_test_mix(h, in2);
    }
    MPI_Request_free(&pair[0]);
    MPI_Request_free(&pair[1]);
    MPI_Request_free(&r2);
    MPI_Request_free(&s2);
    return h;
}

static uint64_t section_cancel(void)
{
    int64_t in = -1;
    MPI_Request req;
    MPI_Status st;
    int cancelled = 0;
    MPI_Irecv(&in, 1, MPI_INT64_T, rank, 999, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &cancelled);
    ST_TEST_REQUIRE(cancelled, "receive was not cancelled");
    return st_test_mix(ST_TEST_SEED, cancelled + in);
}

static uint64_t section_wildcard(void)
{
    uint64_t h = ST_TEST_SEED;
    if (rank == 0) {
        int64_t in[MAXN] = { 0 }, sum = 0;
        MPI_Request req[MAXN];
        for (int r = 1; r < size; r++)
            MPI_Irecv(&in[r], 1, MPI_INT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[r - 1]);
        MPI_Waitall(size - 1, req, MPI_STATUSES_IGNORE);
        for (int r = 1; r < size; r++)
            sum += in[r];
        h = st_test_mix(h, sum);
    } else {
        int64_t v = 5 * rank + 1;
        MPI_Send(&v, 1, MPI_INT64_T, 0, 70 + rank, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return h;
}

int main(int argc, char **argv)
{
    int rounds = (int)st_test_arg(argc, argv, 0, 5);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ST_TEST_REQUIRE(size <= MAXN, "at most %d ranks", MAXN);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;

    st_test_report("waitall", section_waitall(rounds), rank, size);
    st_test_report("waitany", section_waitany(), rank, size);
    st_test_report("waitsome", section_some(30, 0), rank, size);
    st_test_report("testsome", section_some(40, 1), rank, size);
    st_test_report("test", section_test(), rank, size);
    st_test_report("persistent", section_persistent(rounds), rank, size);
    st_test_report("cancel", section_cancel(), rank, size);
    st_test_report("wildcard", section_wildcard(), rank, size);

    st_test_write_counts(rank);
    MPI_Finalize();
    return 0;
}
