/*
 * lock_ticket.c — lock tickets from a segment shared by the processes of a machine (lock_ticket.h).
 *
 * The machine is what st_node_identity says (host name and boot id), not the clock
 * synchronization's node, which a setting may make smaller. Its lowest rank (the leader) creates a
 * POSIX shared-memory object under a name nobody can guess (O_CREAT | O_EXCL, mode 0600: another
 * user cannot open it, nor plant one in its place), sizes and maps it, and sends the name to every
 * other process of the machine; each maps it and answers whether it could; the leader unlinks the
 * name once all answered, so nothing outlives the run and nothing else can open it. The mapping
 * stays until the process exits (a thread may still be taking a ticket while MPI_Finalize runs).
 *
 * SYNCTRACE_LOCK_TICKETS=remote puts the counters into a window of the tool's instead (below: "remote").
 */
#include "lock_ticket.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "../config/config.h"
#include "../exchange/polite_mpi.h"
#include "../util/log.h"
#include "../util/nodeid.h"
#include "lock_held.h"

#define TAG_NAME 7411 /* the segment's name, leader -> member (on the tool's communicator, at init only) */
#define TAG_ACK  7412 /* whether the member mapped it, member -> leader */
#define NAME_LEN 64
#define STRIDE   8    /* uint64_t per counter: one cache line */

static int32_t         *node_ranks; /* the machine's world ranks, ascending; counter i is node_ranks[i]'s */
static uint32_t         node_n;
static _Atomic uint64_t *counters;  /* [node_n * STRIDE], NULL: no tickets */

static int seg_create(char *name, size_t bytes, void **at)
{
    unsigned char rnd[12];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return -1;
    int k = snprintf(name, NAME_LEN, "/synctrace-%d-", (int)getpid());
    for (size_t i = 0; i < sizeof rnd && k + 2 < NAME_LEN; i++)
        k += snprintf(name + k, NAME_LEN - (size_t)k, "%02x", rnd[i]);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        return -1;
    void *p = ftruncate(fd, (off_t)bytes) == 0 ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                                               : MAP_FAILED;
    close(fd);
    if (p == MAP_FAILED) {
        shm_unlink(name);
        return -1;
    }
    *at = p;
    return 0;
}

static int seg_open(const char *name, size_t bytes, void **at)
{
    int fd = name[0] == '/' ? shm_open(name, O_RDWR, 0) : -1;
    if (fd < 0)
        return -1;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    *at = p;
    return 0;
}

static int wait_all(MPI_Request *r, uint32_t n)
{
    int ok = 1;
    for (uint32_t i = 0; i < n; i++)
        ok &= st_polite_wait(&r[i], MPI_STATUS_IGNORE) == MPI_SUCCESS;
    return ok ? 0 : -1;
}

static int remote_init(MPI_Comm tool, int me, int np);

