/*
 * replay_int.h — internals shared by the files of the parallel CLC engine (replay.h is the
 * contract; this is not an API): its state, its records and the functions one file calls in
 * another. The engine is a state machine SETUP -> ROUNDS (bulk, bounded) [-> FORWARD
 * (replay)] -> BACKWARD -> STATISTICS -> DONE over the rank's partial dependency graph.
 *
 *   replay.c            making the engine, the driver (st_clc_replay_progress), accessors
 *   replay_classify.c   the state over the graph; the instances' categories
 *   replay_p2p.c        point-to-point partners: counts exchange, matching
 *   replay_tree.c       collective channels and their reduction trees (setup, operations)
 *   replay_records.c    failing, vectors, outgoing records, the dispatch of incoming ones
 *   replay_rounds.c     bulk rounds: inputs, passes, exchange, what comes next
 *   replay_converge.c   whether anything would move: the rounds' test and agreement
 *   replay_forward.c    the forward callbacks, the location loop, the message-by-message replay
 *   replay_scan.c       scans: prefix / suffix values, the R_PFX chain of the replay
 *   replay_cycles.c     dependency cycles across ranks (waves)
 *   replay_backward.c   the backward pass and its limits
 *   replay_statistics.c the statistics and the end of the run
 *   replay_restart.c    relations checked first, and the restart (the protocol, step by step)
 *
 * Instances of the partial graph fall into five categories:
 *   LOCAL  both ends in this process (OpenMP, MPI self messages): as in run.c;
 *   OUT    point-to-point, send here, receive remote: the send's LC goes to the receiver;
 *   IN     point-to-point, receive here: waits for the sender's LC;
 *   COLL   collective or MPI_Init/Finalize instance: a tree reduction over the comm;
 *   DEAD   point-to-point without a matching end anywhere (the sequential reference
 *          drops these instances) or an instance the channel does not know.
 * Forward state of LOCAL and COLL(product) instances is one "top-2" quad (the two
 * largest send LC on distinct locations) plus a count of missing inputs; an IN instance
 * has one remote send, whose LC its peer's cur array holds (most instances of a trace are
 * point-to-point: no quad for them); scans (PREFIX) read their channel's entry list.
 *
 * Channels are the rank's communicators (key = comm key, members = world ranks of both
 * groups, sorted) plus one for MPI_Init/Finalize (members = every rank). A binomial tree
 * over the members, rooted at the first, carries: the setup reduction (number of
 * instances N = max seq + 1, so that every member takes part in every instance even
 * where it recorded nothing), one operation per bulk round covering all N instances (LC
 * of the sends and of the receives), one forward operation per instance in the replay,
 * and, after the replay, one backward and one statistics operation covering all N
 * instances (converged rounds need neither: see rp_count_on_c and rp_enter_backward). An
 * operation completes at a node when its own contribution and all its children's are in
 * (then it goes up, or at the root becomes the result and goes down). Contributions per
 * instance: the shape (EMPTY / PRODUCT / PREFIX) and, for PRODUCT, values (an
 * intercommunicator has a channel per receiving group) (forward: LC of sends; backward: LC
 * of receives, stored complemented so that "two smallest" is again "two largest";
 * statistics: C and final LC of sends; round: LC of sends, complemented LC of receives) as
 * quads; for PREFIX (scans), the list of (comm rank, values; NONE64 where an entry has no
 * such value).
 *
 * Records: a 32-byte header {type, phase, channel kind, round, nseq, payload length,
 * channel key, first seq} and the payload. Records to one destination are appended to
 * one buffer and sent when the rank runs out of local work (or the buffer is large).
 *
 * Checking first (replay.h), the OpenMP and point-to-point relations may stay out of the
 * graph, and the run may start again with them in: replay_restart.c.
 */
#ifndef ST_CLC_REPLAY_INT_H
#define ST_CLC_REPLAY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../exchange/exchange.h"
#include "../util/mem.h"
#include "p2p_check.h"
#include "replay.h"
#include "schedule.h"

