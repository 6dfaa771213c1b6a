/*
 * relations.h — the happened-before relations CLC must respect ("logical messages"),
 * derived from recorded events, and the dependency graph built from them.
 *
 * Two steps, so that the sequential reference and the parallel in-run version share
 * the derivation:
 *
 *  1. st_rel_endpoints() looks at ONE process (rank): its locations' events and its
 *     communicator table. For every logical send or receive it emits an endpoint: the
 *     local event, its role, and a key naming the logical message or collective
 *     instance. The key is computed from local information only, and both ends of a
 *     relation compute the same key (the k-th send of a point-to-point channel meets the
 *     k-th posted receive of that channel; a collective is (comm key, instance seq);
 *     OpenMP relations never leave the process).
 *  2. st_rel_graph_build() joins the endpoints of all processes by key into instances
 *     (a set S of sends and a set R of receives). The sequential reference does this
 *     over the whole trace; the parallel version joins only its own endpoints and
 *     learns the remote ends' clock values by exchange (the key says with whom:
 *     st_rel_key_* below).
 * This is the one derivation of logical messages: CLC (in the run and `synctrace clc`),
 * `synctrace check` and a wait-state analyzer all read the graph — instances with their
 * type, communicator key and sequence (key), their sends and receives as (location,
 * event) refs; the events themselves give op, root and bytes. st_rel_relations (clc.h)
 * walks it as (receive, latest send it depends on) pairs.
 *
 * Instance semantics (docs/clc.md, "Decisions", says why):
 *  - PRODUCT: every receive r must satisfy LC(r) >= max{LC(s) : s in S, s not on r's
 *    location} + mu. Point-to-point messages are PRODUCT instances with |S| = |R| = 1.
 *  - PREFIX (MPI_Scan, MPI_Exscan): endpoints carry their communicator rank in `order`;
 *    the receive of order o depends on the sends of order < o.
 * mu of an instance = minimum over the mu classes of its cross-location pairs (mumask).
 *
 * Everything here is MPI-free, single-threaded per call, and owns what it allocates.
 */
#ifndef ST_RELATIONS_H
#define ST_RELATIONS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/mem.h"

#include "../model/rankdata.h"
#include "../model/event.h"

/* ---- the trace as CLC sees it ------------------------------------------------------- */

/* One location (thread) of the trace. */
typedef struct st_rel_loc {
    int32_t     rank;    /* world rank of its process */
    uint32_t    thread;  /* thread index inside the process */
    st_event_t *ev;      /* events in record order; time = C(e) on input, LC(e) after st_clc_run */
    uint64_t    n;
    uint64_t   *orig;    /* C(e) of every event, then LC(e) (st_rel_lc); malloc'd by the run, caller frees.
                          * NULL in the parallel engine while nothing on the location moved: LC == C ==
                          * ev[].time (most traces need no correction; the dense arrays are 16 B per event) */
    uint64_t    mono;    /* events [0, mono) have non-decreasing C (set by st_rel_endpoints(); 0 unknown) */
} st_rel_loc_t;

/* The working LC of a location during a correction: the second half of its orig block.
 * The passes read C and write LC in these two dense arrays instead of the 64-byte
 * events (a quarter of the memory traffic); the events get LC when the run finishes. */
static inline uint64_t *st_rel_lc(const st_rel_loc_t *L) { return L->orig + L->n; }

/* C and LC of event i, also of a location without orig (both are then the event's time). */
static inline uint64_t st_rel_c_at(const st_rel_loc_t *L, uint64_t i) { return L->orig ? L->orig[i] : L->ev[i].time; }
static inline uint64_t st_rel_lc_at(const st_rel_loc_t *L, uint64_t i)
{
    return L->orig ? L->orig[L->n + i] : L->ev[i].time;
}

/* Allocates L->orig (C and LC, 2 * n values) unless it is there already: 0, or -1. */
int st_rel_times_alloc(st_rel_loc_t *L);

/* Gives a location without orig its dense arrays, C and LC both the events' times: 0, or -1. */
int st_rel_times_materialize(st_rel_loc_t *L);

