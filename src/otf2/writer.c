/*
 * writer.c — OTF2 archive: open/close, the global numbering, the events of one
 * process's locations, and the serial driver.
 *
 * The event records come from one switch expanded from events.def: each kind NAME
 * has a function ev_NAME below, so a new kind without an OTF2 mapping does not
 * compile. Events are written exactly as st_rankdata_prepare() left them; the count
 * OTF2 reports for each location is compared with the count the Location
 * definition announces.
 */
#include "writer_int.h"

#include "../util/archive_dir.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/log.h"

/*
 * libotf2.so 3.0.2 exports these two event writers, but the installed
 * <otf2/OTF2_EvtWriter.h> lacks their prototypes. Declared here, and only here, with
 * the record fields of the reader callbacks
 * OTF2_EvtReaderCallback_NonBlockingCollective{Request,Complete}
 * (<otf2/OTF2_EvtReaderCallbacks.h>) in the usual writer order.
 */
OTF2_ErrorCode OTF2_EvtWriter_NonBlockingCollectiveRequest(OTF2_EvtWriter *writer,
                                                           OTF2_AttributeList *attributeList,
                                                           OTF2_TimeStamp time, uint64_t requestID);
OTF2_ErrorCode OTF2_EvtWriter_NonBlockingCollectiveComplete(OTF2_EvtWriter *writer,
                                                            OTF2_AttributeList *attributeList,
                                                            OTF2_TimeStamp time,
                                                            OTF2_CollectiveOp collectiveOp,
                                                            OTF2_CommRef communicator, uint32_t root,
                                                            uint64_t sizeSent, uint64_t sizeReceived,
                                                            uint64_t requestID);

#define EVT_CHUNK (1u << 20)
#define DEF_CHUNK (4u << 20)

const char *st_otf2_status_name(int status)
{
    static const char *const names[] = { "ok", "directory error", "archive exists", "data error",
                                         "OTF2 error", "out of memory", "MPI error", "write error" };
    return status >= 0 && status <= ST_OTF2_ERR_WRITE ? names[status] : "unknown error";
}

/* ---- OTF2 errors ------------------------------------------------------------------------ */

/* OTF2's last message, so our one error line can include it. */
static char otf2_msg[512];
static OTF2_ErrorCallback otf2_prev_handler;

/*
 * The first failure while an archive is open. OTF2 reports a failed write(2) of a buffer
 * (a full disk) only to the error callback and still returns success from
 * OTF2_Archive_Close, leaving a truncated archive; st_otf2_close() turns it into an error.
 * OTF2 has a code per errno (OTF2_ERROR_ENOSPC: "No space left on device"); the file is in
 * the message "POSIX: <path>".
 */
static struct {
    OTF2_ErrorCode rc;
    char file[4200];
} fault;

static void note_fault(OTF2_ErrorCode rc, const char *msg)
{
    if (rc == OTF2_SUCCESS || rc == OTF2_ERROR_PROCESSED_WITH_FAULTS || rc == OTF2_ERROR_INTEGRITY_FAULT)
        return; /* consequences of an earlier failure: keep the cause */
    if (!fault.rc)
        fault.rc = rc;
    if (!fault.file[0] && !strncmp(msg, "POSIX: /", 8))
        snprintf(fault.file, sizeof fault.file, "%s", msg + 7);
}

static OTF2_ErrorCode otf2_handler(void *ud, const char *file, uint64_t line, const char *fn,
                                   OTF2_ErrorCode rc, const char *fmt, va_list va)
{
    (void)ud;
    (void)file;
    (void)line;
    if (fmt)
        vsnprintf(otf2_msg, sizeof otf2_msg, fmt, va);
    else
        snprintf(otf2_msg, sizeof otf2_msg, "%s", OTF2_Error_GetDescription(rc));
    note_fault(rc, otf2_msg);
    st_log_debug("OTF2 %s in %s: %s", OTF2_Error_GetName(rc), fn ? fn : "?", otf2_msg);
    return rc;
}

