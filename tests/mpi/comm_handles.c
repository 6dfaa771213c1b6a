/*
 * comm_handles.c — many communicators over a run, few alive at once: N times MPI_Comm_dup of
 * MPI_COMM_WORLD, an MPI_Barrier on the duplicate, MPI_Comm_free. Where a handle is a pointer
 * (Open MPI) the program then allocates a block of the freed communicator's size and keeps it, so
 * the next duplicate usually gets a new address: up to N distinct handles, at most one of them alive.
 * Rank 0 prints N to stdout and the number of distinct handles it saw to stderr (that number depends on
 * the heap, which a tool shares).
 * Usage: comm_handles N
 */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 5000, rank, distinct = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm *seen = calloc((size_t)(n > 0 ? n : 1), sizeof *seen);
    if (!seen)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < n; i++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Barrier(c);
        int k = 0;
        while (k < distinct && memcmp(&seen[k], &c, sizeof c) != 0)
            k++;
        if (k == distinct)
            seen[distinct++] = c;
#ifdef OPEN_MPI
        size_t size = malloc_usable_size((void *)c);
        MPI_Comm_free(&c);
        if (!malloc(size)) /* kept: the freed communicator's memory stays taken */
            MPI_Abort(MPI_COMM_WORLD, 1);
#else
        MPI_Comm_free(&c);
#endif
    }
    if (rank == 0)
        printf("%d communicators\n", n), fprintf(stderr, "distinct handles: %d\n", distinct);
    free(seen);
    MPI_Finalize();
    return 0;
}
