/*
 * check.h — happened-before checks of `synctrace check` on a loaded archive.
 *
 * Each pass finds the logical messages of one kind (ALGORITHMS.md §8 table) and counts
 * receives that carry an earlier timestamp than a send they depend on. Passes are pure
 * functions of the archive (no I/O besides the examples kept in the result), so unit tests
 * run them on archives built in memory. Violations are counted per receiving event.
 */
#ifndef ST_CLI_CHECK_H
#define ST_CLI_CHECK_H

#include <stdint.h>

#include "archive.h"

#define ST_CLI_CHECK_EXAMPLES 8

typedef struct st_cli_check {
    int raw;                     /* in: compare timestamps before CLC (synctrace:orig_time) */
    /* violations */
    uint64_t p2p, coll, omp_fork, omp_join, omp_barrier, omp_lock;
    /* point-to-point matching */
    uint64_t matched, unmatched_sends, unmatched_recvs, cancelled, pending_recvs;
    /* collectives */
    uint64_t coll_instances, coll_incomplete, coll_unchecked;
    /* OpenMP */
    uint64_t omp_teams, omp_barriers, omp_acquisitions;
    /* the first few violations, one line each */
    char examples[ST_CLI_CHECK_EXAMPLES][240];
    int nexamples;
} st_cli_check_t;

/* Each returns 0, or -1 when out of memory. They add to *res. */
int st_cli_check_p2p(const st_cli_archive_t *ar, st_cli_check_t *res);
int st_cli_check_coll(const st_cli_archive_t *ar, st_cli_check_t *res);
int st_cli_check_omp(const st_cli_archive_t *ar, st_cli_check_t *res);

/* Total violations in res. */
uint64_t st_cli_check_total(const st_cli_check_t *res);

/* Timestamp of e the checks compare: the corrected one, or the one before CLC with raw. */
static inline uint64_t st_cli_check_time(const st_cli_check_t *res, const st_cli_event_t *e)
{
    return res->raw ? e->orig : e->time;
}

/*
 * Records one violation example: `what` (e.g. "p2p") where the receive (location index
 * rl, event ri) is earlier than the send (sl, si); detail is free text (may be "").
 */
void st_cli_check_example(const st_cli_archive_t *ar, st_cli_check_t *res, const char *what, size_t rl, size_t ri,
                          size_t sl, size_t si, const char *detail);

/* Open requests of one location (request id -> index), for the passes. Linear: few are open at once. */
typedef struct st_cli_reqs {
    struct st_cli_req { uint64_t req; size_t val; } *a;
    size_t n, cap;
} st_cli_reqs_t;
/* Sets req -> val (replacing an open request with the same id); -1 when out of memory. */
int st_cli_reqs_put(st_cli_reqs_t *t, uint64_t req, size_t val);
/* Removes req and returns 1 with its value in *val, or 0 when req is not open. */
int st_cli_reqs_take(st_cli_reqs_t *t, uint64_t req, size_t *val);
void st_cli_reqs_free(st_cli_reqs_t *t);

#endif