int st_otf2_failed(OTF2_ErrorCode rc, const char *what)
{
    if (rc == OTF2_SUCCESS)
        return 0;
    if (fault.rc && (rc == OTF2_ERROR_INTEGRITY_FAULT || rc == OTF2_ERROR_PROCESSED_WITH_FAULTS)) {
        otf2_msg[0] = 0; /* a consequence of a failed write: st_otf2_close reports the cause, with the file */
        return 1;
    }
    st_log_error("OTF2 archive: %s failed: %s%s%s", what, OTF2_Error_GetName(rc),
                 otf2_msg[0] ? ": " : "", otf2_msg);
    otf2_msg[0] = 0;
    return 1;
}

/* ---- numbering ------------------------------------------------------------------------------ */

static int world_size(st_rankdata_t *const *defs, int n)
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

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
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
        qsort(keys, k, sizeof *keys, cmp_u64);
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
    const uint64_t *k = bsearch(&rd->comms[i].key, keys, nkeys, sizeof *k, cmp_u64);
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

uint64_t *st_otf2_numbering(st_rankdata_t *const *defs, int ndefs, size_t *len)
{
    int w = world_size(defs, ndefs), has_self = 0;
    if (check_ranks(defs, ndefs, w) != 0)
        return NULL;
    uint64_t nkeys = 0, *keys = collect_keys(defs, ndefs, &nkeys, &has_self);
    size_t n = NB_HDR + 3 * (size_t)w + 2 * nkeys;
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
    num[NB_MAGIC] = ST_NB_MAGIC;
    num[NB_WORLD] = (uint64_t)w;
    num[NB_NKEYS] = nkeys;
    num[NB_SELF] = self;
    num[NB_NCALLSITES] = cs;
    num[NB_NTEAMS] = teams;
    num[NB_NCPNODES] = cp;
    *len = n;
    return num;
}

int st_otf2_nb_view(const uint64_t *num, size_t len, st_otf2_nb_t *v)
{
    if (!num || len < NB_HDR || num[NB_MAGIC] != ST_NB_MAGIC || num[NB_WORLD] > INT32_MAX ||
        num[NB_NKEYS] > UINT32_MAX || len != NB_HDR + 3 * num[NB_WORLD] + 2 * num[NB_NKEYS]) {
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
    const uint64_t *k = bsearch(&c->key, v->keys, v->nkeys, sizeof *k, cmp_u64);
    return k ? (uint32_t)v->ids[k - v->keys] : OTF2_UNDEFINED_COMM;
}

/* ---- archive open / close ----------------------------------------------------------------- */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
    (void)ud;
    (void)ft;
    (void)loc;
    (void)cd;
    (void)final;
    return OTF2_FLUSH;
}

/* No post-flush callback: a BufferFlush record written now would be a lie (the
 * events were recorded long ago) and would break the announced event counts. */
static OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = pre_flush, .otf2_post_flush = NULL };

OTF2_Archive *st_otf2_open(const char *dir)
{
    otf2_msg[0] = 0;
    memset(&fault, 0, sizeof fault);
    otf2_prev_handler = OTF2_Error_RegisterCallback(otf2_handler, NULL);
    OTF2_Archive *a = OTF2_Archive_Open(dir, ST_ARCHIVE_NAME, OTF2_FILEMODE_WRITE, EVT_CHUNK,
                                        DEF_CHUNK, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) {
        st_log_error("OTF2 archive: cannot open '%s/%s.otf2' for writing%s%s", dir,
                     ST_ARCHIVE_NAME, otf2_msg[0] ? ": " : "", otf2_msg);
        OTF2_Error_RegisterCallback(otf2_prev_handler, NULL);
        return NULL;
    }
    /* Only fails for invalid arguments. The handle is then left open on purpose:
     * OTF2 aborts the process when an archive without collective callbacks is closed. */
    if (st_otf2_failed(OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL), "setting flush callbacks")) {
        OTF2_Error_RegisterCallback(otf2_prev_handler, NULL);
        return NULL;
    }
    return a;
}

