/*
 * crash.c — ends without MPI_Finalize (tests/mpi/t_crash.sh, t_exit_codes.sh): after a barrier on
 * every rank, "exit [CODE]" makes every rank call exit(CODE) (default 0); "segv" makes rank 1
 * dereference NULL.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 1 && !strcmp(argv[1], "segv") && r == 1) { volatile int *p = 0; *p = 1; }
    if (argc > 1 && !strcmp(argv[1], "exit")) exit(argc > 2 ? atoi(argv[2]) : 0);
    MPI_Finalize(); return 0;
}
