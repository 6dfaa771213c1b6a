/*
 * bench.h — synctrace-bench: latency of MPI collectives measured on synctrace's global clock.
 *
 * The program runs with libsynctrace.so preloaded and SYNCTRACE_RECORD=0 (main.c re-executes
 * itself so): MPI_Init synchronizes the clocks with any SYNCTRACE_SYNC scheme, nothing is traced
 * and no archive is written. Every MPI call of the bench goes to PMPI_* directly, so no wrapper
 * sits in the measured path. Tool traffic (start times, flags) waits politely (Test + yield).
 *
 * Modules: options.c (command line), ops.c (the operations), clock.c (global clock, polite
 * waits, accuracy check), roundtime.c (paper Alg. 5 and barrier imbalance), barrier.c (the
 * OSU/IMB scheme), stats.c (summaries), report.c (table, JSON, CSV), main.c (the run).
 */
#ifndef ST_BENCH_H
#define ST_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef BENCH_VERSION
#define BENCH_VERSION "unknown" /* the Makefile passes its VERSION */
#endif

/* ---- operations (ops.c) ------------------------------------------------------------------- */

typedef enum {
    BENCH_ALLREDUCE, BENCH_BCAST, BENCH_REDUCE, BENCH_ALLGATHER, BENCH_ALLTOALL, BENCH_GATHER,
    BENCH_SCATTER, BENCH_REDUCE_SCATTER_BLOCK, BENCH_SCAN, BENCH_BARRIER, BENCH_NOPS
} bench_op_id_t;

typedef struct bench_op {
    const char *name;   /* as on the command line */
    int reduces;        /* MPI_DOUBLE with MPI_SUM; otherwise MPI_BYTE */
    int sized;          /* 0: MPI_Barrier, no message */
} bench_op_t;

extern const bench_op_t bench_ops[BENCH_NOPS];

/* One operation at one size, with its buffers (bench_call_prepare / bench_call_free). */
typedef struct bench_call {
    bench_op_id_t op;
    MPI_Datatype type;
    int count;          /* elements per rank (per block for the gathers, scatters and alltoall) */
    size_t bytes;       /* count * element size: the size reported */
    void *sbuf, *rbuf;
    MPI_Comm comm;
} bench_call_t;

/* Index of the operation named name, or -1. */
int bench_op_find(const char *name);

/* Buffers for op with messages of about bytes (rounded down to whole elements, at least one).
   0, or -1 when out of memory. Not collective. */
int bench_call_prepare(bench_call_t *c, bench_op_id_t op, size_t bytes, MPI_Comm comm);
void bench_call_free(bench_call_t *c);

/* Runs the operation once (blocking PMPI call, root 0). Collective over c->comm. */
int bench_call_run(const bench_call_t *c);

/* ---- options (options.c) ------------------------------------------------------------------ */

enum { BENCH_SCHEME_ROUNDTIME = 1, BENCH_SCHEME_BARRIER = 2, BENCH_SCHEME_BOTH = 3 };

typedef struct bench_opts {
    int ops[BENCH_NOPS];     /* operation ids in the order given */
    int nops;
    size_t *sizes;           /* bytes, ascending as given */
    int nsizes;
    double slice;            /* seconds per operation, size and scheme */
    int scheme;              /* BENCH_SCHEME_* */
    int imbalance;           /* --barrier-imbalance */
    double margin;           /* B of Alg. 5: start = now + B * Bcast latency */
    double tolerance_us;     /* a rank starting later than start + this is late */
    long max_rounds;         /* per slice */
    const char *json, *csv;
    int delay_rank;          /* hidden test option: this rank arrives late ... */
    double delay_us;         /* ... by this much (-1: never) ... */
    int delay_period;        /* ... in the last round of every period (2: every other round) */
} bench_opts_t;

/* Parses argv into o. 0: run; 1: done (help or version printed to out, unless NULL); -1: error,
   one line in err. Not collective; every rank parses the same arguments. */
int bench_parse_options(int argc, char **argv, bench_opts_t *o, FILE *out, char *err, size_t errlen);
void bench_free_options(bench_opts_t *o);

/* ---- the global clock and polite MPI (clock.c) -------------------------------------------- */

/* Nanoseconds on synctrace's global clock (synctrace_global_time_ns). */
uint64_t bench_now(void);

/* Waits until the global clock reaches t, sleeping while far and yielding when near. Returns 1
   if t had already passed on the first look (the caller is late), else 0; the caller compares
   its own start with t for a late wake-up. */
