/*
 * archive_events.c — reads every location's events into the model.
 *
 * One OTF2 event reader per location, read to the end in recorded order. Local definition
 * files are optional: when present they may carry mapping tables (local -> global ids),
 * which the OTF2 reader applies to the events once they are read, so they are read first.
 * Peers and roots are translated to world ranks here (st_cli_world_rank), as the
 * location's rank is known; one-sided MPI records name their window's communicator too.
 * Other OTF2 record types (RmaTryLock, RmaWaitChange, RmaOpTest,
 * RmaOpCompleteBlocking, which synctrace does not write, among them) are skipped.
 */
#include "archive_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../model/callpath.h"

typedef struct evt_ctx {
    st_cli_archive_t  *ar;
    st_cli_location_t *loc;
    int oom;
    uint64_t most;   /* events the location's file can hold: every event takes at least a byte */
    int      overrun; /* OTF2 gave more (a file cut at a chunk's end is read again and again) */
} evt_ctx_t;

static int omp_team_kind(unsigned k)
{
    return k == ST_EV_THREAD_FORK || k == ST_EV_THREAD_JOIN || k == ST_EV_THREAD_TEAM_BEGIN ||
           k == ST_EV_THREAD_TEAM_END;
}

/* Looks attribute a up in al (absent ones would make OTF2 report an error). */
static int attr(const OTF2_AttributeList *al, uint32_t a, OTF2_Type want, OTF2_AttributeValue *v)
{
    OTF2_Type type;
    if (a == ST_CLI_NONE || !OTF2_AttributeList_TestAttributeByID(al, a))
        return 0;
    return OTF2_AttributeList_GetAttributeByID(al, a, &type, v) == OTF2_SUCCESS && type == want;
}

/* The synctrace attributes of an event (archive.h says where each goes): call site and calling
 * context of an ENTER, time before CLC, OpenMP parallel id, receive post order, collective instance. */
static void attributes(const evt_ctx_t *c, st_event_t *e, unsigned k, const OTF2_AttributeList *al)
{
    OTF2_AttributeValue v;
    if (k == ST_EV_ENTER && attr(al, c->ar->attr[ST_ATTR_CALLSITE], OTF2_TYPE_STRING, &v) && v.stringRef != ST_CLI_NONE)
        e->aux = (uint64_t)v.stringRef + 1;
    if (k == ST_EV_ENTER && attr(al, c->ar->attr[ST_ATTR_CALLPATH], OTF2_TYPE_CALLING_CONTEXT, &v))
        st_event_set_callpath(e, v.callingContextRef);
    if (attr(al, c->ar->attr[ST_ATTR_ORIG_TIME], c->ar->attr_orig_type, &v)) {
        st_event_set_orig_time(e, v.uint64);
        e->flags |= ST_EVF_CLC_MOVED;
    }
    if (omp_team_kind(k) && attr(al, c->ar->attr[ST_ATTR_ID], OTF2_TYPE_UINT64, &v)) {
        e->id = v.uint64;
        e->flags |= ST_CLI_EVF_PID;
    }
    uint32_t order = k == ST_EV_MPI_RECV ? c->ar->attr[ST_ATTR_POST]
                   : k == ST_EV_MPI_COLL_END || k == ST_EV_MPI_ICOLL_COMPLETE ? c->ar->attr[ST_ATTR_COLL_SEQ] : ST_CLI_NONE;
    if (attr(al, order, OTF2_TYPE_UINT64, &v)) {
        *(k == ST_EV_MPI_ICOLL_COMPLETE ? &e->aux : &e->id) = v.uint64;
        e->flags |= ST_CLI_EVF_ORDER;
    }
}