/* What CLC needs to know about one process. */
typedef struct st_rel_proc {
    uint32_t             ncomms;
    const st_comm_def_t *comms;  /* event.comm (local index) -> definition; NULL for remote ranks */
    int32_t              node;   /* node id; ranks with equal ids share a node (mu class INTRA) */
    /* Call paths (model/callpath.h; SYNCTRACE_CALLPATH): the rank's call tree and the texts of its
     * frames (pc -> text). Only the analysis reads them; 0 / NULL without call paths. */
    uint32_t             ncpnodes;
    const st_cpnode_t   *cpnodes;
    uint32_t             ncallsites;
    const st_callsite_t *callsites;
} st_rel_proc_t;

/* A region whose ENTER / LEAVE are the logical send / receive of a world-wide
 * N-to-N synchronization (MPI_Init, MPI_Init_thread: group 0; MPI_Finalize: group 1). */
typedef struct st_rel_sync_region {
    uint32_t region;
    uint32_t group;
} st_rel_sync_region_t;

/* The shim's: MPI_Init / MPI_Init_thread (group 0) and MPI_Finalize (group 1). */
#define ST_REL_NSYNC 3
extern const st_rel_sync_region_t st_rel_sync_regions[ST_REL_NSYNC];

typedef struct st_rel_input {
    uint32_t                    nlocs;
    st_rel_loc_t               *locs;
    int32_t                     nranks;  /* world size */
    const st_rel_proc_t        *procs;   /* [nranks], by world rank; NULL: every rank its own node */
    uint32_t                    nsync;
    const st_rel_sync_region_t *sync;    /* may be NULL */
    /* Optional: st_rel_endpoints() calls coll_end(coll_end_ctx, e) for every collective end
     * event it reads (ST_EV_MPI_COLL_END, ST_EV_MPI_ICOLL_COMPLETE), before deriving from it:
     * a caller that needs to see those shares its pass (the events are far larger than the
     * caches: a pass is a memory sweep). */
    void (*coll_end)(void *ctx, const st_event_t *e);
    void  *coll_end_ctx;
    /* Nonzero: st_rel_endpoints() leaves out the OpenMP ends whose every partner is on their own
     * location — a team master's TEAM_BEGIN (its fork's only send is its own) and TEAM_END (its
     * join's receive is its own), a lock release whose next acquisition is by the same thread
     * and that acquisition's receive. A receive ignores sends on its own location, so no
     * constraint reads them; the CLC engine sets it (about a tenth of a hybrid trace's
     * endpoints), the analysis, which reads those ends, does not. */
    int    omit_self_ends;
    /* With omit_self_ends: where the ends left out go (st_rel_self_ends_t), so that the in-run
     * analysis, which reads them, can take CLC's derivation (st_rel_derived_t) instead of
     * deriving again; NULL: dropped. */
    struct st_rel_self_ends *self_ends;
    /* The analysis only (st_an_par_new): the endpoints of in's locations, derived already (by CLC
     * in the run); taken and emptied instead of deriving them. NULL: derive. */
    struct st_rel_derived *derived;
} st_rel_input_t;

/* For every location of in: st_rel_times_alloc, then C (the events' times) into orig. 0, or -1. */
int st_rel_save_orig(st_rel_input_t *in);

/* ---- endpoints ---------------------------------------------------------------------------- */

enum st_rel_kind { ST_REL_P2P, ST_REL_COLL, ST_REL_OMP, ST_REL__KINDS };
enum st_rel_shape { ST_REL_PRODUCT, ST_REL_PREFIX };
enum st_rel_role { ST_REL_SEND = 1, ST_REL_RECV = 2 };

/* mu classes of a pair of locations (bit mask in endpoints and instances). */
#define ST_REL_MU_PROC  0x1u /* same process: OpenMP relations, MPI self messages */
#define ST_REL_MU_INTRA 0x2u /* different processes on one node */
#define ST_REL_MU_INTER 0x4u /* different nodes */

/* Key layout, key[0] >> 56 = one of ST_REL_KEY_*:
 *   P2P   key[0] low 32 bits = tag, key[1] = sender rank << 32 | receiver rank,
 *         key[2] = comm key, key[3] = k (k-th message of the channel)
 *   COLL  key[1] = instance seq, key[2] = comm key, key[3] = receiving group
 *         (intercommunicators: lowest world rank of the receiving group, else 0)
 *   SYNC  key[1] = sync group (st_rel_sync_region_t.group)
 *   OMP_* key[1] = rank, then kind-specific ids */
