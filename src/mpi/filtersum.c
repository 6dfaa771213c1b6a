/*
 * filtersum.c — the calls a filter removed and the filter itself, into the rank data (filtersum.h).
 */
#include "filtersum.h"

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

void st_filtersum_props(st_rankdata_t *rd)
{
    if (!st_config.filter[0])
        return;
    const st_filter_t *f = &st_record_filter; /* read at load: a run whose filter could not be read stops there */
    st_rankdata_prop(rd, "FILTER", "%s", st_config.filter);
    st_rankdata_prop(rd, "FILTER_DIGEST", "fnv1a64:%016llx %llu bytes", (unsigned long long)f->digest,
                     (unsigned long long)f->bytes);
    st_rankdata_prop(rd, "FILTER_RULES", "%u", f->n_rules);
    for (unsigned k = 0; k < f->n_rules && k < ST_FILTER_MAX_RULES; k++) {
        char key[32];
        snprintf(key, sizeof key, "FILTER_RULE.%u", k + 1);
        st_rankdata_prop(rd, key, "%s", f->rule[k]);
    }
}
