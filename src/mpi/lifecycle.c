/* lifecycle.c — see lifecycle.h. */
#include "lifecycle.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/inrun_mpi.h"
#include "../clc/clc_mpi.h"
#include "../util/mem.h"
#include "../clock/sync.h"
#include "../clock/tsc.h"
#include "../clock/timer.h"
#include "../config/config.h"
#include "../omp/omp.h"
#include "../model/trace_check.h"
#include "../otf2/writer.h"
#include "../util/archive_dir.h"
#include "../util/log.h"
#include "abend.h"
#include "archive_mpi.h"
#include "callsite.h"
#include "comm.h"
#include "../exchange/polite_mpi.h"
#include "st_mpi.h"

volatile int st_mpi_tracing;
MPI_Comm st_tool_comm = MPI_COMM_NULL;
char st_archive_dir[4096];

static int mpi_started;        /* PMPI_Init returned successfully */
static int mpi_finished;       /* our MPI_Finalize ran (or the run was aborted) */
static volatile sig_atomic_t ending; /* an end path (normal or abnormal) has begun */
static volatile sig_atomic_t forked; /* this is a child of fork() without exec: it records nothing */

/* ---- configuration at load ------------------------------------------------------------ */

/* Rank as the launcher tells it (MPICH hydra: PMI_RANK), -1 if unknown. */
static int launcher_rank(void)
{
    const char *r = getenv("PMI_RANK");
    if (!r)
        r = getenv("OMPI_COMM_WORLD_RANK");
    return r ? atoi(r) : -1;
}

/* Number of ranks as the launcher tells it, 0 if unknown. */
static int launcher_size(void)
{
    const char *n = getenv("PMI_SIZE");
    if (!n)
        n = getenv("OMPI_COMM_WORLD_SIZE");
    return n ? atoi(n) : 0;
}

static void config_failure(const char *msg)
{
    if (launcher_rank() <= 0) /* one line for the whole job, not one per rank */
        st_log_error("%s", msg);
    _exit(2);
}

static void install_handlers(void);
static void reinstall_fault_handlers(void);

/* A child of fork() without exec shares the parent's buffers, spill files and archive:
 * it must record nothing, write nothing, print nothing and leave at once. */
static void forked_child(void)
{
    forked = 1;
    st_mpi_tracing = 0;
    st_record_stop();
    st_thread_tls = NULL;
    st_abend_forget();
}

__attribute__((constructor)) static void st_shim_load(void)
{
    char err[600];
    if (st_config_load(err, sizeof err) != 0)
        config_failure(err);
    if (st_clock_parse_spec(st_config.sync, err, sizeof err) != 0)
        config_failure(err);
    if (!st_config.enable)
        return;
    st_log_set_verbosity((int)st_config.verbose);
    st_timer_init(st_config.clock, st_config.timer);
    st_mpi_callsite_on = st_config.callsite;
    st_callpath_on = st_config.callpath;
    st_mpi_p2p_init();
    st_record_active = 1;
    st_abend_init_load(launcher_rank(), launcher_size());
    install_handlers();
    const char *omp_problem = st_config.omp ? st_omp_runtime_problem() : NULL;
    if (omp_problem && launcher_rank() <= 0)
        st_log_warn("%s", omp_problem);
    pthread_atfork(NULL, NULL, forked_child);
}

/* ---- MPI_Init -------------------------------------------------------------------------- */

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
    mpi_started = 1;
    if (!st_record_active)
        return;
    reinstall_fault_handlers();
    MPI_Request dup; /* Idup + polite wait: a blocking dup busy-polls for ~60 ms on oversubscribed cores */
    if (PMPI_Comm_idup(MPI_COMM_WORLD, &st_tool_comm, &dup) != MPI_SUCCESS || st_polite_wait(&dup, NULL) != MPI_SUCCESS) {
        st_log_error("cannot create the tool's communicator; the application runs untraced");
        st_record_stop();
        st_abend_disarm(); /* untraced: nothing to save at an abnormal end either */
        return;
    }
    st_comm_init();
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
    st_abend_init_mpi(st_tool_comm, st_archive_dir);
    st_mpi_tracing = 1;
}

