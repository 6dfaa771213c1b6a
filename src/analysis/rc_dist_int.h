/*
 * rc_dist_int.h — what the files of the distributed root-cause replay (rc_dist.h) share: the engine's
 * state, its records on the wire, and the steps each file provides. Not for use outside rc_dist*.c.
 */
#ifndef ST_AN_RC_DIST_INT_H
#define ST_AN_RC_DIST_INT_H

#include "rc_dist.h"

/* Record types (st_xchg_rec_t.type) of the engine's messages. */
enum {
    RD_FACTS = 0x61, /* to every process: the run's first / last event, where the critical path starts */
    RD_ENDS,         /* to every home: the relation ends of its keys (rd_keyend_t) */
    RD_RUNS,         /* from a home: the runs of the keys this process holds ends of */
    RD_ANN,          /* to every process: the waits its locations delay (rd_ann_t) */
    RD_PKG,          /* a wait's package to its delayer's owner */
    RD_RESP,         /* the wait's indirect part back to the waiter's owner */
    RD_TOKEN,        /* the critical path's walk */
    RD_WALKED,       /* to every process: the walk reached the run's start */
    RD_PROPS         /* the propagation table, to the next process */
};

/* An end of a relation as runs carry it: 24 bytes. */
typedef struct rd_end {
    uint32_t loc, call, role, pad;
    uint64_t enter;
} rd_end_t;

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

/* A wait announced to its delayer's owner: its order key and the delaying location. */
typedef struct rd_ann {
    rc_order_t k;
    uint32_t   dloc;
} rd_ann_t;

/* A package a delayer's owner is to charge: its order key and the message that carries it. */
typedef struct rd_inc {
    rc_order_t k;
    uint8_t   *pkg; /* the payload (malloc'd), NULL until it arrived */
    size_t     len;
} rd_inc_t;

/* A local relation's key, where it is (location, relation index there); sorted by key. */
typedef struct rd_lrel {
    const uint64_t *key;
    uint32_t        l;
    uint64_t        r;
} rd_lrel_t;

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
    int                  failed, started, home_done, indexed, announced, walk_done, props_done, finished;
    /* 1: the ends of the keys this process is the home of, the facts */
    rd_keyend_t *home;
    size_t       nhome, chome;
    uint32_t     got_ends, got_runs, got_ann, got_facts;
    rd_facts_t   facts;
    /* the runs of the local relations */
    rd_lrel_t   *lrel;   /* [local relations] by key */
    size_t       nlrel;
    uint64_t    *rbase;  /* [nlocs]: a location's first relation in relrun */
    uint64_t    *relrun; /* [local relations]: index into runs, UINT64_MAX none yet */
    rd_end_t    *runend; /* every run's ends, by (location, call) */
    size_t       nrunend, crunend;
    uint64_t    *run;    /* run k: runend[run[k] .. run[k + 1]) */
    size_t       nrun, crun;
    /* the local waits (by location and index in its waits) */
    uint64_t    *wbase;  /* [nlocs + 1] */
    rc_wait_t   *w;
    size_t       nw;
    /* the dataflow per local location: its waits to send (indices into w, in the order) and the packages
     * it charges (in the order) */
    size_t     **outw;
    size_t      *nout, *out_next;
    rd_inc_t   **inc;
    size_t      *ninc, *cinc, *inc_next;
    rd_inc_t    *early;  /* packages that arrived before the announcements were complete */
    size_t       nearly, cearly;
    size_t       nsent, nresp;
    rc_acc_t     aw, ad;
    rc_causes_acc_t acc;
    /* the critical path */
    rc_walk_t    walk;
    int          walking; /* the token is here */
    rc_hops_t    hops;
    /* the propagation table */
    rc_props_t   props;
    int          props_in; /* the previous process's table arrived (process 0: always) */
    /* the locations' T for the collector */
    int64_t     *T;
};

/* The process that owns location loc of the run. */
int32_t rd_owner(const rc_dist_t *d, uint32_t loc);
/* Appends n bytes to b; returns them, NULL (memory). */
uint8_t *rd_put(rd_bytes_t *b, const void *src, size_t n);
/* Sends record type with payload p[0 .. n) to process `to`. 0, or -1 (memory: the engine failed). */
int rd_send(rc_dist_t *d, int32_t to, uint8_t type, const void *p, size_t n);
/* Marks the engine failed, with one line; returns -1. */
int rd_fail(rc_dist_t *d, const char *what);

/* rc_dist_flow.c: after the announcements, the packages and the walk until nothing more can be done
 * (1: something was done, 0: nothing, -1: failed); a package, a response, a token, a table arrived. */
int rd_flow(rc_dist_t *d);
int rd_pkg_arrived(rc_dist_t *d, const uint8_t *p, size_t n);
int rd_resp_arrived(rc_dist_t *d, const uint8_t *p, size_t n);
int rd_token_arrived(rc_dist_t *d, const uint8_t *p, size_t n);
int rd_props_arrived(rc_dist_t *d, const uint8_t *p, size_t n);
/* The walk's start, if it starts here (after the facts and the delayers). 0, or -1. */
int rd_walk_start(rc_dist_t *d);
/* Once the replay of the local waits is complete: the table, the classification, T. 0, or -1. */
int rd_finish_local(rc_dist_t *d);

#endif
