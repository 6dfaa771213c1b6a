/*
 * derive_int.h — what the files of the derivation share, private to src/relations: the
 * per-rank context and the emission of endpoints, and each kind's part of the one scan over
 * a rank's events (derive.c): point-to-point (derive_p2p.c), collectives and MPI_Init /
 * MPI_Finalize (derive_coll.c), one-sided communication (derive_rma.c), OpenMP
 * (derive_omp.c); the side vectors the endpoints wait in and the OpenMP ends handed out as a source (sources.c); the compact OpenMP ends whose order
 * the reading back of left-out ends shares (derived.c).
 */
#ifndef ST_REL_DERIVE_INT_H
#define ST_REL_DERIVE_INT_H

#include <stdlib.h>
#include <string.h>

#include "relations.h"
#include "../util/msort.h"

/* Fixed region ids (the first entries of the region enum, region.h), without needing
 * the generated MPI region list. */
enum rel_region {
#define ST_REGION(id, name, role, paradigm) REL_REGION_##id,
#include "../model/regions.def"
#undef ST_REGION
};

#define NO_EV UINT64_MAX

/* ---- small helpers ------------------------------------------------------------------------ */

#define PUSH(vec, item) \
    (st_mem_grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v) ? -1 : ((vec).v[(vec).n++] = (item), 0))

static inline int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

/* qsort / bsearch that accept empty (NULL) arrays. */
static inline void sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(v, n, size, cmp);
}

static inline void *find(const void *key, const void *v, size_t n, size_t size,
                         int (*cmp)(const void *, const void *))
{
    return n ? bsearch(key, v, n, size, cmp) : NULL;
}

static inline int32_t node_of(const st_rel_input_t *in, int32_t rank)
{
    return in->procs && rank >= 0 && rank < in->nranks ? in->procs[rank].node : rank;
}

/* mu class of a pair of world ranks. */
static inline uint8_t pair_mask(const st_rel_input_t *in, int32_t a, int32_t b)
{
    if (a == b)
        return ST_REL_MU_PROC;
    return node_of(in, a) == node_of(in, b) ? ST_REL_MU_INTRA : ST_REL_MU_INTER;
}

static inline uint64_t key0(unsigned type, uint64_t low)
{
    return (uint64_t)type << 56 | (low & 0x00ffffffffffffffull);
}

typedef struct { uint64_t *v; size_t n, cap; } u64vec_t;

/* Sorted node ids of a set of ranks (for mu classes of collectives; derive_coll.c). */
typedef struct nodeset {
    int32_t *node;
    uint32_t n;
    int      done;
} nodeset_t;

/* An OpenMP endpoint while it waits in its key type's side vector: the key's type and rank,
 * kind, shape, mu class and order are the same for all of a rank's OpenMP endpoints, so 40
 * bytes instead of 64 (a hybrid trace has hundreds of thousands, and the side vectors and the
 * output they are merged into are the derivation's largest blocks at the same time). */
typedef struct omp_end {
    uint64_t k2, k3, ev, time;
    uint32_t loc;
    uint8_t  role;
} omp_end_t;

typedef struct { omp_end_t *v; size_t n, cap; } omp_endvec_t;

/* name(x, y): the join's order of two OpenMP ends of one rank and key type (st_rel_endpoint_cmp of
 * their endpoints), for omp_end_t and for the left-out ends (st_rel_self_end_t), whose reading back
 * (st_rel_derived_read) merges them into the join's order: one definition for both. */
#define OMP_END_CMP(name, T)                                                                           \
    static inline int name(const T *x, const T *y)                                                     \
    {                                                                                                  \
        int r;                                                                                         \
        if ((r = cmp_u64(x->k2, y->k2)) || (r = cmp_u64(x->k3, y->k3)) ||                              \
            (r = cmp_u64(x->role, y->role)) || (r = cmp_u64(x->loc, y->loc)))                          \
            return r;                                                                                  \
        return cmp_u64(x->ev, y->ev);                                                                  \
    }

/* A team master's left-out end as one word (st_rel_self_ends_t.team): its location and event. */
static inline uint64_t team_word(uint32_t l, uint64_t i) { return (uint64_t)l << ST_REL_SELF_EV_BITS | i; }
static inline uint32_t team_word_loc(uint64_t w) { return (uint32_t)(w >> ST_REL_SELF_EV_BITS); }
static inline uint64_t team_word_ev(uint64_t w) { return w & ((1ull << ST_REL_SELF_EV_BITS) - 1); }

