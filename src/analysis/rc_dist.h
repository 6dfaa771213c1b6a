/*
 * rc_dist.h — the root-cause replay (rootcause.h's st_rc_run) distributed over the processes of a
 * parallel analysis: each process keeps the timeline of its own locations and exchanges only what the
 * replay needs of the others, over the exchange layer (src/exchange/exchange.h); MPI-free, driven like
 * the analysis' engine (parallel.h): deliver what arrives, progress until done. The values equal
 * st_rc_run's over the whole timeline bit for bit: every double is added to its target in the serial
 * replay's order.
 *
 * How (rc_dist.c, rc_dist_flow.c, rc_dist_sweep.c, rc_dist_walk.c, rc_dist_collect.c):
 *  1. Every relation end (key, location, call, role, enter) goes to its key's home process (a hash of
 *     the key); each home sends every process that holds an end of a key the key's whole run (a process's
 *     ends of the keys it is the home of, and the runs it keeps as their home, do not travel). A message
 *     between ranks of two processes (rc_dist_pairs) has no home: the two send each other their ends of it
 *     and each makes its runs (rc_dist_pairs.c). With the
 *     runs of its relations a process finds the delayer of each of its waits and the start of each
 *     wait's interval (rc_replay.c's header) alone. The run's first and last events and where the
 *     critical path starts travel with the ends to every process.
 *  2. Each waiter sends each of its waits' package (its ticks, metric, call path, its interval's exclusive
 *     time per call path, the delayer's call and the interval's start there) to the delayer's owner, all at
 *     once (rc_dist_flow.c).
 *  3. The replay in the serial order without a message per step: what a charge passes on to the delayer's
 *     waits (their downstream waiting, the long-term costs' source) is the only part of it that needs the
 *     serial order over the whole run; every delayer's owner sends the sweeper (process RD_SWEEPER) each
 *     package's coefficients (the share's scale and denominator, the delayer's charged waits in the interval),
 *     the sweeper passes the downstream waiting on in the serial order exactly as the serial replay does and
 *     returns each package's, as it was at its turn, to the delayer's owner (rc_dist_sweep.c); the owner then
 *     charges the packages of each of its locations in the order and returns each wait's indirect part.
 *  4. The critical path: every process sends the walker (the same process) where the path can leave its
 *     locations (the calls with delayed waits, their delayers); the walker follows the path back from the
 *     run's end over these alone and sends every process the path's entries (where it arrives on a
 *     location); each holder then walks its own pieces, crediting them (rc_dist_walk.c).
 *  5. The propagating amounts per wait state: a running table handed from process 0 to the last,
 *     each adding its waits in the serial order.
 * At the collector (rc_dist_finish): the merged values (every process's locations), the locations'
 * time per call path outside their waits (for the derived imbalance metrics, which sum over all
 * locations), the causes (each process's: those of its delaying locations), the path's hops and the
 * propagation table.
 *
 * Cost: a process sends its relation ends and their runs (a collective of n members: n ends to the home,
 * n runs of n ends back; a message between two processes: 24 bytes per end and 40 per message to the other
 * one, nothing back), a package per wait (its interval's call paths), the sweeper 72 bytes per package it
 * charges and 16 per charged wait of the interval, the walker 32 bytes per call with delayed waits and 16 per
 * such wait, and every process 72 bytes per move of the critical path to another location (the sweeper and
 * walker: their work and memory grow with the run's waits, a few operations each). Messages go in a few
 * rounds, not one per step of a chain of waits or per move of the path.
 *
 * Not thread-safe: one thread drives one engine.
 */
#ifndef ST_AN_RC_DIST_H
#define ST_AN_RC_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "../exchange/exchange.h"
#include "rc_replay.h"
#include "rootcause.h"

typedef struct rc_dist rc_dist_t;

enum { RC_DIST_FAILED = -1, RC_DIST_DONE = 0, RC_DIST_IDLE = 2 };

/* What a process hands the collector (rc_dist_take). */
typedef struct rc_dist_part {
    uint32_t       nlocs, ncnodes; /* its locations; the cnodes of the result */
    int64_t       *T;              /* [nlocs][ncnodes]: each location's time per cnode outside its waits */
    st_rc_cause_t *v;              /* the causes whose delay is at its locations (global locations) */
    size_t         n;
    rc_hops_t      hops;           /* the critical path's hops on its locations, each with its index */
    rc_props_t     props;          /* the last process: the whole propagation table; others: empty */
} rc_dist_part_t;
void rc_dist_part_free(rc_dist_part_t *p);

