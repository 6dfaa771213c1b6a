/*
 * p2p_check.h — the point-to-point relations of one process checked on C, without CLC's graph.
 *
 * In a trace recorded on one clock, or on clocks the synchronization made consistent, no
 * receive is earlier than its send, and CLC moves nothing. Its graph of the point-to-point
 * messages (instances, refs, ports and the engine's state: about 90 bytes per end, at 10^6
 * events per rank most of CLC's memory, where at MPI_Finalize every new page is a fault) is
 * then not needed unless something else moves (ST_CLC_REPLAY_CHECK_FIRST, replay.h).
 *
 * The check reads the ends once, in the join's order (st_rel_endpoints_split). For each
 * partner rank it keeps the C of the sends to it and of the receives from it, by channel
 * (tag, communicator) in that order, which is the same on both sides. A partner gets the
 * sends (st_clc_p2pchk_payload) and compares them with its receives (st_clc_p2pchk_deliver):
 * the k-th send of a channel with its k-th receive, as the join matches them. Self messages
 * are compared while reading. Each relation is counted on the receive's side, as the engine
 * counts it (st_clc_stats_count_c); MPI-free, like the engine.
 */
#ifndef ST_CLC_P2P_CHECK_H
#define ST_CLC_P2P_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "clc.h"
#include "../relations/relations.h"

typedef struct st_clc_p2pchk st_clc_p2pchk_t;

/* Reads src (point-to-point endpoints of rank me, in the join's order) to its end and rewinds it.
 * 0; -1 when out of memory or src gives an endpoint of another key type or out of order. */
int st_clc_p2pchk_new(st_rel_epsrc_t *src, int32_t me, int32_t nranks, const st_clc_params_t *p,
                      st_clc_p2pchk_t **out);

/* The partner ranks: those this rank sends to or receives from (ascending). */
uint32_t st_clc_p2pchk_npeers(const st_clc_p2pchk_t *c);
int32_t st_clc_p2pchk_peer(const st_clc_p2pchk_t *c, uint32_t i);

/* What partner `to` gets: the C of this rank's sends to it, by channel (NULL, 0 when none). */
const void *st_clc_p2pchk_payload(const st_clc_p2pchk_t *c, int32_t to, size_t *len);

/* Partner from's payload against this rank's receives from it: 0, or -1 when malformed or a
 * second one from the same rank. */
int st_clc_p2pchk_deliver(st_clc_p2pchk_t *c, int32_t from, const void *buf, size_t len);

/* The receives of the relations found so far that are earlier than their send + mu. */
uint64_t st_clc_p2pchk_violated(const st_clc_p2pchk_t *c);

/* Once every partner that sends to this rank has delivered: the receives of partners that sent
 * nothing are unmatched. Adds the relations on C to on_c (reversed, violations, and remaining
 * as violations: nothing moved) and the unmatched ends to ds, once (later calls add nothing). */
void st_clc_p2pchk_finish(st_clc_p2pchk_t *c, st_clc_stats_t *on_c, st_rel_depstats_t *ds);

void st_clc_p2pchk_free(st_clc_p2pchk_t *c);

#endif