static int init_common(int *argc, char ***argv, int required, int *provided, int thread)
{
    st_thread_t *th = st_record_active ? st_thread_self() : NULL;
    st_region_t region = thread ? ST_REGION_MPI_Init_thread : ST_REGION_MPI_Init;
    if (th) {
        th->in_tool = 1;
        st_mpi_enter(th, region);
    }
    int rc = thread ? PMPI_Init_thread(argc, argv, required, provided) : PMPI_Init(argc, argv);
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

ST_EXPORT int MPI_Init(int *argc, char ***argv)
{
    return init_common(argc, argv, MPI_THREAD_SINGLE, NULL, 0);
}

ST_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return init_common(argc, argv, required, provided, 1);
}

/* ---- collecting this rank's data --------------------------------------------------------- */

static void copy_comms(st_rankdata_t *rd)
{
    uint32_t n;
    st_comm_t **all = st_comm_all(&n);
    rd->comms = calloc(n ? n : 1, sizeof *rd->comms);
    if (!rd->comms)
        return;
    for (uint32_t i = 0; i < n; i++) {
        st_comm_def_t *d = &rd->comms[i];
        *d = all[i]->def;
        d->world = malloc(sizeof(int32_t) * (d->size ? d->size : 1));
        d->remote_world = d->remote_size ? malloc(sizeof(int32_t) * d->remote_size) : NULL;
        if (d->world)
            memcpy(d->world, all[i]->def.world, sizeof(int32_t) * d->size);
        if (d->remote_world)
            memcpy(d->remote_world, all[i]->def.remote_world, sizeof(int32_t) * d->remote_size);
    }
    rd->ncomms = n;
}

int st_collect_rankdata(st_rankdata_t *rd, int incomplete)
{
    memset(rd, 0, sizeof *rd);
    rd->rank = st_world_rank >= 0 ? st_world_rank : 0;
    rd->nranks = st_world_size > 0 ? st_world_size : 1;
    rd->pid = (int32_t)getpid();
    rd->flags = (incomplete ? ST_RANKF_INCOMPLETE : 0) | (mpi_started ? 0 : ST_RANKF_NO_MPI);
    gethostname(rd->hostname, sizeof rd->hostname - 1);
    if (st_config.node_size > 0)
        snprintf(rd->nodename, sizeof rd->nodename, "node%lu", (unsigned long)(rd->rank / st_config.node_size));
    else
        memcpy(rd->nodename, rd->hostname, sizeof rd->nodename);
    rd->timer_resolution = 1000000000u;
    size_t nth;
    st_thread_t **threads = st_record_threads(&nth);
    rd->threads = calloc(nth ? nth : 1, sizeof *rd->threads);
    if (!rd->threads)
        return -1;
    rd->t_begin = UINT64_MAX;
    uint64_t lost = 0;
    for (size_t i = 0; i < nth; i++) {
        lost += threads[i]->lost;
        st_thread_data_t *td = &rd->threads[rd->nthreads];
        size_t n = 0;
        td->index = threads[i]->index;
        td->omp_num = threads[i]->omp_thread_num;
        td->flushes = threads[i]->flushes;
        td->events = st_record_load(threads[i], &n);
        td->nevents = n;
        if (n) {
            if (td->events[0].time < rd->t_begin)
                rd->t_begin = td->events[0].time;
            if (td->events[n - 1].time > rd->t_end)
                rd->t_end = td->events[n - 1].time;
        }
        rd->nthreads++;
    }
    if (rd->t_begin == UINT64_MAX)
        rd->t_begin = 0;
    copy_comms(rd);
    if (lost) { /* full buffers could not be spilled: say how much is missing */
        rd->flags |= ST_RANKF_INCOMPLETE;
        st_rankdata_prop(rd, "EVENTS_LOST", "%llu", (unsigned long long)lost);
        incomplete = 1;
    }
    st_run_props(rd, incomplete);
    return 0;
}

void st_run_props(st_rankdata_t *rd, int incomplete)
{
    st_rankdata_prop(rd, "VERSION", "%s", "0.1.0");
    st_rankdata_prop(rd, "INCOMPLETE", "%s", incomplete ? "true" : "false");
    st_rankdata_prop(rd, "BUFFER", "%zu", st_config.buffer);
}

/* ---- MPI_Finalize ------------------------------------------------------------------------ */

/*
 * Finalize allocates and frees arrays of the order of the trace (CLC, the writer). glibc
 * serves large blocks by mmap and unmaps them on free, so each new array costs fresh page
 * faults (1-4 us per page in a VM; more than the work on the data). While finalize
 * runs, large blocks come from the heap and stay there, so later arrays reuse the pages;
 * afterwards the defaults are back and the memory is returned.
 */
