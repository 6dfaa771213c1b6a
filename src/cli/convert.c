/*
 * convert.c — an archive as the rank data the shim hands to its CLC and writer
 * (src/model/rankdata.h): world-rank peers, process-local comm indices and comm
 * definitions, region ids of this build (matched by name), call sites. Both `synctrace
 * clc` and `synctrace check` derive the logical messages from it with the shim's own
 * derivation (src/relations/derive.c), so the three agree by construction.
 * The reader's events are already the model's (archive.h); converting one replaces the
 * archive's references by the rank's and drops what only the reader keeps. What the archive
 * does not store is rebuilt per rank (convert_rebuild.c); from the definitions: call paths
 * (calling contexts) and node names (the system tree; mu classes); lock kinds are not
 * stored (lock ids are distinct across kinds).
 */
#include "convert.h"
#include "convert_rebuild.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/callpath.h"
#include "../model/prepare.h"
#include "../model/region.h"

/* Per-rank conversion state. */
typedef struct conv {
    const st_cli_archive_t *ar;
    unsigned       flags;      /* ST_CLI_CONV_* */
    int32_t        nranks;
    st_rankdata_t *rd;         /* [nranks] */
    char         (*node)[64];  /* [nranks] node names from the system tree */
    uint32_t      *region;     /* [ar->nregions] this build's region id, UINT32_MAX unknown */
    uint32_t      *local;      /* [ar->ncomms] local comm index of the current rank */
    uint64_t      *scale;      /* [nranks] request-id scale K; 0: post ids stored, nothing scaled */
    uint64_t       no_post, no_seq; /* the current rank's receives / collectives without stored order */
    const st_cli_group_t *omp_locs; /* OpenMP COMM_LOCATIONS group */
} conv_t;

