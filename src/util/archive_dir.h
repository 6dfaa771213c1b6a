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

/* Returns 0 with the directory in out, or -1 with a one-line reason in err. */
int st_archive_dir_prepare(const char *requested, char *out, size_t cap, char *err, size_t errlen);

#endif
