/*
 * rc_build.h — the root-cause timeline (rootcause.h, st_rc_input_t) of an analysis' locations, built
 * where their events are: by the serial analysis over a whole trace (analysis.c), by each process of a
 * parallel one over its own locations (parallel.c); packed with a process's part and merged at the
 * collector (rc_pack.c), where the replay runs. Not for use outside src/analysis.
 *
 * What a location's timeline holds (docs/analysis.md, "Root causes"):
 *  - its synchronizing calls in time order: the calls (ENTER..LEAVE) that are an end of a relation or
 *    got a wait, and zero-length calls at the OpenMP team events (a master's fork and join, a team
 *    member's team begin and end: enter = leave = the event's time, the cnode of the call around it);
 *    a synchronizing call inside another one is a part of the outer one (its relations and waits are
 *    the outer call's), so that calls never overlap; an end outside every call is a zero-length call
 *    at its event, too;
 *  - per call its relations, sorted by key, one per key (role bits of every end the call is, or'ed):
 *      point-to-point (the message's endpoint key): SENDS at the call around the send event, RECEIVES
 *      at the call around the receive event, POSTS at the call that posted the receive (the receive's
 *      own for a blocking one, the Irecv's for a nonblocking one), and no role bit (0) at the call
 *      that completed an Isend (where its Late Receiver wait is); only messages whose two ends were
 *      matched;
 *      collectives and MPI_Init / MPI_Finalize (the instance key): SENDS for a member that contributes
 *      data, RECEIVES for one that gets data (relations/derive_coll.c), ROOT for the root of a rooted
 *      one (1-to-N: its sender, N-to-1: its receiver); only instances that have both;
 *      OpenMP: fork (SENDS at the master's fork, RECEIVES at every team begin), join (SENDS at the team
 *      ends, RECEIVES at the master's join), barriers (SENDS | RECEIVES at each thread's barrier call);
 *  - per call its waits, one per metric (summed): the values the wait-state patterns add with a delay
 *    cost (st_rc_delay_metric) or Wait at Finalize;
 *  - idleness: before each outermost fork of a worker thread's master, a call ST_RC_IDLE from the
 *    master's previous join of an outermost team (or its first event) to the fork, with one wait of
 *    Idle threads (its length) and the fork's key as RECEIVES, cnode: the master's call around the
 *    fork; cut to the thread's own last event before the fork, left out when the thread is inside a
 *    call at the fork;
 *  - the exclusive time per cnode between consecutive calls (as the analysis' Time attributes it: to
 *    the innermost call open, the root outside every call and outside the location's events), sorted
 *    by cnode, positive values only, and the tail; first: the location's first event or an earlier
 *    idle call's enter, last: its last event or a later call's leave. Profiles and call times add up
 *    to last - first exactly.
 * A location's timeline depends only on its process's events, relation keys and the waits at its
 * calls: the serial and the parallel analysis build the same one (up to the numbering of cnodes).
 * Cost: about 90 bytes of timeline per synchronizing call (the call 40, a relation 40, a profile entry 12),
 * 16 per relation end while it is built, one sweep over the events.
 *
 * Use: an_rcb_new into c->rcb before an_finish (the patterns' waits are noted as they are added);
 * the relation ends from the graph (an_rcb_graph), in a parallel analysis also from the joined remote
 * point-to-point ends (an_rcb_pwire, before an_pwire_free) and the collective endpoints (an_rcb_coll);
 * then an_rcb_build after an_finish, before an_end.
 */
#ifndef ST_AN_RC_BUILD_H
#define ST_AN_RC_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "cpu_stamp.h"
#include "internal.h"
#include "p2p_wire.h"
#include "rootcause.h"
#include "../util/clockread.h"

