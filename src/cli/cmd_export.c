/*
 * cmd_export.c — `synctrace export DIR --chrome FILE`: the archive as Chrome trace-event JSON
 * (the "JSON Object Format" that Perfetto UI and chrome://tracing open).
 *
 * One process (pid = world rank) per rank, one thread (tid = thread index) per location,
 * named by process_name / thread_name metadata; every region instance a complete event
 * ("ph":"X", cat = its paradigm); every point-to-point message a flow ("ph":"s" at the
 * send, "ph":"f" binding to the enclosing slice at the receive, id = flow number), and so
 * every one-sided synchronization relation (cat "rma": an origin's MPI_Win_complete to the
 * target's MPI_Win_wait, a lock holder's unlock to the next conflicting epoch's unlock).
 * Messages are the logical messages of the one derivation (src/clc deps, as `synctrace
 * check` and the analysis use), so wildcard and nonblocking receives pair as MPI paired them.
 * When DIR/analysis.json exists (`synctrace analyze` ran), the analysis' worst wait-state
 * instances (up to ST_AN_TOP per time metric) become counters "wait: <metric>" on their
 * rank: the wait in seconds from the waiting call's enter for its duration, 0 after it.
 * Times: microseconds ("ts", "dur") since the archive's global offset, as `dump` counts.
 * A region still open at the location's last event ends there.
 */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf2/OTF2_GeneralDefinitions.h>

#include "analyze.h"
#include "../util/fileio.h"
#include "../util/json.h"

typedef struct xport {
    FILE                     *out;
    const st_cli_archive_t   *ar;
    const st_cli_analysis_t  *a;
    int                       first; /* no event written yet (comma placement) */
} xport_t;

/* Microseconds since the global offset. */
static double us(const xport_t *x, uint64_t t)
{
    return ((double)t - (double)x->ar->offset) * 1e6 / (double)x->ar->resolution;
}

static void begin(xport_t *x, const char *ph)
{
    fprintf(x->out, "%s\n{\"ph\":\"%s\"", x->first ? "" : ",", ph);
    x->first = 0;
}

static const char *category(uint8_t paradigm)
{
    switch (paradigm) {
    case OTF2_PARADIGM_MPI: return "MPI";
    case OTF2_PARADIGM_OPENMP: return "OpenMP";
    case OTF2_PARADIGM_USER: return "user";
    default: return "other";
    }
}

static void metadata(xport_t *x)
{
    for (size_t i = 0; i < x->ar->nlocs; i++) {
        const st_cli_location_t *l = &x->ar->locs[i];
        if (i == 0 || l->rank != x->ar->locs[i - 1].rank) {
            begin(x, "M");
            fprintf(x->out, ",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"rank %d\"}}", l->rank, l->rank);
            begin(x, "M");
            fprintf(x->out, ",\"name\":\"process_sort_index\",\"pid\":%d,\"args\":{\"sort_index\":%d}}", l->rank,
                    l->rank);
        }
        begin(x, "M");
        fprintf(x->out, ",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,\"args\":{\"name\":", l->rank, l->thread);
        st_json_string(x->out, st_cli_string(x->ar, l->name));
        fputs("}}", x->out);
    }
}

static void region_event(xport_t *x, const st_cli_location_t *l, const st_event_t *enter, uint64_t end)
{
    const st_cli_region_t *r = st_cli_region(x->ar, enter->region);
    begin(x, "X");
    fputs(",\"name\":", x->out);
    st_json_string(x->out, r ? st_cli_string(x->ar, r->name) : "?");
    fprintf(x->out, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}", category(r ? r->paradigm : 0),
            l->rank, l->thread, us(x, enter->time), us(x, end) - us(x, enter->time));
}

