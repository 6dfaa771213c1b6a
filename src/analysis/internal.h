/*
 * internal.h — state shared by the parts of the serial analysis driver (analysis.c:
 * call tree, time and visits; p2p.c: point-to-point patterns and counts; coll.c:
 * collective patterns). Not for use outside src/analysis.
 */
#ifndef ST_AN_INTERNAL_H
#define ST_AN_INTERNAL_H

#include <stddef.h>

#include "analysis.h"
#include "patterns.h"

#define AN_NO_EV UINT64_MAX

/* Per location: which call (ENTER index) each event lies in, where calls end, their cnode, and
 * the events' times again, dense: the patterns read times at random far more than anything
 * else of an event, and 8 of them share a cache line instead of 1. One word per event says
 * where it lies (16 bytes per event with the time, written by the one sweep over the events
 * and read at random by the patterns: every byte costs):
 *   an ENTER   AN_W_ENTER | cnode << 32 | (LEAVE index - ENTER index), 0 if never left
 *              (a call over 2^32 or more events is refused: an_scan_loc fails);
 *   any other  1 + the ENTER index of the innermost call open at it (a LEAVE: its ENTER's),
 *              0 outside every region.
 * Read them with an_call, an_leave, an_cnode, an_is_enter. */
#define AN_W_ENTER (1ull << 63)
typedef struct an_loc {
    uint64_t *w; /* [n] */
    uint64_t *t; /* [n] the events' times */
} an_loc_t;

/* Time (inclusive, less the direct callees') and visits by cnode k: v[2k], v[2k + 1]; cap cnodes.
 * Integer sums: the values they become are the same whatever the order of the calls. */
typedef struct an_tacc {
    int64_t *v;
    uint32_t cap;
} an_tacc_t;

/* Call paths (callpath.c; SYNCTRACE_CALLPATH): each rank's frames as function regions. */
typedef struct an_paths {
    int32_t              nranks;    /* 0: the trace has no call paths */
    const st_rel_proc_t *procs;
    uint32_t           **func;      /* [rank][node] function region (ST_AN_FUNC_REGION) */
    uint32_t           **depth;     /* [rank][node] 1 for an outermost frame */
    uint64_t           **memo;      /* [rank][node] parent cnode << 32 | cnode of the last descent, UINT64_MAX none */
    uint32_t             maxdepth;
    uint32_t            *chain;     /* scratch of maxdepth + 1 nodes */
} an_paths_t;

/* Function regions of every frame, their names into res->funcs. 0, or -1 (memory). */
int an_paths_build(an_paths_t *ap, const st_rel_input_t *in, st_an_result_t *res);
void an_paths_free(an_paths_t *ap);
/* The frames of node's path below the deepest frame it shares with outer's path (ST_CP_NONE: none),
 * innermost first, into chain (maxdepth + 1 entries); returns their number. */
uint32_t an_paths_below(const an_paths_t *ap, int32_t rank, uint32_t node, uint32_t outer, uint32_t *chain);

/* One member of a collective instance as its process evaluates it (coll.c, icoll.c): a
 * blocking call (call: its ENTER), or a nonblocking member's completion (ev: its
 * ICOLL_COMPLETE event, order the member's) with its times and key. */
typedef struct an_cmember {
    uint32_t       loc;
    uint64_t       call, ev;
    st_an_member_t m;
} an_cmember_t;

/* One collective instance (or MPI_Init / MPI_Finalize) with the reduction of all its members
 * (patterns.h) and the members this process evaluates (serial: all; parallel: its own). */
