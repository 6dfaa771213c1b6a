/* load.c — the library constructor: configuration, clock, recording, signal handlers (lifecycle.h). */
#include "lifecycle_int.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "../clock/sync.h"
#include "../clock/timer.h"
#include "../config/config.h"
#include "../omp/omp.h"
#include "../util/log.h"
#include "abend.h"
#include "callsite.h"
#include "pairing.h"
#include "st_mpi.h"

int st_lc_mpi_started;
int st_lc_mpi_finished;
volatile sig_atomic_t st_lc_ending;
volatile sig_atomic_t st_lc_forked;

static void config_failure(const char *msg)
{
    if (st_config_launcher_rank() <= 0) /* one line for the whole job, not one per rank */
        st_log_error("%s", msg);
    st_config_job_error_wait();
    _exit(2);
}

/* A child of fork() without exec shares the parent's buffers, spill files and archive:
 * it must record nothing, write nothing, print nothing and leave at once. */
static void forked_child(void)
{
    st_lc_forked = 1;
    st_mpi_tracing = 0;
    st_record_stop();
    st_thread_tls = NULL;
    st_abend_forget();
}

/* glibc hands ELF constructors the program's argc, argv and environment. */
__attribute__((constructor)) static void st_shim_load(int argc, char **argv, char **envp)
{
    (void)argc, (void)envp;
    st_pairing_at_load(argv); /* the other MPI family's program: runs untraced, this does not return */
    char err[1000], msg[1100];
    if (st_config_load(err, sizeof err) != 0)
        config_failure(err);
    if (st_clock_parse_spec(st_config.sync, err, sizeof err) != 0)
        config_failure(err);
    /* the filter, before any thread registers (their counters are made then) */
    if (st_config.filter[0] && st_filter_read(&st_record_filter, st_config.filter, err, sizeof err) != 0) {
        snprintf(msg, sizeof msg, "SYNCTRACE_FILTER: %s", err);
        config_failure(msg);
    }
    if (!st_config.enable)
        return;
    st_log_set_verbosity((int)st_config.verbose);
    if (st_config.filter[0] && st_config_launcher_rank() <= 0)
        st_log_info("filter %s: the calls of %u regions are counted, not recorded", st_config.filter,
                    st_record_filter.n_excluded);
    st_timer_init(st_config.clock, st_config.timer);
    st_mpi_callsite_on = st_config.callsite;
    st_callpath_on = st_config.callpath;
    st_mpi_p2p_init();
    st_record_active = 1;
    st_abend_init_load(st_config_launcher_rank(), st_config_launcher_size());
    st_lc_install_handlers();
    if (st_config.omp)
        st_omp_runtime_notice(0, st_config_launcher_rank() <= 0);
    pthread_atfork(NULL, NULL, forked_child);
}
