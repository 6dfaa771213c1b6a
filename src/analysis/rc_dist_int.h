/*
 * rc_dist_int.h — what the files of the distributed root-cause replay (rc_dist.h) share: the engine's
 * state, its records on the wire, and the steps each file provides. Not for use outside rc_dist*.c.
 */
#ifndef ST_AN_RC_DIST_INT_H
#define ST_AN_RC_DIST_INT_H

#include "cpu_stamp.h"
#include "rc_dist.h"

/* Record types (st_xchg_rec_t.type) of the engine's messages. */
enum {
    RD_FACTS = 0x61, /* to every process: the run's first / last event, where the critical path starts */
    RD_ENDS,         /* to every home: the relation ends of its keys (rd_keyend_t) */
    RD_RUNS,         /* from a home: the runs of the keys this process holds ends of */
    RD_PKGS,         /* to every process: the packages of the waits its locations delay (rd_pkg_head_t, rd_aw_t) */
    RD_COEF,         /* to the sweeper: each package's share of its delayer's waits (rd_coef_t, rd_target_t) */
    RD_SNAP,         /* from the sweeper: the downstream waiting each package carries (rd_snap_t, rc_origin_t) */
    RD_RESP,         /* the waits' indirect parts back to their owner, all of a charger's in one record */
    RD_JUMPS,        /* to the walker: where the critical path can leave each location (rc_dist_walk.c) */
    RD_PLAN,         /* from the walker to every process: the critical path's entries (rd_token_t) */
    RD_PROPS,        /* the propagation table, to the next process */
    RD_PAIRS         /* to every other process: this one's ends of the point-to-point keys the two share (rc_dist_pairs.c) */
};

/* The process that passes the downstream waiting on (rc_dist_sweep.c) and plans the critical path
 * (rc_dist_walk.c). */
#define RD_SWEEPER 0

/* An end of a relation as runs carry it: 24 bytes; pad: the relation's index in its location's rels. */
typedef struct rd_end {
    uint32_t loc, call, role, pad;
    uint64_t enter;
} rd_end_t;

/* A run: its n ends e (by location and call), in this process's own runs (rc_dist_t.runend) or in a kept message
 * of runs from another home (read where they arrived: neither copied again nor moved as the runs grow). */
typedef struct rd_run {
    const rd_end_t *e;
    uint64_t        n;
} rd_run_t;

/* A relation end of this process's left for a home (rc_dist_start): location, call, relation, the home. */
typedef struct rd_away {
    uint32_t l, c, x, home;
} rd_away_t;

/* An end with its key, as it goes to the key's home: 56 bytes. */
typedef struct rd_keyend {
    uint64_t key[4];
    rd_end_t e;
} rd_keyend_t;

/* The facts every process sends every process. */
typedef struct rd_facts {
    uint64_t fin, fin_enter, fin_loc; /* a location with MPI_Finalize: the latest enter, the smallest location */
    uint64_t any, last_max, last_loc; /* a location at all: the latest last event, the smallest location */
    uint64_t ev, first, last;         /* a location with events: the run's first and last event */
} rd_facts_t;

/* A wait's package to its delayer's owner: its order key (k.loc, k.call, k.idx: the wait), its index in its
 * location's waits, the delayer (location, call y, the interval's start kd), the wait (metric, its call's
 * cnode, ticks), then naw entries of the waiter's interval (rd_aw_t). Sizes are multiples of 8. */
typedef struct rd_pkg_head {
    rc_order_t k;
    uint64_t   widx;
    uint32_t   dloc, y;
    int64_t    kd;
    int32_t    metric;
    uint32_t   cx;
    double     ticks;
    uint32_t   naw, pad;
} rd_pkg_head_t;
typedef struct rd_aw {
    uint32_t c, pad;
    int64_t  v;
} rd_aw_t;

/* What a charge passes on to the delayer's waits, for the sweeper: the charged wait (its order key, its
 * index in its location's waits), its delayer's location, the wait's metric and cnode, the share's scale and
 * denominator (rc_charge), then nt of the delayer's waits in the interval that are charged themselves (their
 * index in dloc's waits, their ticks). */
