/*
 * archive_load.c — opens an archive, runs the loading passes, checks what it got.
 *
 * The OTF2 library reports errors through a callback (printed to stderr by default); the
 * CLI keeps the first message of a failure instead, so the user sees one line naming the
 * archive and the reason. Crashes of the OTF2 library on corrupt files are handled one
 * level up, by running commands in a child process (guard.c).
 */
#include "archive_read.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- OTF2 error capture ------------------------------------------------------------- */

static char otf2_msg[512];

static OTF2_ErrorCode on_otf2_error(void *u, const char *file, uint64_t line, const char *fn, OTF2_ErrorCode code,
                                    const char *fmt, va_list va)
{
    (void)u; (void)file; (void)line; (void)fn;
    if (!otf2_msg[0]) {
        char detail[384] = "";
        if (fmt)
            vsnprintf(detail, sizeof detail, fmt, va);
        snprintf(otf2_msg, sizeof otf2_msg, "%s%s%s", OTF2_Error_GetDescription(code), *detail ? ": " : "", detail);
    }
    return code;
}

const char *st_cli_otf2_error(void) { return otf2_msg[0] ? otf2_msg : "unknown OTF2 error"; }
void st_cli_otf2_error_reset(void) { otf2_msg[0] = 0; }

void *st_cli_grow(void **arr, size_t *n, size_t *cap, size_t elem)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        void *p = nc > SIZE_MAX / elem ? NULL : realloc(*arr, nc * elem);
        if (!p)
            return NULL;
        *arr = p;
        *cap = nc;
    }
    char *slot = (char *)*arr + (*n)++ * elem;
    memset(slot, 0, elem);
    return slot;
}

/* ---- loading -------------------------------------------------------------------------- */

/* DIR/traces.otf2, or dir itself when it names an .otf2 file; NULL with err otherwise. */
static char *anchor_path(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(err, errlen, "no such file or directory");
        return NULL;
    }
    size_t len = strlen(dir);
    if (S_ISREG(st.st_mode) && len > 5 && !strcmp(dir + len - 5, ".otf2"))
        return strdup(dir);
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "not a directory");
        return NULL;
    }
    char *p = malloc(len + sizeof "/traces.otf2");
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(p, len + sizeof "/traces.otf2", "%s/traces.otf2", dir);
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "no traces.otf2 in it");
        free(p);
        return NULL;
    }
    return p;
}

/*
 * The files OTF2 will open beside the anchor X.otf2 (X.def and everything in X/) must be regular files: a
 * FIFO or a device there would block the reader or feed it endless data. Returns 0, or -1 with the name.
 */
static int only_regular_files(const char *anchor, char *err, size_t errlen)
{
    char path[4200];
    size_t base = strlen(anchor) - 5; /* without ".otf2" */
    struct stat st;
    snprintf(path, sizeof path, "%.*s.def", (int)base, anchor);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", path);
        return -1;
    }
    snprintf(path, sizeof path, "%.*s", (int)base, anchor);
    DIR *d = opendir(path);
    if (!d)
        return 0; /* missing: OTF2 says what is missing */
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path + base, sizeof path - base, "/%s", e->d_name);
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "%s is not a regular file", path);
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

/* Every location must hold as many events as its definition announces (truncation check). */
static int check_counts(const st_cli_archive_t *ar, char *err, size_t errlen)
{
    for (size_t i = 0; i < ar->nlocs; i++) {
        const st_cli_location_t *l = &ar->locs[i];
        if (!l->skipped && l->declared && l->n != l->declared) {
            snprintf(err, errlen, "location %llu (rank %d thread %u) holds %zu events, its definition announces %llu%s",
                     (unsigned long long)l->id, l->rank, l->thread, l->n, (unsigned long long)l->declared,
                     l->n < l->declared ? " (truncated event file?)" : "");
            return -1;
        }
    }
    return 0;
}

/*
 * Every timestamp lies in the range the clock properties announce (global offset .. offset + trace length),
 * and a time before CLC (orig) lies within one trace length of the event's time: commands
 * subtract and compare times, and a corrupt value would turn into absurd results (a shift of 2^63 ns).
 */