/* One end of a relation at a call of location loc: call is the ENTER index of a call, or the index of
 * the event of a zero-length call (not an ENTER); kref its key: the graph's instance kref, or with
 * AN_RC_KEY_SIDE the builder's side key (the keys of ends from outside the graph), or with AN_RC_KEY_CHAN
 * too a message of a stretch of one channel (a parallel analysis' remote point-to-point ends: the channel's
 * stretch, bits 32..61, and the message's number in it, bits 0..31; the same key, the same reference).
 * 16 bytes: one per relation end of the trace, most of them fresh pages; at holds loc (bits 40..63), call
 * (bits 4..39) and role (ST_RC_* bits, 0..3), so that at >> 4 orders the ends by location, then call. A
 * process with 2^24 locations or more, a location with 2^36 events or more: the builder refuses them as out
 * of memory (an_rc_end_fits). */
typedef struct an_rc_end {
    uint64_t at, kref;
} an_rc_end_t;
#define AN_RC_END_LOCS  (1ull << 24)
#define AN_RC_END_CALLS (1ull << 36)
static inline int an_rc_end_fits(uint32_t loc, uint64_t call)
{
    return loc < AN_RC_END_LOCS && call < AN_RC_END_CALLS;
}
static inline an_rc_end_t an_rc_end(uint64_t kref, uint32_t loc, uint64_t call, uint32_t role)
{
    return (an_rc_end_t){ (uint64_t)loc << 40 | call << 4 | (role & 15u), kref };
}
static inline uint32_t an_rc_end_loc(const an_rc_end_t *e) { return (uint32_t)(e->at >> 40); }
static inline uint64_t an_rc_end_call(const an_rc_end_t *e) { return (e->at >> 4) & (AN_RC_END_CALLS - 1); }
static inline uint32_t an_rc_end_role(const an_rc_end_t *e) { return (uint32_t)(e->at & 15u); }
#define AN_RC_KEY_SIDE (1ull << 63)
#define AN_RC_KEY_CHAN (1ull << 62)

/* A wait the patterns added at (loc, call). */
typedef struct an_rc_wait {
    uint64_t call;
    uint32_t loc;
    int32_t  metric;
    double   v;
} an_rc_wait_t;

/* An idle stretch of a master's workers: [t0, t1), t1 the fork (key, its graph instance inst, cnode on the
 * master). */
typedef struct an_rc_idle {
    uint64_t t0, t1;
    uint64_t key[4];
    uint64_t inst;
    uint32_t cnode;
} an_rc_idle_t;

typedef struct an_rcb {
    an_rc_end_t          *e;
    size_t                ne, ce;
    an_rc_end_t          *e2;       /* a point-to-point end's second end (the call that posted a receive, that
                                       completed an Isend): apart, so that e and e2 each stay in the order the
                                       ends are noted in (few sorted runs to merge, not one descent per message) */
    size_t                ne2, ce2;
    an_rc_wait_t         *w;
    size_t                nw, cw;
    uint64_t            (*side)[4]; /* side keys */
    size_t                nside, cside;
    uint64_t            (*chan)[5]; /* stretches of a channel's messages: key[0 .. 2], the first one's number, the
                                       first one's wire number (below) */
    size_t                nchan, cchan;
    uint64_t              nwire;    /* the remote point-to-point messages numbered so far, in the order the join
                                       hands them out (st_rc_rel_t.group of their relations: an_rc_wire_group) */
    const st_rel_graph_t *g;        /* the graph of the ends' instance keys */
    int                   failed;   /* a note did not fit in memory */
    an_stamp_t            spent[3]; /* CPU ms and page faults of its steps (AN_RCB_T_*; SYNCTRACE_VERBOSE=2) */
} an_rcb_t;
/* The builder's steps: the graph's and the collectives' ends noted (the remote point-to-point ones go with
 * the analysis' messages), the ends and waits sorted, each location's calls and sweep (the idle stretches too). */
enum { AN_RCB_T_NOTES, AN_RCB_T_SORT, AN_RCB_T_LOCS };

