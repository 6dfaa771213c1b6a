/*
 * parallel.h — the wait-state analysis of one process of a parallel run (in the shim at
 * MPI_Finalize, or `mpiexec -n N synctrace analyze`), as a message-driven engine over the
 * exchange layer (src/exchange/exchange.h). MPI-free; parallel_mpi.h drives it over MPI.
 *
 * Each process analyses the locations of the ranks it owns (in the run: its own). It derives
 * their logical messages (relations/relations.h, the derivation CLC uses), scans their calls once (the call
 * tree, time), and sends each partner only what the patterns need of its ends:
 *   - a point-to-point send: its call's enter, the send event's time and size, to the
 *     receiver's owner (Late Sender, Wrong Order, counts); a receive: the enter of the call
 *     that posted it, to the sender's owner (Late Receiver) — p2p_wire.h, in the first message
 *     to each partner; joined by key with the local ends into the compact messages the
 *     pattern code reads;
 *   - collective instances (and MPI_Init / MPI_Finalize) are not sent to anybody: they are
 *     reduced over their communicator's binomial tree (coll_reduce.h: latest begin, earliest
 *     end, latest sender, ..., one record per tree edge and round for all of a communicator's
 *     instances), and each process evaluates its own members against the result;
 *   - OpenMP relations stay inside the process.
 * No stand-in locations: the graph (OpenMP, point-to-point messages with both ends here) is
 * joined from the local endpoints alone. The same pattern code as the serial analysis
 * (internal.h: an_begin .. an_finish) then evaluates the local locations. The local part of
 * the report (severity per metric x call path x location, worst instances, statistics) is
 * packed for the collector, which merges the parts in process order, unifying the call-tree
 * nodes by path: the result equals st_an_run() on the whole trace, value for value
 * (tests/analysis/t_analyze_inrun.sh and unit/test_analysis check it).
 *
 * Use: st_an_par_new, st_an_par_partners (flags: point-to-point partners), st_an_par_start
 * (incoming = how many processes flagged this one), then st_an_par_progress / deliver until ST_AN_PAR_DONE;
 * with the root causes: the call trees (st_an_par_tree) unified at one process (st_an_par_unify), the
 * distributed replay (st_an_par_rc_begin .. _end); st_an_par_pack, and at the collector st_an_par_merge over
 * every process's pack.
 * Not thread-safe: one thread drives one engine.
 */
#ifndef ST_AN_PARALLEL_H
#define ST_AN_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "../exchange/exchange.h"
#include "analysis.h"

typedef struct st_an_par st_an_par_t;

enum { ST_AN_PAR_FAILED = -1, ST_AN_PAR_DONE = 0, ST_AN_PAR_BUSY = 1, ST_AN_PAR_IDLE = 2 };

/*
 * The engine of process `me` of nprocs: in->locs are the locations of the ranks it owns,
 * in rank and thread order; in->procs[0 .. in->nranks) carries their comm tables (others
 * may have none); in->sync the MPI_Init / MPI_Finalize regions. owner[rank] is the process
 * that analyses archive rank `rank` (a non-decreasing map: the parts merge in rank order).
 * in and owner must outlive the engine. derived (may be NULL): the endpoints of in's locations,
 * derived already (by CLC in the run); taken and emptied instead of deriving them.
 * Returns 0, or -1 (out of memory; one line logged).
 */
int st_an_par_new(const st_rel_input_t *in, st_rel_derived_t *derived, const int32_t *owner, int32_t me,
                  int32_t nprocs, const st_xchg_net_t *net, st_an_par_t **out);

/* Sets flags[q] = 1 for every process q (of nprocs) this one sends to. */
void st_an_par_partners(const st_an_par_t *p, uint8_t *flags);
/* Sends; incoming = the number of processes whose flags name this one. 0, or -1. */
int st_an_par_start(st_an_par_t *p, uint32_t incoming);
/* A message from process `from`. 0, or -1 (malformed: the engine fails). */
int st_an_par_deliver(st_an_par_t *p, int32_t from, const void *buf, size_t len);
/* Analyses once everything arrived: ST_AN_PAR_DONE, _IDLE (waits for messages) or _FAILED. */
int st_an_par_progress(st_an_par_t *p);
/* One line naming what the engine waits for. */
void st_an_par_waiting(const st_an_par_t *p, char *buf, size_t n);
/* After DONE: this process's part of the report (malloc'd into *buf); with the distributed root causes
 * (st_an_par_rc_end) their part goes into it, else its root-cause timeline, if any (freed here: once).
 * 0, or -1 (memory). */
int st_an_par_pack(st_an_par_t *p, void **buf, size_t *len);
/* After DONE: this process's call tree (a part's header, locations, names and cnodes: malloc'd into *buf),
 * for st_an_par_unify. 0, or -1 (memory). */
int st_an_par_tree(const st_an_par_t *p, void **buf, size_t *len);
/* The call trees of processes 0 .. n-1 unified as st_an_par_merge unifies their parts: *nglobal cnodes,
 * map[i][k] the unified cnode of process i's cnode k (malloc'd), ploc0[0 .. n] each process's first
 * location in the merged result (and their number). 0, or -1 (malformed or memory). */
int st_an_par_unify(const void *const *tree, const size_t *len, int n, uint32_t *nglobal, uint32_t **map,
                    uint32_t *ploc0);
/* Whether this process has a root-cause timeline (SYNCTRACE_ROOTCAUSE, after DONE). */
int st_an_par_has_timeline(const st_an_par_t *p);
/* The distributed root-cause replay (rc_dist.h) of this process's timeline: map (this process's cnodes ->
 * the unified ones, nglobal of them) and ploc0 from st_an_par_unify, net its own exchange. Then drive it
 * with st_an_par_rc_progress / _deliver (values and messages as st_an_par_progress / _deliver's) and end it
 * with st_an_par_rc_end (ok: it was DONE everywhere), which puts the replay's values into the process's
 * part and its timeline away (the part carries the replay's part instead; not ok, or never begun: no root
 * causes). st_an_par_rc_start sends the first messages (once every process began). 0, or -1 (memory, or
 * failed). */
int st_an_par_rc_begin(st_an_par_t *p, const uint32_t *map, uint32_t nglobal, const uint32_t *ploc0,
                       const st_xchg_net_t *net);
int st_an_par_rc_start(st_an_par_t *p);
int st_an_par_rc_progress(void *p);
int st_an_par_rc_deliver(void *p, int32_t from, const void *buf, size_t len);
void st_an_par_rc_waiting(void *p, char *buf, size_t n);
int st_an_par_rc_end(st_an_par_t *p, int ok);
/* The root-cause analysis' wall and CPU time in this engine so far (ms): the timeline of its locations
 * and its packing (SYNCTRACE_ROOTCAUSE; zero when off). */
void st_an_par_rootcause_ms(const st_an_par_t *p, double ms[2]);
void st_an_par_free(st_an_par_t *p);

/*
 * Merges the parts of processes 0 .. n-1 (in that order) into res, call-tree nodes unified
 * by path, their locations (res->locs) in that order; with their root-cause timelines (every
 * part has one, or none: SYNCTRACE_ROOTCAUSE) concatenated in that order, then the root-cause
 * analysis over them (rc_build.h, an_rc_finish: res->causes); or with the distributed replay's parts
 * (every part has one) what needs every location (rc_dist_finish: res->causes). 0, or -1 (malformed
 * part or out of memory).
 */
int st_an_par_merge(const void *const *part, const size_t *len, int n, st_an_result_t *res);

#endif
