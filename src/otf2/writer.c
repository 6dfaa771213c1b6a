/*
 * writer.c — the OTF2 archive's life: OTF2's errors, open/close, the archive
 * directory, removing a failed write, and the serial driver. The events are written
 * by events.c, the numbering by numbering.c, the global definitions by globaldefs.c.
 */
#include "writer_int.h"

#include "../util/archive_dir.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/log.h"

#define EVT_CHUNK (1u << 20)

const char *st_otf2_status_name(int status)
{
    static const char *const names[] = { "ok", "directory error", "archive exists", "data error",
                                         "OTF2 error", "out of memory", "MPI error", "write error" };
    return status >= 0 && status <= ST_OTF2_ERR_WRITE ? names[status] : "unknown error";
}

/* ---- OTF2 errors ------------------------------------------------------------------------ */

/* OTF2's last message, so our one error line can include it. */
static char otf2_msg[512];
static OTF2_ErrorCallback otf2_prev_handler;

/*
 * The first failure while an archive is open. OTF2 reports a failed write(2) of a buffer
 * (a full disk) only to the error callback and still returns success from
 * OTF2_Archive_Close, leaving a truncated archive; st_otf2_close() turns it into an error.
 * OTF2 has a code per errno (OTF2_ERROR_ENOSPC: "No space left on device"); the file is in
 * the message "POSIX: <path>".
 */
static struct {
    OTF2_ErrorCode rc;
    char file[4200];
} fault;

static void note_fault(OTF2_ErrorCode rc, const char *msg)
{
    if (rc == OTF2_SUCCESS || rc == OTF2_ERROR_PROCESSED_WITH_FAULTS || rc == OTF2_ERROR_INTEGRITY_FAULT)
        return; /* consequences of an earlier failure: keep the cause */
    if (!fault.rc)
        fault.rc = rc;
    if (!fault.file[0] && !strncmp(msg, "POSIX: /", 8))
        snprintf(fault.file, sizeof fault.file, "%s", msg + 7);
}

static OTF2_ErrorCode otf2_handler(void *ud, const char *file, uint64_t line, const char *fn,
                                   OTF2_ErrorCode rc, const char *fmt, va_list va)
{
    (void)ud;
    (void)file;
    (void)line;
    if (fmt)
        vsnprintf(otf2_msg, sizeof otf2_msg, fmt, va);
    else
        snprintf(otf2_msg, sizeof otf2_msg, "%s", OTF2_Error_GetDescription(rc));
    note_fault(rc, otf2_msg);
    st_log_debug("OTF2 %s in %s: %s", OTF2_Error_GetName(rc), fn ? fn : "?", otf2_msg);
    return rc;
}

int st_otf2_failed(OTF2_ErrorCode rc, const char *what)
{
    if (rc == OTF2_SUCCESS)
        return 0;
    if (fault.rc && (rc == OTF2_ERROR_INTEGRITY_FAULT || rc == OTF2_ERROR_PROCESSED_WITH_FAULTS)) {
        otf2_msg[0] = 0; /* a consequence of a failed write: st_otf2_close reports the cause, with the file */
        return 1;
    }
    st_log_error("OTF2 archive: %s failed: %s%s%s", what, OTF2_Error_GetName(rc),
                 otf2_msg[0] ? ": " : "", otf2_msg);
    otf2_msg[0] = 0;
    return 1;
}

/* ---- archive open / close ----------------------------------------------------------------- */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)ud;
    (void)ft;
    (void)loc;
    (void)cd;
    (void)final;
    return OTF2_FLUSH;
}

/* No post-flush callback: a BufferFlush record written now would be a lie (the
 * events were recorded long ago) and would break the announced event counts. */
static OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = pre_flush, .otf2_post_flush = NULL };

