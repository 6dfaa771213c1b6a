/*
 * patterns.h — the severity of each wait-state pattern for ONE relation, from the times
 * of the events taking part (docs/analysis.md, "Metrics"). Pure functions of times: the serial driver
 * (analysis.c) reads every time from the trace; a parallel version would get the remote
 * ones (a send's enter, a collective's reference begin) from an exchange.
 * Times are timer ticks; a result <= 0 means "no wait" (Scalasca drops values <= 0).
 */
#ifndef ST_AN_PATTERNS_H
#define ST_AN_PATTERNS_H

#include <stdint.h>

#include "../relations/relations.h"

static inline int64_t st_an_diff(uint64_t a, uint64_t b) { return (int64_t)(a - b); }

/* Late Sender: a receive call entered at enter_recv and left at leave_recv waits for the
 * send call entered at enter_send: min(E(s), L(r)) - E(r). */
static inline int64_t st_an_late_sender(uint64_t enter_send, uint64_t enter_recv, uint64_t leave_recv)
{
    return st_an_diff(enter_send < leave_recv ? enter_send : leave_recv, enter_recv);
}

/* Late Receiver: the call completing a send (entered enter_c, left leave_c) waits for the
 * receive to be posted (enter of the posting call, enter_q): 0 if the send completed
 * before the post (buffered), else E(Q) - E(C). */
static inline int64_t st_an_late_receiver(uint64_t enter_c, uint64_t leave_c, uint64_t enter_q)
{
    return leave_c <= enter_q ? 0 : st_an_diff(enter_q, enter_c);
}

/* Nonblocking collective (icoll.c): the call completing a member's request (entered
 * enter_c, left leave_c) waits for the latest begin (ICOLL_REQUEST) of the members it gets
 * data from, bref: min(bref, L(C)) - E(C), as Late Sender. */
static inline int64_t st_an_icoll_wait(uint64_t bref, uint64_t enter_c, uint64_t leave_c)
{
    return st_an_late_sender(bref, enter_c, leave_c);
}

/* One member of a collective instance: its begin and end, and its part in the data flow
 * (the graph's sends and receives of the instance; a member may be both). Members are
 * ordered by key (order, gid, call): every process of a parallel analysis sees the same order. */
typedef struct st_an_member {
    uint64_t b, e;
    uint64_t gid, call; /* the location's (rank, thread) and the call's ENTER index there */
    uint32_t order;     /* prefix instances (scans): the member's rank in the communicator */
    uint8_t  send, recv;
} st_an_member_t;

#define ST_AN_NO_KEY UINT64_MAX

/* A member's key (order, gid, call) into k. */
static inline void st_an_member_key(const st_an_member_t *m, uint64_t k[3])
{
    k[0] = m->order, k[1] = m->gid, k[2] = m->call;
}