/*
 * The engine of process me of nprocs. in: the timeline of its locations, which are the run's locations
 * ploc0[me] .. ploc0[me + 1) (ploc0[0 .. nprocs]: each process's first location, non-decreasing; the
 * run has ploc0[nprocs]); cnodes: the run's ids (the same at every process). res: the values of those
 * locations (res->nlocs == in->nlocs, res->ncnodes the run's cnodes; its Idle threads read, the
 * replay's metrics written). in, ploc0 and res must outlive the engine. 0, or -1 (memory).
 */
int rc_dist_new(st_an_result_t *res, const st_rc_input_t *in, const uint32_t *ploc0, int32_t me, int32_t nprocs,
                const st_xchg_net_t *net, rc_dist_t **out);
/* Declares (before rc_dist_start) that all ends of an OpenMP relation (key types ST_REL_KEY_OMP_*: a team's
 * fork, join, barriers) are at one process, as where the processes hold whole ranks (every parallel analysis:
 * in the run, `mpiexec synctrace analyze`): each process is then the home of the OpenMP keys of its own ends,
 * and those ends and their runs stay where they are. Without it a key's home is chosen by its hash. */
void rc_dist_keep_omp(rc_dist_t *d);
/* Declares (before rc_dist_start) which process holds each rank: owner[0 .. nranks) (copied; every process of the
 * replay declares the same). A point-to-point key (ST_REL_KEY_P2P: key[1] its sender's and receiver's rank) whose
 * two ranks two processes hold, this one among them, then has no home: the two send each other their ends of the
 * keys they share once, each list in the keys' order, and each makes the runs of its own relations by merging the
 * other's list into its own (rc_dist_pairs.c; a message's ends travel once, no runs come back). 0, or -1 (memory). */
int rc_dist_pairs(rc_dist_t *d, const int32_t *owner, uint32_t nranks);
/* Sends the first messages. 0, or -1. */
int rc_dist_start(rc_dist_t *d);
/* A message from process `from`. 0, or -1 (malformed: the engine fails). */
int rc_dist_deliver(rc_dist_t *d, int32_t from, const void *buf, size_t len);
/* Works on what arrived: RC_DIST_DONE, _IDLE (waits for messages) or _FAILED. */
int rc_dist_progress(rc_dist_t *d);
/* One line naming what the engine waits for. */
void rc_dist_waiting(const rc_dist_t *d, char *buf, size_t n);
/* After DONE: this process's part for the collector into *p (its own now). 0, or -1 (memory). */
int rc_dist_take(rc_dist_t *d, rc_dist_part_t *p);
void rc_dist_free(rc_dist_t *d);

/*
 * At the collector: res holds every location's values (merged in process order, the replay's metrics
 * from the processes' engines), parts[0 .. n) the processes' parts in order (consumed: emptied). Adds the
 * derived imbalance metrics to res and fills *causes (may be NULL) as st_rc_run does. 0, or -1 (memory
 * or parts that do not fit res).
 */
int rc_dist_finish(st_an_result_t *res, rc_dist_part_t *parts, int n, st_rc_causes_t *causes);

/* ---- in a parallel analysis' process (rc_dist_part.c) --------------------------------------------------- */

/* A part in a report part's words: nlocs, ncnodes, T, the causes (metric, wait cnode, delay location,
 * delay cnode, short, long), the hops (index, location, t0, t1), the propagation table (metric, cnode,
 * wait, propagating); doubles as their 8 bytes. */
size_t rc_dist_part_words(const rc_dist_part_t *p);
uint64_t *rc_dist_part_pack(const rc_dist_part_t *p, uint64_t *q);
/* Reads a part from w[0 .. nw) (all of it) into *p. 0, or -1 (malformed or memory). */
int rc_dist_part_unpack(const uint64_t *w, size_t nw, rc_dist_part_t *p);

/* A process's replay: its result (local cnodes) and timeline (res->timeline) taken into the run's cnode
 * numbering. */
typedef struct rc_dist_local rc_dist_local_t;
/* The replay of res's locations (res->timeline: renumbered through map, local cnode -> the run's, in place),
 * the run's nglobal cnodes, ploc0 as for rc_dist_new (copied). 0, or -1 (memory; nothing changed then). */
int rc_dist_local_begin(st_an_result_t *res, const uint32_t *map, uint32_t nglobal, const uint32_t *ploc0, int32_t me,
                        int32_t nprocs, const st_xchg_net_t *net, rc_dist_local_t **out);
rc_dist_t *rc_dist_local_engine(rc_dist_local_t *x);
/* After the engine is DONE (ok) or not: the replay's values into res (its cnodes), its part into *part (ok),
 * the timeline freed; x freed. 0, or -1 (not done, or memory: res's replay metrics are zero then). */
int rc_dist_local_end(rc_dist_local_t *x, int ok, rc_dist_part_t *part);

#endif
