/*
 * numbering.c — the global numbering of an archive's definitions (st_otf2_numbering,
 * laid out in writer_int.h and described in writer.h) and its view (st_otf2_nb_view,
 * st_otf2_nb_comm): the checks of ranks and thread indices, communicator ids in an
 * order where parents precede children, and each rank's first team, call-site and
 * calling-context ids, and the RMA windows of each communicator.
 */
#include "writer_int.h"

#include <stdlib.h>
#include <string.h>

#include "../util/log.h"
#include "../util/msort.h"

/* ---- numbering ------------------------------------------------------------------------------ */

int st_otf2_world_size(st_rankdata_t *const *defs, int n)
{
    int32_t w = 0;
    for (int i = 0; i < n; i++) {
        if (defs[i]->nranks > w)
            w = defs[i]->nranks;
        if (defs[i]->rank >= w)
            w = defs[i]->rank + 1;
    }
    return w;
}

/* Thread indices must be distinct and below ST_MAX_THREADS_PER_RANK, or location ids collide. */
static int check_threads(const st_rankdata_t *rd)
{
    for (uint32_t i = 0; i < rd->nthreads; i++) {
        int dup = rd->threads[i].index >= ST_MAX_THREADS_PER_RANK;
        for (uint32_t k = 0; k < i && !dup; k++)
            dup = rd->threads[k].index == rd->threads[i].index;
        if (dup) {
            st_log_error("OTF2 archive: rank %d: thread index %u is duplicated or >= %u", rd->rank,
                         rd->threads[i].index, ST_MAX_THREADS_PER_RANK);
            return ST_OTF2_ERR_DATA;
        }
    }
    return ST_OTF2_OK;
}

/* 0 when every rank is in [0, w), appears at most once and has valid thread indices. */
static int check_ranks(st_rankdata_t *const *defs, int n, int w)
{
    uint8_t *seen = calloc((size_t)w + 1, 1);
    int rc = seen ? 0 : ST_OTF2_ERR_NOMEM;
    for (int i = 0; rc == 0 && i < n; i++) {
        int32_t r = defs[i]->rank;
        if (r < 0 || r >= w || seen[r]) {
            st_log_error("OTF2 archive: rank %d appears twice or is out of range (world size %d)", r, w);
            rc = ST_OTF2_ERR_DATA;
        } else {
            seen[r] = 1;
            rc = check_threads(defs[i]);
        }
    }
    free(seen);
    return rc;
}

static uint64_t *collect_keys(st_rankdata_t *const *defs, int n, uint64_t *nkeys, int *has_self)
{
    size_t cap = 1;
    for (int i = 0; i < n; i++)
        cap += defs[i]->ncomms;
    uint64_t *keys = malloc(cap * sizeof *keys);
    size_t k = 0;
    *has_self = 0;
    for (int i = 0; keys && i < n; i++)
        for (uint32_t c = 0; c < defs[i]->ncomms; c++) {
            if (defs[i]->comms[c].flags & ST_COMMF_SELF)
                *has_self = 1;
            else
                keys[k++] = defs[i]->comms[c].key;
        }
    if (keys && k > 1) {
        qsort(keys, k, sizeof *keys, st_cmp_u64);
        size_t u = 1;
        for (size_t i = 1; i < k; i++)
            if (keys[i] != keys[u - 1])
                keys[u++] = keys[i];
        k = u;
    }
    *nkeys = k;
    return keys;
}

/* Node of the communicator tree: 0..nkeys-1 the keys, nkeys MPI_COMM_SELF. */
typedef struct comm_node {
    uint64_t key, parent, depth;
    int      world, self;
} comm_node_t;

#define NO_NODE UINT64_MAX

static uint64_t node_of(const st_rankdata_t *rd, uint32_t i, const uint64_t *keys, uint64_t nkeys)
{
    if (i >= rd->ncomms)
        return NO_NODE;
    if (rd->comms[i].flags & ST_COMMF_SELF)
        return nkeys;
    const uint64_t *k = bsearch(&rd->comms[i].key, keys, nkeys, sizeof *k, st_cmp_u64);
    return k ? (uint64_t)(k - keys) : NO_NODE;
}

static void node_depths(comm_node_t *nodes, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = 0, p = nodes[i].parent;
        while (p != NO_NODE && d <= n) {
            p = nodes[p].parent;
            d++;
        }
        if (d > n) { /* a cycle in corrupt data: cut it here */
            nodes[i].parent = NO_NODE;
            d = 0;
        }
        nodes[i].depth = d;
    }
}

