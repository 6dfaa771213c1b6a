/*
 * rc_replay.h — what the parts of the root-cause replay share (rootcause.h's st_rc_run): the index
 * of the timeline's relations (rc_index.c), the waits with their delayers and downstream costs, the
 * causes tables (rc_causes.c), the critical path and its derived metrics (rc_cpath.c). Not for use
 * outside src/analysis.
 */
#ifndef ST_AN_RC_REPLAY_H
#define ST_AN_RC_REPLAY_H

#include <math.h>
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

/* Whether an end of role bits `role` belongs to class cls. */
int rc_in_class(uint32_t role, int cls);

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

/* The ends of relation rel (its index in the location's rels) of the location ctx names, sorted by (location,
 * call): *n of them, each *stride bytes beginning with its uint32_t location, call and role (rc_end_t and the
 * distributed replay's ends alike). */
typedef const void *(*rc_run_fn)(const void *ctx, uint64_t rel, size_t *n, size_t *stride);
/* The interval's start: the last call of location L before call x sharing a synchronization point with a call of
 * location D before call y (*kw), and D's latest such call (*kd); -1 both if none. A synchronization point is a
 * relation other than a message, or a message one of whose ends waited (ST_RC_WAITED), at the two ends that
 * waiting joined (a Late Sender's receive and send, a Late Receiver's send or completion and post): a message
 * nobody waited for synchronized nothing. The runs come from run(ctx, ...). */
void rc_shared_prev(const st_rc_loc_t *L, uint32_t x, uint32_t D, uint32_t y, rc_run_fn run, const void *ctx,
                    int64_t *kw, int64_t *kd);

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
    uint64_t     by_enter;       /* the delayer's enter: the wait's synchronization time */
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

/* The replay's metrics (metrics.def: the last ones) zero in res. */
void rc_zero_metrics(st_an_result_t *res);

/* Each metric's parent (metrics.def; ST_AN_M_ROOT: a top-level one): st_an_metric(m)->parent without a call. */
extern const int16_t rc_metric_parent[ST_AN__METRICS];

/* llround(w), inline: the replay rounds a call's waits once per call. For 0 <= w < 2^63 the fraction
 * w - trunc(w) is exact, so halves round away from zero as llround's do; anything else goes to llround. */
static inline int64_t rc_llround(double w)
{
    if (!(w >= 0 && w < 9.2e18))
        return llround(w);
    int64_t i = (int64_t)w;
    return i + (w - (double)i >= 0.5);
}

/* Adds v to metric m at (cnode, loc) and to every ancestor of m (the replay's innermost loops: inline). */
static inline void rc_add(st_an_result_t *res, int m, uint32_t cnode, uint32_t loc, double v)
{
    if (v == 0)
        return;
    double *cell = st_an_sev(res, 0, cnode, loc);
    uint64_t step = st_an_sev_metric_step(res);
    for (; m != ST_AN_M_ROOT; m = rc_metric_parent[m])
        cell[(uint64_t)m * step] += v;
}

/* ---- the pieces of a wait's replay (rc_replay.c), shared with the distributed replay (rc_dist.h) ---- */

/* The key type of the relations that can delay a wait of metric m (endpoints.h), 0: any. */
unsigned rc_key_type_of(int m);
/* A enters (at ea) later than b (at eb; b.loc RC_NONE: none): enter, then smaller location, then
 * earlier call. */
int rc_later_at(uint64_t ea, rc_at_t a, uint64_t eb, rc_at_t b);

/* The replay's order of waits: latest synchronization first, then the later leave of the waiting call,
 * then location, call and wait descending. */
typedef struct rc_order {
    uint64_t sync, leave;
    uint32_t loc, call, idx;
} rc_order_t;
static inline int rc_order_cmp(const rc_order_t *x, const rc_order_t *y)
{
    if (x->sync != y->sync)
        return x->sync > y->sync ? -1 : 1;
    if (x->leave != y->leave)
        return x->leave > y->leave ? -1 : 1;
    if (x->loc != y->loc)
        return x->loc > y->loc ? -1 : 1;
    if (x->call != y->call)
        return x->call > y->call ? -1 : 1;
    return x->idx > y->idx ? -1 : x->idx < y->idx;
}

/* Exclusive time per cnode, the cnodes touched in the order they were first added. */
typedef struct rc_acc {
    int64_t  *v;
    uint32_t *touched, nt;
    uint8_t  *in;
} rc_acc_t;
/* For ncnodes cnodes; 0, or -1 (memory). */
int rc_acc_init(rc_acc_t *a, uint32_t ncnodes);
void rc_acc_free(rc_acc_t *a);
void rc_acc_add(rc_acc_t *a, uint32_t c, int64_t v);
void rc_acc_clear(rc_acc_t *a);
/* Location L's exclusive time per cnode after call k0 (-1: from its start) up to call k1's enter into a;
 * returns the waits of the calls in between. */
double rc_interval(const st_rc_loc_t *L, int64_t k0, uint32_t k1, rc_acc_t *a);

/* Delayer D's interval for a wait (its timeline LD, calls kd + 1 .. y; the waiter's interval aw): D's exclusive
 * time per cnode into ad, its intermediate waits' sum into *wd; returns the share's denominator S + W_D
 * (rc_replay.c's header). */