int st_otf2_close(OTF2_Archive *a, const char *dir)
{
    int rc = st_otf2_failed(OTF2_Archive_Close(a), "closing the archive") ? ST_OTF2_ERR_OTF2 : ST_OTF2_OK;
    OTF2_Error_RegisterCallback(otf2_prev_handler, NULL);
    if (fault.rc) {
        st_log_error("OTF2 archive: writing %s failed: %s; the archive is incomplete and is removed",
                     fault.file[0] ? fault.file : dir, OTF2_Error_GetDescription(fault.rc));
        rc = ST_OTF2_ERR_WRITE;
    }
    memset(&fault, 0, sizeof fault);
    return rc;
}

/* Unlinks the files of a failed write: DIR/traces.{otf2,def} and the regular files
 * in DIR/traces/. Only called after st_otf2_check_dir() saw none of them, so all
 * were created by this write. */
void st_otf2_remove_partial(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, ST_ARCHIVE_NAME);
    DIR *d = opendir(path);
    for (struct dirent *de; d && (de = readdir(d));) {
        char f[4500];
        struct stat st;
        snprintf(f, sizeof f, "%s/%s", path, de->d_name);
        if (lstat(f, &st) == 0 && S_ISREG(st.st_mode))
            unlink(f);
    }
    if (d)
        closedir(d);
    rmdir(path);
    snprintf(path, sizeof path, "%s/%s.otf2", dir, ST_ARCHIVE_NAME);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s.def", dir, ST_ARCHIVE_NAME);
    unlink(path);
}

/* ---- events: one function per kind of events.def ------------------------------------------ */

typedef struct evt_ctx {
    OTF2_EvtWriter          *w;
    OTF2_AttributeList      *al;
    const st_rankview_t     *c;
    const uint32_t          *gid;       /* local comm index -> global comm id */
    uint32_t                 team_base; /* global comm id of the rank's team 0 */
    uint64_t                 cs_base;   /* String id of the rank's first call site */
    uint64_t                 cp_base;   /* CallingContext id of the rank's call-path node 0 */
    const st_thread_data_t  *t;
    st_team_stack_t          teams;     /* this thread's open teams */
    st_u64map_t             *locks;     /* lock id -> dense OTF2 lock id (whole rank) */
} evt_ctx_t;

typedef OTF2_ErrorCode (*ev_fn)(evt_ctx_t *x, const st_event_t *e);

static uint32_t peer_of(const evt_ctx_t *x, const st_event_t *e)
{
    uint32_t r = OTF2_UNDEFINED_UINT32;
    st_rankview_peer(x->c, e, &r);
    return r;
}

/* A root that is no rank of the communicator (ST_ROOT_*) by OTF2's name for it. */
static uint32_t root_of(const evt_ctx_t *x, const st_event_t *e)
{
    uint32_t r = ST_ROOT_NONE;
    st_rankview_root(x->c, e, &r);
    switch (r) {
    case ST_ROOT_NONE:
        return OTF2_COLLECTIVE_ROOT_NONE;
    case ST_ROOT_SELF:
        return OTF2_COLLECTIVE_ROOT_SELF;
    case ST_ROOT_THIS_GROUP:
        return OTF2_COLLECTIVE_ROOT_THIS_GROUP;
    default:
        return r;
    }
}

static uint32_t comm_of(const evt_ctx_t *x, const st_event_t *e) { return x->gid[e->comm]; }

static OTF2_ErrorCode ev_ENTER(evt_ctx_t *x, const st_event_t *e)
{
    const st_rankdata_t *rd = x->c->rd;
    size_t lo = 0, hi = e->aux ? rd->ncallsites : 0; /* callsites are sorted by pc */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rd->callsites[mid].pc == e->aux) {
            OTF2_AttributeList_AddStringRef(x->al, ST_ATTR_CALLSITE, (OTF2_StringRef)(x->cs_base + mid));
            break;
        }
        if (rd->callsites[mid].pc < e->aux)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t node = st_event_callpath(e);
    if (node < rd->ncpnodes)
        OTF2_AttributeList_AddCallingContextRef(x->al, ST_ATTR_CALLPATH, (OTF2_CallingContextRef)(x->cp_base + node));
    return OTF2_EvtWriter_Enter(x->w, x->al, e->time, e->region);
}

