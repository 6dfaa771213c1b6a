/* report.c — synctrace-bench's output: the table on rank 0's stdout, JSON and CSV files. */
#include "bench.h"
#include "../util/fileio.h"
#include "../util/json.h"

#include <string.h>

static double us(double ns) { return ns / 1000; }

/* The four figures of r in us, each "%9.2f", or "-" when there is no valid round. */
static const char *figures_us(char *buf, size_t len, const bench_result_t *r)
{
    if (!r->lat.n)
        snprintf(buf, len, "%9s %9s %9s %9s", "-", "-", "-", "-");
    else
        snprintf(buf, len, "%9.2f %9.2f %9.2f %9.2f", us(r->lat.min), us(r->lat.median), us(r->lat.mean),
                 us(r->lat.max));
    return buf;
}

/* The four figures in ns for JSON ("null" when none) or CSV (empty when none). */
static void figures_ns(FILE *f, const bench_result_t *r, int json)
{
    static const char *const names[4] = { "min_ns", "median_ns", "mean_ns", "max_ns" };
    const double v[4] = { r->lat.min, r->lat.median, r->lat.mean, r->lat.max };
    for (int i = 0; i < 4; i++) {
        if (json)
            fprintf(f, r->lat.n ? "\"%s\": %.1f, " : "\"%s\": null, ", names[i], v[i]);
        else if (r->lat.n)
            fprintf(f, "%.1f,", v[i]);
        else
            fputc(',', f);
    }
}

void bench_print_header(FILE *out, const bench_meta_t *m, int scheme)
{
    fprintf(out, "# synctrace-bench %s: %d ranks on %d node%s (%s), %s\n", BENCH_VERSION, m->ranks, m->nodes,
            m->nodes == 1 ? "" : "s", m->host, m->date);
    fprintf(out, "# MPI library: %s\n", m->mpi_version);
    if (m->ranks_per_node > m->cores_per_node)
        fprintf(out, "# note: %d ranks share %d cores on a node: ranks cannot start together, expect invalid "
                     "Round-Time rounds (docs/bench.md)\n", m->ranks_per_node, m->cores_per_node);
    fprintf(out, "# clock sync: %s; max offset of a rank's global clock to rank 0's: %.2f us after the sync "
                 "(measured to +-%.2f us)\n",
            m->sync, us(m->offset_start.offset_ns), us(m->offset_start.bound_ns));
    fprintf(out, "# Round-Time start margin %.1f us; slice %g s per operation, size and scheme; times in us\n",
            us(m->margin_ns), m->slice);
    if (scheme == BENCH_SCHEME_BOTH)
        fprintf(out, "%-20s %9s %-6s %7s %7s %9s %9s %9s %9s | %7s %5s %9s %9s %9s %9s | %6s\n", "operation", "bytes",
                "dtype", "rt_ok", "rt_late", "rt_min", "rt_median", "rt_mean", "rt_max", "batches", "reps", "bar_min",
                "bar_median", "bar_mean", "bar_max", "ratio");
    else
        fprintf(out, "%-20s %9s %-6s %-17s %7s %7s %6s %9s %9s %9s %9s %7s\n", "operation", "bytes", "dtype", "scheme",
                "valid", "invalid", "reps", "min", "median", "mean", "max", "slice_s");
    fflush(out);
}

void bench_print_rows(FILE *out, const bench_row_t *rows, int n, int scheme)
{
    if (scheme == BENCH_SCHEME_BOTH && n == 2) { /* [0] Round-Time, [1] barrier */
        const bench_result_t *a = &rows[0].res, *b = &rows[1].res;
        char fa[64], fb[64], ratio[16] = "-";
        if (a->lat.n && b->lat.n && a->lat.median > 0)
            snprintf(ratio, sizeof ratio, "%.2f", b->lat.median / a->lat.median);
        fprintf(out, "%-20s %9zu %-6s %7zu %7zu %s | %7zu %5ld %s | %6s\n", rows[0].op, rows[0].bytes, rows[0].dtype,
                a->valid, a->invalid, figures_us(fa, sizeof fa, a), b->valid, b->reps, figures_us(fb, sizeof fb, b),
                ratio);
    } else {
        for (int i = 0; i < n; i++) {
            const bench_result_t *r = &rows[i].res;
            char fig[64];
            fprintf(out, "%-20s %9zu %-6s %-17s %7zu %7zu %6ld %s %7.2f\n", rows[i].op, rows[i].bytes, rows[i].dtype,
                    r->scheme, r->valid, r->invalid, r->reps, figures_us(fig, sizeof fig, r), r->slice_used);
        }
    }
    fflush(out);
}