typedef struct an_cinst {
    uint64_t        key[4];
    uint8_t         type;        /* ST_REL_KEY_COLL, ST_REL_KEY_SYNC or ST_REL_KEY_RMA_COLL */
    uint8_t         nonblocking; /* members are I-calls' requests (sends) and completions (receives) */
    uint8_t         valid;       /* blocking: every member has a call with begin and end */
    uint8_t         counted;     /* this process counts the instance's statistics */
    uint8_t         ops;         /* a fence: st is the operations of the epoch it closes, per target
                                    (patterns.h st_an_oplist_*), not a staircase */
    uint32_t        end_loc;     /* an end event here (COLL_END / ICOLL_COMPLETE), end_ev AN_NO_EV if none */
    uint64_t        end_ev;
    st_an_cred_t    r;
    st_an_stair_t  *st;          /* prefix instances: the senders' staircase; fences: see ops */
    uint32_t        nst, n;
    an_cmember_t   *m;           /* [n], by key */
    size_t          m_at, st_at; /* while building: their offsets in an an_cpool_t */
    uint64_t        mingid;      /* the smallest (rank, thread) of the members (their references) */
    uint8_t         ends;        /* AN_ENDS_*: the instance has sends / receives (parallel: over every
                                    process, coll_reduce.c; the root-cause timeline's relations) */
} an_cinst_t;

enum { AN_ENDS_SEND = 1, AN_ENDS_RECV = 2 };

typedef struct an_ctab { an_cinst_t *v; size_t n; } an_ctab_t;

/* Members and staircases of instances under construction (an_cinst_build). */
typedef struct an_cpool {
    an_cmember_t  *m;
    st_an_stair_t *st;
    size_t         nm, cm, ns, cs;
} an_cpool_t;

#define AN_NO_TIME UINT64_MAX

/* A point-to-point message at its analysed receiving end: what Late Sender, Wrong Order and
 * the receive's counts need. The send's fields come from the graph (serial analysis, or both
 * ends in this process) or from the sender's process (p2p_wire.c). */
typedef struct an_recv {
    uint32_t loc;     /* the receive's location */
    int32_t  src;     /* the sender's world rank */
    uint64_t ev;      /* the receive event */
    uint64_t t_send;  /* the send event's time */
    uint64_t t_scall; /* enter of the call around the send; AN_NO_TIME if none */
    uint64_t sbytes;  /* the send's size (0: a synchronization) */
} an_recv_t;

/* A point-to-point message at its analysed sending end: Late Receiver and the send's counts. */
typedef struct an_send {
    uint32_t loc;    /* the send's location */
    uint64_t ev;     /* the send event */
    uint64_t t_post; /* enter of the call that posted the receive; AN_NO_TIME if none */
} an_send_t;

/* An origin's MPI_Win_complete -> a target's MPI_Win_wait (relations: ST_REL_KEY_RMA_PSCW) at the
 * analysed target: what Early Wait and Late Complete need (rma_pscw.c). The origin's values come from
 * the graph or from the origin's process (p2p_wire.c, as a send's enter and size). */
typedef struct an_pscw {
    uint32_t loc;        /* the target's location */
    uint64_t ev;         /* its MPI_Win_wait's RMA_GROUP_SYNC */
    uint64_t t_complete; /* enter of the origin's MPI_Win_complete */
    uint64_t t_lastop;   /* return of the origin's last RMA operation to the target in the epoch; AN_NO_TIME none */
} an_pscw_t;

/* A lock relation (relations: ST_REL_KEY_RMA_LOCK) at the analysed origin of the later epoch: what Lock
 * Contention needs (rma_lock.c). The earlier epoch's value comes from the graph or from its process
 * (p2p_wire.c, as a send's time). */
typedef struct an_lock {
    uint32_t loc;      /* the later epoch's location */
    uint64_t ev;       /* its RMA_RELEASE_LOCK */
    uint64_t t_unlock; /* enter of the earlier epoch's MPI_Win_unlock */
} an_lock_t;

