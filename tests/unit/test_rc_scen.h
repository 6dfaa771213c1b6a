/*
 * test_rc_scen.h — the root-cause unit tests' timelines (test_rc_lib.h's builder): the hand-computed
 * scenarios of test_rootcause.c and the random SPMD programs of test_rootcause_random.c, shared with
 * test_rc_dist.c (the distributed replay against st_rc_run on each of them). Header-only; no MPI.
 */
#ifndef TEST_RC_SCEN_H
#define TEST_RC_SCEN_H

#include "test_rc_lib.h"

/* ---- scenarios ------------------------------------------------------------------------------------ */

/* (a) location 1 computes 300 more in solve, then sends to location 0, which waits 300 in MPI_Recv. */
static inline void scen_late_sender(void)
{
    mpi_init(2, 1430);
    tl_seg(0, C_SOLVE, 1000);
    tl_call(0, 1010, 1315, C_RECV, 0), tl_wait(0, ST_AN_M_LATESENDER, 300), tl_recv(0, 1, 0, 0);
    tl_seg(0, C_MAIN, 100);
    mpi_finalize(0, 1415, 1430, 5);
    tl_seg(1, C_SOLVE, 1300);
    tl_call(1, 1310, 1320, C_SEND, 0), tl_send(1, 1, 0, 0);
    tl_seg(1, C_MAIN, 100);
    mpi_finalize(1, 1420, 1430, 0);
    tl_end();
}

/* (b) location 2 computes 300 more in solve and sends to 1, which waits 300 and then (at once) sends
 * to 0, which waits 300 too: for it 1 was late only because it waited. */
static inline void scen_chain(void)
{
    mpi_init(3, 1430);
    tl_seg(2, C_SOLVE, 1300);
    tl_call(2, 1310, 1320, C_SEND, 0), tl_send(2, 2, 1, 0);
    tl_seg(2, C_MAIN, 100);
    mpi_finalize(2, 1420, 1430, 0);
    tl_seg(1, C_SOLVE, 1000);
    tl_call(1, 1010, 1310, C_RECV, 0), tl_wait(1, ST_AN_M_LATESENDER, 300), tl_recv(1, 2, 1, 0);
    tl_call(1, 1310, 1320, C_SEND, 0), tl_send(1, 1, 0, 0);
    tl_seg(1, C_MAIN, 100);
    mpi_finalize(1, 1420, 1430, 0);
    tl_seg(0, C_SOLVE, 1000);
    tl_call(0, 1010, 1315, C_RECV, 0), tl_wait(0, ST_AN_M_LATESENDER, 300), tl_recv(0, 1, 0, 0);
    tl_seg(0, C_MAIN, 100);
    mpi_finalize(0, 1415, 1430, 5);
    tl_end();
}

/* (b') the chain with a partial scale: 1 also computes 100 in serial after its wait (S = 100, W_D =
 * 300), 0 computes 200 in work before receiving and waits 200: scale = 200 / 400. */
static inline void scen_chain_partial(void)
{
    mpi_init(3, 1530);
    tl_seg(2, C_SOLVE, 1300);
    tl_call(2, 1310, 1320, C_SEND, 0), tl_send(2, 2, 1, 0);
    tl_seg(2, C_MAIN, 200);
    mpi_finalize(2, 1520, 1530, 0);
    tl_seg(1, C_SOLVE, 1000);
    tl_call(1, 1010, 1310, C_RECV, 0), tl_wait(1, ST_AN_M_LATESENDER, 300), tl_recv(1, 2, 1, 0);
    tl_seg(1, C_SERIAL, 100);
    tl_call(1, 1410, 1420, C_SEND, 0), tl_send(1, 1, 0, 0);
    tl_seg(1, C_MAIN, 100);
    mpi_finalize(1, 1520, 1530, 0);
    tl_seg(0, C_SOLVE, 1000), tl_seg(0, C_WORK, 200);
    tl_call(0, 1210, 1415, C_RECV, 0), tl_wait(0, ST_AN_M_LATESENDER, 200), tl_recv(0, 1, 0, 0);
    tl_seg(0, C_MAIN, 105);
    mpi_finalize(0, 1520, 1530, 0);
    tl_end();
}

/* (c) a barrier of 3: all work 100; 1 then solves 150, 2 (the last to arrive) 200. */
static inline void scen_barrier(int tie)
{
    mpi_init(3, 325);
    static const uint64_t solve[3] = { 0, 150, 200 };
    for (uint32_t l = 0; l < 3; l++) {
        uint64_t s = tie && l == 1 ? 200 : solve[l], enter = 110 + s;
        tl_seg(l, C_WORK, 100);
        if (s)
            tl_seg(l, C_SOLVE, s);
        tl_call(l, enter, 315, C_BARRIER, 0);
        if (enter < 310)
            tl_wait(l, ST_AN_M_BARRIER_WAIT, (double)(310 - enter));
        tl_rel(l, ST_REL_KEY_COLL, 1, 7, ST_RC_SENDS | ST_RC_RECEIVES);
        mpi_finalize(l, 315, 325, 0);
    }
    tl_end();
}