OTF2_Archive *st_otf2_open(const char *dir, uint64_t def_chunk)
{
    otf2_msg[0] = 0;
    memset(&fault, 0, sizeof fault);
    otf2_prev_handler = OTF2_Error_RegisterCallback(otf2_handler, NULL);
    OTF2_Archive *a = OTF2_Archive_Open(dir, ST_ARCHIVE_NAME, OTF2_FILEMODE_WRITE, EVT_CHUNK,
                                        def_chunk, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) {
        st_log_error("OTF2 archive: cannot open '%s/%s.otf2' for writing%s%s", dir,
                     ST_ARCHIVE_NAME, otf2_msg[0] ? ": " : "", otf2_msg);
        OTF2_Error_RegisterCallback(otf2_prev_handler, NULL);
        return NULL;
    }
    /* Only fails for invalid arguments. The handle is then left open on purpose:
     * OTF2 aborts the process when an archive without collective callbacks is closed. */
    if (st_otf2_failed(OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL), "setting flush callbacks")) {
        OTF2_Error_RegisterCallback(otf2_prev_handler, NULL);
        return NULL;
    }
    return a;
}

int st_otf2_close(OTF2_Archive *a, const char *dir)
{
    int rc = st_otf2_failed(OTF2_Archive_Close(a), "closing the archive") ? ST_OTF2_ERR_OTF2 : ST_OTF2_OK;
    OTF2_Error_RegisterCallback(otf2_prev_handler, NULL);
    if (fault.rc) {
        st_log_error("OTF2 archive: writing %s failed: %s; the archive is incomplete and is removed",
                     fault.file[0] ? fault.file : dir, OTF2_Error_GetDescription(fault.rc));
        rc = ST_OTF2_ERR_WRITE;
    }
    memset(&fault, 0, sizeof fault);
    return rc;
}

/* Unlinks the files of a failed write: DIR/traces.{otf2,def} and the regular files
 * in DIR/traces/. Only called after st_otf2_check_dir() saw none of them, so all
 * were created by this write. */
void st_otf2_remove_partial(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, ST_ARCHIVE_NAME);
    DIR *d = opendir(path);
    for (struct dirent *de; d && (de = readdir(d));) {
        char f[4500];
        struct stat st;
        snprintf(f, sizeof f, "%s/%s", path, de->d_name);
        if (lstat(f, &st) == 0 && S_ISREG(st.st_mode))
            unlink(f);
    }
    if (d)
        closedir(d);
    rmdir(path);
    snprintf(path, sizeof path, "%s/%s.otf2", dir, ST_ARCHIVE_NAME);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s.def", dir, ST_ARCHIVE_NAME);
    unlink(path);
}

/* ---- the archive directory ---------------------------------------------------------------------- */

static int dir_error(const char *dir, const char *what, int err)
{
    st_log_error("OTF2 archive: cannot write into '%s': %s%s%s (expected a writable directory or a path "
                 "where one can be created)", dir, what, err ? ": " : "", err ? strerror(err) : "");
    return ST_OTF2_ERR_DIR;
}

int st_otf2_check_dir(const char *dir)
{
    if (!dir || !*dir) {
        st_log_error("OTF2 archive: no archive directory given");
        return ST_OTF2_ERR_DIR;
    }
    st_dir_verdict_t v;
    switch (st_archive_dir_check(dir, &v)) {
    case ST_DIR_USABLE:
        break;
    case ST_DIR_NOT_CREATABLE:
        return dir_error(dir, "cannot create the directory", v.err);
    case ST_DIR_NOT_A_DIR:
        return dir_error(dir, "it exists and is not a directory", 0);
    case ST_DIR_UNSAFE:
        return dir_error(dir, v.why, 0);
    case ST_DIR_NOT_WRITABLE:
        return dir_error(dir, "cannot create files in it", v.err);
    case ST_DIR_HOLDS_ARCHIVE:
        st_log_error("OTF2 archive: '%s' already holds an archive ('%s' exists); synctrace never "
                     "overwrites one: choose another directory or remove it", dir, v.taken);
        return ST_OTF2_ERR_EXISTS;
    }
    return ST_OTF2_OK;
}

int st_otf2_prepare(st_rankdata_t *rd)
{
    return st_rankdata_prepare(rd) == 0 ? ST_OTF2_OK : ST_OTF2_ERR_NOMEM;
}