#define NOLOC       UINT64_MAX       /* empty quad entry */
#define NONE32      UINT32_MAX
#define NONE64      UINT64_MAX
#define MAX_SEQ     (1ull << 31)     /* instances per channel we accept */
#define FLUSH_BYTES ((size_t)256 << 10)
#define HOT_LOCAL   1 /* port of a LOCAL instance: its callbacks run in every pass */
#define HOT_MOVES   2 /* receive that the last exchange's values move */

enum { CAT_LOCAL, CAT_OUT, CAT_IN, CAT_COLL, CAT_DEAD };

enum { PH_F, PH_B, PH_S, PH_R, PH__N }; /* forward replay, backward, statistics, bulk round */
enum { SH_EMPTY, SH_PRODUCT, SH_PREFIX };
enum { R_COUNTS = 1, R_SETUP_UP, R_SETUP_DOWN, R_UP, R_DOWN, R_FWD, R_BWD, R_STAT, R_RVAL, R_CONV_UP, R_CONV_DOWN,
       R_PFX, R_WAVE_UP, R_WAVE_DOWN, R_P2PCHK };
/* An intercommunicator has two channels, one per receiving group (CH_COMM: the group of its
 * lowest world rank, CH_INTER1: the other), like the graph's instances: a receive depends
 * only on the sends of the other group, so its forward result must not wait for the sends
 * of its own group (whose members may reach the collective only after messages from it). */
enum { CH_COMM, CH_SYNC, CH_INTER1, CH_WIN }; /* CH_WIN: a window's collectives (st_rel_win_key) */
enum { S_SETUP, S_FWD, S_BWD, S_STAT, S_DONE, S_FAILED, S_ROUND };

/* Values (quads) per instance. PH_S: C and LC of the sends; PH_R: LC of the sends and, for the backward
 * pass after converged rounds, the complemented LC of the receives. */
static const unsigned ph_nv[PH__N] = { 1, 1, 2, 2 };

typedef struct quad { uint64_t v1, l1, v2, l2; } top2_t;
typedef struct ent { uint64_t order, v[2]; } ent_t;
typedef struct entvec { ent_t *v; size_t n, cap; } entvec_t;
typedef struct u64vec { uint64_t *v; size_t n, cap; } u64vec_t;
typedef struct u32vec { uint32_t *v; size_t n, cap; } u32vec_t; /* instance indices (alloc_state: < 2^32) */
typedef struct tracker { uint32_t arrived; uint8_t own, up, done, chain; } tracker_t; /* chain: PH_F, CHAIN_* */

/* Record header (exchange.h); round: bulk round of R_RVAL / PH_R / R_CONV_* records. */
typedef st_xchg_rec_t rec_t;
typedef st_xchg_reader_t reader_t;

typedef struct phase {
    tracker_t *tr;    /* PH_F: one per instance; else one */
    top2_t    *q;     /* [N * nv]: accumulated contributions, then the result */
    uint8_t   *shape; /* [N] */
    entvec_t  *ent;   /* [N] (allocated at the first scan) */
    uint64_t   open;  /* operations without a result yet */
} phase_t;

typedef struct chan {
    uint8_t   kind, inter;
    uint64_t  key;
    st_xchg_tree_t t;  /* members (sorted world ranks) and this rank's place in their tree */
    uint64_t  local_n, N;
    tracker_t setup;
    uint32_t *pend;        /* [N] local sends not yet computed (forward) */
    uint64_t *inst0, *inst1; /* [N] local instances of the seq, NONE64 */
    uint8_t  *lshape;      /* [N] shape of the local instances */
    phase_t   ph[PH__N];
} chan_t;

typedef struct counts_rec {
    uint64_t comm;
    uint32_t tag, dir; /* dir 0: the sender of the record sends; 1: it receives */
    uint64_t count;
} counts_rec_t;