/* The messages of the analysed locations; recv sorted by (loc, ev) before the patterns run. */
typedef struct an_msgs {
    an_recv_t *recv;
    size_t     nrecv, recv_cap;
    an_send_t *send;
    size_t     nsend, send_cap;
    an_pscw_t *pscw;
    size_t     npscw, pscw_cap;
    an_send_t *pscw_send; /* the analysed origins' complete -> wait: ev its ENTER, t_post the target's
                             MPI_Win_post's enter (Late Post, rma_pscw.c) */
    size_t     npscw_send, pscw_send_cap;
    an_lock_t *lock;
    size_t     nlock, lock_cap;
    struct { /* the last acquisition an_lock_push looked up, and its release: the relations of one */
        int      valid;                          /* acquisition come one after another (rma_lock.c) */
        uint32_t loc;
        uint64_t ev, release;
    } lock_last;
} an_msgs_t;

/* Request events (nonblocking sends' completions, receives' posts) of the trace, by (rank, id, time). */
typedef struct an_req {
    int32_t  rank;
    uint32_t loc;
    uint64_t id, time, ev;
    uint64_t t_call; /* enter of the call around the event (AN_NO_TIME: none), noted in the sweep */
} an_req_t;
/* A rank's ids in a direct index: its first entry of id is first[at + id - lo] - 1 (0: none). */
typedef struct an_reqseg {
    int32_t  rank;
    uint64_t lo, hi; /* the rank's smallest and largest id */
    size_t   at;
} an_reqseg_t;
typedef struct an_reqs {
    an_req_t    *v;
    size_t       n;
    /* The entries of a (rank, id), by a direct index when the ids are dense (the shim numbers
     * the requests of a process 1, 2, ...; lookups in id order then read memory in order),
     * else by hashing. */
    an_reqseg_t *seg;   /* [nseg] by rank, NULL: hashed */
    size_t       nseg;
    uint32_t    *first; /* direct: 1 + the first entry of an id; hashed: [nslot] 1 + the first
                           entry of a (rank, id), 0 empty (open addressing) */
    size_t       nslot; /* hashed: a power of two */
} an_reqs_t;

/* Events by location and index. */
typedef struct an_evref { uint32_t loc; uint64_t ev; } an_evref_t;
typedef struct an_evs { an_evref_t *v; size_t n; } an_evs_t;
/* Appends (l, i) (capacity *cap). 0, or -1 (memory). */
int an_evs_push(an_evs_t *v, size_t *cap, uint32_t l, uint64_t i);

typedef struct an_ctx {
    const st_rel_input_t *in;
    const st_rel_graph_t *g;
    st_an_result_t       *res;
    an_loc_t             *loc;   /* [in->nlocs] (cnode: analysed locations only) */
    an_paths_t            paths;
    const an_ctab_t      *coll;  /* parallel: the collective instances, reduced over their
                                    communicators (coll_reduce.h); NULL: reduced from the graph */
    an_reqs_t             done, posted; /* ISEND_COMPLETE, IRECV_REQUEST events of the analysed locations */
    an_evs_t              icoll_done;   /* their ICOLL_COMPLETE events, by location and index */
    an_evs_t              coll_end;     /* their COLL_END events */
    size_t                caps[4];      /* capacities of icoll_done, coll_end, done, posted */
    an_evs_t              tool;         /* ENTERs of the tool's own regions (buffer flushes), by location and index */
    size_t                tool_cap;
    an_msgs_t             msgs;
    an_tacc_t            *tsum;  /* [in->nlocs] the time and visits of each location's calls (an_begin) */
    struct an_rcb        *rcb;   /* the root-cause timeline under construction (rc_build.h), NULL: none */
} an_ctx_t;

