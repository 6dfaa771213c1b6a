/*
 * cmd_recover.c — `synctrace recover DIR`: turns the per-rank dumps an abnormal end left
 * in DIR/partial/ into an OTF2 archive DIR/traces.otf2 marked incomplete.
 *
 * Ranks that left no dump (killed before they could write it) are simply missing; the
 * archive says so in SYNCTRACE::RECOVERED_RANKS. Corrupt dumps are skipped with a
 * warning, never trusted.
 *
 * The events of a dump carry the times the online clock map gave them (events before
 * MPI_Init: the local clock). As MPI_Finalize would, they are re-mapped through the sync
 * points the dump saved (sync.epoch.N, src/clock/model.h): interpolated between them with
 * sync.interpolate=1, else each with its epoch's map. With the TSC timer the global clock
 * (rank 0's TSC clock) is then mapped onto rank 0's system clock through rank 0's calibration
 * points (timer.tsc_point.N, the last one taken while dumping), piecewise linearly, as
 * MPI_Finalize does (src/clock/tsc.h); without rank 0's dump each rank through its own.
 * Call-path frames (SYNCTRACE_CALLPATH=1) and call sites (SYNCTRACE_CALLSITE=1), which a dump
 * can only locate, are named here (frames.h). Leftovers of an archive whose writing was cut short (a signal inside MPI_Finalize) are
 * removed first.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../clock/model.h"
#include "../clock/tsc_points.h"
#include "../model/rankdata.h"
#include "../otf2/writer.h"
#include "archive.h"
#include "cli.h"
#include "frames.h"

static int is_dump(const char *name)
{
    size_t n = strlen(name);
    return !strncmp(name, "rank-", 5) && n > 10 && !strcmp(name + n - 5, ".strd");
}

static int by_rank(const void *a, const void *b)
{
    const st_rankdata_t *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Loads every valid dump of dir/partial into *out (malloc'd); returns the count or -1. */
static int load_dumps(const char *dir, st_rankdata_t **out)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/partial", dir);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "synctrace: recover: %s has no partial/ directory: nothing to recover\n", dir);
        return -1;
    }
    int n = 0, cap = 0;
    st_rankdata_t *all = NULL;
    for (struct dirent *e; (e = readdir(d));) {
        if (!is_dump(e->d_name))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            st_rankdata_t *grown = realloc(all, sizeof *all * (size_t)cap);
            if (!grown)
                break;
            all = grown;
        }
        snprintf(path, sizeof path, "%s/partial/%s", dir, e->d_name);
        if (st_rankdata_load_dump(path, &all[n]) == 0)
            n++;
        else
            fprintf(stderr, "synctrace: recover: skipping %s: not a valid rank dump\n", path);
    }
    closedir(d);
    if (n > 0)
        qsort(all, (size_t)n, sizeof *all, by_rank);
    *out = all;
    return n;
}

static const char *prop(const st_rankdata_t *rd, const char *key)
{
    for (uint32_t i = 0; i < rd->nprops; i++)
        if (!strcmp(rd->props[i].key, key))
            return rd->props[i].value;
    return NULL;
}

/* Re-maps rd's events through its saved sync points; returns the number of epochs used (0: none saved). */
static size_t remap_rank(st_rankdata_t *rd)
{
    const char *n_txt = prop(rd, "sync.epochs"), *ip = prop(rd, "sync.interpolate");
    long n = n_txt ? strtol(n_txt, NULL, 10) : 0;
    if (n <= 0 || n > 100000)
        return 0;
    st_clock_epoch_t *ep = calloc((size_t)n + 1, sizeof *ep);
    if (!ep)
        return 0;
    ep[0] = (st_clock_epoch_t){ .kind = ST_EPOCH_LOCAL, .rtt_min_ns = -1 }; /* the local clock before MPI_Init */
    for (long k = 1; k <= n; k++) {
        char key[32];
        snprintf(key, sizeof key, "sync.epoch.%ld", k);
        const char *v = prop(rd, key);
        if (!v || st_clock_epoch_parse(v, &ep[k]) != 0) {
            fprintf(stderr, "synctrace: recover: rank %d: sync point %ld is missing or unreadable; "
                    "its events keep their recorded times\n", rd->rank, k);
            free(ep);
            return 0;
        }
    }
    int interpolate = ip ? atoi(ip) : 1;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        if (rd->threads[t].events)
            st_clock_remap(ep, (size_t)n + 1, rd->threads[t].events, rd->threads[t].nevents, interpolate);
    free(ep);
    return (size_t)n;
}

/* rd's TSC calibration points (malloc'd into *out, local increasing); returns the count (0: none, clock timer). */
static size_t tsc_points(const st_rankdata_t *rd, st_tsc_point_t **out)
{
    *out = NULL;
    size_t n = 0;
    for (uint32_t i = 0; i < rd->nprops; i++)
        n += !strncmp(rd->props[i].key, "timer.tsc_point.", 16);
    if (!n || !(*out = calloc(n, sizeof **out)))
        return 0;
    size_t k = 0;
    for (uint32_t i = 0; i < rd->nprops; i++) {
        st_tsc_point_t p;
        if (strncmp(rd->props[i].key, "timer.tsc_point.", 16) || st_tsc_point_parse(rd->props[i].value, &p))
            continue; /* "-": no point could be taken while dumping */
        if (k && p.local <= (*out)[k - 1].local)
            continue;
        (*out)[k++] = p;
    }
    return k;
}

/* Maps rd's (re-mapped) global times onto the system clock through n points; 0 if n < 2 (nothing done). */
static int tsc_correct(st_rankdata_t *rd, const st_tsc_point_t *p, size_t n)
{
    if (n < 2)
        return 0;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        if (rd->threads[t].events && rd->threads[t].nevents)
            st_tsc_interp_many(p, n, &rd->threads[t].events[0].time, (size_t)rd->threads[t].nevents,
                               sizeof *rd->threads[t].events);
    return 1;
}

