/*
 * replay.h — the parallel CLC of one process, as a message-driven state machine.
 *
 * Each process (rank) corrects only its own locations. It derives the logical messages
 * of its own events (st_rel_endpoints), joins them into a partial graph, and learns the
 * remote ends' clock values from the processes involved, never from anyone else:
 *
 *  - point-to-point: after a one-time exchange of per-channel message counts with each
 *    partner (which messages have a matching end at all), the forward LC of every send
 *    goes to its receiver as soon as it is known; backward, the receiver returns the
 *    forward LC of its receives in one array; for the statistics the sender sends
 *    (C, final LC) of its sends in one array;
 *  - collectives (and MPI_Init / MPI_Finalize): per communicator a binomial tree over its
 *    members carries, per instance, a reduction of the two largest send values on
 *    distinct locations ("top-2", because a receive ignores sends on its own location);
 *    scans carry the (comm rank, value) list. Forward: one tree operation per instance,
 *    started when the rank's sends of that instance are known; backward and statistics:
 *    one tree operation per communicator covering all its instances;
 *  - OpenMP and MPI self messages never leave the process.
 * The forward pass: first up to N bulk rounds (st_clc_replay_set_rounds: every rank
 * computes all its events from the previous round's remote values, then all values are
 * exchanged at once, until no receive would move; the exchanges also carry the receives'
 * LC, so converged rounds need no backward or statistics exchange), else a dataflow
 * replay: each location runs (st_clc_forward_loc) until a receive whose remote values
 * have not arrived, and resumes when they do (a scan's receive needs only the ranks below
 * it: their prefix also comes along the comm ranks; a dependency cycle is found by waves
 * over all ranks and forced where st_clc_run() forces it). Either way the result equals the sequential reference st_clc_run()
 * on the whole trace (tests/unit/test_clc_replay.c checks this).
 *
 * Records, output buffers and trees are the exchange layer's (exchange.h, shared with the
 * parallel analysis). Transport-agnostic and MPI-free: the caller supplies a send function and feeds received
 * buffers to st_clc_replay_deliver(); src/clc/replay_mpi.c does this over MPI, the unit
 * test over in-memory queues. Messages are self-describing records, so any delivery
 * order that respects causality works (no FIFO assumption). Not thread-safe: one thread
 * drives one engine.
 *
 * Use:
 *   st_clc_replay_new(...)            derive, classify; rank-local, no messages
 *   st_clc_replay_partners(r, flags)  flags[q] = 1 for each rank q this one will contact
 *   st_clc_replay_start(r, n)         n = how many ranks flagged this one (a reduce-scatter)
 *   loop: st_clc_replay_progress(r); deliver what arrives; until ST_CLC_REPLAY_DONE
 *   st_clc_replay_stats(r, &s)        this rank's share (merge over ranks: st_clc_stats_merge)
 *   st_clc_replay_keep(r, &d)         optional: the derivation, for the analysis
 *   st_clc_replay_free(r)
 * Afterwards in->locs[].ev[].time hold LC and in->locs[].orig the original C (allocated
 * by the engine for the locations where something moved, NULL elsewhere; freed by the
 * caller, e.g. with st_rel_input_free).
 */
#ifndef ST_CLC_REPLAY_H
#define ST_CLC_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "clc.h"
#include "../exchange/exchange.h"

typedef struct st_clc_replay st_clc_replay_t;

/* The transport (exchange.h): what it sends arrives at st_clc_replay_deliver() of rank `to`. */
typedef st_xchg_net_t st_clc_replay_net_t;

enum { ST_CLC_REPLAY_FAILED = -1, ST_CLC_REPLAY_DONE = 0, ST_CLC_REPLAY_BUSY = 1, ST_CLC_REPLAY_IDLE = 2 };

/*
 * Creates the engine of rank `me` over `in`: in->locs are this rank's locations only;
 * in->procs[0 .. in->nranks) carries every rank's node id and this rank's comm table
 * (others may have none); in->sync the MPI_Init / MPI_Finalize regions. Sets
 * in->locs[].mono (orig stays NULL until something on the location moves). in and *p must
 * outlive the engine. self_ends (may be NULL): where the derivation's left-out OpenMP ends go
 * (st_rel_derive_opts_t), for st_clc_replay_keep. Returns 0, or -1 (out of memory,
 * or inconsistent input; one line logged).
 */
int st_clc_replay_new(const st_clc_params_t *p, st_rel_input_t *in, int32_t me, st_rel_self_ends_t *self_ends,
                      const st_clc_replay_net_t *net, unsigned flags, st_clc_replay_t **out);

