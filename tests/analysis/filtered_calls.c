/*
 * filtered_calls.c — high-frequency, short MPI calls next to real communication, for the profile of
 * filtered calls (t_filter_profile.sh): every rank calls MPI_Type_size, MPI_Comm_rank and
 * MPI_Win_flush_all (inside MPI_Win_lock_all / MPI_Win_unlock_all) N times each (argv[1], default
 * 100000), split over ROUNDS rounds; each round ends with a barrier, a ring exchange in which rank 0
 * sends 20 ms late (a Late Sender of about 20 ms on rank 1) and an MPI_Allreduce. Prints one line on
 * rank 0: the calls each rank made of each region.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 5

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int rank, size, sz, r;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* +1 Comm_rank, counted below */
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    long type_size = 0, comm_rank = 1, flush_all = 0, sum = 0;
    for (int round = 0; round < ROUNDS; round++) {
        long calls = n / ROUNDS + (round < n % ROUNDS);
        for (long i = 0; i < calls; i++) {
            MPI_Type_size(MPI_DOUBLE, &sz);
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
            sum += sz + r;
        }
        type_size += calls, comm_rank += calls;
        MPI_Win_lock_all(0, win);
        for (long i = 0; i < calls; i++)
            MPI_Win_flush_all(win);
        MPI_Win_unlock_all(win);
        flush_all += calls;
        int token = round, got = -1;
        MPI_Barrier(MPI_COMM_WORLD); /* the ranks start the exchange together: the Late Sender is the sleep */
        if (rank == 0)
            sleep_ms(20);
        MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, round, &got, 1, MPI_INT, (rank + size - 1) % size, round,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        long total = 0;
        MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    if (rank == 0)
        printf("calls per rank: MPI_Type_size %ld MPI_Comm_rank %ld MPI_Win_flush_all %ld\n", type_size, comm_rank,
               flush_all);
    MPI_Finalize();
    return 0;
}
