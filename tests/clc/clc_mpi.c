/*
 * clc_mpi.c — an MPI program with every kind of relation the CLC corrects (tests/clc/).
 *
 * Usage: clc_mpi [ROUNDS] (default 4). Every round, on every rank (left/right: ring
 * neighbours, root = round % size):
 *   p2p        MPI_Send right / MPI_Recv left, then the other direction; MPI_Isend +
 *              MPI_Irecv to and from both neighbours + MPI_Waitall; MPI_Sendrecv;
 *              ranks > 0 MPI_Send to 0, rank 0 MPI_Recv(MPI_ANY_SOURCE) x (size-1)
 *   1-to-N     MPI_Bcast, MPI_Scatter (root)
 *   N-to-1     MPI_Reduce, MPI_Gather (root)
 *   N-to-N     MPI_Allreduce, MPI_Alltoall, MPI_Allgather, MPI_Barrier
 *   scans      MPI_Scan, MPI_Exscan
 *   sub-comm   MPI_Allreduce and MPI_Bcast on MPI_Comm_split(rank % 2)
 *   nonblocking MPI_Ibcast (root), MPI_Iallreduce, MPI_Ibarrier + MPI_Waitall
 * with a little computation in between. Rank 0 prints one checksum line; exit 0.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* gcc 12 misreads MPICH's MPI_STATUSES_IGNORE as a zero-size array (see tests/mpi/st_test.h). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define MAXP 64

static int rank, size, left, right;
static volatile double sink;

static void work(int n)
{
    double x = 1;
    for (int i = 0; i < n * 200; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

static int64_t p2p(int round)
{
    int64_t a = rank + round, b = -1, c[2] = { -1, -1 }, d = -1, s = 0;
    if (rank == 0) {
        MPI_Send(&a, 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD);
        MPI_Recv(&b, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&b, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&a, 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD);
    }
    s += b;
    if (rank == 0) {
        MPI_Send(&a, 1, MPI_INT64_T, left, 2, MPI_COMM_WORLD);
        MPI_Recv(&b, 1, MPI_INT64_T, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&b, 1, MPI_INT64_T, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&a, 1, MPI_INT64_T, left, 2, MPI_COMM_WORLD);
    }
    s += 3 * b;
    MPI_Request r[4];
    MPI_Irecv(&c[0], 1, MPI_INT64_T, left, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&c[1], 1, MPI_INT64_T, right, 3, MPI_COMM_WORLD, &r[1]);
    work(5);
    MPI_Isend(&a, 1, MPI_INT64_T, right, 3, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(&a, 1, MPI_INT64_T, left, 3, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    s += 5 * c[0] + 7 * c[1];
    MPI_Sendrecv(&a, 1, MPI_INT64_T, right, 4, &d, 1, MPI_INT64_T, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    s += 11 * d;
    if (rank > 0) {
        MPI_Send(&a, 1, MPI_INT64_T, 0, 5, MPI_COMM_WORLD);
    } else {
        for (int i = 1; i < size; i++) {
            MPI_Recv(&b, 1, MPI_INT64_T, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            s += 13 * b;
        }
    }
    return s;
}

static int64_t collectives(int round, MPI_Comm sub)
{
    int root = round % size;
    int64_t v = rank + 1 + round, x = 0, s = 0, all[MAXP], mine[MAXP], got[MAXP];
    for (int i = 0; i < size; i++)
        mine[i] = rank * 100 + i;
    x = rank == root ? 42 + round : 0;
    MPI_Bcast(&x, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
    s += x;
    MPI_Scatter(mine, 1, MPI_INT64_T, &x, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
    s += x;
    work(3);
    MPI_Reduce(&v, &x, 1, MPI_INT64_T, MPI_SUM, root, MPI_COMM_WORLD);
    s += rank == root ? x : 0;
    MPI_Gather(&v, 1, MPI_INT64_T, all, 1, MPI_INT64_T, root, MPI_COMM_WORLD);
    for (int i = 0; rank == root && i < size; i++)
        s += all[i] * (i + 1);
    MPI_Allreduce(&v, &x, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    s += x;
    MPI_Alltoall(mine, 1, MPI_INT64_T, got, 1, MPI_INT64_T, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        s += got[i];
    MPI_Allgather(&v, 1, MPI_INT64_T, all, 1, MPI_INT64_T, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        s += all[i];
    work(3);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Scan(&v, &x, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    s += x;
    x = 0;
    MPI_Exscan(&v, &x, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    s += rank ? x : 0;
    MPI_Allreduce(&v, &x, 1, MPI_INT64_T, MPI_SUM, sub);
    s += x;
    x = v;
    MPI_Bcast(&x, 1, MPI_INT64_T, 0, sub);
    s += x;
    return s;
}

static int64_t nonblocking(int round)
{
    int root = (round + 1) % size;
    int64_t v = rank + round, b = rank == root ? 7 + round : 0, x = 0;
    MPI_Request r[3];
    MPI_Ibcast(&b, 1, MPI_INT64_T, root, MPI_COMM_WORLD, &r[0]);
    MPI_Iallreduce(&v, &x, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[2]);
    work(5);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    return b + x;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 4;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP)
        MPI_Abort(MPI_COMM_WORLD, 2);
    left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
    int64_t s = 0, total = 0;
    for (int r = 0; r < rounds; r++) {
        s += p2p(r);
        s += 3 * collectives(r, sub);
        s += 5 * nonblocking(r);
    }
    MPI_Reduce(&s, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("clc_mpi: %d ranks, %d rounds, checksum %lld\n", size, rounds, (long long)total);
    MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