/*
 * The analysis in steps (st_an_run does them at once; parallel.c runs its exchange between them):
 *  an_begin   the calls of in's locations, all analysed (an_loc_t, the call tree: res's cnodes),
 *             their request events and nonblocking collective completions, res's values (zero)
 *             and time; c keeps in and res. reqs (NULL: none): room to make at once for that many
 *             nonblocking sends' completions ([0]) and receives' posts ([1]), a guess (more may come;
 *             room not used is given back), instead of vectors grown by copies.
 *  an_msgs_from_graph  appends g's point-to-point messages with an analysed end to c->msgs.
 *  an_finish  every pattern over g and c->msgs (collectives: over coll, parallel.c's instances
 *             reduced over the communicators' trees, whose members are the analysed locations';
 *             NULL: reduced from g), then the metric tree.
 *  an_end     frees c's arrays (not res; on failure the caller frees res).
 * 0, or -1 (memory).
 */
int an_begin(an_ctx_t *c, const st_rel_input_t *in, const size_t *reqs, st_an_result_t *res);
int an_msgs_from_graph(an_ctx_t *c, const st_rel_graph_t *g);
int an_finish(an_ctx_t *c, const st_rel_graph_t *g, const an_ctab_t *coll);
void an_end(an_ctx_t *c);

/* Room for n more entries in recv / send (exact growth: callers count first). 0, or -1. */
int an_msgs_reserve(an_msgs_t *m, size_t nrecv, size_t nsend);

/* The call tree under construction: (parent, region) -> cnode. */
typedef struct an_tree {
    st_an_cnode_t *v;
    uint32_t       n, cap;
    uint32_t      *slot; /* cnode + 1, 0 empty */
    uint32_t       nslot;
} an_tree_t;

/* The child of parent for region (created if new; the root: parent ST_AN_NO_CNODE, region
 * UINT32_MAX), ST_AN_NO_CNODE when out of memory. Children keep their creation order. */
uint32_t an_tree_child(an_tree_t *t, uint32_t parent, uint32_t region);
void an_tree_free(an_tree_t *t);

/* The calls of location L (an_loc_t's w and t; cnodes too when t is not NULL, below the application
 * frames of paths when not NULL); with c (L is c's analysed location l) also the events later passes need
 * (c->icoll_done, c->coll_end, the request events);
 * stack has room for L->n + 1 entries; *unpaired counts unmatched LEAVEs and unclosed calls; with acc
 * (and t) the calls' time and visits are added to acc (grown with the tree; room for the root).
 * 0, or -1 (memory). */
int an_scan_loc(const st_rel_loc_t *L, an_loc_t *A, an_tree_t *t, an_paths_t *paths, uint64_t *stack,
                uint64_t *unpaired, an_ctx_t *c, uint32_t l, an_tacc_t *acc);

/* A location's identity across processes: (rank, thread). */
static inline uint64_t an_gid(const an_ctx_t *c, uint32_t l)
{
    return (uint64_t)(uint32_t)c->in->locs[l].rank << 32 | c->in->locs[l].thread;
}


/* The call enclosing event i of location l (AN_NO_EV: none) and its enter / leave times
 * and cnode (root when outside any call). A call never left ends at the last event. */
