/* ftrio.c — the C program of the Fortran trio (tests/mpi/t_fortran_trio.sh): the same MPI calls as
 * ftrio_mpifh.f90, ftrio_usempi.f90 and ftrio_f08.f90 (see ftrio_mpifh.f90), in C, so the four
 * traces must have the same events. Rank 0 prints the same line as the Fortran programs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    enum { ROUNDS = 5 };
    int rank, nranks, token, incoming = 0, sendv, recvv, total, bval, checksum = 0, idx;
    MPI_Request reqs[2];
    MPI_Status st, statuses[2];
    MPI_Comm sub;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;
    int *all = calloc((size_t)nranks, sizeof *all);
    for (int r = 1; r <= ROUNDS; r++) {
        if (rank == 0) {
            token = r;
            MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
            MPI_Recv(&incoming, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(&incoming, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token = incoming + rank;
            MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
        }
        checksum = (checksum * 31 + incoming) % 1000003;
    }
    sendv = 100 * rank + 7;
    MPI_Irecv(&recvv, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&sendv, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, statuses);
    checksum = (checksum * 31 + recvv + statuses[0].MPI_SOURCE) % 1000003;
    MPI_Irecv(&recvv, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&sendv, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MPI_Irecv(&recvv, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&sendv, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &reqs[1]);
    for (int i = 0; i < 2; i++)
        MPI_Waitany(2, reqs, &idx, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&sendv, 1, MPI_INT, right, 5, &recvv, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &st);
    checksum = (checksum * 31 + recvv) % 1000003;

    MPI_Allreduce(&checksum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    bval = rank == 0 ? total + 17 : 0;
    MPI_Bcast(&bval, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    checksum += bval;
    MPI_Reduce(&checksum, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
    MPI_Allreduce(&rank, &bval, 1, MPI_INT, MPI_SUM, sub);
    MPI_Comm_free(&sub);
    int gathered = 0;
    for (int i = 0; i < nranks; i++)
        gathered += all[i];
    if (rank == 0)
        printf("ftrio: ranks %d checksum %d gathered %d\n", nranks, total, gathered);
    free(all);
    MPI_Finalize();
    return 0;
}
