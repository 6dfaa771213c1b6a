/*
 * st_mpi.h — what the generated MPI wrappers call.
 *
 * Every generated wrapper has one shape (see scripts/gen_wrappers.py):
 *
 *     st_thread_t *th = st_mpi_begin();          // NULL: not tracing, or re-entered
 *     if (!th) return PMPI_X(args);
 *     if (ST_UNLIKELY(st_mpi_filtered(th, ST_REGION_MPI_X))) {   // filterable regions only
 *         uint64_t st_t0 = st_mpi_filter_begin();
 *         int rc = PMPI_X(args);
 *         st_mpi_filter_end(th, ST_REGION_MPI_X, st_t0);          // counted, not recorded
 *         return rc;
 *     }
 *     st_mpi_enter(th, ST_REGION_MPI_X);          // ENTER + call site
 *     ...role "pre" code...
 *     int rc = PMPI_X(args);
 *     ...role "post" code...
 *     st_mpi_leave(th, ST_REGION_MPI_X);
 *     st_mpi_end(th);
 *     return rc;                                   // the PMPI result, unchanged
 *
 * A role with an inline usual case (the blocking send and receive: p2p_fast.h) makes this shape a
 * static st_gen_MPI_X; its exported MPI_X records the usual call itself and tail-calls st_gen_MPI_X,
 * before recording anything, for every other call.
 *
 * The functions below never call a traced MPI_* symbol (only PMPI_*), never touch the
 * application's status or request contents beyond reading them, and are safe under
 * MPI_THREAD_MULTIPLE (tables are lock-free for lookups; a request is used by one
 * thread at a time, as MPI requires). "rc" arguments are the PMPI return code: on an
 * error nothing is registered. Peers and roots are recorded as WORLD ranks.
 */
#ifndef ST_MPI_H
#define ST_MPI_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "../record/record.h"
#include "../record/unwind.h"

#define ST_EXPORT __attribute__((visibility("default")))

/* The wrappers' flags are hidden as defined (-fvisibility=hidden): a direct load each. */
extern __attribute__((visibility("hidden"))) volatile int st_mpi_tracing; /* set between tool init and finalize */

/*
 * The first MPI call of a thread that records nothing yet (lib_threads.c): registers it, unless the call
 * comes from the MPI library itself (caller: the wrapper's return address), i.e. from a thread of the
 * library's own: its calls are never recorded (NULL). A call the library makes on the application's
 * thread, inside an MPI call, is skipped by in_tool instead.
 */
st_thread_t *st_mpi_thread_first(const void *caller);

/* Always inlined: __builtin_return_address(0) is then the wrapper's return address, in its caller. */
static inline __attribute__((always_inline)) st_thread_t *st_mpi_begin(void)
{
    if (ST_UNLIKELY(!st_mpi_tracing))
        return NULL;
    st_thread_t *th = st_thread_tls;
    if (ST_UNLIKELY(!th))
        th = st_mpi_thread_first(__builtin_return_address(0));
    if (ST_UNLIKELY(!th || th->in_tool))
        return NULL;
    th->in_tool = 1;
    return th;
}

static inline void st_mpi_end(st_thread_t *th) { th->in_tool = 0; }

/* Call site (SYNCTRACE_CALLSITE=1): return address of the first application frame (callsite.c). */
extern __attribute__((visibility("hidden"))) int st_mpi_callsite_on;
uint64_t st_mpi_callsite(void);

/* ENTER of an MPI region with its call site and call path (SYNCTRACE_CALLPATH=1), both read
 * before the clock: the unwind is not part of the call's time. Always inlined, as st_mpi_leave:
 * gcc otherwise calls one out-of-line copy of each from every wrapper, and the call with its
 * register saves cost 25-40 instructions of a Send's or Recv's 240-270 (the wrappers' text grows
 * by about a quarter, 1.31 -> 1.62 MB, MPICH). */
