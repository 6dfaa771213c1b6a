/* init.c — MPI_Init and MPI_Init_thread: the tool's communicator, the archive directory, the first
 * clock synchronization, then tracing (lifecycle.h). */
#include "lifecycle_int.h"

#include "../clock/sync.h"
#include "../config/config.h"
#include "../exchange/polite_mpi.h"
#include "../util/archive_dir.h"
#include "../util/log.h"
#include "abend.h"
#include "comm.h"
#include "lock_ticket.h"
#include "pairing.h"
#include "st_mpi.h"

volatile int st_mpi_tracing;
MPI_Comm st_tool_comm = MPI_COMM_NULL;
char st_archive_dir[4096];

/* Rank 0 prepares the archive directory; everyone learns its name or the failure. */
static int share_archive_dir(void)
{
    char err[600] = "";
    int ok = 1;
    if (st_world_rank == 0)
        ok = st_archive_dir_prepare(st_config.dir, st_archive_dir, sizeof st_archive_dir, err, sizeof err) == 0;
    st_polite_bcast(&ok, 1, MPI_INT, 0, st_tool_comm);
    if (!ok) {
        if (st_world_rank == 0)
            st_log_error("%s; the application runs untraced", err);
        return -1;
    }
    st_polite_bcast(st_archive_dir, (int)sizeof st_archive_dir, MPI_CHAR, 0, st_tool_comm);
    return 0;
}

static void tool_init(void)
{
    st_lc_mpi_started = 1;
    if (!st_record_active)
        return;
    st_lc_reinstall_fault_handlers();
    MPI_Request dup; /* Idup + polite wait: a blocking dup busy-polls for ~60 ms on oversubscribed cores */
    if (PMPI_Comm_idup(MPI_COMM_WORLD, &st_tool_comm, &dup) != MPI_SUCCESS || st_polite_wait(&dup, NULL) != MPI_SUCCESS) {
        st_log_error("cannot create the tool's communicator; the application runs untraced");
        st_record_stop();
        st_abend_disarm(); /* untraced: nothing to save at an abnormal end either */
        return;
    }
    st_comm_init();
    st_mpi_status_init(st_tool_comm);
    st_log_set_rank(st_world_rank);
    if (!st_config.record) { /* clocks only (synctrace-bench): sync, then no recording, no archive */
        if (st_clock_init_sync(st_tool_comm) != 0)
            st_log_warn("clock synchronization failed; the global clock is the local clock");
        st_record_stop();
        return;
    }
    if (share_archive_dir() != 0) {
        st_record_stop();
        st_abend_disarm();
        return;
    }
    if (st_clock_init_sync(st_tool_comm) != 0)
        st_log_warn("clock synchronization failed; timestamps stay on local clocks");
    st_lock_tickets_init(st_tool_comm);
    st_abend_init_mpi(st_tool_comm, st_archive_dir);
    st_mpi_tracing = 1;
}

/* The region of MPI_Init(_thread), the PMPI call through call(ctx), then the tool's start (lifecycle_int.h). */
int st_lc_init_call(int thread, int (*call)(void *ctx), void *ctx, const int *provided)
{
    st_pairing_at_init(); /* an MPI of the other family loaded after start: restarts untraced */
    st_thread_t *th = st_record_active ? st_thread_self() : NULL;
    st_region_t region = thread ? ST_REGION_MPI_Init_thread : ST_REGION_MPI_Init;
    if (th) {
        th->in_tool = 1;
        st_mpi_enter(th, region);
    }
    int rc = call(ctx);
    if (rc == MPI_SUCCESS) {
        st_mpi_thread_multiple = thread && provided && *provided == MPI_THREAD_MULTIPLE;
        tool_init();
    }
    if (th) {
        if (st_record_active)
            st_mpi_leave(th, region);
        th->in_tool = 0;
    }
    return rc;
}

typedef struct c_init { int *argc; char ***argv; int required; int *provided; } c_init_t;

static int c_init(void *ctx)
{
    c_init_t *a = ctx;
    return PMPI_Init(a->argc, a->argv);
}

static int c_init_thread(void *ctx)
{
    c_init_t *a = ctx;
    return PMPI_Init_thread(a->argc, a->argv, a->required, a->provided);
}

ST_EXPORT int MPI_Init(int *argc, char ***argv)
{
    c_init_t a = { argc, argv, MPI_THREAD_SINGLE, NULL };
    return st_lc_init_call(0, c_init, &a, NULL);
}

ST_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    c_init_t a = { argc, argv, required, provided };
    return st_lc_init_call(1, c_init_thread, &a, provided);
}