static inline uint64_t an_call(const an_ctx_t *c, uint32_t l, uint64_t i)
{
    uint64_t w = c->loc[l].w[i];
    return w & AN_W_ENTER ? i : w - 1; /* 0 - 1: AN_NO_EV */
}
/* Whether event i of location l is an ENTER (a call: an_call(i) == i). */
static inline int an_is_enter(const an_ctx_t *c, uint32_t l, uint64_t i) { return (c->loc[l].w[i] & AN_W_ENTER) != 0; }
/* The LEAVE of a call (an ENTER index), AN_NO_EV if never left. */
static inline uint64_t an_leave(const an_ctx_t *c, uint32_t l, uint64_t call)
{
    uint32_t d = (uint32_t)c->loc[l].w[call];
    return d ? call + d : AN_NO_EV;
}
static inline uint64_t an_time(const an_ctx_t *c, uint32_t l, uint64_t i) { return c->loc[l].t[i]; }
/* The enter time of the call around event i of location l, AN_NO_TIME if none. */
static inline uint64_t an_call_time(const an_ctx_t *c, uint32_t l, uint64_t i)
{
    uint64_t call = an_call(c, l, i);
    return call == AN_NO_EV ? AN_NO_TIME : an_time(c, l, call);
}
static inline uint64_t an_leave_time(const an_ctx_t *c, uint32_t l, uint64_t call)
{
    uint64_t j = an_leave(c, l, call);
    return an_time(c, l, j != AN_NO_EV ? j : c->in->locs[l].n - 1);
}
static inline uint32_t an_cnode(const an_ctx_t *c, uint32_t l, uint64_t call)
{
    return call == AN_NO_EV ? 0 : (uint32_t)(c->loc[l].w[call] >> 32) & 0x7fffffffu;
}
static inline uint32_t an_region(const an_ctx_t *c, uint32_t l, uint64_t call)
{
    if (call == AN_NO_EV)
        return UINT32_MAX;
    return c->res->cnodes[an_cnode(c, l, call)].region;
}
/* Asks for event i of location l ahead of its use: loops over messages visit one event line each,
 * far apart in a trace larger than the caches, and each would otherwise be a full memory wait. */
#define AN_PREFETCH_AHEAD 16
static inline void an_prefetch_event(const an_ctx_t *c, uint32_t l, uint64_t i)
{
    __builtin_prefetch(&c->in->locs[l].ev[i]);
}

/* Keeps (m, l, call, v) among the largest instances of a time metric m. */
void an_note(an_ctx_t *c, int m, uint32_t l, uint64_t call, double v);

/* Notes a wait the patterns add (an_add) for the root-cause timeline: kept when m is a wait state
 * with a delay cost or Wait at Finalize (rc_build.c). */
void an_rcb_wait(struct an_rcb *b, int m, uint32_t l, uint64_t call, double v);

/* A wait v of metric m at call on location l less the time of the tool's regions (buffer flushes) inside
 * the call that lie in the wait's interval: from the call's ENTER for a wait, back from its LEAVE for a
 * completion (Barrier / N x N / Initialization Completion). Their time is their own (Overhead), not the
 * call's, so no wait exceeds the call's own time. Other metrics, and OpenMP barrier waits (less all
 * their callees already), come back unchanged. */
double an_less_tool(const an_ctx_t *c, int m, uint32_t l, uint64_t call, double v);

/* Adds v (one instance) to metric m at (cnode of call, l); values <= 0 are dropped. */
static inline void an_add(an_ctx_t *c, int m, uint32_t l, uint64_t call, double v)
{
    if (__builtin_expect(c->tool.n != 0, 0) && v > 0)
        v = an_less_tool(c, m, l, call, v);
    if (v > 0) {
        *st_an_sev(c->res, m, an_cnode(c, l, call), l) += v;
        an_note(c, m, l, call, v);
        if (c->rcb)
            an_rcb_wait(c->rcb, m, l, call, v);
    }
}

/* A wait found at a call (kind 0 Late Sender, 1 Late Receiver in p2p.c; the metric in
 * icoll.c), before the per-call rules. */
typedef struct an_wait {
    uint32_t loc;
    uint8_t  kind;
    uint64_t call;
    int64_t  w;
} an_wait_t;

typedef struct an_waits { an_wait_t *v; size_t n, cap; } an_waits_t;

int an_waits_push(an_waits_t *ws, an_wait_t w);

/* qsort(v, n, size, cmp), skipped when v is already in order (the vectors collected in event
 * order often are): equal elements keep their order, as in glibc's stable merge sort. */
void an_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Region is a test (MPI_Test, Testany, Testall, Testsome) / a wait for several requests
 * (MPI_Waitall, Waitsome): its call kind in the wrapper table (call_kinds.h). */
int an_is_test(uint32_t region);
int an_is_multi_wait(uint32_t region);

