/*
 * archive_dir.h — choosing and creating the directory an archive goes into.
 *
 * A requested directory (SYNCTRACE_DIR) is created if missing (with parents) and
 * must be writable and must not hold an archive already: synctrace never overwrites
 * one. Without a request a new directory synctrace-YYYYMMDD-HHMMSS[-N] is created in
 * the working directory; mkdir's atomicity makes the name unique.
 */
#ifndef ST_ARCHIVE_DIR_H
#define ST_ARCHIVE_DIR_H

#include <stddef.h>

/*
 * Whether another user could redirect or replace what the tool creates in dir. An archive directory
 * (shared == 0) must be owned by the effective user and writable by nobody else: the OTF2 library opens its
 * files by name, so a symlink planted there would be written through. A temporary directory (shared != 0)
 * may be a system one like /tmp (owned by root, sticky bit) because the tool creates files there only with
 * O_EXCL under unpredictable names. Returns NULL, or the reason in words ("owned by uid 1000, not by you").
 * st: the directory's stat (after following links: the directory that will be written into).
 */
struct stat;
const char *st_dir_unsafe(const struct stat *st, int shared, char *buf, size_t len);

/* The archive's names in its directory: DIR/traces.otf2 (the anchor file), DIR/traces.def, DIR/traces/. */
#define ST_ARCHIVE_NAME "traces"

/* The rules an archive directory breaks first, in the order st_archive_dir_check() checks them. */
typedef enum st_dir_fault {
    ST_DIR_USABLE = 0,
    ST_DIR_NOT_CREATABLE, /* missing, and it (or a parent) cannot be created: err */
    ST_DIR_NOT_A_DIR,     /* it exists and is not a directory */
    ST_DIR_UNSAFE,        /* another user could plant links in it (st_dir_unsafe): why */
    ST_DIR_NOT_WRITABLE,  /* no file can be created in it: err */
    ST_DIR_HOLDS_ARCHIVE  /* an archive's file or directory is there already: taken */
} st_dir_fault_t;

typedef struct st_dir_verdict {
    st_dir_fault_t fault;
    int            err;       /* errno of NOT_CREATABLE and NOT_WRITABLE */
    const char    *taken;     /* HOLDS_ARCHIVE: "traces.otf2", "traces.def" or "traces" */
    char           why[160];  /* UNSAFE: the reason in words */
} st_dir_verdict_t;

/*
 * Creates dir (and missing parents, not writable by others) if needed and checks that an archive can be
 * written into it: a directory, safe (st_dir_unsafe, shared == 0), files can be created in it (tried with
 * a probe file: as root, access(W_OK) says yes even on a read-only mount), and no archive's name is taken
 * (synctrace never overwrites one). Returns the first rule broken (ST_DIR_USABLE when none), with the
 * details in *v; the caller words the message.
 */
st_dir_fault_t st_archive_dir_check(const char *dir, st_dir_verdict_t *v);

/* Returns 0 with the directory in out, or -1 with a one-line reason in err. */
int st_archive_dir_prepare(const char *requested, char *out, size_t cap, char *err, size_t errlen);

#endif