double rc_charge_den(const st_rc_loc_t *LD, int64_t kd, uint32_t y, const rc_acc_t *aw, rc_acc_t *ad, double *wd);
/* What a wait's delayer D charges (rc_replay.c's header): wait sw at a call on cnode cx, its
 * downstream waiting orig[0 .. norig), the waiter's interval aw; D's timeline LD (location dres of
 * res, dloc in the causes), its calls kd + 1 .. y the interval (ad: scratch), KD D's waits (by index in
 * LD's waits: their propagation, and with pass_on their origins). *indirect: the part of sw due to D's
 * own waits. 0, or -1 (memory). */
int rc_charge(st_an_result_t *res, uint32_t dres, uint32_t dloc, const st_rc_loc_t *LD, rc_wait_t *KD, int pass_on,
              int64_t kd, uint32_t y, const st_rc_wait_t *sw, uint32_t cx, const rc_origin_t *orig, uint32_t norig,
              const rc_acc_t *aw, rc_acc_t *ad, rc_causes_acc_t *acc, double *indirect);
/* Adds v (> 0, else nothing) of wait state (metric, cnode) to a wait's downstream waiting (*o: *n entries, room
 * for *cap; realloc'd): to its entry, else a new one at the end. 0, or -1 (memory). */
int rc_origin_add(rc_origin_t **o, uint32_t *n, uint32_t *cap, int32_t metric, uint32_t cnode, double v);
/* The classification of a point-to-point wait sw (w its replay) at cnode c of location l of res. */
void rc_classify_one(st_an_result_t *res, uint32_t c, uint32_t l, const st_rc_wait_t *sw, const rc_wait_t *w);

/* Adds (short, long) to the cause (metric, wait cnode, delay loc, delay cnode). 0, or -1 (memory). */
int rc_cause_add(rc_causes_acc_t *a, int32_t metric, uint32_t wcnode, uint32_t dloc, uint32_t dcnode, double s, double l);
/* Moves the collected causes into c (sorted as rootcause.h says) and the propagating amount of every wait
 * state (from x's waits); frees a. 0, or -1 (memory). */
int rc_causes_finish(rc_ctx_t *x, st_rc_causes_t *c);
/* Sorts c's causes and propagation tables as rootcause.h says. */
void rc_causes_sort(st_rc_causes_t *c);

/* The propagating amount per wait state being summed: entries in the order they were first added. */
typedef struct rc_props {
    struct st_rc_prop *v;
    size_t             n, cap;
    uint32_t          *slot; /* 1 + index into v, 0 empty */
    size_t             mask;
} rc_props_t;
/* Adds the waits w[0 .. nw) of timeline in (w's loc less loc0: in's index; RC_NONE: skipped) in that order.
 * 0, or -1. */
int rc_props_add(rc_props_t *t, const st_rc_input_t *in, uint32_t loc0, const rc_wait_t *w, size_t nw);
/* Adds one entry's values (a table of another process continued). 0, or -1. */
int rc_props_add1(rc_props_t *t, int32_t metric, uint32_t cnode, double wait, double propagating);
void rc_props_free(rc_props_t *t);
void rc_causes_acc_free(rc_causes_acc_t *a);

/* The critical path (rootcause.h), its hops into c (may be NULL), and the derived imbalance metrics.
 * 0, or -1 (memory). */
int rc_cpath(rc_ctx_t *x, st_rc_causes_t *c);

/* The hops of a critical path as a process records them: each with its index on the whole path. */
typedef struct rc_hops {
    struct st_rc_hop *v;
    uint64_t         *idx;
    size_t            n, cap;
} rc_hops_t;
void rc_hops_free(rc_hops_t *h);

/* A walk of the critical path back in time (rc_cpath.c's header): the holder h (a location of the whole
 * run), where on it (e: 2i the segment before call i, 2i + 1 call i, 2n the tail), the cursor t, the end of
 * the current hop, the run's first and last event, per location of the run the moment the walk was last
 * there (seen, UINT64_MAX: never), and the path's hops so far (their number, the last one's location
 * and start, to join a hop that continues it). */
typedef struct rc_walk {
    uint32_t  h;
    int64_t   e;
    uint64_t  t, hop_end, first, last;
    uint64_t *seen;
    uint64_t  nhops, last_t0;
    uint32_t  last_loc;
} rc_walk_t;
/* Walks on holder w->h (its timeline L, its waits KW by index in L's waits, its values at location lres
 * of res, hops into hops: NULL none) until the path moves to another location (1: w->h, w->e and w->t
 * say where it goes on) or reaches the run's start (0). -1: memory. */
int rc_walk_on(rc_walk_t *w, const st_rc_loc_t *L, const rc_wait_t *KW, st_an_result_t *res, uint32_t lres,
               rc_hops_t *hops);
/* Location l's time per cnode outside its waits (rc_cpath.c's T) into T[ncnodes of res] (its Idle threads
 * from res at location lres). */
void rc_loc_T(const st_an_result_t *res, uint32_t lres, const st_rc_loc_t *L, int64_t *T);
/* The derived imbalance metrics of res, its critical path in place; T(l, T) gives location l's T. 0, or -1. */
int rc_derive(st_an_result_t *res, void (*T)(const void *arg, uint32_t l, int64_t *T), const void *arg);

#endif
