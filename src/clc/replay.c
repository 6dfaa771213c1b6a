/*
 * replay.c — the parallel CLC of one rank (replay.h): classification of the rank's
 * partial dependency graph, the message records, the per-communicator reduction trees,
 * and the state machine SETUP -> ROUNDS (bulk, bounded) [-> FORWARD (replay)] -> BACKWARD ->
 * STATISTICS -> DONE.
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
 * instances (converged rounds need neither: see count_on_c and enter_backward). An operation completes at a node
 * when its own contribution and all its children's are in (then it goes up, or at the
 * root becomes the result and goes down). Contributions per instance: the shape
 * (EMPTY / PRODUCT / PREFIX) and, for PRODUCT, values (an intercommunicator has a channel
 * per receiving group) (forward: LC of sends; backward: LC of receives, stored
 * complemented so that "two smallest" is again "two largest"; statistics: C and final
 * LC of sends; round: LC of sends, complemented LC of receives) as quads; for PREFIX
 * (scans), the list of (comm rank, values; NONE64 where an entry has no such value).
 *
 * Records: a 32-byte header {type, phase, channel kind, round, nseq, payload length,
 * channel key, first seq} and the payload. Records to one destination are appended to
 * one buffer and sent when the rank runs out of local work (or the buffer is large).
 *
 * Checking first (replay.h), the point-to-point relations may stay out of the graph: then
 * the setup also sends every partner one R_P2PCHK record (the C of the sends to it,
 * p2p_check.h), and a violated receive counts as a move at round 0.
 */
#include "replay.h"

#include "../exchange/exchange.h"
#include "p2p_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"

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
enum { CH_COMM, CH_SYNC, CH_INTER1 };
enum { S_SETUP, S_FWD, S_BWD, S_STAT, S_DONE, S_FAILED, S_ROUND };

/* Values (quads) per instance. PH_S: C and LC of the sends; PH_R: LC of the sends and, for the backward
 * pass after converged rounds, the complemented LC of the receives. */
static const unsigned ph_nv[PH__N] = { 1, 1, 2, 2 };
static const char *const state_names[] = { "setup", "forward", "backward", "statistics", "done", "failed", "round" };

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
    uint64_t     *cur;                  /* [recv_inst.n] (from the first forward pass on: ensure_cur) the
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
    top2_t   *tq;       /* [ntq], from the first forward pass or limits on (ensure_tq) */
    uint64_t  ntq;
    uint32_t *pending, *wait_head;
    /* compact copies of the refs' times: the phases that loop over instances read these
     * instead of gathering from the event arrays (a cache and TLB miss per ref) */
    uint64_t *ref_c, *ref_lc; /* [nrefs]: C; LC as of the last snap_times() (NULL: LC = C, nothing moved) */
    uint32_t *port_ref;       /* [nports]: ref index of each port (32 bits: alloc_state checks nrefs) */
    /* locations */
    st_clc_fwd_t *fwd;
    uint32_t     *wait_next, *queue;
    uint8_t      *queued;
    uint32_t      qhead, qlen, unfinished;
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
    st_clc_stats_t on_c;       /* bulk rounds: the remote relations counted on C (count_on_c) */
    st_clc_vcount_t local_on_c; /* round 0: the LOCAL relations on C with mu (moves_on_c) */
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
    u64vec_t   local_k, coll_k; /* the LOCAL instances (classify), the live COLL ones (start_forward) */
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

/* ---- small helpers ------------------------------------------------------------------------------- */

static void fail(st_clc_replay_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(st_clc_replay_t *r, const char *fmt, ...)
{
    if (r->state == S_FAILED)
        return;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    st_log_error("CLC (parallel, rank %d): %s", r->me, msg);
    r->state = S_FAILED;
}

static int u64_push(u64vec_t *v, uint64_t x)
{
    if (st_mem_grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v))
        return -1;
    v->v[v->n++] = x;
    return 0;
}

static int ent_push(entvec_t *v, ent_t e)
{
    if (st_mem_grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v))
        return -1;
    v->v[v->n++] = e;
    return 0;
}

static uint64_t gid(const st_rel_loc_t *L) { return (uint64_t)(uint32_t)L->rank << 32 | L->thread; }

static uint32_t key_type(const uint64_t *key) { return (uint32_t)(key[0] >> 56); }

/* Keeps the two largest values on distinct locations (run.c's rule). */
static void quad_put(top2_t *q, uint64_t v, uint64_t loc)
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

static void quad_merge(top2_t *a, const top2_t *b)
{
    if (b->l1 != NOLOC)
        quad_put(a, b->v1, b->l1);
    if (b->l2 != NOLOC)
        quad_put(a, b->v2, b->l2);
}

/* The kept value of a location other than loc; 0 if none. */
static int quad_other(const top2_t *q, uint64_t loc, uint64_t *v)
{
    if (q->l1 != NOLOC && q->l1 != loc)
        return *v = q->v1, 1;
    if (q->l2 != NOLOC && q->l2 != loc)
        return *v = q->v2, 1;
    return 0;
}

static const top2_t quad_empty = { 0, NOLOC, 0, NOLOC };

/* The forward / backward quad of a LOCAL or COLL instance; NULL for the others. */
static top2_t *tq_of(const st_clc_replay_t *r, uint64_t k) { return r->tqi[k] == NONE32 ? NULL : &r->tq[r->tqi[k]]; }

/* ---- lookup ---------------------------------------------------------------------------------------- */

static int cmp_chan(const void *a, const void *b)
{
    const chan_t *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static chan_t *find_chan(st_clc_replay_t *r, uint8_t kind, uint64_t key)
{
    chan_t k = { .kind = kind, .key = key };
    return r->nch ? bsearch(&k, r->ch, r->nch, sizeof k, cmp_chan) : NULL;
}

static int cmp_peer(const void *a, const void *b)
{
    int32_t x = ((const peer_t *)a)->rank, y = ((const peer_t *)b)->rank;
    return x < y ? -1 : x > y;
}

static peer_t *find_peer(st_clc_replay_t *r, int32_t rank)
{
    peer_t k = { .rank = rank };
    return r->npeers ? bsearch(&k, r->peers, r->npeers, sizeof k, cmp_peer) : NULL;
}

/* ---- output ---------------------------------------------------------------------------------------- */

static uint8_t *ob_reserve(st_clc_replay_t *r, int32_t to, size_t n, st_xchg_buf_t **pb)
{
    if (to < 0 || to >= r->nranks)
        return fail(r, "message for rank %d outside the world", to), NULL;
    uint8_t *p = st_xchg_reserve(&r->out, to, n, pb);
    if (!p)
        fail(r, "out of memory");
    return p;
}

/* Appends a record header plus len payload bytes for `to`; returns the payload, NULL on failure. */
static uint8_t *rec_begin(st_clc_replay_t *r, int32_t to, uint8_t type, uint8_t phase, const chan_t *c,
                          uint64_t seq, uint32_t nseq, size_t len)
{
    if (to < 0 || to >= r->nranks)
        return fail(r, "message for rank %d outside the world", to), NULL;
    rec_t h = { .type = type, .phase = phase, .chkind = c ? c->kind : 0, .round = (uint8_t)r->round, .nseq = nseq,
                .chan = c ? c->key : 0, .seq = seq };
    uint8_t *p = st_xchg_record(&r->out, to, &h, len);
    if (!p)
        return fail(r, "out of memory"), NULL;
    r->busy = 1;
    r->wv.sent += type != R_WAVE_UP && type != R_WAVE_DOWN;
    return p;
}

static int flush(st_clc_replay_t *r, int all)
{
    int32_t bad = -1;
    if (st_xchg_flush(&r->out, all ? 0 : FLUSH_BYTES, &bad) != 0) {
        fail(r, "cannot send to rank %d", bad);
        return -1;
    }
    return 0;
}

/* One forward point-to-point value: appended to the open R_FWD record of the receiver. */
static void send_fwd(st_clc_replay_t *r, const peer_t *pe, uint64_t idx, uint64_t lc)
{
    st_xchg_buf_t *b = st_xchg_buf(&r->out, pe->rank);
    if (!b || b->open_at == SIZE_MAX) {
        if (!rec_begin(r, pe->rank, R_FWD, PH_F, NULL, 0, 0, 0))
            return;
        b = st_xchg_buf(&r->out, pe->rank);
        b->open_at = b->len - sizeof(rec_t);
    }
    uint64_t pair[2] = { idx, lc };
    size_t at = b->open_at;
    uint8_t *p = ob_reserve(r, pe->rank, sizeof pair, NULL);
    if (!p)
        return;
    memcpy(p, pair, sizeof pair);
    rec_t h;
    memcpy(&h, b->data + at, sizeof h);
    h.len += sizeof pair;
    memcpy(b->data + at, &h, sizeof h);
    b->open_at = at;
}

/* ---- tree payloads --------------------------------------------------------------------------------- */

static size_t nq_of(int ph) { return ph_nv[ph]; }

static top2_t *qof(const chan_t *c, int ph, uint64_t s) { return &c->ph[ph].q[s * nq_of(ph)]; }

/* A round's quad of instance s: the sends' LC (recv 0) or the receives' (1). */
static top2_t *rq(const chan_t *c, uint64_t s, int recv)
{
    return &c->ph[PH_R].q[s * nq_of(PH_R) + (unsigned)recv];
}

static entvec_t *ents(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s)
{
    phase_t *P = &c->ph[ph];
    if (!P->ent && !(P->ent = st_mem_calloc(c->N ? c->N : 1, sizeof *P->ent)))
        return fail(r, "out of memory"), NULL;
    return &P->ent[s];
}

static uint8_t merge_shape(st_clc_replay_t *r, uint8_t a, uint8_t b)
{
    if (a != SH_EMPTY && b != SH_EMPTY && a != b)
        st_log_warn_once("CLC (parallel, rank %d): members disagree whether a collective is a scan", r->me);
    return a > b ? a : b;
}

static size_t seq_size(chan_t *c, int ph, uint64_t s)
{
    size_t n = 8;
    if (c->ph[ph].shape[s] == SH_PRODUCT)
        n += nq_of(ph) * sizeof(top2_t);
    else if (c->ph[ph].shape[s] == SH_PREFIX)
        n += 8 + (c->ph[ph].ent ? c->ph[ph].ent[s].n : 0) * (1 + ph_nv[ph]) * 8;
    return n;
}


static uint8_t *put_seq(chan_t *c, int ph, uint64_t s, uint8_t *p)
{
    uint8_t sh = c->ph[ph].shape[s];
    p = st_xchg_put_u64(p, sh);
    if (sh == SH_PRODUCT) {
        memcpy(p, qof(c, ph, s), nq_of(ph) * sizeof(top2_t));
        p += nq_of(ph) * sizeof(top2_t);
    } else if (sh == SH_PREFIX) {
        const entvec_t *e = c->ph[ph].ent ? &c->ph[ph].ent[s] : NULL;
        size_t n = e ? e->n : 0;
        p = st_xchg_put_u64(p, n);
        for (size_t i = 0; i < n; i++) {
            p = st_xchg_put_u64(p, e->v[i].order);
            for (unsigned j = 0; j < ph_nv[ph]; j++)
                p = st_xchg_put_u64(p, e->v[i].v[j]);
        }
    }
    return p;
}

/* Merges (replace == 0) or sets (replace != 0) instance s from the reader. */
static int read_seq(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s, reader_t *rd, int replace)
{
    uint64_t sh, n;
    if (st_xchg_get_u64(rd, &sh) || sh > SH_PREFIX)
        return -1;
    phase_t *P = &c->ph[ph];
    top2_t *q = qof(c, ph, s);
    if (replace) {
        for (size_t i = 0; i < nq_of(ph); i++)
            q[i] = quad_empty;
        if (P->ent)
            P->ent[s].n = 0;
        P->shape[s] = SH_EMPTY;
    }
    P->shape[s] = merge_shape(r, P->shape[s], (uint8_t)sh);
    if (sh == SH_PRODUCT) {
        size_t bytes = nq_of(ph) * sizeof(top2_t);
        if ((size_t)(rd->end - rd->p) < bytes)
            return -1;
        for (size_t i = 0; i < nq_of(ph); i++) {
            top2_t x;
            memcpy(&x, rd->p + i * sizeof x, sizeof x);
            quad_merge(&q[i], &x);
        }
        rd->p += bytes;
    } else if (sh == SH_PREFIX) {
        if (st_xchg_get_u64(rd, &n) || n > (uint64_t)(rd->end - rd->p) / 8)
            return -1;
        entvec_t *e = ents(r, c, ph, s);
        if (!e)
            return -1;
        for (uint64_t i = 0; i < n; i++) {
            ent_t x = { 0 };
            if (st_xchg_get_u64(rd, &x.order))
                return -1;
            for (unsigned j = 0; j < ph_nv[ph]; j++)
                if (st_xchg_get_u64(rd, &x.v[j]))
                    return -1;
            if (ent_push(e, x))
                return fail(r, "out of memory"), -1;
        }
    }
    return 0;
}

/* ---- reduction trees ------------------------------------------------------------------------------- */

static void result_ready(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0, uint64_t ns);
static int phase_arrays(st_clc_replay_t *r, chan_t *c, int ph);

static void send_op(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0, uint64_t ns, int32_t to, uint8_t type)
{
    size_t len = 0;
    for (uint64_t s = s0; s < s0 + ns; s++)
        len += seq_size(c, ph, s);
    uint8_t *p = rec_begin(r, to, type, (uint8_t)ph, c, s0, (uint32_t)ns, len);
    for (uint64_t s = s0; p && s < s0 + ns; s++)
        p = put_seq(c, ph, s, p);
}

static tracker_t *tracker(chan_t *c, int ph, uint64_t s0) { return &c->ph[ph].tr[ph == PH_F ? s0 : 0]; }

static uint64_t op_len(const chan_t *c, int ph) { return ph == PH_F ? 1 : c->N; }

/* Sends the operation up, or at the root turns it into the result and sends it down. */
static void try_complete(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0)
{
    tracker_t *t = tracker(c, ph, s0);
    if (!t->own || t->arrived < c->t.nchild || t->up || t->done)
        return;
    uint64_t ns = op_len(c, ph);
    if (c->t.parent >= 0) {
        send_op(r, c, ph, s0, ns, c->t.parent, R_UP);
        t->up = 1;
        return;
    }
    t->done = 1;
    for (uint32_t i = 0; i < c->t.nchild; i++)
        send_op(r, c, ph, s0, ns, c->t.child[i], R_DOWN);
    result_ready(r, c, ph, s0, ns);
}

static void own_done(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0)
{
    if (ph == PH_F)
        c->ph[ph].shape[s0] = merge_shape(r, c->ph[ph].shape[s0], c->lshape[s0]);
    tracker(c, ph, s0)->own = 1;
    try_complete(r, c, ph, s0);
}

static int on_op(st_clc_replay_t *r, chan_t *c, const rec_t *h, reader_t *rd)
{
    int ph = h->phase;
    uint64_t ns = op_len(c, ph);
    if (ph >= PH__N || h->nseq != ns || h->seq >= c->N || h->seq + ns > c->N)
        return -1;
    if (phase_arrays(r, c, ph))
        return -1;
    tracker_t *t = tracker(c, ph, h->seq);
    if (t->done)
        return -1;
    int down = h->type == R_DOWN;
    for (uint64_t s = h->seq; s < h->seq + ns; s++)
        if (read_seq(r, c, ph, s, rd, down))
            return -1;
    if (!down) {
        t->arrived++;
        try_complete(r, c, ph, h->seq);
        return 0;
    }
    t->done = 1;
    for (uint32_t i = 0; i < c->t.nchild; i++)
        send_op(r, c, ph, h->seq, ns, c->t.child[i], R_DOWN);
    result_ready(r, c, ph, h->seq, ns);
    return 0;
}

/* Setup: every member's number of instances; the max is N. */
static int alloc_channel(st_clc_replay_t *r, chan_t *c);

static void setup_done(st_clc_replay_t *r, chan_t *c, uint64_t n)
{
    c->setup.done = 1;
    if (n > MAX_SEQ) {
        fail(r, "communicator %llx claims %llu collective instances", (unsigned long long)c->key,
             (unsigned long long)n);
        return;
    }
    c->N = n;
    for (uint32_t i = 0; i < c->t.nchild; i++) {
        uint8_t *p = rec_begin(r, c->t.child[i], R_SETUP_DOWN, 0, c, 0, 0, 8);
        if (p)
            st_xchg_put_u64(p, n);
    }
    if (alloc_channel(r, c) == 0)
        r->setup_open--;
}

static void setup_try(st_clc_replay_t *r, chan_t *c)
{
    tracker_t *t = &c->setup;
    if (!t->own || t->arrived < c->t.nchild || t->up || t->done)
        return;
    if (c->t.parent < 0) {
        setup_done(r, c, c->local_n);
        return;
    }
    uint8_t *p = rec_begin(r, c->t.parent, R_SETUP_UP, 0, c, 0, 0, 8);
    if (p)
        st_xchg_put_u64(p, c->local_n);
    t->up = 1;
}

static int on_setup(st_clc_replay_t *r, chan_t *c, const rec_t *h, reader_t *rd)
{
    uint64_t v;
    if (st_xchg_get_u64(rd, &v) || c->setup.done)
        return -1;
    if (h->type == R_SETUP_DOWN) {
        setup_done(r, c, v);
        return 0;
    }
    if (v > c->local_n)
        c->local_n = v;
    c->setup.arrived++;
    setup_try(r, c);
    return 0;
}

/* ---- channels ---------------------------------------------------------------------------------------- */

/* Sorted, unique members; tree position of this rank. Returns 0, 1 (not a member: skip) or -1. */
static int chan_members(st_clc_replay_t *r, chan_t *c, const int32_t *a, uint32_t na, const int32_t *b, uint32_t nb)
{
    return st_xchg_tree_build(&c->t, a, na, b, nb, r->nranks, r->me);
}

static void chan_free(chan_t *c)
{
    st_xchg_tree_free(&c->t);
    st_mem_free(c->pend);
    st_mem_free(c->inst0);
    st_mem_free(c->inst1);
    st_mem_free(c->lshape);
    for (int ph = 0; ph < PH__N; ph++) {
        phase_t *P = &c->ph[ph];
        if (P->ent)
            for (uint64_t s = 0; s < c->N; s++)
                st_mem_free(P->ent[s].v);
        st_mem_free(P->ent);
        st_mem_free(P->tr);
        st_mem_free(P->q);
        st_mem_free(P->shape);
    }
}

static int add_chan(st_clc_replay_t *r, uint8_t kind, uint64_t key, int inter, const int32_t *a, uint32_t na,
                    const int32_t *b, uint32_t nb)
{
    chan_t c = { .kind = kind, .key = key, .inter = (uint8_t)inter };
    int rc = chan_members(r, &c, a, na, b, nb);
    if (rc != 0) {
        chan_free(&c);
        return rc < 0 ? -1 : 0;
    }
    chan_t *v = st_mem_realloc(r->ch, (r->nch + 1) * sizeof *v);
    if (!v) {
        chan_free(&c);
        return -1;
    }
    r->ch = v;
    r->ch[r->nch++] = c;
    return 0;
}

static int build_channels(st_clc_replay_t *r)
{
    const st_rel_proc_t *pr = &r->in->procs[r->me];
    for (uint32_t i = 0; i < pr->ncomms; i++) {
        const st_comm_def_t *d = &pr->comms[i];
        int dup = 0;
        for (uint32_t j = 0; j < r->nch && !dup; j++)
            dup = r->ch[j].key == d->key;
        int inter = (d->flags & ST_COMMF_INTER) || d->remote_size;
        for (uint8_t kind = CH_COMM; !dup && kind <= (inter ? CH_INTER1 : CH_COMM); kind += CH_INTER1)
            if (add_chan(r, kind, d->key, inter, d->world, d->world ? d->size : 0, d->remote_world,
                         d->remote_world ? d->remote_size : 0))
                return -1;
    }
    if (r->in->nsync && r->in->sync) {
        int32_t *all = st_mem_malloc(sizeof(int32_t) * (size_t)r->nranks);
        if (!all)
            return -1;
        for (int32_t q = 0; q < r->nranks; q++)
            all[q] = q;
        int rc = add_chan(r, CH_SYNC, 0, 0, all, (uint32_t)r->nranks, NULL, 0);
        st_mem_free(all);
        if (rc)
            return -1;
        chan_t *c = &r->ch[r->nch - 1];
        for (uint32_t s = 0; s < r->in->nsync; s++)
            if (r->in->sync[s].group + 1ull > c->local_n)
                c->local_n = r->in->sync[s].group + 1ull;
    }
    if (r->nch > 1)
        qsort(r->ch, r->nch, sizeof *r->ch, cmp_chan);
    return 0;
}

/* Every member must take part in every instance: N counts the seqs of all collective calls.
 * Called by st_rel_endpoints() for each collective end it scans (opts.coll_end), so the events
 * are swept once. */
static void channel_count(void *ctx, const st_event_t *e)
{
    st_clc_replay_t *r = ctx;
    const st_rel_proc_t *pr = &r->in->procs[r->me];
    uint64_t seq = e->kind == ST_EV_MPI_COLL_END ? e->id : e->aux;
    if (e->comm >= pr->ncomms || seq >= MAX_SEQ)
        return;
    for (uint8_t kind = CH_COMM; kind <= CH_INTER1; kind += CH_INTER1) {
        chan_t *c = find_chan(r, kind, pr->comms[e->comm].key);
        if (c && seq + 1 > c->local_n)
            c->local_n = seq + 1;
    }
}

/* The dense C / LC arrays come only where something moves (st_clc_forward_loc; before it
 * loc->mono, set by st_rel_endpoints(), says where C first decreases). */
static void reset_times(st_clc_replay_t *r)
{
    for (uint32_t l = 0; l < r->in->nlocs; l++) {
        st_mem_free(r->in->locs[l].orig);
        r->in->locs[l].orig = NULL;
        r->in->locs[l].mono = 0;
    }
}

/*
 * A phase's arrays, made when the phase is first used, here or by a partner's record: converged
 * bulk rounds (the usual run) use only PH_R; the replay PH_F and PH_B, the statistics exchange
 * PH_S. Together they are 192 bytes per collective instance, all written at creation.
 * 0, or -1 (failed).
 */
static int phase_arrays(st_clc_replay_t *r, chan_t *c, int ph)
{
    phase_t *P = &c->ph[ph];
    if (P->q)
        return 0;
    size_t n = c->N ? c->N : 1, nq = nq_of(ph);
    P->tr = st_mem_calloc(ph == PH_F ? n : 1, sizeof *P->tr);
    P->q = st_mem_malloc(n * nq * sizeof *P->q);
    P->shape = st_mem_calloc(n, 1);
    if (!P->tr || !P->q || !P->shape) {
        st_mem_free(P->tr), st_mem_free(P->q), st_mem_free(P->shape);
        P->tr = NULL, P->q = NULL, P->shape = NULL;
        fail(r, "out of memory (%llu collective instances)", (unsigned long long)c->N);
        return -1;
    }
    for (size_t i = 0; i < n * nq; i++)
        P->q[i] = quad_empty;
    return 0;
}

/* The arrays of phase ph of every channel that has instances: 0, or -1 (failed). */
static int phases_arrays(st_clc_replay_t *r, int ph)
{
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].N && phase_arrays(r, &r->ch[i], ph))
            return -1;
    return 0;
}

