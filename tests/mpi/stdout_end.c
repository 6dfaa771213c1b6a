/*
 * stdout_end.c — rank 0 leaves its last stdout line unterminated, then the job ends in one of
 * several ways (tests/mpi/t_stdout_ends.sh compares stdout with the untraced run byte for byte).
 *
 * Usage: stdout_end MODE, MODE one of
 *   normal  every rank calls MPI_Finalize and returns 0
 *   abort   rank 0 calls MPI_Abort(MPI_COMM_WORLD, 5)
 *   exit    rank 0 calls exit(22) without MPI_Finalize
 *   signal  rank 0 raises SIGTERM
 *   wait    every rank waits (barriers, 60 s at most) for a signal from outside
 * In the last three the other ranks wait in MPI_Recv for a message that never comes (the
 * launcher kills them). Rank 0 prints two full lines and "partial" without a newline; before
 * raising the signal it flushes stdout (a signal ends the process without flushing stdio, so
 * the text would otherwise be lost with and without the tool alike), and before MPI_Abort too.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long sum = rank;
    for (int i = 0; i < 10; i++)
        MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("stdout_end: %d ranks, sum %ld\n", size, sum);
        printf("mode %s\n", mode);
        printf("partial");
    }
    if (!strcmp(mode, "wait")) {
        fflush(stdout); /* the test waits for "partial" before it signals the job */
        for (int i = 0; i < 6000; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
        }
    }
    if (!strcmp(mode, "normal") || !strcmp(mode, "wait")) {
        MPI_Finalize();
        return 0;
    }
    if (rank == 0) {
        if (!strcmp(mode, "abort")) {
            /* MPI_Abort flushes stdout itself, but the launcher kills the job at once and lost the
               text in transit in most untraced runs here: flush, and give it time to forward. */
            fflush(stdout);
            nanosleep(&(struct timespec){ 0, 300 * 1000 * 1000 }, NULL);
            MPI_Abort(MPI_COMM_WORLD, 5);
        }
        if (!strcmp(mode, "exit"))
            exit(22);
        fflush(stdout);
        raise(SIGTERM);
    }
    long never;
    MPI_Recv(&never, 1, MPI_LONG, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
