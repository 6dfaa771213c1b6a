/* fileio.h — closing a stdio file that was written, with the cause of any failure. */
#ifndef ST_FILEIO_H
#define ST_FILEIO_H

#include <stdio.h>

/*
 * Flushes and closes f (which is gone afterwards, whatever happens). Returns 0, or the errno of the
 * first failure (a write error seen earlier on f, the flush, or the close; EIO when the cause is not known),
 * so the caller can name the file and the cause (ENOSPC: "No space left on device").
 */
int st_file_close(FILE *f);

/*
 * A file that appears whole or not at all: written under a temporary name beside its final one and
 * renamed to it only once complete, so that a full disk or a crash leaves no truncated file behind
 * (an older file of that name stays until the new one replaces it). The temporary is created with
 * O_EXCL | O_NOFOLLOW under a random name, so no link or file that someone planted is written through.
 * A path that names something other than a regular file (a device or pipe: /dev/stdout) is written into.
 */
typedef struct st_file_new {
    FILE *f;
    char  tmp[4352];
    char  path[4352];
} st_file_new_t;

/* Creates the temporary (mode 0666 less the umask) and opens n->f on it. 0, or the errno. */
int st_file_new_open(st_file_new_t *n, const char *path);

/*
 * Closes n->f (st_file_close) and renames the temporary to the final name; removes it instead when the close
 * fails, when failed is not 0 (the writer's own errno: it gave up) or when the rename fails. Returns 0, or the
 * cause: the close's first (a write the stream saw fail: ENOSPC), else failed, else the rename's.
 */
int st_file_new_commit(st_file_new_t *n, int failed);

#endif