static int alloc_channel(st_clc_replay_t *r, chan_t *c)
{
    size_t n = c->N ? c->N : 1;
    c->pend = st_mem_calloc(n, sizeof *c->pend);
    c->inst0 = st_mem_malloc(n * sizeof *c->inst0);
    c->inst1 = st_mem_malloc(n * sizeof *c->inst1);
    c->lshape = st_mem_calloc(n, 1);
    if (!c->pend || !c->inst0 || !c->inst1 || !c->lshape) {
        fail(r, "out of memory (%llu collective instances)", (unsigned long long)c->N);
        return -1;
    }
    for (int ph = 0; ph < PH__N; ph++)
        c->ph[ph].open = ph == PH_F ? c->N : (c->N ? 1 : 0);
    for (size_t s = 0; s < n; s++)
        c->inst0[s] = c->inst1[s] = NONE64;
    return 0;
}

/* ---- classification ---------------------------------------------------------------------------------- */

static int add_peer(st_clc_replay_t *r, int32_t rank)
{
    for (uint32_t i = 0; i < r->npeers; i++)
        if (r->peers[i].rank == rank)
            return 0;
    peer_t *v = st_mem_realloc(r->peers, (r->npeers + 1) * sizeof *v);
    if (!v)
        return -1;
    r->peers = v;
    r->peers[r->npeers++] = (peer_t){ .rank = rank };
    return 0;
}

/* The channel of a COLL/SYNC instance (intercommunicators: the receiving group's) and its seq. */
static chan_t *inst_chan(st_clc_replay_t *r, const st_rel_inst_t *in, uint64_t *seq)
{
    uint32_t t = key_type(in->key);
    chan_t *c = t == ST_REL_KEY_SYNC ? find_chan(r, CH_SYNC, 0) : find_chan(r, CH_COMM, in->key[2]);
    *seq = in->key[1];
    if (c && c->inter && in->key[3] != (uint64_t)(uint32_t)c->t.members[0])
        c = find_chan(r, CH_INTER1, in->key[2]);
    return c;
}

/* Category, channel or partner rank (OUT/IN: ia = the partner's world rank until assign_peers),
 * missing inputs and top-2 quad of instance k. */
static int classify_one(st_clc_replay_t *r, uint64_t k, int32_t *last_peer)
{
    const st_rel_inst_t *in = &r->g.inst[k];
    uint32_t t = key_type(in->key);
    if (t == ST_REL_KEY_P2P) {
        int32_t from = (int32_t)(in->key[1] >> 32), to = (int32_t)(uint32_t)in->key[1];
        int32_t other = from == r->me ? to : from;
        if (from == to || (from != r->me && to != r->me)) {
            r->cat[k] = from == to ? CAT_LOCAL : CAT_DEAD;
        } else if (other < 0 || other >= r->nranks) {
            r->cat[k] = CAT_DEAD;
        } else {
            r->cat[k] = from == r->me ? CAT_OUT : CAT_IN;
            r->ia[k] = (uint32_t)other;
            if (other != *last_peer && add_peer(r, other)) /* (most instances repeat the last partner) */
                return -1;
            *last_peer = other;
        }
    } else if (t == ST_REL_KEY_COLL || t == ST_REL_KEY_SYNC) {
        uint64_t seq;
        chan_t *c = inst_chan(r, in, &seq);
        r->cat[k] = c ? CAT_COLL : CAT_DEAD;
        r->ia[k] = c ? (uint32_t)(c - r->ch) : 0;
    } else {
        r->cat[k] = CAT_LOCAL;
    }
    r->pending[k] = r->cat[k] == CAT_LOCAL ? in->nsend : r->cat[k] == CAT_DEAD || r->cat[k] == CAT_OUT ? 0 : 1;
    r->tqi[k] = r->cat[k] == CAT_LOCAL || r->cat[k] == CAT_COLL ? (uint32_t)r->ntq++ : NONE32;
    return r->cat[k] == CAT_LOCAL ? u64_push(&r->local_k, k) : 0;
}

/* Instances per partner in key order (both ends see the same order of (tag, comm, k)); ia of
 * OUT/IN instances becomes the partner's index. Sized by a count first: no vector growth. */
static int assign_peers(st_clc_replay_t *r)
{
    const st_rel_graph_t *g = &r->g;
    if (r->npeers > 1)
        qsort(r->peers, r->npeers, sizeof *r->peers, cmp_peer);
    const peer_t *pe = NULL;
    for (uint64_t k = 0; k < g->ninst; k++) {
        if (r->cat[k] != CAT_OUT && r->cat[k] != CAT_IN)
            continue;
        if (!pe || pe->rank != (int32_t)r->ia[k])
            pe = find_peer(r, (int32_t)r->ia[k]);
        r->ia[k] = (uint32_t)(pe - r->peers);
        r->peers[r->ia[k]].send_inst.cap += r->cat[k] == CAT_OUT;
        r->peers[r->ia[k]].recv_inst.cap += r->cat[k] == CAT_IN;
    }
    for (uint32_t i = 0; i < r->npeers; i++) {
        u32vec_t *s = &r->peers[i].send_inst, *v = &r->peers[i].recv_inst;
        s->v = st_mem_malloc((s->cap + 1) * sizeof *s->v), v->v = st_mem_malloc((v->cap + 1) * sizeof *v->v);
        if (!s->v || !v->v)
            return -1;
    }
    for (uint64_t k = 0; k < g->ninst; k++)
        if (r->cat[k] == CAT_OUT || r->cat[k] == CAT_IN) {
            u32vec_t *v = r->cat[k] == CAT_OUT ? &r->peers[r->ia[k]].send_inst : &r->peers[r->ia[k]].recv_inst;
            v->v[v->n++] = (uint32_t)k;
        }
    return 0;
}

static int classify(st_clc_replay_t *r)
{
    int32_t last_peer = -1;
    memset(r->wait_head, 0xff, r->g.ninst * sizeof *r->wait_head); /* NONE32 */
    for (uint64_t k = 0; k < r->g.ninst; k++)
        if (classify_one(r, k, &last_peer))
            return -1;
    for (uint32_t i = 0; i < st_clc_p2pchk_npeers(r->chk); i++) /* the check's partners (ascending) */
        if (add_peer(r, st_clc_p2pchk_peer(r->chk, i)))
            return -1;
    return assign_peers(r);
}

/* The LOCAL and COLL instances' quads, all empty: made for the first forward pass (rounds from
 * round 1, the replay) or backward limits. Rounds that converge in round 0 (the usual trace)
 * read none: 32 bytes per such instance (a hybrid trace's OpenMP relations) never touched. */
static int ensure_tq(st_clc_replay_t *r)
{
    if (r->tq)
        return 0;
    if (!(r->tq = st_mem_malloc((r->ntq + 1) * sizeof *r->tq)))
        return fail(r, "out of memory"), -1;
    for (uint64_t i = 0; i < r->ntq; i++)
        r->tq[i] = quad_empty;
    return 0;
}

/* ---- point-to-point matching -------------------------------------------------------------------------- */

static uint32_t tag_of(const uint64_t *key) { return (uint32_t)key[0]; }