void bench_print_footer(FILE *out, const bench_meta_t *m)
{
    const bench_offset_t *o = &m->offset_end;
    const char *note = "";
    if (o->offset_ns > m->margin_ns / 2)
        note = o->offset_ns > o->bound_ns ? " (large against the margin: Round-Time figures are doubtful)"
                                          : " (not measurable: the fastest ping-pong was this slow; a loaded machine?)";
    fprintf(out, "# max clock offset at the end: %.2f us (measured to +-%.2f us)%s\n", us(o->offset_ns),
            us(o->bound_ns), note);
    fflush(out);
}

/* ---- files ------------------------------------------------------------------------------------ */

static void csv_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static int finish(FILE *f, const char *path)
{
    int err = st_file_close(f);
    if (err) {
        fprintf(stderr, "synctrace-bench: error: cannot write %s: %s\n", path, strerror(err));
        return -1;
    }
    return 0;
}

static FILE *open_out(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "synctrace-bench: error: cannot create %s\n", path);
    return f;
}

int bench_write_json(const char *path, const bench_meta_t *m, const bench_row_t *rows, size_t n)
{
    FILE *f = open_out(path);
    if (!f)
        return -1;
    fprintf(f, "{\n  \"tool\": \"synctrace-bench\",\n  \"version\": \"%s\",\n  \"date\": ", BENCH_VERSION);
    st_json_string(f, m->date);
    fprintf(f, ",\n  \"ranks\": %d,\n  \"nodes\": %d,\n  \"ranks_per_node_max\": %d,\n  \"cores_per_node_min\": %d,\n"
               "  \"host\": ", m->ranks, m->nodes, m->ranks_per_node, m->cores_per_node);
    st_json_string(f, m->host);
    fprintf(f, ",\n  \"mpi_library\": ");
    st_json_string(f, m->mpi_version);
    fprintf(f, ",\n  \"sync\": ");
    st_json_string(f, m->sync);
    fprintf(f,
            ",\n  \"clock_offset_max_ns\": { \"after_sync\": %.1f, \"at_end\": %.1f, \"after_sync_bound\": %.1f, "
            "\"at_end_bound\": %.1f },\n",
            m->offset_start.offset_ns, m->offset_end.offset_ns, m->offset_start.bound_ns, m->offset_end.bound_ns);
    fprintf(f, "  \"margin_ns\": %.1f,\n  \"slice_s\": %g,\n  \"results\": [", m->margin_ns, m->slice);
    for (size_t i = 0; i < n; i++) {
        const bench_result_t *r = &rows[i].res;
        fprintf(f, "%s\n    { \"operation\": \"%s\", \"bytes\": %zu, \"datatype\": \"%s\", \"scheme\": \"%s\", ",
                i ? "," : "", rows[i].op, rows[i].bytes, rows[i].dtype, r->scheme);
        fprintf(f, "\"valid\": %zu, \"invalid\": %zu, \"reps_per_batch\": %ld, \"margin_ns\": %.1f, ", r->valid,
                r->invalid, r->reps, r->margin_ns);
        figures_ns(f, r, 1);
        fprintf(f, "\"slice_used_s\": %.4f }", r->slice_used);
    }
    fprintf(f, "\n  ]\n}\n");
    return finish(f, path);
}

int bench_write_csv(const char *path, const bench_meta_t *m, const bench_row_t *rows, size_t n)
{
    FILE *f = open_out(path);
    if (!f)
        return -1;
    fprintf(f, "operation,bytes,datatype,scheme,valid,invalid,reps_per_batch,round_margin_ns,min_ns,median_ns,mean_ns,"
               "max_ns,slice_used_s,ranks,nodes,sync,clock_offset_after_sync_ns,clock_offset_at_end_ns,"
               "clock_offset_after_sync_bound_ns,clock_offset_at_end_bound_ns,margin_ns,slice_s,mpi_library,date\n");
    for (size_t i = 0; i < n; i++) {
        const bench_result_t *r = &rows[i].res;
        fprintf(f, "%s,%zu,%s,%s,%zu,%zu,%ld,%.1f,", rows[i].op, rows[i].bytes, rows[i].dtype, r->scheme, r->valid,
                r->invalid, r->reps, r->margin_ns);
        figures_ns(f, r, 0);
        fprintf(f, "%.4f,%d,%d,", r->slice_used, m->ranks, m->nodes);
        csv_string(f, m->sync);
        fprintf(f, ",%.1f,%.1f,%.1f,%.1f,%.1f,%g,", m->offset_start.offset_ns, m->offset_end.offset_ns,
                m->offset_start.bound_ns, m->offset_end.bound_ns, m->margin_ns, m->slice);
        csv_string(f, m->mpi_version);
        fprintf(f, ",%s\n", m->date);
    }
    return finish(f, path);
}
