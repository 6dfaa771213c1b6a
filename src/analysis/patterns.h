/*
 * patterns.h — the severity of each wait-state pattern for ONE relation, from the times
 * of the events taking part (ANALYSIS.md §2). Pure functions of times: the serial driver
 * (analysis.c) reads every time from the trace; a parallel version would get the remote
 * ones (a send's enter, a collective's reference begin) from an exchange.
 * Times are timer ticks; a result <= 0 means "no wait" (Scalasca drops values <= 0).
 */
#ifndef ST_AN_PATTERNS_H
#define ST_AN_PATTERNS_H

#include <stdint.h>

#include "../clc/deps.h"

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
 * (the graph's sends and receives of the instance; a member may be both). */
typedef struct st_an_member {
    uint64_t b, e;
    uint32_t order; /* prefix instances (scans): the member's rank in the communicator */
    uint8_t  send, recv;
} st_an_member_t;

/*
 * Waits of the members of one blocking collective instance of class cc (barrier != 0:
 * MPI_Barrier; inter != 0: on an intercommunicator, where the instance's senders are one
 * group and its receivers the other). Writes wait[i] and completion[i] (>= 0; completion only for barriers and
 * N-to-N). Returns the number of members that ended before the instance's reference
 * begin (clock-condition violations). Rules (ANALYSIS.md §2, "MPI collectives"):
 *   B* = min(B_ref, e), wait = B* - b, completion = e - max(E_min, B*)
 *   barrier, N-to-N with full overlap (min e > max b): B_ref latest b, E_min earliest e;
 *   N-to-N otherwise: B_ref = latest sender's b; that sender and the receivers that began
 *     before it synchronize, E_min over them; the others get 0;
 *   1-to-N: B_ref = the root's (the sender's) b; receivers that began before it wait;
 *   N-to-1: B_ref = the latest sender's b; the root (the receiver) waits if it began before;
 *   prefix (scan): B_ref of a receiver = the latest b of the senders of lower or equal order;
 *   intercommunicator (every class): the receivers wait for the latest sender of the other
 *     group, as in 1-to-N; no completion (the members do not all wait for one another).
 * m must be sorted by order for prefix instances.
 */
unsigned st_an_coll_waits(enum st_clc_coll_class cc, int barrier, int inter, const st_an_member_t *m, uint32_t n,
                          int64_t *wait, int64_t *completion);

#endif