/* Channel runs of a partner's instance list: calls fn(first, end) for each (tag, comm). */
static int count_records(const st_clc_replay_t *r, const peer_t *pe, counts_rec_t *out)
{
    int n = 0;
    for (int dir = 0; dir < 2; dir++) {
        const u32vec_t *v = dir == 0 ? &pe->send_inst : &pe->recv_inst;
        for (size_t i = 0, j; i < v->n; i = j) {
            const uint64_t *ki = r->g.inst[v->v[i]].key;
            for (j = i + 1; j < v->n; j++) {
                const uint64_t *kj = r->g.inst[v->v[j]].key;
                if (tag_of(kj) != tag_of(ki) || kj[2] != ki[2])
                    break;
            }
            if (out)
                out[n] = (counts_rec_t){ .comm = ki[2], .tag = tag_of(ki), .dir = (uint32_t)dir, .count = j - i };
            n++;
        }
    }
    return n;
}

static void send_counts(st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->npeers && r->state != S_FAILED; i++) {
        peer_t *pe = &r->peers[i];
        if (r->chk) { /* every partner gets one, maybe empty: it waits for as many as for the counts */
            size_t len;
            const void *pay = st_clc_p2pchk_payload(r->chk, pe->rank, &len);
            uint8_t *q = rec_begin(r, pe->rank, R_P2PCHK, 0, NULL, 0, 0, len);
            if (q && len)
                memcpy(q, pay, len);
        }
        int n = count_records(r, pe, NULL);
        uint8_t *p = rec_begin(r, pe->rank, R_COUNTS, 0, NULL, 0, 0, (size_t)n * sizeof(counts_rec_t));
        if (p && n) {
            counts_rec_t *recs = st_mem_malloc((size_t)n * sizeof *recs);
            if (!recs) {
                fail(r, "out of memory");
                return;
            }
            count_records(r, pe, recs);
            memcpy(p, recs, (size_t)n * sizeof *recs);
            st_mem_free(recs);
        }
    }
}

static int on_counts(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd)
{
    if (h->len % sizeof(counts_rec_t))
        return -1;
    r->counts_got++;
    peer_t *pe = find_peer(r, from);
    size_t n = h->len / sizeof(counts_rec_t);
    if (pe && n) { /* unknown partners: nothing of ours can match theirs */
        if (!(pe->theirs = st_mem_malloc(h->len)))
            return fail(r, "out of memory"), -1;
        memcpy(pe->theirs, rd->p, h->len);
        pe->ntheirs = n;
    }
    rd->p += h->len;
    return 0;
}

/* A partner's sends, checked against this rank's receives from it (p2p_check.h). */
static int on_p2pchk(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd)
{
    if (!r->chk || st_clc_p2pchk_deliver(r->chk, from, rd->p, h->len))
        return -1;
    rd->p += h->len;
    r->chk_got++;
    return 0;
}

static uint64_t their_count(const peer_t *pe, uint32_t dir, uint32_t tag, uint64_t comm)
{
    for (size_t i = 0; i < pe->ntheirs; i++)
        if (pe->theirs[i].dir == dir && pe->theirs[i].tag == tag && pe->theirs[i].comm == comm)
            return pe->theirs[i].count;
    return 0;
}

/* Keeps the instances whose k is below the other side's count; the rest are DEAD. */
static void match_list(st_clc_replay_t *r, const peer_t *pe, u32vec_t *v, uint32_t their_dir, uint64_t *unmatched)
{
    size_t m = 0;
    uint64_t lim = 0;
    for (size_t i = 0; i < v->n; i++) {
        uint64_t k = v->v[i];
        const uint64_t *key = r->g.inst[k].key;
        if (i == 0 || tag_of(key) != tag_of(r->g.inst[v->v[i - 1]].key) || key[2] != r->g.inst[v->v[i - 1]].key[2])
            lim = their_count(pe, their_dir, tag_of(key), key[2]);
        if (key[3] < lim) {
            r->ib[k] = (uint32_t)m;
            v->v[m++] = k;
        } else {
            r->cat[k] = CAT_DEAD;
            r->pending[k] = 0;
            ++*unmatched;
        }
    }
    v->n = m;
}

static int match_peers(st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->npeers; i++) {
        peer_t *pe = &r->peers[i];
        match_list(r, pe, &pe->send_inst, 1, &r->ds.unmatched_send);
        match_list(r, pe, &pe->recv_inst, 0, &r->ds.unmatched_recv);
        pe->bwd = st_mem_malloc((pe->send_inst.n + 1) * sizeof *pe->bwd);
        if (!pe->bwd)
            return -1;
    }
    return 0;
}

/* ---- forward ------------------------------------------------------------------------------------------- */

static void enqueue(st_clc_replay_t *r, uint32_t l)
{
    if (r->queued[l] || r->fwd[l].pos >= r->in->locs[l].n)
        return;
    r->queued[l] = 1;
    r->queue[(r->qhead + r->qlen++) % r->in->nlocs] = l;
}

static void wake(st_clc_replay_t *r, uint64_t k)
{
    for (uint32_t l = r->wait_head[k]; l != NONE32;) {
        uint32_t next = r->wait_next[l];
        r->wait_next[l] = NONE32;
        enqueue(r, l);
        l = next;
    }
    r->wait_head[k] = NONE32;
}

static void chain_known(st_clc_replay_t *r, chan_t *c, uint64_t s);

static void result_ready(st_clc_replay_t *r, chan_t *c, int ph, uint64_t s0, uint64_t ns)
{
    c->ph[ph].open--;
    if (ph != PH_F)
        return;
    for (uint64_t s = s0; s < s0 + ns; s++) {
        if (c->ph[PH_F].shape[s] == SH_PREFIX)
            chain_known(r, c, s);
        uint64_t ks[2] = { c->inst0[s], c->inst1[s] };
        for (int j = 0; j < 2; j++) {
            uint64_t k = ks[j];
            if (k == NONE64)
                continue;
            if (c->ph[PH_F].shape[s] == SH_PRODUCT)
                *tq_of(r, k) = *qof(c, PH_F, s);
            r->pending[k] = 0;
            wake(r, k);
        }
    }
}

static uint64_t ref_order(const st_clc_replay_t *r, uint64_t k, uint32_t slot)
{
    return r->g.refs[r->g.inst[k].first + slot].order;
}

/* Scans: largest value vi of entries below (or smallest above) order o. NONE64: the
 * entry has no such value (a round's entries are sends or receives). */
static int prefix_max(const entvec_t *e, uint64_t o, unsigned vi, uint64_t *v)
{
    int have = 0;
    for (size_t i = 0; e && i < e->n; i++)
        if (e->v[i].order < o && e->v[i].v[vi] != NONE64 && (!have || e->v[i].v[vi] > *v))
            *v = e->v[i].v[vi], have = 1;
    return have;
}

static int suffix_min(const entvec_t *e, uint64_t o, unsigned vi, uint64_t *v)
{
    int have = 0;
    for (size_t i = 0; e && i < e->n; i++)
        if (e->v[i].order > o && e->v[i].v[vi] != NONE64 && (!have || e->v[i].v[vi] < *v))
            *v = e->v[i].v[vi], have = 1;
    return have;
}

static const entvec_t *ents_ro(const chan_t *c, int ph, uint64_t s)
{
    return c->ph[ph].ent ? &c->ph[ph].ent[s] : NULL;
}

/*
 * Scans in the replay. The receive of comm rank o depends on the sends of ranks < o only,
 * but the tree's result needs every member's send, and a rank above o may reach the scan
 * only after a message that o sends after it (a scan that does not synchronize, e.g. a
 * linear one): waiting for the result would then stall a consistent trace. So every member
 * also passes the prefix maximum over ranks <= o to rank o + 1 (a chain of R_PFX records,
 * one per member and scan), and a receive goes on with whichever comes first. Each member
 * sends its record exactly once (from the chain or else from the tree's result, which
 * every member gets) and waits for the one of rank o - 1 before the backward pass, so no
 * record reaches a rank that is done. Members without the scan in their trace learn of it
 * from the first record or the result (the chain is then late, never wrong).
 */
enum { CHAIN_IN = 1, CHAIN_OUT = 2, CHAIN_WAIT = 4 };

/* This rank's rank o in channel c and the world rank of o + 1 (-1: none). -1: no chain
 * (not an intracommunicator of this rank). */
static int chain_place(const st_clc_replay_t *r, const chan_t *c, uint32_t *o, int32_t *next)
{
    const st_rel_proc_t *pr = &r->in->procs[r->me];
    for (uint32_t i = 0; c->kind == CH_COMM && !c->inter && i < pr->ncomms; i++) {
        const st_comm_def_t *d = &pr->comms[i];
        for (uint32_t j = 0; d->key == c->key && d->world && j < d->size; j++)
            if (d->world[j] == r->me) {
                *o = j;
                *next = j + 1 < d->size ? d->world[j + 1] : -1;
                return 0;
            }
    }
    return -1;
}

/* Sends this rank's prefix value of scan s once it is known: the value from rank o - 1 is
 * in (or o = 0) and the own sends are computed, or the tree's result is there. */
static void chain_send(st_clc_replay_t *r, chan_t *c, uint64_t s)
{
    tracker_t *t = tracker(c, PH_F, s);
    uint32_t o;
    int32_t next;
    if ((t->chain & CHAIN_OUT) || chain_place(r, c, &o, &next))
        return;
    if (!t->done && (c->pend[s] || (o > 0 && !(t->chain & CHAIN_IN))))
        return;
    t->chain |= CHAIN_OUT;
    uint64_t v = NONE64;
    if (!prefix_max(ents_ro(c, PH_F, s), (uint64_t)o + 1, 0, &v)) /* entries: sends or prefixes of ranks <= o */
        v = NONE64;
    uint8_t *p = next < 0 ? NULL : rec_begin(r, next, R_PFX, PH_F, c, s, 1, 8);
    if (p)
        st_xchg_put_u64(p, v);
}

/* Seq s of channel c is a scan: wait for the value of rank o - 1, send ours when we can. */
static void chain_known(st_clc_replay_t *r, chan_t *c, uint64_t s)
{
    tracker_t *t = tracker(c, PH_F, s);
    uint32_t o;
    int32_t next;
    if (chain_place(r, c, &o, &next))
        return;
    if (o > 0 && !(t->chain & (CHAIN_IN | CHAIN_WAIT))) {
        t->chain |= CHAIN_WAIT;
        r->chain_wait++;
    }
    chain_send(r, c, s);
}

static int on_pfx(st_clc_replay_t *r, chan_t *c, const rec_t *h, reader_t *rd)
{
    uint64_t v, s = h->seq;
    uint32_t o;
    int32_t next;
    if (st_xchg_get_u64(rd, &v) || r->state != S_FWD || h->nseq != 1 || s >= c->N || chain_place(r, c, &o, &next) ||
        o == 0 || (tracker(c, PH_F, s)->chain & CHAIN_IN))
        return -1;
    tracker_t *t = tracker(c, PH_F, s);
    if (t->chain & CHAIN_WAIT)
        r->chain_wait--;
    t->chain |= CHAIN_IN;
    if (!t->done && v != NONE64) { /* the prefix of ranks < o, as an entry of rank o - 1 */
        entvec_t *e = ents(r, c, PH_F, s);
        if (!e || ent_push(e, (ent_t){ .order = o - 1, .v = { v, 0 } }))
            return fail(r, "out of memory"), 0;
    }
    uint64_t ks[2] = { c->inst0[s], c->inst1[s] };
    for (int j = 0; j < 2; j++)
        if (ks[j] != NONE64)
            wake(r, ks[j]);
    chain_known(r, c, s);
    return 0;
}

/* A scan's receive that may go on before the tree's result (see R_PFX above). */
static int chain_ready(const st_clc_replay_t *r, uint64_t k, const st_rel_port_t *p)
{
    if (r->state != S_FWD || r->cat[k] != CAT_COLL || r->g.inst[k].shape != ST_REL_PREFIX)
        return 0;
    const chan_t *c = &r->ch[r->ia[k]];
    return ref_order(r, k, p->slot) == 0 || (c->ph[PH_F].tr[r->ib[k]].chain & CHAIN_IN);
}

static int fwd_recv_bound(void *ctx, uint32_t loc, const st_rel_port_t *p, int force, uint64_t *bound, uint8_t *kind)
{
    st_clc_replay_t *r = ctx;
    uint64_t k = p->inst, v = 0;
    const st_rel_inst_t *in = &r->g.inst[k];
    *kind = in->kind;
    int ready = !r->pending[k] || chain_ready(r, k, p);
    if (!ready && !force)
        return 0;
    if (!ready && r->wv.force_set && r->cat[k] == CAT_COLL) { /* forced through a cycle across ranks */
        *bound = r->wv.force_have ? r->wv.force_v + st_clc_mu(&r->p, in->mumask) : 0;
        return 1;
    }
    int have;
    if (r->cat[k] == CAT_COLL && in->shape == ST_REL_PREFIX) {
        const chan_t *c = &r->ch[r->ia[k]];
        const entvec_t *e = r->state == S_ROUND ? (r->pin ? &r->pin[k] : NULL) : ents_ro(c, PH_F, r->ib[k]);
        have = ready && prefix_max(e, ref_order(r, k, p->slot), 0, &v);
    } else if (r->cat[k] == CAT_IN) { /* the value arrived (pending 0) or none is known yet */
        const peer_t *pe = &r->peers[r->ia[k]];
        if ((have = !r->pending[k]))
            v = pe->cur[r->ib[k]];
    } else {
        const top2_t *q = tq_of(r, k);
        have = q && quad_other(q, gid(&r->in->locs[loc]), &v);
    }
    *bound = have ? v + st_clc_mu(&r->p, in->mumask) : 0;
    return 1;
}

static void fwd_send_done(void *ctx, uint32_t loc, const st_rel_port_t *p, uint64_t lc)
{
    st_clc_replay_t *r = ctx;
    uint64_t k = p->inst;
    switch (r->cat[k]) {
    case CAT_LOCAL:
        quad_put(tq_of(r, k), lc, gid(&r->in->locs[loc]));
        if (--r->pending[k] == 0)
            wake(r, k);
        break;
    case CAT_OUT:
        if (r->state != S_ROUND) /* rounds send all values at the end of the round */
            send_fwd(r, &r->peers[r->ia[k]], r->ib[k], lc);
        break;
    case CAT_COLL: {
        chan_t *c = &r->ch[r->ia[k]];
        if (r->state == S_ROUND)
            break; /* contributed at the end of the round */
        uint64_t s = r->ib[k];
        if (r->g.inst[k].shape == ST_REL_PREFIX) {
            entvec_t *e = ents(r, c, PH_F, s);
            if (e && ent_push(e, (ent_t){ .order = ref_order(r, k, p->slot), .v = { lc, 0 } }))
                fail(r, "out of memory");
        } else {
            quad_put(qof(c, PH_F, s), lc, gid(&r->in->locs[loc]));
        }
        if (--c->pend[s] == 0) {
            own_done(r, c, PH_F, s);
            if (c->lshape[s] == SH_PREFIX)
                chain_send(r, c, s);
        }
        break;
    }
    default:
        break;
    }
}

static const st_clc_fwd_ops_t fwd_ops = { fwd_recv_bound, fwd_send_done };

