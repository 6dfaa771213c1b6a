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

/* Returns 0 with the directory in out, or -1 with a one-line reason in err. */
int st_archive_dir_prepare(const char *requested, char *out, size_t cap, char *err, size_t errlen);

#endif