/* The key of an end into key. */
static inline void an_rc_key(const an_rcb_t *b, uint64_t kref, uint64_t key[4])
{
    if ((kref & (AN_RC_KEY_SIDE | AN_RC_KEY_CHAN)) == (AN_RC_KEY_SIDE | AN_RC_KEY_CHAN)) {
        const uint64_t *c = b->chan[(kref & ~(AN_RC_KEY_SIDE | AN_RC_KEY_CHAN)) >> 32];
        key[0] = c[0], key[1] = c[1], key[2] = c[2], key[3] = c[3] + (kref & 0xffffffffu);
    } else
        memcpy(key, kref & AN_RC_KEY_SIDE ? b->side[kref & ~AN_RC_KEY_SIDE] : b->g->inst[kref].key, 4 * sizeof *key);
}

/* The group (st_rc_rel_t.group) of a relation of key kref: 1 + its graph instance; for a remote point-to-point
 * message 1 + its wire number (its place in the order an_rcb_pwire's join handed the messages out: channel by
 * channel, each channel's in its messages' order, the sends' before the receives'; rc_dist_pairs.c orders a
 * process's messages by it); 0 unknown (a side key, or a number that does not fit). */
static inline uint32_t an_rc_group(const an_rcb_t *b, uint64_t kref)
{
    uint64_t g;
    if ((kref & (AN_RC_KEY_SIDE | AN_RC_KEY_CHAN)) == (AN_RC_KEY_SIDE | AN_RC_KEY_CHAN))
        g = b->chan[(kref & ~(AN_RC_KEY_SIDE | AN_RC_KEY_CHAN)) >> 32][4] + (kref & 0xffffffffu);
    else if (kref & AN_RC_KEY_SIDE)
        return 0;
    else
        g = kref;
    return g < UINT32_MAX ? (uint32_t)g + 1 : 0;
}

/* Where the key of an end is (to prefetch). */
static inline const void *an_rc_key_at(const an_rcb_t *b, uint64_t kref)
{
    if ((kref & (AN_RC_KEY_SIDE | AN_RC_KEY_CHAN)) == (AN_RC_KEY_SIDE | AN_RC_KEY_CHAN))
        return b->chan[(kref & ~(AN_RC_KEY_SIDE | AN_RC_KEY_CHAN)) >> 32];
    return kref & AN_RC_KEY_SIDE ? b->side[kref & ~AN_RC_KEY_SIDE] : b->g->inst[kref].key;
}

/* Room for n more relation ends (the most the notes will add: no copies as they grow). 0, or -1 (memory). */
int an_rcb_reserve(an_rcb_t *b, size_t n);

/* Whether the root causes are wanted (SYNCTRACE_ROOTCAUSE on). The settings are loaded here when the
 * process has not loaded them (`synctrace analyze`); settings that do not load are said once on stderr
 * and leave the default (on). */
int an_rc_wanted(void);

/* A builder (calloc'd), NULL if out of memory; an_rcb_free frees it (NULL: nothing). */
an_rcb_t *an_rcb_new(void);
void an_rcb_free(an_rcb_t *b);

/* The relation ends of g's instances at c's locations (point-to-point instances of one send and one
 * receive, collective and MPI_Init / MPI_Finalize instances, OpenMP fork, join and barrier
 * instances) into c->rcb. 0, or -1 (memory). */
int an_rcb_graph(an_ctx_t *c, const st_rel_graph_t *g);
/* A parallel analysis' point-to-point ends whose partner another process analyses, those the join
 * matched (after an_pwire_join). 0, or -1 (memory). */
int an_rcb_pwire(an_ctx_t *c, const an_pwire_t *w);
/* A parallel analysis' collective endpoints ep[0 .. n) (kind ST_REL_COLL) of the instances of tab
 * that have sends and receives. 0, or -1 (memory). */
int an_rcb_coll(an_ctx_t *c, const st_rel_endpoint_t *ep, size_t n, const an_ctab_t *tab);