/* The TSC correction of every rank (after the re-mapping); records what was applied in ranks[0]. */
static void correct_tsc(st_rankdata_t *ranks, int n)
{
    st_tsc_point_t *root = NULL;
    size_t nroot = ranks[0].rank == 0 ? tsc_points(&ranks[0], &root) : 0;
    int own = 0;
    for (int i = 0; i < n; i++) {
        if (ranks[0].rank == 0) {
            tsc_correct(&ranks[i], root, nroot);
            continue;
        }
        st_tsc_point_t *mine;
        size_t nmine = tsc_points(&ranks[i], &mine);
        own += tsc_correct(&ranks[i], mine, nmine);
        free(mine);
    }
    if (ranks[0].rank == 0 && nroot >= 2)
        st_rankdata_prop(&ranks[0], "RECOVERED_TSC_CORRECTION", "rank 0's %zu calibration points", nroot);
    else if (own)
        st_rankdata_prop(&ranks[0], "RECOVERED_TSC_CORRECTION", "each rank's own points (%d ranks; no dump of rank 0)",
                         own);
    else
        st_rankdata_prop(&ranks[0], "RECOVERED_TSC_CORRECTION", "none (%s)",
                         ranks[0].rank == 0 ? "rank 0 did not run on the TSC" : "no calibration points");
    free(root);
}

/* An archive cut short (definitions or event files, with no anchor file or one that does not
 * read back: run_recover): remove it, the dumps replace it. */
static void remove_cut_short(const char *dir)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/traces.def", dir);
    int def = stat(path, &st) == 0;
    snprintf(path, sizeof path, "%s/traces", dir);
    int evt = stat(path, &st) == 0;
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    if (def || evt || stat(path, &st) == 0) {
        fprintf(stderr, "synctrace: recover: removing the archive files of %s whose writing was cut short\n", dir);
        st_otf2_remove_partial(dir);
    }
}

static int run_recover(int argc, char **argv)
{
    const char *dir;
    int rc = st_cli_args(&st_cli_cmd_recover, argc, argv, (const char *const[]){ NULL }, NULL, &dir);
    if (rc)
        return rc;
    char anchor[4200];
    struct stat st;
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (stat(anchor, &st) == 0) {
        char part[4200];
        snprintf(part, sizeof part, "%s/partial", dir);
        if (stat(part, &st) != 0) {
            fprintf(stderr, "synctrace: recover: %s already holds an archive; nothing to do\n", dir);
            return 1;
        }
        /* A signal while the archive was written: complete if it came as the ranks agreed that it
         * was, else cut short after its anchor file (a rank's events unwritten): the dumps replace it. */
        st_cli_archive_t ar;
        char err[300];
        if (st_cli_archive_load(dir, &ar, err, sizeof err) == 0) {
            st_cli_archive_free(&ar);
            fprintf(stderr,
                    "synctrace: recover: %s holds an archive and the dumps of a signal that came as it was being "
                    "completed; check it with `synctrace info %s` (to rebuild it from %s instead, remove "
                    "traces.otf2, traces.def and traces/ first)\n",
                    dir, dir, part);
            return 1;
        }
        fprintf(stderr, "synctrace: recover: the archive in %s was cut short by the signal that left %s (%s)\n", dir,
                part, err);
    }
    st_rankdata_t *ranks = NULL;
    int n = load_dumps(dir, &ranks);
    if (n <= 0) {
        if (n == 0)
            fprintf(stderr, "synctrace: recover: %s/partial holds no valid rank dump\n", dir);
        free(ranks);
        return 1;
    }
    size_t remapped = 0;
    for (int i = 0; i < n; i++)
        remapped += remap_rank(&ranks[i]) > 0;
    correct_tsc(ranks, n);
    for (int i = 0; i < n; i++)
        if (ranks[i].ncallsites) {
            if (ranks[i].ncpnodes) /* the recorded tree, as the shim counts it (before inlined frames are nodes) */
                st_rankdata_prop(&ranks[i], "CALLPATH_NODES", "%u", ranks[i].ncpnodes);
            size_t named = st_frames_resolve(&ranks[i]);
            st_rankdata_prop(&ranks[i], "RECOVERED_FRAMES_NAMED", "%zu", named);
        }
    remove_cut_short(dir);
    st_rankdata_prop(&ranks[0], "RECOVERED_RANKS", "%d of %d", n, ranks[0].nranks);
    st_rankdata_prop(&ranks[0], "RECOVERED_REMAPPED_RANKS", "%zu", remapped);
    rc = st_otf2_write_serial(dir, ranks, n, ST_OTF2_INCOMPLETE);
    if (rc == 0)
        printf("recovered %d of %d ranks into %s (marked incomplete; %zu re-mapped through their sync points)\n", n,
               ranks[0].nranks, anchor, remapped);
    for (int i = 0; i < n; i++)
        st_rankdata_free(&ranks[i]);
    free(ranks);
    return rc == 0 ? 0 : 1;
}

const st_cli_cmd_t st_cli_cmd_recover = {
    .name = "recover",
    .usage = "recover DIR",
    .summary = "make an archive (marked incomplete) from the dumps of a run that ended without MPI_Finalize",
    .help = "After MPI_Abort, a fatal signal or exit() without MPI_Finalize, every rank that could saves what it\n"
            "recorded in DIR/partial/rank-N.strd. recover writes them as DIR/traces.otf2 with\n"
            "SYNCTRACE::INCOMPLETE=true. synctrace-run does this automatically.\n",
    .reads_archive = 1,
    .run = run_recover,
};