/* Appends an event of kind k at time t to the current location, with its attributes. */
static st_event_t *add(void *u, OTF2_TimeStamp t, unsigned k, OTF2_AttributeList *al)
{
    evt_ctx_t *c = u;
    if (c->loc->n >= c->most) {
        c->overrun = 1;
        return NULL;
    }
    st_event_t *e = st_cli_grow((void **)&c->loc->ev, &c->loc->n, &c->loc->cap, sizeof *e);
    if (!e) {
        c->oom = 1;
        return NULL;
    }
    *e = (st_event_t){ .time = t, .kind = (uint8_t)k, .peer = -1 };
    if (al && OTF2_AttributeList_GetNumberOfElements(al))
        attributes(c, e, k, al);
    return e;
}

static void set_peer(evt_ctx_t *c, st_event_t *e, uint32_t comm, uint32_t rank)
{
    e->comm = comm;
    if (rank == OTF2_UNDEFINED_UINT32)
        return;
    e->peer = st_cli_world_rank(c->ar, comm, c->loc->rank, rank);
    if (e->peer < 0)
        e->flags |= ST_CLI_EVF_BADPEER;
}

/* A collective's root: OTF2's special values name this process (the root of an intercommunicator
 * collective), another process of its group (ROOT_THIS_GROUP) or none. */
static void set_root(evt_ctx_t *c, st_event_t *e, uint32_t comm, uint32_t root)
{
    if (root == OTF2_COLLECTIVE_ROOT_SELF) {
        e->comm = comm;
        e->peer = c->loc->rank;
    } else if (root == OTF2_COLLECTIVE_ROOT_THIS_GROUP) {
        e->comm = comm;
        e->flags |= ST_EVF_PROC_NULL;
    } else {
        set_peer(c, e, comm, root);
    }
}

/* Callback prologue: the common arguments, and a new event e (or interrupt). */
#define EV_ARGS OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *al
#define EV_NEW(kind)                                      \
    (void)l;                                              \
    (void)pos;                                            \
    st_event_t *e = add(u, t, (kind), al);                \
    if (!e)                                               \
        return OTF2_CALLBACK_INTERRUPT
#define EV_DONE return OTF2_CALLBACK_SUCCESS

static OTF2_CallbackCode on_enter(EV_ARGS, OTF2_RegionRef r) { EV_NEW(ST_EV_ENTER); e->region = r; EV_DONE; }
static OTF2_CallbackCode on_leave(EV_ARGS, OTF2_RegionRef r) { EV_NEW(ST_EV_LEAVE); e->region = r; EV_DONE; }

static OTF2_CallbackCode on_send(EV_ARGS, uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    EV_NEW(ST_EV_MPI_SEND);
    set_peer(u, e, comm, to);
    e->tag = (int32_t)tag, e->bytes = len;
    EV_DONE;
}

static OTF2_CallbackCode on_isend(EV_ARGS, uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    EV_NEW(ST_EV_MPI_ISEND);
    set_peer(u, e, comm, to);
    e->tag = (int32_t)tag, e->bytes = len, e->id = req;
    EV_DONE;
}

static OTF2_CallbackCode on_recv(EV_ARGS, uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    EV_NEW(ST_EV_MPI_RECV);
    set_peer(u, e, comm, from);
    e->tag = (int32_t)tag, e->bytes = len;
    EV_DONE;
}

static OTF2_CallbackCode on_irecv(EV_ARGS, uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    EV_NEW(ST_EV_MPI_IRECV);
    set_peer(u, e, comm, from);
    e->tag = (int32_t)tag, e->bytes = len, e->id = req;
    EV_DONE;
}

#define REQ_EVENT(fn, kind) \
    static OTF2_CallbackCode fn(EV_ARGS, uint64_t req) { EV_NEW(kind); e->id = req; EV_DONE; }
REQ_EVENT(on_isend_complete, ST_EV_MPI_ISEND_COMPLETE)
REQ_EVENT(on_irecv_request, ST_EV_MPI_IRECV_REQUEST)
REQ_EVENT(on_cancelled, ST_EV_MPI_REQUEST_CANCELLED)
REQ_EVENT(on_icoll_request, ST_EV_MPI_ICOLL_REQUEST)
REQ_EVENT(on_request_test, ST_EV_MPI_REQUEST_TEST)

static OTF2_CallbackCode on_coll_begin(EV_ARGS) { EV_NEW(ST_EV_MPI_COLL_BEGIN); EV_DONE; }