typedef struct peer {
    int32_t       rank;
    uint8_t       have_bwd, have_stat;
    counts_rec_t *theirs;
    size_t        ntheirs;
    u32vec_t      send_inst, recv_inst; /* after matching: live instances by message index */
    uint64_t     *bwd;                  /* [send_inst.n] forward LC of the receives */
    uint64_t     *stat;                 /* [2 * recv_inst.n] (C, final LC) of the sends (when they come) */
    uint64_t     *rin;                  /* [recv_inst.n] bulk rounds: the sends' LC of round rin_round */
    uint64_t     *cur;                  /* [recv_inst.n] (from the first forward pass on: rp_ensure_cur) the
                                           sends' LC the forward pass reads: rin as of
                                           the round's start, or the replay's R_FWD values */
    int           rin_round;
    uint8_t       rin_same;             /* ... equal to those of the round before */
} peer_t;

/* A report of the replay's waves (see "cycles across ranks"): this rank's and its subtree's. */
typedef struct wave_rep {
    uint64_t sent, recv;      /* records other than waves, sent and received */
    uint64_t changed, past;   /* anyone sent, received or computed something since its last report; all
                                 ranks are past the forward pass */
    uint64_t loc;             /* lowest location waiting: rank << 32 | index; NONE64: none */
    uint64_t kind, key, seq;  /* the collective it waits for (kind NONE64: it waits for something else) */
    uint64_t unc;             /* gathering a scan: lowest comm rank whose send is not computed */
    top2_t   q;               /* gathering: the collective's computed sends */
} wave_rep_t;

enum { W_NONE, W_END, W_GATHER, W_FORCE };

typedef struct wave {
    int        used, ended;       /* waves run (the replay), the root ended them */
    uint64_t   w, act;            /* current wave and what its start said */
    uint32_t   arrived;           /* children's reports of wave w */
    uint8_t    on, up;            /* wave w started here, reported */
    uint64_t   sent, recv, prog;  /* this rank's counters: records (not waves), forward steps */
    uint64_t   last[3];           /* ... at the last report */
    wave_rep_t acc, target;       /* the subtree's report of wave w; the start's (target, gathered values) */
    entvec_t   ents, tents;       /* gathering a scan: the entries of acc and of target */
    int        force_set, force_have; /* forcing a collective's receive: the value of the gathered sends */
    uint64_t   force_v;
} wave_t;

typedef struct deferred {
    int32_t  from;
    uint8_t *buf;
    size_t   len;
} deferred_t;

