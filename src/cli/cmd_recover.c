/*
 * cmd_recover.c — `synctrace recover DIR`: turns the per-rank dumps an abnormal end left
 * in DIR/partial/ into an OTF2 archive DIR/traces.otf2 marked incomplete.
 *
 * Ranks that left no dump (killed before they could write it) are simply missing; the
 * archive says so in SYNCTRACE::RECOVERED_RANKS. Corrupt dumps are skipped with a
 * warning, never trusted.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../otf2/rankdata.h"
#include "../otf2/writer.h"
#include "cli.h"

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
        fprintf(stderr, "synctrace: recover: %s already holds an archive; nothing to do\n", dir);
        return 1;
    }
    st_rankdata_t *ranks = NULL;
    int n = load_dumps(dir, &ranks);
    if (n <= 0) {
        if (n == 0)
            fprintf(stderr, "synctrace: recover: %s/partial holds no valid rank dump\n", dir);
        free(ranks);
        return 1;
    }
    st_rankdata_prop(&ranks[0], "RECOVERED_RANKS", "%d of %d", n, ranks[0].nranks);
    rc = st_otf2_write_serial(dir, ranks, n, ST_OTF2_INCOMPLETE);
    if (rc == 0)
        printf("recovered %d of %d ranks into %s (marked incomplete)\n", n, ranks[0].nranks, anchor);
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
