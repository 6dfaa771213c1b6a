/* ftrio_idx.c — the C side of the Fortran trio's index check (tests/mpi/t_fortran_trio.sh): the
 * same calls as ftrio_idx_f08.f90, whose MPI_WAITSOME returns request indices (MPICH before 4.1
 * returns them 0-based from `use mpi_f08`), so its completion must be recorded on the request MPI
 * completed: each rank receives its own messages, the second one first, so that MPI_WAITSOME
 * completes exactly the second request (MPI_WAITANY is in ftrio.c). Rank 0 prints the same line
 * as the Fortran program. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, a = 0, b = 0, c = 0, one = 5, two = 7, three = 9, outcount = 0, indices[3];
    MPI_Request reqs[3], s[3];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Irecv(&a, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(&b, 1, MPI_INT, rank, 2, MPI_COMM_WORLD, &reqs[1]);
    MPI_Irecv(&c, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(&two, 1, MPI_INT, rank, 2, MPI_COMM_WORLD, &s[1]);
    MPI_Waitsome(3, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
    MPI_Isend(&one, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &s[0]);
    MPI_Isend(&three, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &s[2]);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    MPI_Waitall(3, s, MPI_STATUSES_IGNORE);
    if (rank == 0)
        printf("ftrio_idx: %d %d\n", outcount, a + 10 * b + 100 * c);
    MPI_Finalize();
    return 0;
}