static inline __attribute__((always_inline)) void st_mpi_enter(st_thread_t *th, st_region_t region)
{
    uint32_t path = ST_UNLIKELY(st_callpath_on) ? st_callpath_capture() : ST_CP_NONE;
    uint64_t site = 0;
    if (ST_UNLIKELY(st_mpi_callsite_on)) /* with a path, its innermost frame is the call site */
        site = path != ST_CP_NONE ? st_callpath_pc(path) : st_mpi_callsite();
    st_record_enter(th, region, site);
    if (ST_UNLIKELY(path != ST_CP_NONE)) /* a fresh event has no path */
        st_event_set_callpath(&th->buf[th->pos - 1], path);
}

/*
 * th->in_tool while a wrapper runs: 1, or ST_MPI_STAMPED once the call's last event was recorded
 * after PMPI returned (st_mpi_stamped: a blocking receive's RECV). The LEAVE that follows at once
 * then shares that event's stamp instead of reading the clock again (~10 ns of CPU per read here).
 */
#define ST_MPI_STAMPED 2
static inline void st_mpi_stamped(st_thread_t *th) { th->in_tool = ST_MPI_STAMPED; }

static inline __attribute__((always_inline)) void st_mpi_leave(st_thread_t *th, st_region_t region)
{
    if (th->in_tool == ST_MPI_STAMPED) {
        th->in_tool = 1;
        st_record_again(th, ST_EV_LEAVE)->region = region;
    } else {
        st_record_leave(th, region);
    }
}

/* ---- filtered calls (SYNCTRACE_FILTER) ------------------------------------------------ */

/*
 * Nonzero when the calls of region are filtered on th: the filter excludes the region and th has
 * its counters (st_thread_register made them; without a filter th->filtered is NULL and this is
 * one load and a branch). Only the wrappers of filterable regions (st_region_unfilterable() NULL)
 * ask; a filtered call neither records, nor reads its call site or call path (no unwind).
 */
static inline int st_mpi_filtered(const st_thread_t *th, st_region_t region)
{
    return th->filtered != NULL && st_record_filter.excluded[region];
}

/* The start of a filtered call: the local clock, read as an event's stamp reads it. */
static inline uint64_t st_mpi_filter_begin(void)
{
    return st_timer_stamp();
}

/* The end of a filtered call begun at t0: one visit more of region and its time, then the
 * wrapper's end (st_mpi_end). No lock, no allocation, no system call beyond the clock read. */
static inline void st_mpi_filter_end(st_thread_t *th, st_region_t region, uint64_t t0)
{
    uint64_t t1 = st_timer_stamp();
    st_filtered_t *c = &th->filtered[region];
    c->visits++;
    c->time += t1 > t0 ? t1 - t0 : 0;
    st_mpi_end(th);
}

/* ---- status and request scratch -------------------------------------------------- */

/* Replaces MPI_STATUS_IGNORE by a wrapper-local status so the actual source/tag/size are known. */
#define ST_STATUS_FIX(status, local) \
    do { if ((status) == MPI_STATUS_IGNORE) (status) = &(local); } while (0)

/* The application's status array, or thread-local scratch for count entries when it is MPI_STATUSES_IGNORE
 * (MPI_STATUSES_IGNORE again when out of memory: completions are then not recorded). */
MPI_Status *st_mpi_statuses(st_thread_t *th, int count, MPI_Status *statuses);

/* Grows a thread-local scratch array p of *cap elements to at least need; NULL (p kept) when out of memory. */
void *st_mpi_grow(void *p, int *cap, int need, size_t elem);

extern __attribute__((visibility("hidden"))) int st_mpi_thread_multiple; /* MPI_Init_thread provided MPI_THREAD_MULTIPLE */

/*
 * The value of a shared counter, then the counter raised by one. Below MPI_THREAD_MULTIPLE the
 * application never has two MPI calls running at once, so a plain increment serves (a locked one costs
 * ~20 cycles, and more after a call that left many stores pending); the relaxed accesses keep an
 * erroneous program that calls MPI from two threads anyway from a data race (a duplicate id at worst).
 */