static int check_times(const st_cli_archive_t *ar, char *err, size_t errlen)
{
    uint64_t lo = ar->offset, len = ar->length;
    for (size_t l = 0; l < ar->nlocs; l++)
        for (size_t i = 0; i < ar->locs[l].n; i++) {
            const st_event_t *e = &ar->locs[l].ev[i];
            const char *what = NULL;
            uint64_t bad = 0;
            if (e->time < lo || e->time - lo > len)
                what = "timestamp", bad = e->time;
            else if ((e->flags & ST_EVF_CLC_MOVED) &&
                     (st_event_orig_time(e) > e->time ? st_event_orig_time(e) - e->time
                                                      : e->time - st_event_orig_time(e)) > len)
                what = "time before CLC (synctrace:orig_time)", bad = st_event_orig_time(e);
            if (what) {
                snprintf(err, errlen, "rank %d thread %u, event %llu: %s %llu outside the trace's time range %llu .. "
                         "%llu (clock properties)", ar->locs[l].rank, ar->locs[l].thread, (unsigned long long)i, what,
                         (unsigned long long)bad, (unsigned long long)lo, (unsigned long long)(lo + len));
                return -1;
            }
        }
    return 0;
}

static int load(OTF2_Reader *rd, st_cli_archive_t *ar, st_cli_rank_pick_fn pick, void *ctx, char *err,
                size_t errlen)
{
    uint64_t nlocs = 0;
    if (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS ||
        OTF2_Reader_GetNumberOfLocations(rd, &nlocs) != OTF2_SUCCESS) {
        snprintf(err, errlen, "bad anchor file: %s", st_cli_otf2_error());
        return -1;
    }
    if (st_cli_read_defs(rd, ar, err, errlen) || st_cli_resolve_comms(ar, err, errlen))
        return -1;
    if (ar->nlocs != nlocs) {
        snprintf(err, errlen, "the anchor file announces %llu locations, the definitions define %zu",
                 (unsigned long long)nlocs, ar->nlocs);
        return -1;
    }
    for (size_t i = 0; pick && i < ar->nlocs; i++) /* sorted by rank: one call per rank */
        ar->locs[i].skipped = i && ar->locs[i].rank == ar->locs[i - 1].rank ? ar->locs[i - 1].skipped
                                                                            : !pick(ar, ar->locs[i].rank, ctx);
    if (st_cli_read_events(rd, ar, err, errlen))
        return -1;
    return check_counts(ar, err, errlen) || check_times(ar, err, errlen) ? -1 : 0;
}

int st_cli_archive_load(const char *dir, st_cli_archive_t *ar, char *err, size_t errlen)
{
    return st_cli_archive_load_ranks(dir, ar, NULL, NULL, err, errlen);
}

int st_cli_archive_load_ranks(const char *dir, st_cli_archive_t *ar, st_cli_rank_pick_fn pick, void *ctx, char *err,
                              size_t errlen)
{
    memset(ar, 0, sizeof *ar);
    for (unsigned a = 0; a < ST_ATTR__COUNT; a++)
        ar->attr[a] = ST_CLI_NONE;
    if (!(ar->path = anchor_path(dir, err, errlen)))
        return -1;
    if (only_regular_files(ar->path, err, errlen) != 0) {
        st_cli_archive_free(ar);
        return -1;
    }
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
    st_cli_otf2_error_reset();
    OTF2_Reader *rd = OTF2_Reader_Open(ar->path);
    int rc = -1;
    if (!rd)
        snprintf(err, errlen, "bad anchor file: %s", st_cli_otf2_error());
    else
        rc = load(rd, ar, pick, ctx, err, errlen);
    if (rd)
        OTF2_Reader_Close(rd);
    if (rc)
        st_cli_archive_free(ar);
    return rc;
}

void st_cli_archive_free(st_cli_archive_t *ar)
{
    for (size_t i = 0; i < ar->nstrings; i++) free(ar->strings[i].s);
    for (size_t i = 0; i < ar->ngroups; i++) free(ar->groups[i].members);
    for (size_t i = 0; i < ar->ncomms; i++) {
        free(ar->comms[i].world);
        free(ar->comms[i].world_b);
        free(ar->comms[i].members);
    }
    for (size_t i = 0; i < ar->nlocs; i++) free(ar->locs[i].ev);
    for (size_t i = 0; i < ar->ncctxs; i++) free(ar->cctxs[i].path);
    for (size_t i = 0; i < ar->nprops; i++) {
        free(ar->props[i].name);
        free(ar->props[i].value);
    }
    free(ar->strings);
    free(ar->regions);
    free(ar->groups);
    free(ar->comms);
    free(ar->wins);
    free(ar->locs);
    free(ar->cctxs);
    free(ar->scls);
    free(ar->props);
    free(ar->lgroups);
    free(ar->sysnodes);
    free(ar->gprops);
    free(ar->lprops);
    free(ar->path);
    memset(ar, 0, sizeof *ar);
}
