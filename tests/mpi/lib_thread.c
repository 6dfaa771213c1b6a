/*
 * lib_thread.c — an MPI program whose MPI library runs a thread of its own that calls MPI_* functions
 * (lib_thread_component.c, linked as mca_st_progress.so): the trace must hold the application's thread
 * and its calls only (t_lib_threads.sh). Rank 0 prints the size both threads saw.
 */
#include <mpi.h>
#include <stdio.h>

int st_component_progress(void);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int seen = st_component_progress();
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("size %d, seen by the library's thread %d\n", size, seen);
    MPI_Finalize();
    return seen == size ? 0 : 1;
}
