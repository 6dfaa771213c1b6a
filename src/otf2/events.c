/*
 * events.c — the events of one process's locations (st_otf2_write_local) and their
 * empty local definition files.
 *
 * The event records come from one switch expanded from events.def: each kind NAME
 * has a function ev_NAME below, so a new kind without an OTF2 mapping does not
 * compile. Events are written exactly as st_rankdata_prepare() left them; the count
 * OTF2 reports for each location is compared with the count the Location
 * definition announces.
 */
#include "writer_int.h"

#include <stdlib.h>
#include <string.h>

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

/* ---- events: one function per kind of events.def ------------------------------------------ */

typedef struct evt_ctx {
    OTF2_EvtWriter          *w;
    OTF2_AttributeList      *al;
    const st_rankview_t     *c;
    const st_otf2_nb_t      *v;
    const uint32_t          *gid;       /* local comm index -> global comm id */
    uint32_t                 team_base; /* global comm id of the rank's team 0 */
    uint64_t                 cs_base;   /* String id of the rank's first call site */
    uint64_t                 cp_base;   /* CallingContext id of the rank's call-path node 0 */
    uint64_t                 group_base;/* Group id of the rank's PSCW group 0, less 1 (globaldefs.c) */
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

/* ---- one-sided MPI: the window is (comm, tag); targets are WORLD ranks in peer ---------------- */

static OTF2_RmaWinRef win_of(const evt_ctx_t *x, const st_event_t *e)
{
    return e->comm == ST_NO_COMM ? OTF2_UNDEFINED_RMA_WIN : st_otf2_nb_win(x->v, x->c->rd, e->comm, (uint32_t)e->tag);
}

/* A target: its rank in the window's communicator; every rank (peer -1): OTF2_UNDEFINED_UINT32. */
static uint32_t target_of(const evt_ctx_t *x, const st_event_t *e)
{
    return e->peer < 0 ? OTF2_UNDEFINED_UINT32 : peer_of(x, e);
}

static OTF2_ErrorCode ev_RMA_WIN_CREATE(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaWinCreate(x->w, x->al, e->time, win_of(x, e));
}

static OTF2_ErrorCode ev_RMA_WIN_DESTROY(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaWinDestroy(x->w, x->al, e->time, win_of(x, e));
}

static OTF2_ErrorCode ev_RMA_COLL_BEGIN(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaCollectiveBegin(x->w, x->al, e->time);
}

static OTF2_ErrorCode ev_RMA_COLL_END(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaCollectiveEnd(x->w, x->al, e->time, (OTF2_CollectiveOp)e->op,
                                           (OTF2_RmaSyncLevel)e->bytes, win_of(x, e), OTF2_COLLECTIVE_ROOT_NONE, 0, 0);
}

/* A post's or start's group: the rank's group e->id - 1 (rd->groups), Group id 1 + group_base + e->id - 1
 * (globaldefs.c: after the COMM_LOCATIONS group); complete and wait name none. */
static OTF2_ErrorCode ev_RMA_GROUP_SYNC(evt_ctx_t *x, const st_event_t *e)
{
    OTF2_GroupRef g = e->id && e->id <= x->c->rd->ngroups ? (OTF2_GroupRef)(x->group_base + e->id)
                                                           : OTF2_UNDEFINED_GROUP;
    return OTF2_EvtWriter_RmaGroupSync(x->w, x->al, e->time, (OTF2_RmaSyncLevel)e->bytes, win_of(x, e), g);
}

/* Folded into rd->groups by st_rankdata_prepare(): never written. */
static OTF2_ErrorCode ev_RMA_GROUP_MEMBER(evt_ctx_t *x, const st_event_t *e)
{
    (void)x, (void)e;
    return OTF2_ERROR_INVALID_ARGUMENT;
}

static OTF2_ErrorCode ev_RMA_REQUEST_LOCK(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaRequestLock(x->w, x->al, e->time, win_of(x, e), target_of(x, e), 0,
                                         (OTF2_LockType)e->op);
}

/* lockId: the ticket (lock_ticket.h), the order the lock was granted in at that target */
static OTF2_ErrorCode ev_RMA_ACQUIRE_LOCK(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaAcquireLock(x->w, x->al, e->time, win_of(x, e), target_of(x, e), e->id,
                                         (OTF2_LockType)e->op);
}

static OTF2_ErrorCode ev_RMA_RELEASE_LOCK(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaReleaseLock(x->w, x->al, e->time, win_of(x, e), target_of(x, e), 0);
}

static OTF2_ErrorCode ev_RMA_SYNC(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaSync(x->w, x->al, e->time, win_of(x, e), target_of(x, e), (OTF2_RmaSyncType)e->op);
}

static OTF2_ErrorCode ev_RMA_PUT(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaPut(x->w, x->al, e->time, win_of(x, e), target_of(x, e), e->bytes, e->id);
}

static OTF2_ErrorCode ev_RMA_GET(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaGet(x->w, x->al, e->time, win_of(x, e), target_of(x, e), e->bytes, e->id);
}

static OTF2_ErrorCode ev_RMA_ATOMIC(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaAtomic(x->w, x->al, e->time, win_of(x, e), target_of(x, e), (OTF2_RmaAtomicType)e->op,
                                    e->bytes, e->bytes2, e->id);
}

static OTF2_ErrorCode ev_RMA_OP_COMPLETE_REMOTE(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaOpCompleteRemote(x->w, x->al, e->time, win_of(x, e), e->id);
}

static OTF2_ErrorCode ev_RMA_OP_COMPLETE_NONBLOCKING(evt_ctx_t *x, const st_event_t *e)
{
    return OTF2_EvtWriter_RmaOpCompleteNonBlocking(x->w, x->al, e->time, win_of(x, e), e->id);
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
    /* The writer empties the list once it wrote the record (OTF2_AttributeList.h): after a failure, nothing may
     * leak into the next event. (Emptied again after every event, 13 instructions each, 1 M events 13 M.) */
    if (rc != OTF2_SUCCESS)
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
    /* st_rankdata_prepare has dropped every event this check refuses, with the same view of the rank (CLC and the
     * analysis since changed times only): checked again, 1 M events cost 21 M instructions for nothing */
    for (uint64_t j = 0; j < t->nevents && rc == ST_OTF2_OK; j++) {
        const char *why = rd->prepared ? NULL : st_rankview_check(x->c, &t->events[j]);
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
    st_rankview_t own;
    const st_rankview_t *c = st_rankview_get(rd, &own);
    if (!c)
        return ST_OTF2_ERR_NOMEM;
    int rc = ST_OTF2_OK;
    st_u64map_t locks = { 0 };
    uint32_t *gid = malloc((rd->ncomms ? rd->ncomms : 1) * sizeof *gid);
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    if (!gid || !al)
        rc = ST_OTF2_ERR_NOMEM;
    for (uint32_t i = 0; rc == ST_OTF2_OK && i < rd->ncomms; i++)
        gid[i] = st_otf2_nb_comm(v, rd, i);
    evt_ctx_t x = { .al = al, .c = c, .v = v, .gid = gid, .team_base = (uint32_t)v->team_base[rd->rank],
                    .cs_base = v->cs_base[rd->rank], .cp_base = v->cp_base[rd->rank], .group_base = v->group_base[rd->rank],
                    .locks = &locks };
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
    st_rankview_put(c, &own);
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

int st_otf2_write_local(OTF2_Archive *a, st_rankdata_t *const *mine, int nmine, const uint64_t *num, size_t len)
{
    st_otf2_nb_t v;
    int rc = st_otf2_nb_view(num, len, &v) == 0 ? ST_OTF2_OK : ST_OTF2_ERR_DATA;
    /* Every collective step runs even after a local failure, so no process waits forever. */
    if (st_otf2_failed(OTF2_Archive_OpenEvtFiles(a), "opening the event files"))
        rc = st_otf2_first_error(rc, ST_OTF2_ERR_OTF2);
    for (int i = 0; rc == ST_OTF2_OK && i < nmine; i++)
        rc = write_rank(a, mine[i], &v);
    if (st_otf2_failed(OTF2_Archive_CloseEvtFiles(a), "closing the event files"))
        rc = st_otf2_first_error(rc, ST_OTF2_ERR_OTF2);
    if (st_otf2_failed(OTF2_Archive_OpenDefFiles(a), "opening the local definition files"))
        rc = st_otf2_first_error(rc, ST_OTF2_ERR_OTF2);
    else
        rc = st_otf2_first_error(rc, write_local_defs(a, mine, nmine));
    if (st_otf2_failed(OTF2_Archive_CloseDefFiles(a), "closing the local definition files"))
        rc = st_otf2_first_error(rc, ST_OTF2_ERR_OTF2);
    return rc;
}
