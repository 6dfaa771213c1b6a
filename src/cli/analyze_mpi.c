/*
 * analyze_mpi.c — `mpiexec -n N synctrace analyze DIR [-o FILE]` (analyze.h): N processes
 * analyse contiguous blocks of the archive's ranks with the in-run analysis's parallel code
 * (src/analysis/parallel_mpi.h); process 0 writes the report like the serial command.
 * Each process reads the definitions and the event files of its own ranks only (OTF2 selects
 * the locations to read); the other ranks' locations stay empty.
 * Built into the plugin of each MPI family (lib/<family>/synctrace-analyze-mpi.so), which
 * bin/synctrace loads under a launcher (analyze_plugin.c); the rest comes from the executable.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/parallel_mpi.h"
#include "../clc/clc.h"
#include "../exchange/exchange_mpi.h"
#include "../exchange/polite_mpi.h"
#include "analyze.h"
#include "../util/clockread.h"

/* 1 on every process if ok is on every process. */
static int all(int ok)
{
    int r = 0;
    return MPI_Allreduce(&ok, &r, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS && r;
}

/* The process that analyses rank r of nranks: contiguous blocks in rank order, so that the parts
   merge into the archive's location order. */
static int block_owner(int32_t r, int np, int32_t nranks)
{
    return (int)((int64_t)r * np / nranks);
}

typedef struct pick_ctx {
    int me, np;
} pick_ctx_t;

/* Whether this process reads rank's events; nranks as st_cli_convert counts them (highest rank + 1). */
static int pick_mine(const st_cli_archive_t *ar, int32_t rank, void *ctx)
{
    const pick_ctx_t *p = ctx;
    int32_t nranks = ar->nlocs ? ar->locs[ar->nlocs - 1].rank + 1 : 0; /* locations sorted by rank */
    return nranks >= p->np && block_owner(rank, p->np, nranks) == p->me;
}

int st_cli_analyze_mpi(const char *dir, const char *out)
{
    int me = 0, np = 0, rc = 1;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "synctrace: analyze: MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    st_cli_archive_t ar;
    st_cli_ranks_t rk = { 0 };
    st_rel_input_t in = { 0 };
    char err[300] = "";
    pick_ctx_t pick = { .me = me, .np = np };
    int opened = st_cli_open_ranks(dir, &ar, pick_mine, &pick) == 0;
    int ok = opened && st_cli_convert(&ar, ST_CLI_CONV_CHECK, &rk, err, sizeof err) == 0;
    if (ok && err[0] == 0 && rk.nranks < np)
        snprintf(err, sizeof err, "%d processes for an archive of %d ranks: run at most %d", np, (int)rk.nranks,
                 (int)rk.nranks);
    int32_t *owner = ok ? malloc(sizeof *owner * (size_t)(rk.nranks + 1)) : NULL;
    ok = ok && owner && rk.nranks >= np;
    int32_t first = -1, count = 0;
    for (int32_t r = 0; ok && r < rk.nranks; r++) {
        owner[r] = block_owner(r, np, rk.nranks);
        if (owner[r] == me)
            first = first < 0 ? r : first, count++;
    }
    ok = ok && st_rel_input_from_rankdata(rk.rd + first, count, &in) == 0;
    int crowded = st_polite_crowded(MPI_COMM_WORLD);
    ok = all(ok) && st_an_par_locks_mpi(MPI_COMM_WORLD, &in, crowded) == 0;
    if (!ok) {
        if (me == 0)
            fprintf(stderr, "synctrace: cannot analyse archive %s in parallel: %s\n", dir,
                    err[0] ? err : "see above");
    } else {
        in.sync = st_rel_sync_regions, in.nsync = ST_REL_NSYNC;
        st_an_result_t res;
        uint64_t nev = 0, total = 0;
        for (uint32_t l = 0; l < in.nlocs; l++)
            nev += in.locs[l].n;
        MPI_Reduce(&nev, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        double t0 = st_clock_ms(CLOCK_MONOTONIC);
        int prc = st_an_par_run_mpi(MPI_COMM_WORLD, &in, NULL, owner, crowded, &res);
        st_xmpi_release();
        double ms = st_clock_ms(CLOCK_MONOTONIC) - t0;
        if (prc == 0 && me == 0) {
            rc = st_cli_analysis_check(&ar, &res) ? 1 : st_cli_analysis_report(dir, &ar, &res, out);
            if (rc == 0)
                printf("analysis of %llu events: %.1f ms, in parallel over %d processes\n", (unsigned long long)total,
                       ms, np);
            st_an_free(&res);
        } else if (prc == 0) {
            rc = 0;
        }
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    st_rel_input_free(&in);
    free(owner);
    st_cli_ranks_free(&rk);
    if (opened)
        st_cli_archive_free(&ar);
    MPI_Finalize();
    return rc;
}
