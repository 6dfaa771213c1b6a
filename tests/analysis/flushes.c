/*
 * flushes.c — a hybrid MPI + OpenMP program that fills small event buffers quickly, for
 * tests/analysis/t_analyze_flushes.sh: with the smallest SYNCTRACE_BUFFER every thread, master and
 * workers, flushes many times, wherever its buffer happens to fill: between a fork and its team,
 * between a team's end and its join, in barriers and loops, inside MPI calls (a Waitall of many
 * requests records an event per request).
 *
 * Usage: flushes [ROUNDS] (default 60); MPI_THREAD_FUNNELED. Every round, on every rank:
 *   40 parallel regions, each a worksharing loop (implicit barrier) and, every 4th, a critical
 *   section and an explicit barrier;
 *   the master: MPI_Irecv / MPI_Isend of NREQ values to each neighbour on the ring, one MPI_Waitall;
 *   every 4th round an MPI_Allreduce.
 * Rank 0 prints one checksum line; exit 0.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define NREQ 32 /* messages to each neighbour per round */

static double work(int n)
{
    double x = 1;
    for (int i = 0; i < n * 20; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    int provided, rank, size, rounds = argc > 1 ? atoi(argv[1]) : 60;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long sum = 0;
    for (int r = 0; r < rounds; r++) {
        double acc = 0;
        for (int p = 0; p < 40; p++) {
#pragma omp parallel reduction(+ : acc)
            {
#pragma omp for
                for (int i = 0; i < 8; i++)
                    acc += work(1 + (i + rank + p) % 3);
                if (p % 4 == 0) {
#pragma omp critical
                    acc += 1;
#pragma omp barrier
                }
            }
        }
        sum += acc > 0;
        long out[2 * NREQ], in[2 * NREQ];
        MPI_Request req[4 * NREQ];
        for (int k = 0; k < NREQ; k++) {
            out[k] = rank + r + k, out[NREQ + k] = -rank - r - k;
            MPI_Irecv(&in[k], 1, MPI_LONG, left, k, MPI_COMM_WORLD, &req[k]);
            MPI_Irecv(&in[NREQ + k], 1, MPI_LONG, right, NREQ + k, MPI_COMM_WORLD, &req[NREQ + k]);
        }
        for (int k = 0; k < NREQ; k++) {
            MPI_Isend(&out[k], 1, MPI_LONG, right, k, MPI_COMM_WORLD, &req[2 * NREQ + k]);
            MPI_Isend(&out[NREQ + k], 1, MPI_LONG, left, NREQ + k, MPI_COMM_WORLD, &req[3 * NREQ + k]);
        }
        MPI_Waitall(4 * NREQ, req, MPI_STATUSES_IGNORE);
        for (int k = 0; k < 2 * NREQ; k++)
            sum += in[k];
        if (r % 4 == 3) {
            long all = 0;
            MPI_Allreduce(&sum, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            sum = all % 1000003;
        }
    }
    if (rank == 0)
        printf("flushes: %d rounds, checksum %ld\n", rounds, sum);
    MPI_Finalize();
    return 0;
}