static OTF2_ErrorCode ev_LEAVE(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_Leave(x->w, x->al, e->time, e->region);
}

static OTF2_ErrorCode ev_MPI_SEND(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_MpiSend(x->w, x->al, e->time, peer_of(x, e), comm_of(x, e), (uint32_t)e->tag, e->bytes);
}

static OTF2_ErrorCode ev_MPI_ISEND(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_MpiIsend(x->w, x->al, e->time, peer_of(x, e), comm_of(x, e), (uint32_t)e->tag,
                                   e->bytes, e->id);
}

static OTF2_ErrorCode ev_MPI_ISEND_COMPLETE(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_MpiIsendComplete(x->w, x->al, e->time, e->id);
}

static OTF2_ErrorCode ev_MPI_IRECV_REQUEST(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_MpiIrecvRequest(x->w, x->al, e->time, e->id);
}

/* Post order and collective instances are what logical messages are matched by (src/relations/derive.c);
 * OTF2 has no field for them, so `synctrace clc` / `check` read them from these attributes. */
static OTF2_ErrorCode ev_MPI_RECV(evt_ctx_t *x, const st_event_t *e)
{
    if (e->id) /* 0: unknown (an archive rebuilt from one that did not store it) */
        OTF2_AttributeList_AddUint64(x->al, ST_ATTR_POST, e->id);
    return OTF2_EvtWriter_MpiRecv(x->w, x->al, e->time, peer_of(x, e), comm_of(x, e), (uint32_t)e->tag, e->bytes);
}

static OTF2_ErrorCode ev_MPI_IRECV(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_MpiIrecv(x->w, x->al, e->time, peer_of(x, e), comm_of(x, e), (uint32_t)e->tag,
                                   e->bytes, e->id);
}

static OTF2_ErrorCode ev_MPI_REQUEST_CANCELLED(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_MpiRequestCancelled(x->w, x->al, e->time, e->id);
}

static OTF2_ErrorCode ev_MPI_COLL_BEGIN(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_MpiCollectiveBegin(x->w, x->al, e->time);
}

static OTF2_ErrorCode ev_MPI_COLL_END(evt_ctx_t *x, const st_event_t *e)
{
    OTF2_AttributeList_AddUint64(x->al, ST_ATTR_COLL_SEQ, e->id);
    return OTF2_EvtWriter_MpiCollectiveEnd(x->w, x->al, e->time, (OTF2_CollectiveOp)e->op, comm_of(x, e),
                                           root_of(x, e), e->bytes, e->bytes2);
}

static OTF2_ErrorCode ev_MPI_ICOLL_REQUEST(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_NonBlockingCollectiveRequest(x->w, x->al, e->time, e->id);
}

static OTF2_ErrorCode ev_MPI_ICOLL_COMPLETE(evt_ctx_t *x, const st_event_t *e)
{
    OTF2_AttributeList_AddUint64(x->al, ST_ATTR_COLL_SEQ, e->aux);
    return OTF2_EvtWriter_NonBlockingCollectiveComplete(x->w, x->al, e->time, (OTF2_CollectiveOp)e->op,
                                                        comm_of(x, e), root_of(x, e), e->bytes, e->bytes2, e->id);
}

static OTF2_ErrorCode ev_THREAD_FORK(evt_ctx_t *x, const st_event_t *e)
{
    OTF2_AttributeList_AddUint64(x->al, ST_ATTR_ID, e->id);
    return OTF2_EvtWriter_ThreadFork(x->w, x->al, e->time, OTF2_PARADIGM_OPENMP, (uint32_t)e->bytes);
}

static OTF2_ErrorCode ev_THREAD_JOIN(evt_ctx_t *x, const st_event_t *e)
{
    OTF2_AttributeList_AddUint64(x->al, ST_ATTR_ID, e->id);
    return OTF2_EvtWriter_ThreadJoin(x->w, x->al, e->time, OTF2_PARADIGM_OPENMP);
}