static inline uint64_t st_mpi_count(_Atomic uint64_t *counter)
{
    if (st_mpi_thread_multiple)
        return atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
    uint64_t v = atomic_load_explicit(counter, memory_order_relaxed);
    atomic_store_explicit(counter, v + 1, memory_order_relaxed);
    return v;
}

/* A posted receive's identity, from one process-wide counter (st_mpi_count: no locked add below
 * MPI_THREAD_MULTIPLE): the post ids order receives for matching (see check). */
extern __attribute__((visibility("hidden"))) _Atomic uint64_t st_mpi_next_post;
static inline uint64_t st_mpi_recv_post(void)
{
    return st_mpi_count(&st_mpi_next_post);
}

/*
 * Completion calls (Wait*, Test*): before PMPI, st_mpi_snapshot copies the count request handles into
 * thread-local scratch (PMPI frees them) and, under MPI_THREAD_MULTIPLE, takes their entries out of the
 * request map at once: after PMPI another thread may be handed the same handle by MPI and register its
 * own request under it, and a completion that looked the handle up then would take that thread's entry.
 * After PMPI, st_mpi_complete* record the completions of snapshot entries, and st_mpi_snapshot_end puts
 * back the entries of requests that did not complete. st_mpi_snapshot returns NULL when out of memory
 * (the completions of that call are then not recorded).
 */
MPI_Request *st_mpi_snapshot(st_thread_t *th, int count, const MPI_Request *reqs);
void st_mpi_snapshot_end(st_thread_t *th, int count);

/* ---- bytes ------------------------------------------------------------------------ */

/* count elements of type in bytes, asked of MPI (PMPI_Type_size); 0 if unknown. */
uint64_t st_mpi_bytes_asked(MPI_Count count, MPI_Datatype type);

/*
 * The size of a predefined type without a call into MPI (0: ask MPI). MPICH (and the MPIs built on
 * it) writes a predefined type's size into its handle: kind "builtin" and object "datatype" in the
 * top six bits (0x4c000000), the size in bytes in bits 8-15 (MPI_DOUBLE is 0x4c00080b), as its own
 * MPIR_Datatype_get_basic_size reads it; the size 0 (MPI_LB, MPI_UB) is asked. Open MPI's types are
 * pointers to its own structures: the ones most messages use are compared.
 */
static inline MPI_Count st_mpi_predefined_size(MPI_Datatype type)
{
#if defined(MPICH_VERSION)
    uint32_t h = (uint32_t)type;
    return (h & 0xfc000000u) == 0x4c000000u ? (MPI_Count)((h >> 8) & 0xffu) : 0;
#else
    if (type == MPI_BYTE || type == MPI_CHAR || type == MPI_UNSIGNED_CHAR)
        return 1;
    if (type == MPI_INT || type == MPI_UNSIGNED)
        return (MPI_Count)sizeof(int);
    if (type == MPI_DOUBLE)
        return (MPI_Count)sizeof(double);
    return 0;
#endif
}

/* count elements of type in bytes (0 if unknown); inline for the predefined types above, which
 * spares the wrappers a call (an MPI_Put's bytes cost ~30 instructions as a call). */
static inline uint64_t st_mpi_bytes(MPI_Count count, MPI_Datatype type)
{
    MPI_Count size = st_mpi_predefined_size(type);
    if (size > 0)
        return count > 0 ? (uint64_t)count * (uint64_t)size : 0;
    return st_mpi_bytes_asked(count, type);
}

/* Checks once, at MPI_Init, whether a receive's byte count can be read from its status directly
 * (the MPI's own status fields, p2p.c) instead of asked of MPI; tool: the tool's communicator. */