struct st_clc_replay {
    st_clc_params_t     p;
    st_rel_input_t     *in;
    int32_t             me, nranks;
    st_xchg_out_t       out; /* one buffer per destination; open_at: offset of an open R_FWD record */
    st_rel_graph_t      g;
    st_rel_depstats_t   ds;
    int                 state, busy;
    /* instances */
    uint8_t  *cat;
    uint32_t *ia;       /* OUT/IN: peer index; COLL: channel index */
    uint32_t *ib;       /* OUT/IN: message index; COLL: seq (< MAX_SEQ) */
    uint32_t *tqi;      /* LOCAL, COLL: index into tq; NONE32 for the others (point-to-point ones
                         * read their peer's cur: no 32-byte quad for most instances of a trace) */
    top2_t   *tq;       /* [ntq], from the first forward pass or limits on (rp_ensure_tq) */
    uint64_t  ntq;
    uint32_t *pending;
    /* compact copies of the refs' times: the phases that loop over instances read these
     * instead of gathering from the event arrays (a cache and TLB miss per ref) */
    uint64_t *ref_c, *ref_lc; /* [nrefs]: C; LC as of the last rp_snap_times() (NULL: LC = C, nothing moved) */
    uint32_t *port_ref;       /* [nports]: ref index of each port (32 bits: alloc_state checks nrefs) */
    /* locations */
    st_clc_fwd_t *fwd;
    st_clc_sched_t sched;     /* runnable locations, and those waiting on each instance (schedule.h) */
    uint32_t      unfinished;
    uint64_t      chain_wait; /* scans: prefix values still expected from the previous comm rank */
    uint64_t      unresolved, ramps, bent;
    u64vec_t      forced; /* receive ports forced through a cycle (bulk rounds may force one in every pass) */
    /* channels and partners */
    chan_t   *ch;
    uint32_t  nch, setup_open;
    peer_t   *peers;
    uint32_t  npeers, incoming, counts_got;
    deferred_t *def;
    size_t      ndef, capdef;
    st_clc_stats_t stats;
    st_clc_stats_t on_c;       /* bulk rounds: the remote relations counted on C (rp_count_on_c) */
    st_clc_vcount_t local_on_c; /* round 0: the LOCAL relations on C with mu (rp_moves_on_c) */
    int            have_local_on_c;
    int            converged;  /* bulk rounds converged: backward limits and statistics without exchanges */
    st_clc_moved_fn moved;
    void           *moved_ctx;
    /* bulk rounds (see "rounds" below) */
    int        rounds_max, round, round_sent, rounds_used;
    uint64_t   changed;        /* receives the values of this round's exchange would move */
    entvec_t  *pin;            /* [ninst] scans: the previous round's result, per instance; NULL without scans */
    uint8_t   *hot;            /* [nports] from round 1 on (alloc_hot): HOT_* (st_clc_fwd_t.hot) */
    int        lc_same;        /* this round's passes changed no LC */
    u64vec_t   local_k, coll_k; /* the LOCAL instances (classify), the live COLL ones (rp_start_forward) */
    uint32_t  *ref_port;       /* [nrefs] with hot: the port of each ref (inverse of port_ref) */
    tracker_t  conv;           /* this round's "anything changed" reduction over all ranks */
    uint64_t   conv_val;
    int32_t    wparent, wchild[32];
    uint32_t   nwchild;
    wave_t     wv;             /* the replay's cycle detection */
    /* ST_CLC_REPLAY_CHECK_FIRST: the OpenMP relations, checked on C and left out of the graph */
    st_rel_epsrc_t omp;        /* their ends (for st_clc_replay_keep); { 0 } when in the graph */
    st_rel_depstats_t ds_scan; /* ds as the derivation left it (st_clc_replay_again) */
    st_clc_stats_t omp_on_c;   /* their reversed / violations / remaining counts (none violated) */
    int            restart_if_moving, restart;
    /* ... and the point-to-point relations, checked with the partners at the setup (p2p_check.h) */
    st_rel_epsrc_t   p2p;      /* their ends (st_clc_replay_keep); { 0 } when in the graph */
    st_clc_p2pchk_t *chk;      /* the check (its violations, counts on C, unmatched ends); NULL when they are in the graph */
    uint32_t         chk_got;  /* partners' R_P2PCHK records (one from each partner that counts): all in at incoming */
};

/* ---- small helpers, inline: the hot paths of every file use them -------------------------------- */

static inline uint64_t gid(const st_rel_loc_t *L) { return (uint64_t)(uint32_t)L->rank << 32 | L->thread; }

static inline uint32_t key_type(const uint64_t *key) { return (uint32_t)(key[0] >> 56); }

/* Keeps the two largest values on distinct locations (run.c's rule). */
static inline void quad_put(top2_t *q, uint64_t v, uint64_t loc)
{
    if (q->l1 == loc) {
        if (v > q->v1)
            q->v1 = v;
    } else if (q->l1 == NOLOC || v > q->v1) {
        q->v2 = q->v1, q->l2 = q->l1;
        q->v1 = v, q->l1 = loc;
    } else if (q->l2 == NOLOC || v > q->v2) {
        q->v2 = v, q->l2 = loc;
    }
}

static inline void quad_merge(top2_t *a, const top2_t *b)
{
    if (b->l1 != NOLOC)
        quad_put(a, b->v1, b->l1);
    if (b->l2 != NOLOC)
        quad_put(a, b->v2, b->l2);
}

/* The kept value of a location other than loc; 0 if none. */
static inline int quad_other(const top2_t *q, uint64_t loc, uint64_t *v)
{
    if (q->l1 != NOLOC && q->l1 != loc)
        return *v = q->v1, 1;
    if (q->l2 != NOLOC && q->l2 != loc)
        return *v = q->v2, 1;
    return 0;
}

static const top2_t quad_empty = { 0, NOLOC, 0, NOLOC };