static uint32_t team_of(const evt_ctx_t *x, uint64_t pid)
{
    uint64_t team = 0;
    st_u64map_get(&x->c->pmap, pid, &team);
    return (uint32_t)team;
}

static OTF2_ErrorCode ev_THREAD_TEAM_BEGIN(evt_ctx_t *x, const st_event_t *e)
{
    uint32_t team = team_of(x, e->id);
    st_team_push(&x->teams, team);
    OTF2_AttributeList_AddUint64(x->al, ST_ATTR_ID, e->id);
    return OTF2_EvtWriter_ThreadTeamBegin(x->w, x->al, e->time, x->team_base + team);
}

static OTF2_ErrorCode ev_THREAD_TEAM_END(evt_ctx_t *x, const st_event_t *e)
{
    st_team_pop(&x->teams);
    OTF2_AttributeList_AddUint64(x->al, ST_ATTR_ID, e->id);
    return OTF2_EvtWriter_ThreadTeamEnd(x->w, x->al, e->time, x->team_base + team_of(x, e->id));
}

/* OTF2 lock ids are 32-bit; ours may be addresses: number them densely per rank. */
static uint32_t lock_of(evt_ctx_t *x, uint64_t id)
{
    uint64_t v;
    if (!st_u64map_get(x->locks, id, &v)) {
        v = x->locks->n;
        if (st_u64map_put(x->locks, id, v) != 0)
            v = OTF2_UNDEFINED_UINT32;
    }
    return (uint32_t)v;
}

static OTF2_ErrorCode ev_THREAD_ACQUIRE_LOCK(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_ThreadAcquireLock(x->w, x->al, e->time, OTF2_PARADIGM_OPENMP, lock_of(x, e->id),
                                            (uint32_t)e->bytes);
}

static OTF2_ErrorCode ev_THREAD_RELEASE_LOCK(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_ThreadReleaseLock(x->w, x->al, e->time, OTF2_PARADIGM_OPENMP, lock_of(x, e->id),
                                            (uint32_t)e->bytes);
}

/* A task's OTF2 identity; a task never created (an implicit task) is
 * (current team, this thread's rank in it, generation 0), as Score-P writes it. */
static st_task_ident_t task_of(const evt_ctx_t *x, uint64_t id)
{
    uint64_t i;
    if (st_u64map_get(&x->c->tmap, id, &i))
        return x->c->tasks[i];
    uint32_t team = st_team_top(&x->teams);
    return (st_task_ident_t){ team, st_rankview_team_rank(x->c, team, x->t->index), 0 };
}

static OTF2_ErrorCode ev_THREAD_TASK_CREATE(evt_ctx_t *x, const st_event_t *e)
{
    st_task_ident_t k = task_of(x, e->id);
    return OTF2_EvtWriter_ThreadTaskCreate(x->w, x->al, e->time, x->team_base + k.team, k.creator, k.gen);
}

static OTF2_ErrorCode ev_THREAD_TASK_SWITCH(evt_ctx_t *x, const st_event_t *e)
{
    st_task_ident_t k = task_of(x, e->id);
    return OTF2_EvtWriter_ThreadTaskSwitch(x->w, x->al, e->time, x->team_base + k.team, k.creator, k.gen);
}

static OTF2_ErrorCode ev_THREAD_TASK_COMPLETE(evt_ctx_t *x, const st_event_t *e)
{
    st_task_ident_t k = task_of(x, e->id);
    return OTF2_EvtWriter_ThreadTaskComplete(x->w, x->al, e->time, x->team_base + k.team, k.creator, k.gen);
}

static const ev_fn ev_table[] = {
#define ST_EVENT(name, dump, doc) [ST_EV_##name] = ev_##name,
#include "../model/events.def"
#undef ST_EVENT
};