void st_mpi_status_init(MPI_Comm tool);
/* Sum of counts[0..n) times the size of type; n = size of the group named by which (see below). */
uint64_t st_mpi_bytes_v(const int *counts, MPI_Datatype type, int n);
uint64_t st_mpi_bytes_vc(const MPI_Count *counts, MPI_Datatype type, int n);
uint64_t st_mpi_bytes_w(const int *counts, const MPI_Datatype *types, int n);
uint64_t st_mpi_bytes_wc(const MPI_Count *counts, const MPI_Datatype *types, int n);
/* Sizes of the groups a collective exchanges with. */
int st_mpi_comm_size(MPI_Comm comm);        /* local group (intracomm) or remote group (intercomm) */
int st_mpi_is_root(MPI_Comm comm, int root); /* this process acts as root (intercomm: root == MPI_ROOT) */
int st_mpi_nbr_in(MPI_Comm comm);           /* neighborhood collectives: number of sources */
int st_mpi_nbr_out(MPI_Comm comm);          /* ... and destinations */

/* ---- point-to-point --------------------------------------------------------------- */

/* Blocking send (all modes): records MPI_SEND at the start. */
void st_mpi_send(st_thread_t *th, MPI_Comm comm, int dest, int tag, MPI_Count count, MPI_Datatype type);

/* Prepares the request and message maps (at library load, before any MPI call). */
void st_mpi_p2p_init(void);
/* Blocking receive completed (Recv, Sendrecv, Mrecv): records MPI_RECV from status. */
void st_mpi_recv(st_thread_t *th, int rc, MPI_Comm comm, const MPI_Status *status, uint64_t post_id);

/* Per-request information kept from post to completion. */
typedef struct st_req_info {
    uint64_t id;          /* synctrace request id, unique in the process; RMA: the operation's matching id */
    uint8_t  kind;        /* ST_REQ_* */
    uint8_t  flags;       /* ST_EVF_PERSISTENT; collectives: the root's ST_EVF_INTERCOMM / ST_EVF_PROC_NULL */
    uint16_t op;          /* collective op */
    uint32_t comm;        /* comm index (RMA: of the window's communicator; tag: the window's number on it) */
    int32_t  peer;        /* world rank (send: dest; receives: -1, the source comes from the status) */
    int32_t  tag;
    uint64_t bytes, bytes2;
    uint64_t seq;         /* collective instance sequence */
    MPI_Comm *newcomm;    /* Comm_idup: where the new communicator will appear */
    MPI_Comm parent;      /* Comm_idup: the communicator duplicated */
} st_req_info_t;

enum { ST_REQ_NONE, ST_REQ_SEND, ST_REQ_RECV, ST_REQ_COLL, ST_REQ_COMM_IDUP, ST_REQ_RMA, ST_REQ_OTHER };

/* Nonblocking send: records MPI_ISEND (before PMPI); fills ri for st_mpi_req_add. */
void st_mpi_isend(st_thread_t *th, st_req_info_t *ri, MPI_Comm comm, int dest, int tag, MPI_Count count, MPI_Datatype type);
/* Nonblocking receive: records MPI_IRECV_REQUEST (before PMPI); fills ri. */
void st_mpi_irecv(st_thread_t *th, st_req_info_t *ri, MPI_Comm comm, int source, int tag);
/* Persistent request created (Send_init & modes: is_send=1; Recv_init: 0). No event. */
void st_mpi_persistent(int rc, MPI_Request req, int is_send, MPI_Comm comm, int peer, int tag, MPI_Count count, MPI_Datatype type);
/* After PMPI: on success, remembers req -> ri until its completion. */
void st_mpi_req_add(int rc, MPI_Request req, const st_req_info_t *ri);
/* MPI_Start / MPI_Startall: records ISEND or IRECV_REQUEST of each persistent request (before PMPI). */
void st_mpi_start(st_thread_t *th, int count, const MPI_Request *reqs);
/* MPI_Request_free: forgets the request (a freed active request completes unseen). */
void st_mpi_req_free(MPI_Request req);
/* Registers req -> ri like st_mpi_req_add after a successful post (nonblocking collectives, Comm_idup). */
void st_mpi_req_put(MPI_Request req, const st_req_info_t *ri);
/* Completion of a nonblocking collective (records ICOLL_COMPLETE) and of a Comm_idup (registers the new
 * communicator): called for their requests by st_mpi_complete*. */