void st_lock_tickets_init(MPI_Comm tool)
{
    int me = 0, np = 0;
    PMPI_Comm_rank(tool, &me);
    PMPI_Comm_size(tool, &np);
    if (st_config.lock_tickets == ST_LOCK_TICKETS_OFF) { /* the same setting on every process: no collective */
        if (me == 0)
            st_log_info("no lock tickets (SYNCTRACE_LOCK_TICKETS=off): passive-target locks are ordered by the times");
        return;
    }
    uint64_t key = st_node_identity(), *keys = malloc(sizeof *keys * (size_t)(np > 0 ? np : 1));
    /* every collective below is called by all or by none: the agreements decide, on every process alike */
    int held = st_lock_held_somewhere(), mine[2] = { keys != NULL, held }, all[2] = { 0, 0 };
    if (st_polite_allreduce(mine, all, 2, MPI_INT, MPI_MIN, tool) != MPI_SUCCESS || !all[0] || !all[1]) {
        free(keys);
        if (!all[0])
            st_log_warn_once("no lock tickets (out of memory at MPI_Init): passive-target locks are ordered by the times");
        else if (me == 0)
            st_log_info("no lock tickets: this MPI is not known to return from MPI_Win_lock holding the lock; "
                        "passive-target locks are ordered by the times");
        return;
    }
    if (st_config.lock_tickets == ST_LOCK_TICKETS_REMOTE) {
        free(keys);
        remote_init(tool, me, np);
        return;
    }
    MPI_Request req;
    int ok = PMPI_Iallgather(&key, 1, MPI_UINT64_T, keys, 1, MPI_UINT64_T, tool, &req) == MPI_SUCCESS &&
             st_polite_wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    uint32_t n = 0;
    for (int r = 0; ok && r < np; r++)
        n += keys[r] == key;
    int32_t *ranks = ok ? malloc(sizeof *ranks * n) : NULL;
    MPI_Request *reqs = ok ? malloc(sizeof *reqs * n) : NULL;
    char (*names)[NAME_LEN] = ok ? calloc(n, NAME_LEN) : NULL;
    int *acks = ok ? calloc(n, sizeof *acks) : NULL;
    uint32_t k = 0;
    for (int r = 0; ok && ranks && r < np; r++)
        if (keys[r] == key)
            ranks[k++] = r;
    free(keys);
    /* all or none take part in the exchange below, so that nobody waits for a name or an answer */
    mine[0] = ok && ranks && reqs && names && acks;
    if (st_polite_allreduce(mine, all, 1, MPI_INT, MPI_MIN, tool) != MPI_SUCCESS || !all[0]) {
        free(ranks), free(reqs), free(names), free(acks);
        st_log_warn_once("no lock tickets (out of memory at MPI_Init): passive-target locks are ordered by the times");
        return;
    }
    size_t bytes = sizeof(uint64_t) * STRIDE * n;
    void *seg = NULL;
    int mapped = 0, leader_failed = 0;
    if (n == 1) { /* alone on the machine: the counter needs no sharing */
        mapped = (seg = calloc(STRIDE, sizeof(uint64_t))) != NULL;
    } else if (ranks[0] == me) {
        char name[NAME_LEN] = "";
        mapped = seg_create(name, bytes, &seg) == 0;
        for (uint32_t i = 1; i < n; i++) {
            memcpy(names[i], mapped ? name : "", NAME_LEN);
            if (PMPI_Isend(names[i], NAME_LEN, MPI_CHAR, ranks[i], TAG_NAME, tool, &reqs[i - 1]) != MPI_SUCCESS)
                reqs[i - 1] = MPI_REQUEST_NULL;
        }
        wait_all(reqs, n - 1);
        for (uint32_t i = 1; i < n; i++)
            if (PMPI_Irecv(&acks[i], 1, MPI_INT, ranks[i], TAG_ACK, tool, &reqs[i - 1]) != MPI_SUCCESS)
                reqs[i - 1] = MPI_REQUEST_NULL;
        wait_all(reqs, n - 1);
        if (mapped)
            shm_unlink(name); /* every member has it mapped, or gave up: nobody opens it any more */
        /* a member that could not map it takes no tickets; the others' stay valid among themselves */
    } else {
        if (PMPI_Irecv(names[0], NAME_LEN, MPI_CHAR, ranks[0], TAG_NAME, tool, &reqs[0]) != MPI_SUCCESS)
            reqs[0] = MPI_REQUEST_NULL;
        wait_all(reqs, 1);
        names[0][NAME_LEN - 1] = 0;
        acks[0] = mapped = seg_open(names[0], bytes, &seg) == 0;
        leader_failed = names[0][0] == 0; /* (the leader says so itself) */
        if (PMPI_Isend(&acks[0], 1, MPI_INT, ranks[0], TAG_ACK, tool, &reqs[0]) != MPI_SUCCESS)
            reqs[0] = MPI_REQUEST_NULL;
        wait_all(reqs, 1);
    }
    free(reqs), free(names), free(acks);
    if (!mapped) {
        free(ranks);
        if (!leader_failed)
            st_log_warn_once("no lock tickets (the shared memory of this machine could not be set up): "
                             "passive-target locks are ordered by the times");
        return;
    }
    node_ranks = ranks;
    node_n = n;
    counters = seg; /* before tracing starts: the threads that take tickets call MPI after MPI_Init */
}

static uint64_t machine_ticket(int32_t target)
{
    _Atomic uint64_t *c = counters;
    if (!c) /* (a mapping is never undone: see the top) */
        return 0;
    uint32_t lo = 0, hi = node_n; /* binary search: the machine's ranks ascend */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (node_ranks[mid] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= node_n || node_ranks[lo] != target)
        return 0;
    return atomic_fetch_add_explicit(&c[(size_t)lo * STRIDE], 1, memory_order_relaxed) + 1;
}

