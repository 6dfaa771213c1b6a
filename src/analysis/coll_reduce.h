/*
 * coll_reduce.h — the collective instances (and MPI_Init / MPI_Finalize) of one process of a
 * parallel analysis (parallel.c), reduced over their communicators' binomial trees: the
 * exchange layer's trees (src/exchange/exchange.h) built over the processes owning a
 * communicator's members, as CLC's replay builds them over ranks. MPI-free.
 *
 * One channel per communicator of the process's ranks (key: the communicator's), plus one
 * over every process for MPI_Init / MPI_Finalize. Per channel and round, one record per tree
 * edge carries every instance of the channel the subtree knows, in key order: its partial
 * reduction (patterns.h st_an_cred_t: latest begin, earliest end, latest sender; for scans
 * the senders' staircase; for fences the latest operation to each target), the smallest (rank, thread) of its members (the process holding it
 * counts the instance's statistics), and flags (a member cannot be analysed; the partial
 * N x N rule may apply). Up the tree the partials merge; the root's result goes down to
 * every node. A second round (up and down) reduces the earliest end of the partial N x N
 * rule's members once the latest sender is known, only in channels where an instance needs
 * it. A process then evaluates its own members against the reductions (coll.c, icoll.c),
 * with the pattern code of the serial analysis.
 *
 * Records: types AN_CRED_R_UP and AN_CRED_R_DOWN (the point-to-point types of the analysis's
 * messages are p2p_wire.h's), phase = round (1, 2), chkind = channel kind, chan = its key,
 * seq = number of instances; per instance 14 words (key[4], mingid, flags, bmax, emin, sb,
 * sk[3], emin2, nst) and nst staircase entries of 4 words.
 * Not thread-safe: one thread drives one engine.
 */
#ifndef ST_AN_COLL_REDUCE_H
#define ST_AN_COLL_REDUCE_H

#include "../exchange/exchange.h"
#include "internal.h"

enum { AN_CRED_R_UP = 2, AN_CRED_R_DOWN = 3 };

typedef struct an_creduce an_creduce_t;

/* The channels of process me (of nprocs) whose ranks' locations are in->locs (owner[rank]:
 * the process owning archive rank `rank`). 0, or -1 (memory). */
int an_creduce_new(const st_rel_input_t *in, const int32_t *owner, int32_t me, int32_t nprocs, an_creduce_t **out);
/* The process's collective instances from its endpoints ep[0..n) (others skipped), c: the
 * calls of its locations (an_scan_loc). 0, or -1 (memory). */
int an_creduce_local(an_creduce_t *x, an_ctx_t *c, const st_rel_endpoint_t *ep, size_t n);
/* Sends what can be sent (leaves' first round; channels of this process alone complete). */
int an_creduce_start(an_creduce_t *x, st_xchg_out_t *out);
/* One AN_CRED_R_* record. 0, or -1 (malformed or out of memory). */
int an_creduce_record(an_creduce_t *x, const st_xchg_rec_t *h, st_xchg_reader_t *rd, st_xchg_out_t *out);
/* Whether every channel has its result; then the instances with their reductions. */
int an_creduce_done(const an_creduce_t *x);
const an_ctab_t *an_creduce_table(an_creduce_t *x);
/* Channels still waiting, for a progress line. */
uint32_t an_creduce_open(const an_creduce_t *x);
void an_creduce_free(an_creduce_t *x);

#endif