/* Complete events of one location: a stack of open ENTERs. 0, or -1 when out of memory. */
static int regions(xport_t *x, const st_cli_location_t *l)
{
    size_t depth = 0, cap = 64;
    const st_event_t **open = malloc(cap * sizeof *open);
    if (!open)
        return -1;
    for (size_t i = 0; i < l->n; i++) {
        const st_event_t *e = &l->ev[i];
        if (e->kind == ST_EV_ENTER) {
            if (depth == cap) {
                const st_event_t **grown = realloc(open, 2 * cap * sizeof *open);
                if (!grown) {
                    free(open);
                    return -1;
                }
                open = grown, cap *= 2;
            }
            open[depth++] = e;
        } else if (e->kind == ST_EV_LEAVE && depth) {
            region_event(x, l, open[--depth], e->time);
        }
    }
    while (depth) /* left open (incomplete trace): ends with the location */
        region_event(x, l, open[--depth], l->ev[l->n - 1].time);
    free(open);
    return 0;
}

/* The archive event of a graph reference (locations convert 1:1, by rank and thread). */
static const st_cli_location_t *ref_loc(const xport_t *x, const st_rel_ref_t *ref, const st_event_t **e)
{
    const st_rel_loc_t *L = &x->a->in.locs[ref->loc];
    long i = st_cli_location_find(x->ar, L->rank, L->thread);
    if (i < 0 || ref->ev >= x->ar->locs[i].n)
        return NULL;
    *e = &x->ar->locs[i].ev[ref->ev];
    return &x->ar->locs[i];
}

/* The relations drawn as arrows: key type, the arrow's name and category. */
static const struct {
    unsigned type;
    const char *name, *cat;
} arrows[] = {
    { ST_REL_KEY_P2P, "message", "message" },
    { ST_REL_KEY_RMA_POST, "post -> start", "rma" },
    { ST_REL_KEY_RMA_PSCW, "complete -> wait", "rma" },
    { ST_REL_KEY_RMA_LOCK, "unlock -> unlock", "rma" },
};

static void flow_end(xport_t *x, const char *ph, uint64_t id, int a, const st_cli_location_t *l, const st_event_t *e)
{
    begin(x, ph);
    fprintf(x->out, ",\"name\":\"%s\",\"cat\":\"%s\",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%u,\"ts\":%.3f%s",
            arrows[a].name, arrows[a].cat, id, l->rank, l->thread, us(x, e->time), ph[0] == 'f' ? ",\"bp\":\"e\"" : "");
    if (arrows[a].type == ST_REL_KEY_P2P)
        fprintf(x->out, ",\"args\":{\"tag\":%u,\"bytes\":%" PRIu64 "}", (unsigned)e->tag, e->bytes);
    fputc('}', x->out);
}

static void messages(xport_t *x)
{
    const st_rel_graph_t *g = &x->a->g;
    uint64_t id = 0;
    for (uint64_t k = 0; k < g->ninst; k++) {
        const st_rel_inst_t *in = &g->inst[k];
        int a = 0, n = (int)(sizeof arrows / sizeof arrows[0]);
        while (a < n && arrows[a].type != st_rel_inst_type(in))
            a++;
        if (a == n || in->nsend != 1 || in->nrecv != 1)
            continue;
        const st_event_t *se, *re;
        const st_cli_location_t *sl = ref_loc(x, &g->refs[in->first], &se);
        const st_cli_location_t *rl = ref_loc(x, &g->refs[in->first + 1], &re);
        if (!sl || !rl)
            continue;
        flow_end(x, "s", id, a, sl, se);
        flow_end(x, "f", id, a, rl, re);
        id++;
    }
}

static void counter(xport_t *x, const char *name, int32_t rank, uint64_t t, double value)
{
    begin(x, "C");
    fputs(",\"name\":", x->out);
    st_json_string(x->out, name);
    fprintf(x->out, ",\"pid\":%d,\"ts\":%.3f,\"args\":{\"s\":%.9g}}", rank, us(x, t), value);
}

static void wait_counters(xport_t *x)
{
    const st_an_result_t *res = &x->a->res;
    for (int m = 0; m < ST_AN__METRICS; m++)
        for (uint32_t i = 0; i < res->ntop[m]; i++) {
            const st_an_instance_t *w = &res->top[m][i];
            char name[128];
            snprintf(name, sizeof name, "wait: %s", st_an_metric(m)->disp);
            int32_t rank = x->a->in.locs[w->loc].rank;
            counter(x, name, rank, w->time, w->value / (double)x->ar->resolution);
            counter(x, name, rank, w->time + (uint64_t)w->value, 0.0);
        }
}

