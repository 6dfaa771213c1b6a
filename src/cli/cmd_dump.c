/*
 * cmd_dump.c — `synctrace dump DIR [--json]`: every event, one per line, in global time
 * order (merge.h). Text: aligned columns t, rank, thread, type, then name=value fields;
 * JSON lines: one object per event. Fields are documented in docs/dump-format.md.
 */
#include "cli.h"
#include "fields.h"
#include "merge.h"
#include "../util/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void text_value(FILE *out, const char *s)
{
    /* Quote values that would not read as one word (region names with spaces, ...). */
    if (*s && !strpbrk(s, " \t\"=\\"))
        fputs(s, out);
    else
        st_json_string(out, s);
}

static void print_json(FILE *out, const st_cli_archive_t *ar, const st_cli_location_t *l, const st_event_t *e)
{
    st_cli_field_t f[ST_CLI_MAX_FIELDS];
    int n = st_cli_event_fields(ar, e, f);
    fprintf(out, "{\"t\":%" PRId64 ",\"rank\":%d,\"thread\":%u,\"type\":\"%s\"", (int64_t)(e->time - ar->offset),
            l->rank, l->thread, st_event_kind_name(e->kind));
    for (int i = 0; i < n; i++) {
        fprintf(out, ",\"%s\":", f[i].name);
        if (f[i].type == ST_CLI_F_INT)
            fprintf(out, "%" PRId64, f[i].i);
        else
            st_json_string(out, f[i].s);
    }
    fputs("}\n", out);
}

static void print_text(FILE *out, const st_cli_archive_t *ar, const st_cli_location_t *l, const st_event_t *e)
{
    st_cli_field_t f[ST_CLI_MAX_FIELDS];
    int n = st_cli_event_fields(ar, e, f);
    fprintf(out, n ? "%15" PRId64 " %5d %6u  %-17s" : "%15" PRId64 " %5d %6u  %s", (int64_t)(e->time - ar->offset),
            l->rank, l->thread, st_event_kind_name(e->kind));
    for (int i = 0; i < n; i++) {
        fprintf(out, " %s=", f[i].name);
        if (f[i].type == ST_CLI_F_INT)
            fprintf(out, "%" PRId64, f[i].i);
        else
            text_value(out, f[i].s);
    }
    fputc('\n', out);
}

static int dump(const st_cli_archive_t *ar, int json)
{
    st_cli_merge_t m;
    if (st_cli_merge_init(&m, ar)) {
        fprintf(stderr, "synctrace: dump: out of memory\n");
        return 1;
    }
    if (!json)
        printf("%15s %5s %6s  %-17s %s\n", "t", "rank", "thread", "type", "fields");
    size_t loc;
    const st_event_t *e;
    while (st_cli_merge_next(&m, &loc, &e) && !ferror(stdout))
        (json ? print_json : print_text)(stdout, ar, &ar->locs[loc], e);
    st_cli_merge_free(&m);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "synctrace: dump: cannot write the output\n");
        return 1;
    }
    return 0;
}

static int run_dump(int argc, char **argv)
{
    static const char *const opts[] = {"--json", NULL};
    int flags[1] = {0};
    const char *dir;
    int rc = st_cli_args(&st_cli_cmd_dump, argc, argv, opts, flags, &dir);
    if (rc)
        return rc;
    st_cli_archive_t ar;
    if (st_cli_open(dir, &ar))
        return 1;
    rc = dump(&ar, flags[0]);
    st_cli_archive_free(&ar);
    return rc;
}

const st_cli_cmd_t st_cli_cmd_dump = {
    .name = "dump",
    .usage = "dump DIR [--json]",
    .summary = "every event, one per line, in global time order",
    .help = "Prints every event of the archive in DIR, one per line, merged over all locations in\n"
            "time order (ties: lower rank, then thread first). t is in timer ticks (ns for synctrace\n"
            "archives) relative to the archive's global offset (ClockProperties); peer and root\n"
            "are world ranks. Fields per event type: see README (synctrace dump).\n"
            "  --json   JSON lines: one object per event ({\"t\":..,\"rank\":..,\"thread\":..,\"type\":..,...})\n",
    .reads_archive = 1,
    .run = run_dump,
};