enum {
    ST_REL_KEY_P2P = 1,
    ST_REL_KEY_COLL,
    ST_REL_KEY_SYNC,
    ST_REL_KEY_OMP_FORK,
    ST_REL_KEY_OMP_JOIN,
    ST_REL_KEY_OMP_BARRIER,
    ST_REL_KEY_OMP_LOCK,
    ST_REL_KEY_OMP_TASK,
    ST_REL_KEY_OMP_TASKWAIT,
    ST_REL_KEY_TYPES /* number of types (0 unused) */
};

/* Event reference. order: communicator rank for PREFIX instances, else 0. */
typedef struct st_rel_ref {
    uint32_t loc;
    uint32_t order;
    uint64_t ev;
} st_rel_ref_t;

typedef struct st_rel_endpoint {
    uint64_t     key[4];
    st_rel_ref_t ref;
    uint64_t     time;   /* the event's time, read while it was in cache (ST_REL_JOIN_TIMES) */
    uint8_t      role;   /* st_rel_role */
    uint8_t      kind;   /* st_rel_kind */
    uint8_t      shape;  /* st_rel_shape */
    uint8_t      mumask; /* ST_REL_MU_* of the instance's cross-location pairs */
    uint32_t     _pad;
} st_rel_endpoint_t;

/* The join's order of endpoints: key, role, order, loc, ev (-1, 0, 1 as for qsort). */
static inline int st_rel_endpoint_cmp(const st_rel_endpoint_t *x, const st_rel_endpoint_t *y)
{
    for (int i = 0; i < 4; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i] ? -1 : 1;
    if (x->role != y->role)
        return x->role < y->role ? -1 : 1;
    if (x->ref.order != y->ref.order)
        return x->ref.order < y->ref.order ? -1 : 1;
    if (x->ref.loc != y->ref.loc)
        return x->ref.loc < y->ref.loc ? -1 : 1;
    return x->ref.ev < y->ref.ev ? -1 : x->ref.ev > y->ref.ev;
}

typedef struct st_rel_epvec {
    st_rel_endpoint_t *v;
    size_t             n, cap;
} st_rel_epvec_t;

/* The OpenMP ends omit_self_ends leaves out, kept aside (the derivation is CLC's cost, so in
 * little memory): a team master's TEAM_BEGIN (fork) and TEAM_END (join), the most of them, as
 * one word each in team[] (location << 40 | event; the team is the event's id), the rest (and
 * those that do not fit the word) as records in type[], each in the order they were made.
 * st_rel_self_ends_expand makes records of the words, st_rel_self_endpoint the endpoint of a record. */
typedef struct st_rel_self_end {
    uint64_t k2, k3; /* key[2], key[3] */
    uint64_t ev;
    uint32_t loc;
    uint8_t  role;
} st_rel_self_end_t;

#define ST_REL_SELF_EV_BITS 40

typedef struct st_rel_self_ends {
    int32_t rank;
    struct {
        st_rel_self_end_t *v;
        size_t             n, cap;
    } type[ST_REL_KEY_TYPES];
    struct {
        uint64_t *v;
        size_t    n, cap;
    } team[2]; /* 0: masters' TEAM_BEGIN (ST_REL_KEY_OMP_FORK, receive), 1: TEAM_END (_JOIN, send) */
} st_rel_self_ends_t;

/* The team[] words as records (their team read from locs, the events of the locations the
 * derivation saw), then every type's records in the join's order. 0, or -1 (memory). */
int st_rel_self_ends_expand(st_rel_self_ends_t *s, const st_rel_loc_t *locs);

/* The endpoint of s->type[type].v[i] (time 0: nothing that reads these ends reads it). */
st_rel_endpoint_t st_rel_self_endpoint(const st_rel_self_ends_t *s, unsigned type, size_t i);
void st_rel_self_ends_free(st_rel_self_ends_t *s);

