/* phases.c — the end of a traced run timed phase by phase (phases.h). */
#include "phases.h"

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "../util/clockread.h"
#include "../util/log.h"

st_lc_probe_t st_lc_probe(void)
{
    struct rusage ru;
    st_lc_probe_t p = { st_clock_ms(CLOCK_MONOTONIC), 0, 0 };
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        p.cpu_ms = (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec * 1e-3 +
                   (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec * 1e-3;
        p.faults = ru.ru_minflt;
    }
    return p;
}

#define CPU_DIFF(p, a, b) (p)[b].cpu_ms - (p)[a].cpu_ms, (p)[b].faults - (p)[a].faults

void st_lc_report_preparation(const st_lc_probe_t *p, const st_rankdata_t *rd)
{
    st_log_debug("trace preparation: %llu events; CPU ms (page faults): load %.1f (%ld), remap %.1f (%ld), "
                 "call paths %.1f (%ld), prepare %.1f (%ld)",
                 (unsigned long long)st_rankdata_nevents(rd), CPU_DIFF(p, 0, 1), CPU_DIFF(p, 1, 2),
                 CPU_DIFF(p, 2, 3), CPU_DIFF(p, 3, 4));
}

void st_lc_report_phases(const char *what, int with_sync, const st_lc_probe_t *p, const st_rankdata_t *rd, int info)
{
    char sync[64] = "", sync_cpu[64] = "";
    if (with_sync) {
        snprintf(sync, sizeof sync, "sync %.1f ms, ", p[1].ms - p[0].ms);
        snprintf(sync_cpu, sizeof sync_cpu, "sync %.1f (%ld), ", CPU_DIFF(p, 0, 1));
    }
    if (info) /* The write's last step is an agreement of all ranks: rank 0's write covers every rank's. */
        st_log_info("%s: %strace preparation %.1f ms, CLC %.1f ms, wait-state analysis %.1f ms, archive write %.1f ms, "
                    "report %.1f ms",
                    what, sync, p[2].ms - p[1].ms, p[3].ms - p[2].ms, p[4].ms - p[3].ms, p[5].ms - p[4].ms,
                    p[6].ms - p[5].ms);
    st_log_debug("%s: %llu events; this thread's CPU ms (page faults): %strace preparation %.1f (%ld), CLC %.1f (%ld), "
                 "wait-state analysis %.1f (%ld), archive write %.1f (%ld), report %.1f (%ld)",
                 what, (unsigned long long)st_rankdata_nevents(rd), sync_cpu, CPU_DIFF(p, 1, 2), CPU_DIFF(p, 2, 3),
                 CPU_DIFF(p, 3, 4), CPU_DIFF(p, 4, 5), CPU_DIFF(p, 5, 6));
}