static int cmp_node(const void *a, const void *b)
{
    const comm_node_t *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->self != y->self)
        return x->self - y->self;   /* MPI_COMM_SELF after the other roots */
    if (x->world != y->world)
        return y->world - x->world; /* MPI_COMM_WORLD first */
    return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * Ids in an order where every parent precedes its children: by depth in the
 * parent tree, WORLD first, then by key. otf2-print warns about Comm definitions
 * whose ids are not increasing and about parents defined later, so plain key
 * order is not enough. ids[k] is the id of keys[k]; returns the id of SELF.
 */
static int order_comms(st_rankdata_t *const *defs, int n, const uint64_t *keys, uint64_t nkeys, int has_self,
                       uint64_t *ids, uint64_t *self_id)
{
    uint64_t m = nkeys + (uint64_t)has_self;
    comm_node_t *nodes = calloc(m + 1, sizeof *nodes);
    if (!nodes)
        return -1;
    for (uint64_t k = 0; k < m; k++)
        nodes[k] = (comm_node_t){ k < nkeys ? keys[k] : 0, NO_NODE, 0, 0, k == nkeys };
    for (int r = 0; r < n; r++)
        for (uint32_t i = 0; i < defs[r]->ncomms; i++) {
            const st_comm_def_t *c = &defs[r]->comms[i];
            uint64_t k = node_of(defs[r], i, keys, nkeys);
            if (k == NO_NODE || k == nkeys)
                continue;
            nodes[k].world |= (c->flags & ST_COMMF_WORLD) != 0;
            if (nodes[k].parent == NO_NODE && c->parent != ST_NO_COMM)
                nodes[k].parent = node_of(defs[r], c->parent, keys, nkeys);
        }
    node_depths(nodes, m);
    for (uint64_t k = 0; k < m; k++)
        nodes[k].parent = k; /* reused: remember the node through the sort */
    qsort(nodes, m, sizeof *nodes, cmp_node);
    *self_id = OTF2_UNDEFINED_COMM;
    for (uint64_t id = 0; id < m; id++) {
        if (nodes[id].parent == nkeys)
            *self_id = id;
        else
            ids[nodes[id].parent] = id;
    }
    free(nodes);
    return 0;
}

/*
 * RMA windows: a communicator's windows are numbered 0..n-1 by every member that created them
 * (st_comm_def_t.nwins), so the communicator's n is the largest any rank reports; the ids of global
 * communicator c's windows are base[c] .. base[c + 1] - 1, in communicator id order.
 */
static void number_windows(st_rankdata_t *const *defs, int n, const uint64_t *keys_ids, uint64_t nkeys,
                           uint64_t self, uint64_t *base, uint64_t ncomms)
{
    const uint64_t *keys = keys_ids, *ids = keys_ids + nkeys;
    for (int r = 0; r < n; r++)
        for (uint32_t i = 0; i < defs[r]->ncomms; i++) {
            const st_comm_def_t *c = &defs[r]->comms[i];
            const uint64_t *k = c->flags & ST_COMMF_SELF ? NULL : bsearch(&c->key, keys, nkeys, sizeof *k, st_cmp_u64);
            uint64_t id = c->flags & ST_COMMF_SELF ? self : k ? ids[k - keys] : OTF2_UNDEFINED_COMM;
            if (id < ncomms && c->nwins > base[id])
                base[id] = c->nwins;
        }
    uint64_t sum = 0;
    for (uint64_t id = 0; id <= ncomms; id++) {
        uint64_t nw = id < ncomms ? base[id] : 0;
        base[id] = sum;
        sum += nw;
    }
}

