/*
 * relations.h — the happened-before relations of a trace ("logical messages"), derived
 * from recorded events, and the graph of them: what CLC must respect, what `synctrace
 * check` counts, what the wait-state analysis and `export` read. The public contract of
 * src/relations, one header per concern:
 *
 *   input.h      the trace as the relations see it: locations, processes, their times
 *   endpoints.h  the derivation of one process's logical sends and receives (endpoints)
 *   graph.h      the join of endpoints into instances, and the relations walked in it
 *   derived.h    a derivation kept for a second reader (CLC's, for the in-run analysis)
 *   locks.h      the order of passive-target lock epochs at their targets (needs every rank's)
 *
 * Two steps, so that the sequential reference and the parallel in-run version share
 * the derivation:
 *
 *  1. st_rel_endpoints() looks at ONE process (rank): its locations' events and its
 *     communicator table. For every logical send or receive it emits an endpoint: the
 *     local event, its role, and a key naming the logical message or collective
 *     instance. The key is computed from local information only, and both ends of a
 *     relation compute the same key (the k-th send of a point-to-point channel meets the
 *     k-th posted receive of that channel; a collective is (comm key, instance seq), a
 *     collective on an RMA window (comm key, window, its seq on the window);
 *     OpenMP relations never leave the process). One exception: the lock epochs'
 *     order at a target needs every origin's epochs, a table in the input (locks.h) that a
 *     parallel caller gathers before it derives.
 *  2. st_rel_graph_build() joins the endpoints of all processes by key into instances
 *     (a set S of sends and a set R of receives). The sequential reference does this
 *     over the whole trace; the parallel version joins only its own endpoints and
 *     learns the remote ends' clock values by exchange (the key says with whom:
 *     ST_REL_KEY_* in endpoints.h).
 * This is the one derivation of logical messages: CLC (in the run and `synctrace clc`),
 * `synctrace check` and the wait-state analysis all read the graph — instances with their
 * type, communicator key and sequence (key), their sends and receives as (location,
 * event) refs; the events themselves give op, root and bytes. st_rel_relations (graph.h)
 * walks it as (receive, latest send it depends on) pairs.
 *
 * Instance semantics (docs/clc.md):
 *  - PRODUCT: every receive r must satisfy LC(r) >= max{LC(s) : s in S, s not on r's
 *    location} + mu. Point-to-point messages are PRODUCT instances with |S| = |R| = 1.
 *  - PREFIX (MPI_Scan, MPI_Exscan): endpoints carry their communicator rank in `order`;
 *    the receive of order o depends on the sends of order < o.
 * mu of an instance = minimum over the mu classes of its cross-location pairs (mumask).
 *
 * Everything here is MPI-free, single-threaded per call, and owns what it allocates. The
 * module imports only src/model and src/util.
 */
#ifndef ST_RELATIONS_H
#define ST_RELATIONS_H

#include "input.h"
#include "endpoints.h"
#include "graph.h"
#include "derived.h"
#include "locks.h"

#endif
