/*
 * sync_int.h — what the MPI side of clock synchronization shares internally:
 * groups (levels), algorithm descriptors, the polite ping-pong building blocks.
 *
 * Collective contracts: every function marked "collective over the group" must be
 * called by all members of the group in the same order; all traffic is PMPI point-to-
 * point on the clock's private communicator (st_sync.comm, an MPI_Comm_idup of the
 * tool's world communicator), waited with Test + sched_yield / nanosleep, never a
 * blocking MPI call (MPICH busy-polls; ranks are oversubscribed). Not thread-safe:
 * one thread at a time runs a sync (sync_mpi.c serializes).
 */
#ifndef ST_CLOCK_SYNC_INT_H
#define ST_CLOCK_SYNC_INT_H

#include <mpi.h>
#include <stdint.h>

#include "model.h"
#include "spec.h"

/* One level: members in rank order of the private communicator; ranks[0] is the
   level's root, already synchronized (the world root, or a member of the level above). */
typedef struct st_sync_group {
    int  size;
    int  me;     /* my index in ranks[], -1 if not a member */
    int *ranks;  /* owned */
} st_sync_group_t;

/* Resolved parameters of a level (spec values or the algorithm's defaults). */
typedef struct st_sync_params {
    int    nfit, npp, offset, intercept, check;
    int    lsq;       /* least squares over fit points (paper) instead of the band fit */
    double window_ns;
} st_sync_params_t;

struct st_sync_level;

typedef struct st_sync_alg {
    const char      *name;
    const char      *options; /* the SYNCTRACE_SYNC options it accepts */
    const char      *doc;
    st_sync_params_t defaults;
    /*
     * Full synchronization of the group. On entry *clk is this member's input clock
     * (the root's is global already); on return it is this member's global clock.
     * Collective over the group. Returns 0, -1 on an MPI error.
     */
    int (*run)(struct st_sync_level *lv, st_clock_t *clk);
    /* Cheap resync: offsets of the current global clocks only, same pairs. Collective. */
    int (*resync)(struct st_sync_level *lv, st_clock_t *clk);
} st_sync_alg_t;

typedef struct st_sync_level {
    st_sync_group_t      grp;
    const st_sync_alg_t *alg;
    st_sync_params_t     par;
    int                  index;    /* 0 = top */
    int                  fallback; /* prop found no shared time source and runs hca3 */
} st_sync_level_t;

/* The algorithm table (algs_mpi.c), NULL-terminated. */
extern const st_sync_alg_t *const st_sync_algs[];
const st_sync_alg_t *st_sync_alg_find(const char *name);

/* ---- process-wide state of the MPI side (sync_mpi.c) ------------------------------- */

typedef struct st_sync_state {
    MPI_Comm comm;     /* private: MPI_Comm_idup of the tool's world communicator */
    int      rank, size;
    int     *node;     /* node index of every rank (SYNCTRACE_NODE_SIZE or shared-memory host) */
    int      nnodes;
    int64_t  rtt_min[2]; /* [intra, inter] smallest round trip this rank measured as client, INT64_MAX none */
    int64_t  rtt_now;    /* smallest round trip of the sync in progress */
    int      tries;      /* bursts per measurement while the bounds stay too wide (3; 8 for every sync point) */
    int      thorough;   /* sync points: repeat bursts until as narrow as st_sync_good_width */
    int      verify;     /* initial offsets: a learned clock inside the measured bounds stays as it is */
    int      measured;   /* this rank's clock was measured well in the sync in progress (st_sync_reject) */
    double   err_ns;     /* bound of this rank's clock error against rank 0's after the sync in progress: the
                            reference's bound + what the SKaMPI bounds leave open; -1 unknown (learned model) */
} st_sync_state_t;

extern st_sync_state_t st_sync;

/*
 * Called by an algorithm when this member has learned its new global clock in this
 * sync (the client step): applies the anchor rule (model.h st_clock_anchor) against
 * this rank's previous sync point and replaces *clk by the anchored model over the
 * local clock. Later rounds in which this member is a reference use the result.
 */
void st_sync_adopt(st_clock_t *clk);
/*
 * The same with the sync point at local time L, at or before now: where an offset was measured. Between
 * L and now the clock being measured ran on its old drift, after the initial sync the 30 ms fit's (167 ppm
 * off in a run where ping-pongs waited for context switches). Anchored at the end of all its bursts, a
 * resync point of such a run (108 ms of resync) came out 10.2 µs off, 167 ppm x 61 ms, against a recorded
 * bound of 5.3 µs.
 */
void st_sync_adopt_at(st_clock_t *clk, int64_t L);

/* This member could not measure well in this sync (or its reference could not): it
   keeps its clock, and its sync point is not used for drift or interpolation. */