void st_mpi_coll_complete(st_thread_t *th, const st_req_info_t *ri);
void st_mpi_comm_idup_complete(const st_req_info_t *ri);
/* MPI_Cancel: nothing to record until completion shows it cancelled. */

/* Completion of saved[i] (a snapshot taken before PMPI) with its status. */
void st_mpi_complete(st_thread_t *th, int index, MPI_Status *status);
void st_mpi_complete_all(st_thread_t *th, int rc, int count, MPI_Status *statuses);
void st_mpi_complete_some(st_thread_t *th, int rc, int outcount, const int *indices, MPI_Status *statuses);

/* Matched probe: remembers message -> comm and post id. Mrecv/Imrecv take it back. */
void st_mpi_mprobe(int rc, MPI_Comm comm, MPI_Message msg);
typedef struct st_msg_info { uint32_t comm; uint64_t post_id; } st_msg_info_t;
st_msg_info_t st_mpi_message_take(MPI_Message msg);
void st_mpi_mrecv(st_thread_t *th, int rc, const st_msg_info_t *mi, const MPI_Status *status);
void st_mpi_imrecv(st_thread_t *th, st_req_info_t *ri, const st_msg_info_t *mi);

/* ---- collectives ------------------------------------------------------------------ */

void st_mpi_coll_begin(st_thread_t *th);
/* op: OTF2_COLLECTIVE_OP_*; root: the root argument (comm rank, MPI_ROOT, MPI_PROC_NULL) of a rooted op, any
 * value otherwise (the wrappers pass -1; op, not root, says whether there is a root). */
void st_mpi_coll_end(st_thread_t *th, int op, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd);
/* Nonblocking collective: records MPI_ICOLL_REQUEST at its start (before PMPI, like a send) and fills
 * ri with the instance; st_mpi_req_add(rc, request, ri) after PMPI remembers it until completion. */
void st_mpi_icoll(st_thread_t *th, st_req_info_t *ri, int op, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd);

/* ---- one-sided communication (rma.c) ------------------------------------------------------ */

/*
 * Windows are registered at their creation (not the hot path: the per-target counters are allocated
 * there) and looked up lock-free by handle. An operation gets a matching id from its window's counter
 * for its target and is recorded at its call's start (the ENTER's time); the synchronization that
 * completes it at the target (fence, MPI_Win_complete, MPI_Win_unlock(_all)) records one
 * RMA_OP_COMPLETE_REMOTE per operation still pending there; a request-based operation also completes
 * at the origin at its Wait/Test (RMA_OP_COMPLETE_NONBLOCKING). Flushes and MPI_Win_sync stay generic
 * (filterable, see wrappers/README.md): the operations a flush completes show at the epoch's end.
 * Calls on a window the tool does not know (created before tracing began, or on a communicator it
 * could not register) record nothing beyond their region.
 */
typedef struct st_win st_win_t;

/* What an RMA operation is (the wrappers' op word): its OTF2 record and atomic type. */
enum { ST_RMA_PUT, ST_RMA_GET, ST_RMA_ACCUMULATE, ST_RMA_GET_ACCUMULATE, ST_RMA_FETCH_AND_OP,
       ST_RMA_COMPARE_AND_SWAP };
/* Synchronization of a group (the wrappers' what word): model/event.h's st_pscw_op. */
/* Where a flush completes operations (the wrappers' at word): at the target, or at the origin. */
enum { ST_RMA_AT_REMOTE, ST_RMA_AT_LOCAL };
/* The target of MPI_Win_lock_all / MPI_Win_unlock_all: every rank of the window. */
#define ST_RMA_ALL INT32_MIN

/* The start of a collective on a window (creation, fence, free): RMA_COLL_BEGIN at the ENTER's time. */
void st_mpi_rma_coll_begin(st_thread_t *th);
/* After a window's creation on comm: registers it, records RMA_WIN_CREATE and the collective's end. */
void st_mpi_win_create(st_thread_t *th, int rc, MPI_Comm comm, MPI_Win win);
/* Before MPI_Win_free: the collective's begin and RMA_WIN_DESTROY; the window (NULL: unknown) goes to
 * st_mpi_win_free_end after PMPI, which records the collective's end and releases it. */
