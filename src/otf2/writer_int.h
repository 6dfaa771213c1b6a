/*
 * writer_int.h — internals shared by the OTF2 writer's files (not an API).
 *
 * writer.c     OTF2's errors, archive open/close, the archive directory, serial driver;
 * numbering.c  st_otf2_numbering() and its view;
 * events.c     st_otf2_write_local(): the events (the events.def switch);
 * globaldefs.c st_otf2_write_global().
 * The attribute ids (attributes.h) and the location numbering (location.h) are shared with the
 * CLI's archive reader.
 * What the events imply (communicator ranks, OpenMP teams and tasks, which events can be
 * written) is the trace model's view of a rank (src/model/prepare.h).
 */
#ifndef ST_OTF2_WRITER_INT_H
#define ST_OTF2_WRITER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "attributes.h"
#include "location.h"
#include "writer.h"
#include "../model/prepare.h"

/* ---- numbering vector layout ----------------------------------------------------------- */

enum { NB_MAGIC, NB_WORLD, NB_NKEYS, NB_SELF, NB_NCALLSITES, NB_NTEAMS, NB_NCPNODES, NB_NGROUPS, NB_HDR };
#define ST_NB_MAGIC 0x53544e4255504d31ull /* "STNBUPM1" */

typedef struct st_otf2_nb {
    uint32_t        world;        /* world size W */
    uint32_t        nkeys;        /* MPI communicators with a key (not SELF) */
    uint32_t        self;         /* id of MPI_COMM_SELF or OTF2_UNDEFINED_COMM */
    uint64_t        ncallsites;   /* String ids 0..ncallsites-1 */
    uint64_t        nteams;
    const uint64_t *team_base;    /* [W] first team comm id of each rank */
    const uint64_t *cs_base;      /* [W] first call-site String id of each rank */
    uint64_t        ncpnodes;     /* CallingContext ids 0..ncpnodes-1: every rank's call-path nodes */
    const uint64_t *cp_base;      /* [W] first CallingContext id of each rank (its node 0) */
    const uint64_t *keys;         /* [nkeys] sorted, for lookup */
    const uint64_t *ids;          /* [nkeys] comm id of keys[k]: parents before children */
    uint32_t        ncomms;       /* MPI comm ids 0..ncomms-1 (keys and SELF) */
    const uint64_t *win_base;     /* [ncomms + 1] RmaWin ids of comm c: win_base[c] .. win_base[c + 1] - 1 */
    uint64_t        nwins;        /* RmaWin ids 0..nwins-1 */
    uint64_t        ngroups;      /* Group ids 1..ngroups: every rank's PSCW groups (rd->groups) */
    const uint64_t *group_base;   /* [W] each rank's first PSCW group is Group 1 + group_base[rank] */
} st_otf2_nb_t;

/* World size of the given ranks: above every rank and at least every rank's nranks. */
int st_otf2_world_size(st_rankdata_t *const *defs, int n);
/* Checks and views a numbering vector; 0 or -1 (reported). */
int st_otf2_nb_view(const uint64_t *num, size_t len, st_otf2_nb_t *v);
/* Global comm id of local comm index i of rd (OTF2_UNDEFINED_COMM if unknown). */
uint32_t st_otf2_nb_comm(const st_otf2_nb_t *v, const st_rankdata_t *rd, uint32_t i);
/* Global RmaWin id of window seq on local comm index comm of rd (OTF2_UNDEFINED_RMA_WIN if unknown). */
uint32_t st_otf2_nb_win(const st_otf2_nb_t *v, const st_rankdata_t *rd, uint32_t comm, uint32_t seq);

/* The status of a sequence of steps: the first failure (a), else b. */
static inline int st_otf2_first_error(int a, int b) { return a != ST_OTF2_OK ? a : b; }

#endif
