/*
 * derived.h — a derivation kept for a second reader (relations.h): the OpenMP ends a
 * derivation with omit_self_ends left out, kept compactly, and the logical messages of one
 * process as the in-run CLC derived them, read back as endpoints by the wait-state analysis
 * that runs right after it. derived.c.
 */
#ifndef ST_REL_DERIVED_H
#define ST_REL_DERIVED_H

#include <stddef.h>
#include <stdint.h>

#include "input.h"
#include "endpoints.h"
#include "graph.h"

/* The OpenMP ends omit_self_ends leaves out, kept aside (the derivation is CLC's cost, so in
 * little memory): a team master's TEAM_BEGIN (fork) and TEAM_END (join), the most of them, as
 * one word each in team[] (location << 40 | event; the team is the event's id), the rest (and
 * those that do not fit the word) as records in type[], each in the order they were made.
 * st_rel_self_ends_expand makes records of the words, st_rel_self_endpoint the endpoint of a record. */
typedef struct st_rel_self_end {
    uint64_t k2, k3; /* key[2], key[3] */
    uint64_t ev;
    uint32_t loc;
    uint8_t  role;
} st_rel_self_end_t;

#define ST_REL_SELF_EV_BITS 40

typedef struct st_rel_self_ends {
    int32_t rank;
    struct {
        st_rel_self_end_t *v;
        size_t             n, cap;
    } type[ST_REL_KEY_TYPES];
    struct {
        uint64_t *v;
        size_t    n, cap;
    } team[2]; /* 0: masters' TEAM_BEGIN (ST_REL_KEY_OMP_FORK, receive), 1: TEAM_END (_JOIN, send) */
} st_rel_self_ends_t;

/* The team[] words as records (their team read from locs, the events of the locations the
 * derivation saw), then every type's records in the join's order. 0, or -1 (memory). */
int st_rel_self_ends_expand(st_rel_self_ends_t *s, const st_rel_loc_t *locs);

/* The endpoint of s->type[type].v[i] (time 0: nothing that reads these ends reads it). */
st_rel_endpoint_t st_rel_self_endpoint(const st_rel_self_ends_t *s, unsigned type, size_t i);
void st_rel_self_ends_free(st_rel_self_ends_t *s);

/*
 * The logical messages of one process as the in-run CLC derived them, kept for the wait-state
 * analysis that runs right after it: deriving them again sweeps every 64-byte event once more
 * (at 10^6 events per rank about a third of the analysis). g: CLC's partial graph (instances
 * and refs; the ports are not kept), which holds every endpoint the derivation emitted but the
 * ones omit_self_ends left out, kept in self_ends (and, with ST_CLC_REPLAY_CHECK_FIRST, the OpenMP
 * ones CLC left out of its graph, in omp).
 */
#define ST_REL_DERIVED_AHEAD 64
typedef struct st_rel_derived {
    st_rel_graph_t     g;
    st_rel_self_ends_t self_ends;
    /* The OpenMP ends CLC checked and left out of its graph (ST_CLC_REPLAY_CHECK_FIRST, clc/replay.h),
     * { 0 } when they are in g; g then holds none of their key types. ahead: those read next. */
    st_rel_epsrc_t     omp;
    /* The point-to-point ends CLC checked and left out of its graph (the same), read first. */
    st_rel_epsrc_t     p2p;
    st_rel_endpoint_t  ahead[ST_REL_DERIVED_AHEAD];
    size_t             nahead, at;
} st_rel_derived_t;

/* How many endpoints d holds (after st_rel_self_ends_expand of its self ends). */
size_t st_rel_derived_count(const st_rel_derived_t *d);

/* Where st_rel_derived_read goes on ({ 0 }: the start). */
typedef struct st_rel_derived_pos {
    uint64_t k, j; /* instance, and end of it */
    unsigned t;    /* self end: its type, and which of them */
    size_t   s;
    int      begun;
    int      p2p_read; /* the left-out point-to-point ends are all read */
    unsigned below; /* nonzero: read only the endpoints of key types below it (the rest stays) */
} st_rel_derived_pos_t;

/* The next (up to max) endpoints of d from *pos into buf, and *pos advanced: how many, 0 at the
 * end (d's self ends expanded first, st_rel_self_ends_expand). In order, they are the endpoints
 * st_rel_endpoints (omit_self_ends 0) emits for d's process in the join's order (their time the
 * graph's, ST_REL_JOIN_TIMES, or 0; mumask the instance's). Read in parts: the whole would be a new array of 64 bytes per endpoint, and at
 * MPI_Finalize every new page is a fault. */
size_t st_rel_derived_read(st_rel_derived_t *d, st_rel_derived_pos_t *pos, st_rel_endpoint_t *buf, size_t max);

/* The rest of d from *pos on (pos->below cleared) as a source for st_rel_graph_join_src: n (at most
 * how many it gives) is d's count less `read`, what was read before. d and *pos must outlive it;
 * free it with st_rel_epsrc_free. 0, or -1 out of memory. */
int st_rel_derived_src(st_rel_derived_t *d, st_rel_derived_pos_t *pos, size_t read, st_rel_epsrc_t *src);
void st_rel_derived_free(st_rel_derived_t *d);

#endif