/* Late Sender and Wrong Order over c->msgs.recv (sorted by (loc, ev)), with the receives'
 * counts (latesender.c); every call that got a Late Sender is pushed to ls (kind 0, its value).
 * 0, or -1 (memory). */
int an_late_sender(an_ctx_t *c, an_waits_t *ls);

/* Request events: an_reqs_note adds event i of analysed location l (an ISEND_COMPLETE to c->done,
 * an IRECV_REQUEST to c->posted; cap[0], cap[1] their capacities); an_reqs_finish sorts and
 * indexes them once all are in. Freed by an_end. 0, or -1 (memory). */
int an_reqs_note(an_ctx_t *c, uint32_t l, uint64_t i, size_t *cap);
/* Room for reqs[0] ISEND_COMPLETE and reqs[1] IRECV_REQUEST events in c->done and c->posted (an_begin's
 * reqs; an_reqs_finish gives back what was not used), where the memory is there. */
void an_reqs_reserve(an_ctx_t *c, const size_t *reqs);
int an_reqs_finish(an_ctx_t *c);
/* The enter time of the call that posted the receive event ev of analysed location loc (an
 * Irecv's post found among c->posted), AN_NO_TIME if none. */
uint64_t an_recv_post_time(const an_ctx_t *c, uint32_t loc, uint64_t ev);
/* The request event that posted the receive ev of analysed location loc (an Irecv), and the one that
 * completed the send ev (an Isend): NULL if none (not a nonblocking one, or not found). */
const an_req_t *an_recv_post(const an_ctx_t *c, uint32_t loc, uint64_t ev);
const an_req_t *an_send_completion(const an_ctx_t *c, uint32_t loc, uint64_t ev);
/* A hint, for loops over ends far apart in memory: stage 0 fetches the event ev of analysed location loc
 * and its call word; once that is cached, stage 1 the index entry of its request (an Isend, an Irecv),
 * stage 2 the request event it names, stage 3 that event's call word (what an_send_completion,
 * an_recv_post and the call around each read). Changes nothing. Stage 0 inline: it is asked for every end of
 * a loop, the later stages only for a nonblocking call's. */
void an_req_prefetch_req(const an_ctx_t *c, uint32_t loc, uint64_t ev, int stage);
static inline void an_req_prefetch(const an_ctx_t *c, uint32_t loc, uint64_t ev, int stage)
{
    if (stage == 0) {
        __builtin_prefetch(&c->in->locs[loc].ev[ev]);
        __builtin_prefetch(&c->loc[loc].w[ev]);
    } else {
        an_req_prefetch_req(c, loc, ev, stage);
    }
}

/* The COLL_BEGIN / COLL_END times of a blocking collective call into m (its end event in
 * *end): an MPI collective's, or a one-sided one's (RMA_COLL_BEGIN / RMA_COLL_END: fence, window
 * creation and release). 0, or -1 if the call lacks either. */
int an_member_times(const an_ctx_t *c, uint32_t l, uint64_t call, st_an_member_t *m, const st_event_t **end);

/* Point-to-point patterns and counts over c->msgs. 0, or -1 (memory). */
int an_p2p(an_ctx_t *c);
/* Collective patterns over the graph's collective instances. 0, or -1 (memory). */
int an_coll(an_ctx_t *c);

/* ---- general active target synchronization (rma_pscw.c) ------------------------------------- */

/* The return of the last RMA operation to `target` (world rank) in the access epoch that the
 * MPI_Win_complete whose ENTER is event i of location l closes; AN_NO_TIME if none. */
uint64_t an_pscw_lastop(const an_ctx_t *c, uint32_t l, uint64_t i, int32_t target);
/* The enter of the MPI_Win_post that opened the exposure epoch whose MPI_Win_wait's RMA_GROUP_SYNC is
 * event i of location l; AN_NO_TIME if none. */
