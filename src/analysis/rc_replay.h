/*
 * rc_replay.h — what the parts of the root-cause replay share (rootcause.h's st_rc_run): the index
 * of the timeline's relations (rc_index.c), the waits with their delayers and downstream costs, the
 * causes tables (rc_causes.c), the critical path and its derived metrics (rc_cpath.c). Not for use
 * outside src/analysis.
 */
#ifndef ST_AN_RC_REPLAY_H
#define ST_AN_RC_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "rootcause.h"

#define RC_NONE UINT32_MAX

/* Which ends of a relation can delay a wait (the delayer's roles, rootcause.h). */
enum rc_class { RC_SENDS, RC_SENDS_ROOT, RC_SENDS_NONROOT, RC_POSTS, RC_RECEIVES, RC__CLASSES };

/* One end of a relation: a call of a location that has the key. */
typedef struct rc_end {
    uint32_t loc, call, role;
} rc_end_t;

/* An end by (location, call); loc RC_NONE: none. */
typedef struct rc_at {
    uint32_t loc, call;
} rc_at_t;

/* The relations of a timeline by key: every relation's key numbered (in the order of the locations,
 * their calls and relations, through a hash on the key's words), each key's run of ends in (location,
 * call) order; for a key with many ends (a collective) the latest-entering end of each class and the
 * latest on another location, so that each member's delayer is found in O(1). */
typedef struct rc_key {
    uint64_t start; /* first end of the key's run */
    uint32_t n;     /* ends in the run */
    uint32_t best;  /* index into rc_index_t.best (RC__CLASSES x 2 entries), RC_NONE: none */
} rc_key_t;
typedef struct rc_index {
    rc_end_t *ends;
    size_t    nends;
    rc_key_t *keys;
    size_t    nkeys;
    uint32_t *rkey;  /* [relations] each relation's key: by location (rbase) and its index there */
    uint64_t *rbase; /* [nlocs] a location's first relation in rkey */
    rc_at_t  *best;
    size_t    nbest;
} rc_index_t;

/* Builds the index of in's relations. 0, or -1 (memory). */
int rc_index_build(rc_index_t *ix, const st_rc_input_t *in);
void rc_index_free(rc_index_t *ix);
/* The run of ends (*n of them) of relation `rel` of location loc (its index in the location's rels), and
 * its key. */
const rc_end_t *rc_index_run(const rc_index_t *ix, uint32_t loc, uint64_t rel, size_t *n, const rc_key_t **key);
/* a enters later than b (ties: smaller location, then earlier call); any a is later than none. */
int rc_later(const st_rc_input_t *in, rc_at_t a, rc_at_t b);
/* The end of class cls of a key's run (ends e[0..n), key k) with the latest enter on a location other than
 * not_loc (ties: smaller location, then earlier call); loc RC_NONE if none. */
rc_at_t rc_index_best(const rc_index_t *ix, const st_rc_input_t *in, const rc_end_t *e, size_t n, const rc_key_t *k,
                      int cls, uint32_t not_loc);

/* Downstream waiting time a wait passed on, by the wait state it ended in (metric, cnode). */
typedef struct rc_origin {
    int32_t  metric;
    uint32_t cnode;
    double   ticks;
} rc_origin_t;

/* A wait of the timeline. */
typedef struct rc_wait {
    uint32_t     loc, call, idx; /* the waiting call; idx: the wait's index in the location's waits */
    rc_at_t      by;             /* its delayer (loc RC_NONE: none) */
    double       indirect;       /* the part due to the delayer's own waits (scale * W_D) */
    double       prop;           /* the largest part of it that caused one later wait */
    rc_origin_t *orig;           /* R: the waiting it caused downstream, by origin; freed once replayed */
    uint32_t     norig, corig;
} rc_wait_t;

/* The causes being collected: per (metric, wait cnode, delay location, delay cnode). */
typedef struct rc_causes_acc {
    st_rc_cause_t *v;
    size_t         n, cap;
    uint32_t      *slot; /* 1 + index into v, 0 empty */
    size_t         mask;
} rc_causes_acc_t;

typedef struct rc_ctx {
    st_an_result_t      *res;
    const st_rc_input_t *in;
    rc_index_t           ix;
    uint64_t            *wbase; /* [nlocs + 1]: a location's first wait in w */
    rc_wait_t           *w;     /* every wait: by location, call, index */
    size_t               nw;
    uint64_t             first, last; /* the run: the earliest first and latest last event */
    rc_causes_acc_t      acc;   /* NULL causes: unused */
    int                  want_causes;
} rc_ctx_t;

/* Adds v to metric m at (cnode, loc) and to every ancestor of m. */
void rc_add(st_an_result_t *res, int m, uint32_t cnode, uint32_t loc, double v);

/* Adds (short, long) to the cause (metric, wait cnode, delay loc, delay cnode). 0, or -1 (memory). */
int rc_cause_add(rc_causes_acc_t *a, int32_t metric, uint32_t wcnode, uint32_t dloc, uint32_t dcnode, double s, double l);
/* Moves the collected causes into c (sorted as rootcause.h says) and the propagating amount of every wait
 * state (from x's waits); frees a. 0, or -1 (memory). */
int rc_causes_finish(rc_ctx_t *x, st_rc_causes_t *c);
void rc_causes_acc_free(rc_causes_acc_t *a);

/* The critical path (rootcause.h), its hops into c (may be NULL), and the derived imbalance metrics.
 * 0, or -1 (memory). */
int rc_cpath(rc_ctx_t *x, st_rc_causes_t *c);

#endif