/*
 * flags: ST_CLC_REPLAY_CHECK_FIRST — check first, for the usual trace that needs no correction.
 * The engine checks the rank's OpenMP relations on C as the derivation hands them out and, when
 * none is violated and no location's C decreases, leaves them out of its graph (in a hybrid
 * trace they are most of the graph's memory and time): st_clc_replay_omp_left_out(). Nothing
 * can then move but through an MPI relation; if one would (bulk round 0, with rounds on), the
 * run must start again with the OpenMP relations in: every rank must know whether any rank left
 * them out (a reduction before the start) and, if so, call st_clc_replay_restart_if_moving()
 * before st_clc_replay_start(); the run then ends DONE at round 0 when anything anywhere would
 * move, with st_clc_replay_restart() true, having changed nothing, and every rank makes a new
 * engine with them in: st_clc_replay_again. Without bulk rounds the flag must not be used.
 *
 * The point-to-point relations, when no location's C decreases, stay out of the graph too
 * (st_clc_replay_p2p_left_out()): at the setup every partner gets the C of the rank's sends to
 * it (p2p_check.h) and a violated receive counts as a move at round 0. Partners must agree:
 * before the start, when not every rank left them out, those that did make their engine
 * again (st_clc_replay_again) before st_clc_replay_partners; and a rank that left them out
 * calls st_clc_replay_restart_if_moving() like one that left OpenMP relations out.
 * The protocol, step by step: src/clc/replay_restart.c.
 */
#define ST_CLC_REPLAY_CHECK_FIRST 0x1u
int st_clc_replay_omp_left_out(const st_clc_replay_t *r);
int st_clc_replay_p2p_left_out(const st_clc_replay_t *r);
void st_clc_replay_restart_if_moving(st_clc_replay_t *r);
int st_clc_replay_restart(const st_clc_replay_t *r);

/* After a run that ended for a restart (or before a start, see above): the engine anew, with the
 * OpenMP and point-to-point relations in its graph,
 * made from what old derived (no second sweep over the events), net for its messages, ready for
 * st_clc_replay_partners and _start (rounds and st_clc_replay_on_moved set again). Frees old.
 * 0, or -1 (out of memory; one line logged). */
int st_clc_replay_again(st_clc_replay_t *old, const st_clc_replay_net_t *net, st_clc_replay_t **out);

/*
 * Bulk rounds before the message-by-message replay (default 0: replay only): each round
 * every rank runs its whole forward pass from the previous round's remote send values and
 * exchanges all of them at once; when no send changes, the result is final (and equals the
 * replay's). After `rounds` rounds without convergence the replay runs. Call before the run.
 */
void st_clc_replay_set_rounds(st_clc_replay_t *r, int rounds);
/* After DONE: rounds until convergence, or -(rounds tried) when the replay was needed, 0: replay only. */
int st_clc_replay_rounds(const st_clc_replay_t *r);

/* Calls moved(ctx, e, C) for every event the correction moved, when it finishes (in the
 * pass that flags them ST_EVF_CLC_MOVED). Optional; call before the run. */
void st_clc_replay_on_moved(st_clc_replay_t *r, st_clc_moved_fn moved, void *ctx);

/* Sets flags[q] = 1 for every rank q (of in->nranks) this rank will send its
 * point-to-point message counts to; leaves the others untouched. */
void st_clc_replay_partners(const st_clc_replay_t *r, uint8_t *flags);

/* Starts the exchange; incoming = number of ranks whose flags name this one. */
int st_clc_replay_start(st_clc_replay_t *r, uint32_t incoming);

/* Hands over a buffer another rank sent (the engine copies what it keeps). Returns 0,
 * or -1 for a malformed buffer (the engine is then failed). */
int st_clc_replay_deliver(st_clc_replay_t *r, int32_t from, const void *buf, size_t len);

/* Does the local work that is possible now and sends what it produced. Returns
 * ST_CLC_REPLAY_DONE (this rank's part is complete: nothing more to send or to wait
 * for), _BUSY (made progress; call again), _IDLE (waits for messages) or _FAILED. */
int st_clc_replay_progress(st_clc_replay_t *r);

/* One line naming what the engine waits for (diagnostics of a stalled run). */
void st_clc_replay_waiting(const st_clc_replay_t *r, char *buf, size_t n);

/* This rank's statistics (valid after DONE): violations counted at the receiving
 * rank, moved events and deviations of its own locations. */
void st_clc_replay_stats(const st_clc_replay_t *r, st_clc_stats_t *s);

/* Hands the derivation over (after DONE; relations/relations.h, st_rel_derived_t): d->g takes the graph's
 * instances and refs, which the engine then no longer has, d->omp the OpenMP ends it left out
 * (ST_CLC_REPLAY_CHECK_FIRST). The self_ends given to st_clc_replay_new, when not NULL,
 * hold the rest. */
void st_clc_replay_keep(st_clc_replay_t *r, st_rel_derived_t *d);

void st_clc_replay_free(st_clc_replay_t *r);

#endif