/* Things the derivation had to skip; all zero for a consistent trace. */
typedef struct st_rel_depstats {
    uint64_t bad_comm;        /* event names a comm index outside the process's table */
    uint64_t no_root;         /* rooted collective without a usable root */
    uint64_t unmatched_send;  /* p2p send without a receive (after joining) */
    uint64_t unmatched_recv;  /* p2p receive without a send (after joining) */
    uint64_t cancelled;       /* sends removed because their request was cancelled */
    uint64_t no_begin;        /* collective end without a begin/enter before it on its location */
} st_rel_depstats_t;

/*
 * Appends to out the endpoints of every location of `rank` in in->locs (the relations
 * of the table in docs/clc.md, "Logical messages"; details in derive.c). Needs in->procs[rank].comms
 * and the node ids of all ranks (for mu classes). ds (may be NULL) accumulates skipped
 * items. Returns 0, or -1 when out of memory (out keeps what was appended).
 * Not collective; reads only the given rank's events and sets its locations' mono.
 */
int st_rel_endpoints(const st_rel_input_t *in, int32_t rank, st_rel_epvec_t *out, st_rel_depstats_t *ds);

/* Endpoints handed out in the join's order, a part at a time (st_rel_endpoints_split's OpenMP
 * ends, for st_rel_graph_join_src): read gives the next up to max (0 at the end), rewind starts
 * again from the first, n says how many there are in all. { 0 }: none. */
typedef struct st_rel_epsrc {
    size_t (*read)(void *ctx, st_rel_endpoint_t *buf, size_t max);
    void (*rewind)(void *ctx);
    void (*free)(void *ctx);
    void  *ctx;
    size_t n;
} st_rel_epsrc_t;

size_t st_rel_epsrc_read(st_rel_epsrc_t *src, st_rel_endpoint_t *buf, size_t max);
void st_rel_epsrc_rewind(st_rel_epsrc_t *src);
void st_rel_epsrc_free(st_rel_epsrc_t *src);

/*
 * st_rel_endpoints for one rank's join of its own (the CLC engine): the OpenMP endpoints, most
 * of a hybrid trace's, may stay in the derivation's compact form (40 bytes) instead of being
 * written to out as 64-byte endpoints that the join reads once (at 10^6 hybrid events 16 MB,
 * every page of it a fault at MPI_Finalize). Then *omp hands them out, in the join's order and
 * after all of out's (their key types come last), and out has room after its endpoints for the
 * instances of *omp's (st_rel_inst_room), where st_rel_graph_join_src with ST_REL_JOIN_TAKE
 * builds them. Otherwise (none; or their order would need the join's sort) they are in out and
 * *omp is { 0 }. The engine checks them from *omp before it decides whether they go into its
 * graph at all (ST_CLC_REPLAY_CHECK_FIRST, replay.h). Free *omp with st_rel_epsrc_free.
 * p2p (may be NULL): the point-to-point endpoints (key type 1, before all of out's) are handed out
 * by *p2p in the join's order instead of being written to out, which then starts with the
 * collectives' ({ 0 } when there are none); the engine checks them on C (p2p_check.h).
 * Returns 0, or -1 when out of memory.
 */
int st_rel_endpoints_split(const st_rel_input_t *in, int32_t rank, st_rel_epvec_t *out, st_rel_depstats_t *ds,
                           st_rel_epsrc_t *omp, st_rel_epsrc_t *p2p);

/* The class of a collective operation (OTF2_CollectiveOp value `op`): which members
 * send and which receive (docs/clc.md, "Logical messages"). NONE: handle creation/destruction and the
 * like, no data and no guaranteed order. */
enum st_rel_coll_class { ST_REL_CC_NONE, ST_REL_CC_N2N, ST_REL_CC_ONE2N, ST_REL_CC_N2ONE, ST_REL_CC_PREFIX };
enum st_rel_coll_class st_rel_coll_class(unsigned op);

/* Appends one endpoint (grows the vector). Returns 0, or -1 when out of memory. */
int st_rel_epvec_push(st_rel_epvec_t *v, const st_rel_endpoint_t *ep);
void st_rel_epvec_free(st_rel_epvec_t *v);

/* ---- the dependency graph -------------------------------------------------------------- */

/* An instance: refs[first .. first+nsend) are its sends, the next nrecv its receives;
 * in PREFIX instances both runs are sorted by order. 48 bytes (with the refs and ports,
 * the lasting part of the correction's working set: at MPI_Finalize each new page is a
 * fault), so indices are 32-bit: the join refuses more than ST_REL_MAX_REFS endpoints. */