static OTF2_ErrorCode write_event(evt_ctx_t *x, const st_event_t *e)
{
    if (e->flags & ST_EVF_CLC_MOVED)
        OTF2_AttributeList_AddUint64(x->al, ST_ATTR_ORIG_TIME, st_event_orig_time(e));
    OTF2_ErrorCode rc = ev_table[e->kind](x, e);
    /* The writer empties the list on success; make sure nothing leaks into the next event. */
    OTF2_AttributeList_RemoveAllAttributes(x->al);
    return rc;
}

/* ---- the locations of one rank ---------------------------------------------------------------- */

static int write_thread(OTF2_Archive *a, evt_ctx_t *x)
{
    const st_thread_data_t *t = x->t;
    const st_rankdata_t *rd = x->c->rd;
    OTF2_LocationRef loc = st_otf2_location((uint32_t)rd->rank, t->index, x->c->master);
    if (!t->events && t->nevents) {
        st_log_error("OTF2 archive: rank %d thread %u: events are not in memory", rd->rank, t->index);
        return ST_OTF2_ERR_DATA;
    }
    x->w = OTF2_Archive_GetEvtWriter(a, loc);
    if (!x->w)
        return st_otf2_failed(OTF2_ERROR_INVALID_CALL, "getting an event writer"), ST_OTF2_ERR_OTF2;
    memset(&x->teams, 0, sizeof x->teams);
    int rc = ST_OTF2_OK;
    for (uint64_t j = 0; j < t->nevents && rc == ST_OTF2_OK; j++) {
        const char *why = st_rankview_check(x->c, &t->events[j]);
        if (why) {
            st_log_error("OTF2 archive: rank %d thread %u event %llu: %s (data not prepared)", rd->rank,
                         t->index, (unsigned long long)j, why);
            rc = ST_OTF2_ERR_DATA;
        } else if (st_otf2_failed(write_event(x, &t->events[j]), "writing an event"))
            rc = ST_OTF2_ERR_OTF2;
    }
    uint64_t written = 0;
    if (rc == ST_OTF2_OK && OTF2_EvtWriter_GetNumberOfEvents(x->w, &written) == OTF2_SUCCESS &&
        written != t->nevents) {
        st_log_error("OTF2 archive: rank %d thread %u: wrote %llu events, the definitions announce %llu",
                     rd->rank, t->index, (unsigned long long)written, (unsigned long long)t->nevents);
        rc = ST_OTF2_ERR_DATA;
    }
    if (st_otf2_failed(OTF2_Archive_CloseEvtWriter(a, x->w), "closing an event writer") && rc == ST_OTF2_OK)
        rc = ST_OTF2_ERR_OTF2;
    return rc;
}

static int write_rank(OTF2_Archive *a, st_rankdata_t *rd, const st_otf2_nb_t *v)
{
    if (rd->rank < 0 || (uint32_t)rd->rank >= v->world) {
        st_log_error("OTF2 archive: rank %d is outside the numbering (world size %u)", rd->rank, v->world);
        return ST_OTF2_ERR_DATA;
    }
    st_rankview_t c;
    if (st_rankview_init(&c, rd, 1) != 0)
        return ST_OTF2_ERR_NOMEM;
    int rc = ST_OTF2_OK;
    st_u64map_t locks = { 0 };
    uint32_t *gid = malloc((rd->ncomms ? rd->ncomms : 1) * sizeof *gid);
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    if (!gid || !al)
        rc = ST_OTF2_ERR_NOMEM;
    for (uint32_t i = 0; rc == ST_OTF2_OK && i < rd->ncomms; i++)
        gid[i] = st_otf2_nb_comm(v, rd, i);
    evt_ctx_t x = { .al = al, .c = &c, .gid = gid, .team_base = (uint32_t)v->team_base[rd->rank],
                    .cs_base = v->cs_base[rd->rank], .cp_base = v->cp_base[rd->rank], .locks = &locks };
    for (uint32_t i = 0; rc == ST_OTF2_OK && i < rd->nthreads; i++) {
        x.t = &rd->threads[i];
        rc = write_thread(a, &x);
    }
    if (rc == ST_OTF2_ERR_NOMEM)
        st_log_error("OTF2 archive: out of memory while writing rank %d", rd->rank);
    if (al)
        OTF2_AttributeList_Delete(al);
    free(gid);
    st_u64map_free(&locks);
    st_rankview_free(&c);
    return rc;
}