uint64_t *st_otf2_numbering(st_rankdata_t *const *defs, int ndefs, size_t *len)
{
    int w = st_otf2_world_size(defs, ndefs), has_self = 0;
    if (check_ranks(defs, ndefs, w) != 0)
        return NULL;
    uint64_t nkeys = 0, *keys = collect_keys(defs, ndefs, &nkeys, &has_self);
    uint64_t ncomms = nkeys + (uint64_t)has_self;
    size_t n = NB_HDR + 4 * (size_t)w + 2 * nkeys + ncomms + 1;
    uint64_t *num = keys ? calloc(n, sizeof *num) : NULL;
    uint64_t *team_base = num + NB_HDR, *cs_base = team_base + w, *cp_base = cs_base + w, self = OTF2_UNDEFINED_COMM;
    if (!num || order_comms(defs, ndefs, keys, nkeys, has_self, cp_base + w + nkeys, &self) != 0) {
        free(keys);
        free(num);
        st_log_error("OTF2 archive: out of memory while numbering definitions");
        return NULL;
    }
    uint64_t first_team = nkeys + (uint64_t)has_self;
    for (int i = 0; i < ndefs; i++) { /* per-rank counts, turned into prefix sums below */
        team_base[defs[i]->rank] = defs[i]->nteams;
        cs_base[defs[i]->rank] = defs[i]->ncallsites;
        cp_base[defs[i]->rank] = defs[i]->cpnodes ? defs[i]->ncpnodes : 0;
    }
    uint64_t teams = 0, cs = 0, cp = 0;
    for (int r = 0; r < w; r++) {
        uint64_t t = team_base[r], c = cs_base[r], p = cp_base[r];
        team_base[r] = first_team + teams;
        cs_base[r] = cs;
        cp_base[r] = cp;
        teams += t;
        cs += c;
        cp += p;
    }
    memcpy(cp_base + w, keys, nkeys * sizeof *keys);
    free(keys);
    number_windows(defs, ndefs, cp_base + w, nkeys, self, cp_base + w + 2 * nkeys, ncomms);
    uint64_t *group_base = cp_base + w + 2 * nkeys + ncomms + 1, ngroups = 0;
    for (int i = 0; i < ndefs; i++)
        group_base[defs[i]->rank] = defs[i]->groups ? defs[i]->ngroups : 0;
    for (int r = 0; r < w; r++) {
        uint64_t k = group_base[r];
        group_base[r] = ngroups;
        ngroups += k;
    }
    num[NB_MAGIC] = ST_NB_MAGIC;
    num[NB_WORLD] = (uint64_t)w;
    num[NB_NKEYS] = nkeys;
    num[NB_SELF] = self;
    num[NB_NCALLSITES] = cs;
    num[NB_NTEAMS] = teams;
    num[NB_NCPNODES] = cp;
    num[NB_NGROUPS] = ngroups;
    *len = n;
    return num;
}

int st_otf2_nb_view(const uint64_t *num, size_t len, st_otf2_nb_t *v)
{
    uint64_t ncomms = num && len >= NB_HDR ? num[NB_NKEYS] + (num[NB_SELF] != OTF2_UNDEFINED_COMM) : 0;
    if (!num || len < NB_HDR || num[NB_MAGIC] != ST_NB_MAGIC || num[NB_WORLD] > INT32_MAX ||
        num[NB_NKEYS] > UINT32_MAX - 1 || len != NB_HDR + 4 * num[NB_WORLD] + 2 * num[NB_NKEYS] + ncomms + 1) {
        st_log_error("OTF2 archive: malformed definition numbering (%zu elements)", len);
        return -1;
    }
    v->world = (uint32_t)num[NB_WORLD];
    v->nkeys = (uint32_t)num[NB_NKEYS];
    v->self = (uint32_t)num[NB_SELF];
    v->ncallsites = num[NB_NCALLSITES];
    v->nteams = num[NB_NTEAMS];
    v->team_base = num + NB_HDR;
    v->cs_base = v->team_base + v->world;
    v->ncpnodes = num[NB_NCPNODES];
    v->cp_base = v->cs_base + v->world;
    v->keys = v->cp_base + v->world;
    v->ids = v->keys + v->nkeys;
    v->ncomms = v->nkeys + (v->self != OTF2_UNDEFINED_COMM);
    v->win_base = v->ids + v->nkeys;
    v->nwins = v->win_base[v->ncomms];
    v->ngroups = num[NB_NGROUPS];
    v->group_base = v->win_base + v->ncomms + 1;
    for (uint32_t c = 0; c < v->ncomms; c++)
        if (v->win_base[c] > v->win_base[c + 1] || v->win_base[c + 1] > UINT32_MAX) {
            st_log_error("OTF2 archive: malformed window numbering");
            return -1;
        }
    for (uint32_t k = 0; k < v->nkeys; k++)
        if (v->ids[k] >= v->ncomms) {
            st_log_error("OTF2 archive: malformed communicator numbering");
            return -1;
        }
    return 0;
}

uint32_t st_otf2_nb_comm(const st_otf2_nb_t *v, const st_rankdata_t *rd, uint32_t i)
{
    if (i >= rd->ncomms)
        return OTF2_UNDEFINED_COMM;
    const st_comm_def_t *c = &rd->comms[i];
    if (c->flags & ST_COMMF_SELF)
        return v->self;
    const uint64_t *k = bsearch(&c->key, v->keys, v->nkeys, sizeof *k, st_cmp_u64);
    return k ? (uint32_t)v->ids[k - v->keys] : OTF2_UNDEFINED_COMM;
}

uint32_t st_otf2_nb_win(const st_otf2_nb_t *v, const st_rankdata_t *rd, uint32_t comm, uint32_t seq)
{
    uint32_t c = st_otf2_nb_comm(v, rd, comm);
    if (c >= v->ncomms || seq >= v->win_base[c + 1] - v->win_base[c])
        return OTF2_UNDEFINED_RMA_WIN;
    return (uint32_t)(v->win_base[c] + seq);
}
