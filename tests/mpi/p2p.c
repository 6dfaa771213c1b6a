/*
 * p2p.c — blocking point-to-point test program for the shim (tests/mpi/t_p2p.sh).
 *
 * Usage: p2p [-c COUNTFILE] [ROUNDS] (default 10). Sections, in order, and what each
 * rank calls (N ranks, R rounds; left/right are ring neighbours):
 *   ring       R x (MPI_Send right tag 1, MPI_Recv left)      8-byte messages
 *   zero       3 x the same with count 0, tag 2                 zero-byte messages
 *   anysource  ranks>0: 5 x MPI_Send to 0 (tag 10+k); rank 0: 5(N-1) x MPI_Recv
 *              (MPI_ANY_SOURCE, MPI_ANY_TAG), the second half with MPI_STATUS_IGNORE;
 *              then MPI_Barrier (keeps later messages away from the wildcards)
 *   sendrecv   4 x MPI_Sendrecv (right, left, tag 3)
 *   procnull   1 x MPI_Sendrecv non-periodic shift (ends use MPI_PROC_NULL, tag 4),
 *              1 x MPI_Send to MPI_PROC_NULL, 1 x MPI_Recv from MPI_PROC_NULL
 *   probe      MPI_Send right (tag 5, 3(rank+1) ints); MPI_Probe left, MPI_Get_count, MPI_Recv
 *   iprobe     MPI_Send right (tag 6); MPI_Iprobe loop (counted, 100 us pauses), MPI_Recv
 *   mprobe     MPI_Send right (tag 7, rank+2 ints); MPI_Mprobe, MPI_Get_count, MPI_Mrecv
 *   improbe    MPI_Send right (tag 8); MPI_Improbe loop (counted), MPI_Imrecv, MPI_Wait
 * After each section: st_test_report (one MPI_Gather). Rank 0 prints the checksums.
 * The ring's MPI_Send/MPI_Recv are in ring_step() so call sites can be checked.
 */
#include "st_test.h"

static int rank, size, left, right;