/* Empty local definition files: optional, but readers look for them. */
static int write_local_defs(OTF2_Archive *a, st_rankdata_t *const *mine, int nmine)
{
    int rc = ST_OTF2_OK;
    for (int i = 0; i < nmine; i++)
        for (uint32_t k = 0; k < mine[i]->nthreads; k++) {
            OTF2_LocationRef loc = st_otf2_location((uint32_t)mine[i]->rank, mine[i]->threads[k].index,
                                                    st_rankdata_master(mine[i]));
            OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, loc);
            if (!dw || st_otf2_failed(OTF2_Archive_CloseDefWriter(a, dw), "closing a local definition writer"))
                rc = ST_OTF2_ERR_OTF2;
        }
    return rc;
}

static int first_error(int a, int b) { return a != ST_OTF2_OK ? a : b; }

int st_otf2_write_local(OTF2_Archive *a, st_rankdata_t *const *mine, int nmine, const uint64_t *num, size_t len)
{
    st_otf2_nb_t v;
    int rc = st_otf2_nb_view(num, len, &v) == 0 ? ST_OTF2_OK : ST_OTF2_ERR_DATA;
    /* Every collective step runs even after a local failure, so no process waits forever. */
    if (st_otf2_failed(OTF2_Archive_OpenEvtFiles(a), "opening the event files"))
        rc = first_error(rc, ST_OTF2_ERR_OTF2);
    for (int i = 0; rc == ST_OTF2_OK && i < nmine; i++)
        rc = write_rank(a, mine[i], &v);
    if (st_otf2_failed(OTF2_Archive_CloseEvtFiles(a), "closing the event files"))
        rc = first_error(rc, ST_OTF2_ERR_OTF2);
    if (st_otf2_failed(OTF2_Archive_OpenDefFiles(a), "opening the local definition files"))
        rc = first_error(rc, ST_OTF2_ERR_OTF2);
    else
        rc = first_error(rc, write_local_defs(a, mine, nmine));
    if (st_otf2_failed(OTF2_Archive_CloseDefFiles(a), "closing the local definition files"))
        rc = first_error(rc, ST_OTF2_ERR_OTF2);
    return rc;
}

/* ---- the archive directory ---------------------------------------------------------------------- */

static int dir_error(const char *dir, const char *what, int err)
{
    st_log_error("OTF2 archive: cannot write into '%s': %s%s%s (expected a writable directory or a path "
                 "where one can be created)", dir, what, err ? ": " : "", err ? strerror(err) : "");
    return ST_OTF2_ERR_DIR;
}

int st_otf2_check_dir(const char *dir)
{
    if (!dir || !*dir) {
        st_log_error("OTF2 archive: no archive directory given");
        return ST_OTF2_ERR_DIR;
    }
    st_dir_verdict_t v;
    switch (st_archive_dir_check(dir, &v)) {
    case ST_DIR_USABLE:
        break;
    case ST_DIR_NOT_CREATABLE:
        return dir_error(dir, "cannot create the directory", v.err);
    case ST_DIR_NOT_A_DIR:
        return dir_error(dir, "it exists and is not a directory", 0);
    case ST_DIR_UNSAFE:
        return dir_error(dir, v.why, 0);
    case ST_DIR_NOT_WRITABLE:
        return dir_error(dir, "cannot create files in it", v.err);
    case ST_DIR_HOLDS_ARCHIVE:
        st_log_error("OTF2 archive: '%s' already holds an archive ('%s' exists); synctrace never "
                     "overwrites one: choose another directory or remove it", dir, v.taken);
        return ST_OTF2_ERR_EXISTS;
    }
    return ST_OTF2_OK;
}

