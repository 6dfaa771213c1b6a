/*
 * test_otf2_read.h — reads a whole OTF2 archive back with the OTF2 reader API into
 * plain arrays, for the writer tests (test_otf2_writer.c, test_archive_mpi.c, test_otf2_rma.c).
 * Attribute ids follow src/otf2/attributes.def: 0 callsite, 1 orig_time, 2 parallel id.
 */
#ifndef TEST_OTF2_READ_H
#define TEST_OTF2_READ_H

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    T_ENTER, T_LEAVE, T_SEND, T_ISEND, T_ISEND_DONE, T_IRECV_REQ, T_RECV, T_IRECV, T_CANCELLED,
    T_COLL_BEGIN, T_COLL_END, T_NBC_REQ, T_NBC_DONE, T_FORK, T_JOIN, T_TEAM_BEGIN, T_TEAM_END,
    T_ACQUIRE, T_RELEASE, T_TASK_CREATE, T_TASK_SWITCH, T_TASK_DONE,
    T_RMA_WIN_CREATE, T_RMA_WIN_DESTROY, T_RMA_COLL_BEGIN, T_RMA_COLL_END, T_RMA_GROUP_SYNC, T_RMA_REQUEST_LOCK,
    T_RMA_RELEASE_LOCK, T_RMA_SYNC, T_RMA_PUT, T_RMA_GET, T_RMA_ATOMIC, T_RMA_REMOTE, T_RMA_NONBLOCKING, T_UNKNOWN
};

typedef struct ra_event {
    uint64_t loc, time;
    int      type;
    uint64_t a;        /* receiver/sender/root/region/requested threads/lock/creating thread/RMA target */
    uint64_t comm;     /* communicator / team / RMA window */
    uint64_t tag;      /* tag / op / acquisition order / generation / RMA sync level, lock or atomic type */
    uint64_t len, len2, req; /* req: request / RMA matching id */
    int      has_callsite, has_orig, has_pid;
    uint64_t callsite, orig, pid;
} ra_event_t;

typedef struct ra_loc { uint64_t id, nevents, group, counted; uint32_t name; } ra_loc_t;
typedef struct ra_comm { uint64_t id, name, group, group_b, parent; int inter; } ra_comm_t;
typedef struct ra_group { uint64_t id; int type, paradigm; uint32_t n; uint64_t *m; } ra_group_t;
typedef struct ra_win { uint64_t id, name, comm, flags; } ra_win_t;

typedef struct ra_archive {
    uint64_t resolution, offset, length;
    char **str;
    uint32_t nstr;
    ra_loc_t loc[64];
    int nloc;
    ra_comm_t comm[64];
    int ncomm;
    ra_group_t group[64];
    int ngroup;
    ra_win_t win[64];
    int nwin;
    ra_event_t *ev;
    size_t nev, cap;
    char incomplete[16];
} ra_archive_t;

static inline const char *ra_str(const ra_archive_t *a, uint64_t id)
{
    return id < a->nstr && a->str[id] ? a->str[id] : "<undefined string>";
}

