/*
 * p2p_wire.h — the point-to-point messages of the parallel analysis (parallel.h) whose two
 * ends are analysed by different processes. Internal to src/analysis.
 *
 * Each end tells the other's process what its patterns need:
 *   - a send, to the receiver's process: the enter of its call, its time and size (Late
 *     Sender, Wrong Order, the receive's counts);
 *   - a receive, to the sender's process: the enter of the call that posted it (Late Receiver).
 * An RMA complete -> wait (relations: ST_REL_KEY_RMA_PSCW, one origin and one target) travels the
 * same way: its send (the origin's MPI_Win_complete) brings the call's enter and, in place of a
 * size, the return of the epoch's last RMA operation to the target (Early Wait, Late Complete:
 * rma_pscw.c); it arrives in c->msgs.pscw, and its receive sends nothing the origin uses.
 * A message is named like its endpoints (relations/relations.h: channel = tag, sender and receiver,
 * communicator; k = its number in the channel). The derivation emits a rank's endpoints in
 * key order and numbers a channel's messages 0, 1, ..., so the ends of one channel are a
 * run of consecutive k: the records travel as runs (the channel and first k once, then only
 * the values), a third of keyed records, and the receiving side joins runs with runs of its
 * own ends, without comparing keys per message. No stand-in locations: the result is the
 * compact messages of the pattern code (internal.h, an_msgs_t), the ones the serial
 * analysis fills from the graph.
 */
#ifndef ST_AN_P2P_WIRE_H
#define ST_AN_P2P_WIRE_H

#include "../exchange/exchange.h"
#include "internal.h"

/* Record types of the analysis's messages (the collective trees' are coll_reduce.h's AN_CRED_R_*). */
enum { AN_REC_P2P_SEND = 0x10, AN_REC_P2P_RECV = 0x11 };

/* A run of messages of one channel, k0 .. k0 + n - 1: local ends (at[]: ends[at .. at + n))
 * or values that arrived (at: offset of the first message's values in got_send / got_recv). */
typedef struct an_pw_run {
    uint64_t chan[3]; /* key[0 .. 2] */
    uint64_t k0, n;
    size_t   at;
} an_pw_run_t;

/* A local end: its location and event. */
typedef struct an_pw_end {
    uint32_t loc;
    uint64_t ev;
} an_pw_end_t;

typedef struct an_pw_runs {
    an_pw_run_t *v;
    size_t       n, cap;
} an_pw_runs_t;

typedef struct an_pwire {
    an_pw_end_t *send, *recv;       /* local ends with a remote partner, in the runs' order */
    size_t       nsend, nrecv;
    an_pw_runs_t lsend, lrecv;      /* their runs */
    an_pw_runs_t rsend, rrecv;      /* runs that arrived: remote sends (for our receives), receives */
    uint64_t    *got_send, *got_recv; /* their values */
    size_t       ngot_send, ngot_recv, cap_send, cap_recv;
    /* while the ends are taken (an_pwire_begin .. an_pwire_write) */
    struct an_pw_dest *dest;        /* per process: its records' sizes and current runs */
    const int32_t     *owner;
    int32_t            nranks, me, nprocs;
    size_t             most;        /* room in send and recv */
} an_pwire_t;

/*
 * Takes the point-to-point endpoints of ep whose partner's rank is owned by another process
 * (owner[rank], ranks [0, nranks); this one is me) out of ep (the rest keeps its order) and
 * opens their records in out (per destination: one record of sends, one of receives), to be
 * filled by an_pwire_write. 0, or -1 (memory).
 */
int an_pwire_derive(an_pwire_t *w, st_rel_epvec_t *ep, const int32_t *owner, int32_t nranks, int32_t me,
                    st_xchg_out_t *out);

/* The same in steps, for endpoints that come in parts (CLC's derivation, st_rel_derived_read):
 * an_pwire_begin (most: at most that many ends of each role will be taken; nprocs: out's
 * processes); an_pwire_take for every part in order, which copies the endpoints that stay to
 * rest (*nrest of them; rest may be ep); an_pwire_open. 0, or -1 (memory, more than most). */
int an_pwire_begin(an_pwire_t *w, const int32_t *owner, int32_t nranks, int32_t me, int32_t nprocs, size_t most);
int an_pwire_take(an_pwire_t *w, const st_rel_endpoint_t *ep, size_t n, st_rel_endpoint_t *rest, size_t *nrest);
int an_pwire_open(an_pwire_t *w, st_xchg_out_t *out);

/* Then, c being the analysis context of this process's locations (an_begin done; the endpoints
 * need not be kept until then): the values of the taken ends into their records. */
void an_pwire_write(an_pwire_t *w, const an_ctx_t *c, st_xchg_out_t *out);

/* A record that arrived (header h, payload rd): 1 taken, 0 not a point-to-point record,
 * -1 malformed or out of memory. */
int an_pwire_deliver(an_pwire_t *w, const st_xchg_rec_t *h, st_xchg_reader_t *rd);

/* Once everything arrived: the messages joined with the local ends, appended to c->msgs
 * (ends without a partner's values are dropped, as the graph drops unmatched messages).
 * 0, or -1 (memory). */
int an_pwire_join(an_pwire_t *w, an_ctx_t *c);

/* After an_pwire_join: fn(ctx, role (ST_REL_SEND / ST_REL_RECV), the message's key, the local end) for
 * every local end the join matched with a partner's values (the root-cause timeline's relations).
 * 0, or -1 (fn's -1). */
int an_pwire_joined(const an_pwire_t *w, int (*fn)(void *ctx, int role, const uint64_t *key, const an_pw_end_t *end),
                    void *ctx);

void an_pwire_free(an_pwire_t *w);

#endif
