/*
 * input.c — the relations' input over rank data (st_rankdata_t, src/model/rankdata.h): one
 * location per recorded thread, each rank's communicator table, and node ids from the
 * ranks' node names; and the locations' dense time arrays (input.h). Used by `synctrace
 * clc`, `check` and `analyze` (the ranks of an archive) and by the shim (its own rank;
 * other ranks' node ids supplied by the caller instead).
 */
#include "input.h"
#include "locks.h"

#include <stdlib.h>
#include <string.h>

#include "../model/rankdata.h"
#include "../model/region.h"

typedef struct named {
    const char *name;
    int32_t     rank;
} named_t;

static int cmp_named(const void *a, const void *b)
{
    const named_t *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    return r ? r : (x->rank > y->rank) - (x->rank < y->rank);
}

/* Node id of each rank: ranks with equal node names share an id; ranks without data get their own. */
static int assign_nodes(const st_rankdata_t *rd, int nrd, st_rel_proc_t *procs, int32_t nranks)
{
    named_t *v = malloc(sizeof(named_t) * (size_t)(nrd > 0 ? nrd : 1));
    if (!v)
        return -1;
    int n = 0;
    for (int i = 0; i < nrd; i++)
        if (rd[i].rank >= 0 && rd[i].rank < nranks)
            v[n++] = (named_t){ rd[i].nodename, rd[i].rank };
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_named);
    int32_t id = nranks; /* ids below nranks are the "own node" ids of ranks without data */
    for (int32_t r = 0; r < nranks; r++)
        procs[r].node = r;
    for (int i = 0; i < n; i++) {
        if (i > 0 && strcmp(v[i].name, v[i - 1].name))
            id++;
        procs[v[i].rank].node = id;
    }
    free(v);
    return 0;
}

const st_rel_sync_region_t st_rel_sync_regions[ST_REL_NSYNC] = {
    { ST_REGION_MPI_Init, 0 }, { ST_REGION_MPI_Init_thread, 0 }, { ST_REGION_MPI_Finalize, 1 }
};

int st_rel_input_from_rankdata(st_rankdata_t *rd, int nrd, st_rel_input_t *in)
{
    memset(in, 0, sizeof *in);
    int32_t nranks = 0;
    uint32_t nlocs = 0;
    for (int i = 0; i < nrd; i++) {
        if (rd[i].nranks > nranks)
            nranks = rd[i].nranks;
        if (rd[i].rank >= nranks)
            nranks = rd[i].rank + 1;
        nlocs += rd[i].nthreads;
    }
    st_rel_proc_t *procs = calloc((size_t)(nranks > 0 ? nranks : 1), sizeof *procs);
    st_rel_loc_t *locs = calloc(nlocs ? nlocs : 1, sizeof *locs);
    if (!procs || !locs || assign_nodes(rd, nrd, procs, nranks)) {
        free(procs);
        free(locs);
        return -1;
    }
    uint32_t l = 0;
    for (int i = 0; i < nrd; i++) {
        if (rd[i].rank < 0)
            continue;
        procs[rd[i].rank].ncomms = rd[i].ncomms;
        procs[rd[i].rank].comms = rd[i].comms;
        procs[rd[i].rank].ngroups = rd[i].groups ? rd[i].ngroups : 0;
        procs[rd[i].rank].groups = rd[i].groups;
        procs[rd[i].rank].ncpnodes = rd[i].ncpnodes;
        procs[rd[i].rank].cpnodes = rd[i].cpnodes;
        procs[rd[i].rank].ncallsites = rd[i].ncallsites;
        procs[rd[i].rank].callsites = rd[i].callsites;
        procs[rd[i].rank].nfiltered = rd[i].nfiltered;
        procs[rd[i].rank].filtered = rd[i].filtered;
        for (uint32_t t = 0; t < rd[i].nthreads; t++)
            locs[l++] = (st_rel_loc_t){ .rank = rd[i].rank, .thread = rd[i].threads[t].index,
                                        .ev = rd[i].threads[t].events,
                                        .n = rd[i].threads[t].events ? rd[i].threads[t].nevents : 0 };
    }
    *in = (st_rel_input_t){ .nlocs = l, .locs = locs, .nranks = nranks, .procs = procs };
    if (st_rel_input_lock_order(in)) {
        st_rel_input_free(in);
        return -1;
    }
    return 0;
}

void st_rel_input_free(st_rel_input_t *in)
{
    for (uint32_t l = 0; in->locs && l < in->nlocs; l++)
        st_mem_free(in->locs[l].orig);
    free(in->locs);
    free((void *)in->procs);
    st_mem_free(in->locks);
    memset(in, 0, sizeof *in);
}

int st_rel_times_alloc(st_rel_loc_t *L)
{
    if (!L->orig)
        L->orig = st_mem_malloc(sizeof(uint64_t) * 2 * (L->n ? L->n : 1));
    return L->orig ? 0 : -1;
}

int st_rel_times_materialize(st_rel_loc_t *L)
{
    if (L->orig)
        return 0;
    if (st_rel_times_alloc(L))
        return -1;
    uint64_t *C = L->orig, *T = st_rel_lc(L);
    for (uint64_t i = 0; i < L->n; i++)
        C[i] = T[i] = L->ev[i].time;
    return 0;
}

int st_rel_save_orig(st_rel_input_t *in)
{
    for (uint32_t l = 0; l < in->nlocs; l++) {
        st_rel_loc_t *L = &in->locs[l];
        if (st_rel_times_alloc(L))
            return -1;
        for (uint64_t i = 0; i < L->n; i++)
            L->orig[i] = L->ev[i].time;
    }
    return 0;
}
