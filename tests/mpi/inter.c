/*
 * inter.c — an intercommunicator end to end (tests/mpi/t_inter.sh).
 *
 * Usage: inter [-c COUNTFILE]. Groups: A = even world ranks, B = odd ones (uneven for an odd
 * number of ranks). "lr" is the rank in the own group, "rs" the size of the remote group.
 *   split      MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank) -> half
 *   create     MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote leader world 1 (A) / 0 (B), 7)
 *   p2p        on inter, with every remote rank j (tags: the sender's lr):
 *                MPI_Isend to j (tag 1), MPI_Recv from j (tag 1), MPI_Waitall of the rs Isends;
 *                MPI_Irecv from j (tag 2), MPI_Send to j (tag 2), MPI_Waitall of the rs Irecvs;
 *                lr < min(size A, size B): MPI_Sendrecv with remote lr (tag 3, 8 bytes each way)
 *   coll       on inter (root: A's lr 0 or B's last rank, see below; roots pass MPI_ROOT, the rest
 *              of the root's group MPI_PROC_NULL, the other group the root's rank):
 *                MPI_Bcast (root A0, 4 ints), MPI_Bcast (root B last, 2 ints), MPI_Reduce (root B0),
 *                MPI_Scatter (root A0), MPI_Gather (root B0), MPI_Scatterv (root B0),
 *                MPI_Gatherv (root A0), MPI_Allreduce, MPI_Allgather, MPI_Alltoall,
 *                MPI_Reduce_scatter (rs ints to each rank), MPI_Barrier; MPI_Ibcast (root A0) + MPI_Iallreduce,
 *                completed by one MPI_Waitall
 *   merge      MPI_Intercomm_merge(inter, high = B) -> merged; MPI_Allreduce and MPI_Bcast (root 0)
 *              on merged
 *   dup        MPI_Comm_dup(inter) -> dup; MPI_Allreduce on dup; lr 0 of both groups exchange one
 *              MPI_Sendrecv (tag 4, 4 bytes each way) on dup
 *   free       MPI_Comm_free of dup, merged, inter, half (in this order)
 * After p2p, coll, merge and dup: st_test_report (one MPI_Gather on world).
 */
#include "st_test.h"

#define MAXN 64 /* >= 55 ints of Scatterv/Gatherv for a group of 10; 2 * MAXN >= 10 * 10 */

static int rank, size, lr, ls, rs, in_b;
static MPI_Comm half, inter;

/* The root argument of a rooted collective on inter whose root is root_lr of group root_b. */
static int root_arg(int root_b, int root_lr)
{
    if (in_b != root_b)
        return root_lr;
    return lr == root_lr ? MPI_ROOT : MPI_PROC_NULL;
}

static uint64_t section_p2p(void)
{
    uint64_t h = ST_TEST_SEED;
    int64_t out[MAXN], in[MAXN];
    MPI_Request reqs[MAXN];
    for (int j = 0; j < rs; j++) {
        out[j] = 1000 * rank + j;
        MPI_Isend(&out[j], 1, MPI_INT64_T, j, 1, inter, &reqs[j]);
    }
    for (int j = 0; j < rs; j++)
        MPI_Recv(&in[j], 1, MPI_INT64_T, j, 1, inter, MPI_STATUS_IGNORE);
    MPI_Waitall(rs, reqs, MPI_STATUSES_IGNORE);
    for (int j = 0; j < rs; j++)
        h = st_test_mix(h, in[j]);

    for (int j = 0; j < rs; j++)
        MPI_Irecv(&in[j], 1, MPI_INT64_T, j, 2, inter, &reqs[j]);
    for (int j = 0; j < rs; j++) {
        out[j] = 2000 * rank + j;
        MPI_Send(&out[j], 1, MPI_INT64_T, j, 2, inter);
    }
    MPI_Waitall(rs, reqs, MPI_STATUSES_IGNORE);
    for (int j = 0; j < rs; j++)
        h = st_test_mix(h, in[j]);

    if (lr < (ls < rs ? ls : rs)) {
        int64_t o = 3000 + rank, i = -1;
        MPI_Sendrecv(&o, 1, MPI_INT64_T, lr, 3, &i, 1, MPI_INT64_T, lr, 3, inter, MPI_STATUS_IGNORE);
        h = st_test_mix(h, i);
    }
    return h;
}

