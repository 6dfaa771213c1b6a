/*
 * endpoints.h — the derivation of one process's logical sends and receives (relations.h):
 * endpoints, their keys and their order, the derivation's options, and sources that hand
 * endpoints out a part at a time. Implemented by derive.c (the scan of a rank's events),
 * derive_p2p.c, derive_coll.c, derive_omp.c (one kind each) and sources.c.
 */
#ifndef ST_REL_ENDPOINTS_H
#define ST_REL_ENDPOINTS_H

#include <stddef.h>
#include <stdint.h>

#include "input.h"

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
 *   RMA_COLL  key[1] = instance seq on the window, key[2] = comm key of the window's communicator,
 *         key[3] = the window's number on it (a collective on a window: its creation, fence, release)
 *   RMA_PSCW  key[1] = origin rank << 32 | target rank (as P2P), key[2] = the window
 *         (st_rel_win_key), key[3] = k (the k-th epoch of that origin at that target on the window):
 *         an origin's MPI_Win_complete -> the target's MPI_Win_wait (kind P2P, one send, one receive)
 *   RMA_POST  key[1] = target rank << 32 | origin rank (sender, receiver: as P2P), key[2] = the window,
 *         key[3] = k (the k-th exposure epoch of the target that names the origin, as RMA_PSCW):
 *         a target's MPI_Win_post (its RMA_SYNC NOTIFY_OUT to the origin: the note it sent) -> the
 *         origin's MPI_Win_start (its RMA_SYNC NOTIFY_IN from the target: the note it took; kind P2P)
 *   RMA_LOCK  key[1] = origin rank of the earlier epoch << 32 | origin rank of the later one, key[2] = the
 *         window (st_rel_win_key), key[3] = k (the k-th relation of that pair of origins on the window in
 *         the order of the input's lock table, locks.h: numbered like a channel's messages):
 *         a lock epoch's MPI_Win_unlock ENTER -> the unlock return of a conflicting epoch of the next
 *         phase at the same target, or its lock return (RMA_ACQUIRE_LOCK) where tickets ordered the
 *         epochs (kind P2P, one send, one receive)
 *   OMP_* key[1] = rank, then kind-specific ids
 * The OpenMP types come last (st_rel_endpoints_split hands their ends out after all others). */
enum {
    ST_REL_KEY_P2P = 1,
    ST_REL_KEY_COLL,
    ST_REL_KEY_SYNC,
    ST_REL_KEY_RMA_COLL,
    ST_REL_KEY_RMA_PSCW,
    ST_REL_KEY_RMA_LOCK,
    ST_REL_KEY_RMA_POST,
    ST_REL_KEY_OMP_FORK,
    ST_REL_KEY_OMP_JOIN,
    ST_REL_KEY_OMP_BARRIER,
    ST_REL_KEY_OMP_LOCK,
    ST_REL_KEY_OMP_TASK,
    ST_REL_KEY_OMP_TASKWAIT,
    ST_REL_KEY_TYPES /* number of types (0 unused) */
};

/* A window as one word (collective channels of the parallel correction): its communicator's key
 * and its number there (RMA_COLL key[2], key[3]) mixed, as distinct as communicator keys are. */
static inline uint64_t st_rel_win_key(uint64_t comm_key, uint64_t win)
{
    uint64_t x = comm_key ^ (win + 1) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    return x ^ x >> 29;
}

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

/* Appends one endpoint (grows the vector). Returns 0, or -1 when out of memory. */
int st_rel_epvec_push(st_rel_epvec_t *v, const st_rel_endpoint_t *ep);
void st_rel_epvec_free(st_rel_epvec_t *v);

/* Things the derivation had to skip; all zero for a consistent trace. */
typedef struct st_rel_depstats {
    uint64_t bad_comm;        /* event names a comm index outside the process's table */
    uint64_t no_root;         /* rooted collective without a usable root */
    uint64_t unmatched_send;  /* p2p send without a receive (after joining) */
    uint64_t unmatched_recv;  /* p2p receive without a send (after joining) */
    uint64_t cancelled;       /* sends removed because their request was cancelled */
    uint64_t no_begin;        /* collective end without a begin/enter before it on its location */
} st_rel_depstats_t;

