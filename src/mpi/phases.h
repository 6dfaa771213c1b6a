/*
 * phases.h — where the end of a traced run spends its time: MPI_Finalize's phases and, in a
 * program that never called MPI_Init, the exit's, taken and printed the same way (lifecycle).
 * SYNCTRACE_VERBOSE=1: one line of wall ms per phase (rank 0; tests/bench read it);
 * SYNCTRACE_VERBOSE=2: each rank's CPU ms and page faults per phase and per preparation step.
 */
#ifndef ST_LC_PHASES_H
#define ST_LC_PHASES_H

#include "../model/rankdata.h"

/* The moment a phase ends (and the next begins): wall ms, this thread's CPU ms, its minor page faults. */
typedef struct st_lc_probe {
    double ms, cpu_ms;
    long   faults;
} st_lc_probe_t;

st_lc_probe_t st_lc_probe(void);

/* The preparation's steps: p[0] before loading, p[1] loaded, p[2] remapped, p[3] call paths, p[4] prepared. */
void st_lc_report_preparation(const st_lc_probe_t *p, const st_rankdata_t *rd);

/* The phases between p[0] .. p[6]: sync, trace preparation, CLC, wait-state analysis, archive write, report.
 * what: "MPI_Finalize" or "exit"; with_sync: the first phase is a clock synchronization (else it is left out
 * of the lines). info: print the wall line (rank 0, the archive written). */
void st_lc_report_phases(const char *what, int with_sync, const st_lc_probe_t *p, const st_rankdata_t *rd, int info);

#endif