int st_otf2_prepare(st_rankdata_t *rd)
{
    return st_rankdata_prepare(rd) == 0 ? ST_OTF2_OK : ST_OTF2_ERR_NOMEM;
}

/* ---- serial driver ---------------------------------------------------------------------------------- */

/* An empty stand-in for a rank that left no data, so every world rank has a location. */
static int placeholder(st_rankdata_t *p, int32_t rank, int32_t world)
{
    memset(p, 0, sizeof *p);
    p->rank = rank;
    p->nranks = world;
    p->flags = ST_RANKF_INCOMPLETE;
    p->timer_resolution = 1000000000u;
    snprintf(p->nodename, sizeof p->nodename, "unknown");
    p->threads = calloc(1, sizeof *p->threads);
    if (!p->threads)
        return -1;
    p->nthreads = 1;
    p->threads[0].omp_num = -1;
    return 0;
}

/* Pointers to ranks plus placeholders for missing ones (in *extra, *nextra of them). */
static st_rankdata_t **with_placeholders(st_rankdata_t *ranks, int n, int *total, st_rankdata_t **extra,
                                         int *nextra)
{
    st_rankdata_t **all = malloc((size_t)(n > 0 ? n : 1) * sizeof *all);
    for (int i = 0; all && i < n; i++)
        all[i] = &ranks[i];
    int32_t w = all ? world_size(all, n) : 0;
    uint8_t *seen = calloc((size_t)w + 1, 1);
    st_rankdata_t **grown = all && seen ? realloc(all, ((size_t)w + (size_t)n + 1) * sizeof *all) : NULL;
    *extra = calloc((size_t)w + 1, sizeof **extra);
    *nextra = 0;
    if (!grown || !*extra)
        goto fail;
    all = grown;
    for (int i = 0; i < n; i++)
        if (ranks[i].rank >= 0 && ranks[i].rank < w)
            seen[ranks[i].rank] = 1;
    *total = n;
    for (int32_t r = 0; r < w; r++)
        if (!seen[r]) {
            if (placeholder(&(*extra)[*nextra], r, w) != 0)
                goto fail;
            all[(*total)++] = &(*extra)[(*nextra)++];
        }
    free(seen);
    return all;
fail:
    st_log_error("OTF2 archive: out of memory");
    free(seen);
    free(grown ? grown : all);
    return NULL;
}

int st_otf2_write_serial(const char *dir, st_rankdata_t *ranks, int nranks, unsigned flags)
{
    int rc = st_otf2_check_dir(dir), total = 0;
    for (int i = 0; rc == ST_OTF2_OK && i < nranks; i++)
        rc = st_otf2_prepare(&ranks[i]);
    if (rc != ST_OTF2_OK)
        return rc;
    for (int i = 0; i < nranks; i++)
        st_rankdata_span(&ranks[i]);
    st_rankdata_t *extra = NULL;
    int nextra = 0;
    st_rankdata_t **all = with_placeholders(ranks, nranks, &total, &extra, &nextra);
    size_t len = 0;
    uint64_t *num = all ? st_otf2_numbering(all, total, &len) : NULL;
    OTF2_Archive *a = num ? st_otf2_open(dir) : NULL;
    if (!a)
        rc = num ? ST_OTF2_ERR_OTF2 : all ? ST_OTF2_ERR_DATA : ST_OTF2_ERR_NOMEM;
    else if (st_otf2_failed(OTF2_Archive_SetSerialCollectiveCallbacks(a), "setting serial mode"))
        rc = ST_OTF2_ERR_OTF2; /* not closed: OTF2 would abort (see st_otf2_open) */
    else {
        rc = st_otf2_write_local(a, all, total, num, len);
        rc = first_error(rc, st_otf2_write_global(a, all, total, num, len, flags));
        rc = first_error(rc, st_otf2_close(a, dir));
    }
    if (rc != ST_OTF2_OK)
        st_otf2_remove_partial(dir);
    for (int i = 0; extra && i < nextra; i++)
        st_rankdata_free(&extra[i]);
    free(extra);
    free(all);
    free(num);
    return rc;
}
