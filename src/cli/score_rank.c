/*
 * score_rank.c — the order of `synctrace score`'s rows, their sums per group and the proposed
 * filter (score.h). Works on rows alone, so a test can feed it a profile made by hand.
 */
#include "score.h"

#include <stdlib.h>
#include <string.h>

static int by_bytes(const void *a, const void *b)
{
    const st_score_row_t *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->visits != y->visits)
        return x->visits > y->visits ? -1 : 1;
    return strcmp(x->name, y->name);
}

void st_score_rank(st_score_row_t *rows, size_t n)
{
    if (n > 1)
        qsort(rows, n, sizeof *rows, by_bytes);
}

void st_score_groups(const st_score_row_t *rows, size_t n, st_score_row_t out[ST_SCORE__GROUPS])
{
    for (unsigned g = 0; g < ST_SCORE__GROUPS; g++)
        out[g] = (st_score_row_t){.name = st_score_group_name(g), .region = ST_CLI_NONE, .group = (uint8_t)g};
    for (size_t i = 0; i < n; i++) {
        st_score_row_t *o = &out[rows[i].group < ST_SCORE__GROUPS ? rows[i].group : ST_SCORE_USER];
        o->visits += rows[i].visits;
        o->visits_max = rows[i].visits_max > o->visits_max ? rows[i].visits_max : o->visits_max;
        o->events += rows[i].events;
        o->bytes += rows[i].bytes;
        o->own_bytes += rows[i].own_bytes;
        o->time_ns += rows[i].time_ns;
    }
}

size_t st_score_propose(const st_score_row_t *rows, size_t n, const st_score_rule_t *rule, unsigned char *pick,
                        uint64_t *saved)
{
    size_t k = 0;
    *saved = 0;
    for (size_t i = 0; i < n; i++) {
        const st_score_row_t *r = &rows[i];
        pick[i] = !r->unfilterable && r->visits && r->visits_max >= rule->min_visits &&
                  (double)r->time_ns / (double)r->visits <= rule->max_ns_per_visit;
        if (pick[i])
            k++, *saved += r->own_bytes;
    }
    return k;
}