static OTF2_CallbackCode on_coll_end(EV_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                     uint64_t sent, uint64_t recvd)
{
    EV_NEW(ST_EV_MPI_COLL_END);
    set_root(u, e, comm, root);
    e->op = op, e->bytes = sent, e->bytes2 = recvd;
    EV_DONE;
}

static OTF2_CallbackCode on_icoll_complete(EV_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                           uint64_t sent, uint64_t recvd, uint64_t req)
{
    EV_NEW(ST_EV_MPI_ICOLL_COMPLETE);
    set_root(u, e, comm, root);
    e->op = op, e->bytes = sent, e->bytes2 = recvd, e->id = req;
    EV_DONE;
}

/* ---- one-sided MPI: the window as (comm, number on it) and its ref in region; targets as world ranks */

static void set_win(evt_ctx_t *c, st_event_t *e, OTF2_RmaWinRef win, uint32_t target)
{
    const st_cli_win_t *w = st_cli_win(c->ar, win);
    e->region = w ? win : ST_CLI_NONE;
    e->comm = w ? w->comm : ST_CLI_NONE;
    e->tag = w ? (int32_t)w->seq : 0;
    if (w && target != OTF2_UNDEFINED_UINT32)
        set_peer(c, e, w->comm, target);
}

static OTF2_CallbackCode on_rma_win_create(EV_ARGS, OTF2_RmaWinRef w) { EV_NEW(ST_EV_RMA_WIN_CREATE); set_win(u, e, w, OTF2_UNDEFINED_UINT32); EV_DONE; }
static OTF2_CallbackCode on_rma_win_destroy(EV_ARGS, OTF2_RmaWinRef w) { EV_NEW(ST_EV_RMA_WIN_DESTROY); set_win(u, e, w, OTF2_UNDEFINED_UINT32); EV_DONE; }
static OTF2_CallbackCode on_rma_coll_begin(EV_ARGS) { EV_NEW(ST_EV_RMA_COLL_BEGIN); e->comm = e->region = ST_CLI_NONE; EV_DONE; }

static OTF2_CallbackCode on_rma_coll_end(EV_ARGS, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level, OTF2_RmaWinRef w,
                                         uint32_t root, uint64_t sent, uint64_t recvd)
{
    (void)root; (void)sent; (void)recvd;
    EV_NEW(ST_EV_RMA_COLL_END);
    set_win(u, e, w, OTF2_UNDEFINED_UINT32);
    e->op = op, e->bytes = level;
    EV_DONE;
}

/* id: the archive's Group (convert.c makes it the rank's group table index). */
static OTF2_CallbackCode on_rma_group_sync(EV_ARGS, OTF2_RmaSyncLevel level, OTF2_RmaWinRef w, OTF2_GroupRef g)
{
    EV_NEW(ST_EV_RMA_GROUP_SYNC);
    set_win(u, e, w, OTF2_UNDEFINED_UINT32);
    e->bytes = level;
    e->id = g;
    EV_DONE;
}

static OTF2_CallbackCode on_rma_request_lock(EV_ARGS, OTF2_RmaWinRef w, uint32_t remote, uint64_t lock, OTF2_LockType type)
{
    (void)lock;
    EV_NEW(ST_EV_RMA_REQUEST_LOCK);
    set_win(u, e, w, remote);
    e->op = type;
    EV_DONE;
}

static OTF2_CallbackCode on_rma_acquire_lock(EV_ARGS, OTF2_RmaWinRef w, uint32_t remote, uint64_t lock,
                                             OTF2_LockType type)
{
    EV_NEW(ST_EV_RMA_ACQUIRE_LOCK);
    set_win(u, e, w, remote);
    e->op = type;
    e->id = lock; /* the ticket */
    EV_DONE;
}

static OTF2_CallbackCode on_rma_release_lock(EV_ARGS, OTF2_RmaWinRef w, uint32_t remote, uint64_t lock)
{
    (void)lock;
    EV_NEW(ST_EV_RMA_RELEASE_LOCK);
    set_win(u, e, w, remote);
    EV_DONE;
}