/* Per-rank derivation context. */
typedef struct ctx {
    const st_rel_input_t       *in;
    const st_rel_derive_opts_t *opts; /* the caller's (all zero when it passed none) */
    int32_t                     rank;
    const st_rel_proc_t        *proc;
    st_rel_epvec_t             *out;
    st_rel_depstats_t          *ds;
    nodeset_t                  *comm_nodes; /* [proc->ncomms], filled lazily */
    nodeset_t                   world_nodes;
    uint32_t                    sync_lo, sync_hi; /* the lowest and highest region of in->sync (rel_sync_prepare) */
    st_rel_epvec_t              side[ST_REL_KEY_TYPES]; /* by key type but point-to-point and OpenMP: appended
                                                           to out in type order at the end, so that out is
                                                           mostly in key order (cheap join sort) */
    omp_endvec_t                oside[ST_REL_KEY_TYPES]; /* the same for the OpenMP key types */
    struct omp_src             *omp_src;   /* st_rel_endpoints_split: hands the OpenMP ends out instead of out */
    int                         p2p_apart; /* st_rel_endpoints_split with p2p: the point-to-point ends ... */
    struct p2p_src             *p2p_src;   /* ... are handed out by this instead of written to out */
} ctx_t;

/* Appends an endpoint of event (loc, ev), whose time is `time`, to its key type's side vector. */
static inline int emit(ctx_t *c, uint64_t k0, uint64_t k1, uint64_t k2, uint64_t k3, uint32_t loc, uint64_t ev,
                       uint64_t time, uint8_t role, uint8_t kind, uint8_t shape, uint8_t mumask, uint32_t order)
{
    st_rel_endpoint_t ep = {
        .key = { k0, k1, k2, k3 },
        .ref = { .loc = loc, .order = order, .ev = ev },
        .time = time,
        .role = role, .kind = kind, .shape = shape, .mumask = mumask,
    };
    return st_rel_epvec_push(&c->side[k0 >> 56], &ep);
}

/* Definition of a process-local comm index, NULL (counted) if out of range. */
static inline const st_comm_def_t *comm_def(ctx_t *c, uint32_t comm)
{
    if (!c->proc->comms || comm >= c->proc->ncomms) {
        c->ds->bad_comm++;
        return NULL;
    }
    return &c->proc->comms[comm];
}

/* ---- point-to-point (derive_p2p.c) ---------------------------------------------------------- */


/* Channels (tag, sender << 32 | receiver, comm key) get small ids during the scan (an
 * open-addressing table: a rank talks over few channels), so that afterwards each item's
 * endpoint can be placed by its channel (p2p_emit: straight to its place when the channels'
 * items came in order, else after a counting sort by channel) instead of a comparison sort
 * of the whole list. */
typedef struct p2p_chan {
    uint64_t tag, pair, comm;
} p2p_chan_t;

typedef struct p2p_chans {
    p2p_chan_t *v;
    size_t      n, cap;
    uint32_t   *slot;    /* [nslot]: channel id + 1, 0 empty */
    size_t      nslot;   /* power of two, > 2 n */
    uint32_t    last[2]; /* channel id + 1 of the last send / receive, 0 none: most events repeat it */
} p2p_chans_t;

/* 32 bytes: a trace holds about one per four events, and at MPI_Finalize each new page is a
 * fault. A cancelled send's request id is read from its event (cancellations are rare). */
typedef struct p2p_item {
    uint64_t o1, o2;   /* order inside the channel: a send's time; a receive's post id and time */
    uint64_t ev;
    uint32_t chan, loc;
} p2p_item_t;

typedef struct { p2p_item_t *v; size_t n, cap; } p2pvec_t;

/* One send or receive event of the scan (cancelled sends are filtered after it). 0, or -1. */
int rel_p2p_event(ctx_t *c, p2p_chans_t *ch, p2pvec_t *sends, p2pvec_t *recvs, uint32_t l, uint64_t i,
                  const st_event_t *e);

/* After the scan: drop sends whose request completed as cancelled (ids in cancelled), number
 * and emit into out (with c->p2p_apart: into c->p2p_src instead); frees the items. 0, or -1. */
int rel_p2p_finish(ctx_t *c, u64vec_t *cancelled, const p2p_chans_t *ch, p2pvec_t *sends, p2pvec_t *recvs,
                   st_rel_epvec_t *out);

