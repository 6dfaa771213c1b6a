/*
 * pingpong.c — MPI ping-pong latency between ranks 0 and 1 (tests/bench/run-bench.sh).
 *
 * Usage: pingpong ITERS8 ITERS64K [BATCHES]. For each message size (8 B, then 64 KiB):
 * MPI_Barrier, then ITERS round trips (rank 0: MPI_Send, MPI_Recv; rank 1: MPI_Recv,
 * MPI_Send; tag 1) timed in BATCHES equal batches with clock_gettime (not MPI_Wtime, so
 * the shim's treatment of MPI_Wtime does not matter). The first batch is warm-up; rank 0
 * prints "pingpong BYTES MEDIAN_ONE_WAY_NS" with the median over the other batches of
 * half the mean round-trip time, and "pingpong-all BYTES MEAN_ONE_WAY_NS" with the mean over
 * all of them (what a user pays: a batch with a buffer flush counts too; tests/bench/user_bench.sh).
 * Extra ranks only join the barriers.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Round trips in nb batches; returns the median one-way latency (ns) over batches 1..nb-1, their
 * mean into *mean. */
static double pingpong(int rank, char *buf, int bytes, int iters, int nb, double *mean)
{
    double lat[1024];
    int per = iters / nb;
    *mean = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 1)
        return 0;
    for (int b = 0; b < nb; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < per; i++) {
            if (rank == 0) {
                MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        lat[b] = (double)(now_ns() - t0) / per / 2.0;
        *mean += b ? lat[b] / (nb - 1) : 0;
    }
    qsort(lat + 1, (size_t)nb - 1, sizeof lat[0], cmp_double);
    int m = nb - 1;
    return m % 2 ? lat[1 + m / 2] : 0.5 * (lat[m / 2] + lat[m / 2 + 1]);
}

int main(int argc, char **argv)
{
    int it8 = argc > 1 ? atoi(argv[1]) : 20000, it64 = argc > 2 ? atoi(argv[2]) : 2000;
    int nb = argc > 3 ? atoi(argv[3]) : 21;
    if (nb < 2 || nb > 1024 || it8 < nb || it64 < nb) {
        fprintf(stderr, "usage: pingpong ITERS8 ITERS64K [BATCHES 2..1024]; ITERS >= BATCHES\n");
        return 2;
    }
    it8 -= it8 % nb;
    it64 -= it64 % nb;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong needs 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = calloc(65536, 1);
    double m8, m64;
    double l8 = pingpong(rank, buf, 8, it8, nb, &m8);
    double l64 = pingpong(rank, buf, 65536, it64, nb, &m64);
    if (rank == 0) {
        printf("pingpong 8 %.1f\n", l8);
        printf("pingpong 65536 %.1f\n", l64);
        printf("pingpong-all 8 %.1f\n", m8);
        printf("pingpong-all 65536 %.1f\n", m64);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