static int drain(st_clc_replay_t *r, uint32_t forced)
{
    while (r->qlen && (r->state == S_FWD || r->state == S_ROUND)) {
        uint32_t l = r->queue[r->qhead];
        r->qhead = (r->qhead + 1) % r->in->nlocs;
        r->qlen--;
        r->queued[l] = 0;
        const st_rel_port_t *ports = r->g.ports + r->g.port_first[l];
        uint64_t np = r->g.port_first[l + 1] - r->g.port_first[l], before = r->fwd[l].pos;
        int rc = st_clc_forward_loc(&r->p, &r->in->locs[l], l, ports, np, &r->fwd[l], &fwd_ops, r, l == forced);
        forced = NONE32;
        r->busy |= r->fwd[l].pos != before;
        r->wv.prog += r->fwd[l].pos != before;
        if (rc == ST_CLC_NOMEM)
            return fail(r, "out of memory"), -1;
        if (rc == ST_CLC_BLOCKED) {
            uint64_t k = ports[r->fwd[l].blocked].inst;
            r->wait_next[l] = r->wait_head[k];
            r->wait_head[k] = l;
        } else {
            r->unfinished--;
        }
        if (r->state == S_FWD)
            flush(r, 0);
    }
    return 0;
}

/* A wait that nothing remote can end (a dependency cycle inside the process). */
static int local_wait(const st_clc_replay_t *r, uint64_t k)
{
    return r->cat[k] == CAT_LOCAL || (r->cat[k] == CAT_COLL && r->ch[r->ia[k]].t.n == 1);
}

static void unlink_waiter(st_clc_replay_t *r, uint64_t k, uint32_t l)
{
    for (uint32_t *pp = &r->wait_head[k]; *pp != NONE32; pp = &r->wait_next[*pp])
        if (*pp == l) {
            *pp = r->wait_next[l];
            r->wait_next[l] = NONE32;
            return;
        }
}

/* Counts (clc.unresolved) and reports the receive location l waits for, about to be forced. */
static void count_forced(st_clc_replay_t *r, uint32_t l)
{
    uint64_t port = r->g.port_first[l] + r->fwd[l].blocked;
    for (size_t i = 0; i < r->forced.n; i++)
        if (r->forced.v[i] == port)
            return;
    if (u64_push(&r->forced, port))
        return fail(r, "out of memory");
    if (r->unresolved++ == 0)
        st_log_warn("CLC: cyclic happened-before relations (inconsistent trace) at rank %d thread %u event %llu;"
                    " receive corrected with the sends known so far",
                    r->in->locs[l].rank, r->in->locs[l].thread, (unsigned long long)r->g.ports[port].ev);
}

/* Like run.c: when every unfinished location waits on this process alone, force the lowest. */
static void break_local_cycle(st_clc_replay_t *r)
{
    uint32_t first = NONE32;
    for (uint32_t l = 0; l < r->in->nlocs; l++) {
        if (r->fwd[l].pos >= r->in->locs[l].n)
            continue;
        const st_rel_port_t *port = r->g.ports + r->g.port_first[l] + r->fwd[l].blocked;
        if (!local_wait(r, port->inst))
            return;
        if (first == NONE32)
            first = l;
    }
    if (first == NONE32)
        return;
    const st_rel_port_t *port = r->g.ports + r->g.port_first[first] + r->fwd[first].blocked;
    count_forced(r, first);
    unlink_waiter(r, port->inst, first);
    enqueue(r, first);
    drain(r, first);
}

static int process_record(st_clc_replay_t *r, int32_t from, const uint8_t *buf, size_t len, size_t *used);

/* After the setup: which messages have both ends, which instances a channel seq holds. */
static void prepare_instances(st_clc_replay_t *r)
{
    if (match_peers(r))
        return fail(r, "out of memory");
    for (uint64_t k = 0; k < r->g.ninst; k++) {
        if (r->cat[k] != CAT_COLL)
            continue;
        chan_t *c = &r->ch[r->ia[k]];
        uint64_t seq;
        inst_chan(r, &r->g.inst[k], &seq);
        if (seq >= c->N || (c->inst0[seq] != NONE64 && c->inst1[seq] != NONE64)) {
            r->cat[k] = CAT_DEAD;
            r->pending[k] = 0;
            continue;
        }
        r->ib[k] = (uint32_t)seq; /* < c->N <= MAX_SEQ */
        *(c->inst0[seq] == NONE64 ? &c->inst0[seq] : &c->inst1[seq]) = k;
        c->pend[seq] += r->g.inst[k].nsend;
        c->lshape[seq] = r->g.inst[k].shape == ST_REL_PREFIX ? SH_PREFIX : SH_PRODUCT;
    }
}

/* Hands the deferred records to process_record again (it defers what is still early). */
static void replay_deferred(st_clc_replay_t *r)
{
    deferred_t *def = r->def;
    size_t ndef = r->ndef;
    r->def = NULL;
    r->ndef = r->capdef = 0;
    for (size_t i = 0; i < ndef; i++) {
        size_t used;
        if (r->state != S_FAILED && process_record(r, def[i].from, def[i].buf, def[i].len, &used))
            fail(r, "malformed message from rank %d", def[i].from);
        st_mem_free(def[i].buf);
    }
    st_mem_free(def);
}

/* Forward state of every location as before any forward pass. */
static void reset_locs(st_clc_replay_t *r)
{
    r->qhead = r->qlen = 0;
    r->unfinished = 0;
    for (uint32_t l = 0; l < r->in->nlocs; l++) {
        st_mem_free(r->fwd[l].jumps);
        memset(&r->fwd[l], 0, sizeof r->fwd[l]);
        r->wait_next[l] = NONE32;
        r->queued[l] = 0;
        r->unfinished += r->in->locs[l].n > 0;
    }
}

/* Forward state of every location and instance as before the replay. */
static void reset_forward(st_clc_replay_t *r)
{
    reset_locs(r);
    if (ensure_tq(r))
        return;
    for (uint64_t i = 0; i < r->ntq; i++)
        r->tq[i] = quad_empty;
    for (uint64_t k = 0; k < r->g.ninst; k++) {
        r->wait_head[k] = NONE32;
        r->pending[k] = r->cat[k] == CAT_LOCAL ? r->g.inst[k].nsend : r->cat[k] == CAT_IN || r->cat[k] == CAT_COLL;
    }
}

static int ensure_cur(st_clc_replay_t *r);
static void world_tree(st_clc_replay_t *r);
static void wave_start(st_clc_replay_t *r, uint64_t w, uint64_t act);

/* The message-by-message replay (also the fallback when bulk rounds do not converge). */
static void enter_forward(st_clc_replay_t *r)
{
    if (ensure_cur(r) || phases_arrays(r, PH_F))
        return;
    reset_forward(r);
    r->state = S_FWD;
    r->wv.used = 1;
    world_tree(r);
    if (r->me == 0)
        wave_start(r, 1, W_NONE);
    replay_deferred(r);
    for (uint32_t i = 0; i < r->nch; i++)
        for (uint64_t s = 0; s < r->ch[i].N; s++) {
            if (r->ch[i].pend[s] == 0)
                own_done(r, &r->ch[i], PH_F, s);
            if (r->ch[i].lshape[s] == SH_PREFIX)
                chain_known(r, &r->ch[i], s);
        }
    for (uint32_t l = 0; l < r->in->nlocs; l++)
        enqueue(r, l);
    r->busy = 1;
}

/* ---- backward -------------------------------------------------------------------------------------------- */

/* LC and C of a ref, from the snapshots (ref_lc is current after snap_times()). */
static uint64_t ref_time(const st_clc_replay_t *r, const st_rel_ref_t *x)
{
    return (r->ref_lc ? r->ref_lc : r->ref_c)[x - r->g.refs];
}
static uint64_t ref_orig(const st_clc_replay_t *r, const st_rel_ref_t *x) { return r->ref_c[x - r->g.refs]; }

/* Copies every ref's current LC into dst: one sweep per location over its
 * ports, which are sorted by event, so the times are read in address order. */
static void snap(st_clc_replay_t *r, uint64_t *dst)
{
    for (uint32_t l = 0; l < r->in->nlocs; l++) {
        const st_rel_loc_t *L = &r->in->locs[l];
        uint64_t j = r->g.port_first[l], end = r->g.port_first[l + 1];
        if (L->orig) {
            const uint64_t *t = st_rel_lc(L);
            for (; j < end; j++)
                dst[r->port_ref[j]] = t[r->g.ports[j].ev];
        } else { /* nothing moved: LC = C */
            for (; j < end; j++)
                dst[r->port_ref[j]] = r->ref_c[r->port_ref[j]];
        }
    }
}

/* The refs' current LC into ref_lc, which is allocated once a location has moved (before, LC = C). */
static void snap_times(st_clc_replay_t *r)
{
    int moved = 0;
    for (uint32_t l = 0; l < r->in->nlocs && !moved; l++)
        moved = r->in->locs[l].orig != NULL;
    if (!moved)
        return;
    if (!r->ref_lc && !(r->ref_lc = st_mem_malloc((r->g.nrefs + 1) * sizeof *r->ref_lc)))
        return fail(r, "out of memory");
    snap(r, r->ref_lc);
}

static const st_rel_ref_t *refs_of(const st_clc_replay_t *r, uint64_t k, int recv, uint32_t *n)
{
    const st_rel_inst_t *in = &r->g.inst[k];
    *n = recv ? in->nrecv : in->nsend;
    return &r->g.refs[in->first + (recv ? in->nsend : 0)];
}

/* After converged rounds the partners already have the receives' forward LC: the last
 * round's exchange carried them (limit_of reads them there). */
static void enter_backward(st_clc_replay_t *r)
{
    if (!r->converged && phases_arrays(r, PH_B))
        return;
    snap_times(r);
    int jumps = 0; /* only jumps are amortized: without any, no limit is read (limit_of) */
    for (uint32_t l = 0; l < r->in->nlocs && !jumps; l++)
        jumps = r->fwd[l].njumps > 0;
    if (jumps && ensure_tq(r))
        return;
    for (uint64_t k = 0; k < r->g.ninst; k++) {
        uint32_t n;
        const st_rel_ref_t *rv = refs_of(r, k, 1, &n);
        if (r->cat[k] == CAT_COLL && r->converged)
            continue;
        if (r->cat[k] == CAT_LOCAL && !jumps)
            continue;
        if (r->cat[k] == CAT_LOCAL) { /* limits from the forward LC of the receives, complemented */
            top2_t *q = tq_of(r, k);
            *q = quad_empty;
            for (uint32_t i = 0; i < n; i++)
                quad_put(q, ~ref_time(r, &rv[i]), gid(&r->in->locs[rv[i].loc]));
        } else if (r->cat[k] == CAT_COLL) {
            chan_t *c = &r->ch[r->ia[k]];
            uint64_t s = r->ib[k];
            int prefix = r->g.inst[k].shape == ST_REL_PREFIX;
            c->ph[PH_B].shape[s] = merge_shape(r, c->ph[PH_B].shape[s], prefix ? SH_PREFIX : SH_PRODUCT);
            for (uint32_t i = 0; i < n; i++) {
                entvec_t *e = prefix ? ents(r, c, PH_B, s) : NULL;
                if (prefix && (!e || ent_push(e, (ent_t){ .order = rv[i].order, .v = { ref_time(r, &rv[i]), 0 } })))
                    return fail(r, "out of memory");
                if (!prefix)
                    quad_put(qof(c, PH_B, s), ~ref_time(r, &rv[i]), gid(&r->in->locs[rv[i].loc]));
            }
        }
    }
    for (uint32_t i = 0; i < r->npeers; i++) {
        peer_t *pe = &r->peers[i];
        pe->have_bwd |= r->converged;
        if (!pe->recv_inst.n || r->converged)
            continue;
        uint8_t *p = rec_begin(r, pe->rank, R_BWD, PH_B, NULL, 0, 0, pe->recv_inst.n * 8);
        for (size_t j = 0; p && j < pe->recv_inst.n; j++)
            p = st_xchg_put_u64(p, ref_time(r, &r->g.refs[r->g.inst[pe->recv_inst.v[j]].first]));
    }
    r->state = S_BWD;
    for (uint32_t i = 0; i < r->nch; i++) {
        if (r->converged)
            r->ch[i].ph[PH_B].open = 0;
        else if (r->ch[i].N)
            own_done(r, &r->ch[i], PH_B, 0);
    }
    r->busy = 1;
}

static uint64_t minus_mu(uint64_t v, uint64_t mu) { return v > mu ? v - mu : 0; }

static uint64_t limit_of(void *ctx, uint32_t loc, const st_rel_port_t *p)
{
    st_clc_replay_t *r = ctx;
    uint64_t k = p->inst, v = 0;
    uint64_t mu = st_clc_mu(&r->p, r->g.inst[k].mumask);
    switch (r->cat[k]) {
    case CAT_LOCAL:
        return quad_other(tq_of(r, k), gid(&r->in->locs[loc]), &v) ? minus_mu(~v, mu) : UINT64_MAX;
    case CAT_OUT:
        return minus_mu(r->peers[r->ia[k]].bwd[r->ib[k]], mu);
    case CAT_COLL: { /* after converged rounds, the last round's values (see enter_backward) */
        const chan_t *c = &r->ch[r->ia[k]];
        uint64_t s = r->ib[k];
        int rounds = r->converged;
        if (r->g.inst[k].shape == ST_REL_PREFIX)
            return suffix_min(ents_ro(c, rounds ? PH_R : PH_B, s), ref_order(r, k, p->slot), rounds, &v)
                       ? minus_mu(v, mu)
                       : UINT64_MAX;
        const top2_t *q = rounds ? rq(c, s, 1) : qof(c, PH_B, s);
        return quad_other(q, gid(&r->in->locs[loc]), &v) ? minus_mu(~v, mu) : UINT64_MAX;
    }
    default:
        return UINT64_MAX;
    }
}

static int backward_ready(const st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->npeers; i++)
        if (r->peers[i].send_inst.n && !r->peers[i].have_bwd)
            return 0;
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].ph[PH_B].open)
            return 0;
    return 1;
}

static void run_backward(st_clc_replay_t *r)
{
    st_clc_scratch_t scratch = { 0 };
    for (uint32_t l = 0; l < r->in->nlocs && r->state != S_FAILED; l++) {
        const st_rel_port_t *ports = r->g.ports + r->g.port_first[l];
        uint64_t np = r->g.port_first[l + 1] - r->g.port_first[l];
        if (st_clc_backward_loc(&r->p, &r->in->locs[l], l, ports, np, r->fwd[l].jumps, r->fwd[l].njumps, limit_of, r,
                                &scratch, &r->ramps, &r->bent))
            fail(r, "out of memory");
    }
    st_clc_scratch_free(&scratch);
}

/* ---- statistics -------------------------------------------------------------------------------------------- */

