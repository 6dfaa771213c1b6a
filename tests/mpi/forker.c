/*
 * forker.c — a traced rank that forks without exec (tests/mpi/t_fork.sh).
 *
 * Usage: forker FILE. Every rank runs 10 ring rounds, then forks a child that makes one
 * allocation and calls exit(0) (it inherits the tool's state: buffers, spill files, archive
 * directory, handlers); the parent waits for it and writes how long the child lived
 * (fork to reaped, in ms) to FILE.RANK; then 10 more ring rounds and MPI_Finalize.
 * Rank 0 prints one line.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "st_test.h"

static void ring(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int r = 0; r < 10; r++) {
        int64_t token = r, in = 0;
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT64_T, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&in, 1, MPI_INT64_T, right, 1, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ring(rank, size);
    double t0 = MPI_Wtime();
    pid_t child = fork();
    if (child == 0) {
        free(malloc(100));
        exit(0);
    }
    int status = 0;
    if (child > 0)
        waitpid(child, &status, 0);
    double ms = (MPI_Wtime() - t0) * 1e3;
    if (argc > 1) {
        char path[4096];
        snprintf(path, sizeof path, "%s.%d", argv[1], rank);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%.1f %d\n", ms, child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            fclose(f);
        }
    }
    ring(rank, size);
    if (rank == 0)
        printf("forker: %d ranks done\n", size);
    MPI_Finalize();
    return 0;
}
