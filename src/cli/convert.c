/*
 * convert.c — an archive as the rank data the shim hands to its CLC and writer
 * (src/model/rankdata.h): world-rank peers, process-local comm indices and comm
 * definitions, region ids of this build (matched by name), call sites. Both `synctrace
 * clc` and `synctrace check` derive the logical messages from it with the shim's own
 * derivation (src/relations/derive.c), so the three agree by construction.
 * What OTF2 has no field for, the writer stores as attributes: a blocking receive's post
 * id (synctrace:post_id; request ids come from the same process-wide counter, so together
 * they are the post order deps.c matches receives by) and a collective's instance number
 * (synctrace:coll_seq). Archives of earlier versions lack them; for those (per rank, when
 * any receive or collective lacks it) they are rebuilt as before:
 *  - receive post order: request ids are scaled by K and a blocking receive gets an id
 *    between its thread's previous and next request (exact on one thread; receives of one
 *    channel posted concurrently by several threads are ordered as recorded); after CLC
 *    the request ids are unscaled and the rebuilt receive ids dropped (not written);
 *  - collective instance numbers: per communicator, in the order of the events that
 *    drew them in the shim (a blocking collective's end, a nonblocking one's request).
 * Rebuilt from what OTF2 stores, as a mapping of identities:
 *  - OpenMP task ids: explicit tasks numbered by (team, creator, generation), implicit
 *    tasks by (parallel region, thread); the task a switch leaves is the one the thread
 *    ran before; lock kinds are not stored (lock ids are distinct across kinds);
 *  - node names from the system tree (mu classes).
 */
#include "convert.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- node names: the system tree the CLI reader does not load ------------------------------------ */

typedef struct tree_ctx {
    const st_cli_archive_t *ar;
    conv_t  *c;
    uint64_t *node_ref; /* [nranks] */
    struct { uint64_t id; uint32_t name; } *nodes;
    size_t   nnodes, cap;
} tree_ctx_t;

static OTF2_CallbackCode on_tree_node(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                      OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    (void)cls, (void)parent;
    tree_ctx_t *t = u;
    if (t->nnodes == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        void *p = realloc(t->nodes, cap * sizeof *t->nodes);
        if (!p)
            return OTF2_CALLBACK_INTERRUPT;
        t->nodes = p;
        t->cap = cap;
    }
    t->nodes[t->nnodes].id = self;
    t->nodes[t->nnodes++].name = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                  OTF2_LocationGroupRef creator)
{
    (void)name, (void)type, (void)creator;
    tree_ctx_t *t = u;
    if (self < (uint64_t)t->c->nranks)
        t->node_ref[self] = parent;
    return OTF2_CALLBACK_SUCCESS;
}

/* Node name of every rank (location group id = rank, its system-tree parent = the node). */
static int read_nodes(conv_t *c)
{
    tree_ctx_t t = { .ar = c->ar, .c = c, .node_ref = malloc(sizeof(uint64_t) * (size_t)c->nranks) };
    OTF2_Reader *rd = OTF2_Reader_Open(c->ar->path);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReader *gr = NULL;
    int rc = t.node_ref && rd && cb ? 0 : -1;
    for (int32_t r = 0; t.node_ref && r < c->nranks; r++)
        t.node_ref[r] = UINT64_MAX;
    if (rc == 0 && (OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS ||
                    !(gr = OTF2_Reader_GetGlobalDefReader(rd))))
        rc = -1;
    if (rc == 0) {
        uint64_t n = 0;
        OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_tree_node);
        OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_group);
        if (OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, cb, &t) != OTF2_SUCCESS ||
            OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &n) != OTF2_SUCCESS)
            rc = -1;
    }
    for (int32_t r = 0; rc == 0 && r < c->nranks; r++) {
        const char *name = "unknown";
        for (size_t i = 0; i < t.nnodes; i++)
            if (t.nodes[i].id == t.node_ref[r])
                name = st_cli_string(c->ar, t.nodes[i].name);
        snprintf(c->node[r], sizeof c->node[r], "%s", name);
    }
    if (gr)
        OTF2_Reader_CloseGlobalDefReader(rd, gr);
    if (cb)
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (rd)
        OTF2_Reader_Close(rd);
    free(t.node_ref);
    free(t.nodes);
    return rc ? bad("cannot read the system tree of %s", c->ar->path) : 0;
}

/* ---- definitions -------------------------------------------------------------------------------- */