static void heap_reuse(int on)
{
    mallopt(M_MMAP_THRESHOLD, on ? 32 << 20 : 128 << 10);
    mallopt(M_TRIM_THRESHOLD, on ? 1 << 30 : 128 << 10);
    if (!on)
        malloc_trim(0);
}

/*
 * The unused tails of the threads' event buffers (populated at registration, idle once
 * recording has stopped and the events are loaded) become the correction's memory, so
 * that it takes no page faults while they last (util/mem.h). A guard of 64 events after
 * the last one stays untouched.
 */
static void lend_idle_buffers(void)
{
    enum { GUARD = 64 };
    void *base[ST_MEM_REGIONS];
    size_t len[ST_MEM_REGIONS], nth;
    int n = 0;
    st_thread_t **threads = st_record_threads(&nth);
    for (size_t i = 0; i < nth && n < ST_MEM_REGIONS; i++) {
        const st_thread_t *th = threads[i];
        if (th->buf && th->cap > th->pos + GUARD) {
            base[n] = th->buf + th->pos + GUARD;
            len[n++] = (th->cap - th->pos - GUARD) * sizeof(st_event_t);
        }
    }
    st_mem_lend(base, len, n);
}

static void return_idle_buffers(void)
{
    st_log_debug("CLC: %zu bytes of idle event buffers used", st_mem_return());
}

/* The call tree (SYNCTRACE_CALLPATH) into rd, then the texts of call sites and call-path frames. */
static void collect_callpaths(st_rankdata_t *rd)
{
    if (st_config.callpath && st_callpath_collect(rd) != 0)
        st_log_error("out of memory copying the call paths; the archive has none");
    if (st_config.callsite || rd->ncpnodes)
        st_callsite_resolve(rd);
}

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/*
 * Where MPI_Finalize's time goes, on rank 0 (SYNCTRACE_VERBOSE>=1; tests/bench reads it).
 * The write cannot be an archive property: it ends after the archive is closed. Its
 * last step is an agreement of all ranks, so rank 0's write time covers every rank's.
 */
static void report_finalize(const double *t, int written)
{
    if (st_world_rank == 0 && written)
        st_log_info("MPI_Finalize: sync %.1f ms, trace preparation %.1f ms, CLC %.1f ms, wait-state analysis %.1f ms, "
                    "archive write %.1f ms",
                    t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4]);
}

static void finish_and_write(void)
{
    st_rankdata_t rd;
    double t[6];
    t[0] = mono_ms();
    st_polite_doing("the clock synchronization at MPI_Finalize");
    st_clock_finalize_sync();
    st_polite_doing("preparing the trace at MPI_Finalize");
    t[1] = mono_ms();
    if (st_collect_rankdata(&rd, 0) != 0) {
        st_log_error("out of memory collecting the trace; no archive written");
        return;
    }
    heap_reuse(1);
    st_clock_remap_rankdata(&rd);
    st_clock_report(&rd);
    collect_callpaths(&rd);
    st_otf2_prepare(&rd); /* once, for CLC and the writer */
    lend_idle_buffers();
    t[2] = mono_ms();
    st_polite_doing("the CLC correction at MPI_Finalize");
    st_rel_derived_t derived = { 0 }; /* CLC's logical messages, which the analysis takes instead of deriving them */
    st_clc_run_mpi(st_tool_comm, &rd, st_config.analyze == ST_ANALYZE_ON ? &derived : NULL);
    t[3] = mono_ms();
    st_an_inrun_t analysis;
    st_polite_doing("the wait-state analysis at MPI_Finalize");
    st_an_inrun_run(st_tool_comm, &rd, &derived, &analysis); /* after CLC: the archive's timestamps; idle buffers still lent */
    st_rel_derived_free(&derived);
    return_idle_buffers();
    if (st_config.check)
        st_rankdata_prop(&rd, "TRACE_CHECK_PROBLEMS", "%zu", st_trace_check(&rd));
    t[4] = mono_ms();
    st_polite_doing("writing the archive at MPI_Finalize");
    int rc = st_archive_write_mpi(st_tool_comm, &rd, st_archive_dir);
    /* From here on a signal finds either an archive or its reported failure. (A signal during
     * the write's closing agreement, when the archive is already complete, still dumps: then
     * both are there, and `synctrace recover` says so.) */
    st_abend_disarm();
    t[5] = mono_ms();
    report_finalize(t, rc == 0);
    if (rc == 0 && st_world_rank == 0)
        st_log_info("archive written to %s/traces.otf2", st_archive_dir);
    st_an_inrun_report(&analysis, st_archive_dir, rc == 0);
    st_polite_doing(NULL);
    st_rankdata_free(&rd);
    heap_reuse(0);
}