/* The forward / backward quad of a LOCAL or COLL instance; NULL for the others. */
static inline top2_t *tq_of(const st_clc_replay_t *r, uint64_t k) { return r->tqi[k] == NONE32 ? NULL : &r->tq[r->tqi[k]]; }

/* Quads per instance of phase ph (ph_nv), and instance s's first one. */
static inline size_t nq_of(int ph) { return ph_nv[ph]; }

static inline top2_t *qof(const chan_t *c, int ph, uint64_t s) { return &c->ph[ph].q[s * nq_of(ph)]; }

/* A round's quad of instance s: the sends' LC (recv 0) or the receives' (1). */
static inline top2_t *rq(const chan_t *c, uint64_t s, int recv)
{
    return &c->ph[PH_R].q[s * nq_of(PH_R) + (unsigned)recv];
}

/* The tracker of operation s0 of phase ph (PH_F: one per instance, else one per channel). */
static inline tracker_t *tracker(chan_t *c, int ph, uint64_t s0) { return &c->ph[ph].tr[ph == PH_F ? s0 : 0]; }

static inline uint64_t ref_order(const st_clc_replay_t *r, uint64_t k, uint32_t slot)
{
    return r->g.refs[r->g.inst[k].first + slot].order;
}

static inline const entvec_t *ents_ro(const chan_t *c, int ph, uint64_t s)
{
    return c->ph[ph].ent ? &c->ph[ph].ent[s] : NULL;
}

/* LC and C of a ref, from the snapshots (ref_lc is current after rp_snap_times()). */
static inline uint64_t ref_time(const st_clc_replay_t *r, const st_rel_ref_t *x)
{
    return (r->ref_lc ? r->ref_lc : r->ref_c)[x - r->g.refs];
}
static inline uint64_t ref_orig(const st_clc_replay_t *r, const st_rel_ref_t *x) { return r->ref_c[x - r->g.refs]; }

static inline const st_rel_ref_t *refs_of(const st_clc_replay_t *r, uint64_t k, int recv, uint32_t *n)
{
    const st_rel_inst_t *in = &r->g.inst[k];
    *n = recv ? in->nrecv : in->nsend;
    return &r->g.refs[in->first + (recv ? in->nsend : 0)];
}

/* ---- replay_records.c ------------------------------------------------------------------------------ */