static inline int st_an_key_cmp(const uint64_t a[3], const uint64_t b[3])
{
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/*
 * What the waits of an instance's members depend on, reduced over all its members (the
 * serial analysis reduces them in one place, the parallel one over the communicator's
 * tree: st_an_cred_add per member, st_an_cred_merge of partial reductions, in any order):
 *   bmax, emin   latest begin, earliest end of all members;
 *   sb, sk       the latest sender's begin and key (the smallest key among equal begins),
 *                sk[0] == ST_AN_NO_KEY if no member sends;
 *   emin2        second round, partial N x N only (st_an_cred_round2): the earliest end of
 *                that sender and of the receivers that began before it.
 * Scans (prefix) also need, for each receiver, the latest begin among the senders up to
 * its key: a staircase of senders (st_an_stair_t) by key whose begins strictly increase.
 */
typedef struct st_an_cred {
    uint64_t bmax, emin, sb, sk[3], emin2;
} st_an_cred_t;

typedef struct st_an_stair {
    uint64_t key[3], b;
} st_an_stair_t;

void st_an_cred_init(st_an_cred_t *r);
void st_an_cred_add(st_an_cred_t *r, const st_an_member_t *m);
void st_an_cred_merge(st_an_cred_t *r, const st_an_cred_t *x);
/* Whether an instance of class cc needs emin2 (the partial N x N rule), given r's first round. */
int st_an_cred_round2(const st_an_cred_t *r, enum st_rel_coll_class cc, int barrier, int inter);
/* Second round: m's end into emin2 if m synchronizes under the partial N x N rule. */
void st_an_cred_add2(st_an_cred_t *r, const st_an_member_t *m);

/* Merges staircases a[0..na) and b[0..nb) (each by key) into out (room for na + nb). Returns
 * the entries kept. */
uint32_t st_an_stair_merge(const st_an_stair_t *a, uint32_t na, const st_an_stair_t *b, uint32_t nb,
                           st_an_stair_t *out);
/* The latest begin of the staircase's senders with key <= key into *b; 0 if there is none. */
int st_an_stair_find(const st_an_stair_t *s, uint32_t n, const uint64_t key[3], uint64_t *b);

/*
 * One-sided collectives on a window (MPI_Win_fence, window creation and MPI_Win_free): their members
 * are reduced as those of a barrier (r: latest begin, earliest end). As in Scalasca, a fence need not
 * synchronize (an implementation may return early from a fence that opens or closes no epoch), so the
 * members are taken to have waited only when all their calls overlap (no end before the latest begin;
 * Scalasca asks for the earliest end strictly after it, but CLC puts an end that the clocks showed
 * too early exactly at the begin it must follow); then a member that began before the latest begin
 * waits until it: bmax - b.
 */
static inline int64_t st_an_rma_coll_wait(const st_an_cred_t *r, const st_an_member_t *m)
{
    return r->emin >= r->bmax && m->b < r->bmax ? st_an_diff(r->bmax, m->b) : 0;
}

/* Early Fence: of a member's fence wait w (> 0; its call entered at enter, its end event at end), the
 * part until the last RMA operation of the closing epoch that targets the member returned at its origin
 * (last_op): last_op - enter if enter < last_op <= end, else 0; never above w. */
static inline int64_t st_an_early_fence(int64_t w, uint64_t last_op, uint64_t enter, uint64_t end)
{
    if (w <= 0 || last_op <= enter || last_op > end)
        return 0;
    int64_t v = st_an_diff(last_op, enter);
    return v < w ? v : w;
}

/* A fence instance's operations (an_cinst_t.ops): per target, the latest return of an RMA operation
 * call to it in the epoch the fence closes, as st_an_stair_t entries keyed (target's world rank, 0, 0),
 * by key, one per target. st_an_oplist_merge merges two such lists a[0..na) and b[0..nb) into out
 * (room for na + nb; out may be a when nb == 0, which also collapses equal keys of a sorted list),
 * keeping the latest time per target; returns the entries kept. st_an_oplist_find: the time of target
 * `rank` into *t, 0 if the list has none. */
uint32_t st_an_oplist_merge(const st_an_stair_t *a, uint32_t na, const st_an_stair_t *b, uint32_t nb,
                            st_an_stair_t *out);
int st_an_oplist_find(const st_an_stair_t *s, uint32_t n, uint64_t rank, uint64_t *t);

/*
 * The wait and completion (>= 0; completion only for barriers and N-to-N) of member m of a
 * blocking collective instance of class cc (barrier != 0: MPI_Barrier or MPI_Init /
 * MPI_Finalize; inter != 0: on an intercommunicator, where the instance's senders are one
 * group and its receivers the other), from the instance's reduction r (and staircase st
 * for prefix instances). Returns 1 when m ended before its reference begin (a clock-
 * condition violation), else 0. Rules (Scalasca's, docs/analysis.md "Metrics"):
 *   B* = min(B_ref, e), wait = B* - b, completion = e - max(E_min, B*)
 *   barrier, N-to-N with full overlap (min e > max b): B_ref latest b, E_min earliest e;
 *   N-to-N otherwise: B_ref = latest sender's b; that sender and the receivers that began
 *     before it synchronize, E_min over them (emin2); the others get 0;
 *   1-to-N: B_ref = the root's (the sender's) b; receivers that began before it wait;
 *   N-to-1: B_ref = the latest sender's b; the root (the receiver) waits if it began before;
 *   prefix (scan): B_ref of a receiver = the latest b of the senders of lower or equal key;
 *   intercommunicator (every class): the receivers wait for the latest sender of the other
 *     group, as in 1-to-N; no completion (the members do not all wait for one another).
 */
unsigned st_an_coll_wait(enum st_rel_coll_class cc, int barrier, int inter, const st_an_cred_t *r,
                         const st_an_stair_t *st, uint32_t nst, const st_an_member_t *m, int64_t *wait,
                         int64_t *completion);

#endif