/* The timeline of c's locations (after an_finish; g: the graph of the OpenMP instances, for the idle
 * stretches) into *out (malloc'd; free with st_rc_input_free and free); the notes are consumed.
 * 0, or -1 (memory). */
int an_rcb_build(an_ctx_t *c, const st_rel_graph_t *g, st_rc_input_t **out);

/* Scratch of the per-location sweep (rc_build_loc.c): per cnode accumulators, the touched cnodes, the
 * stack of open calls; the idle stretches' first events at or after their forks. */
typedef struct an_rc_scratch {
    int64_t  *acc;     /* [ncnodes] */
    uint32_t *touched, ntouched;
    uint8_t  *mark;    /* [ncnodes] touched */
    uint32_t *depth;   /* [ncnodes] a cnode's depth in the call tree (the root 0) */
    uint64_t *stack;
    uint64_t  cap;
    uint64_t *pos;
    size_t    cpos;
} an_rc_scratch_t;

/* The timeline of location l into out: its relation ends e[0 .. ne) and waits w[0 .. nw) (sorted by
 * call, then kref / metric; keys from b), its idle stretches idle[0 .. nidle) (by t1; NULL: none).
 * 0, or -1 (memory). */
int an_rc_loc(const an_ctx_t *c, uint32_t l, const an_rcb_t *b, const an_rc_end_t *e, size_t ne,
              const an_rc_wait_t *w, size_t nw, const an_rc_idle_t *idle, size_t nidle, an_rc_scratch_t *s,
              st_rc_loc_t *out);

/* ---- parts and the replay (rc_pack.c) ------------------------------------------------------------ */

/* Bytes of in's locations in a part, and writes them at out (returns the end). Per location first, last
 * - first, ncalls, nprof, nwaits, nrels, ntail; per call enter - the previous call's leave (the first:
 * - first), leave - enter, cnode, flags, nprof, nwait, nrel, its profile (cnode, ticks), waits (metric,
 * ticks as a double's 8 bytes) and relations (each key word less the previous relation's, role); then
 * the tail. Unsigned LEB128 varints, differences zigzag-coded: at about 30 bytes a call, the parts the
 * collector gathers are a third of 64-bit words. */
size_t an_rc_pack_size(const st_rc_input_t *in);
uint8_t *an_rc_pack(const st_rc_input_t *in, uint8_t *out);
/* At least an_rc_pack_size(in), without encoding it: room to pack into in one pass. */
size_t an_rc_pack_bound(const st_rc_input_t *in);
/* Reads nl locations from p[0 .. n) (all of it) into out->locs[loc0 ..), cnodes through map (nc of them),
 * each call's profile sorted by the mapped cnodes. 0, or -1 (malformed or memory; out->locs may hold
 * parts: st_rc_input_free frees them). */
int an_rc_unpack(const uint8_t *p, size_t n, uint32_t nl, uint32_t loc0, const uint32_t *map, uint32_t nc,
                 st_rc_input_t *out);

/* The root-cause analysis of res over res->timeline (taken: freed, unless an_rc_keep_timeline) into
 * res->causes (malloc'd) and res's values; its time added to res->rootcause_ms. Nothing without a
 * timeline. 0, or -1 (memory). */
int an_rc_finish(st_an_result_t *res);

/* Wall (monotonic) and this thread's CPU time in ms: ms[i] += now - since[i] (the root-cause analysis'
 * time in a process, st_an_result_t.rootcause_ms). */
static inline void an_rc_clock(double now[2])
{
    now[0] = st_clock_ms(CLOCK_MONOTONIC);
    now[1] = st_clock_ms(CLOCK_THREAD_CPUTIME_ID);
}
static inline void an_rc_clock_add(double ms[2], const double since[2])
{
    double now[2];
    an_rc_clock(now);
    ms[0] += now[0] - since[0], ms[1] += now[1] - since[1];
}
/* Tests: nonzero keeps res->timeline after the replay (freed with res). */
extern int an_rc_keep_timeline;

#endif