/* Logs one error line (the first only) and fails the engine (state S_FAILED). */
void rp_fail(st_clc_replay_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append x / e: 0, or -1 (out of memory; the caller fails). */
int rp_u64_push(u64vec_t *v, uint64_t x);
int rp_ent_push(entvec_t *v, ent_t e);
/* Appends a record header plus len payload bytes for `to`; returns the payload, NULL on
 * failure (the engine is failed). c: the channel, or NULL; seq, nseq: its instances. */
uint8_t *rp_rec_begin(st_clc_replay_t *r, int32_t to, uint8_t type, uint8_t phase, const chan_t *c,
                      uint64_t seq, uint32_t nseq, size_t len);
/* Sends the buffers (all != 0) or those over FLUSH_BYTES: 0, or -1 (failed). */
int rp_flush(st_clc_replay_t *r, int all);
/* Hands the records that came early to the dispatch again (it keeps what is still early). */
void rp_replay_deferred(st_clc_replay_t *r);

/* ---- replay_tree.c --------------------------------------------------------------------------------- */

/* The channel (kind, key); NULL when this rank is not a member. */
chan_t *rp_find_chan(st_clc_replay_t *r, uint8_t kind, uint64_t key);
/* Instance s's entry list of phase ph (made at the first scan); NULL when out of memory (failed). */
entvec_t *rp_ents(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s);
/* The shape of two contributions (members that disagree get one warning). */
uint8_t rp_merge_shape(st_clc_replay_t *r, uint8_t a, uint8_t b);
/* This rank's contribution to operation s0 of phase ph is complete: up or, at the root, down. */
void rp_own_done(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0);
/* R_UP / R_DOWN and R_SETUP_UP / R_SETUP_DOWN records: 0, or -1 (malformed). */
int rp_on_op(st_clc_replay_t *r, chan_t *c, const rec_t *h, reader_t *rd);
int rp_on_setup(st_clc_replay_t *r, chan_t *c, const rec_t *h, reader_t *rd);
/* Passes the setup reduction on once this rank's count and its children's are in. */
void rp_setup_try(st_clc_replay_t *r, chan_t *c);
/* The channels of this rank's communicators (and of Init/Finalize), sorted: 0, or -1 (memory). */
int rp_build_channels(st_clc_replay_t *r);
void rp_chan_free(chan_t *c);
/* The arrays of phase ph of every channel that has instances: 0, or -1 (failed). */
int rp_phases_arrays(st_clc_replay_t *r, int ph);
/* Phase ph of channel c as before its operation (a new bulk round). */
void rp_reset_phase(chan_t *c, int ph);

/* ---- replay_classify.c ----------------------------------------------------------------------------- */

/* The channel of a COLL/SYNC instance (intercommunicators: the receiving group's) and its seq. */
chan_t *rp_inst_chan(st_clc_replay_t *r, const st_rel_inst_t *in, uint64_t *seq);
/* The LOCAL and COLL instances' quads, all empty, made when first needed: 0, or -1 (failed). */
int rp_ensure_tq(st_clc_replay_t *r);
/* The engine's state over its graph, once the graph is made: 0, or -1 (memory). */
int rp_graph_ready(st_clc_replay_t *r);

/* ---- replay_p2p.c ---------------------------------------------------------------------------------- */

/* The partner `rank`; NULL when it is none. */
peer_t *rp_find_peer(st_clc_replay_t *r, int32_t rank);
/* Adds partner `rank` unless known: 0, or -1 (memory). */
int rp_add_peer(st_clc_replay_t *r, int32_t rank);
/* Sorts the partners and lists each one's OUT and IN instances in key order: 0, or -1 (memory). */
int rp_assign_peers(st_clc_replay_t *r);
/* The setup's R_COUNTS (and, checking first, R_P2PCHK) record to every partner. */
void rp_send_counts(st_clc_replay_t *r);
/* A partner's R_COUNTS / R_P2PCHK record: 0, or -1 (malformed). */
int rp_on_counts(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd);
int rp_on_p2pchk(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd);
/* After the counts: the instances with both ends, numbered as the partner numbers them; the
 * rest DEAD. 0, or -1 (memory). */
int rp_match_peers(st_clc_replay_t *r);

/* ---- replay_scan.c --------------------------------------------------------------------------------- */

/* Largest value vi of the entries below order o (suffix: smallest above o); 0 if none. */
int rp_prefix_max(const entvec_t *e, uint64_t o, unsigned vi, uint64_t *v);
int rp_suffix_min(const entvec_t *e, uint64_t o, unsigned vi, uint64_t *v);
/* The replay's R_PFX chain of scan s: send this rank's prefix when known; the scan is known. */
void rp_chain_send(st_clc_replay_t *r, chan_t *c, uint64_t s);
void rp_chain_known(st_clc_replay_t *r, chan_t *c, uint64_t s);
/* An R_PFX record: 0, or -1 (malformed). */
int rp_on_pfx(st_clc_replay_t *r, chan_t *c, const rec_t *h, reader_t *rd);
/* Whether a scan's receive (port p of instance k) may go on before the tree's result. */
int rp_chain_ready(const st_clc_replay_t *r, uint64_t k, const st_rel_port_t *p);

/* ---- replay_forward.c ------------------------------------------------------------------------------ */

/* The callbacks of st_clc_forward_loc / st_clc_jumps_loc over the engine (ctx: the engine). */
extern const st_clc_fwd_ops_t rp_fwd_ops;
/* Operations s0 .. s0 + ns of phase ph of channel c have their result. */
void rp_result_ready(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0, uint64_t ns);
/* Runs the queued locations (forced: the one whose receive goes on regardless, or NONE32):
 * 0, or -1 (failed). */
int rp_drain(st_clc_replay_t *r, uint32_t forced);
/* Counts and reports the receive location l waits for, about to be forced. */
void rp_count_forced(st_clc_replay_t *r, uint32_t l);
/* When every unfinished location waits on this process alone, forces the lowest (as run.c). */
void rp_break_local_cycle(st_clc_replay_t *r);
/* After the setup: which messages have both ends, which instances a channel seq holds. */
void rp_prepare_instances(st_clc_replay_t *r);
/* Forward state of every location as before any forward pass. */
void rp_reset_locs(st_clc_replay_t *r);
/* Starts the message-by-message replay. */
void rp_enter_forward(st_clc_replay_t *r);
/* An R_FWD record: 0, or -1 (malformed). */
int rp_on_fwd(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd);

/* ---- replay_backward.c ----------------------------------------------------------------------------- */

/* The refs' current LC into ref_lc (allocated once a location has moved; before, LC = C). */
void rp_snap_times(st_clc_replay_t *r);
/* Sends the limits the partners' sends need and enters S_BWD. */
void rp_enter_backward(st_clc_replay_t *r);
/* Every limit this rank's sends need is in. */
int rp_backward_ready(const st_clc_replay_t *r);
/* Amortizes every location. */
void rp_run_backward(st_clc_replay_t *r);

/* ---- replay_statistics.c --------------------------------------------------------------------------- */

/* Sends what the partners' statistics need and enters S_STAT. */
void rp_enter_statistics(st_clc_replay_t *r);
/* Everything the statistics need is in. */
int rp_statistics_ready(const st_clc_replay_t *r);
/* Counts the statistics and enters S_DONE. */
void rp_finish_statistics(st_clc_replay_t *r);

/* ---- replay_rounds.c ------------------------------------------------------------------------------- */

/* An R_RVAL record: 0, or -1 (malformed). */
int rp_on_rval(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd);
/* The remote sends' values the forward passes read (peer_t.cur): 0, or -1 (failed). */
int rp_ensure_cur(st_clc_replay_t *r);
/* The work of state S_ROUND that is possible now. */
void rp_progress_round(st_clc_replay_t *r);
/* Starts the forward pass after the setup: rounds if allowed, else the replay. */
void rp_start_forward(st_clc_replay_t *r);

/* ---- replay_converge.c ----------------------------------------------------------------------------- */

/* This rank's place in the binomial tree of all ranks (rooted at rank 0). */
void rp_world_tree(st_clc_replay_t *r);
/* Passes the round's "would anything move" on once this rank's and its children's are in. */
void rp_conv_try(st_clc_replay_t *r);
/* R_CONV_UP / R_CONV_DOWN records: 0, or -1 (malformed). */
int rp_on_conv(st_clc_replay_t *r, const rec_t *h, reader_t *rd);
/* The receives the values just exchanged would move (marked HOT_MOVES); round 0's test on C. */
uint64_t rp_would_move(st_clc_replay_t *r);
uint64_t rp_moves_on_c(st_clc_replay_t *r);
/* The remote relations on C, from round 0's exchange, into r->on_c. */
void rp_count_on_c(st_clc_replay_t *r);

/* ---- replay_cycles.c ------------------------------------------------------------------------------- */

/* Wave w starts here (act: W_*, about r->wv.target). */
void rp_wave_start(st_clc_replay_t *r, uint64_t w, uint64_t act);
/* Reports the current wave when this rank is idle and its subtree has reported. */
void rp_wave_step(st_clc_replay_t *r, int idle);
/* R_WAVE_UP / R_WAVE_DOWN records: 0, or -1 (malformed). */
int rp_on_wave(st_clc_replay_t *r, const rec_t *h, reader_t *rd);

/* ---- replay_restart.c ------------------------------------------------------------------------------ */

/* Checking first: whether the OpenMP / point-to-point ends stay out of the graph (1), go in
 * (0), or -1 (out of memory). */
int rp_leave_out_omp(st_clc_replay_t *r, st_rel_epsrc_t *omp);
int rp_leave_out_p2p(st_clc_replay_t *r, st_rel_epsrc_t *p2p, st_rel_epvec_t *ep);

#endif