static OTF2_CallbackCode on_rma_sync(EV_ARGS, OTF2_RmaWinRef w, uint32_t remote, OTF2_RmaSyncType type)
{
    EV_NEW(ST_EV_RMA_SYNC);
    set_win(u, e, w, remote);
    e->op = type;
    EV_DONE;
}

#define RMA_TRANSFER(fn, kind)                                                                        \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes, uint64_t id) \
    {                                                                                                 \
        EV_NEW(kind);                                                                                 \
        set_win(u, e, w, remote);                                                                     \
        e->bytes = bytes, e->id = id;                                                                 \
        EV_DONE;                                                                                      \
    }
RMA_TRANSFER(on_rma_put, ST_EV_RMA_PUT)
RMA_TRANSFER(on_rma_get, ST_EV_RMA_GET)

static OTF2_CallbackCode on_rma_atomic(EV_ARGS, OTF2_RmaWinRef w, uint32_t remote, OTF2_RmaAtomicType type,
                                       uint64_t sent, uint64_t recvd, uint64_t id)
{
    EV_NEW(ST_EV_RMA_ATOMIC);
    set_win(u, e, w, remote);
    e->op = type, e->bytes = sent, e->bytes2 = recvd, e->id = id;
    EV_DONE;
}

#define RMA_COMPLETION(fn, kind)                                                 \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_RmaWinRef w, uint64_t id)          \
    {                                                                            \
        EV_NEW(kind);                                                            \
        set_win(u, e, w, OTF2_UNDEFINED_UINT32);                                 \
        e->id = id;                                                              \
        EV_DONE;                                                                 \
    }
RMA_COMPLETION(on_rma_complete_remote, ST_EV_RMA_OP_COMPLETE_REMOTE)
RMA_COMPLETION(on_rma_complete_nonblocking, ST_EV_RMA_OP_COMPLETE_NONBLOCKING)

static OTF2_CallbackCode on_fork(EV_ARGS, OTF2_Paradigm m, uint32_t n)
{
    (void)m;
    EV_NEW(ST_EV_THREAD_FORK);
    e->bytes = n;
    EV_DONE;
}

static OTF2_CallbackCode on_join(EV_ARGS, OTF2_Paradigm m) { (void)m; EV_NEW(ST_EV_THREAD_JOIN); EV_DONE; }
static OTF2_CallbackCode on_team_begin(EV_ARGS, OTF2_CommRef team) { EV_NEW(ST_EV_THREAD_TEAM_BEGIN); e->comm = team; EV_DONE; }
static OTF2_CallbackCode on_team_end(EV_ARGS, OTF2_CommRef team) { EV_NEW(ST_EV_THREAD_TEAM_END); e->comm = team; EV_DONE; }

#define LOCK_EVENT(fn, kind)                                                               \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_Paradigm m, uint32_t lock, uint32_t order)   \
    {                                                                                      \
        (void)m;                                                                           \
        EV_NEW(kind);                                                                      \
        e->id = lock, e->bytes = order;                                                    \
        EV_DONE;                                                                           \
    }
LOCK_EVENT(on_acquire, ST_EV_THREAD_ACQUIRE_LOCK)
LOCK_EVENT(on_release, ST_EV_THREAD_RELEASE_LOCK)

#define TASK_EVENT(fn, kind)                                                                    \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_CommRef team, uint32_t creator, uint32_t gen)      \
    {                                                                                           \
        EV_NEW(kind);                                                                           \
        e->comm = team, e->tag = (int32_t)creator, e->bytes2 = gen;                             \
        EV_DONE;                                                                                \
    }
TASK_EVENT(on_task_create, ST_EV_THREAD_TASK_CREATE)
TASK_EVENT(on_task_switch, ST_EV_THREAD_TASK_SWITCH)
TASK_EVENT(on_task_complete, ST_EV_THREAD_TASK_COMPLETE)