int bench_wait_until(uint64_t t);

/* Nonblocking collectives waited with Test + sched_yield. Collective over comm. */
int bench_polite_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int bench_polite_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/* Seconds since begin on the global clock, max over the ranks of comm. Collective. */
double bench_elapsed_max(uint64_t begin, MPI_Comm comm);

/* Accuracy estimate of the global clock: max over ranks of |offset to rank 0's global clock|
   (ns), each offset from the fastest of several ping-pongs (paper Alg. 6), and how far such a
   measurement can be off: the largest half round trip of those fastest ping-pongs (a loaded
   machine's slow ping-pongs make offsets of 0 read as hundreds of us). Collective; the result
   is valid on every rank. */
typedef struct bench_offset {
    double offset_ns, bound_ns;
} bench_offset_t;
bench_offset_t bench_clock_offset_max(MPI_Comm comm);

/* ---- figures (stats.c) --------------------------------------------------------------------- */

/* A growing list of latencies (ns). */
typedef struct bench_series {
    double *v;
    size_t n, cap;
} bench_series_t;

int bench_series_add(bench_series_t *s, double x);
void bench_series_free(bench_series_t *s);

typedef struct bench_summary {
    size_t n;
    double min, median, mean, max;   /* ns; zero when n == 0 */
} bench_summary_t;

/* Summary of s (sorts s->v in place). */
bench_summary_t bench_summarize(bench_series_t *s);

/* ---- the schemes (roundtime.c, barrier.c) --------------------------------------------------- */

typedef struct bench_result {
    const char *scheme;        /* "roundtime", "barrier" or "barrier-imbalance" */
    bench_summary_t lat;       /* per round (Round-Time), per batch (barrier), spread (imbalance) */
    size_t valid, invalid;     /* rounds (Round-Time, imbalance); batches in valid (barrier) */
    long reps;                 /* barrier: calls per batch; Round-Time: 1 */
    double slice_used;         /* seconds */
    double margin_ns;          /* Round-Time: the start margin at the end of the slice; 0 otherwise */
} bench_result_t;

typedef struct bench_ctx {
    MPI_Comm comm;
    int rank, size;
    const bench_opts_t *opts;
    double margin_ns;          /* B * Bcast latency, measured once (bench_estimate_margin) */
} bench_ctx_t;

/* Measures the latency of a polite Bcast of the start time and sets ctx->margin_ns. Collective. */
void bench_estimate_margin(bench_ctx_t *ctx);

/* Round-Time (paper Alg. 5) for one call; the result is valid on every rank. Collective. With
   exit_spread, the figure is the spread of the ranks' exit times (max - min) instead of the
   latency (max end - min start): --barrier-imbalance. */
int bench_roundtime(const bench_ctx_t *ctx, const bench_call_t *c, int exit_spread, bench_result_t *r);

/* Barrier scheme as OSU/IMB: batches of (MPI_Barrier; n calls timed) until the slice is used;
   the figure of a batch is the mean time per call, max over ranks. Collective. */
int bench_barrier_scheme(const bench_ctx_t *ctx, const bench_call_t *c, bench_result_t *r);

/* ---- output (report.c) --------------------------------------------------------------------- */

typedef struct bench_meta {
    int ranks, nodes;
    int ranks_per_node;        /* the most on one node */
    int cores_per_node;        /* the fewest online cores of a node */
    char sync[512];            /* SYNCTRACE_SYNC in effect */
    bench_offset_t offset_start; /* bench_clock_offset_max after the sync, and at the end */
    bench_offset_t offset_end;
    double margin_ns;
    double slice;
    char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
    char host[256];
    char date[32];             /* ISO 8601 UTC, start of the run */
} bench_meta_t;

typedef struct bench_row {
    const char *op;
    const char *dtype;
    size_t bytes;
    bench_result_t res;
} bench_row_t;

void bench_print_header(FILE *out, const bench_meta_t *m, int scheme);
/* One line per row; rows[0..n) are the schemes of one operation and size. */
void bench_print_rows(FILE *out, const bench_row_t *rows, int n, int scheme);
void bench_print_footer(FILE *out, const bench_meta_t *m);
int bench_write_json(const char *path, const bench_meta_t *m, const bench_row_t *rows, size_t n);
int bench_write_csv(const char *path, const bench_meta_t *m, const bench_row_t *rows, size_t n);

#endif
