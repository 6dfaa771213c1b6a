/*
 * topo_mpi.c — where the ranks are: nodes, sockets, and the groups (levels) of a scheme.
 *
 * Levels are groups of ranks of the private communicator, not communicators of
 * their own: MPI_Comm_split and MPI_Comm_split_type are blocking and took 60-300 ms
 * each with 8 ranks on 2 cores here, more than the whole sync budget; one nonblocking
 * Iallgather of each rank's node (and socket) identity is all the structure needs.
 */
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../config/config.h"
#include "../util/nodeid.h"
#include "sync_int.h"

/* Package (socket) of the core this process runs on, from hwloc; 0 if unknown. */
static int hwloc_socket(void)
{
    hwloc_topology_t topo;
    int sock = 0, cpu = sched_getcpu();
    if (cpu < 0 || hwloc_topology_init(&topo) != 0)
        return 0;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(topo) == 0) {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)cpu);
        hwloc_obj_t pkg = pu ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu) : NULL;
        if (pkg)
            sock = (int)pkg->logical_index;
    }
    hwloc_topology_destroy(topo);
    return sock;
}

typedef struct topo_entry {
    uint64_t key;
    int32_t  socket;
    int32_t  pad;
} topo_entry_t;

int st_sync_topology(int need_sockets, int *sock)
{
    int p = st_sync.size;
    topo_entry_t me = { 0, 0, 0 }, *all = calloc((size_t)p, sizeof *all);
    st_sync.node = calloc((size_t)p, sizeof(int));
    if (!all || !st_sync.node) {
        free(all);
        return -1;
    }
    me.key = st_config.node_size ? (uint64_t)(st_sync.rank / (int)st_config.node_size) : st_node_identity();
    me.socket = need_sockets && !st_config.socket_size ? hwloc_socket() : 0;
    MPI_Request r;
    if (PMPI_Iallgather(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE, st_sync.comm, &r) != MPI_SUCCESS ||
        st_sync_wait(&r) != MPI_SUCCESS) {
        free(all);
        return -1;
    }
    st_sync.nnodes = 0;
    for (int i = 0; i < p; i++) {
        int j = 0;
        while (j < i && all[j].key != all[i].key)
            j++;
        st_sync.node[i] = j < i ? st_sync.node[j] : st_sync.nnodes++;
    }
    int *count = calloc((size_t)st_sync.nnodes, sizeof(int)); /* ranks seen so far per node */
    for (int i = 0; i < p && count; i++) {
        int local = count[st_sync.node[i]]++;
        sock[i] = st_config.socket_size ? local / (int)st_config.socket_size : all[i].socket;
    }
    free(count);
    free(all);
    return 0;
}

/* ==== levels ================================================================================ */

static int group_set(st_sync_group_t *g, const int *in, int p)
{
    g->ranks = malloc((size_t)(p > 0 ? p : 1) * sizeof(int));
    if (!g->ranks)
        return -1;
    g->size = 0;
    g->me = -1;
    for (int i = 0; i < p; i++) {
        if (!in[i])
            continue;
        if (i == st_sync.rank)
            g->me = g->size;
        g->ranks[g->size++] = i;
    }
    return 0;
}

static void params_resolve(st_sync_level_t *lv, const st_sync_level_spec_t *ls)
{
    lv->par = lv->alg->defaults;
    if (ls->nfit >= 0) lv->par.nfit = ls->nfit;
    if (ls->npp >= 0) lv->par.npp = ls->npp;
    if (ls->offset >= 0) lv->par.offset = ls->offset;
    if (ls->intercept >= 0) lv->par.intercept = ls->intercept;
    if (ls->check >= 0) lv->par.check = ls->check;
    if (ls->lsq >= 0) lv->par.lsq = ls->lsq;
    if (ls->window_ms >= 0) lv->par.window_ns = ls->window_ms * 1e6;
}

/* What a level holds, seen from this rank. */
enum { LV_ALL, LV_NODE_LEADERS, LV_SOCKET_LEADERS, LV_MINE };

static int level_kind(const st_sync_spec_t *spec, int l)
{
    if (spec->scheme == ST_SCHEME_FLAT)
        return LV_ALL;
    if (l == 0)
        return LV_NODE_LEADERS;
    return l == spec->nlevels - 1 ? LV_MINE : LV_SOCKET_LEADERS;
}

/* Is rank i in this rank's group of that kind? first[n]: lowest rank of node n. */
static int member(int kind, int i, const int *first, const int *sock, int by_socket)
{
    const int *node = st_sync.node, me = st_sync.rank;
    int same_node = node[i] == node[me];
    switch (kind) {
    case LV_ALL:
        return 1;
    case LV_NODE_LEADERS:
        return first[node[i]] == i;
    case LV_SOCKET_LEADERS:
        if (!same_node)
            return 0;
        for (int j = first[node[i]]; j < i; j++) /* a lower rank on the same socket leads it */
            if (node[j] == node[i] && sock[j] == sock[i])
                return 0;
        return 1;
    default: /* my node (h2hca) or my socket (h3hca) */
        return same_node && (!by_socket || sock[i] == sock[me]);
    }
}

int st_sync_build_levels(const st_sync_spec_t *spec, st_sync_level_t *level, const int *sock)
{
    int p = st_sync.size, rc = 0;
    int *in = calloc((size_t)p, sizeof(int)), *first = calloc((size_t)st_sync.nnodes, sizeof(int));
    for (int i = p - 1; first && i >= 0; i--)
        first[st_sync.node[i]] = i;
    for (int l = 0; in && first && rc == 0 && l < spec->nlevels; l++) {
        st_sync_level_t *lv = &level[l];
        lv->index = l;
        lv->alg = st_sync_alg_find(spec->level[l].alg);
        params_resolve(lv, &spec->level[l]);
        for (int i = 0; i < p; i++)
            in[i] = member(level_kind(spec, l), i, first, sock, spec->nlevels == 3);
        rc = group_set(&lv->grp, in, p);
    }
    rc = in && first ? rc : -1;
    free(in);
    free(first);
    return rc;
}
