/*
 * ends.c — the ends of a run other than MPI_Finalize: MPI_Abort, exit without MPI_Finalize, the
 * exit of an OpenMP-only program (its archive: omp_only.c) and fatal signals. An abnormal end dumps
 * what was recorded into DIR/partial/ and has this host's other ranks dump too (abend.h).
 */
#include "lifecycle_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../config/config.h"
#include "abend.h"
#include "st_mpi.h"

/* Outside handlers (MPI_Abort, exit): dump, have this host's other ranks dump, wait for them
 * before the launcher kills them (abend.h). */
static void abnormal_end(const char *why)
{
    if (st_lc_ending)
        return;
    st_lc_ending = 1;
    st_abend_dump(why);
    st_abend_notify(why);
    st_abend_wait(0, why);
}

void st_lc_abort_tool(void)
{
    st_thread_t *th = st_mpi_begin();
    if (th) {
        st_mpi_enter(th, ST_REGION_MPI_Abort);
        st_mpi_end(th);
    }
    abnormal_end("MPI_Abort");
}

ST_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    st_lc_abort_tool();
    return PMPI_Abort(comm, errorcode);
}

/* The exit hook (installed at load): a rank that leaves without MPI_Finalize dumps; an OpenMP-only
 * program writes its archive. */
static void at_exit(void)
{
    if (st_lc_ending || st_lc_forked || !st_config.enable)
        return;
    if (st_lc_mpi_started && !st_lc_mpi_finished) {
        abnormal_end("exit without MPI_Finalize");
    } else if (!st_lc_mpi_started && st_record_active) {
        st_lc_ending = 1;
        st_lc_write_without_mpi(0);
    }
}

static const int fatal_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NSIGNALS (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous[NSIGNALS];

/* Faults re-occur when the handler returns, so the previous handler then sees the real fault. */
static int is_fault(int sig) { return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL; }

/* Ended from outside (the launcher forwards these to every rank), not by this rank's own failure. */
static int is_termination(int sig) { return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT; }

/* Async-signal-safe only (abend.h): the signal may have interrupted malloc or stdio. */
static void on_signal(int sig)
{
    static const char *const names[] = { [SIGTERM] = "SIGTERM", [SIGINT] = "SIGINT", [SIGHUP] = "SIGHUP",
                                         [SIGQUIT] = "SIGQUIT", [SIGSEGV] = "SIGSEGV", [SIGBUS] = "SIGBUS",
                                         [SIGFPE] = "SIGFPE", [SIGILL] = "SIGILL", [SIGABRT] = "SIGABRT" };
    int saved = errno;
    if (!st_lc_forked) {
        st_lc_ending = 1;
        st_abend_dump(names[sig]); /* nothing once the run ended normally (disarmed) */
        if (st_lc_mpi_started) {
            st_abend_notify(names[sig]);
            st_abend_wait(is_termination(sig), names[sig]);
        }
    }
    for (size_t i = 0; i < NSIGNALS; i++)
        if (fatal_signals[i] == sig)
            sigaction(sig, &previous[i], NULL);
    errno = saved;
    if (!is_fault(sig))
        raise(sig);
}

/* Installs on_signal for sig, chaining to whatever handler is there now. */
static void take_signal(size_t i)
{
    struct sigaction sa, cur;
    sigaction(fatal_signals[i], NULL, &cur);
    if (cur.sa_handler == on_signal)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = 0; /* the handler itself restores the previous one; no SA_NODEFER: a repeated signal waits */
    sigemptyset(&sa.sa_mask);
    st_abend_ends_mask(&sa.sa_mask);
    previous[i] = cur;
    sigaction(fatal_signals[i], &sa, NULL);
}

/* At load: every fatal signal whose handler is still the default (never replace an application's).
 * Faults also when a library constructor (UCX, pulled in by libmpi) already took them: the
 * application has not run yet, and the handler is chained to after the dump. */
void st_lc_install_handlers(void)
{
    for (size_t i = 0; i < NSIGNALS; i++) {
        struct sigaction cur;
        sigaction(fatal_signals[i], NULL, &cur);
        if (cur.sa_handler == SIG_DFL || (is_fault(fatal_signals[i]) && cur.sa_handler != SIG_IGN))
            take_signal(i);
    }
    atexit(at_exit);
}

/* After PMPI_Init: the MPI runtime (UCX) installs its own fault handlers, which would hide ours;
 * go in front of them for faults and chain to them afterwards. */
void st_lc_reinstall_fault_handlers(void)
{
    for (size_t i = 0; i < NSIGNALS; i++)
        if (is_fault(fatal_signals[i]) || fatal_signals[i] == SIGABRT)
            take_signal(i);
}