static OTF2_CallbackCode ra_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    ra_archive_t *a = u;
    (void)rt;
    a->resolution = res, a->offset = off, a->length = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ra_string(void *u, OTF2_StringRef self, const char *s)
{
    ra_archive_t *a = u;
    if (self >= a->nstr) {
        a->str = realloc(a->str, (self + 1) * sizeof *a->str);
        memset(a->str + a->nstr, 0, (self + 1 - a->nstr) * sizeof *a->str);
        a->nstr = self + 1;
    }
    a->str[self] = strdup(s);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ra_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType t,
                                     uint64_t n, OTF2_LocationGroupRef g)
{
    ra_archive_t *a = u;
    (void)t;
    if (a->nloc < 64)
        a->loc[a->nloc++] = (ra_loc_t){ self, n, g, 0, name };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ra_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef g,
                                 OTF2_CommRef parent, OTF2_CommFlag f)
{
    ra_archive_t *a = u;
    (void)f;
    if (a->ncomm < 64)
        a->comm[a->ncomm++] = (ra_comm_t){ self, name, g, OTF2_UNDEFINED_GROUP, parent, 0 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ra_intercomm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef ga,
                                      OTF2_GroupRef gb, OTF2_CommRef common, OTF2_CommFlag f)
{
    ra_archive_t *a = u;
    (void)f;
    if (a->ncomm < 64)
        a->comm[a->ncomm++] = (ra_comm_t){ self, name, ga, gb, common, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ra_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType t,
                                  OTF2_Paradigm p, OTF2_GroupFlag f, uint32_t n, const uint64_t *m)
{
    ra_archive_t *a = u;
    (void)name;
    (void)f;
    if (a->ngroup < 64) {
        uint64_t *copy = malloc((n ? n : 1) * sizeof *copy);
        memcpy(copy, m, n * sizeof *m);
        a->group[a->ngroup++] = (ra_group_t){ self, t, p, n, copy };
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ra_rma_win(void *u, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                                    OTF2_RmaWinFlag f)
{
    ra_archive_t *a = u;
    if (a->nwin < 64)
        a->win[a->nwin++] = (ra_win_t){ self, name, comm, f };
    return OTF2_CALLBACK_SUCCESS;
}

static inline void ra_add(void *u, OTF2_LocationRef loc, OTF2_TimeStamp t, OTF2_AttributeList *al, int type,
                          uint64_t a1, uint64_t comm, uint64_t tag, uint64_t len, uint64_t len2, uint64_t req)
{
    ra_archive_t *a = u;
    if (a->nev == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 256;
        a->ev = realloc(a->ev, a->cap * sizeof *a->ev);
    }
    ra_event_t *e = &a->ev[a->nev++];
    *e = (ra_event_t){ loc, t, type, a1, comm, tag, len, len2, req, 0, 0, 0, 0, 0, 0 };
    OTF2_StringRef s;
    if (al && OTF2_AttributeList_TestAttributeByID(al, 0) &&
        OTF2_AttributeList_GetStringRef(al, 0, &s) == OTF2_SUCCESS)
        e->has_callsite = 1, e->callsite = s;
    if (al && OTF2_AttributeList_TestAttributeByID(al, 1) &&
        OTF2_AttributeList_GetUint64(al, 1, &e->orig) == OTF2_SUCCESS)
        e->has_orig = 1;
    if (al && OTF2_AttributeList_TestAttributeByID(al, 2) &&
        OTF2_AttributeList_GetUint64(al, 2, &e->pid) == OTF2_SUCCESS)
        e->has_pid = 1;
    for (int i = 0; i < a->nloc; i++)
        if (a->loc[i].id == loc)
            a->loc[i].counted++;
}

#define RA_ARGS OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al
static OTF2_CallbackCode ra_enter(RA_ARGS, OTF2_RegionRef r)
{ ra_add(u, l, t, al, T_ENTER, r, 0, 0, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_leave(RA_ARGS, OTF2_RegionRef r)
{ ra_add(u, l, t, al, T_LEAVE, r, 0, 0, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_send(RA_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len)
{ ra_add(u, l, t, al, T_SEND, peer, c, tag, len, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_isend(RA_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
{ ra_add(u, l, t, al, T_ISEND, peer, c, tag, len, 0, req); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_isend_done(RA_ARGS, uint64_t req)
{ ra_add(u, l, t, al, T_ISEND_DONE, 0, 0, 0, 0, 0, req); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_irecv_req(RA_ARGS, uint64_t req)
{ ra_add(u, l, t, al, T_IRECV_REQ, 0, 0, 0, 0, 0, req); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_recv(RA_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len)
{ ra_add(u, l, t, al, T_RECV, peer, c, tag, len, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_irecv(RA_ARGS, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
{ ra_add(u, l, t, al, T_IRECV, peer, c, tag, len, 0, req); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_cancelled(RA_ARGS, uint64_t req)
{ ra_add(u, l, t, al, T_CANCELLED, 0, 0, 0, 0, 0, req); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_coll_begin(RA_ARGS)
{ ra_add(u, l, t, al, T_COLL_BEGIN, 0, 0, 0, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_coll_end(RA_ARGS, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t s,
                                     uint64_t r)
{ ra_add(u, l, t, al, T_COLL_END, root, c, op, s, r, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_nbc_req(RA_ARGS, uint64_t req)
{ ra_add(u, l, t, al, T_NBC_REQ, 0, 0, 0, 0, 0, req); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_nbc_done(RA_ARGS, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t s,
                                     uint64_t r, uint64_t req)
{ ra_add(u, l, t, al, T_NBC_DONE, root, c, op, s, r, req); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_fork(RA_ARGS, OTF2_Paradigm p, uint32_t n)
{ ra_add(u, l, t, al, T_FORK, n, 0, p, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_join(RA_ARGS, OTF2_Paradigm p)
{ ra_add(u, l, t, al, T_JOIN, 0, 0, p, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_team_begin(RA_ARGS, OTF2_CommRef team)
{ ra_add(u, l, t, al, T_TEAM_BEGIN, 0, team, 0, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_team_end(RA_ARGS, OTF2_CommRef team)
{ ra_add(u, l, t, al, T_TEAM_END, 0, team, 0, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_acquire(RA_ARGS, OTF2_Paradigm p, uint32_t lock, uint32_t order)
{ (void)p; ra_add(u, l, t, al, T_ACQUIRE, lock, 0, order, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_release(RA_ARGS, OTF2_Paradigm p, uint32_t lock, uint32_t order)
{ (void)p; ra_add(u, l, t, al, T_RELEASE, lock, 0, order, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_task_create(RA_ARGS, OTF2_CommRef team, uint32_t creator, uint32_t gen)
{ ra_add(u, l, t, al, T_TASK_CREATE, creator, team, gen, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_task_switch(RA_ARGS, OTF2_CommRef team, uint32_t creator, uint32_t gen)
{ ra_add(u, l, t, al, T_TASK_SWITCH, creator, team, gen, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_task_done(RA_ARGS, OTF2_CommRef team, uint32_t creator, uint32_t gen)
{ ra_add(u, l, t, al, T_TASK_DONE, creator, team, gen, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_win_create(RA_ARGS, OTF2_RmaWinRef w)
{ ra_add(u, l, t, al, T_RMA_WIN_CREATE, 0, w, 0, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_win_destroy(RA_ARGS, OTF2_RmaWinRef w)
{ ra_add(u, l, t, al, T_RMA_WIN_DESTROY, 0, w, 0, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_coll_begin(RA_ARGS)
{ ra_add(u, l, t, al, T_RMA_COLL_BEGIN, 0, 0, 0, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_coll_end(RA_ARGS, OTF2_CollectiveOp op, OTF2_RmaSyncLevel lv, OTF2_RmaWinRef w,
                                         uint32_t root, uint64_t s, uint64_t r)
{ ra_add(u, l, t, al, T_RMA_COLL_END, root, w, lv, s, r, op); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_group_sync(RA_ARGS, OTF2_RmaSyncLevel lv, OTF2_RmaWinRef w, OTF2_GroupRef g)
{ ra_add(u, l, t, al, T_RMA_GROUP_SYNC, g, w, lv, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_request_lock(RA_ARGS, OTF2_RmaWinRef w, uint32_t remote, uint64_t lock, OTF2_LockType lt)
{ ra_add(u, l, t, al, T_RMA_REQUEST_LOCK, remote, w, lt, 0, 0, lock); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_release_lock(RA_ARGS, OTF2_RmaWinRef w, uint32_t remote, uint64_t lock)
{ ra_add(u, l, t, al, T_RMA_RELEASE_LOCK, remote, w, 0, 0, 0, lock); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_sync(RA_ARGS, OTF2_RmaWinRef w, uint32_t remote, OTF2_RmaSyncType st)
{ ra_add(u, l, t, al, T_RMA_SYNC, remote, w, st, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_put(RA_ARGS, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes, uint64_t id)
{ ra_add(u, l, t, al, T_RMA_PUT, remote, w, 0, bytes, 0, id); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_get(RA_ARGS, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes, uint64_t id)
{ ra_add(u, l, t, al, T_RMA_GET, remote, w, 0, bytes, 0, id); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_atomic(RA_ARGS, OTF2_RmaWinRef w, uint32_t remote, OTF2_RmaAtomicType at, uint64_t s,
                                       uint64_t r, uint64_t id)
{ ra_add(u, l, t, al, T_RMA_ATOMIC, remote, w, at, s, r, id); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_remote(RA_ARGS, OTF2_RmaWinRef w, uint64_t id)
{ ra_add(u, l, t, al, T_RMA_REMOTE, 0, w, 0, 0, 0, id); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_rma_nonblocking(RA_ARGS, OTF2_RmaWinRef w, uint64_t id)
{ ra_add(u, l, t, al, T_RMA_NONBLOCKING, 0, w, 0, 0, 0, id); return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ra_unknown(RA_ARGS)
{ ra_add(u, l, t, al, T_UNKNOWN, 0, 0, 0, 0, 0, 0); return OTF2_CALLBACK_SUCCESS; }
#undef RA_ARGS

static inline void ra_evt_callbacks(OTF2_GlobalEvtReaderCallbacks *c)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(c, ra_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(c, ra_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(c, ra_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(c, ra_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(c, ra_isend_done);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(c, ra_irecv_req);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(c, ra_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(c, ra_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(c, ra_cancelled);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(c, ra_coll_begin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(c, ra_coll_end);
    OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(c, ra_nbc_req);
    OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(c, ra_nbc_done);
    OTF2_GlobalEvtReaderCallbacks_SetThreadForkCallback(c, ra_fork);
    OTF2_GlobalEvtReaderCallbacks_SetThreadJoinCallback(c, ra_join);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTeamBeginCallback(c, ra_team_begin);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTeamEndCallback(c, ra_team_end);
    OTF2_GlobalEvtReaderCallbacks_SetThreadAcquireLockCallback(c, ra_acquire);
    OTF2_GlobalEvtReaderCallbacks_SetThreadReleaseLockCallback(c, ra_release);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskCreateCallback(c, ra_task_create);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskSwitchCallback(c, ra_task_switch);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskCompleteCallback(c, ra_task_done);
    OTF2_GlobalEvtReaderCallbacks_SetRmaWinCreateCallback(c, ra_rma_win_create);
    OTF2_GlobalEvtReaderCallbacks_SetRmaWinDestroyCallback(c, ra_rma_win_destroy);
    OTF2_GlobalEvtReaderCallbacks_SetRmaCollectiveBeginCallback(c, ra_rma_coll_begin);
    OTF2_GlobalEvtReaderCallbacks_SetRmaCollectiveEndCallback(c, ra_rma_coll_end);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGroupSyncCallback(c, ra_rma_group_sync);
    OTF2_GlobalEvtReaderCallbacks_SetRmaRequestLockCallback(c, ra_rma_request_lock);
    OTF2_GlobalEvtReaderCallbacks_SetRmaReleaseLockCallback(c, ra_rma_release_lock);
    OTF2_GlobalEvtReaderCallbacks_SetRmaSyncCallback(c, ra_rma_sync);
    OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(c, ra_rma_put);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(c, ra_rma_get);
    OTF2_GlobalEvtReaderCallbacks_SetRmaAtomicCallback(c, ra_rma_atomic);
    OTF2_GlobalEvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(c, ra_rma_remote);
    OTF2_GlobalEvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(c, ra_rma_nonblocking);
    OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(c, ra_unknown);
}

static inline int ra_defs(OTF2_Reader *r, ra_archive_t *a)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *c = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(c, ra_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(c, ra_string);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(c, ra_location);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(c, ra_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(c, ra_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(c, ra_group);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(c, ra_rma_win);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, c, a);
    OTF2_GlobalDefReaderCallbacks_Delete(c);
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &n);
    OTF2_Reader_CloseGlobalDefReader(r, gdr);
    return rc == OTF2_SUCCESS ? 0 : -1;
}

static inline int ra_events(OTF2_Reader *r, ra_archive_t *a)
{
    for (int i = 0; i < a->nloc; i++)
        OTF2_Reader_SelectLocation(r, a->loc[i].id);
    int defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    OTF2_Reader_OpenEvtFiles(r);
    for (int i = 0; i < a->nloc; i++) {
        if (defs) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, a->loc[i].id);
            uint64_t n;
            if (dr) {
                OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n);
                OTF2_Reader_CloseDefReader(r, dr);
            }
        }
        OTF2_Reader_GetEvtReader(r, a->loc[i].id);
    }
    if (defs)
        OTF2_Reader_CloseDefFiles(r);
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(r);
    OTF2_GlobalEvtReaderCallbacks *c = OTF2_GlobalEvtReaderCallbacks_New();
    ra_evt_callbacks(c);
    OTF2_Reader_RegisterGlobalEvtCallbacks(r, ger, c, a);
    OTF2_GlobalEvtReaderCallbacks_Delete(c);
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalEvents(r, ger, &n);
    OTF2_Reader_CloseGlobalEvtReader(r, ger);
    OTF2_Reader_CloseEvtFiles(r);
    return rc == OTF2_SUCCESS ? 0 : -1;
}

/* Reads anchor (DIR/traces.otf2) into a; 0 on success. */
static inline int ra_read(const char *anchor, ra_archive_t *a)
{
    memset(a, 0, sizeof *a);
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (!r)
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    int rc = ra_defs(r, a);
    if (rc == 0)
        rc = ra_events(r, a);
    char *v = NULL;
    if (OTF2_Reader_GetProperty(r, "SYNCTRACE::INCOMPLETE", &v) == OTF2_SUCCESS && v) {
        snprintf(a->incomplete, sizeof a->incomplete, "%s", v);
        free(v);
    }
    OTF2_Reader_Close(r);
    return rc;
}

static inline void ra_free(ra_archive_t *a)
{
    for (uint32_t i = 0; i < a->nstr; i++)
        free(a->str[i]);
    free(a->str);
    for (int i = 0; i < a->ngroup; i++)
        free(a->group[i].m);
    free(a->ev);
}

/* The n-th event (0-based) of the given type at location loc, or NULL. */
static inline const ra_event_t *ra_find(const ra_archive_t *a, uint64_t loc, int type, int n)
{
    for (size_t i = 0; i < a->nev; i++)
        if (a->ev[i].loc == loc && a->ev[i].type == type && n-- == 0)
            return &a->ev[i];
    return NULL;
}

static inline const ra_comm_t *ra_comm_named(const ra_archive_t *a, const char *name)
{
    for (int i = 0; i < a->ncomm; i++)
        if (strcmp(ra_str(a, a->comm[i].name), name) == 0)
            return &a->comm[i];
    return NULL;
}

static inline const ra_group_t *ra_group_id(const ra_archive_t *a, uint64_t id)
{
    for (int i = 0; i < a->ngroup; i++)
        if (a->group[i].id == id)
            return &a->group[i];
    return NULL;
}

#endif
