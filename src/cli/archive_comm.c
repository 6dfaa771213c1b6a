/*
 * archive_comm.c — communicator ranks to world ranks.
 *
 * OTF2 stores peers and roots as ranks in the event's communicator. A Comm names a Group;
 * per the OTF2 definition of group types:
 *   COMM_GROUP      members are indexes into the COMM_LOCATIONS group of the same paradigm
 *                   (whose i-th entry is the location of world rank i); with the
 *                   GLOBAL_MEMBERS flag, event ranks are such indexes already;
 *   COMM_SELF       the process alone (event rank 0 = the event's own rank);
 *   LOCATIONS,
 *   COMM_LOCATIONS  members are location ids.
 * A location id maps to its world rank through its Location definition (st_otf2_location_split),
 * or, for an id without one, by the older synctrace numbering (st_otf2_location_split_old). When no
 * COMM_LOCATIONS group exists, COMM_GROUP members are taken as world ranks themselves.
 */
#include "archive_read.h"

#include <stdio.h>
#include <stdlib.h>

static int32_t rank_of_location(const st_cli_archive_t *ar, uint64_t loc)
{
    long i = st_cli_location_index(ar, loc);
    if (i >= 0)
        return ar->locs[i].rank;
    int32_t r;
    uint32_t t;
    st_otf2_location_split_old(loc, &r, &t);
    return r;
}

static const st_cli_group_t *comm_locations(const st_cli_archive_t *ar, uint8_t paradigm)
{
    for (size_t i = 0; i < ar->ngroups; i++)
        if (ar->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && ar->groups[i].paradigm == paradigm)
            return &ar->groups[i];
    return NULL;
}

/* World rank of member value m of group g (see the file comment). */
static int32_t member_world(const st_cli_archive_t *ar, const st_cli_group_t *g, const st_cli_group_t *cl, uint64_t m)
{
    switch (g->type) {
    case OTF2_GROUP_TYPE_LOCATIONS:
    case OTF2_GROUP_TYPE_COMM_LOCATIONS:
        return rank_of_location(ar, m);
    case OTF2_GROUP_TYPE_COMM_GROUP:
        if (cl)
            return m < cl->n ? rank_of_location(ar, cl->members[m]) : -1;
        return m > INT32_MAX ? -1 : (int32_t)m;
    default:
        return m > INT32_MAX ? -1 : (int32_t)m;
    }
}

/* Fills *out (n entries) with the world ranks of g's members; -1 on out of memory. */
static int group_world(const st_cli_archive_t *ar, const st_cli_group_t *g, int32_t **out, uint32_t *n)
{
    const st_cli_group_t *cl = comm_locations(ar, g->paradigm);
    *n = g->n;
    *out = malloc(sizeof **out * (g->n ? g->n : 1));
    if (!*out)
        return -1;
    for (uint32_t i = 0; i < g->n; i++)
        (*out)[i] = member_world(ar, g, cl, g->members[i]);
    return 0;
}

/* Event-rank table of a GLOBAL_MEMBERS group: event ranks index COMM_LOCATIONS. */
static int global_table(const st_cli_archive_t *ar, const st_cli_group_t *g, int32_t **out, uint32_t *n)
{
    const st_cli_group_t *cl = comm_locations(ar, g->paradigm);
    if (!cl)
        return group_world(ar, g, out, n);
    *n = cl->n;
    *out = malloc(sizeof **out * (cl->n ? cl->n : 1));
    if (!*out)
        return -1;
    for (uint32_t i = 0; i < cl->n; i++)
        (*out)[i] = rank_of_location(ar, cl->members[i]);
    return 0;
}

static int resolve_one(st_cli_archive_t *ar, st_cli_comm_t *c)
{
    const st_cli_group_t *a = st_cli_group(ar, c->group);
    const st_cli_group_t *b = c->group_b == ST_CLI_NONE ? NULL : st_cli_group(ar, c->group_b);
    if (!a || (c->group_b != ST_CLI_NONE && !b))
        return 0; /* unknown group: peers on this comm stay untranslated */
    c->paradigm = a->paradigm;
    if (a->type == OTF2_GROUP_TYPE_COMM_SELF) {
        c->self = c->resolved = 1;
        return 0;
    }
    int32_t *ma = NULL, *mb = NULL;
    uint32_t na = 0, nb = 0;
    if (group_world(ar, a, &ma, &na) || (b && group_world(ar, b, &mb, &nb)))
        goto oom;
    if (!(c->members = malloc(sizeof *c->members * (na + nb + 1))))
        goto oom;
    for (uint32_t i = 0; i < na; i++) c->members[i] = ma[i];
    for (uint32_t i = 0; i < nb; i++) c->members[na + i] = mb[i];
    c->nmembers = na + nb;
    if (a->flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS) {
        free(ma);
        if (global_table(ar, a, &ma, &na))
            goto oom;
    }
    c->world = ma, c->size = na, c->world_b = mb, c->size_b = nb;
    c->resolved = 1;
    return 0;
oom:
    free(ma);
    free(mb);
    return -1;
}

int st_cli_resolve_comms(st_cli_archive_t *ar, char *err, size_t errlen)
{
    for (size_t i = 0; i < ar->ncomms; i++)
        if (resolve_one(ar, &ar->comms[i])) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    return 0;
}

static int contains(const int32_t *w, uint32_t n, int32_t r)
{
    for (uint32_t i = 0; i < n; i++)
        if (w[i] == r)
            return 1;
    return 0;
}

int32_t st_cli_world_rank(const st_cli_archive_t *ar, uint32_t comm, int32_t me, uint32_t rank)
{
    const st_cli_comm_t *c = st_cli_comm(ar, comm);
    if (!c || !c->resolved || rank == OTF2_UNDEFINED_UINT32)
        return -1;
    if (c->self)
        return rank == 0 ? me : -1;
    const int32_t *w = c->world;
    uint32_t n = c->size;
    if (c->world_b && contains(c->world, c->size, me)) { /* InterComm: ranks name the remote group */
        w = c->world_b;
        n = c->size_b;
    }
    return rank < n ? w[rank] : -1;
}