typedef struct rd_coef {
    rc_order_t k;
    uint64_t   widx;
    uint32_t   dloc;
    int32_t    metric;
    uint32_t   cx, nt;
    double     scale, den;
} rd_coef_t;
typedef struct rd_target {
    uint64_t widx;
    double   wk;
} rd_target_t;

/* A package's downstream waiting as the sweeper found it at the package's turn: then norig rc_origin_t. */
typedef struct rd_snap {
    rc_order_t k;
    uint32_t   dloc, norig;
} rd_snap_t;

/* A package a delayer's owner is to charge: its order key, where it is (in a kept message), its downstream
 * waiting (in the kept snapshot; NULL: none). */
typedef struct rd_inc {
    rc_order_t         k;
    const uint8_t     *pkg;
    size_t             len;
    const rc_origin_t *orig;
    uint32_t           norig;
} rd_inc_t;

/* The engine's steps whose CPU time and page faults it notes (SYNCTRACE_VERBOSE=2, when freed). */
enum {
    RD_T_START,    /* the facts and the ends to their homes */
    RD_T_ENDS,     /* a home: the ends that arrived, kept */
    RD_T_RUNS,     /* a home: the ends grouped by key, the runs to their processes */
    RD_T_GOTRUNS,  /* the runs that arrived, kept */
    RD_T_DELAYERS, /* every local wait's delayer, the packages and jump tables sent */
    RD_T_PKGS,     /* the packages that arrived, kept */
    RD_T_COEFS,    /* their coefficients to the sweeper */
    RD_T_SWEEP,    /* the sweeper: the sweep and the critical path's plan */
    RD_T_FLOW,     /* the charges, the walk, the propagation table, the end */
    RD_T_PAIRS,    /* the ends of the keys shared with one other process: sent, and merged into runs */
    RD_T_OTHER,    /* other messages, sending */
    RD__T
};
/* The order of relation keys (key[0 .. 3], unsigned): -1, 0, 1. */
static inline int rd_key_cmp(const uint64_t *a, const uint64_t *b)
{
    for (int i = 0; i < 4; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* An end of this process's of a key it shares with one other process (rc_dist_pairs.c): the key (in its timeline
 * relation), the end as a run holds it. */
typedef struct rd_pref {
    const uint64_t *key;
    rd_end_t        e;
} rd_pref_t;

/* A growing byte buffer. */
typedef struct rd_bytes {
    uint8_t *p;
    size_t   n, cap;
} rd_bytes_t;

struct rc_dist {
    st_an_result_t      *res;
    const st_rc_input_t *in;
    const uint32_t      *ploc0;
    uint32_t             loc0, nall; /* this process's first location, the run's locations */
    int32_t              me, nprocs;
    st_xchg_out_t        out;
    int                  omp_local; /* rc_dist_keep_omp: this process is the home of the OpenMP keys of its ends */
    int                  failed, started, home_done, indexed, coef_sent, swept, charged, planned, walk_done,
                         props_done, finished;
    /* 1: the ends of the keys this process is the home of, the facts */
    rd_keyend_t *home;
    size_t       nhome, chome;
    size_t       nkept;  /* of them this process's own ends of the keys kept here (rc_dist_keep_omp) */
    uint32_t     got_ends, got_runs, got_pkgs, got_coef, got_snap, got_facts, got_jumps, got_plan;
    rd_facts_t   facts;
    /* the runs of the local relations */
    size_t       nlrel;  /* the local relations */
    uint64_t    *rbase;  /* [nlocs]: a location's first relation in relrun */
    uint64_t    *relrun; /* [local relations]: index into runs, UINT64_MAX none yet */
    size_t       nrelrun; /* the local relations that have a run */
    size_t       nends;   /* the local relations that are ends (of a call): each must get a run */
    rd_end_t    *runend; /* the ends of the runs this process is the home of (sized once: the home's ends) */
    rd_end_t    *idend;  /* the runs made here without a home (rc_dist.c's local_runs) */
    uint8_t      idtype[ST_REL_KEY_TYPES + 1]; /* the key types whose runs local_runs made */
    size_t       nrunend, crunend;
    rd_run_t    *run;    /* every run this process holds an end of */
    size_t       nrun, crun;
    /* the local waits (by location and index in its waits) */
    uint64_t    *wbase;  /* [nlocs + 1] */
    rc_wait_t   *w;
    size_t       nw;
    /* per local location the packages it charges (in the order, once every one arrived) */
    rd_inc_t   **inc;
    size_t      *ninc, *cinc;
    size_t       ncharged, nsent, nresp;
    /* messages kept while their packages are read: the packages, the sweeper's coefficients, the snapshots */
    rd_bytes_t   kept;   /* pointers (uint8_t *) */
    rd_bytes_t   coef;   /* the sweeper: the coefficients' payloads, each (size_t length, bytes) */
    rd_bytes_t   jumps;  /* the walker: the jump tables' payloads, likewise */
    const uint8_t *plan; /* the critical path's entries (kept), nplan of them */
    size_t       nplan;
    rc_acc_t     aw, ad;
    rc_causes_acc_t acc;
    /* the critical path */
    rc_walk_t    walk;
    rc_hops_t    hops;
    /* the propagation table */
    rc_props_t   props;
    int          props_in; /* the previous process's table arrived (process 0: always) */
    /* the locations' T for the collector */
    int64_t     *T;
    an_stamp_t   spent[RD__T];  /* per step: CPU ms and page faults */
    uint64_t     flow_idle_sig; /* what rd_flow had when it last did nothing (UINT64_MAX: not yet) */
    uint8_t     *adopt;         /* rd_send_own's buffer while its record is read here: rd_keep keeps it, no copy */
    /* the point-to-point keys this process shares with one other process (rc_dist_pairs, rc_dist_pairs.c) */
    int32_t     *owner;   /* [nranks]: each rank's process; NULL: every key goes to its home */
    uint32_t     nranks;
    uint32_t    *pairrel; /* [local relations]: an end of such a key (its run made with the partner, no home): 1 + its
                             bucket (2 * the partner, + 1 where this process receives the message); 0 not */
    rd_pref_t   *pref;    /* those ends, by bucket, each bucket in its keys' order */
    size_t      *pbase;   /* [2 * nprocs + 1]: each bucket's first in pref */
    const uint8_t **pin;  /* [nprocs]: a partner's RD_PAIRS record that came before pref was made (kept) */
    size_t      *pinlen;
    uint8_t     *pjoined; /* [nprocs]: the partner's record merged */
    uint32_t     got_pairs; /* the partners' records merged */
    int          pairs_ready, pairs_done;
    uint32_t     pairs_sorted; /* the buckets sorted by key (the builder's numbers missing or out of order) */
};

/* This thread's CPU time and the process's page faults now, and what a step took since (into d->spent[step]). */
void rd_spent(rc_dist_t *d, int step, const an_stamp_t *since);

/* The process that owns location loc of the run. */
int32_t rd_owner(const rc_dist_t *d, uint32_t loc);
/* Appends n bytes to b; returns them, NULL (memory). */
uint8_t *rd_put(rd_bytes_t *b, const void *src, size_t n);
/* Sends record type with payload p[0 .. n) to process `to`; a record to this process itself is read at once, as
 * rc_dist_deliver reads one (no copy into the exchange, no message). 0, or -1 (memory, or a malformed record of its
 * own: the engine failed). */
int rd_send(rc_dist_t *d, int32_t to, uint8_t type, const void *p, size_t n);
/* rd_send of a buffer *p of the st_mem_* allocator: to this process itself, a record that is kept (packages,
 * snapshots, the plan) keeps *p where it is (rd_keep) and *p becomes NULL; else as rd_send, *p still the caller's. */
int rd_send_own(rc_dist_t *d, int32_t to, uint8_t type, uint8_t **p, size_t n);
/* Marks the engine failed, with one line; returns -1. */
int rd_fail(rc_dist_t *d, const char *what);

/* Keeps a copy of p[0 .. n) until the engine is freed (p itself, when it is rd_send_own's buffer); returns it (NULL:
 * memory, the engine failed). */
uint8_t *rd_keep(rc_dist_t *d, const uint8_t *p, size_t n);
/* Whether local wait w (of timeline wait sw) is charged: it has a delayer and a delay metric. */
int rd_charged(const rc_wait_t *w, const st_rc_wait_t *sw);

/* The run of local relation r of local location l (its homes sent it back): its *n ends. */
static inline const rd_end_t *rd_run_of(const rc_dist_t *d, uint32_t l, uint64_t r, size_t *n)
{
    const rd_run_t *k = &d->run[d->relrun[d->rbase[l] + r]];
    *n = k->n;
    return k->e;
}

/* Appends a payload as (size_t length, bytes) to b (the sweeper's and walker's gathered messages). 0, or -1. */
int rd_put_sized(rd_bytes_t *b, const uint8_t *p, size_t n);

/* rc_dist_flow.c: the packages of the local waits to their delayers' owners (after the delayers); a message of
 * packages arrived; once all did, the coefficients to the sweeper; once the snapshots arrived, every package
 * charged; a response or a table arrived; then the walk, the table and the end (rd_flow: 1 something was done,
 * 0 nothing, -1 failed). */
int rd_send_pkgs(rc_dist_t *d);
/* The only process of a replay (every delayer its own): instead of the packages, coefficients, the sweep and the
 * snapshots (all to itself), every local wait charged in the replay's order, passing its share on to the
 * delayer's waits at once, as st_rc_run does (after the delayers). 0, or -1. */
int rd_replay_alone(rc_dist_t *d);
int rd_pkgs_arrived(rc_dist_t *d, const uint8_t *p, size_t n);
int rd_send_coefs(rc_dist_t *d);
int rd_snap_arrived(rc_dist_t *d, const uint8_t *p, size_t n);
int rd_flow(rc_dist_t *d);
int rd_resp_arrived(rc_dist_t *d, const uint8_t *p, size_t n);
int rd_props_arrived(rc_dist_t *d, const uint8_t *p, size_t n);
/* Once the replay of the local waits is complete: the table, the classification, T. 0, or -1. */
int rd_finish_local(rc_dist_t *d);

/* rc_dist_pairs.c (with rc_dist_pairs): this process's ends of the keys it shares with one other process found,
 * marked (pairrel), counted as ends (nends) and sent to each partner (an RD_PAIRS record to every other process);
 * a partner's record arrived: merged into runs at once, or kept until rd_pairs_start made this process's lists
 * (then merged there). pairs_done once every partner's was. 0, or -1. */
int rd_pairs_start(rc_dist_t *d);
int rd_pairs_arrived(rc_dist_t *d, int32_t from, const uint8_t *p, size_t n);
/* Adds a run of n ends e (sorted by location and call; where they stay) for the local relations among them. 0, or
 * -1 (an end that names no relation; memory). */
int rd_add_run(rc_dist_t *d, const rd_end_t *e, uint64_t n);
/* Sorts the n ends of a run by location and call. */
void rd_sort_run(rd_end_t *e, size_t n);

/* rc_dist_walk.c: where the critical path can leave this process's locations, to the walker (after the
 * delayers); at the walker, once every process's tables and facts arrived (d->jumps): the path planned and sent
 * to every process; the plan arrived (kept); this process's part of the path walked (after the delayers).
 * 0, or -1. */
int rd_send_jumps(rc_dist_t *d);
int rd_plan(rc_dist_t *d);
int rd_plan_arrived(rc_dist_t *d, const uint8_t *p, size_t n);
int rd_walk_plan(rc_dist_t *d);

/* rc_dist_sweep.c, at the sweeper: every process's coefficients arrived (d->coef): the downstream waiting passed
 * on in the serial replay's order, each package's as it was at its turn sent to its delayer's owner (RD_SNAP
 * to every process). 0, or -1. */
int rd_sweep(rc_dist_t *d);

#endif
