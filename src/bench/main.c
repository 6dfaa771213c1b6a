/*
 * main.c — synctrace-bench: options, the preloaded clock library, the run over operations and
 * sizes, and the output on rank 0.
 *
 * Not tracing the benchmark: the program re-executes itself once with the library of its MPI family
 * (found beside it: bin/../lib/BENCH_LIB) appended to LD_PRELOAD and SYNCTRACE_RECORD=0, so that MPI_Init runs the
 * library's clock sync but nothing is recorded and no archive is written; the measured calls go
 * to PMPI_* directly, past the wrappers.
 */
#include "bench.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../config/config.h"
#include "synctrace.h"

#define REEXEC_MARK "ST_BENCH_PRELOADED" /* not SYNCTRACE_*: the library rejects unknown names */

/* The library to preload, relative to bin/../lib: the build of the MPI family this program was
 * compiled for (the Makefile builds one synctrace-bench per family and sets "<fam>/libsynctrace.so"). */
#ifndef BENCH_LIB
#define BENCH_LIB "libsynctrace.so"
#endif

static void die(const char *fmt, const char *arg)
{
    if (st_config_launcher_rank() <= 0) { /* one line per job, not per rank */
        fprintf(stderr, "synctrace-bench: error: ");
        fprintf(stderr, fmt, arg);
        fputc('\n', stderr);
    }
    st_config_job_error_wait();
    exit(2);
}

/* Re-executes this program with the library preloaded and recording off, unless that is the case. */
static void preload_clock_library(char **argv)
{
    const char *rec = getenv("SYNCTRACE_RECORD");
    if (SYNCTRACE_LOADED() && rec && strcmp(rec, "0") == 0)
        return;
    if (getenv(REEXEC_MARK))
        die("%s", "libsynctrace.so did not load (is LD_PRELOAD overridden?)");
    char exe[PATH_MAX], lib[PATH_MAX + 32], preload[3 * PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        die("%s", "cannot find this program's path (/proc/self/exe)");
    exe[n] = 0;
    snprintf(lib, sizeof lib, "%s/../lib/" BENCH_LIB, dirname(exe));
    if (access(lib, R_OK) != 0)
        die("%s not found (build with make, or reinstall synctrace)", lib);
    const char *cur = getenv("LD_PRELOAD");
    if (cur && strstr(cur, "libsynctrace.so"))
        snprintf(preload, sizeof preload, "%s", cur);
    else
        snprintf(preload, sizeof preload, "%s%s%s", cur && *cur ? cur : "", cur && *cur ? ":" : "", lib);
    setenv("LD_PRELOAD", preload, 1);
    setenv("SYNCTRACE_RECORD", "0", 1);
    setenv(REEXEC_MARK, "1", 1);
    execv("/proc/self/exe", argv);
    die("cannot re-execute with the library preloaded: %s", exe);
}

/* ---- metadata ------------------------------------------------------------------------------- */

/* Nodes, the most ranks on one node and the fewest online cores of a node. Collective. */
static void count_nodes(MPI_Comm comm, bench_meta_t *m)
{
    MPI_Comm node;
    int local = 0, size = 1;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        PMPI_Comm_rank(node, &local);
        PMPI_Comm_size(node, &size);
        PMPI_Comm_free(&node);
    }
    int mine[3] = { local == 0, size, -(int)sysconf(_SC_NPROCESSORS_ONLN) }, sum[3], max[3];
    bench_polite_allreduce(mine, sum, 3, MPI_INT, MPI_SUM, comm);
    bench_polite_allreduce(mine, max, 3, MPI_INT, MPI_MAX, comm);
    m->nodes = sum[0];
    m->ranks_per_node = max[1];
    m->cores_per_node = -max[2];
}