st_win_t *st_mpi_win_free_begin(st_thread_t *th, MPI_Win win);
void st_mpi_win_free_end(st_thread_t *th, int rc, st_win_t *w);
/* An operation op (ST_RMA_*) at target with the bytes it sends and receives, recorded before PMPI.
 * ri: NULL, or a request-based form's request info for st_mpi_req_add (its completion at Wait/Test). */
void st_mpi_rma_op(st_thread_t *th, int op, int target, uint64_t sent, uint64_t recvd, MPI_Win win,
                   st_req_info_t *ri);
/* Completion of a request-based operation (st_mpi_complete*): RMA_OP_COMPLETE_NONBLOCKING. */
void st_mpi_rma_complete(st_thread_t *th, const st_req_info_t *ri);
/* After MPI_Win_fence: remote completion of every pending operation, then the collective's end, its
 * sync level PROCESS | MEMORY, or MEMORY alone for a fence that only opens an epoch (MPI_MODE_NOPRECEDE
 * in massert: it need not synchronize the processes, MPI-3.1 11.5.1). */
void st_mpi_win_fence(st_thread_t *th, int rc, int massert, MPI_Win win);
/* MPI_Win_lock(_all) (target ST_RMA_ALL), before PMPI: RMA_REQUEST_LOCK of lock_type at the ENTER's time. */
void st_mpi_win_lock(st_thread_t *th, int lock_type, int target, MPI_Win win);
/* After MPI_Win_lock(_all) returned (the lock held, docs/clc.md Decisions 13): a ticket at the target,
 * or at each rank of the window on this machine for lock_all (lock_ticket.h), each recorded as
 * RMA_ACQUIRE_LOCK; nothing for a target on another machine. */
void st_mpi_win_locked(st_thread_t *th, int rc, int lock_type, int target, MPI_Win win);
/* After MPI_Win_unlock(_all) (target ST_RMA_ALL): remote completion of the target's pending
 * operations, then RMA_RELEASE_LOCK. */
void st_mpi_win_unlock(st_thread_t *th, int rc, int target, MPI_Win win);
/* After MPI_Win_flush(_all) (at ST_RMA_AT_REMOTE: RMA_OP_COMPLETE_REMOTE of the pending operations
 * at target, or at every target with ST_RMA_ALL) or MPI_Win_flush_local(_all) (ST_RMA_AT_LOCAL:
 * RMA_OP_COMPLETE_NONBLOCKING of those not completed yet at the origin; the remote completion
 * follows at a later flush or the epoch's end). Skipped for a filtered flush. */
void st_mpi_win_flush(st_thread_t *th, int rc, int at, int target, MPI_Win win);
/* After MPI_Win_sync: RMA_SYNC of type memory on the own rank. Skipped for a filtered call. */
void st_mpi_win_sync(st_thread_t *th, int rc, MPI_Win win);
/* After MPI_Win_post/start/complete/wait/test (what: ST_PSCW_*; done: Win_test's flag, else 1):
 * MPI_Win_complete completes every pending operation remotely first; then RMA_GROUP_SYNC. */
void st_mpi_win_pscw(st_thread_t *th, int rc, int what, MPI_Group group, MPI_Win win, int done);

/* ---- communicators ---------------------------------------------------------------- */

/* A communicator was created (after PMPI; MPI_COMM_NULL and errors are ignored). */
void st_mpi_comm_new(int rc, MPI_Comm parent, MPI_Comm newcomm);
/* MPI_Comm_idup: the communicator appears when the request completes. */
void st_mpi_comm_idup(int rc, MPI_Comm parent, MPI_Comm *newcomm, MPI_Request req);
/* After MPI_Comm_free / MPI_Comm_disconnect, with the handle saved before the call. */
void st_mpi_comm_free(MPI_Comm comm);

#endif
