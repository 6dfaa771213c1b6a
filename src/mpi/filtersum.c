/*
 * filtersum.c — the calls a filter removed and the filter itself, into the rank data (filtersum.h).
 */
#include "filtersum.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config/config.h"
#include "../model/region.h"
#include "../util/log.h"

uint32_t st_filtersum_snapshot(st_thread_t *const *threads, size_t nth, st_filtered_sum_t *out, uint32_t cap)
{
    uint32_t n = 0;
    for (size_t i = 0; i < nth; i++) {
        const st_filtered_t *f = threads[i]->filtered;
        for (uint32_t r = 0; f && r < ST_REGION__COUNT; r++) {
            if (!f[r].visits)
                continue;
            if (n < cap)
                out[n] = (st_filtered_sum_t){ .thread = threads[i]->index, .region = r, .visits = f[r].visits,
                                              .time = f[r].time };
            n++;
        }
    }
    return n;
}

int st_filtersum_collect(st_rankdata_t *rd)
{
    size_t nth;
    st_thread_t **threads = st_record_threads(&nth);
    uint32_t n = st_filtersum_snapshot(threads, nth, NULL, 0);
    rd->filtered = NULL, rd->nfiltered = 0;
    if (!n)
        return 0;
    if (!(rd->filtered = malloc(sizeof *rd->filtered * n))) {
        st_log_error("out of memory collecting the counts of filtered calls; the archive has none");
        return -1;
    }
    rd->nfiltered = st_filtersum_snapshot(threads, nth, rd->filtered, n);
    return 0;
}

/* A line without its leading and trailing blanks (in place). */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* The filter file as first read (at load, by the dump's preparation; else at the end): later calls
 * give the same properties without reading it again. Not thread-safe (the lifecycle's threads). */
static struct {
    int      read;
    unsigned rules;
    char     digest[96];
    char     rule[ST_FILTERSUM_MAX_RULES][192];
} seen;

static void read_filter(void)
{
    FILE *f = fopen(st_config.filter, "r");
    seen.read = 1;
    if (!f) {
        snprintf(seen.digest, sizeof seen.digest, "unreadable: %s", strerror(errno));
        return;
    }
    uint64_t h = 0xcbf29ce484222325ull, bytes = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        for (const char *p = line; *p; p++, bytes++)
            h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
        char *hash = strchr(line, '#'), *t;
        if (hash)
            *hash = 0;
        if (!*(t = trim(line)))
            continue;
        if (seen.rules < ST_FILTERSUM_MAX_RULES)
            snprintf(seen.rule[seen.rules], sizeof seen.rule[0], "%s", t);
        seen.rules++;
    }
    if (ferror(f))
        snprintf(seen.digest, sizeof seen.digest, "unreadable: read error");
    else
        snprintf(seen.digest, sizeof seen.digest, "fnv1a64:%016llx %llu bytes", (unsigned long long)h,
                 (unsigned long long)bytes);
    fclose(f);
}

void st_filtersum_props(st_rankdata_t *rd)
{
    if (!st_config.filter[0])
        return;
    if (!seen.read)
        read_filter();
    st_rankdata_prop(rd, "FILTER", "%s", st_config.filter);
    st_rankdata_prop(rd, "FILTER_DIGEST", "%s", seen.digest);
    st_rankdata_prop(rd, "FILTER_RULES", "%u", seen.rules);
    for (unsigned k = 0; k < seen.rules && k < ST_FILTERSUM_MAX_RULES; k++) {
        char key[32];
        snprintf(key, sizeof key, "FILTER_RULE.%u", k + 1);
        st_rankdata_prop(rd, key, "%s", seen.rule[k]);
    }
}