/* ---- serial driver ---------------------------------------------------------------------------------- */

/* An empty stand-in for a rank that left no data, so every world rank has a location. */
static int placeholder(st_rankdata_t *p, int32_t rank, int32_t world)
{
    memset(p, 0, sizeof *p);
    p->rank = rank;
    p->nranks = world;
    p->flags = ST_RANKF_INCOMPLETE;
    p->timer_resolution = 1000000000u;
    snprintf(p->nodename, sizeof p->nodename, "unknown");
    p->threads = calloc(1, sizeof *p->threads);
    if (!p->threads)
        return -1;
    p->nthreads = 1;
    p->threads[0].omp_num = -1;
    return 0;
}

/* Pointers to ranks plus placeholders for missing ones (in *extra, *nextra of them). */
static st_rankdata_t **with_placeholders(st_rankdata_t *ranks, int n, int *total, st_rankdata_t **extra,
                                         int *nextra)
{
    st_rankdata_t **all = malloc((size_t)(n > 0 ? n : 1) * sizeof *all);
    for (int i = 0; all && i < n; i++)
        all[i] = &ranks[i];
    int32_t w = all ? st_otf2_world_size(all, n) : 0;
    uint8_t *seen = calloc((size_t)w + 1, 1);
    st_rankdata_t **grown = all && seen ? realloc(all, ((size_t)w + (size_t)n + 1) * sizeof *all) : NULL;
    *extra = calloc((size_t)w + 1, sizeof **extra);
    *nextra = 0;
    if (!grown || !*extra)
        goto fail;
    all = grown;
    for (int i = 0; i < n; i++)
        if (ranks[i].rank >= 0 && ranks[i].rank < w)
            seen[ranks[i].rank] = 1;
    *total = n;
    for (int32_t r = 0; r < w; r++)
        if (!seen[r]) {
            if (placeholder(&(*extra)[*nextra], r, w) != 0)
                goto fail;
            all[(*total)++] = &(*extra)[(*nextra)++];
        }
    free(seen);
    return all;
fail:
    st_log_error("OTF2 archive: out of memory");
    free(seen);
    free(grown ? grown : all);
    return NULL;
}

int st_otf2_write_serial(const char *dir, st_rankdata_t *ranks, int nranks, unsigned flags)
{
    int rc = st_otf2_check_dir(dir), total = 0;
    for (int i = 0; rc == ST_OTF2_OK && i < nranks; i++)
        rc = st_otf2_prepare(&ranks[i]);
    if (rc != ST_OTF2_OK)
        return rc;
    for (int i = 0; i < nranks; i++)
        st_rankdata_span(&ranks[i]);
    st_rankdata_t *extra = NULL;
    int nextra = 0;
    st_rankdata_t **all = with_placeholders(ranks, nranks, &total, &extra, &nextra);
    size_t len = 0;
    uint64_t *num = all ? st_otf2_numbering(all, total, &len) : NULL;
    OTF2_Archive *a = num ? st_otf2_open(dir, st_otf2_def_chunk(all, total)) : NULL;
    if (!a)
        rc = num ? ST_OTF2_ERR_OTF2 : all ? ST_OTF2_ERR_DATA : ST_OTF2_ERR_NOMEM;
    else if (st_otf2_failed(OTF2_Archive_SetSerialCollectiveCallbacks(a), "setting serial mode"))
        rc = ST_OTF2_ERR_OTF2; /* not closed: OTF2 would abort (see st_otf2_open) */
    else {
        rc = st_otf2_write_local(a, all, total, num, len);
        rc = st_otf2_first_error(rc, st_otf2_write_global(a, all, total, num, len, flags));
        rc = st_otf2_first_error(rc, st_otf2_close(a, dir));
    }
    if (rc != ST_OTF2_OK)
        st_otf2_remove_partial(dir);
    for (int i = 0; extra && i < nextra; i++)
        st_rankdata_free(&extra[i]);
    free(extra);
    free(all);
    free(num);
    return rc;
}