static int map_regions(conv_t *c)
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
    return 0;
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

static int message_event(const conv_t *c, const st_rankdata_t *rd, const st_cli_event_t *e, st_event_t *x)
{
    x->comm = local_comm(c, e->comm);
    if (x->comm == ST_NO_COMM || (e->flags & ST_CLI_EVF_BADPEER))
        return -1;
    if (rd->comms[x->comm].flags & ST_COMMF_INTER)
        x->flags |= ST_EVF_INTERCOMM;
    x->peer = e->peer;
    x->bytes = e->bytes;
    return 0;
}

/* One event; task and post-order fields are completed per rank afterwards. */
static int convert_event(conv_t *c, st_rankdata_t *rd, const st_cli_location_t *L, const st_cli_event_t *e,
                         st_event_t *x)
{
    *x = (st_event_t){ .time = c->flags & ST_CLI_CONV_RAW ? e->orig : e->time, .kind = e->kind, .peer = -1 };
    switch (e->kind) {
    case ST_EV_ENTER:
    case ST_EV_LEAVE:
        if ((x->region = region_of(c, e->ref)) == UINT32_MAX && (c->flags & ST_CLI_CONV_CHECK))
            x->region = ST_REGION__COUNT; /* no relation starts at a region this build does not know */
        else if (x->region == UINT32_MAX)
            return bad("region '%s' is not one of this build's",
                       st_cli_string(c->ar, st_cli_region(c->ar, e->ref) ? st_cli_region(c->ar, e->ref)->name : 0));
        if (e->kind == ST_EV_ENTER && e->callsite != ST_CLI_NONE &&
            add_callsite(rd, e->callsite, st_cli_string(c->ar, e->callsite), &x->aux))
            return bad("out of memory");
        if (e->kind == ST_EV_ENTER && e->cctx != ST_CLI_NONE && st_cli_cctx(c->ar, e->cctx)) /* archive index for now */
            st_event_set_callpath(x, (uint32_t)(st_cli_cctx(c->ar, e->cctx) - c->ar->cctxs));
        return 0;
    case ST_EV_MPI_SEND: case ST_EV_MPI_ISEND: case ST_EV_MPI_RECV: case ST_EV_MPI_IRECV:
        if (message_event(c, rd, e, x))
            return bad("rank %d thread %u: a message on an unknown communicator or with an unknown peer", L->rank,
                       L->thread);
        x->tag = (int32_t)e->tag;
        x->id = e->kind == ST_EV_MPI_SEND ? 0 : e->kind != ST_EV_MPI_RECV ? e->req
              : e->flags & ST_CLI_EVF_ORDER ? e->order : 0;
        c->no_post += e->kind == ST_EV_MPI_RECV && !x->id;
        return 0;
    case ST_EV_MPI_COLL_END: case ST_EV_MPI_ICOLL_COMPLETE:
        if (message_event(c, rd, e, x))
            return bad("rank %d thread %u: a collective on an unknown communicator or with an unknown root",
                       L->rank, L->thread);
        x->op = e->op, x->bytes2 = e->bytes2;
        x->id = e->kind == ST_EV_MPI_ICOLL_COMPLETE ? e->req : 0;
        if (x->peer < 0 || x->peer == L->rank) /* roots as recorded (event.h): only a remote one is INTERCOMM */
            x->flags &= (uint8_t)~ST_EVF_INTERCOMM;
        if (e->flags & ST_CLI_EVF_ROOT_GROUP)
            x->flags |= ST_EVF_PROC_NULL;
        *(e->kind == ST_EV_MPI_COLL_END ? &x->id : &x->aux) = e->order; /* the instance (synctrace:coll_seq) */
        c->no_seq += !(e->flags & ST_CLI_EVF_ORDER);
        return 0;
    case ST_EV_MPI_ISEND_COMPLETE: case ST_EV_MPI_IRECV_REQUEST: case ST_EV_MPI_REQUEST_CANCELLED:
    case ST_EV_MPI_ICOLL_REQUEST:
        x->id = e->req;
        return 0;
    case ST_EV_MPI_COLL_BEGIN:
        return 0;
    case ST_EV_THREAD_FORK: case ST_EV_THREAD_JOIN: case ST_EV_THREAD_TEAM_BEGIN: case ST_EV_THREAD_TEAM_END:
        if (!(e->flags & ST_CLI_EVF_PID))
            return bad("rank %d thread %u: an OpenMP team event without synctrace:parallel_id", L->rank, L->thread);
        x->id = e->req;
        x->bytes = e->kind == ST_EV_THREAD_FORK ? e->bytes : 0;
        if (e->kind == ST_EV_THREAD_TEAM_BEGIN || e->kind == ST_EV_THREAD_TEAM_END) {
            int32_t num, size;
            if (team_place(c, e->comm, L->id, &num, &size))
                return bad("rank %d thread %u: not a member of its OpenMP team", L->rank, L->thread);
            x->peer = num;
            x->tag = e->kind == ST_EV_THREAD_TEAM_BEGIN ? size : 0;
        }
        return 0;
    case ST_EV_THREAD_ACQUIRE_LOCK: case ST_EV_THREAD_RELEASE_LOCK:
        x->id = e->ref, x->bytes = e->req;
        return 0;
    case ST_EV_THREAD_TASK_CREATE: case ST_EV_THREAD_TASK_SWITCH: case ST_EV_THREAD_TASK_COMPLETE:
        x->comm = e->comm, x->tag = (int32_t)e->tag, x->bytes2 = e->req; /* (team, creator, generation) for now */
        return 0;
    default:
        if (c->flags & ST_CLI_CONV_CHECK) { /* a record of another tool: no relation, a place holder */
            *x = (st_event_t){ .time = x->time, .kind = ST_EV_LEAVE, .region = ST_REGION__COUNT, .peer = -1 };
            return 0;
        }
        return bad("rank %d thread %u: event type '%s' is not written by synctrace", L->rank, L->thread,
                   st_cli_kind_name(e->kind));
    }
}

