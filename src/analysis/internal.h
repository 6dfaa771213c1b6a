/*
 * internal.h — state shared by the parts of the serial analysis driver (analysis.c:
 * call tree, time and visits; p2p.c: point-to-point patterns and counts; coll.c:
 * collective patterns). Not for use outside src/analysis.
 */
#ifndef ST_AN_INTERNAL_H
#define ST_AN_INTERNAL_H

#include <stddef.h>

#include "analysis.h"

#define AN_NO_EV UINT64_MAX

/* Per location: which call (ENTER index) each event lies in, where calls end, their cnode. */
typedef struct an_loc {
    uint64_t *call;  /* [n] ENTER index of the innermost call open at event i (an ENTER: itself,
                        a LEAVE: its ENTER); AN_NO_EV outside every region */
    uint64_t *leave; /* [n] at ENTER indices: the matching LEAVE, AN_NO_EV if never left */
    uint32_t *cnode; /* [n] at ENTER indices: the call's cnode */
} an_loc_t;

typedef struct an_ctx {
    const st_clc_input_t *in;
    const st_clc_graph_t *g;
    st_an_result_t       *res;
    an_loc_t             *loc; /* [in->nlocs] */
} an_ctx_t;

/* The call enclosing event i of location l (AN_NO_EV: none) and its enter / leave times
 * and cnode (root when outside any call). A call never left ends at the last event. */
static inline uint64_t an_call(const an_ctx_t *c, uint32_t l, uint64_t i) { return c->loc[l].call[i]; }
static inline uint64_t an_time(const an_ctx_t *c, uint32_t l, uint64_t i) { return c->in->locs[l].ev[i].time; }
static inline uint64_t an_leave_time(const an_ctx_t *c, uint32_t l, uint64_t call)
{
    uint64_t j = c->loc[l].leave[call];
    return an_time(c, l, j != AN_NO_EV ? j : c->in->locs[l].n - 1);
}
static inline uint32_t an_cnode(const an_ctx_t *c, uint32_t l, uint64_t call)
{
    return call == AN_NO_EV ? 0 : c->loc[l].cnode[call];
}
static inline uint32_t an_region(const an_ctx_t *c, uint32_t l, uint64_t call)
{
    return call == AN_NO_EV ? UINT32_MAX : c->in->locs[l].ev[call].region;
}
/* Keeps (m, l, call, v) among the largest instances of a time metric m. */
void an_note(an_ctx_t *c, int m, uint32_t l, uint64_t call, double v);

/* Adds v (one instance) to metric m at (cnode of call, l); values <= 0 are dropped. */
static inline void an_add(an_ctx_t *c, int m, uint32_t l, uint64_t call, double v)
{
    if (v > 0) {
        *st_an_sev(c->res, m, an_cnode(c, l, call), l) += v;
        an_note(c, m, l, call, v);
    }
}

/* A wait found at a call (kind 0 Late Sender, 1 Late Receiver in p2p.c; the metric in
 * icoll.c), before the per-call rules. */
typedef struct an_wait {
    uint32_t loc;
    uint8_t  kind;
    uint64_t call;
    int64_t  w;
} an_wait_t;

typedef struct an_waits { an_wait_t *v; size_t n, cap; } an_waits_t;

int an_waits_push(an_waits_t *ws, an_wait_t w);

/* MPI_Test, Testany, Testall, Testsome; MPI_Waitall, Waitsome. */
int an_is_test(uint32_t region);
int an_is_multi_wait(uint32_t region);

/* Late Sender and Wrong Order over the graph's p2p instances (latesender.c); every call
 * that got a Late Sender is pushed to ls (kind 0, its value). 0, or -1 (memory). */
int an_late_sender(an_ctx_t *c, an_waits_t *ls);

/* Point-to-point patterns and counts over the graph's p2p instances. 0, or -1 (memory). */
int an_p2p(an_ctx_t *c);
/* Collective patterns over the graph's collective instances. 0, or -1 (memory). */
int an_coll(an_ctx_t *c);
/* Whether the collective instance of end event e (a COLL_END or ICOLL_COMPLETE on location
 * loc) is analysed (MPI_Alltoallv/w counted as skipped), and whether it is on an
 * intercommunicator (coll.c). */
int an_coll_analysed(an_ctx_t *c, uint32_t loc, const st_event_t *e, int *inter);
/* The wait metric of a collective operation (OTF2 op), or -1. */
int an_coll_wait_metric(unsigned op);
/* Nonblocking collective instance in: pushes each member's wait at its completing call to
 * acc (kind = metric); an_icoll_add then adds them, a multi wait's largest once (icoll.c). */
int an_icoll(an_ctx_t *c, const st_clc_inst_t *in, an_waits_t *acc);
void an_icoll_add(an_ctx_t *c, an_waits_t *acc);
/* What call (an ENTER index on l) completed: nonblocking collective requests (*coll; all of
 * them barriers: *barrier) and point-to-point requests (*p2p) (tree.c). */
void an_call_completes(const an_ctx_t *c, uint32_t l, uint64_t call, int *coll, int *p2p, int *barrier);
/* The metric tree above the patterns (tree.c): Execution, Computation, Overhead, the MPI
 * subtree by call; after every pattern. 0, or -1 (memory). */
int an_tree(an_ctx_t *c);
/* OpenMP metrics over the graph's OpenMP instances, idle threads (omp.c); after time and
 * MPI time. 0, or -1 (memory). */
int an_omp(an_ctx_t *c);

#endif