/* ---- remote: the counters in a window of the tool's --------------------------------------------------- */

/* Each process's counter (one uint64_t at displacement 0 of a cache line of its own) in a window over the tool's
 * communicator, in a lock_all epoch (MPI_MODE_NOCHECK: nobody ever locks it exclusively) from MPI_Init to
 * MPI_Finalize. A ticket is MPI_Rget_accumulate (MPI_SUM of 1) whose request is waited for: its result has come
 * back, so the add was performed at the target, after the user's lock returned and before it is released.
 * (The line is also what MPICH 4.0.2 needs: with 8 bytes per process its atomics to odd ranks of a machine
 * landed on the even rank's counter before them, seen with 4 ranks.) */
static MPI_Win  remote_win = MPI_WIN_NULL; /* set at MPI_Init before tracing, cleared at MPI_Finalize */
static MPI_Comm remote_comm = MPI_COMM_NULL;
static int      remote_np;

static int remote_init(MPI_Comm tool, int me, int np)
{
    uint64_t *base = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int locked = 0;
    /* collective; a failure here is the tool communicator's (fatal, as for the tool's other calls) */
    int ok = PMPI_Win_allocate(STRIDE * sizeof(uint64_t), sizeof(uint64_t), MPI_INFO_NULL, tool, &base, &win) == MPI_SUCCESS &&
             win != MPI_WIN_NULL;
    if (ok) {
        PMPI_Win_set_errhandler(win, MPI_ERRORS_RETURN); /* a failed ticket is no ticket, never the run's end */
        locked = ok = PMPI_Win_lock_all(MPI_MODE_NOCHECK, win) == MPI_SUCCESS;
    }
    if (ok) { /* zero before anyone takes a ticket: the agreement below orders it before every remote add */
        *base = 0;
        ok = PMPI_Win_sync(win) == MPI_SUCCESS;
    }
    int all = 0;
    if (st_polite_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, tool) != MPI_SUCCESS)
        all = 0;
    if (!all) {
        if (locked)
            PMPI_Win_unlock_all(win);
        if (win != MPI_WIN_NULL)
            PMPI_Win_free(&win);
        st_log_warn_once("no lock tickets (the tool's window for SYNCTRACE_LOCK_TICKETS=remote could not be set up): "
                         "passive-target locks are ordered by the times");
        return -1;
    }
    remote_win = win, remote_comm = tool, remote_np = np;
    if (me == 0)
        st_log_info("lock tickets from the tool's window (SYNCTRACE_LOCK_TICKETS=remote): one fetch-and-add at the "
                    "target after each MPI_Win_lock, at every rank of the window after MPI_Win_lock_all");
    return 0;
}

void st_lock_tickets_fini(void)
{
    if (remote_win == MPI_WIN_NULL)
        return;
    MPI_Win win = remote_win;
    remote_win = MPI_WIN_NULL;
    PMPI_Win_unlock_all(win);
    st_polite_barrier(remote_comm); /* every process here, so that the free's own wait is short */
    PMPI_Win_free(&win);
}

void st_lock_tickets_at(const int32_t *targets, uint32_t n, uint64_t *out)
{
    if (remote_win == MPI_WIN_NULL) {
        for (uint32_t i = 0; i < n; i++)
            out[i] = machine_ticket(targets[i]);
        return;
    }
    enum { GROUP = 64 }; /* fetch-and-adds in flight together: no allocation */
    static const uint64_t one = 1;
    for (uint32_t i0 = 0; i0 < n; i0 += GROUP) {
        uint32_t m = n - i0 < GROUP ? n - i0 : GROUP;
        MPI_Request req[GROUP];
        uint64_t old[GROUP];
        int sent[GROUP];
        for (uint32_t k = 0; k < m; k++) {
            int32_t t = targets[i0 + k];
            out[i0 + k] = 0;
            sent[k] = t >= 0 && t < remote_np &&
                      PMPI_Rget_accumulate(&one, 1, MPI_UINT64_T, &old[k], 1, MPI_UINT64_T, t, 0, 1, MPI_UINT64_T, MPI_SUM,
                                           remote_win, &req[k]) == MPI_SUCCESS;
        }
        for (uint32_t k = 0; k < m; k++)
            if (sent[k] && st_polite_wait_quiet(&req[k]) == MPI_SUCCESS)
                out[i0 + k] = old[k] + 1;
    }
}
