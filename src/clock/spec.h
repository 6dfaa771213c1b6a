/*
 * spec.h — the SYNCTRACE_SYNC grammar: which scheme, which algorithm on each level,
 * and their parameters (documented in docs/clock-sync.md).
 *
 *   spec   := "none" | levels | scheme ["(" sopt ")"] [":" levels]
 *   scheme := "flat" | "h2hca" | "h3hca"          (1, 2, 3 levels)
 *   levels := level ("/" level)*                 (a bare list: 1 = flat, 2 = h2hca, 3 = h3hca)
 *   level  := alg ["(" opt ("," opt)* ")"]
 *   opt    := fit=N | pp=N | offset=skampi|meanrtt | intercept=0|1 | window=MS | lsq=0|1 | check=0|1
 *   sopt   := resync=offset|full
 *
 * Parsing needs no MPI: the algorithm names and the options each accepts come from
 * the caller (the descriptor table in algs_mpi.c), so the one table stays the only list.
 * Thread-safe (no shared state).
 */
#ifndef ST_CLOCK_SPEC_H
#define ST_CLOCK_SPEC_H

#include <stddef.h>

enum st_sync_scheme { ST_SCHEME_NONE, ST_SCHEME_FLAT, ST_SCHEME_H2HCA, ST_SCHEME_H3HCA };
enum st_sync_offset { ST_OFFSET_SKAMPI, ST_OFFSET_MEANRTT };
enum st_sync_resync { ST_RESYNC_OFFSET, ST_RESYNC_FULL };

#define ST_SYNC_MAX_LEVELS 3

/* What a name in the grammar may be: an algorithm and the options it accepts ("fit,pp,..."). */
typedef struct st_sync_alg_info {
    const char *name;
    const char *options;
} st_sync_alg_info_t;

/* One level as written; -1 (or window < 0) means "the algorithm's default". */
typedef struct st_sync_level_spec {
    char   alg[32];
    int    nfit;
    int    npp;
    int    offset;    /* st_sync_offset */
    int    intercept; /* recompute the intercept after the fit */
    int    check;     /* prop: verify the time source is shared */
    int    lsq;       /* least squares over fit points instead of the band fit */
    double window_ms; /* time the fit points are spread over */
} st_sync_level_spec_t;

typedef struct st_sync_spec {
    int                  scheme; /* st_sync_scheme */
    int                  nlevels;
    st_sync_level_spec_t level[ST_SYNC_MAX_LEVELS];
    int                  resync; /* st_sync_resync */
} st_sync_spec_t;

/*
 * Parses s. algs: the accepted algorithms, terminated by an entry with name NULL.
 * Returns 0, or -1 with one line in err naming SYNCTRACE_SYNC, the bad part and what
 * is accepted.
 */
int st_sync_spec_parse(const char *s, const st_sync_alg_info_t *algs, st_sync_spec_t *out, char *err,
                       size_t errlen);

/* The canonical text of a parsed spec (with defaults left out), for the archive. */
void st_sync_spec_format(const st_sync_spec_t *sp, char *buf, size_t len);

#endif
