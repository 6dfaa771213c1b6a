/* check_util.c — shared pieces of the `check` passes: totals, examples, open-request tables. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

#include "archive_read.h"

uint64_t st_cli_check_total(const st_cli_check_t *r)
{
    return r->p2p + r->coll + r->omp_fork + r->omp_join + r->omp_barrier + r->omp_lock;
}

void st_cli_check_example(const st_cli_archive_t *ar, st_cli_check_t *res, const char *what, size_t rl, size_t ri,
                          size_t sl, size_t si, const char *detail)
{
    if (res->nexamples >= ST_CLI_CHECK_EXAMPLES)
        return;
    const st_cli_location_t *r = &ar->locs[rl], *s = &ar->locs[sl];
    const st_cli_event_t *re = &r->ev[ri], *se = &s->ev[si];
    long long tr = (long long)(st_cli_check_time(res, re) - ar->offset);
    long long ts = (long long)(st_cli_check_time(res, se) - ar->offset);
    snprintf(res->examples[res->nexamples++], sizeof res->examples[0],
             "%s: %s at rank %d thread %u t=%lld is %lld %s before %s at rank %d thread %u t=%lld%s%s", what,
             st_cli_kind_name(re->kind), r->rank, r->thread, tr, ts - tr, ar->resolution == 1000000000u ? "ns" : "ticks",
             st_cli_kind_name(se->kind), s->rank,
             s->thread, ts, *detail ? " " : "", detail);
}

int st_cli_reqs_put(st_cli_reqs_t *t, uint64_t req, size_t val)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->a[i].req == req) {
            t->a[i].val = val;
            return 0;
        }
    struct st_cli_req *slot = st_cli_grow((void **)&t->a, &t->n, &t->cap, sizeof *t->a);
    if (!slot)
        return -1;
    slot->req = req;
    slot->val = val;
    return 0;
}

int st_cli_reqs_take(st_cli_reqs_t *t, uint64_t req, size_t *val)
{
    for (size_t i = t->n; i-- > 0;)
        if (t->a[i].req == req) {
            *val = t->a[i].val;
            t->a[i] = t->a[--t->n];
            return 1;
        }
    return 0;
}

void st_cli_reqs_free(st_cli_reqs_t *t)
{
    free(t->a);
    t->a = NULL;
    t->n = t->cap = 0;
}
