/* options.c — synctrace-bench's command line. */
#include "bench.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../config/config.h"

#define DEFAULT_OPS   "allreduce,bcast,reduce,allgather,alltoall"
#define DEFAULT_SIZES "1:1M"
#define MAX_SIZE      ((size_t)1 << 30)

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mpiexec -n N synctrace-bench [options]\n"
            "Latency of MPI collectives on synctrace's synchronized global clock (Round-Time, paper Alg. 5),\n"
            "optionally beside the barrier-based scheme of OSU/IMB. Nothing is traced.\n\n"
            "  -o, --ops LIST        operations: allreduce,bcast,reduce,allgather,alltoall,gather,scatter,\n"
            "                        reduce_scatter_block,scan,barrier or all (default " DEFAULT_OPS ")\n"
            "  -s, --sizes LIST      message sizes in bytes (k/M/G suffixes), e.g. 8,1k,64k; A:B is every\n"
            "                        power of two from A to B (default " DEFAULT_SIZES ")\n"
            "      --slice SECONDS   time per operation, size and scheme (default 1)\n"
            "      --scheme S        roundtime, barrier or both (side by side, with their ratio); default roundtime\n"
            "      --barrier-imbalance  spread of the ranks' exit times from MPI_Barrier after a synchronized\n"
            "                        start, instead of the operations\n"
            "      --margin B        start time = now + B x measured Bcast latency (default 4)\n"
            "      --tolerance US    a rank starting more than US microseconds after the start time (woken\n"
            "                        late from its polite wait) makes the round invalid (default 10)\n"
            "      --max-rounds N    stop a slice after N valid rounds (default 1000000)\n"
            "      --json FILE       every figure and the run's metadata as JSON\n"
            "      --csv FILE        the same as CSV, one row per operation, size and scheme\n"
            "  -h, --help            this help;  --version: the version\n"
            "The clock sync is the library's (SYNCTRACE_SYNC, any scheme). Reductions use MPI_DOUBLE with\n"
            "MPI_SUM (sizes rounded down to whole doubles), the others MPI_BYTE; roots are rank 0.\n");
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_ops(const char *list, bench_opts_t *o, char *err, size_t errlen)
{
    if (strcmp(list, "all") == 0)
        list = "allreduce,bcast,reduce,allgather,alltoall,gather,scatter,reduce_scatter_block,scan,barrier";
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf)
        return fail(err, errlen, "--ops: list too long");
    o->nops = 0;
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int id = bench_op_find(t);
        if (id < 0)
            return fail(err, errlen, "--ops: unknown operation '%s' (accepted: allreduce, bcast, reduce, allgather, "
                        "alltoall, gather, scatter, reduce_scatter_block, scan, barrier, all)", t);
        for (int i = 0; i < o->nops; i++)
            if (o->ops[i] == id)
                return fail(err, errlen, "--ops: '%s' given twice", t);
        o->ops[o->nops++] = id;
    }
    return o->nops ? 0 : fail(err, errlen, "--ops: empty list");
}

static int add_size(bench_opts_t *o, size_t s)
{
    size_t *v = realloc(o->sizes, (size_t)(o->nsizes + 1) * sizeof *v);
    if (!v)
        return -1;
    o->sizes = v;
    o->sizes[o->nsizes++] = s;
    return 0;
}

static int parse_one_size(const char *t, size_t *out, char *err, size_t errlen)
{
    if (st_config_parse_size(t, out) != 0 || *out < 1 || *out > MAX_SIZE)
        return fail(err, errlen, "--sizes: '%s' is not a size of 1 .. 1G bytes (digits with optional k/M/G)", t);
    return 0;
}

static int parse_sizes(const char *list, bench_opts_t *o, char *err, size_t errlen)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf)
        return fail(err, errlen, "--sizes: list too long");
    o->nsizes = 0;
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(t, ':');
        size_t a, b;
        if (colon)
            *colon = 0;
        if (parse_one_size(t, &a, err, errlen) || (colon && parse_one_size(colon + 1, &b, err, errlen)))
            return -1;
        if (!colon)
            b = a;
        if (b < a)
            return fail(err, errlen, "--sizes: range %s:%s runs backwards", t, colon + 1);
        for (size_t s = a; s <= b; s *= 2)
            if (add_size(o, s) != 0)
                return fail(err, errlen, "out of memory");
    }
    return o->nsizes ? 0 : fail(err, errlen, "--sizes: empty list");
}

static int parse_number(const char *opt, const char *s, int frac, double lo, double hi, double *out, char *err,
                        size_t errlen)
{
    if (st_config_parse_number(s, frac, lo, hi, out) != 0)
        return fail(err, errlen, "%s: '%s' is not a %s in %g .. %g", opt, s, frac ? "number" : "whole number", lo, hi);
    return 0;
}

static int parse_delay(const char *s, bench_opts_t *o, char *err, size_t errlen)
{
    int rank, period = 2, n = 0, m = 0;
    double us;
    int ok = sscanf(s, "%d:%lf%n", &rank, &us, &n) == 2; /* then an optional ":PERIOD" */
    ok = ok && (!s[n] || (sscanf(s + n, ":%d%n", &period, &m) == 1 && !s[n + m]));
    if (!ok || rank < 0 || us < 0 || period < 1)
        return fail(err, errlen, "--test-delay: expected RANK:MICROSECONDS[:PERIOD], got '%s'", s);
    o->delay_rank = rank;
    o->delay_us = us;
    o->delay_period = period;
    return 0;
}

