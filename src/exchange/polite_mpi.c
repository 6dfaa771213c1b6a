/* polite_mpi.c — Test + sched_yield loops for the tool's own MPI waits (see polite_mpi.h). */
#include "polite_mpi.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/log.h"
#include "../util/clockread.h"
#include "../util/fnv.h"

#define SPIN_IDLE    64      /* idle steps of sched_yield before the first sleep */
#define LONG_WAIT_S  0.002   /* a wait this long sleeps even on an uncrowded host ... */
#define LONG_SHARE   0.05    /* ... for this share of the time waited so far, */
#define LONG_MAX_NS  2000000L /* up to 2 ms per pause */
#define SLEEP_MAX_NS 200000L /* longest pause */

void st_polite_pause(long idle, int crowded)
{
    if (idle < SPIN_IDLE || !crowded) {
        sched_yield();
        return;
    }
    long ns = 1000L << (idle - SPIN_IDLE < 8 ? idle - SPIN_IDLE : 8);
    struct timespec ts = { 0, ns < SLEEP_MAX_NS ? ns : SLEEP_MAX_NS };
    nanosleep(&ts, NULL);
}

static const char *volatile doing;
static const char *volatile noticed; /* the phase already reported */

void st_polite_doing(const char *what) { doing = what; }

const char *st_polite_doing_now(void) { return doing; }

/* Past ST_POLITE_NOTICE_S seconds of a wait, say once per phase what the wait is for. */
static void maybe_notice(double waited)
{
    const char *what = doing;
    if (!what || what == noticed || waited < ST_POLITE_NOTICE_S)
        return;
    noticed = what;
    st_log_warn("still waiting after %.0f s for other ranks (%s); a rank may have stopped or be much slower", waited,
                what);
}

/* A pause of a wait past LONG_WAIT_S seconds: it sleeps, crowded host or not, each pause LONG_SHARE of the time waited
 * so far (at least SLEEP_MAX_NS, at most LONG_MAX_NS): the wait ends at most 5 % (or 2 ms) after its
 * request completes, and wakes a few hundred times a second. sched_yield gives the core away only
 * for a moment, and 200 us pauses wake thousands of times a second: a rank waiting in MPI_Finalize's
 * barrier for a slow peer on its CPU took as much CPU as the peer under MPICH with the first and a
 * third of it with the second (tests/bench/finwait_bench.sh). */
static void long_pause(double waited_s)
{
    long ns = (long)(waited_s * LONG_SHARE * 1e9);
    ns = ns < SLEEP_MAX_NS ? SLEEP_MAX_NS : ns > LONG_MAX_NS ? LONG_MAX_NS : ns;
    struct timespec ts = { 0, ns };
    nanosleep(&ts, NULL);
}

/* The one polite wait: PMPI_Test, then a pause (st_polite_pause, past LONG_WAIT_S long_pause), with the
 * long-wait notice unless quiet. */
static int wait_req(MPI_Request *req, MPI_Status *status, int crowded, int quiet)
{
    int done = 0, rc, long_wait = 0;
    double t0 = st_clock_s(CLOCK_MONOTONIC);
    for (long idle = 0; (rc = PMPI_Test(req, &done, status ? status : MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done;
         idle++) {
        if (!long_wait && (idle & 63) != 63) {
            st_polite_pause(idle, crowded);
            continue;
        }
        double waited = st_clock_s(CLOCK_MONOTONIC) - t0; /* every 64th step, then at every step of a long wait */
        long_wait = waited > LONG_WAIT_S;
        if (!long_wait) {
            st_polite_pause(idle, crowded);
            continue;
        }
        long_pause(waited);
        if (!quiet)
            maybe_notice(waited);
    }
    return rc;
}

int st_polite_wait(MPI_Request *req, MPI_Status *status) { return wait_req(req, status, 0, 0); }

int st_polite_wait_crowded(MPI_Request *req, int crowded) { return wait_req(req, NULL, crowded, 0); }

int st_polite_crowded(MPI_Comm comm)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int n = 0, on_host = 0;
    PMPI_Comm_size(comm, &n);
    uint64_t mine = st_fnv1a_str(host), *all = malloc(sizeof *all * (size_t)(n > 0 ? n : 1));
    MPI_Request req;
    if (all && PMPI_Iallgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, comm, &req) == MPI_SUCCESS &&
        st_polite_wait(&req, NULL) == MPI_SUCCESS)
        for (int r = 0; r < n; r++)
            on_host += all[r] == mine;
    free(all);
    cpu_set_t cpus;
    int ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
    return on_host > ncpu;
}

int st_polite_wait_quiet(MPI_Request *req) { return wait_req(req, NULL, 0, 1); }

int st_polite_barrier(MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ibarrier(comm, &r);
    return rc == MPI_SUCCESS ? st_polite_wait(&r, NULL) : rc;
}

int st_polite_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Ibcast(buf, count, type, root, comm, &r);
    return rc == MPI_SUCCESS ? st_polite_wait(&r, NULL) : rc;
}

int st_polite_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    MPI_Request r;
    int rc = PMPI_Iallreduce(in, out, count, type, op, comm, &r);
    return rc == MPI_SUCCESS ? st_polite_wait(&r, NULL) : rc;
}
