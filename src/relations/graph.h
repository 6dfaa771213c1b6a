/*
 * graph.h — the dependency graph (relations.h): endpoints joined by key into instances,
 * each location's view of them (ports), and the relations a reader walks in it. graph.c
 * joins, walk.c walks.
 */
#ifndef ST_REL_GRAPH_H
#define ST_REL_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "input.h"
#include "endpoints.h"

/* An instance: refs[first .. first+nsend) are its sends, the next nrecv its receives;
 * in PREFIX instances both runs are sorted by order. 48 bytes (with the refs and ports,
 * the lasting part of the correction's working set: at MPI_Finalize each new page is a
 * fault), so indices are 32-bit: the join refuses more than ST_REL_MAX_REFS endpoints. */
typedef struct st_rel_inst {
    uint64_t key[4]; /* the endpoints' key: tells the parallel version whom to exchange with */
    uint32_t first;
    uint32_t nsend, nrecv;
    uint8_t  kind, shape, mumask, _pad;
} st_rel_inst_t;

/* Room for n instances, counted in endpoints (st_rel_endpoints_split). */
static inline size_t st_rel_inst_room(size_t n)
{
    return (n * sizeof(st_rel_inst_t) + sizeof(st_rel_endpoint_t) - 1) / sizeof(st_rel_endpoint_t);
}

/* Most endpoints (so refs, ports and instances) one join takes, and most ends of one instance. */
#define ST_REL_MAX_REFS   ((size_t)UINT32_MAX - 1)
#define ST_REL_MAX_SLOTS  ((1u << 30) - 1)

/* The key type (ST_REL_KEY_*) of an instance: p2p, collective, Init/Finalize, OpenMP kind. */
static inline unsigned st_rel_inst_type(const st_rel_inst_t *in) { return (unsigned)(in->key[0] >> 56); }

/* A location's view of one of its events taking part in an instance. slot = index of
 * the event's ref inside the instance (0 .. nsend+nrecv-1). 16 bytes. */
typedef struct st_rel_port {
    uint64_t ev;
    uint32_t inst;
    unsigned slot : 30; /* < ST_REL_MAX_SLOTS */
    unsigned role : 2;  /* st_rel_role */
} st_rel_port_t;

typedef struct st_rel_graph {
    uint64_t       ninst;
    st_rel_inst_t *inst;
    uint64_t       nrefs;
    st_rel_ref_t  *refs;
    uint32_t       nlocs;
    uint64_t      *port_first; /* [nlocs+1]: ports of location l are [port_first[l], port_first[l+1]) */
    st_rel_port_t *ports;      /* per location sorted by ev, receives before sends */
    uint64_t      *ref_time;   /* [nrefs] with ST_REL_JOIN_TIMES: the endpoints' times, else NULL */
    st_rel_depstats_t ds;
} st_rel_graph_t;

/*
 * Derives the endpoints of every rank that has locations in `in` and joins them
 * (sequential reference, `synctrace clc`, tests; with one rank its OpenMP endpoints go to the
 * join as they are derived, st_rel_endpoints_split, with no array of their own). Returns 0, or
 * -1 when out of memory (g then empty). Free with st_rel_graph_free().
 */
int st_rel_graph_build(const st_rel_input_t *in, st_rel_graph_t *g);

/*
 * Joins endpoints (sorted in place) into instances for nlocs locations. Endpoints whose
 * ref.loc >= nlocs are dropped; more than ST_REL_MAX_REFS of them, or an instance of more
 * than ST_REL_MAX_SLOTS, is an error (-1). Without ST_REL_JOIN_PARTIAL, instances lacking sends or
 * receives are dropped (p2p ones counted in g->ds as unmatched); the parallel version
 * passes it because the other ends live in other processes. Returns 0, or -1 when out
 * of memory (g then empty).
 */
#define ST_REL_JOIN_PARTIAL 0x1u
/* ST_REL_JOIN_TAKE: ep (allocated with st_mem_malloc) is handed over: the instances are built
 * in its memory (at MPI_Finalize every new page is a fault), g->inst is that block shrunk to
 * them (st_mem_realloc), and the caller neither reads nor frees ep afterwards. Without it ep
 * is left sorted. */
#define ST_REL_JOIN_TAKE 0x2u
/* ST_REL_JOIN_TIMES: g->ref_time gets each ref's endpoint time (the CLC engine's C of the refs,
 * without a pass that gathers them from the events: a cache miss each). */
#define ST_REL_JOIN_TIMES 0x4u
int st_rel_graph_join(st_rel_endpoint_t *ep, size_t n, uint32_t nlocs, unsigned flags, st_rel_graph_t *g);

/* st_rel_graph_join of ep[0 .. n) followed by more's endpoints, which come in the join's order
 * and after all of ep's (st_rel_endpoints_split); ep's dropping of unknown locations applies to
 * them too. With ST_REL_JOIN_TAKE, ep's block has room for st_rel_inst_room(more->n) instances
 * after its n endpoints. more is read to its end, not freed. Endpoints of more out of order
 * are an error (-1). */
int st_rel_graph_join_src(st_rel_endpoint_t *ep, size_t n, st_rel_epsrc_t *more, uint32_t nlocs, unsigned flags,
                          st_rel_graph_t *g);

/* The instances of src's endpoints (in the join's order, as st_rel_graph_join_src reads them)
 * a part at a time, without the graph of them all: each(ctx, g) gets g holding one part's
 * instances, refs and ref_time (no ports), which are dropped afterwards. flags: as for the
 * join (ST_REL_JOIN_TIMES is implied). Returns 0, or -1 (memory, an endpoint out of order,
 * or each's -1). src is read to its end. */
int st_rel_graph_parts(st_rel_epsrc_t *src, uint32_t nlocs, unsigned flags,
                       int (*each)(void *ctx, const st_rel_graph_t *g), void *ctx);

void st_rel_graph_free(st_rel_graph_t *g);

/* ---- the relations of a graph (walk.c) ---------------------------------------------------- */

/*
 * The relations of a graph, one per (instance, receive) with a send on another location:
 * the receive and the latest such send (PRODUCT; PREFIX: of lower order), by LC (orig
 * != 0: by C; st_rel_lc_at, st_rel_c_at). What CLC enforces, `synctrace check` counts and an
 * analyzer measures waiting time on; the instance's key says its type, communicator and
 * sequence number, the refs say location and event. fn is called in instance order.
 */
typedef struct st_rel_relation {
    uint64_t     inst;           /* index into g->inst */
    st_rel_ref_t send, recv;
    uint64_t     t_send, t_recv; /* their times (LC, or C with orig) */
} st_rel_relation_t;
typedef void (*st_rel_relation_fn)(void *ctx, const st_rel_relation_t *r);
void st_rel_relations(const st_rel_graph_t *g, const st_rel_loc_t *locs, int orig, st_rel_relation_fn fn, void *ctx);

/* The same with the refs' times from t (indexed like g->refs, e.g. g->ref_time): of every
 * instance (st_rel_relations_times), or of the instances ks[0 .. nk) in that order
 * (st_rel_relations_of; the parallel engine's dense snapshots, read in ref order instead
 * of gathered from the events). */
void st_rel_relations_times(const st_rel_graph_t *g, const uint64_t *t, st_rel_relation_fn fn, void *ctx);
void st_rel_relations_of(const st_rel_graph_t *g, const uint64_t *ks, size_t nk, const uint64_t *t,
                         st_rel_relation_fn fn, void *ctx);

#endif