/* The value of option name: "--name=v", or the next argument. NULL when missing. */
static const char *value_of(const char *name, int argc, char **argv, int *i)
{
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) == 0 && argv[*i][len] == '=')
        return argv[*i] + len + 1;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

/* Matches "--name", "--name=...", or the short form. */
static int is_opt(const char *arg, const char *name, const char *short_name)
{
    size_t len = strlen(name);
    return (short_name && strcmp(arg, short_name) == 0) ||
           (strncmp(arg, name, len) == 0 && (arg[len] == 0 || arg[len] == '='));
}

/* The options that take a value, in the order of the table in parse_arg. */
enum { OPT_OPS, OPT_SIZES, OPT_SLICE, OPT_SCHEME, OPT_MARGIN, OPT_TOLERANCE, OPT_MAX_ROUNDS, OPT_JSON, OPT_CSV,
       OPT_TEST_DELAY, OPT_N };

static int parse_scheme(const char *v, bench_opts_t *o, char *err, size_t errlen)
{
    o->scheme = !strcmp(v, "roundtime") ? BENCH_SCHEME_ROUNDTIME
                : !strcmp(v, "barrier") ? BENCH_SCHEME_BARRIER
                : !strcmp(v, "both")    ? BENCH_SCHEME_BOTH
                                        : 0;
    return o->scheme ? 0 : fail(err, errlen, "--scheme: '%s' is not roundtime, barrier or both", v);
}

static int parse_value(int opt, const char *name, const char *v, bench_opts_t *o, char *err, size_t errlen)
{
    double d;
    switch (opt) {
    case OPT_OPS: return parse_ops(v, o, err, errlen);
    case OPT_SIZES: return parse_sizes(v, o, err, errlen);
    case OPT_SLICE: return parse_number(name, v, 1, 0.001, 3600, &o->slice, err, errlen);
    case OPT_SCHEME: return parse_scheme(v, o, err, errlen);
    case OPT_MARGIN: return parse_number(name, v, 1, 1, 1000, &o->margin, err, errlen);
    case OPT_TOLERANCE: return parse_number(name, v, 1, 0, 1e6, &o->tolerance_us, err, errlen);
    case OPT_MAX_ROUNDS:
        if (parse_number(name, v, 0, 1, 1e9, &d, err, errlen))
            return -1;
        o->max_rounds = (long)d;
        return 0;
    case OPT_JSON: o->json = v; return 0;
    case OPT_CSV: o->csv = v; return 0;
    default: return parse_delay(v, o, err, errlen);
    }
}

static int parse_arg(int argc, char **argv, int *i, bench_opts_t *o, char *err, size_t errlen)
{
    static const char *const names[OPT_N][2] = {
        [OPT_OPS] = { "--ops", "-o" },          [OPT_SIZES] = { "--sizes", "-s" },
        [OPT_SLICE] = { "--slice", NULL },      [OPT_SCHEME] = { "--scheme", NULL },
        [OPT_MARGIN] = { "--margin", NULL },    [OPT_TOLERANCE] = { "--tolerance", NULL },
        [OPT_MAX_ROUNDS] = { "--max-rounds", NULL }, [OPT_JSON] = { "--json", NULL },
        [OPT_CSV] = { "--csv", NULL },          [OPT_TEST_DELAY] = { "--test-delay", NULL },
    };
    const char *a = argv[*i];
    if (strcmp(a, "--barrier-imbalance") == 0) {
        o->imbalance = 1;
        return 0;
    }
    for (int k = 0; k < OPT_N; k++) {
        if (!is_opt(a, names[k][0], names[k][1]))
            continue;
        const char *v = value_of(names[k][0], argc, argv, i);
        if (!v)
            return fail(err, errlen, "%s needs a value (see --help)", names[k][0]);
        return parse_value(k, names[k][0], v, o, err, errlen);
    }
    return fail(err, errlen, "unknown option '%s' (see --help)", a);
}

int bench_parse_options(int argc, char **argv, bench_opts_t *o, FILE *out, char *err, size_t errlen)
{
    *o = (bench_opts_t){ .slice = 1, .scheme = BENCH_SCHEME_ROUNDTIME, .margin = 4, .tolerance_us = 10,
                         .max_rounds = 1000000, .delay_rank = -1, .delay_us = -1, .delay_period = 2 };
    if (parse_ops(DEFAULT_OPS, o, err, errlen) || parse_sizes(DEFAULT_SIZES, o, err, errlen))
        return -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            if (out)
                usage(out);
            return 1;
        }
        if (!strcmp(argv[i], "--version")) {
            if (out)
                fprintf(out, "synctrace-bench %s\n", BENCH_VERSION);
            return 1;
        }
        if (parse_arg(argc, argv, &i, o, err, errlen) != 0)
            return -1;
    }
    return 0;
}

void bench_free_options(bench_opts_t *o)
{
    free(o->sizes);
    o->sizes = NULL;
}