/* How one reader derives (its own, passed with each call; NULL: all zero, every endpoint
 * emitted and nothing else done). */
typedef struct st_rel_derive_opts {
    /* Optional: the derivation calls coll_end(coll_end_ctx, e) for every collective end
     * event it reads (ST_EV_MPI_COLL_END, ST_EV_MPI_ICOLL_COMPLETE), before deriving from it:
     * a caller that needs to see those shares its pass (the events are far larger than the
     * caches: a pass is a memory sweep). */
    void (*coll_end)(void *ctx, const st_event_t *e);
    void  *coll_end_ctx;
    /* Nonzero: the derivation leaves out the OpenMP ends whose every partner is on their own
     * location — a team master's TEAM_BEGIN (its fork's only send is its own) and TEAM_END (its
     * join's receive is its own), a lock release whose next acquisition is by the same thread
     * and that acquisition's receive. A receive ignores sends on its own location, so no
     * constraint reads them; the CLC engine sets it (about a tenth of a hybrid trace's
     * endpoints), the analysis, which reads those ends, does not. */
    int    omit_self_ends;
    /* With omit_self_ends: where the ends left out go (st_rel_self_ends_t, derived.h), so that
     * the in-run analysis, which reads them, can take CLC's derivation (st_rel_derived_t)
     * instead of deriving again; NULL: dropped. */
    struct st_rel_self_ends *self_ends;
} st_rel_derive_opts_t;

/*
 * Appends to out the endpoints of every location of `rank` in in->locs (the logical
 * messages listed in derive.c). Needs in->procs[rank].comms and the node ids of all ranks
 * (for mu classes). opts (may be NULL): the caller's options. ds (may be NULL) accumulates
 * skipped items. Returns 0, or -1 when out of memory (out keeps what was appended).
 * Not collective; reads only the given rank's events and sets its locations' mono.
 */
int st_rel_endpoints(const st_rel_input_t *in, int32_t rank, const st_rel_derive_opts_t *opts, st_rel_epvec_t *out,
                     st_rel_depstats_t *ds);

/* Appends to out only the lock relations' endpoints of `rank` (ST_REL_KEY_RMA_LOCK, from in->locks, as
 * st_rel_endpoints derives them): for a reader that takes the other relations from an earlier
 * derivation made on other times (the in-run analysis after CLC; locks.h). 0, or -1 (memory). */
int st_rel_lock_endpoints(const st_rel_input_t *in, int32_t rank, st_rel_epvec_t *out);

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
 * graph at all (ST_CLC_REPLAY_CHECK_FIRST, clc/replay.h). Free *omp with st_rel_epsrc_free.
 * p2p (may be NULL): the point-to-point endpoints (key type 1, before all of out's) are handed out
 * by *p2p in the join's order instead of being written to out, which then starts with the
 * collectives' ({ 0 } when there are none); the engine checks them on C (clc/p2p_check.h).
 * Returns 0, or -1 when out of memory.
 */
int st_rel_endpoints_split(const st_rel_input_t *in, int32_t rank, const st_rel_derive_opts_t *opts,
                           st_rel_epvec_t *out, st_rel_depstats_t *ds, st_rel_epsrc_t *omp, st_rel_epsrc_t *p2p);

/* The class of a collective operation (OTF2_CollectiveOp value `op`): which members
 * send and which receive. NONE: handle creation/destruction and the like, no data and
 * no guaranteed order. */
enum st_rel_coll_class { ST_REL_CC_NONE, ST_REL_CC_N2N, ST_REL_CC_ONE2N, ST_REL_CC_N2ONE, ST_REL_CC_PREFIX };
enum st_rel_coll_class st_rel_coll_class(unsigned op);

#endif