/* One round of the ring: rank 0 sends first, everybody else receives first. */
__attribute__((noinline)) static int64_t ring_step(int64_t token, int count, int tag)
{
    int64_t in = 0;
    if (rank == 0) {
        MPI_Send(&token, count, MPI_INT64_T, right, tag, MPI_COMM_WORLD); /* CALLSITE:ring-send-0 */
        MPI_Recv(&in, count, MPI_INT64_T, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* CALLSITE:ring-recv-0 */
    } else {
        MPI_Recv(&in, count, MPI_INT64_T, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* CALLSITE:ring-recv */
        token = in + rank;
        MPI_Send(&token, count, MPI_INT64_T, right, tag, MPI_COMM_WORLD); /* CALLSITE:ring-send */
    }
    return in;
}

static uint64_t section_ring(int rounds, int count, int tag)
{
    uint64_t h = ST_TEST_SEED;
    for (int r = 0; r < rounds; r++)
        h = st_test_mix(h, ring_step(1000 * r + 1, count, tag));
    return h;
}

static uint64_t section_anysource(int k)
{
    uint64_t h = ST_TEST_SEED;
    if (rank != 0) {
        for (int i = 0; i < k; i++) {
            int msg[2] = { rank, i };
            MPI_Send(msg, 2, MPI_INT, 0, 10 + i, MPI_COMM_WORLD);
        }
    } else {
        int64_t sum = 0, tagsum = 0;
        int total = k * (size - 1);
        for (int i = 0; i < total; i++) {
            int msg[2];
            MPI_Status st;
            if (i < total / 2) {
                MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                ST_TEST_REQUIRE(st.MPI_SOURCE == msg[0] && st.MPI_TAG == 10 + msg[1], "bad status");
                tagsum += st.MPI_TAG;
            } else {
                MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                tagsum += 10 + msg[1];
            }
            sum += 100 * msg[0] + msg[1];
        }
        h = st_test_mix(st_test_mix(h, sum), tagsum);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return h;
}

static uint64_t section_sendrecv(int rounds)
{
    uint64_t h = ST_TEST_SEED;
    int64_t v = rank;
    for (int r = 0; r < rounds; r++) {
        int64_t in;
        MPI_Status st;
        MPI_Sendrecv(&v, 1, MPI_INT64_T, right, 3, &in, 1, MPI_INT64_T, left, 3, MPI_COMM_WORLD, &st);
        ST_TEST_REQUIRE(st.MPI_SOURCE == left, "sendrecv source %d", st.MPI_SOURCE);
        v = 3 * in + r;
        h = st_test_mix(h, v);
    }
    return h;
}

static uint64_t section_procnull(void)
{
    int dest = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    int src = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int64_t v = 7 * rank + 1, in = -5;
    MPI_Status st;
    MPI_Sendrecv(&v, 1, MPI_INT64_T, dest, 4, &in, 1, MPI_INT64_T, src, 4, MPI_COMM_WORLD, &st);
    ST_TEST_REQUIRE(st.MPI_SOURCE == src, "procnull source %d", st.MPI_SOURCE);
    if (src == MPI_PROC_NULL)
        in = -5; /* the receive buffer is unchanged, by the standard */
    MPI_Send(&v, 1, MPI_INT64_T, MPI_PROC_NULL, 4, MPI_COMM_WORLD);
    int64_t none = 42;
    MPI_Recv(&none, 1, MPI_INT64_T, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &st);
    int cnt = -1;
    MPI_Get_count(&st, MPI_INT64_T, &cnt);
    ST_TEST_REQUIRE(st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0 && none == 42, "recv from MPI_PROC_NULL");
    return st_test_mix(st_test_mix(ST_TEST_SEED, in), none);
}

static uint64_t section_probe(void)
{
    int out[64], in[64], n = 3 * (rank + 1), cnt;
    for (int i = 0; i < n; i++)
        out[i] = rank * 100 + i;
    MPI_Send(out, n, MPI_INT, right, 5, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Probe(left, 5, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    MPI_Recv(in, cnt, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    uint64_t h = st_test_mix(ST_TEST_SEED, cnt);
    for (int i = 0; i < cnt; i++)
        h = st_test_mix(h, in[i]);
    return h;
}

static uint64_t section_iprobe(void)
{
    int64_t v = rank * 11, in;
    MPI_Send(&v, 1, MPI_INT64_T, right, 6, MPI_COMM_WORLD);
    int flag = 0;
    MPI_Status st;
    while (!flag) {
        MPI_Iprobe(left, 6, MPI_COMM_WORLD, &flag, &st);
        st_test_count("MPI_Iprobe");
        if (!flag)
            st_test_pause();
    }
    MPI_Recv(&in, 1, MPI_INT64_T, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return st_test_mix(ST_TEST_SEED, in);
}

static uint64_t section_mprobe(void)
{
    int out[64], in[64], n = rank + 2, cnt;
    for (int i = 0; i < n; i++)
        out[i] = -rank * 7 + i;
    MPI_Send(out, n, MPI_INT, right, 7, MPI_COMM_WORLD);
    MPI_Message msg;
    MPI_Status st;
    MPI_Mprobe(left, 7, MPI_COMM_WORLD, &msg, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    MPI_Mrecv(in, cnt, MPI_INT, &msg, &st);
    ST_TEST_REQUIRE(st.MPI_SOURCE == left && msg == MPI_MESSAGE_NULL, "mrecv");
    uint64_t h = st_test_mix(ST_TEST_SEED, cnt);
    for (int i = 0; i < cnt; i++)
        h = st_test_mix(h, in[i]);
    return h;
}

static uint64_t section_improbe(void)
{
    int64_t v = rank * 13 + 5, in = 0;
    MPI_Send(&v, 1, MPI_INT64_T, right, 8, MPI_COMM_WORLD);
    int flag = 0;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    while (!flag) {
        MPI_Improbe(left, 8, MPI_COMM_WORLD, &flag, &msg, &st);
        st_test_count("MPI_Improbe");
        if (!flag)
            st_test_pause();
    }
    MPI_Request req;
    MPI_Imrecv(&in, 1, MPI_INT64_T, &msg, &req);
    MPI_Wait(&req, &st);
    ST_TEST_REQUIRE(st.MPI_SOURCE == left && st.MPI_TAG == 8, "imrecv status");
    return st_test_mix(ST_TEST_SEED, in);
}

int main(int argc, char **argv)
{
    int rounds = (int)st_test_arg(argc, argv, 0, 10);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;

    st_test_report("ring", section_ring(rounds, 1, 1), rank, size);
    st_test_report("zero", section_ring(3, 0, 2), rank, size);
    st_test_report("anysource", section_anysource(5), rank, size);
    st_test_report("sendrecv", section_sendrecv(4), rank, size);
    st_test_report("procnull", section_procnull(), rank, size);
    st_test_report("probe", section_probe(), rank, size);
    st_test_report("iprobe", section_iprobe(), rank, size);
    st_test_report("mprobe", section_mprobe(), rank, size);
    st_test_report("improbe", section_improbe(), rank, size);

    st_test_write_counts(rank);
    MPI_Finalize();
    return 0;
}
