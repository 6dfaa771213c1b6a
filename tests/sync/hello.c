/* hello.c — the smallest MPI program: used where only start-up and shutdown matter. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("hello from %d\n", rank);
    MPI_Finalize();
    return 0;
}
