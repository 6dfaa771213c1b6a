/*
 * test_clc_lib.h — helpers shared by the CLC unit tests: a tiny trace builder, a
 * comm table; the checks are check.h's. Header-only (static functions); no MPI.
 */
#ifndef TEST_CLC_LIB_H
#define TEST_CLC_LIB_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/clc/clc.h"
#include "check.h"

/* Any sanitizer report fails the test (the runner builds without -fno-sanitize-recover). */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void) { return "halt_on_error=1:print_stacktrace=1"; }

/* Region ids of the fixed regions (same numbering as region.h). */
enum {
#define ST_REGION(id, name, role, paradigm) TR_##id,
#include "../../src/model/regions.def"
#undef ST_REGION
    TR_USER = 1000,   /* an arbitrary application/MPI region */
    TR_INIT = 1001,   /* stands for MPI_Init in the sync-region table */
    TR_FINALIZE = 1002
};

/* OTF2_CollectiveOp values used in tests. */
enum { OP_BARRIER = 0, OP_BCAST = 1, OP_GATHERV = 3, OP_SCATTERV = 5, OP_ALLREDUCE = 11, OP_REDUCE = 12,
       OP_SCAN = 14, OP_EXSCAN = 15 };

typedef struct tb {
    uint32_t      nlocs;
    st_rel_loc_t  locs[64];
    uint64_t      cap[64];
    int32_t       nranks;
    st_rel_proc_t procs[64];
    st_comm_def_t comms[64][2]; /* per rank: 0 = world (key 1), 1 = self (key 100+rank) */
    int32_t       world[64];
} tb_t;

/* nranks processes, node of rank r = r / per_node (per_node 0: each rank its own node). */
static inline void tb_init(tb_t *t, int32_t nranks, int32_t per_node)
{
    memset(t, 0, sizeof *t);
    t->nranks = nranks;
    for (int32_t r = 0; r < nranks; r++)
        t->world[r] = r;
    for (int32_t r = 0; r < nranks; r++) {
        t->comms[r][0] = (st_comm_def_t){ .key = 1, .parent = ST_NO_COMM, .flags = ST_COMMF_WORLD,
                                          .size = (uint32_t)nranks, .world = t->world };
        t->comms[r][1] = (st_comm_def_t){ .key = 100 + (uint64_t)r, .parent = ST_NO_COMM, .flags = ST_COMMF_SELF,
                                          .size = 1, .world = &t->world[r] };
        t->procs[r] = (st_rel_proc_t){ .ncomms = 2, .comms = t->comms[r], .node = per_node ? r / per_node : r };
    }
}

static inline uint32_t tb_loc(tb_t *t, int32_t rank, uint32_t thread)
{
    uint32_t l = t->nlocs++;
    t->locs[l] = (st_rel_loc_t){ .rank = rank, .thread = thread };
    return l;
}

static inline st_event_t *tb_ev(tb_t *t, uint32_t l, unsigned kind, uint64_t time)
{
    st_rel_loc_t *L = &t->locs[l];
    if (L->n == t->cap[l]) {
        t->cap[l] = t->cap[l] ? 2 * t->cap[l] : 16;
        L->ev = realloc(L->ev, t->cap[l] * sizeof(st_event_t));
        REQUIRE(L->ev);
    }
    st_event_t *e = &L->ev[L->n++];
    *e = (st_event_t){ .time = time, .kind = (uint8_t)kind, .peer = -1 };
    return e;
}

static inline void tb_region(tb_t *t, uint32_t l, unsigned kind, uint64_t time, uint32_t region)
{
    tb_ev(t, l, kind, time)->region = region;
}

static inline void tb_send(tb_t *t, uint32_t l, uint64_t time, int32_t dest, int32_t tag)
{
    st_event_t *e = tb_ev(t, l, ST_EV_MPI_SEND, time);
    e->peer = dest, e->tag = tag, e->comm = 0;
}

static inline void tb_recv(tb_t *t, uint32_t l, uint64_t time, int32_t src, int32_t tag, uint64_t post)
{
    st_event_t *e = tb_ev(t, l, ST_EV_MPI_RECV, time);
    e->peer = src, e->tag = tag, e->comm = 0, e->id = post;
}

/* Blocking collective on world: COLL_BEGIN at t0, COLL_END at t1. */
static inline void tb_coll(tb_t *t, uint32_t l, uint64_t t0, uint64_t t1, unsigned op, int32_t root, uint64_t seq,
                    uint64_t sent, uint64_t recvd)
{
    tb_ev(t, l, ST_EV_MPI_COLL_BEGIN, t0);
    st_event_t *e = tb_ev(t, l, ST_EV_MPI_COLL_END, t1);
    e->op = (uint16_t)op, e->comm = 0, e->peer = root, e->id = seq, e->bytes = sent, e->bytes2 = recvd;
}

