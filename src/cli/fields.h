/*
 * fields.h — the named fields of one event, shared by the text and JSON forms of
 * `synctrace dump` (the field list is documented in docs/dump-format.md).
 */
#ifndef ST_CLI_FIELDS_H
#define ST_CLI_FIELDS_H

#include <stdint.h>

#include "archive.h"

#define ST_CLI_MAX_FIELDS 12

typedef struct st_cli_field {
    const char *name;
    enum { ST_CLI_F_INT, ST_CLI_F_STR } type;
    int64_t     i;
    const char *s;  /* owned by the archive */
} st_cli_field_t;

/*
 * Fills f (room for ST_CLI_MAX_FIELDS) with the fields of event e beyond t, rank, thread
 * and type, in a fixed order per kind; returns how many. Times are relative to the
 * archive's global offset.
 */
int st_cli_event_fields(const st_cli_archive_t *ar, const st_event_t *e, st_cli_field_t *f);

#endif