typedef struct st_rel_inst {
    uint64_t key[4]; /* the endpoints' key: tells the parallel version whom to exchange with */
    uint32_t first;
    uint32_t nsend, nrecv;
    uint8_t  kind, shape, mumask, _pad;
} st_rel_inst_t;

/* Room for n instances, counted in endpoints (st_rel_endpoints_split). */
static inline size_t st_rel_inst_room(size_t n)
{
    return (n * sizeof(st_rel_inst_t) + sizeof(st_rel_endpoint_t) - 1) / sizeof(st_rel_endpoint_t);
}

/* Most endpoints (so refs, ports and instances) one join takes, and most ends of one instance. */
#define ST_REL_MAX_REFS   ((size_t)UINT32_MAX - 1)
#define ST_REL_MAX_SLOTS  ((1u << 30) - 1)

/* The key type (ST_REL_KEY_*) of an instance: p2p, collective, Init/Finalize, OpenMP kind. */
static inline unsigned st_rel_inst_type(const st_rel_inst_t *in) { return (unsigned)(in->key[0] >> 56); }

/* A location's view of one of its events taking part in an instance. slot = index of
 * the event's ref inside the instance (0 .. nsend+nrecv-1). 16 bytes. */
typedef struct st_rel_port {
    uint64_t ev;
    uint32_t inst;
    unsigned slot : 30; /* < ST_REL_MAX_SLOTS */
    unsigned role : 2;  /* st_rel_role */
} st_rel_port_t;

typedef struct st_rel_graph {
    uint64_t       ninst;
    st_rel_inst_t *inst;
    uint64_t       nrefs;
    st_rel_ref_t  *refs;
    uint32_t       nlocs;
    uint64_t      *port_first; /* [nlocs+1]: ports of location l are [port_first[l], port_first[l+1]) */
    st_rel_port_t *ports;      /* per location sorted by ev, receives before sends */
    uint64_t      *ref_time;   /* [nrefs] with ST_REL_JOIN_TIMES: the endpoints' times, else NULL */
    st_rel_depstats_t ds;
} st_rel_graph_t;

/*
 * Derives the endpoints of every rank that has locations in `in` and joins them
 * (sequential reference, `synctrace clc`, tests). Returns 0, or -1 when out of memory
 * (g then empty). Free with st_rel_graph_free().
 */
int st_rel_graph_build(const st_rel_input_t *in, st_rel_graph_t *g);

/*
 * Joins endpoints (sorted in place) into instances for nlocs locations. Endpoints whose
 * ref.loc >= nlocs are dropped; more than ST_REL_MAX_REFS of them, or an instance of more
 * than ST_REL_MAX_SLOTS, is an error (-1). Without ST_REL_JOIN_PARTIAL, instances lacking sends or
 * receives are dropped (p2p ones counted in g->ds as unmatched); the parallel version
 * passes it because the other ends live in other processes. Returns 0, or -1 when out
 * of memory (g then empty).
 */
#define ST_REL_JOIN_PARTIAL 0x1u
/* ST_REL_JOIN_TAKE: ep (allocated with st_mem_malloc) is handed over: the instances are built
 * in its memory (at MPI_Finalize every new page is a fault), g->inst is that block shrunk to
 * them (st_mem_realloc), and the caller neither reads nor frees ep afterwards. Without it ep
 * is left sorted. */
#define ST_REL_JOIN_TAKE 0x2u
/* ST_REL_JOIN_TIMES: g->ref_time gets each ref's endpoint time (the CLC engine's C of the refs,
 * without a pass that gathers them from the events: a cache miss each). */
#define ST_REL_JOIN_TIMES 0x4u
int st_rel_graph_join(st_rel_endpoint_t *ep, size_t n, uint32_t nlocs, unsigned flags, st_rel_graph_t *g);

/* st_rel_graph_join of ep[0 .. n) followed by more's endpoints, which come in the join's order
 * and after all of ep's (st_rel_endpoints_split); ep's dropping of unknown locations applies to
 * them too. With ST_REL_JOIN_TAKE, ep's block has room for st_rel_inst_room(more->n) instances
 * after its n endpoints. more is read to its end, not freed. Endpoints of more out of order
 * are an error (-1). */