static inline st_rel_input_t tb_input(tb_t *t)
{
    return (st_rel_input_t){ .nlocs = t->nlocs, .locs = t->locs, .nranks = t->nranks, .procs = t->procs };
}

static inline void tb_free(tb_t *t)
{
    for (uint32_t l = 0; l < t->nlocs; l++) {
        free(t->locs[l].ev);
        st_mem_free(t->locs[l].orig);
    }
    memset(t, 0, sizeof *t);
}

/* Params with round numbers for hand-computed answers. */
static inline st_clc_params_t tb_params(void)
{
    st_clc_params_t p = { .gamma = 1.0, .delta = 1, .mu_proc = 2, .mu_intra = 5, .mu_inter = 10, .amort = 0.5 };
    return p;
}

/* ---- random traces simulated in true time (test_clc_random, test_clc_replay) ---------------------- */

/* xorshift state: set *tb_seed() before a run; the sequence is the trace. */
static inline uint64_t *tb_seed(void)
{
    static uint64_t seed;
    return &seed;
}

static inline uint64_t tb_rnd(void)
{
    uint64_t *s = tb_seed();
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static inline uint64_t tb_between(uint64_t lo, uint64_t hi) { return lo + tb_rnd() % (hi - lo + 1); }
static inline uint64_t tb_max2(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* True latency of a message between ranks a and b: never below the mu CLC is given. */
static inline uint64_t tb_lat(const tb_t *t, int a, int b)
{
    if (a == b)
        return tb_between(3, 30);
    return t->procs[a].node == t->procs[b].node ? tb_between(60, 400) : tb_between(250, 1500);
}

/* Records an event at max(now[l], at) on l and advances now[l]; returns its true time. */
static inline uint64_t tb_sim_ev(tb_t *t, uint64_t *now, uint32_t l, unsigned kind, uint64_t at, st_event_t **out)
{
    uint64_t time = tb_max2(now[l], at);
    st_event_t *e = tb_ev(t, l, kind, time);
    now[l] = time + tb_between(3, 40);
    if (out)
        *out = e;
    return time;
}

static inline uint64_t T(const tb_t *t, uint32_t l, uint64_t i) { return t->locs[l].ev[i].time; }

/* The partners of event (loc, ev) in role `role` (its sends if role == ST_REL_RECV),
 * over all instances it takes part in; returns how many (at most max written). */
static inline int tb_partners(const st_rel_graph_t *g, uint32_t loc, uint64_t ev, uint8_t role, st_rel_ref_t *out,
                              int max)
{
    int n = 0;
    for (uint64_t k = g->port_first[loc]; k < g->port_first[loc + 1]; k++) {
        const st_rel_port_t *p = &g->ports[k];
        if (p->ev != ev || p->role != role)
            continue;
        const st_rel_inst_t *in = &g->inst[p->inst];
        uint32_t from = role == ST_REL_RECV ? 0 : in->nsend, to = role == ST_REL_RECV ? in->nsend : in->nsend + in->nrecv;
        for (uint32_t s = from; s < to; s++) {
            if (n < max)
                out[n] = g->refs[in->first + s];
            n++;
        }
    }
    return n;
}

/* The instance of the port (loc, ev, role); REQUIREs there is exactly one. */
static inline const st_rel_inst_t *tb_inst(const st_rel_graph_t *g, uint32_t loc, uint64_t ev, uint8_t role)
{
    const st_rel_inst_t *found = NULL;
    int n = 0;
    for (uint64_t k = g->port_first[loc]; k < g->port_first[loc + 1]; k++)
        if (g->ports[k].ev == ev && g->ports[k].role == role)
            found = &g->inst[g->ports[k].inst], n++;
    REQUIRE(n == 1);
    return found;
}

/* A source (st_rel_epsrc_t) that gives the endpoints of an array in order: tb_array_src(&a). */
typedef struct tb_array_src {
    const st_rel_endpoint_t *v;
    size_t                   n, at;
} tb_array_src_t;

static inline size_t tb_array_read(void *ctx, st_rel_endpoint_t *buf, size_t max)
{
    tb_array_src_t *a = ctx;
    size_t k = 0;
    for (; k < max && a->at < a->n; k++)
        buf[k] = a->v[a->at++];
    return k;
}

static inline void tb_array_rewind(void *ctx) { ((tb_array_src_t *)ctx)->at = 0; }

static inline st_rel_epsrc_t tb_array_src(tb_array_src_t *a)
{
    return (st_rel_epsrc_t){ tb_array_read, tb_array_rewind, NULL, a, a->n };
}

#endif