/* ---- per-rank reconstruction --------------------------------------------------------------------------- */

static int takes_id(unsigned k)
{
    return k == ST_EV_MPI_ISEND || k == ST_EV_MPI_IRECV_REQUEST || k == ST_EV_MPI_ICOLL_REQUEST;
}

static int is_request_kind(unsigned k)
{
    return takes_id(k) || k == ST_EV_MPI_IRECV || k == ST_EV_MPI_ISEND_COMPLETE ||
           k == ST_EV_MPI_REQUEST_CANCELLED || k == ST_EV_MPI_ICOLL_COMPLETE;
}

/* Receive post order: request ids x K, a blocking receive between its thread's neighbours. */
static int post_ids(st_rankdata_t *rd, uint64_t *scale)
{
    uint64_t K = 1, maxid = 0;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0, run = 0; i < rd->threads[t].nevents; i++) {
            const st_event_t *e = &rd->threads[t].events[i];
            run = takes_id(e->kind) ? 0 : run + (e->kind == ST_EV_MPI_RECV);
            K = run + 1 > K ? run + 1 : K;
            maxid = is_request_kind(e->kind) && e->id > maxid ? e->id : maxid;
        }
    if (maxid && (maxid == UINT64_MAX || K > UINT64_MAX / 2 / (maxid + 1)))
        return bad("rank %d: request ids too large to rebuild the receive order", rd->rank);
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0, last = 0, sub = 0; i < rd->threads[t].nevents; i++) {
            st_event_t *e = &rd->threads[t].events[i];
            if (takes_id(e->kind))
                last = e->id, sub = 0;
            if (is_request_kind(e->kind))
                e->id *= K;
            else if (e->kind == ST_EV_MPI_RECV)
                e->id = last * K + ++sub;
        }
    *scale = K;
    return 0;
}

/* Request ids back to the archive's; the rebuilt receive ids have no place among them:
 * 0 (unknown), so that the writer stores no post id for them. K = 0: nothing was scaled. */
static void unscale_ids(st_rankdata_t *rd, uint64_t K)
{
    for (uint32_t t = 0; K && t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++) {
            st_event_t *e = &rd->threads[t].events[i];
            if (is_request_kind(e->kind))
                e->id /= K;
            else if (e->kind == ST_EV_MPI_RECV)
                e->id = 0;
        }
}

typedef struct seq_item {
    uint32_t comm, thread;
    uint64_t time, pos;
    st_event_t *e;
} seq_item_t;