ST_EXPORT int MPI_Finalize(void)
{
    st_thread_t *th = st_mpi_begin();
    if (th) {
        st_mpi_enter(th, ST_REGION_MPI_Finalize);
        st_polite_barrier(st_tool_comm); /* the N-to-N synchronization of Finalize */
        st_mpi_leave(th, ST_REGION_MPI_Finalize);
        st_mpi_end(th);
    }
    int tracing = st_mpi_tracing;
    st_mpi_tracing = 0;
    ending = 1;
    mpi_finished = 1;
    if (tracing) {
        st_omp_finalize();
        st_record_stop();
        finish_and_write(); /* a signal meanwhile dumps the raw data (abend.h) */
    }
    st_abend_disarm();
    st_record_stop();
    if (st_tool_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&st_tool_comm);
    return PMPI_Finalize();
}

/* ---- abnormal ends ----------------------------------------------------------------------- */

/* Outside handlers (MPI_Abort, exit): dump, have this host's other ranks dump, wait for them
 * before the launcher kills them (abend.h). */
static void abnormal_end(const char *why)
{
    if (ending)
        return;
    ending = 1;
    st_abend_dump(why);
    st_abend_notify(why);
    st_abend_wait(0, why);
}

ST_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    st_thread_t *th = st_mpi_begin();
    if (th) {
        st_mpi_enter(th, ST_REGION_MPI_Abort);
        st_mpi_end(th);
    }
    abnormal_end("MPI_Abort");
    return PMPI_Abort(comm, errorcode);
}

/* Programs that never called MPI_Init (OpenMP only): a single-process archive at exit
 * (a signal leaves a dump instead: abend.h). */
static void write_without_mpi(int incomplete)
{
    st_abend_disarm(); /* not in a handler: the complete archive is written instead */
    size_t nth;
    st_record_threads(&nth);
    if (!nth)
        return;
    st_omp_finalize();
    st_record_stop();
    char err[600];
    if (st_archive_dir_prepare(st_config.dir, st_archive_dir, sizeof st_archive_dir, err, sizeof err) != 0) {
        st_log_error("%s; no archive written", err);
        return;
    }
    st_tsc_point(); /* the TSC's last calibration point (no sync without MPI) */
    st_rankdata_t rd;
    if (st_collect_rankdata(&rd, incomplete) != 0)
        return;
    heap_reuse(1);
    st_clock_remap_rankdata(&rd); /* without MPI only the TSC correction */
    st_clock_report_timer(&rd);
    collect_callpaths(&rd);
    st_otf2_prepare(&rd);
    lend_idle_buffers();
    st_clc_run_local(&rd);
    return_idle_buffers();
    if (st_config.check)
        st_rankdata_prop(&rd, "TRACE_CHECK_PROBLEMS", "%zu", st_trace_check(&rd));
    if (st_otf2_write_serial(st_archive_dir, &rd, 1, incomplete ? ST_OTF2_INCOMPLETE : 0) == 0)
        st_log_info("archive written to %s/traces.otf2", st_archive_dir);
    st_rankdata_free(&rd);
    heap_reuse(0);
}

static void at_exit(void)
{
    if (ending || forked || !st_config.enable)
        return;
    if (mpi_started && !mpi_finished) {
        abnormal_end("exit without MPI_Finalize");
    } else if (!mpi_started && st_record_active) {
        ending = 1;
        write_without_mpi(0);
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
    if (!forked) {
        ending = 1;
        st_abend_dump(names[sig]); /* nothing once the run ended normally (disarmed) */
        if (mpi_started) {
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
static void install_handlers(void)
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
static void reinstall_fault_handlers(void)
{
    for (size_t i = 0; i < NSIGNALS; i++)
        if (is_fault(fatal_signals[i]) || fatal_signals[i] == SIGABRT)
            take_signal(i);
}