static int export_chrome(const char *dir, const st_cli_archive_t *ar, const char *file)
{
    char err[300], json[4096];
    snprintf(json, sizeof json, "%s/analysis.json", dir);
    int with_waits = access(json, F_OK) == 0;
    st_cli_analysis_t a;
    if (st_cli_analyze(ar, &a, err, sizeof err)) {
        fprintf(stderr, "synctrace: export: cannot derive the messages of %s: %s\n", dir, err);
        return 1;
    }
    st_file_new_t nf; /* whole or not at all, and never through a planted link */
    int oerr = st_file_new_open(&nf, file);
    if (oerr) {
        fprintf(stderr, "synctrace: export: cannot write %s: %s\n", file, strerror(oerr));
        st_cli_analysis_free(&a);
        return 1;
    }
    FILE *out = nf.f;
    xport_t x = { out, ar, &a, 1 };
    int rc = 0;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"creator\":\"synctrace export\"},\"traceEvents\":[", out);
    metadata(&x);
    for (size_t i = 0; rc == 0 && i < ar->nlocs; i++)
        rc = regions(&x, &ar->locs[i]);
    messages(&x);
    if (with_waits)
        wait_counters(&x);
    fputs("\n]}\n", out);
    st_cli_analysis_free(&a);
    if (rc)
        fprintf(stderr, "synctrace: export: out of memory\n");
    int werr = st_file_new_commit(&nf, rc ? ENOMEM : 0);
    if (werr && !rc) {
        fprintf(stderr, "synctrace: export: cannot write %s: %s\n", file, strerror(werr));
        rc = 1;
    }
    return rc ? 1 : 0;
}

static int run_export(int argc, char **argv)
{
    const char *dir = NULL, *chrome = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--chrome")) {
            if (++i == argc)
                return st_cli_usage_error(&st_cli_cmd_export, "--chrome needs a file name");
            chrome = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return st_cli_usage_error(&st_cli_cmd_export, "unknown option '%s'", argv[i]);
        } else if (!dir) {
            dir = argv[i];
        } else {
            return st_cli_usage_error(&st_cli_cmd_export, "unexpected argument '%s'", argv[i]);
        }
    }
    if (!dir)
        return st_cli_usage_error(&st_cli_cmd_export, "missing archive directory");
    if (!chrome)
        return st_cli_usage_error(&st_cli_cmd_export, "missing --chrome FILE (the only format)");
    st_cli_archive_t ar;
    if (st_cli_open(dir, &ar))
        return 1;
    int rc = export_chrome(dir, &ar, chrome);
    st_cli_archive_free(&ar);
    if (rc == 0)
        printf("%s\n", chrome);
    return rc;
}

const st_cli_cmd_t st_cli_cmd_export = {
    .name = "export",
    .usage = "export DIR --chrome FILE",
    .summary = "the trace as Chrome trace-event JSON (Perfetto UI, chrome://tracing)",
    .help = "Writes the archive in DIR to FILE in the Chrome trace-event JSON format, which Perfetto UI\n"
            "(ui.perfetto.dev, Open trace file) and chrome://tracing open: one process per rank, one\n"
            "thread per location, each region instance a complete event (cat MPI, OpenMP, user),\n"
            "each point-to-point message a flow arrow from the send to the receive, each one-sided\n"
            "synchronization relation one too (cat rma: MPI_Win_complete to the target's MPI_Win_wait,\n"
            "a lock holder's MPI_Win_unlock to the next conflicting epoch's). After\n"
            "`synctrace analyze DIR` (DIR/analysis.json exists) the worst wait-state instances appear\n"
            "as counters \"wait: <metric>\" (seconds) on their rank. Times in microseconds since the\n"
            "archive's offset. Prints FILE.\n",
    .reads_archive = 1,
    .run = run_export,
};