void st_sync_reject(void);

/* When this rank's clock still runs on the drift of the initial fit (no sync point but the initial one was
   measured): ns of its local clock since the initial sync point. Else -1 (in the initial sync, or a drift
   anchored to two sync points, st_sync_adopt). */
int64_t st_sync_since_fit_only(void);

/* ---- topology (topo_mpi.c) ---------------------------------------------------------- */

/*
 * Fills st_sync.node / nnodes (SYNCTRACE_NODE_SIZE, else host name + boot id) and
 * sock[] (node-local socket of every rank: SYNCTRACE_SOCKET_SIZE, else hwloc's package
 * of the core each rank runs on, looked up only when need_sockets). Collective over
 * st_sync.comm. Returns 0 or -1.
 */
int st_sync_topology(int need_sockets, int *sock);

/*
 * Fills level[0..spec->nlevels) for this rank: flat = everyone; h2hca = node leaders /
 * my node; h3hca = node leaders / socket leaders of my node / my socket. A leader is
 * the lowest rank of its node (socket), so it is member 0 of the level below and is
 * already synchronized there. Parameters: the spec's, else the algorithm's defaults.
 * Local. Returns 0 or -1 (out of memory).
 */
int st_sync_build_levels(const st_sync_spec_t *spec, st_sync_level_t *level, const int *sock);

/* ---- polite waiting and ping-pongs (pingpong_mpi.c) --------------------------------- */

/* Waits for req: Test + sleeps, each twice as long as the last (10 µs .. 1 ms). */
int st_sync_wait(MPI_Request *req);
/* Sends / receives n bytes to / from a rank of st_sync.comm, waited politely. */
int st_sync_send(const void *buf, int n, int peer, int tag);
int st_sync_recv(void *buf, int n, int peer, int tag);

/* Reads a clock now (local clock through the chain). */
int64_t st_sync_read(const st_clock_t *clk);

/*
 * Reference side of a pair: answers the client's pings with the time of `mine`
 * until the client says it is done. Collective over the pair.
 */
int st_sync_serve(int client, const st_clock_t *mine);

/*
 * Client side: learns the model of (reference clock - my clock `base`) over base:
 * nfit fit points spread over window_ns, each from npp ping-pongs with the chosen
 * offset algorithm, least-squares fit, optional intercept recomputation. Ends the
 * reference's serve loop.
 */
int st_sync_learn(int ref, const st_clock_t *base, const st_sync_params_t *par, st_clock_lm_t *out);

/* One fit point: the offset (reference - client) at client time `when`, and for
   SKaMPI-Offset its bounds (lo = -inf, hi = +inf for Mean-RTT-Offset). */
typedef struct st_sync_point {
    int64_t when;
    double  off, lo, hi;
} st_sync_point_t;

/*
 * Client side: one offset measurement against `mine`. A SKaMPI burst is at least npp
 * ping-pongs and goes on (up to 4·npp, or 16·npp within 2 ms) while its bounds are
 * wider than st_sync_good_width(); a burst still wider than st_sync_accept_width() is
 * repeated (st_sync.tries bursts at most; the narrowest counts; while st_sync.thorough, until
 * as narrow as st_sync_good_width()): a preempted burst is extended or
 * redone rather than trusted. SKaMPI ping-pongs are appended to raw when it is not
 * NULL (owned by the caller). Does not end the serve loop; call st_sync_done() then.
 */
typedef struct st_sync_raw { /* raw ping-pongs, kept for the band fit */
    st_clock_pp_t *pp;
    size_t         n, cap;
} st_sync_raw_t;

int st_sync_measure(int ref, const st_clock_t *mine, int npp, int offset_alg, st_sync_point_t *pt,
                    st_sync_raw_t *raw);
/*
 * Width of a measurement's bounds; +inf when they do not intersect: the clocks drifted
 * apart during a burst that preemption stretched, and the estimate (the quickest
 * ping-pong's midpoint) is no better than that ping-pong's round trip.
 */
double st_sync_point_width(const st_sync_point_t *pt);
int st_sync_done(int ref);

/* SKaMPI bounds this narrow are as good as it gets against ref (1.5 x the smallest
   round trip seen between such ranks); 0 before any was measured. */
double st_sync_good_width(int ref);
/* Bounds wider than this are a bad measurement: max(4 x good width, 3 µs). */
double st_sync_accept_width(int ref);

/* Message tags on st_sync.comm. */
enum {
    ST_TAG_PING = 0x5701,
    ST_TAG_PONG,
    ST_TAG_GO,
    ST_TAG_MODEL,
    ST_TAG_FLAG,
    ST_TAG_RESULT,
    ST_TAG_MEASURED, /* a reference tells its client whether its own clock was measured in this resync */
};

#endif