uint64_t an_pscw_post(const an_ctx_t *c, uint32_t l, uint64_t i);
/* Appends g's complete -> wait relations with an end on an analysed location: the wait's to
 * c->msgs.pscw, the complete's to c->msgs.pscw_send. 0, or -1. */
int an_pscw_from_graph(an_ctx_t *c, const st_rel_graph_t *g);
/* Appends one (growing c->msgs.pscw / pscw_send). 0, or -1. */
int an_pscw_push(an_ctx_t *c, an_pscw_t x);
int an_pscw_push_send(an_ctx_t *c, an_send_t x);
/* Early Wait and Late Complete over c->msgs.pscw, Late Post over c->msgs.pscw_send. 0, or -1 (memory). */
int an_pscw(an_ctx_t *c);
/* ---- passive target lock epochs (rma_lock.c) ------------------------------------------------- */

/* Appends g's lock relations whose later epoch is on an analysed location to c->msgs.lock. 0, or -1. */
int an_lock_from_graph(an_ctx_t *c, const st_rel_graph_t *g);
/* Appends one (growing c->msgs.lock). 0, or -1. */
int an_lock_push(an_ctx_t *c, an_lock_t x);
/* Lock Contention over c->msgs.lock. 0, or -1 (memory). */
int an_lock(an_ctx_t *c);

/* Whether the collective instance of end event e (a COLL_END or ICOLL_COMPLETE on location
 * loc, whose process knows the communicator: an analysed one where there is one) is analysed
 * (MPI_Alltoallv/w counted as skipped when counted: an_cinst_t.counted), and whether it is on an
 * intercommunicator (coll.c). */
int an_coll_analysed(an_ctx_t *c, uint32_t loc, const st_event_t *e, int counted, int *inter);
/* The wait metric of a collective operation (OTF2 op), or -1. */
int an_coll_wait_metric(unsigned op);
/* Instance x (key and type set) from its references: nsend sends, then nrecv receives (the
 * graph's, or one process's endpoints): nonblocking, valid, end, mingid, the reduction r and
 * staircase of these members, the members (appended to pool at x->m_at, the staircase at
 * x->st_at; x->m and x->st are not set). shape: st_rel_shape. 0, or -1 (memory). */
int an_cinst_build(const an_ctx_t *c, an_cinst_t *x, const st_rel_ref_t *refs, uint32_t nsend, uint32_t nrecv,
                   uint8_t shape, an_cpool_t *pool);
/* The waits of instance x's members (coll.c; an_icoll for nonblocking ones). 0, or -1 (memory). */
int an_coll_eval(an_ctx_t *c, const an_cinst_t *x, an_waits_t *nb);
/* Nonblocking collective instance x: pushes each member's wait at its completing call to
 * acc (kind = metric); an_icoll_add then adds them, a multi wait's largest once (icoll.c). */
int an_icoll(an_ctx_t *c, const an_cinst_t *x, an_waits_t *acc);
void an_icoll_add(an_ctx_t *c, an_waits_t *acc);
/* What call (an ENTER index on l) completed: nonblocking collective requests (*coll; all of
 * them barriers: *barrier) and point-to-point requests (*p2p) (tree.c). */
void an_call_completes(const an_ctx_t *c, uint32_t l, uint64_t call, int *coll, int *p2p, int *barrier);
/* The metric tree above the patterns (tree.c): Execution, Computation, Overhead, the MPI
 * subtree by call; after every pattern. 0, or -1 (memory). */
int an_tree(an_ctx_t *c);
/* OpenMP metrics over the graph's OpenMP instances, idle threads (omp.c); after time and
 * MPI time. 0, or -1 (memory). */
int an_omp(an_ctx_t *c);
/* Per location: the location of thread 0 of its process if both were in an OpenMP team (a receiver
 * of one of c->g's forks), else UINT32_MAX; malloc'd, NULL if out of memory (omp.c). */
uint32_t *an_omp_masters(const an_ctx_t *c);

#endif