/* c->p2p_src as the source *out (it then owns it), and its free (NULL is fine). */
void rel_p2p_src_hand_out(struct p2p_src *s, st_rel_epsrc_t *out);
void rel_p2p_src_free(void *ctx);

/* ---- collectives and MPI_Init / MPI_Finalize (derive_coll.c) -------------------------------- */

/* Nonblocking-collective request: id -> the ENTER of the I-call. */
typedef struct icoll_req {
    uint64_t id;
    uint32_t loc;
    uint64_t enter; /* NO_EV if none */
} icoll_req_t;

typedef struct { icoll_req_t *v; size_t n, cap; } icollvec_t;

/* A nonblocking completion, resolved against the requests of every location after the scan. */
typedef struct icoll_done {
    uint32_t loc;
    uint64_t ev;
} icoll_done_t;

typedef struct { icoll_done_t *v; size_t n, cap; } icdvec_t;

/* A blocking collective ends at event i of location l: send = *begin (its COLL_BEGIN; reset to
 * NO_EV) or else enter (the ENTER before it), receive = the end. 0, or -1. */
int rel_coll_end(ctx_t *c, uint32_t l, uint64_t i, uint64_t *begin, uint64_t enter);

/* After the scan: the nonblocking completions in done against the requests (sorted here). */
int rel_coll_finish(ctx_t *c, icollvec_t *reqs, const icdvec_t *done);

/* Before the scan: the node set of the world, when there are sync regions. 0, or -1. */
int rel_sync_prepare(ctx_t *c);

/* An ENTER or LEAVE e (event i of location l) of a sync region: its endpoint. 0, or -1. */
int rel_sync_event(ctx_t *c, const st_event_t *e, uint32_t l, uint64_t i);

/* The node set of a communicator's members (filled once per comm index) and the mu classes of all
 * its pairs (derive_coll.c; the RMA window collectives use them too). NULL: out of memory. */
const nodeset_t *rel_comm_nodes(ctx_t *c, uint32_t comm, const st_comm_def_t *d);
uint8_t rel_nodeset_mask_all(const nodeset_t *ns);

/* ---- MPI one-sided communication (derive_rma.c) --------------------------------------------- */

/* A collective on a window (creation, fence, release) of one location, numbered after the scan. */
typedef struct rma_coll {
    uint32_t comm, win;  /* the window: its communicator's local index, its number there */
    uint32_t loc;
    uint64_t time;       /* the end's */
    uint64_t send, recv; /* events: the begin (or the call's ENTER; NO_EV none), the end */
    uint64_t seq, key;   /* once numbered: its number on the window, the communicator's key */
} rma_coll_t;

typedef struct { rma_coll_t *v; size_t n, cap; } rmacollvec_t;

/* A window collective ends at event i of location l: collected with its begin (*begin, reset to
 * NO_EV; else enter). 0, or -1. */
int rel_rma_coll_end(ctx_t *c, rmacollvec_t *v, uint32_t l, uint64_t i, uint64_t *begin, uint64_t enter);

/* After the scan: the window collectives numbered per window in time order, their endpoints. 0, or -1. */
int rel_rma_finish(ctx_t *c, rmacollvec_t *v);

/* A synchronization of a general active target epoch (an RMA_GROUP_SYNC: post, start, complete, wait),
 * collected in the scan. */
typedef struct pscw_item {
    uint32_t comm, win;  /* the window */
    uint32_t loc;
    uint16_t op;         /* RMA_GROUP_SYNC.op: 1 post, 2 start, 3 complete, 4 wait */
    uint64_t time, ev;   /* the RMA_GROUP_SYNC's */
    uint64_t end;        /* the endpoint's event: a complete's ENTER, else the RMA_GROUP_SYNC */
    uint64_t group;      /* post, start: RMA_GROUP_SYNC.id (group index + 1) */
} pscw_item_t;

typedef struct { pscw_item_t *v; size_t n, cap; } pscwvec_t;

/* An RMA_GROUP_SYNC e (event i of location l, enter: its call's ENTER or NO_EV). 0, or -1. */
int rel_pscw_event(ctx_t *c, pscwvec_t *v, uint32_t l, uint64_t i, uint64_t enter);

/* After the scan: complete -> wait and post -> start, an endpoint per (origin, target) pair of each
 * epoch. 0, or -1. */
int rel_pscw_finish(ctx_t *c, pscwvec_t *v);