/* (d) MPI_Bcast from root 0, which solves 200 more than 1 and 2; with reduce: then MPI_Reduce to 0,
 * which arrives first while 1 works 50 and 2 works 80 more. */
static inline void scen_rooted(int reduce)
{
    mpi_init(3, reduce ? 420 : 325);
    for (uint32_t l = 0; l < 3; l++) {
        tl_seg(l, C_WORK, 100);
        if (l == 0)
            tl_seg(l, C_SOLVE, 200);
        tl_call(l, l ? 110 : 310, 315, C_BCAST, 0);
        if (l)
            tl_wait(l, ST_AN_M_LATEBROADCAST, 200);
        tl_rel(l, ST_REL_KEY_COLL, 1, 7, l ? ST_RC_RECEIVES : ST_RC_SENDS | ST_RC_ROOT);
        if (reduce) {
            uint64_t w = l == 1 ? 50 : l == 2 ? 80 : 0;
            if (w)
                tl_seg(l, C_WORK, w);
            tl_call(l, 315 + w, 410, C_REDUCE, 0);
            if (!l)
                tl_wait(l, ST_AN_M_EARLYREDUCE, 80);
            tl_rel(l, ST_REL_KEY_COLL, 2, 7, l ? ST_RC_SENDS : ST_RC_RECEIVES | ST_RC_ROOT);
        }
        mpi_finalize(l, reduce ? 410 : 315, reduce ? 420 : 325, 0);
    }
    tl_end();
}

/* (e) OpenMP: the master (thread 0) runs serial 60 and main 40 before the fork at 100; the worker
 * (thread 1) idles until then; in the region the master works 100, the worker 150 before the implicit
 * barrier; after the join the master runs main 50 (the worker idles as its Time). */
static inline void scen_omp(void)
{
    tl_reset(2);
    tl_loc(0, 0, 300), tl_loc(1, 0, 300);
    tl_seg(0, C_SERIAL, 60), tl_seg(0, C_MAIN, 40);
    tl_call(0, 100, 100, C_MAIN, 0), tl_rel(0, ST_REL_KEY_OMP_FORK, 1, 0, ST_RC_SENDS);
    tl_seg(0, C_PAR, 100);
    tl_call(0, 200, 250, C_IBAR, 0), tl_wait(0, ST_AN_M_OMP_IBARRIER_WAIT, 50);
    tl_rel(0, ST_REL_KEY_OMP_BARRIER, 1, 0, ST_RC_SENDS | ST_RC_RECEIVES);
    tl_seg(0, C_MAIN, 50);
    tl_call(1, 0, 100, C_MAIN, ST_RC_IDLE), tl_wait(1, ST_AN_M_OMP_IDLE, 100);
    tl_rel(1, ST_REL_KEY_OMP_FORK, 1, 0, ST_RC_RECEIVES);
    tl_seg(1, C_PAR, 150);
    tl_call(1, 250, 250, C_IBAR, 0), tl_rel(1, ST_REL_KEY_OMP_BARRIER, 1, 0, ST_RC_SENDS | ST_RC_RECEIVES);
    tl_seg(1, C_MAIN, 50);
    tl_end();
}

/* (g) no waits: 0 works 300 and finalizes [300, 500], 1 (first event 20) works 380 and finalizes
 * later, [400, 480]. */
static inline void scen_no_waits(void)
{
    tl_reset(2);
    tl_loc(0, 0, 500), tl_loc(1, 20, 480);
    tl_seg(0, C_WORK, 300);
    mpi_finalize(0, 300, 500, 0);
    tl_seg(1, C_WORK, 380);
    mpi_finalize(1, 400, 480, 0);
    tl_end();
}

/* (h) a Late Sender of 50 with nothing to charge: the sender left MPI_Init 50 later and computed
 * as long as the receiver (S = 0, W_D = 0). */
