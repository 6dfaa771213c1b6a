/*
 * mt_requests.c — requests under MPI_THREAD_MULTIPLE (tests/mpi/t_mt_requests.sh).
 *
 * Phase 1: NT pthreads per rank, each with its own duplicate of MPI_COMM_WORLD, exchange K messages per
 * round with the same thread of the partner rank (rank ^ 1) for ROUNDS rounds, completing them with a
 * different call each round (Waitall, Wait, Testsome loop, Testany loop, Test loop, Waitsome). Tags are
 * thread * 1000000 + round * 1000 + k, so the trace shows which thread's communicator a message belongs
 * to. MPI hands a freed request handle to the next request of any thread: a tool that looks a handle up
 * after PMPI freed it can take another thread's entry.
 * Phase 2: BIG receives outstanding at once per rank (thread 0, world communicator), one Waitall.
 * Rank 0 prints a checksum of all received payloads. Arguments: [rounds] [big].
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wstringop-overflow" /* gcc 12: MPI_STATUSES_IGNORE for an array parameter */

#define NT 4
#define K 16
#define BIG_TAG 999999 /* no thread tag: those are t * 1000000 + round * 1000 + k, k < 16 */

static int rank, size, rounds = 60, big = 40000;
static long sums[NT];

static void complete(int how, MPI_Request *r, int n)
{
    int done = 0, idx, flag, out, ids[2 * K];
    switch (how % 6) {
    case 0: MPI_Waitall(n, r, MPI_STATUSES_IGNORE); break;
    case 1: for (int i = 0; i < n; i++) MPI_Wait(&r[i], MPI_STATUS_IGNORE); break;
    case 2:
        while (done < n) { MPI_Testsome(n, r, &out, ids, MPI_STATUSES_IGNORE); if (out != MPI_UNDEFINED) done += out; }
        break;
    case 3:
        while (done < n) { MPI_Testany(n, r, &idx, &flag, MPI_STATUS_IGNORE); if (flag && idx != MPI_UNDEFINED) done++; }
        break;
    case 4:
        for (int i = 0; i < n; i++) do MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE); while (!flag);
        break;
    default:
        while (done < n) { MPI_Waitsome(n, r, &out, ids, MPI_STATUSES_IGNORE); if (out != MPI_UNDEFINED) done += out; }
    }
}

static MPI_Comm comms[NT];

static void *thread_main(void *arg)
{
    int t = (int)(long)arg, peer = rank ^ 1;
    int in[K], outv[K];
    MPI_Request r[2 * K];
    for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < K; k++) {
            int tag = t * 1000000 + round * 1000 + k;
            outv[k] = rank * 7 + tag;
            MPI_Irecv(&in[k], 1, MPI_INT, peer, tag, comms[t], &r[k]);
            MPI_Isend(&outv[k], 1, MPI_INT, peer, tag, comms[t], &r[K + k]);
        }
        complete(round + t, r, 2 * K);
        for (int k = 0; k < K; k++)
            sums[t] += in[k];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE || size % 2) {
        if (!rank) fprintf(stderr, "needs MPI_THREAD_MULTIPLE and an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (argc > 1) rounds = atoi(argv[1]);
    if (argc > 2) big = atoi(argv[2]);
    for (int t = 0; t < NT; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t th[NT];
    for (long t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, thread_main, (void *)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);

    /* Phase 2: big outstanding receives (the old request map held 32,768 entries). */
    int *buf = malloc(sizeof(int) * (size_t)big), *vals = malloc(sizeof(int) * (size_t)big);
    MPI_Request *r = malloc(sizeof(MPI_Request) * 2 * (size_t)big);
    for (int i = 0; i < big; i++)
        MPI_Irecv(&buf[i], 1, MPI_INT, rank ^ 1, BIG_TAG, MPI_COMM_WORLD, &r[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < big; i++) {
        vals[i] = i;
        MPI_Isend(&vals[i], 1, MPI_INT, rank ^ 1, BIG_TAG, MPI_COMM_WORLD, &r[big + i]);
    }
    MPI_Waitall(2 * big, r, MPI_STATUSES_IGNORE);
    long total = 0, all = 0;
    for (int t = 0; t < NT; t++)
        total += sums[t];
    for (int i = 0; i < big; i++)
        total += buf[i];
    MPI_Reduce(&total, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!rank)
        printf("mt_requests: %d ranks x %d threads, %d rounds, %d big: checksum %ld\n", size, NT, rounds, big, all);
    for (int t = 0; t < NT; t++)
        MPI_Comm_free(&comms[t]);
    free(buf), free(vals), free(r);
    MPI_Finalize();
    return 0;
}