static void enter_statistics(st_clc_replay_t *r)
{
    if (r->converged) { /* see count_on_c; the final LC for the local relations (finish_statistics) */
        snap_times(r);
        r->state = S_STAT;
        return;
    }
    if (phases_arrays(r, PH_S))
        return;
    snap_times(r); /* final LC (after the backward pass), also for finish_statistics */
    for (uint64_t k = 0; k < r->g.ninst; k++) {
        if (r->cat[k] != CAT_COLL)
            continue;
        chan_t *c = &r->ch[r->ia[k]];
        uint64_t s = r->ib[k];
        int prefix = r->g.inst[k].shape == ST_REL_PREFIX;
        uint32_t n;
        const st_rel_ref_t *sv = refs_of(r, k, 0, &n);
        c->ph[PH_S].shape[s] = merge_shape(r, c->ph[PH_S].shape[s], prefix ? SH_PREFIX : SH_PRODUCT);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t cv = ref_orig(r, &sv[i]), lv = ref_time(r, &sv[i]);
            if (prefix) {
                entvec_t *e = ents(r, c, PH_S, s);
                if (!e || ent_push(e, (ent_t){ .order = sv[i].order, .v = { cv, lv } }))
                    return fail(r, "out of memory");
            } else {
                top2_t *q = qof(c, PH_S, s);
                quad_put(&q[0], cv, gid(&r->in->locs[sv[i].loc]));
                quad_put(&q[1], lv, gid(&r->in->locs[sv[i].loc]));
            }
        }
    }
    for (uint32_t i = 0; i < r->npeers; i++) {
        const peer_t *pe = &r->peers[i];
        if (!pe->send_inst.n)
            continue;
        uint8_t *p = rec_begin(r, pe->rank, R_STAT, PH_S, NULL, 0, 0, pe->send_inst.n * 16);
        for (size_t j = 0; p && j < pe->send_inst.n; j++) {
            const st_rel_ref_t *x = &r->g.refs[r->g.inst[pe->send_inst.v[j]].first];
            p = st_xchg_put_u64(p, ref_orig(r, x));
            p = st_xchg_put_u64(p, ref_time(r, x));
        }
    }
    r->state = S_STAT;
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].N)
            own_done(r, &r->ch[i], PH_S, 0);
    r->busy = 1;
}

static int statistics_ready(const st_clc_replay_t *r)
{
    for (uint32_t i = 0; !r->converged && i < r->npeers; i++)
        if (r->peers[i].recv_inst.n && !r->peers[i].have_stat)
            return 0;
    for (uint32_t i = 0; i < r->nch; i++)
        for (int ph = 0; ph < PH__N; ph++)
            if (r->ch[i].ph[ph].open)
                return 0;
    return 1;
}

/* A receive against the largest send it depends on: on C (sc, st_clc_stats_count_c) and on the final LC (sl). */
static void count_recv(st_clc_replay_t *r, unsigned kind, uint64_t mu, uint64_t sc, uint64_t sl, const st_rel_ref_t *x)
{
    st_clc_stats_count_c(&r->stats, kind, mu, sc, ref_orig(r, x));
    st_clc_vcount_add(&r->stats.remaining, kind, sl, mu, ref_time(r, x));
}

static void count_coll(st_clc_replay_t *r, uint64_t k)
{
    const st_rel_inst_t *in = &r->g.inst[k];
    const chan_t *c = &r->ch[r->ia[k]];
    uint64_t s = r->ib[k], mu = st_clc_mu(&r->p, in->mumask), sc = 0, sl = 0;
    uint32_t n;
    const st_rel_ref_t *rv = refs_of(r, k, 1, &n);
    const top2_t *q = qof(c, PH_S, s);
    for (uint32_t i = 0; i < n; i++) {
        int have;
        if (in->shape == ST_REL_PREFIX)
            have = prefix_max(ents_ro(c, PH_S, s), rv[i].order, 0, &sc) &&
                   prefix_max(ents_ro(c, PH_S, s), rv[i].order, 1, &sl);
        else
            have = quad_other(&q[0], gid(&r->in->locs[rv[i].loc]), &sc) &&
                   quad_other(&q[1], gid(&r->in->locs[rv[i].loc]), &sl);
        if (have)
            count_recv(r, in->kind, mu, sc, sl, &rv[i]);
    }
}

static void finish_statistics(st_clc_replay_t *r)
{
    st_clc_stats_t *s = &r->stats;
    /* LOCAL instances: the sequential counter on them, from the refs' snapshots. */
    const uint64_t *lc = r->ref_lc ? r->ref_lc : r->ref_c; /* current: see enter_statistics */
    const uint64_t *ks = r->local_k.v;
    st_clc_violations_refs(&r->g, ks, r->local_k.n, r->ref_c, NULL, &s->reversed);
    if (r->have_local_on_c) /* counted on C by round 0 (s holds nothing yet) */
        s->violations = r->local_on_c;
    else
        st_clc_violations_refs(&r->g, ks, r->local_k.n, r->ref_c, &r->p, &s->violations);
    if (lc == r->ref_c) /* nothing moved: LC = C */
        s->remaining = s->violations;
    else
        st_clc_violations_refs(&r->g, ks, r->local_k.n, lc, &r->p, &s->remaining);
    if (r->converged)
        st_clc_stats_merge(s, &r->on_c);
    for (uint32_t i = 0; !r->converged && i < r->npeers; i++) {
        const peer_t *pe = &r->peers[i];
        for (size_t j = 0; j < pe->recv_inst.n; j++) {
            const st_rel_inst_t *in = &r->g.inst[pe->recv_inst.v[j]];
            count_recv(r, in->kind, st_clc_mu(&r->p, in->mumask), pe->stat[2 * j], pe->stat[2 * j + 1],
                       &r->g.refs[in->first]);
        }
    }
    for (uint64_t k = 0; !r->converged && k < r->g.ninst; k++)
        if (r->cat[k] == CAT_COLL)
            count_coll(r, k);
    for (uint32_t l = 0; l < r->in->nlocs; l++)
        for (size_t j = 0; j < r->fwd[l].njumps; j++)
            s->jumps[r->fwd[l].jumps[j].kind < ST_REL__KINDS ? r->fwd[l].jumps[j].kind : 0]++;
    if (r->omp.read) /* left out of the graph: checked on C, none violated, nothing moved */
        st_clc_stats_merge(s, &r->omp_on_c);
    if (r->chk) /* the same (a violation would have started the engines again); and the unmatched ends */
        st_clc_p2pchk_finish(r->chk, s, &r->ds);
    s->unresolved = r->unresolved;
    s->ramps = r->ramps;
    s->ramps_bent = r->bent;
    s->deps = r->ds;
    st_clc_finish_locs(s, r->in->locs, r->in->nlocs, r->moved, r->moved_ctx);
    r->state = S_DONE;
}

/* ---- bulk rounds ------------------------------------------------------------------------------------------------ */
/*
 * LC is monotone in the values of the sends a location receives from, so iterating "every
 * rank computes its whole forward pass from the previous round's remote values, then all
 * send values are exchanged at once" from no remote values at all rises to the least fixed
 * point, which for a consistent trace is the unique solution the replay computes. It
 * has converged when, with the values just exchanged, no receive anywhere would move (its
 * new bound does not exceed its LC): bounds only grow from round to round, so the current LC
 * then satisfy every equation with the new values and are the least fixed point — no
 * confirming pass (one "would anything move" reduction over all ranks per round). Round 0
 * runs no forward pass: it exchanges the sends' C, a lower bound of their LC; when nothing
 * would move on C (moves_on_c: the usual trace), C is that fixed point and no pass runs at
 * all. A round costs a pass over the events and one exchange, instead of one message
 * latency per hop of every causal chain: much cheaper when corrections do not chain across
 * many ranks, which is the usual case (a jump is caused by the raw time of a send: one
 * forward pass). When they do, rounds_max bounds the attempt and the message-by-message
 * replay takes over.
 */

/* Records of a later round, or of the replay while this rank is still in rounds, wait. */
static int early(const st_clc_replay_t *r, const rec_t *h)
{
    int round_rec = h->type == R_RVAL || h->type == R_CONV_UP || h->type == R_CONV_DOWN ||
                    ((h->type == R_UP || h->type == R_DOWN) && h->phase == PH_R);
    if (round_rec)
        return r->state != S_ROUND || h->round > r->round;
    int replay_rec = h->type == R_FWD || h->type == R_PFX || h->type == R_WAVE_UP || h->type == R_WAVE_DOWN || ((h->type == R_UP || h->type == R_DOWN) && h->phase == PH_F);
    return replay_rec && r->state == S_ROUND;
}

static void world_tree(st_clc_replay_t *r)
{
    uint32_t me = (uint32_t)r->me, n = (uint32_t)r->nranks;
    r->wparent = me ? (int32_t)(me & (me - 1)) : -1;
    r->nwchild = 0;
    for (uint64_t bit = 1; bit < n && !(me & bit); bit <<= 1)
        if (me + bit < n)
            r->wchild[r->nwchild++] = (int32_t)(me + bit);
}

static void rounds_result(st_clc_replay_t *r, uint64_t changed);

static void conv_try(st_clc_replay_t *r)
{
    tracker_t *t = &r->conv;
    if (!t->own || t->arrived < r->nwchild || t->up || t->done)
        return;
    if (r->wparent >= 0) {
        uint8_t *p = rec_begin(r, r->wparent, R_CONV_UP, 0, NULL, 0, 0, 8);
        if (p)
            st_xchg_put_u64(p, r->conv_val);
        t->up = 1;
        return;
    }
    rounds_result(r, r->conv_val);
}

static void rounds_result(st_clc_replay_t *r, uint64_t changed)
{
    r->conv.done = 1;
    r->conv_val = changed;
    for (uint32_t i = 0; i < r->nwchild; i++) {
        uint8_t *p = rec_begin(r, r->wchild[i], R_CONV_DOWN, 0, NULL, 0, 0, 8);
        if (p)
            st_xchg_put_u64(p, changed);
    }
}

static int on_conv(st_clc_replay_t *r, const rec_t *h, reader_t *rd)
{
    uint64_t v;
    if (st_xchg_get_u64(rd, &v) || h->round != r->round || r->conv.done)
        return -1;
    if (h->type == R_CONV_DOWN) {
        rounds_result(r, v);
        return 0;
    }
    r->conv_val = v > r->conv_val ? v : r->conv_val;
    r->conv.arrived++;
    conv_try(r);
    return 0;
}

/* A partner's round values: the LC of its sends this rank receives, then (from round 1 on, see
 * round_end) of its receives from this rank; none: the same as in the round before. */
static int on_rval(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd)
{
    peer_t *pe = find_peer(r, from);
    size_t nr = pe ? pe->recv_inst.n * 8 : 0, want = pe ? (h->round ? nr + pe->send_inst.n * 8 : nr) : 0;
    if (!pe || (h->len != want && (h->len || !h->round)) || pe->rin_round >= (int)h->round)
        return -1;
    if (h->len) { /* else the same values as in the round before */
        memcpy(pe->rin, rd->p, nr);
        memcpy(pe->bwd, rd->p + nr, h->len - nr);
    }
    pe->rin_round = h->round;
    pe->rin_same = !h->len;
    rd->p += h->len;
    return 0;
}

static void reset_phase(chan_t *c, int ph)
{
    phase_t *P = &c->ph[ph];
    P->open = c->N ? 1 : 0;
    if (!c->N)
        return; /* no arrays (phase_arrays) */
    memset(P->tr, 0, sizeof *P->tr);
    for (size_t i = 0; i < c->N * nq_of(ph); i++)
        P->q[i] = quad_empty;
    memset(P->shape, 0, c->N ? c->N : 1);
    for (uint64_t s = 0; P->ent && s < c->N; s++)
        P->ent[s].n = 0;
}

/* The remote sends' values the forward passes read (peer_t.cur): from the first pass on. */
static int ensure_cur(st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->npeers; i++) {
        peer_t *pe = &r->peers[i];
        if (!pe->cur && !(pe->cur = st_mem_malloc((pe->recv_inst.n + 1) * sizeof *pe->cur)))
            return fail(r, "out of memory"), -1;
    }
    return 0;
}

/* Forward state of the instances for a round: nothing pending but local sends, and the
 * previous round's values of the remote sends as inputs (none in round 0). */
static void round_inputs(st_clc_replay_t *r)
{
    if (r->round == 0) {
        for (uint64_t k = 0; k < r->g.ninst; k++) {
            r->wait_head[k] = NONE32;
            r->pending[k] = r->cat[k] == CAT_LOCAL ? r->g.inst[k].nsend : 0;
        }
        return; /* round 0 runs no pass: no quads (ensure_tq) */
    }
    if (ensure_tq(r))
        return;
    for (size_t j = 0; j < r->local_k.n; j++) {
        uint64_t k = r->local_k.v[j];
        r->pending[k] = r->g.inst[k].nsend;
        *tq_of(r, k) = quad_empty;
    }
    if (ensure_cur(r))
        return;
    for (uint32_t i = 0; i < r->npeers; i++) { /* rin may be overwritten by the next round's values meanwhile */
        const peer_t *pe = &r->peers[i];
        if (!pe->rin_same && pe->recv_inst.n)
            memcpy(pe->cur, pe->rin, pe->recv_inst.n * sizeof *pe->cur);
    }
    for (size_t j = 0; j < r->coll_k.n; j++) {
        uint64_t k = r->coll_k.v[j], s = r->ib[k];
        chan_t *c = &r->ch[r->ia[k]];
        if (r->g.inst[k].shape != ST_REL_PREFIX) {
            *tq_of(r, k) = *rq(c, s, 0);
        } else if (c->ph[PH_R].ent) {
            entvec_t *e = &r->pin[k], *from = &c->ph[PH_R].ent[s];
            if (st_mem_grow((void **)&e->v, &e->cap, from->n + 1, sizeof *e->v))
                return fail(r, "out of memory");
            memcpy(e->v, from->v, from->n * sizeof *e->v);
            e->n = from->n;
        }
    }
}

/* The ports' HOT_* marks for the rounds' incremental passes, from round 1 on (made at the
 * end of round 0 when something would move, else at round 1's start). 0, or -1 (failed). */
static int alloc_hot(st_clc_replay_t *r)
{
    if (r->hot)
        return 0;
    r->hot = st_mem_malloc(r->g.nrefs + 1);
    r->ref_port = st_mem_malloc((r->g.nrefs + 1) * sizeof *r->ref_port);
    if (!r->hot || !r->ref_port)
        return fail(r, "out of memory"), -1;
    for (uint64_t j = 0; j < r->g.nrefs; j++) { /* ports and refs are one-to-one */
        r->ref_port[r->port_ref[j]] = (uint32_t)j;
        r->hot[j] = r->cat[r->g.ports[j].inst] == CAT_LOCAL ? HOT_LOCAL : 0;
    }
    return 0;
}

/* Round 0 runs no forward pass: it exchanges the sends' C, a lower bound of their LC
 * (LC >= C), so that round 1 starts from the raw times instead of from nothing. */
static void round_begin(st_clc_replay_t *r)
{
    if (r->round > 0 && alloc_hot(r))
        return;
    if (phases_arrays(r, PH_R))
        return;
    reset_locs(r);
    round_inputs(r);
    for (uint32_t i = 0; i < r->nch; i++)
        reset_phase(&r->ch[i], PH_R);
    memset(&r->conv, 0, sizeof r->conv);
    r->conv_val = 0;
    r->changed = 0;
    r->round_sent = 0;
    r->state = S_ROUND;
    replay_deferred(r);
    if (r->round == 0)
        r->unfinished = 0; /* event times are still C */
    for (uint32_t l = 0; r->round && l < r->in->nlocs; l++) {
        /* LC holds the last round's pass: recompute what changed. Round 0 ran none, but LC = C
         * is what a pass leaves where no receive jumps and C does not decrease (the identity
         * of st_clc_base_of): round 1 is incremental too, except on a location whose C dips. */
        if (r->round >= 2 || r->in->locs[l].mono >= r->in->locs[l].n)
            r->fwd[l].hot = r->hot + r->g.port_first[l];
        enqueue(r, l);
    }
    r->busy = 1;
}