static int cmp_seq(const void *a, const void *b)
{
    const seq_item_t *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

typedef struct req_time { uint64_t id, time; } req_time_t;

static int cmp_req(const void *a, const void *b)
{
    uint64_t x = ((const req_time_t *)a)->id, y = ((const req_time_t *)b)->id;
    return (x > y) - (x < y);
}

/* Time of every nonblocking-collective request of rd, sorted by request id. */
static req_time_t *request_times(const st_rankdata_t *rd, size_t *n)
{
    size_t k = 0, cap = 16;
    req_time_t *v = malloc(sizeof *v * cap);
    for (uint32_t t = 0; v && t < rd->nthreads; t++)
        for (uint64_t i = 0; v && i < rd->threads[t].nevents; i++) {
            const st_event_t *e = &rd->threads[t].events[i];
            if (e->kind != ST_EV_MPI_ICOLL_REQUEST)
                continue;
            if (k == cap) {
                req_time_t *g = realloc(v, sizeof *v * (cap *= 2));
                if (!g)
                    free(v);
                v = g;
                if (!v)
                    break;
            }
            v[k++] = (req_time_t){ e->id, e->time };
        }
    if (v && k > 1)
        qsort(v, k, sizeof *v, cmp_req);
    *n = k;
    return v;
}

static uint64_t request_time(const req_time_t *v, size_t n, uint64_t id, uint64_t dflt)
{
    req_time_t key = { id, 0 };
    const req_time_t *f = n ? bsearch(&key, v, n, sizeof key, cmp_req) : NULL;
    return f ? f->time : dflt;
}

/* Collective instance numbers per communicator, in the order the shim drew them. */
static int coll_seqs(st_rankdata_t *rd)
{
    size_t n = 0, k = 0, nreq = 0;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++)
            n += rd->threads[t].events[i].kind == ST_EV_MPI_COLL_END ||
                 rd->threads[t].events[i].kind == ST_EV_MPI_ICOLL_COMPLETE;
    seq_item_t *v = malloc(sizeof *v * (n ? n : 1));
    req_time_t *req = request_times(rd, &nreq);
    if (!v || !req) {
        free(v), free(req);
        return bad("out of memory");
    }
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++) {
            st_event_t *e = &rd->threads[t].events[i];
            if (e->kind == ST_EV_MPI_COLL_END)
                v[k++] = (seq_item_t){ e->comm, rd->threads[t].index, e->time, i, e };
            else if (e->kind == ST_EV_MPI_ICOLL_COMPLETE)
                v[k++] = (seq_item_t){ e->comm, rd->threads[t].index, request_time(req, nreq, e->id, e->time), i, e };
        }
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_seq);
    for (size_t i = 0, s = 0; i < n; i++) {
        s = i && v[i].comm == v[i - 1].comm ? s + 1 : 0;
        *(v[i].e->kind == ST_EV_MPI_COLL_END ? &v[i].e->id : &v[i].e->aux) = s;
    }
    free(v);
    free(req);
    return 0;
}

/* ---- OpenMP task ids ---------------------------------------------------------------------------------- */

typedef struct triple { uint64_t team, creator, gen; } triple_t;

static int cmp_triple(const void *a, const void *b)
{
    const triple_t *x = a, *y = b;
    if (x->team != y->team)
        return x->team < y->team ? -1 : 1;
    if (x->creator != y->creator)
        return x->creator < y->creator ? -1 : 1;
    return (x->gen > y->gen) - (x->gen < y->gen);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

typedef struct task_ids {
    triple_t *t;   /* explicit tasks, sorted */
    size_t    nt;
    uint64_t *pid; /* parallel ids, sorted */
    size_t    np;
} task_ids_t;

static int is_task(unsigned k)
{
    return k == ST_EV_THREAD_TASK_CREATE || k == ST_EV_THREAD_TASK_SWITCH || k == ST_EV_THREAD_TASK_COMPLETE;
}

static int collect_tasks(const st_rankdata_t *rd, task_ids_t *ti)
{
    size_t nt = 0, np = 1;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++) {
            nt += is_task(rd->threads[t].events[i].kind);
            np += rd->threads[t].events[i].kind == ST_EV_THREAD_TEAM_BEGIN ||
                  rd->threads[t].events[i].kind == ST_EV_THREAD_FORK;
        }
    ti->t = malloc(sizeof *ti->t * (nt + 1));
    ti->pid = malloc(sizeof *ti->pid * np);
    if (!ti->t || !ti->pid)
        return -1;
    ti->pid[ti->np++] = 0;
    for (uint32_t t = 0; t < rd->nthreads; t++)
        for (uint64_t i = 0; i < rd->threads[t].nevents; i++) {
            const st_event_t *e = &rd->threads[t].events[i];
            if (is_task(e->kind) && e->bytes2)
                ti->t[ti->nt++] = (triple_t){ e->comm, (uint32_t)e->tag, e->bytes2 };
            else if (e->kind == ST_EV_THREAD_TEAM_BEGIN || e->kind == ST_EV_THREAD_FORK)
                ti->pid[ti->np++] = e->id;
        }
    if (ti->nt > 1)
        qsort(ti->t, ti->nt, sizeof *ti->t, cmp_triple);
    if (ti->np > 1)
        qsort(ti->pid, ti->np, sizeof *ti->pid, cmp_u64);
    return 0;
}