static inline void scen_nothing_to_charge(void)
{
    tl_reset(2);
    for (uint32_t l = 0; l < 2; l++) {
        tl_loc(l, 0, 200);
        tl_call(l, 0, l ? 60 : 10, C_INIT, ST_RC_INIT);
        tl_rel(l, ST_REL_KEY_SYNC, 0, 0, ST_RC_SENDS | ST_RC_RECEIVES);
        tl_seg(l, C_SOLVE, 100);
    }
    tl_call(0, 110, 165, C_RECV, 0), tl_wait(0, ST_AN_M_LATESENDER, 50), tl_recv(0, 1, 0, 0);
    tl_seg(0, C_MAIN, 25);
    mpi_finalize(0, 190, 200, 0);
    tl_call(1, 160, 170, C_SEND, 0), tl_send(1, 1, 0, 0);
    tl_seg(1, C_MAIN, 20);
    mpi_finalize(1, 190, 200, 0);
    tl_end();
}

/* (i) two partitions: locations 0 and 1 solve (300 and 400), 2 and 3 work 200 each (they never solve),
 * then all meet at a barrier (the last, 1, arrives at 410) and finalize together. */
static inline void scen_partitions(void)
{
    mpi_init(4, 425);
    static const uint64_t busy[4] = { 300, 400, 200, 200 };
    for (uint32_t l = 0; l < 4; l++) {
        tl_seg(l, l < 2 ? C_SOLVE : C_WORK, busy[l]);
        tl_call(l, 10 + busy[l], 415, C_BARRIER, 0);
        if (l != 1)
            tl_wait(l, ST_AN_M_BARRIER_WAIT, (double)(400 - busy[l]));
        tl_rel(l, ST_REL_KEY_COLL, 1, 7, ST_RC_SENDS | ST_RC_RECEIVES);
        mpi_finalize(l, 415, 425, 0);
    }
    tl_end();
}

/* A Late Sender at a call that also is in a collective: the message's sender delays it (relations of the
 * wait's kind first). */
static inline void scen_mixed_relations(void)
{
    mpi_init(3, 380);
    tl_seg(0, C_SOLVE, 100);
    tl_call(0, 110, 320, C_RECV, 0), tl_wait(0, ST_AN_M_LATESENDER, 200), tl_recv(0, 1, 0, 0);
    tl_rel(0, ST_REL_KEY_COLL, 9, 3, ST_RC_SENDS | ST_RC_RECEIVES);
    tl_seg(0, C_MAIN, 50);
    tl_seg(1, C_SOLVE, 300);
    tl_call(1, 310, 312, C_SEND, 0), tl_send(1, 1, 0, 0);
    tl_seg(1, C_MAIN, 58);
    tl_seg(2, C_WORK, 350);
    tl_call(2, 360, 362, C_BARRIER, 0), tl_rel(2, ST_REL_KEY_COLL, 9, 3, ST_RC_SENDS | ST_RC_RECEIVES);
    tl_seg(2, C_MAIN, 8);
    for (uint32_t l = 0; l < 3; l++)
        mpi_finalize(l, 370, 380, 0);
    tl_end();
}

/* MPI_Sendrecv: a call that both sends and receives. */
static inline void scen_sendrecv(void)
{
    mpi_init(2, 430);
    tl_seg(0, C_SOLVE, 100);
    tl_call(0, 110, 112, C_SEND, 0), tl_send(0, 0, 1, 0);
    tl_seg(0, C_SOLVE, 50);
    tl_call(0, 162, 412, C_RECV, 0), tl_wait(0, ST_AN_M_LATESENDER, 248), tl_recv(0, 1, 0, 0);
    tl_seg(0, C_MAIN, 8);
    tl_seg(1, C_SOLVE, 400);
    tl_call(1, 410, 415, C_SEND, 0), tl_recv(1, 0, 1, 0), tl_send(1, 1, 0, 0);
    tl_seg(1, C_MAIN, 5);
    mpi_finalize(0, 420, 430, 0), mpi_finalize(1, 420, 430, 0);
    tl_end();
}

/* Two receives waiting for each other's sends at the same moment (the critical path must not go round in
 * circles). */
static inline void scen_cycle(void)
{
    tl_reset(2);
    tl_loc(0, 0, 30), tl_loc(1, 0, 30);
    tl_seg(0, C_MAIN, 10);
    tl_call(0, 10, 20, C_RECV, 0), tl_wait(0, ST_AN_M_LATESENDER, 10), tl_recv(0, 1, 0, 0);
    tl_call(0, 20, 20, C_SEND, 0), tl_send(0, 0, 1, 0);
    mpi_finalize(0, 20, 30, 0);
    tl_seg(1, C_MAIN, 5);
    tl_call(1, 5, 20, C_RECV, 0), tl_wait(1, ST_AN_M_LATESENDER, 15), tl_recv(1, 0, 1, 0);
    tl_call(1, 20, 20, C_SEND, 0), tl_send(1, 1, 0, 0);
    mpi_finalize(1, 20, 30, 0);
    tl_end();
}

/* ---- random timelines ------------------------------------------------------------------------------ */