/* This round's send values: to the receivers, and as contributions to the channel trees. */
static void round_end(st_clc_replay_t *r)
{
    r->lc_same = r->round >= 2;
    for (uint32_t l = 0; r->lc_same && l < r->in->nlocs; l++)
        r->lc_same = r->fwd[l].changed == 0;
    if (r->round > 0 && !r->lc_same) /* this round's LC, also for would_move (round 0 ran no pass: C) */
        snap_times(r);
    for (size_t j = 0; j < r->coll_k.n; j++) {
        uint64_t k = r->coll_k.v[j];
        const st_rel_inst_t *in = &r->g.inst[k];
        chan_t *c = &r->ch[r->ia[k]];
        c->ph[PH_R].shape[r->ib[k]] = merge_shape(r, c->ph[PH_R].shape[r->ib[k]],
                                                  in->shape == ST_REL_PREFIX ? SH_PREFIX : SH_PRODUCT);
        for (uint32_t i = 0; i < in->nsend + in->nrecv; i++) { /* sends, then receives */
            const st_rel_ref_t *x = &r->g.refs[in->first + i];
            uint64_t v = ref_time(r, x);
            int recv = i >= in->nsend;
            if (in->shape == ST_REL_PREFIX) {
                entvec_t *e = ents(r, c, PH_R, r->ib[k]);
                ent_t en = { .order = x->order, .v = { recv ? NONE64 : v, recv ? v : NONE64 } };
                if (!e || ent_push(e, en))
                    return fail(r, "out of memory");
            } else {
                quad_put(rq(c, r->ib[k], recv), recv ? ~v : v, gid(&r->in->locs[x->loc]));
            }
        }
    }
    /* To each partner: the LC of the sends it receives, then of the receives from it (the
     * limits of its sends, should this round be the last); nothing if no LC changed. Round 0
     * leaves the receives out: if it is the last, nothing jumped and no limit is read (limit_of);
     * if not, the next round or the replay's backward exchange brings them. */
    for (uint32_t i = 0; i < r->npeers; i++) {
        const peer_t *pe = &r->peers[i];
        size_t n = pe->send_inst.n + pe->recv_inst.n, nput = r->round ? n : pe->send_inst.n;
        if (!n)
            continue;
        uint8_t *p = rec_begin(r, pe->rank, R_RVAL, PH_R, NULL, 0, 0, r->lc_same ? 0 : nput * 8);
        for (size_t j = 0; p && !r->lc_same && j < pe->send_inst.n; j++)
            p = st_xchg_put_u64(p, ref_time(r, &r->g.refs[r->g.inst[pe->send_inst.v[j]].first]));
        for (size_t j = 0; p && !r->lc_same && r->round && j < pe->recv_inst.n; j++)
            p = st_xchg_put_u64(p, ref_time(r, &r->g.refs[r->g.inst[pe->recv_inst.v[j]].first]));
    }
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].N)
            own_done(r, &r->ch[i], PH_R, 0);
    r->round_sent = 1;
}

/* The values of this round's exchange have all arrived. */
static int round_inputs_in(const st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->npeers; i++)
        if ((r->peers[i].recv_inst.n || r->peers[i].send_inst.n) && r->peers[i].rin_round != r->round)
            return 0;
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].ph[PH_R].open)
            return 0;
    return 1;
}

/* The value of the sends collective instance k's receive x depends on, from the round's
 * exchange (the largest send LC on another location, or before it in a scan); 0 if none. */
static int round_send_value(const st_clc_replay_t *r, uint64_t k, const st_rel_ref_t *x, uint64_t *v)
{
    const chan_t *c = &r->ch[r->ia[k]];
    if (r->g.inst[k].shape == ST_REL_PREFIX)
        return prefix_max(ents_ro(c, PH_R, r->ib[k]), x->order, 0, v);
    return quad_other(rq(c, r->ib[k], 0), gid(&r->in->locs[x->loc]), v);
}

/* Marks receive ref x HOT_MOVES when send value v (+ mu) exceeds its LC; returns 1 then. */
static uint64_t moves(st_clc_replay_t *r, const st_rel_ref_t *x, uint64_t v, uint64_t mu)
{
    if (v + mu <= ref_time(r, x))
        return 0;
    if (r->hot)
        r->hot[r->ref_port[x - r->g.refs]] |= HOT_MOVES;
    return 1;
}

/* Receives whose bound from the values just exchanged exceeds their current LC; marks
 * them HOT_MOVES, where the next round's incremental passes start. Values equal to the
 * last round's move nothing: this round's passes started from them. */
static uint64_t would_move(st_clc_replay_t *r)
{
    uint64_t n = 0;
    for (uint64_t j = 0; r->hot && j < r->g.nrefs; j++)
        r->hot[j] &= HOT_LOCAL;
    for (uint32_t i = 0; i < r->npeers; i++) {
        const peer_t *pe = &r->peers[i];
        for (size_t j = 0; !pe->rin_same && j < pe->recv_inst.n; j++) {
            uint64_t k = pe->recv_inst.v[j], mu = st_clc_mu(&r->p, r->g.inst[k].mumask);
            uint32_t nr;
            const st_rel_ref_t *rv = refs_of(r, k, 1, &nr);
            for (uint32_t i = 0; i < nr; i++)
                n += moves(r, &rv[i], pe->rin[j], mu);
        }
    }
    for (size_t j = 0; j < r->coll_k.n; j++) {
        uint64_t k = r->coll_k.v[j], v = 0, mu = st_clc_mu(&r->p, r->g.inst[k].mumask);
        uint32_t nr;
        const st_rel_ref_t *rv = refs_of(r, k, 1, &nr);
        for (uint32_t i = 0; i < nr; i++)
            n += round_send_value(r, k, &rv[i], &v) && moves(r, &rv[i], v, mu);
    }
    return n;
}

/*
 * Round 0 ran no forward pass: its LC are C. They are the fixed point when nothing would
 * move: no receive earlier than its sends (+ mu), remote ones by the values just exchanged
 * (would_move), local ones on C, and no location whose C decreases (mono: the forward pass
 * would move the event after the dip). That is the usual trace, which then needs no pass.
 */
static uint64_t moves_on_c(st_clc_replay_t *r)
{
    uint64_t n = would_move(r) + st_clc_p2pchk_violated(r->chk); /* (every partner's sends are in) */
    for (uint32_t l = 0; l < r->in->nlocs; l++)
        n += r->in->locs[l].orig || r->in->locs[l].mono < r->in->locs[l].n;
    st_clc_vcount_t *v = &r->local_on_c;
    memset(v, 0, sizeof *v);
    st_clc_violations_refs(&r->g, r->local_k.v, r->local_k.n, r->ref_c, &r->p, v);
    r->have_local_on_c = 1; /* the statistics' "violations" of the LOCAL relations (finish_statistics) */
    for (int k = 0; k < ST_REL__KINDS; k++)
        n += v->violated[k];
    return n;
}

/* Contributes "would anything move" once the exchange is complete; ready when all agree. */
static int round_ready(st_clc_replay_t *r)
{
    if (!r->round_sent || !round_inputs_in(r))
        return 0;
    if (!r->conv.own) {
        r->changed = r->round == 0 ? moves_on_c(r) : would_move(r);
        if (r->round == 0 && r->changed && r->rounds_max > 1 && alloc_hot(r) == 0)
            would_move(r); /* now marks the receives round 1's incremental pass starts at */
        r->conv_val = r->conv_val > r->changed ? r->conv_val : r->changed;
        r->conv.own = 1;
        conv_try(r);
    }
    return r->conv.done;
}

static void enter_backward(st_clc_replay_t *r);

/*
 * The remote relations on C, from round 0's exchange (the sends' C), into r->on_c. When the
 * rounds converge, no relation with a remote send remains violated, so these counts are
 * the statistics and the statistics exchange is skipped: every such receive has
 * LC_fwd >= LC_fwd(send) + mu (nothing would move), the backward pass moves the send at
 * most to its limit LC_fwd(receive) - mu and the receive only forward. (The replay's
 * receives may be forced through a cycle; it keeps the exchange.)
 */
static void count_on_c(st_clc_replay_t *r)
{
    st_clc_stats_t *s = &r->on_c;
    for (uint32_t i = 0; i < r->npeers; i++) {
        const peer_t *pe = &r->peers[i];
        for (size_t j = 0; j < pe->recv_inst.n; j++) {
            const st_rel_inst_t *in = &r->g.inst[pe->recv_inst.v[j]];
            const st_rel_ref_t *x = &r->g.refs[in->first];
            st_clc_stats_count_c(s, in->kind, st_clc_mu(&r->p, in->mumask), pe->rin[j], ref_orig(r, x));
            st_clc_vcount_add(&s->remaining, in->kind, 0, 0, 0); /* a relation, not violated */
        }
    }
    for (size_t j = 0; j < r->coll_k.n; j++) {
        uint64_t k = r->coll_k.v[j], sc = 0, mu = st_clc_mu(&r->p, r->g.inst[k].mumask);
        const st_rel_inst_t *in = &r->g.inst[k];
        uint32_t n;
        const st_rel_ref_t *rv = refs_of(r, k, 1, &n);
        for (uint32_t i = 0; i < n; i++) {
            if (round_send_value(r, k, &rv[i], &sc)) {
                st_clc_stats_count_c(s, in->kind, mu, sc, ref_orig(r, &rv[i]));
                st_clc_vcount_add(&s->remaining, in->kind, 0, 0, 0);
            }
        }
    }
}

/* Converged: this round's LC are final. Otherwise another round, or the replay. */
static void round_next(st_clc_replay_t *r)
{
    if (r->conv_val && r->round == 0 && r->restart_if_moving) { /* on C something moves: see st_clc_replay_restart */
        r->restart = 1;
        r->state = S_DONE;
        return;
    }
    if (r->conv_val == 0) {
        if (r->round == 0)
            count_on_c(r);
        r->rounds_used = r->round + 1;
        r->converged = 1;
        for (uint32_t i = 0; i < r->nch; i++)
            r->ch[i].ph[PH_S].open = 0;
        for (uint32_t l = 0; l < r->in->nlocs; l++) { /* incremental passes record no jumps */
            const st_rel_port_t *ports = r->g.ports + r->g.port_first[l];
            uint64_t np = r->g.port_first[l + 1] - r->g.port_first[l];
            int rc = st_clc_jumps_loc(&r->p, &r->in->locs[l], l, ports, np, &r->fwd[l], &fwd_ops, r);
            if (rc != ST_CLC_DONE)
                return fail(r, rc == ST_CLC_NOMEM ? "out of memory" : "bulk rounds: a receive bound is missing");
        }
        for (uint32_t i = 0; i < r->nch; i++)
            r->ch[i].ph[PH_F].open = 0; /* the replay's trees are not needed */
        enter_backward(r);
    } else if (r->round + 1 < r->rounds_max) {
        if (r->round == 0)
            count_on_c(r);
        r->round++;
        round_begin(r);
    } else {
        r->rounds_used = -(r->round + 1);
        enter_forward(r);
    }
}

static void progress_round(st_clc_replay_t *r)
{
    drain(r, NONE32);
    if (r->state != S_ROUND)
        return;
    if (!r->round_sent && r->unfinished == 0) {
        round_end(r);
        flush(r, 1); /* the exchange first, then would_move */
    }
    else if (!r->round_sent && r->qlen == 0)
        break_local_cycle(r);
    if (r->state == S_ROUND && round_ready(r))
        round_next(r);
}

/* Starts the forward pass after the setup: rounds if allowed, else the replay. */
static void start_forward(st_clc_replay_t *r)
{
    prepare_instances(r);
    if (r->state == S_FAILED)
        return;
    for (uint32_t i = 0; i < r->npeers; i++) {
        peer_t *pe = &r->peers[i];
        pe->rin_round = -1;
        pe->rin = st_mem_malloc((pe->recv_inst.n + 1) * sizeof *pe->rin);
        if (!pe->rin)
            return fail(r, "out of memory");
    }
    if (r->rounds_max <= 0) {
        for (uint32_t i = 0; i < r->nch; i++)
            r->ch[i].ph[PH_R].open = 0; /* no rounds */
        enter_forward(r);
        return;
    }
    int scans = 0; /* pin is per instance but only scans use it: most traces have none */
    for (uint64_t k = 0; k < r->g.ninst && !scans; k++)
        scans = r->cat[k] == CAT_COLL && r->g.inst[k].shape == ST_REL_PREFIX;
    r->pin = scans ? st_mem_calloc(r->g.ninst + 1, sizeof *r->pin) : NULL;
    if (scans && !r->pin)
        return fail(r, "out of memory");
    for (uint64_t k = 0; k < r->g.ninst; k++)
        if (r->cat[k] == CAT_COLL && u64_push(&r->coll_k, k))
            return fail(r, "out of memory");
    world_tree(r);
    r->round = 0;
    round_begin(r);
}

/* ---- cycles across ranks ------------------------------------------------------------------------------------------ */
/*
 * A trace with a dependency cycle (impossible in a real run: clocks merged out of order, a
 * wrong message match) stalls the replay. The sequential reference (run.c) then forces the
 * lowest-numbered waiting location's receive with the sends computed so far, once every
 * location waits. Here the same: waves over the world tree (rooted at rank 0) find out
 * that every rank is idle and nothing is in flight, and then which location to force.
 * Each rank reports when it has nothing to do (its counters of records sent and received
 * other than waves, whether those or its forward steps changed since its last report, its
 * lowest waiting location); the root starts the next wave when one is complete. Two
 * waves in a row without any change and with as many records received as sent: every
 * rank was idle with nothing in flight in between, so nothing will ever change. The next
 * wave then forces the lowest waiting location (rank-major numbering: the sequential run's
 * when the trace's locations are numbered rank by rank); when it waits for a collective, a
 * wave first gathers that collective's computed sends from all ranks (a scan: also the
 * lowest comm rank whose send is not computed: run.c takes the sends below it). The waves
 * end when every rank is past the forward pass; no rank finishes before the end reached
 * it, so no wave record arrives at a rank that is done. In a trace without cycles the
 * waves only watch: one report per rank whenever all have run out of work.
 */

static void rep_empty(wave_rep_t *a)
{
    *a = (wave_rep_t){ .past = 1, .loc = NONE64, .kind = NONE64, .unc = NONE64, .q = quad_empty };
}

static uint8_t *put_rep(uint8_t *p, const wave_rep_t *a, const entvec_t *e)
{
    const uint64_t v[] = { a->sent, a->recv, a->changed, a->past, a->loc, a->kind, a->key, a->seq, a->unc,
                           a->q.v1, a->q.l1, a->q.v2, a->q.l2, e->n };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        p = st_xchg_put_u64(p, v[i]);
    for (size_t i = 0; i < e->n; i++)
        p = st_xchg_put_u64(st_xchg_put_u64(p, e->v[i].order), e->v[i].v[0]);
    return p;
}