static uint64_t explicit_id(const task_ids_t *ti, const st_event_t *e)
{
    triple_t k = { e->comm, (uint32_t)e->tag, e->bytes2 };
    const triple_t *f = bsearch(&k, ti->t, ti->nt, sizeof k, cmp_triple);
    return f ? (uint64_t)(f - ti->t) + 1 : 0;
}

static uint64_t implicit_id(const task_ids_t *ti, uint64_t pid, uint32_t thread)
{
    const uint64_t *f = bsearch(&pid, ti->pid, ti->np, sizeof pid, cmp_u64);
    return 1ull << 62 | (uint64_t)(f ? f - ti->pid : 0) << 20 | (thread & 0xfffffu);
}

typedef struct frame { uint64_t pid, cur; } frame_t;

/* One thread: frames follow deps.c (pushed at fork / team begin, popped at team end / join). */
static int thread_tasks(const task_ids_t *ti, st_thread_data_t *td)
{
    frame_t *st = malloc(sizeof *st * (td->nevents + 1));
    size_t n = 1;
    if (!st)
        return -1;
    st[0] = (frame_t){ 0, implicit_id(ti, 0, td->index) };
    for (uint64_t i = 0; i < td->nevents; i++) {
        st_event_t *e = &td->events[i];
        if ((e->kind == ST_EV_THREAD_FORK || e->kind == ST_EV_THREAD_TEAM_BEGIN) && st[n - 1].pid != e->id) {
            st[n++] = (frame_t){ e->id, implicit_id(ti, e->id, td->index) };
        } else if (e->kind == ST_EV_THREAD_TEAM_END || e->kind == ST_EV_THREAD_JOIN) {
            for (size_t k = n; k > 1; k--)
                if (st[k - 1].pid == e->id) {
                    n = k - 1;
                    break;
                }
        } else if (is_task(e->kind)) {
            uint64_t id = e->bytes2 ? explicit_id(ti, e) : implicit_id(ti, st[n - 1].pid, td->index);
            if (e->kind == ST_EV_THREAD_TASK_SWITCH) {
                e->aux = st[n - 1].cur;
                st[n - 1].cur = id;
            }
            e->id = id;
            e->comm = 0, e->tag = 0, e->bytes2 = 0;
        }
    }
    free(st);
    return 0;
}

static int task_ids(st_rankdata_t *rd)
{
    task_ids_t ti = { 0 };
    int rc = collect_tasks(rd, &ti);
    for (uint32_t t = 0; rc == 0 && t < rd->nthreads; t++)
        rc = thread_tasks(&ti, &rd->threads[t]);
    free(ti.t);
    free(ti.pid);
    return rc ? bad("out of memory") : 0;
}

/* ---- archive -> rank data ------------------------------------------------------------------------------ */

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
        for (size_t i = 0; i < L->n; i++)
            if (convert_event(c, rd, L, &L->ev[i], &td->events[td->nevents++]))
                return -1;
    }
    if (rank_callpaths(ar, rd))
        return -1;
    /* Archives of earlier versions lack the post order and collective instances: rebuilt. */
    if ((c->no_post && post_ids(rd, &c->scale[r])) || (c->no_seq && coll_seqs(rd)) || task_ids(rd))
        return -1;
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
    if ((!(c->flags & ST_CLI_CONV_CHECK) && read_nodes(c)) || map_regions(c))
        return -1;
    for (int32_t r = 0; r < c->nranks; r++)
        if (convert_rank(c, r))
            return -1;
    copy_props(ar, &c->rd[0]);
    return 0;
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
        unscale_ids(&r->rd[i], r->scale[i]);
}

void st_cli_ranks_free(st_cli_ranks_t *r)
{
    for (int32_t i = 0; r->rd && i < r->nranks; i++)
        st_rankdata_free(&r->rd[i]);
    free(r->rd), free(r->scale);
    memset(r, 0, sizeof *r);
}