static OTF2_CallbackCode on_flush(EV_ARGS, OTF2_TimeStamp stop) { EV_NEW(ST_EV_BUFFER_FLUSH); e->bytes = stop; EV_DONE; }
static OTF2_CallbackCode on_measurement(EV_ARGS, OTF2_MeasurementMode m) { EV_NEW(ST_EV_MEASUREMENT); e->tag = (int32_t)m; EV_DONE; }

static OTF2_CallbackCode on_program_begin(EV_ARGS, OTF2_StringRef name, uint32_t nargs, const OTF2_StringRef *args)
{
    (void)nargs; (void)args;
    EV_NEW(ST_EV_PROGRAM_BEGIN);
    e->id = name;
    EV_DONE;
}

static OTF2_CallbackCode on_program_end(EV_ARGS, int64_t status) { EV_NEW(ST_EV_PROGRAM_END); e->bytes = (uint64_t)status; EV_DONE; }

static OTF2_EvtReaderCallbacks *make_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, on_request_test);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, on_icoll_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, on_icoll_complete);
    OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, on_rma_win_create);
    OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, on_rma_win_destroy);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(cb, on_rma_coll_begin);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, on_rma_coll_end);
    OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(cb, on_rma_group_sync);
    OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, on_rma_request_lock);
    OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, on_rma_release_lock);
    OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(cb, on_rma_acquire_lock);
    OTF2_EvtReaderCallbacks_SetRmaSyncCallback(cb, on_rma_sync);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, on_rma_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, on_rma_get);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, on_rma_atomic);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(cb, on_rma_complete_remote);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(cb, on_rma_complete_nonblocking);
    OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, on_fork);
    OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, on_join);
    OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(cb, on_team_begin);
    OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(cb, on_team_end);
    OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback(cb, on_acquire);
    OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback(cb, on_release);
    OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback(cb, on_task_create);
    OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, on_task_switch);
    OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, on_task_complete);
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb, on_flush);
    OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, on_measurement);
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cb, on_program_begin);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(cb, on_program_end);
    return cb;
}

/* The path of location loc's file with suffix ("evt", "def"): DIR/traces/ID.suffix. */
static void location_file(const st_cli_archive_t *ar, const st_cli_location_t *loc, const char *suffix, char *path,
                          size_t len)
{
    size_t dirlen = strlen(ar->path) - strlen(".otf2"); /* DIR/traces.otf2 -> DIR/traces/ */
    snprintf(path, len, "%.*s/%llu.%s", (int)dirlen, ar->path, (unsigned long long)loc->id, suffix);
}

/* Local definitions of one location (optional file; mapping tables apply to its events). A file
 * that is there but gives no reader (empty: the writer was stopped before it flushed) is an
 * error, as for otf2-print. */
static int read_local_defs(const st_cli_archive_t *ar, OTF2_Reader *rd, st_cli_location_t *loc, char *err,
                           size_t errlen)
{
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, loc->id);
    if (!dr) {
        char path[4200];
        struct stat st;
        location_file(ar, loc, "def", path, sizeof path);
        if (stat(path, &st) != 0)
            return 0; /* no local definitions for this location */
        snprintf(err, errlen, "bad local definitions of location %llu: %s of %lld bytes gives no reader (%s)",
                 (unsigned long long)loc->id, path, (long long)st.st_size, st_cli_otf2_error());
        return -1;
    }
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
    OTF2_Reader_CloseDefReader(rd, dr);
    if (rc != OTF2_SUCCESS && rc != OTF2_ERROR_ENOENT) {
        snprintf(err, errlen, "bad local definitions of location %llu: %s", (unsigned long long)loc->id,
                 st_cli_otf2_error());
        return -1;
    }
    return 0;
}

/*
 * Sizes the location's event array from the count its definition announces, so big archives
 * take no more memory than needed. The count is only trusted up to the size of the event file
 * (every event takes at least a byte); the loader checks the real count afterwards. Returns that
 * size, the most events the file can hold (UINT64_MAX when it cannot be seen).
 */