int st_rel_graph_join_src(st_rel_endpoint_t *ep, size_t n, st_rel_epsrc_t *more, uint32_t nlocs, unsigned flags,
                          st_rel_graph_t *g);

/* The instances of src's endpoints (in the join's order, as st_rel_graph_join_src reads them)
 * a part at a time, without the graph of them all: each(ctx, g) gets g holding one part's
 * instances, refs and ref_time (no ports), which are dropped afterwards. flags: as for the
 * join (ST_REL_JOIN_TIMES is implied). Returns 0, or -1 (memory, an endpoint out of order,
 * or each's -1). src is read to its end. */
int st_rel_graph_parts(st_rel_epsrc_t *src, uint32_t nlocs, unsigned flags,
                       int (*each)(void *ctx, const st_rel_graph_t *g), void *ctx);

void st_rel_graph_free(st_rel_graph_t *g);

/* ---- one derivation for CLC and the analysis ------------------------------------------------- */

/*
 * The logical messages of one process as the in-run CLC derived them, kept for the wait-state
 * analysis that runs right after it: deriving them again sweeps every 64-byte event once more
 * (at 10^6 events per rank about a third of the analysis). g: CLC's partial graph (instances
 * and refs; the ports are not kept), which holds every endpoint the derivation emitted but the
 * ones omit_self_ends left out, kept in self_ends (and, with ST_CLC_REPLAY_CHECK_FIRST, the OpenMP
 * ones CLC left out of its graph, in omp).
 */
#define ST_REL_DERIVED_AHEAD 64
typedef struct st_rel_derived {
    st_rel_graph_t     g;
    st_rel_self_ends_t self_ends;
    /* The OpenMP ends CLC checked and left out of its graph (ST_CLC_REPLAY_CHECK_FIRST, replay.h),
     * { 0 } when they are in g; g then holds none of their key types. ahead: those read next. */
    st_rel_epsrc_t     omp;
    /* The point-to-point ends CLC checked and left out of its graph (the same), read first. */
    st_rel_epsrc_t     p2p;
    st_rel_endpoint_t  ahead[ST_REL_DERIVED_AHEAD];
    size_t             nahead, at;
} st_rel_derived_t;

/* How many endpoints d holds (after st_rel_self_ends_expand of its self ends). */
size_t st_rel_derived_count(const st_rel_derived_t *d);

/* Where st_rel_derived_read goes on ({ 0 }: the start). */
typedef struct st_rel_derived_pos {
    uint64_t k, j; /* instance, and end of it */
    unsigned t;    /* self end: its type, and which of them */
    size_t   s;
    int      begun;
    int      p2p_read; /* the left-out point-to-point ends are all read */
    unsigned below; /* nonzero: read only the endpoints of key types below it (the rest stays) */
} st_rel_derived_pos_t;

/* The next (up to max) endpoints of d from *pos into buf, and *pos advanced: how many, 0 at the
 * end (d's self ends expanded first, st_rel_self_ends_expand). In order, they are the endpoints
 * st_rel_endpoints (omit_self_ends 0) emits for d's process in the join's order (their time the
 * graph's, ST_REL_JOIN_TIMES, or 0; mumask the instance's). Read in parts: the whole would be a new array of 64 bytes per endpoint, and at
 * MPI_Finalize every new page is a fault. */
size_t st_rel_derived_read(st_rel_derived_t *d, st_rel_derived_pos_t *pos, st_rel_endpoint_t *buf, size_t max);

/* The rest of d from *pos on (pos->below cleared) as a source for st_rel_graph_join_src: n (at most
 * how many it gives) is d's count less `read`, what was read before. d and *pos must outlive it;
 * free it with st_rel_epsrc_free. 0, or -1 out of memory. */
int st_rel_derived_src(st_rel_derived_t *d, st_rel_derived_pos_t *pos, size_t read, st_rel_epsrc_t *src);
void st_rel_derived_free(st_rel_derived_t *d);

/* Ensures room for need elements of size elem in the realloc'd array *v of capacity *cap
 * (doubling, from 64); returns 0, or -1 when out of memory (*v unchanged). */
int st_mem_grow(void **v, size_t *cap, size_t need, size_t elem);

#endif
