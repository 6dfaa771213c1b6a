/*
 * score_app.c — a program whose trace is mostly cheap calls, for t_score.sh: N iterations of
 * MPI_Type_size, MPI_Comm_rank and MPI_Win_flush_all (inside one MPI_Win_lock_all epoch) next
 * to real communication (a ring exchange with MPI_Send/MPI_Recv every 100 iterations, an
 * MPI_Allreduce every 1000, an MPI_Barrier at the end). Prints one checksum line on rank 0.
 * Usage: score_app N
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    double *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_lock_all(0, win);
    long sum = 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (long i = 0; i < n; i++) {
        int bytes, me;
        MPI_Type_size(MPI_DOUBLE, &bytes);
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        MPI_Win_flush_all(win);
        sum += bytes + me;
        if (i % 100 == 0 && size > 1) {
            long out = i + rank, in = 0;
            if (rank % 2 == 0) {
                MPI_Send(&out, 1, MPI_LONG, next, 7, MPI_COMM_WORLD);
                MPI_Recv(&in, 1, MPI_LONG, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&in, 1, MPI_LONG, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&out, 1, MPI_LONG, next, 7, MPI_COMM_WORLD);
            }
            sum += in;
        }
        if (i % 1000 == 0) {
            long all = 0;
            MPI_Allreduce(&sum, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            sum = all % 1000003;
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    long all = 0;
    MPI_Reduce(&sum, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("score_app: n=%ld checksum=%ld\n", n, all);
    MPI_Finalize();
    return 0;
}