static uint64_t section_coll(void)
{
    uint64_t h = ST_TEST_SEED;
    int b4[4] = { 0 }, b2[2] = { 0 }, v = rank + 1, red = 0;
    if (!in_b && lr == 0)
        for (int i = 0; i < 4; i++)
            b4[i] = 40 + i;
    if (in_b && lr == ls - 1)
        b2[0] = 7, b2[1] = 8;
    MPI_Bcast(b4, 4, MPI_INT, root_arg(0, 0), inter);
    MPI_Bcast(b2, 2, MPI_INT, root_arg(1, in_b ? ls - 1 : rs - 1), inter);
    MPI_Reduce(&v, &red, 1, MPI_INT, MPI_SUM, root_arg(1, 0), inter);

    int sbuf[MAXN], rbuf[MAXN], counts[MAXN], displs[MAXN], one = -1;
    for (int i = 0; i < MAXN; i++)
        sbuf[i] = 100 * rank + i, rbuf[i] = -1;
    MPI_Scatter(sbuf, 1, MPI_INT, &one, 1, MPI_INT, root_arg(0, 0), inter);
    h = st_test_mix(h, one);
    MPI_Gather(&v, 1, MPI_INT, rbuf, 1, MPI_INT, root_arg(1, 0), inter);
    if (in_b && lr == 0)
        for (int i = 0; i < rs; i++)
            h = st_test_mix(h, rbuf[i]);
    /* Scatterv/Gatherv: remote rank i gets/sends i+1 ints */
    for (int i = 0, d = 0; i < MAXN && i < 10; i++)
        counts[i] = i + 1, displs[i] = d, d += i + 1;
    MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, lr + 1, MPI_INT, root_arg(1, 0), inter);
    if (!in_b)
        for (int i = 0; i <= lr; i++)
            h = st_test_mix(h, rbuf[i]);
    MPI_Gatherv(sbuf, lr + 1, MPI_INT, rbuf, counts, displs, MPI_INT, root_arg(0, 0), inter);
    if (!in_b && lr == 0)
        for (int i = 0; i < rs * (rs + 1) / 2; i++)
            h = st_test_mix(h, rbuf[i]);

    int all = 0;
    MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_SUM, inter);
    MPI_Allgather(&v, 1, MPI_INT, rbuf, 1, MPI_INT, inter);
    for (int i = 0; i < rs; i++)
        h = st_test_mix(h, rbuf[i]);
    MPI_Alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, inter);
    for (int i = 0; i < rs; i++)
        h = st_test_mix(h, rbuf[i]);
    /* Reduce_scatter: every rank receives rs ints, so both groups' vectors have ls * rs = rs * ls
     * ints (MPICH requires the two totals to be equal) */
    int rsv[2 * MAXN], rsb = 0;
    for (int i = 0; i < ls * rs; i++)
        rsv[i] = rank + i;
    for (int i = 0; i < ls; i++)
        counts[i] = rs;
    MPI_Reduce_scatter(rsv, rbuf, counts, MPI_INT, MPI_SUM, inter);
    for (int i = 0; i < rs; i++)
        rsb += rbuf[i] * (i + 1);
    MPI_Barrier(inter);
    h = st_test_mix(st_test_mix(h, all), rsb);
    for (int i = 0; i < 4; i++)
        h = st_test_mix(h, b4[i]);
    h = st_test_mix(st_test_mix(h, b2[0]), b2[1]);
    h = st_test_mix(h, in_b && lr == 0 ? red : 0);

    MPI_Request reqs[2];
    int ib = !in_b && lr == 0 ? 99 : 0, iall = 0;
    MPI_Ibcast(&ib, 1, MPI_INT, root_arg(0, 0), inter, &reqs[0]);
    MPI_Iallreduce(&v, &iall, 1, MPI_INT, MPI_MAX, inter, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    return st_test_mix(st_test_mix(h, ib), iall);
}

static uint64_t section_merge(MPI_Comm *merged)
{
    int mr, v = rank * 7, all = 0, b = 0;
    MPI_Intercomm_merge(inter, in_b, merged);
    MPI_Comm_rank(*merged, &mr);
    MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_SUM, *merged);
    if (mr == 0)
        b = 4242;
    MPI_Bcast(&b, 1, MPI_INT, 0, *merged);
    return st_test_mix(st_test_mix(st_test_mix(ST_TEST_SEED, mr), all), b);
}

static uint64_t section_dup(MPI_Comm *dup)
{
    int v = rank + 3, all = 0;
    MPI_Comm_dup(inter, dup);
    MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MIN, *dup);
    uint64_t h = st_test_mix(ST_TEST_SEED, all);
    if (lr == 0) {
        int o = 500 + rank, i = -1;
        MPI_Sendrecv(&o, 1, MPI_INT, 0, 4, &i, 1, MPI_INT, 0, 4, *dup, MPI_STATUS_IGNORE);
        h = st_test_mix(h, i);
    }
    return h;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    st_test_arg(argc, argv, 0, 0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ST_TEST_REQUIRE(size >= 2 && size <= 20, "needs 2..20 ranks");
    in_b = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, in_b, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_b ? 0 : 1, 7, &inter);
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_size(inter, &ls);
    MPI_Comm_remote_size(inter, &rs);

    st_test_report("p2p", section_p2p(), rank, size);
    st_test_report("coll", section_coll(), rank, size);
    MPI_Comm merged, dup;
    st_test_report("merge", section_merge(&merged), rank, size);
    st_test_report("dup", section_dup(&dup), rank, size);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    st_test_write_counts(rank);
    MPI_Finalize();
    return 0;
}
