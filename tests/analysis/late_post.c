/*
 * late_post.c — Late Receiver against a receive posted late with MPI_Irecv (2 ranks): rank 1
 * posts the receive 50 ms after rank 0 entered MPI_Ssend and completes it 20 ms later in
 * MPI_Wait, so the wait is charged up to the posting call (MPI_Irecv), not the completing one.
 * t_analyze_inrun.sh uses it to see that the posting call's time travels to the sender.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    int rank, size, x = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 3 && size >= 2; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Ssend(&x, 1, MPI_INT, 1, i, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Request r;
            sleep_ms(50);
            MPI_Irecv(&x, 1, MPI_INT, 0, i, MPI_COMM_WORLD, &r);
            sleep_ms(20);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