static size_t rep_size(const entvec_t *e) { return (14 + 2 * e->n) * 8; }

/* Merges the report of a subtree (a) into acc (entries into e). */
static int rep_merge(st_clc_replay_t *r, wave_rep_t *acc, entvec_t *e, const wave_rep_t *a, const entvec_t *ae)
{
    acc->sent += a->sent, acc->recv += a->recv;
    acc->changed |= a->changed, acc->past &= a->past;
    if (a->loc < acc->loc)
        acc->loc = a->loc, acc->kind = a->kind, acc->key = a->key, acc->seq = a->seq;
    if (a->unc < acc->unc)
        acc->unc = a->unc;
    quad_merge(&acc->q, &a->q);
    for (size_t i = 0; ae && i < ae->n; i++)
        if (ent_push(e, ae->v[i]))
            return fail(r, "out of memory"), -1;
    return 0;
}

static int get_rep(st_clc_replay_t *r, reader_t *rd, wave_rep_t *a, entvec_t *e)
{
    uint64_t v[14];
    for (size_t i = 0; i < 14; i++)
        if (st_xchg_get_u64(rd, &v[i]))
            return -1;
    *a = (wave_rep_t){ v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], { v[9], v[10], v[11], v[12] } };
    if (v[13] > (uint64_t)(rd->end - rd->p) / 16)
        return -1;
    e->n = 0;
    for (uint64_t i = 0; i < v[13]; i++) {
        ent_t x = { 0 };
        if (st_xchg_get_u64(rd, &x.order) || st_xchg_get_u64(rd, &x.v[0]))
            return -1;
        if (ent_push(e, x))
            return fail(r, "out of memory"), -1;
    }
    return 0;
}

/* Puts into a the collective of instance k (what a receive waits for), when it is one. */
static void wave_names(const st_clc_replay_t *r, uint64_t k, wave_rep_t *a)
{
    if (r->cat[k] != CAT_COLL)
        return;
    const chan_t *c = &r->ch[r->ia[k]];
    a->kind = c->kind, a->key = c->key, a->seq = r->ib[k];
}

/* This rank's own report of the current wave. */
static int wave_own(st_clc_replay_t *r, wave_rep_t *a, entvec_t *e)
{
    wave_t *W = &r->wv;
    rep_empty(a);
    e->n = 0;
    a->sent = W->sent, a->recv = W->recv;
    a->changed = W->sent != W->last[0] || W->recv != W->last[1] || W->prog != W->last[2];
    W->last[0] = W->sent, W->last[1] = W->recv, W->last[2] = W->prog;
    a->past = r->state != S_FWD;
    for (uint32_t l = 0; r->state == S_FWD && l < r->in->nlocs; l++)
        if (r->fwd[l].pos < r->in->locs[l].n) {
            a->loc = (uint64_t)(uint32_t)r->me << 32 | l;
            wave_names(r, r->g.ports[r->g.port_first[l] + r->fwd[l].blocked].inst, a);
            break;
        }
    if (W->act != W_GATHER)
        return 0;
    chan_t *c = find_chan(r, (uint8_t)W->target.kind, W->target.key);
    uint64_t s = W->target.seq;
    if (!c || s >= c->N)
        return 0;
    a->q = qof(c, PH_F, s)[0];
    uint64_t k = c->inst0[s];
    if (c->lshape[s] == SH_PREFIX && c->pend[s] && k != NONE64)
        a->unc = ref_order(r, k, 0);
    const entvec_t *ce = ents_ro(c, PH_F, s);
    for (size_t i = 0; ce && i < ce->n; i++)
        if (ent_push(e, ce->v[i]))
            return fail(r, "out of memory"), -1;
    return 0;
}

/* Forces location l's receive (the lowest waiting one of all ranks). */
static void wave_force(st_clc_replay_t *r, uint32_t l)
{
    wave_t *W = &r->wv;
    if (r->state != S_FWD || l >= r->in->nlocs || r->fwd[l].pos >= r->in->locs[l].n)
        return fail(r, "cycle across ranks: location %u is not waiting", l);
    const st_rel_port_t *port = r->g.ports + r->g.port_first[l] + r->fwd[l].blocked;
    uint64_t k = port->inst;
    if (r->cat[k] == CAT_COLL) { /* the gathered sends (a scan: those below the first not computed) */
        uint64_t o = ref_order(r, k, port->slot);
        W->force_set = 1;
        W->force_v = 0;
        W->force_have = r->g.inst[k].shape == ST_REL_PREFIX
                            ? prefix_max(&W->tents, o < W->target.unc ? o : W->target.unc, 0, &W->force_v)
                            : quad_other(&W->target.q, gid(&r->in->locs[l]), &W->force_v);
    }
    count_forced(r, l);
    unlink_waiter(r, k, l);
    enqueue(r, l);
    drain(r, l);
    W->force_set = 0;
}

/* Wave w starts here: what the root decided (act, about target), passed on to the children. */
static void wave_start(st_clc_replay_t *r, uint64_t w, uint64_t act)
{
    wave_t *W = &r->wv;
    for (uint32_t i = 0; i < r->nwchild; i++) {
        uint8_t *p = rec_begin(r, r->wchild[i], R_WAVE_DOWN, 0, NULL, w, 0, 8 + rep_size(&W->tents));
        if (p)
            put_rep(st_xchg_put_u64(p, act), &W->target, &W->tents);
    }
    W->w = w, W->act = act, W->arrived = 0, W->up = 0, W->on = act != W_END;
    W->ended = act == W_END;
    rep_empty(&W->acc);
    W->ents.n = 0;
    if (act == W_FORCE && W->target.loc >> 32 == (uint64_t)(uint32_t)r->me)
        wave_force(r, (uint32_t)W->target.loc);
}

/* The root has the report of every rank: decides what the next wave does. */
static void wave_conclude(st_clc_replay_t *r)
{
    wave_t *W = &r->wv;
    const wave_rep_t *a = &W->acc;
    uint64_t act = W_NONE;
    if (a->past)
        act = W_END;
    else if (!a->changed && a->sent == a->recv && a->loc != NONE64) /* stalled: force, gathering first */
        act = W->act == W_GATHER || a->kind == NONE64 ? W_FORCE : W_GATHER;
    if (act != W_FORCE || W->act != W_GATHER) /* a forcing after gathering keeps the gathered target */
        W->target = *a, W->tents.n = 0;
    else
        W->target.q = a->q, W->target.unc = a->unc;
    for (size_t i = 0; act == W_FORCE && W->act == W_GATHER && i < W->ents.n; i++)
        if (ent_push(&W->tents, W->ents.v[i]))
            return fail(r, "out of memory");
    wave_start(r, W->w + 1, act);
}

/* Reports the current wave when this rank is idle (and its subtree has reported). */
static void wave_step(st_clc_replay_t *r, int idle)
{
    wave_t *W = &r->wv;
    if (!W->used || !W->on || W->up || !idle || W->arrived < r->nwchild)
        return;
    wave_rep_t own;
    entvec_t e = { 0 };
    if (wave_own(r, &own, &e) == 0 && rep_merge(r, &W->acc, &W->ents, &own, &e) == 0) {
        W->up = 1;
        if (r->wparent < 0) {
            wave_conclude(r);
        } else {
            uint8_t *p = rec_begin(r, r->wparent, R_WAVE_UP, 0, NULL, W->w, 0, rep_size(&W->ents));
            if (p)
                put_rep(p, &W->acc, &W->ents);
        }
    }
    st_mem_free(e.v);
}

static int on_wave(st_clc_replay_t *r, const rec_t *h, reader_t *rd)
{
    wave_t *W = &r->wv;
    wave_rep_t a;
    entvec_t e = { 0 };
    int rc = -1;
    if (!W->used || W->ended)
        return -1;
    if (h->type == R_WAVE_UP) {
        if (h->seq == W->w && W->on && !W->up && W->arrived < r->nwchild && get_rep(r, rd, &a, &e) == 0)
            rc = rep_merge(r, &W->acc, &W->ents, &a, &e), W->arrived++;
    } else {
        uint64_t act;
        if (h->seq == W->w + 1 && !st_xchg_get_u64(rd, &act) && act <= W_FORCE && get_rep(r, rd, &W->target, &W->tents) == 0)
            wave_start(r, h->seq, act), rc = 0;
    }
    st_mem_free(e.v);
    return rc;
}

/* ---- incoming records ------------------------------------------------------------------------------------------ */

static int defer(st_clc_replay_t *r, int32_t from, const uint8_t *buf, size_t len)
{
    if (st_mem_grow((void **)&r->def, &r->capdef, r->ndef + 1, sizeof *r->def))
        return fail(r, "out of memory"), -1;
    uint8_t *copy = st_mem_malloc(len);
    if (!copy)
        return fail(r, "out of memory"), -1;
    memcpy(copy, buf, len);
    r->def[r->ndef++] = (deferred_t){ from, copy, len };
    return 0;
}

static int on_array(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd)
{
    peer_t *pe = find_peer(r, from);
    int bwd = h->type == R_BWD;
    size_t n = pe ? (bwd ? pe->send_inst.n : 2 * pe->recv_inst.n) : 0;
    if (!pe || h->len != n * 8 || (bwd ? pe->have_bwd : pe->have_stat))
        return -1;
    if (!bwd && !(pe->stat = st_mem_malloc(h->len + 8))) /* only when the rounds did not converge */
        return fail(r, "out of memory"), -1;
    memcpy(bwd ? pe->bwd : pe->stat, rd->p, h->len);
    *(bwd ? &pe->have_bwd : &pe->have_stat) = 1;
    rd->p += h->len;
    return 0;
}

static int on_fwd(st_clc_replay_t *r, int32_t from, const rec_t *h, reader_t *rd)
{
    peer_t *pe = find_peer(r, from);
    if (!pe || h->len % 16)
        return -1;
    for (uint64_t i = 0; i < h->len / 16; i++) {
        uint64_t idx = 0, v = 0;
        st_xchg_get_u64(rd, &idx);
        st_xchg_get_u64(rd, &v);
        if (idx >= pe->recv_inst.n)
            return -1;
        uint64_t k = pe->recv_inst.v[idx];
        if (!r->pending[k])
            return -1;
        pe->cur[idx] = v;
        r->pending[k] = 0;
        wake(r, k);
    }
    return 0;
}

/* Handles one record at buf; *used = its size. Returns 0 or -1 (malformed). */
static int process_record(st_clc_replay_t *r, int32_t from, const uint8_t *buf, size_t len, size_t *used)
{
    rec_t h;
    if (len < sizeof h)
        return -1;
    memcpy(&h, buf, sizeof h);
    if (h.len > len - sizeof h)
        return -1;
    *used = sizeof h + h.len;
    reader_t rd = { buf + sizeof h, buf + *used };
    if (h.type < R_COUNTS || h.type > R_P2PCHK)
        return -1; /* before deferring: a record no rank sends would wait forever */
    if (r->state == S_SETUP && h.type != R_COUNTS && h.type != R_SETUP_UP && h.type != R_SETUP_DOWN &&
        h.type != R_P2PCHK)
        return defer(r, from, buf, *used);
    if (early(r, &h))
        return defer(r, from, buf, *used);
    r->busy = 1;
    chan_t *c = NULL;
    if (h.type == R_SETUP_UP || h.type == R_SETUP_DOWN || h.type == R_UP || h.type == R_DOWN || h.type == R_PFX) {
        c = find_chan(r, h.chkind, h.chan);
        if (!c) {
            st_log_warn_once("CLC (parallel, rank %d): message about a communicator this rank does not know", r->me);
            return -1;
        }
    }
    switch (h.type) {
    case R_COUNTS: return on_counts(r, from, &h, &rd);
    case R_P2PCHK: return on_p2pchk(r, from, &h, &rd);
    case R_SETUP_UP:
    case R_SETUP_DOWN: return on_setup(r, c, &h, &rd);
    case R_UP:
    case R_DOWN: return on_op(r, c, &h, &rd);
    case R_FWD: return on_fwd(r, from, &h, &rd);
    case R_BWD:
    case R_STAT: return on_array(r, from, &h, &rd);
    case R_RVAL: return on_rval(r, from, &h, &rd);
    case R_CONV_UP:
    case R_CONV_DOWN: return on_conv(r, &h, &rd);
    case R_PFX: return on_pfx(r, c, &h, &rd);
    case R_WAVE_UP:
    case R_WAVE_DOWN: return on_wave(r, &h, &rd);
    default: return -1;
    }
}

int st_clc_replay_deliver(st_clc_replay_t *r, int32_t from, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len && r->state != S_FAILED) {
        size_t used = 0;
        r->wv.recv += len < sizeof(rec_t) || (p[0] != R_WAVE_UP && p[0] != R_WAVE_DOWN);
        if (process_record(r, from, p, len, &used)) {
            fail(r, "malformed or unexpected message from rank %d", from);
            break;
        }
        p += used;
        len -= used;
    }
    /* What the records produced (a tree's result passed down, a contribution passed up, the
     * rounds' agreement) is awaited elsewhere: sent now, not after this rank's next local work. */
    if (r->state != S_FAILED)
        flush(r, 1);
    return r->state == S_FAILED ? -1 : 0;
}

/* ---- driver ------------------------------------------------------------------------------------------------------ */

/* Every forward result is in (so every scan is known) and every chain record (R_PFX) that
 * will come has come: none may arrive after the forward pass. */
static int forward_settled(const st_clc_replay_t *r)
{
    for (uint32_t i = 0; i < r->nch; i++)
        if (r->ch[i].ph[PH_F].open)
            return 0;
    return r->chain_wait == 0;
}

int st_clc_replay_progress(st_clc_replay_t *r)
{
    r->busy = 0;
    if (r->state == S_SETUP && r->counts_got >= r->incoming && r->setup_open == 0 &&
        (!r->chk || r->chk_got >= r->incoming))
        start_forward(r); /* (what the setup sent is out: start and every delivery flush) */
    if (r->state == S_ROUND)
        progress_round(r);
    if (r->state == S_FWD) {
        drain(r, NONE32);
        if (r->state == S_FWD && r->unfinished == 0 && forward_settled(r))
            enter_backward(r); /* (a cycle: the waves force, at the location run.c would) */
    }
    if (r->state == S_BWD && backward_ready(r)) {
        flush(r, 1); /* what others wait for (e.g. the rounds' result) goes before the local work */
        run_backward(r);
        if (r->state == S_BWD)
            enter_statistics(r);
    }
    if (r->state == S_STAT && statistics_ready(r) && (!r->wv.used || r->wv.ended))
        finish_statistics(r);
    if (r->state != S_FAILED)
        flush(r, 1);
    if (r->state != S_FAILED && r->state != S_DONE) { /* the replay's waves: when there is nothing else to do */
        wave_step(r, !r->busy);
        flush(r, 1);
    }
    if (r->state == S_FAILED)
        return ST_CLC_REPLAY_FAILED;
    if (r->state == S_DONE)
        return ST_CLC_REPLAY_DONE;
    return r->busy ? ST_CLC_REPLAY_BUSY : ST_CLC_REPLAY_IDLE;
}

void st_clc_replay_partners(const st_clc_replay_t *r, uint8_t *flags)
{
    for (uint32_t i = 0; i < r->npeers; i++)
        flags[r->peers[i].rank] = 1;
}