/* After the scan: the lock relations of the rank's epochs in the input's lock table (derive_lock.c,
 * locks.h). 0, or -1. */
int rel_lock_finish(ctx_t *c);

/* ---- OpenMP (derive_omp.c) ------------------------------------------------------------------ */

/* Lock, task and taskwait events of one process, sorted by (a, b, c, type, loc, ev). Tasks and
 * taskwaits: c is the item's place among its location's items of the same time (omp_loc_t.tie), so that
 * events a thread stamped with one time (its clock held back behind a time it took from another
 * thread) keep their order on that thread; the type breaks ties between threads only. */
typedef struct omp_item {
    uint64_t a, b, c;
    uint8_t  type;
    uint32_t loc;
    uint64_t ev;
    uint64_t x;             /* taskwait items: the child task a create makes, a taskwait exit's time; locks: time */
} omp_item_t;

typedef struct { omp_item_t *v; size_t n, cap; } ompvec_t;

/* One level of a location's team nesting (the outermost level has team 0). */
typedef struct frame {
    uint64_t team;       /* parallel id */
    uint64_t barriers;   /* barriers this thread completed in this team */
    int      in_barrier;
    uint64_t cur;        /* task running at this level; 0 until a task switch tells */
    uint64_t serial;     /* index into omp_state_t.frame_task */
    int      forked;     /* this location forked the team (its master) */
} frame_t;

typedef struct { uint64_t parent, enter_time, tie; } twait_t;

typedef struct omp_state {
    ompvec_t locks, tasks, waits;
    u64vec_t frame_task;  /* frame serial -> the task the frame started with, once known */
    struct done { uint64_t child; uint32_t loc; uint64_t ev, time; } *done;
    size_t   ndone, capdone;
} omp_state_t;

/* Per-location scan state. */
typedef struct omp_loc {
    frame_t *st;
    size_t   n, cap;
    twait_t *tw;
    size_t   ntw, captw;
    uint64_t tie_time, tie; /* the time of its last task item, and how many before it had that time */
} omp_loc_t;


/* Opens the frame of team on a location (team 0: its outermost level). 0, or -1. */
int rel_omp_frame_push(omp_state_t *s, omp_loc_t *ol, uint64_t team);

/* An ENTER or LEAVE e (event i of location l): barriers and taskwaits, the regions rel_omp_region_wanted
 * names (it does nothing for any other; the derivation asks that first, inline, for every ENTER and LEAVE).
 * 0, or -1. */
static inline int rel_omp_region_wanted(uint32_t region)
{
    return region == REL_REGION_OMP_BARRIER || region == REL_REGION_OMP_IBARRIER || region == REL_REGION_OMP_TASKWAIT;
}
int rel_omp_region_event(ctx_t *c, omp_state_t *s, omp_loc_t *ol, const st_event_t *e, uint32_t l, uint64_t i);

/* One OpenMP event of a location: fork/join and barriers are emitted at once; locks,
 * tasks and taskwaits are collected for the whole process. 0, or -1. */
int rel_omp_event(ctx_t *c, omp_state_t *s, omp_loc_t *ol, const st_event_t *e, uint32_t l, uint64_t i);

/* After the scan, in this order: the lock, task and taskwait relations of the process. 0, or -1. */
int rel_omp_locks(ctx_t *c, omp_state_t *s);
int rel_omp_tasks(ctx_t *c, omp_state_t *s);
int rel_omp_taskwaits(ctx_t *c, omp_state_t *s);

/* ---- the side vectors (sources.c) ----------------------------------------------------------- */

/* Before the point-to-point endpoints are emitted (st_rel_endpoints_split): the source of the
 * OpenMP ends in c->oside when there are any and every key type's are at most a few sorted runs
 * (so that the source gives them in the join's order), set as c->omp_src. 0, also when there is
 * none; -1 out of memory. */
int rel_omp_src_prepare(ctx_t *c);

/* Appends the endpoints of the other key types to out (room reserved with the point-to-point
 * ones), in type order; the OpenMP ones only if the derivation does not hand them out itself
 * (c->omp_src). */
void rel_append_sides(ctx_t *c, st_rel_epvec_t *out);

/* Frees the side vectors; with ok and c->omp_src, the OpenMP ones go to that source, handed out
 * in *omp, else it is freed. */
void rel_sides_finish(ctx_t *c, int ok, st_rel_epsrc_t *omp);

#endif