static uint64_t rng = 1;
static inline uint64_t rnd(uint64_t n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (rng >> 33) % n;
}

static uint32_t RN;         /* locations of the random program */
static uint64_t rseed;
static uint64_t now[MAXL];

static inline void compute(uint32_t l)
{
    static const int cn[] = { C_MAIN, C_SOLVE, C_WORK, C_SERIAL };
    for (uint64_t k = rnd(3); k > 0; k--) {
        uint64_t t = rnd(8) ? rnd(40) : 200 + rnd(400);
        tl_seg(l, cn[rnd(4)], t);
        now[l] += t;
    }
}

/* An SPMD program on RN locations: iterations of computation, then a ring exchange (eager sends,
 * then receives), a synchronous exchange of pairs (Late Receiver / Late Sender), a barrier or a
 * broadcast; MPI_Init and MPI_Finalize around. */
static inline void scen_random(void)
{
    rng = rseed;
    tl_reset(RN);
    for (uint32_t l = 0; l < RN; l++) {
        tl_loc(l, 0, 0);
        tl_call(l, 0, 10, C_INIT, ST_RC_INIT);
        tl_rel(l, ST_REL_KEY_SYNC, 0, 0, ST_RC_SENDS | ST_RC_RECEIVES);
        now[l] = 10;
    }
    uint64_t send[MAXL];
    for (uint64_t it = 0, seq = 1; it < 40; it++) {
        for (uint32_t l = 0; l < RN; l++)
            compute(l);
        switch (rnd(4)) {
        case 0: /* ring: l sends to l + 1, then receives from l - 1 */
            for (uint32_t l = 0; l < RN; l++) {
                send[l] = now[l];
                tl_call(l, now[l], now[l] + 2, C_SEND, 0), tl_send(l, l, (l + 1) % RN, it);
                now[l] += 2;
                compute(l);
            }
            for (uint32_t l = 0; l < RN; l++) {
                uint32_t from = (l + RN - 1) % RN;
                uint64_t s = send[from], e = now[l], leave = (s > e ? s : e) + 1 + rnd(3);
                tl_call(l, e, leave, C_RECV, 0);
                if (s > e)
                    tl_wait(l, ST_AN_M_LATESENDER, (double)(s - e));
                tl_recv(l, from, l, it);
                now[l] = leave;
            }
            break;
        case 1: /* pairs (2k, 2k + 1): a synchronous send to the odd one */
            for (uint32_t l = 0; l + 1 < RN; l += 2) {
                uint64_t s = now[l], r = now[l + 1], m = s > r ? s : r;
                tl_call(l, s, m + 2, C_SEND, 0);
                if (r > s)
                    tl_wait(l, ST_AN_M_LATERECEIVER, (double)(r - s));
                tl_send(l, l, l + 1, it);
                tl_call(l + 1, r, m + 3, C_RECV, 0);
                if (s > r)
                    tl_wait(l + 1, ST_AN_M_LATESENDER, (double)(s - r));
                tl_recv(l + 1, l, l + 1, it);
                now[l] = m + 2, now[l + 1] = m + 3;
            }
            break;
        case 2: /* barrier */
        case 3: { /* broadcast from a random root */
            int bar = rnd(2) == 0;
            uint32_t root = (uint32_t)rnd(RN);
            uint64_t last = 0, enter[MAXL];
            for (uint32_t l = 0; l < RN; l++)
                last = now[l] > last ? now[l] : last, enter[l] = now[l];
            for (uint32_t l = 0; l < RN; l++) {
                uint64_t until = bar ? last : enter[root] > now[l] ? enter[root] : now[l];
                uint64_t leave = (bar ? last : until) + 1 + rnd(4);
                tl_call(l, now[l], leave, bar ? C_BARRIER : C_BCAST, 0);
                if (until > now[l])
                    tl_wait(l, bar ? ST_AN_M_BARRIER_WAIT : ST_AN_M_LATEBROADCAST, (double)(until - now[l]));
                tl_rel(l, ST_REL_KEY_COLL, seq, 3,
                       bar ? ST_RC_SENDS | ST_RC_RECEIVES : l == root ? ST_RC_SENDS | ST_RC_ROOT : ST_RC_RECEIVES);
                now[l] = leave;
            }
            seq++;
            break;
        }
        }
    }
    uint64_t last = 0;
    for (uint32_t l = 0; l < RN; l++) {
        compute(l);
        last = now[l] > last ? now[l] : last;
    }
    for (uint32_t l = 0; l < RN; l++) {
        mpi_finalize(l, now[l], last + 5, (double)(last - now[l]));
        L[l].last = last + 5;
    }
    tl_end();
}

#endif
