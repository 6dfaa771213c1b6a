/*
 * merge.h — all events of an archive in global time order.
 *
 * A k-way merge of the locations' event arrays on (timestamp, location index); locations
 * are sorted by (rank, thread), so ties go to the lower rank, then thread, and events of one location keep
 * their recorded order (a location whose timestamps go backwards is not re-sorted). Memory
 * O(number of locations). Not thread-safe; the archive must outlive the iterator.
 */
#ifndef ST_CLI_MERGE_H
#define ST_CLI_MERGE_H

#include <stddef.h>

#include "archive.h"

typedef struct st_cli_merge {
    const st_cli_archive_t *ar;
    size_t *pos;   /* next event of each location */
    size_t *heap;  /* location indexes, min-heap on (time of next event, index) */
    size_t n;
} st_cli_merge_t;

/* Returns 0, or -1 when out of memory. */
int st_cli_merge_init(st_cli_merge_t *m, const st_cli_archive_t *ar);
/* Next event: returns 1 with its location index and event, 0 when all are consumed. */
int st_cli_merge_next(st_cli_merge_t *m, size_t *loc, const st_event_t **ev);
void st_cli_merge_free(st_cli_merge_t *m);

#endif
