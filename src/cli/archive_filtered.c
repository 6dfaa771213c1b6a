/*
 * archive_filtered.c — the calls a filter removed, as an archive keeps them (archive.h,
 * st_cli_filtered): location properties SYNCTRACE::FILTERED_<k> = "<region> <visits> <ns>".
 */
#include "archive_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The location with OTF2 id id, NULL when unknown (the locations are sorted by rank and thread). */
static const st_cli_location_t *location_by_id(const st_cli_archive_t *ar, uint64_t id)
{
    for (size_t i = 0; i < ar->nlocs; i++)
        if (ar->locs[i].id == id)
            return &ar->locs[i];
    return NULL;
}

/* "<region> <visits> <time>" into f. 0, or -1 if malformed. */
static int parse(const st_cli_archive_t *ar, uint32_t value, st_cli_filtered_t *f)
{
    const char *v = st_cli_string(ar, value), *sp = strchr(v, ' ');
    unsigned long long visits, time;
    char tail;
    if (!sp || sp == v || (size_t)(sp - v) >= sizeof f->region || sscanf(sp, " %llu %llu%c", &visits, &time, &tail) != 2)
        return -1;
    memcpy(f->region, v, (size_t)(sp - v));
    f->region[sp - v] = 0;
    f->visits = visits, f->time = time;
    return 0;
}

int st_cli_filtered(const st_cli_archive_t *ar, st_cli_filtered_t **out, size_t *n)
{
    *out = NULL, *n = 0;
    size_t count = 0;
    for (size_t i = 0; i < ar->nlprops; i++)
        count += !strncmp(st_cli_string(ar, ar->lprops[i].name), "SYNCTRACE::FILTERED_", 20);
    if (!count)
        return 0;
    st_cli_filtered_t *v = malloc(sizeof *v * count);
    if (!v)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < ar->nlprops; i++) {
        const st_cli_location_t *L = location_by_id(ar, ar->lprops[i].location);
        if (!L || ar->lprops[i].value == ST_CLI_NONE ||
            strncmp(st_cli_string(ar, ar->lprops[i].name), "SYNCTRACE::FILTERED_", 20) ||
            parse(ar, ar->lprops[i].value, &v[k]))
            continue;
        v[k].rank = L->rank, v[k].thread = L->thread;
        k++;
    }
    *out = v, *n = k;
    return 0;
}