static void fill_meta(bench_meta_t *m, const bench_ctx_t *ctx)
{
    char err[600];
    int len;
    memset(m, 0, sizeof *m);
    m->ranks = ctx->size;
    count_nodes(ctx->comm, m);
    m->slice = ctx->opts->slice;
    snprintf(m->sync, sizeof m->sync, "%s", st_config_load(err, sizeof err) == 0 ? st_config.sync : "?");
    PMPI_Get_library_version(m->mpi_version, &len);
    m->mpi_version[strcspn(m->mpi_version, "\n")] = 0; /* MPICH: first line is the version */
    for (char *p = m->mpi_version; *p; p++)
        *p = *p == '\t' ? ' ' : *p;
    gethostname(m->host, sizeof m->host - 1);
    time_t now = time(NULL);
    strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

/* ---- the run -------------------------------------------------------------------------------- */

typedef struct rows {
    bench_row_t *v;
    size_t n;
} rows_t;

static bench_row_t *add_row(rows_t *rows, const bench_call_t *c)
{
    bench_row_t *v = realloc(rows->v, (rows->n + 1) * sizeof *v);
    if (!v)
        return NULL;
    rows->v = v;
    bench_row_t *r = &v[rows->n++];
    *r = (bench_row_t){ .op = bench_ops[c->op].name, .bytes = c->bytes,
                        .dtype = !bench_ops[c->op].sized ? "-" : c->type == MPI_DOUBLE ? "double" : "byte" };
    return r;
}

/* One operation at one size under the selected schemes; prints its line. Collective. */
static int measure(const bench_ctx_t *ctx, const bench_call_t *c, rows_t *rows)
{
    const bench_opts_t *o = ctx->opts;
    size_t first = rows->n;
    int rc = 0;
    if (o->imbalance) {
        bench_row_t *r = add_row(rows, c);
        rc = !r || bench_roundtime(ctx, c, 1, &r->res);
    } else {
        if (!rc && (o->scheme & BENCH_SCHEME_ROUNDTIME)) {
            bench_row_t *r = add_row(rows, c);
            rc = !r || bench_roundtime(ctx, c, 0, &r->res);
        }
        if (!rc && (o->scheme & BENCH_SCHEME_BARRIER)) {
            bench_row_t *r = add_row(rows, c);
            rc = !r || bench_barrier_scheme(ctx, c, &r->res);
        }
    }
    if (!rc && ctx->rank == 0)
        bench_print_rows(stdout, rows->v + first, (int)(rows->n - first), o->imbalance ? 0 : o->scheme);
    return rc;
}

/* Every operation and size (a size that rounds to the one before is measured once). Collective. */
static int run_all(const bench_ctx_t *ctx, rows_t *rows)
{
    const bench_opts_t *o = ctx->opts;
    int nops = o->imbalance ? 1 : o->nops;
    for (int i = 0; i < nops; i++) {
        bench_op_id_t op = o->imbalance ? BENCH_BARRIER : (bench_op_id_t)o->ops[i];
        size_t last = 0;
        for (int k = 0; k < (bench_ops[op].sized ? o->nsizes : 1); k++) {
            bench_call_t c;
            int ok = bench_call_prepare(&c, op, o->sizes[k], ctx->comm) == 0, all_ok = 0;
            bench_polite_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
            if (!all_ok) {
                bench_call_free(&c);
                if (ctx->rank == 0)
                    fprintf(stderr, "synctrace-bench: error: out of memory for %s of %zu bytes\n", bench_ops[op].name,
                            o->sizes[k]);
                return -1;
            }
            int rc = c.bytes == last && k > 0 ? 0 : measure(ctx, &c, rows);
            last = c.bytes;
            bench_call_free(&c);
            if (rc)
                return -1;
        }
    }
    return 0;
}

static int write_files(const bench_opts_t *o, const bench_meta_t *m, const rows_t *rows)
{
    int rc = 0;
    if (o->json && bench_write_json(o->json, m, rows->v, rows->n) != 0)
        rc = 1;
    if (o->csv && bench_write_csv(o->csv, m, rows->v, rows->n) != 0)
        rc = 1;
    return rc;
}

/* Rank 0 creates the output files now rather than find out after the run that it cannot. Collective. */
static int outputs_writable(const bench_ctx_t *ctx)
{
    const char *paths[2] = { ctx->opts->json, ctx->opts->csv };
    int ok = 1;
    for (int i = 0; i < 2 && ctx->rank == 0; i++) {
        FILE *f = paths[i] ? fopen(paths[i], "w") : NULL;
        if (paths[i] && !f) {
            fprintf(stderr, "synctrace-bench: error: cannot create %s\n", paths[i]);
            ok = 0;
        }
        if (f)
            fclose(f);
    }
    bench_polite_bcast(&ok, 1, MPI_INT, 0, ctx->comm);
    return ok;
}

int main(int argc, char **argv)
{
    bench_opts_t opts;
    char err[600];
    int pr = bench_parse_options(argc, argv, &opts, st_config_launcher_rank() > 0 ? NULL : stdout, err, sizeof err);
    if (pr != 0) {
        if (pr < 0)
            die("%s", err);
        return 0;
    }
    preload_clock_library(argv);
    if (!synctrace_enabled()) /* before MPI_Init: loaded and configured to run */
        die("%s", "SYNCTRACE_ENABLE=0 leaves the library idle: no synchronized clock to measure with");
    MPI_Init(&argc, &argv); /* the library's wrapper: clock sync */
    bench_ctx_t ctx = { .opts = &opts };
    PMPI_Comm_dup(MPI_COMM_WORLD, &ctx.comm);
    PMPI_Comm_rank(ctx.comm, &ctx.rank);
    PMPI_Comm_size(ctx.comm, &ctx.size);
    if (!outputs_writable(&ctx)) {
        MPI_Finalize();
        return 2;
    }
    bench_meta_t meta;
    fill_meta(&meta, &ctx);
    meta.offset_start = bench_clock_offset_max(ctx.comm);
    bench_estimate_margin(&ctx);
    meta.margin_ns = ctx.margin_ns;
    if (ctx.rank == 0)
        bench_print_header(stdout, &meta, opts.imbalance ? 0 : opts.scheme);
    rows_t rows = { 0 };
    int rc = run_all(&ctx, &rows) ? 1 : 0;
    meta.offset_end = bench_clock_offset_max(ctx.comm);
    if (ctx.rank == 0) {
        bench_print_footer(stdout, &meta);
        rc |= write_files(&opts, &meta, &rows);
    }
    bench_polite_bcast(&rc, 1, MPI_INT, 0, ctx.comm);
    free(rows.v);
    bench_free_options(&opts);
    PMPI_Comm_free(&ctx.comm);
    MPI_Finalize();
    return rc;
}
