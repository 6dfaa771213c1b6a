/* clock.c — the global clock as the bench reads it, polite waits, and the accuracy check. */
#include "bench.h"

#include <math.h>
#include <sched.h>
#include <time.h>

#include "synctrace.h"

#define NEAR_NS 200000u   /* closer than this to a start time: yield instead of sleeping */
#define PINGPONGS 10      /* per rank in the accuracy check; the fastest one counts */

uint64_t bench_now(void)
{
    return synctrace_global_time_ns(); /* main.c makes sure the library is loaded */
}

/* How late a sleep of this process wakes up, as last seen: the largest lateness, decaying by an
 * eighth of the difference each time a wake-up is earlier (a virtual machine's timers wake 70-360 us
 * late, where a bare one's wake 50-60 us late). */
static uint64_t wake_late_ns;

/* Sleeps ns and learns how late the wake-up was. */
static void sleep_learning(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    uint64_t before = bench_now();
    nanosleep(&ts, NULL);
    uint64_t slept = bench_now() - before, late = slept > ns ? slept - ns : 0;
    wake_late_ns = late >= wake_late_ns ? late : wake_late_ns - (wake_late_ns - late) / 8;
}

int bench_wait_until(uint64_t t)
{
    uint64_t now = bench_now();
    if (now >= t)
        return 1;
    for (; now < t; now = bench_now()) {
        /* sleep most of the way, stopping short by twice the lateness seen; the rest is yields */
        uint64_t left = t - now, guard = NEAR_NS / 2 + 2 * wake_late_ns;
        if (left > guard + NEAR_NS / 2)
            sleep_learning(left - guard);
        else
            sched_yield();
    }
    return 0;
}

static int polite_wait(MPI_Request *req)
{
    int done = 0, rc;
    while ((rc = PMPI_Test(req, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
        sched_yield();
    return rc;
}

int bench_polite_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ibcast(buf, count, type, root, comm, &r);
    return rc == MPI_SUCCESS ? polite_wait(&r) : rc;
}

int bench_polite_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Iallreduce(in, out, count, type, op, comm, &r);
    return rc == MPI_SUCCESS ? polite_wait(&r) : rc;
}

double bench_elapsed_max(uint64_t begin, MPI_Comm comm)
{
    double mine = (double)(bench_now() - begin) / 1e9, all = mine;
    bench_polite_allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, comm);
    return all;
}

/* Rank 0's side with one peer: offset of the peer's global clock from the fastest exchange, whose
 * half round trip goes to *bound. */
static double offset_to(int peer, MPI_Comm comm, double *bound)
{
    double best_rtt = INFINITY, offset = 0;
    for (int i = 0; i < PINGPONGS; i++) {
        MPI_Request req[2];
        uint64_t theirs = 0, ping = 0, t0 = bench_now();
        PMPI_Irecv(&theirs, 1, MPI_UINT64_T, peer, 1, comm, &req[1]);
        PMPI_Isend(&ping, 1, MPI_UINT64_T, peer, 0, comm, &req[0]);
        polite_wait(&req[0]);
        polite_wait(&req[1]);
        uint64_t t1 = bench_now();
        double rtt = (double)(t1 - t0);
        if (rtt < best_rtt) {
            best_rtt = rtt;
            offset = (double)theirs - ((double)t0 + rtt / 2);
        }
    }
    *bound = best_rtt / 2;
    return offset;
}

static void answer_pings(MPI_Comm comm)
{
    for (int i = 0; i < PINGPONGS; i++) {
        MPI_Request req;
        uint64_t ping, mine;
        PMPI_Irecv(&ping, 1, MPI_UINT64_T, 0, 0, comm, &req);
        polite_wait(&req);
        mine = bench_now();
        PMPI_Isend(&mine, 1, MPI_UINT64_T, 0, 1, comm, &req);
        polite_wait(&req);
    }
}

bench_offset_t bench_clock_offset_max(MPI_Comm comm)
{
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    double worst[2] = { 0, 0 }; /* offset, bound */
    for (int peer = 1; peer < size; peer++) {
        if (rank == 0) {
            double bound, off = fabs(offset_to(peer, comm, &bound));
            worst[0] = off > worst[0] ? off : worst[0];
            worst[1] = bound > worst[1] ? bound : worst[1];
        } else if (rank == peer) {
            answer_pings(comm);
        }
    }
    bench_polite_bcast(worst, 2, MPI_DOUBLE, 0, comm);
    return (bench_offset_t){ worst[0], worst[1] };
}
