/*
 * hybrid_demo.c — a small hybrid MPI + OpenMP program to trace with synctrace (make demo).
 *
 * 1-D heat equation, explicit Jacobi steps, block-distributed over the ranks:
 *  - halo exchange with the neighbours: MPI_Irecv/MPI_Isend/MPI_Waitall;
 *  - the stencil sweep is an OpenMP parallel for inside each rank (reduction of the residual);
 *  - every CHECK_EVERY steps an MPI_Allreduce sums the residual.
 * Wait states are built in on purpose, so the trace has something to show:
 *  - the last rank owns 25% more points (its neighbour waits in MPI_Waitall: Late Sender;
 *    the others wait in MPI_Allreduce: Wait at NxN);
 *  - in each rank a "hot zone" (the upper quarter of the block) costs more per point, so with
 *    schedule(static) the thread that owns it is late at the implicit barrier.
 * MPI is only called outside parallel regions (MPI_THREAD_FUNNELED).
 *
 * It also shows include/synctrace.h: when traced it prints phase times read from the
 * synchronized global clock, comparable across ranks; untraced the calls are skipped.
 *
 * usage: hybrid_demo [steps [points_per_rank]]   (defaults 300 and 40000)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#include <synctrace.h>

#define CHECK_EVERY 10
#define HOT_WORK 16 /* extra inner iterations per hot-zone point */

/* Cost of the source term at one point: cheap outside the hot zone, HOT_WORK times more inside. */
static double source(double x, int hot)
{
    double s = 0.0;
    int n = hot ? HOT_WORK : 1;
    for (int k = 1; k <= n; k++)
        s += sin(x * k) / (k * k);
    return 1e-6 * s;
}

/* One Jacobi sweep over u[1..n] (u[0], u[n+1] are halos) into v; returns the local residual. */
static double sweep(const double *u, double *v, long n, long first)
{
    double res = 0.0;
    long hot_from = n - n / 4;
#pragma omp parallel for schedule(static) reduction(+ : res)
    for (long i = 1; i <= n; i++) {
        double x = (double)(first + i) * 1e-3;
        v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]) + source(x, i > hot_from);
        res += (v[i] - u[i]) * (v[i] - u[i]);
    }
    return res;
}

/* Exchanges the boundary points with the left and right neighbours (MPI_PROC_NULL at the ends). */
static void halo(double *u, long n, int left, int right)
{
    MPI_Request req[4];
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

static double now_s(void)
{
    /* the synchronized clock when traced (comparable across ranks), MPI_Wtime otherwise */
    if (synctrace_global_time_ns)
        return (double)synctrace_global_time_ns() * 1e-9;
    return MPI_Wtime();
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 300;
    long per_rank = argc > 2 ? atol(argv[2]) : 40000;
    if (steps < 1 || per_rank < 8) {
        if (rank == 0)
            fprintf(stderr, "usage: hybrid_demo [steps >= 1 [points_per_rank >= 8]]\n");
        MPI_Finalize();
        return 2;
    }
    long n = rank == size - 1 ? per_rank + per_rank / 4 : per_rank; /* imbalance */
    long first = rank * per_rank;
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    double *u = calloc((size_t)n + 2, sizeof *u);
    double *v = calloc((size_t)n + 2, sizeof *v);
    if (!u || !v) {
        fprintf(stderr, "hybrid_demo: rank %d: out of memory for %ld points\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 1; i <= n; i++) /* a warm spot in the middle of the global domain */
        u[i] = fabs((double)(first + i) - 0.5 * size * per_rank) < 0.05 * size * per_rank ? 1.0 : 0.0;

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s(), res = 0.0;
    for (int s = 1; s <= steps; s++) {
        halo(u, n, left, right);
        double local = sweep(u, v, n, first);
        double *t = u;
        u = v;
        v = t;
        if (s % CHECK_EVERY == 0 || s == steps)
            MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double t1 = now_s();

    double sum = 0.0, total = 0.0;
    for (long i = 1; i <= n; i++)
        sum += u[i];
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    double mine[2] = {t0, t1};
    double *all = rank == 0 ? malloc(2 * (size_t)size * sizeof *all) : NULL;
    if (rank == 0 && !all)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int shown = size < 8 ? size : 8;
        printf("hybrid_demo: %d ranks x %d threads, %d steps, %ld points per rank (+25%% on the last)\n",
               size, omp_get_max_threads(), steps, per_rank);
        printf("hybrid_demo: residual %.6e, heat %.6f\n", sqrt(res), total);
        printf("hybrid_demo: clock %s\n", synctrace_global_time_ns ? "synctrace global (traced)" : "MPI_Wtime (not traced)");
        for (int r = 0; r < shown; r++)
            printf("hybrid_demo: rank %d loop %.3f s .. %.3f s (%.3f s)\n", r, all[2 * r] - all[0],
                   all[2 * r + 1] - all[0], all[2 * r + 1] - all[2 * r]);
    }
    free(all);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