int st_clc_replay_start(st_clc_replay_t *r, uint32_t incoming)
{
    r->incoming = incoming;
    send_counts(r);
    for (uint32_t i = 0; i < r->nch && r->state != S_FAILED; i++) {
        r->ch[i].setup.own = 1;
        setup_try(r, &r->ch[i]);
    }
    if (r->state != S_FAILED)
        flush(r, 1);
    return r->state == S_FAILED ? -1 : 0;
}

void st_clc_replay_waiting(const st_clc_replay_t *r, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "state %s", state_names[r->state]);
    if (r->state == S_SETUP)
        snprintf(buf + k, n > k ? n - k : 0, ": %u of %u partner counts, %u communicators unsettled%s", r->counts_got,
                 r->incoming, r->setup_open, r->chk && r->chk_got < r->incoming ? ", point-to-point checks awaited" : "");
    else if (r->state == S_FWD)
        snprintf(buf + k, n > k ? n - k : 0, ": %u locations unfinished, %llu scan prefixes awaited, wave %llu%s",
                 r->unfinished, (unsigned long long)r->chain_wait, (unsigned long long)r->wv.w,
                 r->wv.up ? " reported" : "");
    else if (r->state == S_ROUND)
        snprintf(buf + k, n > k ? n - k : 0, " %d: %u locations unfinished, sent %d, agreed %d", r->round,
                 r->unfinished, r->round_sent, r->conv.done);
}

void st_clc_replay_stats(const st_clc_replay_t *r, st_clc_stats_t *s) { *s = r->stats; }

void st_clc_replay_set_rounds(st_clc_replay_t *r, int rounds) { r->rounds_max = rounds < 0 ? 0 : rounds > 200 ? 200 : rounds; }

int st_clc_replay_rounds(const st_clc_replay_t *r) { return r->rounds_used; }

void st_clc_replay_on_moved(st_clc_replay_t *r, st_clc_moved_fn moved, void *ctx)
{
    r->moved = moved;
    r->moved_ctx = ctx;
}

/* ---- creation ---------------------------------------------------------------------------------------------------- */

static int alloc_state(st_clc_replay_t *r)
{
    /* Instances, refs and ports are indexed with 32 bits in the state below (every instance
     * has a ref, so ninst <= nrefs): 4e9 refs would take hundreds of GB anyway. */
    if (r->g.nrefs >= UINT32_MAX) {
        st_log_error("CLC (parallel, rank %d): %llu message ends, more than the correction indexes", r->me,
                     (unsigned long long)r->g.nrefs);
        return -1;
    }
    size_t ni = r->g.ninst ? r->g.ninst : 1, nl = r->in->nlocs ? r->in->nlocs : 1;
    r->cat = st_mem_malloc(ni);
    r->ia = st_mem_calloc(ni, sizeof *r->ia), r->ib = st_mem_calloc(ni, sizeof *r->ib);
    r->tqi = st_mem_malloc(ni * sizeof *r->tqi);
    r->pending = st_mem_malloc(ni * sizeof *r->pending), r->wait_head = st_mem_malloc(ni * sizeof *r->wait_head);
    r->fwd = st_mem_calloc(nl, sizeof *r->fwd);
    r->wait_next = st_mem_malloc(nl * sizeof *r->wait_next), r->queue = st_mem_malloc(nl * sizeof *r->queue);
    r->queued = st_mem_calloc(nl, 1);
    size_t nr = r->g.nrefs ? r->g.nrefs : 1;
    r->ref_c = r->g.ref_time; /* the join's (ST_REL_JOIN_TIMES): C, nothing has moved yet */
    r->g.ref_time = NULL;
    r->port_ref = st_mem_malloc(nr * sizeof *r->port_ref); /* ports and refs are one-to-one */
    if (!r->cat || !r->ia || !r->ib || !r->tqi || !r->pending || !r->wait_head || !r->fwd ||
        !r->wait_next || !r->queue || !r->queued || !r->ref_c || !r->port_ref)
        return -1;
    for (uint64_t j = 0; j < r->g.nrefs; j++)
        r->port_ref[j] = (uint32_t)(r->g.inst[r->g.ports[j].inst].first + r->g.ports[j].slot);
    for (uint32_t l = 0; l < r->in->nlocs; l++) {
        r->wait_next[l] = NONE32;
        r->unfinished += r->in->locs[l].n > 0;
    }
    return 0;
}

/* The engine's state over its graph, once the graph is made: 0, or -1 (memory). */
static int graph_ready(st_clc_replay_t *r)
{
    int rc = alloc_state(r);
    if (rc == 0)
        rc = classify(r);
    if (rc)
        return -1;
    /* Self messages are joined locally; a side missing there is unmatched (as st_rel_graph_build counts). */
    for (uint64_t k = 0; k < r->g.ninst; k++)
        if (r->cat[k] == CAT_LOCAL && key_type(r->g.inst[k].key) == ST_REL_KEY_P2P) {
            r->ds.unmatched_send += !r->g.inst[k].nrecv;
            r->ds.unmatched_recv += !r->g.inst[k].nsend;
        }
    r->setup_open = r->nch;
    return 0;
}

/* Whether every location's C is monotone (the checks on C stand for CLC only then). */
static int all_mono(const st_clc_replay_t *r)
{
    for (uint32_t l = 0; l < r->in->nlocs; l++)
        if (r->in->locs[l].mono < r->in->locs[l].n)
            return 0;
    return 1;
}

/* ST_CLC_REPLAY_CHECK_FIRST: the OpenMP relations in omp (none of them violated on C, and no
 * location's C decreasing) stay out of the graph: 1, with their counts in r->omp_on_c and omp kept
 * in r->omp; 0 when they must go in (omp rewound); -1 out of memory. */
static int leave_out_omp(st_clc_replay_t *r, st_rel_epsrc_t *omp)
{
    if (!all_mono(r))
        return 0;
    st_clc_stats_t *s = &r->omp_on_c;
    if (st_clc_violations_src(omp, r->in->nlocs, &r->p, s))
        return -1;
    st_rel_epsrc_rewind(omp);
    for (int k = 0; k < ST_REL__KINDS; k++)
        if (s->violations.violated[k]) {
            *s = (st_clc_stats_t){ 0 };
            return 0;
        }
    s->remaining = s->violations;
    r->omp = *omp;
    *omp = (st_rel_epsrc_t){ 0 };
    return 1;
}

/* ST_CLC_REPLAY_CHECK_FIRST: the point-to-point ends in p2p stay out of the graph, checked with
 * the partners at the setup (r->chk, p2p kept in r->p2p): 1; 0 when they must go in (C not
 * monotone): then they are put before ep's endpoints (their key type is the first), ep's
 * block growing by them; -1 out of memory. */
static int leave_out_p2p(st_clc_replay_t *r, st_rel_epsrc_t *p2p, st_rel_epvec_t *ep)
{
    if (all_mono(r)) {
        if (st_clc_p2pchk_new(p2p, r->me, r->nranks, &r->p, &r->chk))
            return -1;
        r->p2p = *p2p;
        *p2p = (st_rel_epsrc_t){ 0 };
        return 1;
    }
    if (!p2p->read)
        return 0;
    st_rel_endpoint_t *v = st_mem_malloc(sizeof *v * (p2p->n + ep->cap + 1));
    if (!v)
        return -1;
    size_t got = 0, k;
    while (got < p2p->n && (k = st_rel_epsrc_read(p2p, v + got, p2p->n - got)) > 0)
        got += k;
    if (ep->n)
        memcpy(v + got, ep->v, sizeof *v * ep->n);
    st_mem_free(ep->v);
    ep->v = v, ep->n += got, ep->cap += got;
    return 0;
}

int st_clc_replay_new(const st_clc_params_t *p, st_rel_input_t *in, int32_t me, st_rel_self_ends_t *self_ends,
                      const st_clc_replay_net_t *net, unsigned flags, st_clc_replay_t **out)
{
    *out = NULL;
    st_clc_replay_t *r = st_mem_calloc(1, sizeof *r);
    if (!r)
        return -1;
    r->p = *p;
    r->in = in;
    r->me = me;
    r->nranks = in->nranks;
    if (st_xchg_out_init(&r->out, net, in->nranks)) {
        st_mem_free(r);
        return -1;
    }
    r->state = S_SETUP;
    for (uint32_t l = 0; l < in->nlocs; l++)
        if (in->locs[l].rank != me) {
            st_log_error("CLC (parallel, rank %d): location %u belongs to rank %d", me, l, in->locs[l].rank);
            st_mem_free(r);
            return -1;
        }
    st_rel_epvec_t ep = { 0 };
    st_rel_epsrc_t omp = { 0 }; /* the OpenMP endpoints, handed to the join without a block of their own */
    st_rel_epsrc_t p2p = { 0 }; /* the point-to-point ones, checked before they would go into the graph */
    int first = (flags & ST_CLC_REPLAY_CHECK_FIRST) != 0;
    int rc = me >= 0 && me < in->nranks && in->procs ? 0 : -1;
    if (rc == 0)
        rc = build_channels(r);
    if (rc == 0)
        reset_times(r);
    if (rc == 0) {
        st_rel_derive_opts_t opts = { .coll_end = channel_count, .coll_end_ctx = r, .omit_self_ends = 1,
                                      .self_ends = self_ends };
        rc = st_rel_endpoints_split(in, me, &opts, &ep, &r->ds, &omp, first ? &p2p : NULL);
    }
    r->ds_scan = r->ds;
    int left_out = rc == 0 && first && omp.read ? leave_out_omp(r, &omp) : 0;
    rc = left_out < 0 ? -1 : rc;
    left_out = rc == 0 && first ? leave_out_p2p(r, &p2p, &ep) : 0; /* (none: an empty check, which partners may send to) */
    rc = left_out < 0 ? -1 : rc;
    st_rel_epsrc_free(&p2p);
    if (rc == 0)
        rc = st_rel_graph_join_src(ep.v, ep.n, &omp, in->nlocs,
                                   ST_REL_JOIN_PARTIAL | ST_REL_JOIN_TAKE | ST_REL_JOIN_TIMES, &r->g);
    else
        st_rel_epvec_free(&ep);
    st_rel_epsrc_free(&omp);
    if (rc == 0)
        rc = graph_ready(r);
    if (rc) {
        st_log_error("CLC (parallel, rank %d): out of memory deriving the dependencies", me);
        st_clc_replay_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

int st_clc_replay_again(st_clc_replay_t *old, const st_clc_replay_net_t *net, st_clc_replay_t **out)
{
    *out = NULL;
    st_clc_replay_t *r = st_mem_calloc(1, sizeof *r);
    if (!r)
        return -1;
    *r = (st_clc_replay_t){ .p = old->p, .in = old->in, .me = old->me, .nranks = old->nranks, .state = S_SETUP,
                            .ds = old->ds_scan, .ds_scan = old->ds_scan };
    int rc = st_xchg_out_init(&r->out, net, r->nranks) ? -1 : build_channels(r);
    for (uint32_t i = 0; rc == 0 && i < r->nch; i++) /* counted by the derivation's sweep (channel_count) */
        r->ch[i].local_n = old->ch[i].local_n;
    /* the graph anew from old's, read back as endpoints, and the OpenMP ends it left out; nothing
     * has moved, so the refs' times are still C (old->ref_c) */
    st_rel_derived_t d = { .g = old->g, .omp = old->omp, .p2p = old->p2p };
    d.g.ref_time = old->ref_c;
    st_rel_derived_pos_t pos = { 0 };
    st_rel_epsrc_t src = { 0 };
    if (rc == 0)
        rc = st_rel_derived_src(&d, &pos, 0, &src);
    if (rc == 0)
        rc = st_rel_graph_join_src(NULL, 0, &src, r->in->nlocs, ST_REL_JOIN_PARTIAL | ST_REL_JOIN_TIMES, &r->g);
    st_rel_epsrc_free(&src);
    if (rc == 0)
        rc = graph_ready(r);
    st_clc_replay_free(old);
    if (rc) {
        st_log_error("CLC (parallel, rank %d): out of memory deriving the dependencies", r->me);
        st_clc_replay_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

int st_clc_replay_omp_left_out(const st_clc_replay_t *r) { return r->omp.read != NULL; }

int st_clc_replay_p2p_left_out(const st_clc_replay_t *r) { return r->chk != NULL; }

void st_clc_replay_restart_if_moving(st_clc_replay_t *r) { r->restart_if_moving = 1; }

int st_clc_replay_restart(const st_clc_replay_t *r) { return r->restart; }

void st_clc_replay_keep(st_clc_replay_t *r, st_rel_derived_t *d)
{
    st_rel_graph_free(&d->g);
    st_rel_epsrc_free(&d->omp), st_rel_epsrc_free(&d->p2p);
    d->omp = r->omp, d->p2p = r->p2p;
    r->omp = r->p2p = (st_rel_epsrc_t){ 0 };
    st_rel_graph_t *g = &r->g;
    d->g = (st_rel_graph_t){ .ninst = g->ninst, .inst = g->inst, .nrefs = g->nrefs, .refs = g->refs,
                             .nlocs = g->nlocs, .ds = g->ds };
    st_mem_free(g->port_first), st_mem_free(g->ports);
    g->inst = NULL, g->refs = NULL, g->port_first = NULL, g->ports = NULL; /* ninst stays: st_clc_replay_free reads it */
}

void st_clc_replay_free(st_clc_replay_t *r)
{
    if (!r)
        return;
    for (uint64_t k = 0; r->pin && k < r->g.ninst; k++)
        st_mem_free(r->pin[k].v);
    st_rel_graph_free(&r->g);
    st_rel_epsrc_free(&r->omp), st_rel_epsrc_free(&r->p2p);
    st_clc_p2pchk_free(r->chk);
    st_mem_free(r->cat), st_mem_free(r->ia), st_mem_free(r->ib), st_mem_free(r->tqi), st_mem_free(r->tq), st_mem_free(r->pending), st_mem_free(r->wait_head);
    st_mem_free(r->ref_c), st_mem_free(r->ref_lc), st_mem_free(r->port_ref);
    for (uint32_t l = 0; r->fwd && l < r->in->nlocs; l++)
        st_mem_free(r->fwd[l].jumps);
    st_mem_free(r->fwd), st_mem_free(r->wait_next), st_mem_free(r->queue), st_mem_free(r->queued);
    for (uint32_t i = 0; i < r->nch; i++)
        chan_free(&r->ch[i]);
    st_mem_free(r->ch);
    for (uint32_t i = 0; i < r->npeers; i++) {
        peer_t *pe = &r->peers[i];
        st_mem_free(pe->theirs), st_mem_free(pe->send_inst.v), st_mem_free(pe->recv_inst.v), st_mem_free(pe->bwd), st_mem_free(pe->stat), st_mem_free(pe->rin), st_mem_free(pe->cur);
    }
    st_mem_free(r->peers);
    st_mem_free(r->wv.ents.v), st_mem_free(r->wv.tents.v), st_mem_free(r->forced.v);
    st_mem_free(r->pin), st_mem_free(r->hot), st_mem_free(r->ref_port), st_mem_free(r->local_k.v), st_mem_free(r->coll_k.v);
    st_xchg_out_free(&r->out);
    for (size_t i = 0; i < r->ndef; i++)
        st_mem_free(r->def[i].buf);
    st_mem_free(r->def);
    st_mem_free(r);
}