/* The reason of the first failure, for st_cli_convert's caller (the CLI is single-threaded). */
static char conv_err[240];

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(conv_err, sizeof conv_err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Node name of every rank: its location group's system tree node (the loader keeps them). */
static void node_names(conv_t *c)
{
    for (int32_t r = 0; r < c->nranks; r++) {
        const char *name = st_cli_group_node(c->ar, (uint32_t)r);
        snprintf(c->node[r], sizeof c->node[r], "%s", name ? name : "unknown");
    }
}

/* ---- definitions -------------------------------------------------------------------------------- */

static void map_regions(conv_t *c)
{
    for (size_t i = 0; i < c->ar->nregions; i++) {
        const char *name = st_cli_string(c->ar, c->ar->regions[i].name);
        c->region[i] = UINT32_MAX;
        for (st_region_t r = 0; r < ST_REGION__COUNT; r++)
            if (!strcmp(st_region_info(r)->name, name)) {
                c->region[i] = r;
                break;
            }
    }
}

static uint32_t region_of(const conv_t *c, uint32_t ref)
{
    const st_cli_region_t *r = st_cli_region(c->ar, ref);
    return r ? c->region[r - c->ar->regions] : UINT32_MAX;
}

static int contains(const int32_t *v, uint32_t n, int32_t x)
{
    for (uint32_t i = 0; v && i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

static int32_t *copy_ranks(const int32_t *v, uint32_t n)
{
    int32_t *out = malloc(sizeof *out * (n ? n : 1));
    if (out && n)
        memcpy(out, v, sizeof *out * n);
    return out;
}

/* The MPI communicators rank r belongs to, in archive order; c->local maps archive position -> index. */
static int build_comms(conv_t *c, int32_t r, st_rankdata_t *rd)
{
    const st_cli_archive_t *ar = c->ar;
    rd->comms = calloc(ar->ncomms ? ar->ncomms : 1, sizeof *rd->comms);
    if (!rd->comms)
        return -1;
    for (size_t i = 0; i < ar->ncomms; i++) {
        const st_cli_comm_t *cm = &ar->comms[i];
        c->local[i] = ST_NO_COMM;
        if (!cm->resolved || cm->paradigm != OTF2_PARADIGM_MPI)
            continue;
        int inter = cm->group_b != ST_CLI_NONE;
        const int32_t *a = inter ? cm->world : cm->members, *b = cm->world_b;
        uint32_t na = inter ? cm->size : cm->nmembers, nb = cm->size_b;
        if (!cm->self && !contains(a, na, r) && !(inter && contains(b, nb, r)))
            continue;
        st_comm_def_t *d = &rd->comms[rd->ncomms];
        d->key = cm->self ? (uint64_t)(uint32_t)(r + 1) << 32 | cm->id : cm->id;
        d->parent = ST_NO_COMM;
        snprintf(d->name, sizeof d->name, "%s", st_cli_string(ar, cm->name));
        if (cm->self) {
            d->flags = ST_COMMF_SELF, d->size = 1, d->world = copy_ranks(&r, 1);
        } else if (inter) {
            int mine_a = contains(a, na, r);
            d->flags = ST_COMMF_INTER;
            d->size = mine_a ? na : nb, d->world = copy_ranks(mine_a ? a : b, d->size);
            d->remote_size = mine_a ? nb : na, d->remote_world = copy_ranks(mine_a ? b : a, d->remote_size);
            if (!d->remote_world)
                return -1;
        } else {
            d->flags = !strcmp(d->name, "MPI_COMM_WORLD") ? ST_COMMF_WORLD : 0;
            d->size = na, d->world = copy_ranks(a, na);
        }
        if (!d->world)
            return -1;
        d->nwins = cm->nwins;
        c->local[i] = rd->ncomms++;
    }
    return 0;
}

static uint32_t local_comm(const conv_t *c, uint32_t ref)
{
    const st_cli_comm_t *cm = st_cli_comm(c->ar, ref);
    return cm ? c->local[cm - c->ar->comms] : ST_NO_COMM;
}

static int add_callsite(st_rankdata_t *rd, uint32_t ref, const char *text, uint64_t *pc)
{
    *pc = (uint64_t)ref + 1;
    for (uint32_t i = 0; i < rd->ncallsites; i++)
        if (rd->callsites[i].pc == *pc)
            return 0;
    st_callsite_t *v = realloc(rd->callsites, sizeof *v * (rd->ncallsites + 1));
    if (!v)
        return -1;
    rd->callsites = v;
    v[rd->ncallsites] = (st_callsite_t){ .pc = *pc, .text = strdup(text) };
    if (!v[rd->ncallsites].text)
        return -1;
    rd->ncallsites++;
    return 0;
}

/* Thread number and size of location `loc` in an OpenMP team communicator. */
static int team_place(const conv_t *c, uint32_t team, uint64_t loc, int32_t *num, int32_t *size)
{
    const st_cli_comm_t *cm = st_cli_comm(c->ar, team);
    const st_cli_group_t *g = cm ? st_cli_group(c->ar, cm->group) : NULL;
    if (!g || !c->omp_locs)
        return -1;
    for (uint32_t i = 0; i < g->n; i++) {
        uint64_t m = g->members[i];
        if (g->type == OTF2_GROUP_TYPE_COMM_GROUP)
            m = m < c->omp_locs->n ? c->omp_locs->members[m] : UINT64_MAX;
        if (m == loc) {
            *num = (int32_t)i;
            *size = (int32_t)g->n;
            return 0;
        }
    }
    return -1;
}

/* ---- events ----------------------------------------------------------------------------------------- */

/* Local communicator and INTERCOMM flag of a message or collective; -1 when comm or peer is unknown. */
static int message_event(const conv_t *c, const st_rankdata_t *rd, const st_event_t *e, st_event_t *x)
{
    x->comm = local_comm(c, e->comm);
    if (x->comm == ST_NO_COMM || (e->flags & ST_CLI_EVF_BADPEER))
        return -1;
    if (rd->comms[x->comm].flags & ST_COMMF_INTER)
        x->flags |= ST_EVF_INTERCOMM;
    return 0;
}

/* Which PSCW synchronization (events.def: RMA_GROUP_SYNC.op) the call of region r is; 0 none. */
static uint16_t pscw_op(uint32_t r)
{
    return r == ST_REGION_MPI_Win_post       ? ST_PSCW_POST
         : r == ST_REGION_MPI_Win_start      ? ST_PSCW_START
         : r == ST_REGION_MPI_Win_complete   ? ST_PSCW_COMPLETE
         : r == ST_REGION_MPI_Win_wait || r == ST_REGION_MPI_Win_test ? ST_PSCW_WAIT : 0;
}

/* An RmaGroupSync as recorded: which call it is (OTF2 does not say: the region of the call it is in,
 * enter), and its group (e->id: the archive's Group, members world ranks) in the rank's table. */
static int group_sync(const conv_t *c, st_rankdata_t *rd, const st_event_t *e, uint32_t enter, st_event_t *x)
{
    x->op = pscw_op(enter);
    x->id = 0;
    const st_cli_group_t *g = e->id != OTF2_UNDEFINED_GROUP ? st_cli_group(c->ar, (uint32_t)e->id) : NULL;
    if (!g || g->n == 0 || (x->op != ST_PSCW_POST && x->op != ST_PSCW_START))
        return 0;
    int32_t *m = malloc(g->n * sizeof *m);
    if (!m)
        return -1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n; i++)
        if (g->members[i] < (uint64_t)c->nranks)
            m[n++] = (int32_t)g->members[i];
    int rc = st_rankdata_group_intern(rd, m, n, &x->id);
    free(m);
    return rc;
}

/* An archive event as the shim would have recorded it, as far as the archive tells: the
 * reader's event (archive.h) without its time before CLC and its reader flags, with this
 * build's region, the rank's local communicator and call site. Task ids and the post order
 * are completed per rank afterwards. */
static int convert_event(conv_t *c, st_rankdata_t *rd, const st_cli_location_t *L, const st_event_t *e,
                         uint32_t enter, st_event_t *x)
{
    *x = *e;
    x->time = c->flags & ST_CLI_CONV_RAW ? st_cli_event_orig(e) : e->time;
    if (e->flags & ST_EVF_CLC_MOVED) /* the time before CLC has no place in the shim's events */
        st_event_set_orig_time(x, 0);
    x->flags = e->flags & ST_EVF_PROC_NULL;
    switch (e->kind) {
    case ST_EV_ENTER:
    case ST_EV_LEAVE:
        if ((x->region = region_of(c, e->region)) == UINT32_MAX && (c->flags & ST_CLI_CONV_CHECK))
            x->region = ST_REGION__COUNT; /* no relation starts at a region this build does not know */
        else if (x->region == UINT32_MAX)
            return bad("region '%s' is not one of this build's",
                       st_cli_string(c->ar, st_cli_region(c->ar, e->region) ? st_cli_region(c->ar, e->region)->name : 0));
        if (e->kind == ST_EV_ENTER && e->aux &&
            add_callsite(rd, (uint32_t)(e->aux - 1), st_cli_string(c->ar, (uint32_t)(e->aux - 1)), &x->aux))
            return bad("out of memory");
        if (e->kind == ST_EV_ENTER) { /* the archive index for now (rank_callpaths) */
            const st_cli_cctx_t *cc = st_event_callpath(e) != ST_CP_NONE ? st_cli_cctx(c->ar, st_event_callpath(e)) : NULL;
            st_event_set_callpath(x, cc ? (uint32_t)(cc - c->ar->cctxs) : ST_CP_NONE);
        }
        return 0;
    case ST_EV_MPI_SEND: case ST_EV_MPI_ISEND: case ST_EV_MPI_RECV: case ST_EV_MPI_IRECV:
        if (message_event(c, rd, e, x))
            return bad("rank %d thread %u: a message on an unknown communicator or with an unknown peer", L->rank,
                       L->thread);
        c->no_post += e->kind == ST_EV_MPI_RECV && !x->id;
        return 0;
    case ST_EV_MPI_COLL_END: case ST_EV_MPI_ICOLL_COMPLETE:
        if (message_event(c, rd, e, x))
            return bad("rank %d thread %u: a collective on an unknown communicator or with an unknown root",
                       L->rank, L->thread);
        if (x->peer < 0 || x->peer == L->rank) /* roots as recorded (event.h): only a remote one is INTERCOMM */
            x->flags &= (uint8_t)~ST_EVF_INTERCOMM;
        c->no_seq += !(e->flags & ST_CLI_EVF_ORDER);
        return 0;
    case ST_EV_THREAD_FORK: case ST_EV_THREAD_JOIN: case ST_EV_THREAD_TEAM_BEGIN: case ST_EV_THREAD_TEAM_END:
        if (!(e->flags & ST_CLI_EVF_PID))
            return bad("rank %d thread %u: an OpenMP team event without synctrace:parallel_id", L->rank, L->thread);
        if (e->kind == ST_EV_THREAD_TEAM_BEGIN || e->kind == ST_EV_THREAD_TEAM_END) {
            int32_t num, size;
            if (team_place(c, e->comm, L->id, &num, &size))
                return bad("rank %d thread %u: not a member of its OpenMP team", L->rank, L->thread);
            x->comm = 0;
            x->peer = num;
            x->tag = e->kind == ST_EV_THREAD_TEAM_BEGIN ? size : 0;
        }
        return 0;
    case ST_EV_RMA_WIN_CREATE: case ST_EV_RMA_WIN_DESTROY: case ST_EV_RMA_COLL_BEGIN: case ST_EV_RMA_COLL_END:
    case ST_EV_RMA_GROUP_SYNC: case ST_EV_RMA_REQUEST_LOCK: case ST_EV_RMA_RELEASE_LOCK: case ST_EV_RMA_SYNC:
    case ST_EV_RMA_ACQUIRE_LOCK:
    case ST_EV_RMA_PUT: case ST_EV_RMA_GET: case ST_EV_RMA_ATOMIC: case ST_EV_RMA_OP_COMPLETE_REMOTE:
    case ST_EV_RMA_OP_COMPLETE_NONBLOCKING:
        /* the window as recorded: its communicator's local index and its number there (no window: none) */
        x->region = 0;
        x->comm = e->comm == ST_CLI_NONE ? ST_NO_COMM : local_comm(c, e->comm);
        if (e->flags & ST_CLI_EVF_BADPEER)
            x->peer = -1;
        if (e->kind == ST_EV_RMA_GROUP_SYNC && group_sync(c, rd, e, enter, x))
            return bad("out of memory");
        return 0;
    default:
        if (e->kind < ST_EV__COUNT) /* the same fields as recorded; task ids: (team, creator, generation) for now */
            return 0;
        if (c->flags & ST_CLI_CONV_CHECK) { /* a record of another tool: no relation, a place holder */
            *x = (st_event_t){ .time = x->time, .kind = ST_EV_LEAVE, .region = ST_REGION__COUNT, .peer = -1 };
            return 0;
        }
        return bad("rank %d thread %u: event type '%s' is not written by synctrace", L->rank, L->thread,
                   st_event_kind_name(e->kind));
    }
}

/* ---- call paths ------------------------------------------------------------------------------------- */

/* Depth of archive calling context i (1: no parent); 0 for a broken chain (a cycle, a missing parent). */
static uint32_t cctx_depth(const st_cli_archive_t *ar, size_t i)
{
    uint32_t d = 1;
    for (const st_cli_cctx_t *x = &ar->cctxs[i]; x->parent != ST_CLI_NONE; d++)
        if (!(x = st_cli_cctx(ar, x->parent)) || d > ar->ncctxs)
            return 0;
    return d;
}

/* "function (file:line)", the text the shim resolves a frame to (callpath.h). */
static char *cctx_text(const st_cli_archive_t *ar, const st_cli_cctx_t *x)
{
    const st_cli_region_t *reg = st_cli_region(ar, x->region);
    const st_cli_scl_t *scl = x->scl != ST_CLI_NONE ? st_cli_scl(ar, x->scl) : NULL;
    const char *fn = reg ? st_cli_string(ar, reg->name) : "?", *file = scl ? st_cli_string(ar, scl->file) : "";
    size_t n = strlen(fn) + strlen(file) + 16; /* names of any length, whole */
    char *text = malloc(n);
    if (text && scl)
        snprintf(text, n, "%s (%s:%u)", fn, file, scl->line);
    else if (text)
        snprintf(text, n, "%s", fn);
    return text;
}

/*
 * The rank's call tree from the calling contexts its ENTERs name (which convert_event stored as
 * archive indices): those contexts and their ancestors, parents first, as rd->cpnodes; a node's
 * pc is a key (1 << 62 | archive index) of its text in rd->callsites. ENTERs then name nodes.
 */
static int rank_callpaths(const st_cli_archive_t *ar, st_rankdata_t *rd)
{
    size_t n = ar->ncctxs, used = 0;
    uint32_t *node = n ? malloc(sizeof *node * n) : NULL, *depth = n ? calloc(n, sizeof *depth) : NULL, maxd = 0;
    int rc = n && (!node || !depth) ? -1 : 0;
    for (size_t i = 0; i < n && node; i++)
        node[i] = ST_CP_NONE;
    for (uint32_t t = 0; rc == 0 && t < rd->nthreads; t++) /* mark the contexts named and their ancestors */
        for (uint64_t k = 0; k < rd->threads[t].nevents; k++) {
            uint32_t i = st_event_callpath(&rd->threads[t].events[k]);
            for (; i < n && !depth[i] && (depth[i] = cctx_depth(ar, i)); used++) {
                maxd = depth[i] > maxd ? depth[i] : maxd;
                const st_cli_cctx_t *p = ar->cctxs[i].parent != ST_CLI_NONE ? st_cli_cctx(ar, ar->cctxs[i].parent) : NULL;
                i = p ? (uint32_t)(p - ar->cctxs) : ST_CP_NONE;
            }
        }
    if (rc == 0 && used && (!(rd->cpnodes = calloc(used, sizeof *rd->cpnodes)) ||
                            !(rd->callsites = realloc(rd->callsites, sizeof *rd->callsites * (rd->ncallsites + used)))))
        rc = -1;
    for (uint32_t d = 1; rc == 0 && used && d <= maxd; d++) /* parents first: by depth */
        for (size_t i = 0; rc == 0 && i < n; i++) {
            if (depth[i] != d)
                continue;
            const st_cli_cctx_t *p = ar->cctxs[i].parent != ST_CLI_NONE ? st_cli_cctx(ar, ar->cctxs[i].parent) : NULL;
            uint64_t pc = 1ull << 62 | i;
            node[i] = rd->ncpnodes;
            rd->cpnodes[rd->ncpnodes++] = (st_cpnode_t){ .parent = p ? node[p - ar->cctxs] : ST_CP_NONE, .pc = pc };
            st_callsite_t *cs = &rd->callsites[rd->ncallsites];
            const st_cli_region_t *reg = st_cli_region(ar, ar->cctxs[i].region);
            if (!(cs->text = cctx_text(ar, &ar->cctxs[i])))
                rc = -1;
            else
                cs->pc = pc, cs->fn_begin = reg ? reg->begin : 0, cs->fn_end = reg ? reg->end : 0, rd->ncallsites++;
        }
    for (uint32_t t = 0; rc == 0 && t < rd->nthreads; t++)
        for (uint64_t k = 0; k < rd->threads[t].nevents; k++) {
            st_event_t *e = &rd->threads[t].events[k];
            uint32_t i = st_event_callpath(e);
            if (i != ST_CP_NONE)
                st_event_set_callpath(e, i < n ? node[i] : ST_CP_NONE);
        }
    free(node);
    free(depth);
    return rc ? bad("out of memory") : 0;
}

static int omp_num(const char *name)
{
    int n;
    return sscanf(name, "OMP thread %d", &n) == 1 ? n : -1;
}

static int convert_rank(conv_t *c, int32_t r)
{
    const st_cli_archive_t *ar = c->ar;
    st_rankdata_t *rd = &c->rd[r];
    rd->rank = r, rd->nranks = c->nranks, rd->timer_resolution = ar->resolution;
    snprintf(rd->nodename, sizeof rd->nodename, "%s", c->node[r]);
    snprintf(rd->hostname, sizeof rd->hostname, "%s", c->node[r]);
    if (build_comms(c, r, rd))
        return bad("out of memory");
    size_t first = 0;
    while (first < ar->nlocs && ar->locs[first].rank != r)
        first++;
    size_t end = first;
    while (end < ar->nlocs && ar->locs[end].rank == r)
        end++;
    c->no_post = c->no_seq = 0;
    rd->threads = calloc(end - first + 1, sizeof *rd->threads);
    if (!rd->threads)
        return bad("out of memory");
    for (size_t l = first; l < end; l++) {
        const st_cli_location_t *L = &ar->locs[l];
        st_thread_data_t *td = &rd->threads[rd->nthreads++];
        td->index = L->thread;
        td->omp_num = omp_num(st_cli_string(ar, L->name));
        td->events = malloc(sizeof *td->events * (L->n + 1));
        if (!td->events)
            return bad("out of memory");
        uint32_t enter = UINT32_MAX; /* the region of the last ENTER */
        for (size_t i = 0; i < L->n; i++) {
            st_event_t *x = &td->events[td->nevents++];
            if (convert_event(c, rd, L, &L->ev[i], enter, x))
                return -1;
            if (x->kind == ST_EV_ENTER)
                enter = x->region;
        }
    }
    if (rank_callpaths(ar, rd))
        return -1;
    /* Archives of earlier versions lack the post order and collective instances: rebuilt. */
    if (c->no_post && st_cli_rebuild_post_ids(rd, &c->scale[r], conv_err, sizeof conv_err))
        return -1;
    if ((c->no_seq && st_cli_rebuild_coll_seqs(rd)) || st_cli_rebuild_task_ids(rd))
        return bad("out of memory");
    return 0;
}

static void copy_props(const st_cli_archive_t *ar, st_rankdata_t *rd0)
{
    for (size_t i = 0; i < ar->nprops; i++) {
        const char *n = ar->props[i].name;
        if (strncmp(n, "SYNCTRACE::", 11) || !strcmp(n + 11, "INCOMPLETE") || !strncmp(n + 11, "CLC_", 4) ||
            !strncmp(n + 11, "FINALIZE_CLC_", 13))
            continue;
        st_rankdata_prop(rd0, n + 11, "%s", ar->props[i].value);
    }
}

/* The calls a filter removed (archive.h, st_cli_filtered) into each rank's rd->filtered, regions by name. */
static int convert_filtered(conv_t *c)
{
    st_cli_filtered_t *f;
    size_t n;
    if (st_cli_filtered(c->ar, &f, &n))
        return bad("out of memory");
    for (size_t i = 0; i < n; i++) {
        uint32_t region = 0;
        while (region < ST_REGION__COUNT && strcmp(st_region_info(region)->name, f[i].region))
            region++;
        if (f[i].rank < 0 || f[i].rank >= c->nranks || region == ST_REGION__COUNT)
            continue; /* a region this version does not know: not analysed */
        st_rankdata_t *rd = &c->rd[f[i].rank];
        st_filtered_sum_t *grown = realloc(rd->filtered, sizeof *grown * (rd->nfiltered + 1));
        if (!grown) {
            free(f);
            return bad("out of memory");
        }
        rd->filtered = grown;
        rd->filtered[rd->nfiltered++] =
            (st_filtered_sum_t){ .thread = f[i].thread, .region = region, .visits = f[i].visits, .time = f[i].time };
    }
    free(f);
    return 0;
}

static const st_cli_group_t *omp_locations(const st_cli_archive_t *ar)
{
    for (size_t i = 0; i < ar->ngroups; i++)
        if (ar->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && ar->groups[i].paradigm == OTF2_PARADIGM_OPENMP)
            return &ar->groups[i];
    return NULL;
}

static int convert(conv_t *c)
{
    const st_cli_archive_t *ar = c->ar;
    for (size_t l = 0; l < ar->nlocs; l++)
        if (ar->locs[l].rank + 1 > c->nranks)
            c->nranks = ar->locs[l].rank + 1;
    c->rd = calloc((size_t)c->nranks + 1, sizeof *c->rd);
    c->node = calloc((size_t)c->nranks + 1, sizeof *c->node);
    c->region = malloc(sizeof *c->region * (ar->nregions + 1));
    c->local = malloc(sizeof *c->local * (ar->ncomms + 1));
    c->scale = calloc((size_t)c->nranks + 1, sizeof *c->scale);
    if (!c->rd || !c->node || !c->region || !c->local || !c->scale)
        return bad("out of memory");
    c->omp_locs = omp_locations(ar);
    if (!(c->flags & ST_CLI_CONV_CHECK))
        node_names(c);
    map_regions(c);
    for (int32_t r = 0; r < c->nranks; r++)
        if (convert_rank(c, r))
            return -1;
    copy_props(ar, &c->rd[0]);
    return convert_filtered(c);
}

/* ---- entry points ---------------------------------------------------------------------------------------- */

int st_cli_convert(const st_cli_archive_t *ar, unsigned flags, st_cli_ranks_t *out, char *err, size_t errlen)
{
    conv_t c = { .ar = ar, .flags = flags };
    conv_err[0] = 0;
    int rc = convert(&c);
    if (rc)
        snprintf(err, errlen, "%s", conv_err[0] ? conv_err : "out of memory");
    free(c.node), free(c.region), free(c.local);
    *out = (st_cli_ranks_t){ .nranks = c.nranks, .rd = c.rd, .scale = c.scale };
    if (rc)
        st_cli_ranks_free(out);
    return rc;
}

void st_cli_ranks_unscale(st_cli_ranks_t *r)
{
    for (int32_t i = 0; i < r->nranks; i++)
        st_cli_unscale_ids(&r->rd[i], r->scale[i]);
}

void st_cli_ranks_free(st_cli_ranks_t *r)
{
    for (int32_t i = 0; r->rd && i < r->nranks; i++)
        st_rankdata_free(&r->rd[i]);
    free(r->rd), free(r->scale);
    memset(r, 0, sizeof *r);
}
