/*
 * archive_read.h — internal to the archive loader (archive_*.c): the passes that fill an
 * st_cli_archive_t from an open OTF2 reader. Each returns 0, or -1 with a one-line reason
 * in err. Not for commands: they use st_cli_archive_load() (archive.h).
 */
#ifndef ST_CLI_ARCHIVE_READ_H
#define ST_CLI_ARCHIVE_READ_H

#include <otf2/otf2.h>
#include <stdlib.h>

#include "archive.h"
#include "../otf2/location.h"

/* Global definitions and archive properties. */
int st_cli_read_defs(OTF2_Reader *rd, st_cli_archive_t *ar, char *err, size_t errlen);
/* Builds every communicator's world-rank tables from the groups (after st_cli_read_defs). */
int st_cli_resolve_comms(st_cli_archive_t *ar, char *err, size_t errlen);
/* Local definitions (mapping tables, optional) and all events of every location. */
int st_cli_read_events(OTF2_Reader *rd, st_cli_archive_t *ar, char *err, size_t errlen);

/* Appends to a growable array; returns a pointer to the new zeroed slot, NULL when out of memory. */
void *st_cli_grow(void **arr, size_t *n, size_t *cap, size_t elem);

/* qsort that accepts an empty (possibly NULL) array. */
static inline void st_cli_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

/* The first error message the OTF2 library reported since the last call ("" if none). */
const char *st_cli_otf2_error(void);
void st_cli_otf2_error_reset(void);

#endif