static uint64_t reserve(const st_cli_archive_t *ar, st_cli_location_t *loc)
{
    uint64_t n = loc->declared;
    char path[4200];
    struct stat st;
    location_file(ar, loc, "evt", path, sizeof path);
    if (stat(path, &st) != 0)
        return UINT64_MAX;
    if (!n)
        return (uint64_t)st.st_size;
    if (n > (uint64_t)st.st_size)
        n = (uint64_t)st.st_size;
    st_event_t *ev = n < SIZE_MAX / sizeof *ev ? malloc((size_t)n * sizeof *ev) : NULL;
    if (ev) {
        loc->ev = ev;
        loc->cap = (size_t)n;
    }
    return (uint64_t)st.st_size;
}

static int read_location(OTF2_Reader *rd, evt_ctx_t *c, OTF2_EvtReaderCallbacks *cb, char *err, size_t errlen)
{
    st_cli_otf2_error_reset();
    c->most = reserve(c->ar, c->loc);
    c->overrun = 0;
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, c->loc->id);
    OTF2_ErrorCode rc = er ? OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, c) : OTF2_ERROR_INVALID;
    uint64_t n = 0;
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
    if (er)
        OTF2_Reader_CloseEvtReader(rd, er);
    if (c->oom) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (c->overrun) {
        snprintf(err, errlen, "bad events of location %llu (rank %d thread %u): more events than its file of %llu "
                 "bytes can hold (the file is cut short or damaged)", (unsigned long long)c->loc->id, c->loc->rank,
                 c->loc->thread, (unsigned long long)c->most);
        return -1;
    }
    if (rc != OTF2_SUCCESS) {
        snprintf(err, errlen, "bad events of location %llu (rank %d thread %u): %s", (unsigned long long)c->loc->id,
                 c->loc->rank, c->loc->thread, *st_cli_otf2_error() ? st_cli_otf2_error() : OTF2_Error_GetDescription(rc));
        return -1;
    }
    return 0;
}

static int select_all(OTF2_Reader *rd, st_cli_archive_t *ar, char *err, size_t errlen)
{
    for (size_t i = 0; i < ar->nlocs; i++)
        if (!ar->locs[i].skipped && OTF2_Reader_SelectLocation(rd, ar->locs[i].id) != OTF2_SUCCESS) {
            snprintf(err, errlen, "cannot select location %llu: %s", (unsigned long long)ar->locs[i].id,
                     st_cli_otf2_error());
            return -1;
        }
    return 0;
}

static int read_all_local_defs(OTF2_Reader *rd, st_cli_archive_t *ar, char *err, size_t errlen)
{
    /* Opening the definition files fails when the archive has none: that is allowed. */
    if (OTF2_Reader_OpenDefFiles(rd) != OTF2_SUCCESS) {
        st_cli_otf2_error_reset();
        return 0;
    }
    int rc = 0;
    for (size_t i = 0; i < ar->nlocs && !rc; i++)
        if (!ar->locs[i].skipped)
            rc = read_local_defs(ar, rd, &ar->locs[i], err, errlen);
    OTF2_Reader_CloseDefFiles(rd);
    st_cli_otf2_error_reset();
    return rc;
}

int st_cli_read_events(OTF2_Reader *rd, st_cli_archive_t *ar, char *err, size_t errlen)
{
    if (select_all(rd, ar, err, errlen) || read_all_local_defs(rd, ar, err, errlen))
        return -1;
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
        snprintf(err, errlen, "cannot open the event files: %s", st_cli_otf2_error());
        return -1;
    }
    OTF2_EvtReaderCallbacks *cb = make_callbacks();
    evt_ctx_t ctx = {.ar = ar};
    int rc = cb ? 0 : -1;
    if (!cb)
        snprintf(err, errlen, "out of memory");
    for (size_t i = 0; i < ar->nlocs && !rc; i++) {
        if (ar->locs[i].skipped)
            continue;
        ctx.loc = &ar->locs[i];
        rc = read_location(rd, &ctx, cb, err, errlen);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseEvtFiles(rd);
    return rc;
}
