/*
 * p2p_wire.h — the point-to-point messages of the parallel analysis (parallel.h) whose two
 * ends are analysed by different processes. Internal to src/analysis.
 *
 * Each end tells the other's process what its patterns need, keyed like the message's
 * endpoints (deps.h: tag, sender and receiver, communicator, k-th message of the channel):
 *   - a send, to the receiver's process: the enter of its call, its time and size (Late
 *     Sender, Wrong Order, the receive's counts);
 *   - a receive, to the sender's process: the enter of the call that posted it (Late Receiver).
 * No stand-in locations: the records are joined by key with this process's own ends (both
 * sides sorted by key — the derivation emits a rank's endpoints in key order, so they
 * usually are) into the compact messages of the pattern code (internal.h, an_msgs_t), the
 * same the serial analysis fills from the graph.
 */
#ifndef ST_AN_P2P_WIRE_H
#define ST_AN_P2P_WIRE_H

#include "../clc/exchange.h"
#include "internal.h"

/* Record types of the analysis's messages (parallel.c's collective members are type 1). */
enum { AN_REC_P2P_SEND = 0x10, AN_REC_P2P_RECV = 0x11 };

/* One local end of a message with a remote partner. */
typedef struct an_pw_end {
    uint64_t key[4];
    uint32_t loc;
    uint64_t ev;
} an_pw_end_t;

typedef struct an_pwire {
    an_pw_end_t *send, *recv; /* local ends */
    size_t       nsend, nrecv;
    uint64_t    *got_send;    /* arrived send records (AN_PW_SEND_WORDS each) */
    uint64_t    *got_recv;    /* arrived receive records (AN_PW_RECV_WORDS each) */
    size_t       ngot_send, ngot_recv, cap_send, cap_recv;
} an_pwire_t;

/*
 * Takes the point-to-point endpoints of ep whose partner's rank is owned by another process
 * (owner[rank], ranks [0, nranks); this one is me) out of ep (the rest keeps its order) and
 * writes one record per end into out (per destination: the sends' records, then the
 * receives'). c: the analysis context of this process's locations (an_begin done).
 * 0, or -1 (memory).
 */
int an_pwire_derive(an_pwire_t *w, const an_ctx_t *c, st_clc_epvec_t *ep, const int32_t *owner, int32_t nranks,
                    int32_t me, st_xchg_out_t *out);

/* A record that arrived (header h, payload rd): 1 taken, 0 not a point-to-point record,
 * -1 malformed or out of memory. */
int an_pwire_deliver(an_pwire_t *w, const st_xchg_rec_t *h, st_xchg_reader_t *rd);

/* Once everything arrived: the messages joined with the local ends, appended to c->msgs
 * (ends without a partner record are dropped, as the graph drops unmatched messages).
 * 0, or -1 (memory). */
int an_pwire_join(an_pwire_t *w, an_ctx_t *c);

void an_pwire_free(an_pwire_t *w);

#endif
