/*
 * stub_runtime.c — a stand-in for src/mpi's runtime, to test the generated wrappers alone.
 *
 * Implements what build/gen/FAM/mpi_wrappers.c calls (st_mpi.h, plus the thread and timer symbols
 * the inline recording path needs) and remembers the arguments of the calls that matter in
 * `st_stub`, so bytes_prog.c can check what each wrapper passed. The size helpers follow the
 * contracts of st_mpi.h, written independently of src/mpi. Single-threaded test use only.
 */
#include <stdlib.h>
#include <string.h>

#include "stub_runtime.h"
#include "../../src/mpi/comm.h"
#include "../../src/mpi/rma.h"
#include "../../src/mpi/rma_win.h"

st_stub_t st_stub;

/* ---- recording path (record.h, timer.h) --------------------------------------------------- */

volatile int st_mpi_tracing = 1;
int st_mpi_callsite_on = 0;
clockid_t st_timer_clock = CLOCK_MONOTONIC;
int st_timer_tsc;
st_tsc_conv_t st_tsc_conv;
static const st_timer_map_t map0 = { .epoch = 1 };
_Atomic(const st_timer_map_t *) st_timer_current = &map0; /* no TSC form (gm 0): the clock's way */
uint64_t st_timer_global_early(const st_timer_map_t *m, uint64_t tsc) { return st_timer_apply(m, st_tsc_to_ns(tsc)); }
uint64_t st_timer_global_local(const st_timer_map_t *m, int ordered)
{
    return st_timer_apply(m, ordered ? st_timer_local() : st_timer_stamp());
}
__thread st_thread_t *st_thread_tls __attribute__((tls_model("initial-exec")));
static st_thread_t thread;
st_filter_t st_record_filter; /* no filter: the wrappers record every call (th->filtered stays NULL) */
static st_event_t events[1 << 12];

st_thread_t *st_thread_register(void)
{
    thread.buf = events;
    thread.cap = thread.limit = sizeof events / sizeof events[0];
    return st_thread_tls = &thread;
}

void st_record_flush(st_thread_t *th) { th->pos = 0; th->flushes++; }
/* A thread's first MPI call: the program's one thread (no call comes from inside the MPI library here). */
st_thread_t *st_mpi_thread_first(const void *caller) { (void)caller; return st_thread_register(); }
uint64_t st_mpi_callsite(void) { return 0; }
int st_callpath_on = 0;
uint32_t st_callpath_capture(void) { return ST_CP_NONE; }
uint64_t st_callpath_pc(uint32_t n) { (void)n; return 0; }

st_thread_t *st_stub_thread(void) { return st_thread_self(); }

/* ---- scratch ---------------------------------------------------------------------------- */

static MPI_Status status_scratch[64];
static MPI_Request req_scratch[64];

MPI_Status *st_mpi_statuses(st_thread_t *th, int count, MPI_Status *statuses)
{
    (void)th; (void)count;
    return statuses == MPI_STATUSES_IGNORE ? status_scratch : statuses;
}

MPI_Request *st_mpi_snapshot(st_thread_t *th, int count, const MPI_Request *reqs)
{
    (void)th;
    memcpy(req_scratch, reqs, sizeof(MPI_Request) * (size_t)count);
    return req_scratch;
}

void st_mpi_snapshot_end(st_thread_t *th, int count) { (void)th; (void)count; }

/* ---- sizes -------------------------------------------------------------------------------- */

/* st_mpi_bytes (st_mpi.h) sizes the predefined types it knows itself and asks this for the others */
uint64_t st_mpi_bytes_asked(MPI_Count count, MPI_Datatype type)
{
    int size = 0;
    if (type == MPI_DATATYPE_NULL) { /* the tests pass it only where MPI ignores the datatype */
        st_stub.null_type_reads++;
        return 0;
    }
    PMPI_Type_size(type, &size);
    return count > 0 ? (uint64_t)count * (uint64_t)size : 0;
}

uint64_t st_mpi_bytes_v(const int *counts, MPI_Datatype type, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        s += st_mpi_bytes(counts[i], type);
    st_stub.v_calls++;
    return s;
}

uint64_t st_mpi_bytes_vc(const MPI_Count *counts, MPI_Datatype type, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        s += st_mpi_bytes(counts[i], type);
    st_stub.vc_calls++;
    return s;
}

uint64_t st_mpi_bytes_w(const int *counts, const MPI_Datatype *types, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        s += st_mpi_bytes(counts[i], types[i]);
    return s;
}

uint64_t st_mpi_bytes_wc(const MPI_Count *counts, const MPI_Datatype *types, int n)
{
    uint64_t s = 0;
    for (int i = 0; i < n; i++)
        s += st_mpi_bytes(counts[i], types[i]);
    return s;
}

int st_mpi_comm_size(MPI_Comm comm)
{
    int inter = 0, n = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

int st_mpi_is_root(MPI_Comm comm, int root)
{
    int inter = 0, rank = -1;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return root == MPI_ROOT;
    PMPI_Comm_rank(comm, &rank);
    return rank == root;
}

/* The tests use only a 1-D periodic Cartesian communicator: two neighbours each way. */
int st_mpi_nbr_in(MPI_Comm comm) { int nd = 0; PMPI_Cartdim_get(comm, &nd); return 2 * nd; }
int st_mpi_nbr_out(MPI_Comm comm) { int nd = 0; PMPI_Cartdim_get(comm, &nd); return 2 * nd; }

/* ---- point-to-point ---------------------------------------------------------------------- */

static void p2p(const char *what, MPI_Comm comm, int peer, int tag, MPI_Count count, MPI_Datatype type)
{
    st_stub.p2p = (st_stub_p2p_t){ .what = what, .comm = comm, .peer = peer, .tag = tag,
                                   .bytes = st_mpi_bytes(count, type) };
}

void st_mpi_send(st_thread_t *th, MPI_Comm comm, int dest, int tag, MPI_Count count, MPI_Datatype type)
{
    (void)th;
    p2p("send", comm, dest, tag, count, type);
}

_Atomic uint64_t st_mpi_next_post = 1; /* st_mpi_recv_post's counter (inline, st_mpi.h) */
/* The communicator table of the inline usual case (p2p_fast.h): empty, so every call takes the
 * general wrapper, whose runtime calls this stub records. */
st_comm_slot_t st_comm_map[ST_COMM_SLOTS];
st_win_slot_t st_win_map[ST_WIN_SLOTS]; /* the same for windows (rma_fast.h) */
int st_mpi_status_raw_ok;
int st_mpi_thread_multiple;
/* The usual case's general end: never reached with the empty table above. */
int st_mpi_recv_end(st_thread_t *th, int rc, const st_comm_t *c, const MPI_Status *status, uint64_t post_id,
                    st_region_t region)
{
    (void)th; (void)rc; (void)c; (void)status; (void)post_id; (void)region;
    abort();
}

void st_mpi_recv(st_thread_t *th, int rc, MPI_Comm comm, const MPI_Status *status, uint64_t post_id)
{
    (void)th; (void)comm;
    st_stub.recv_rc = rc;
    st_stub.recv_post = post_id;
    st_stub.recv_status_ignored = status == MPI_STATUS_IGNORE;
    st_stub.recv_source = status == MPI_STATUS_IGNORE ? -99 : status->MPI_SOURCE;
}

void st_mpi_isend(st_thread_t *th, st_req_info_t *ri, MPI_Comm comm, int dest, int tag, MPI_Count count,
                  MPI_Datatype type)
{
    (void)th;
    p2p("isend", comm, dest, tag, count, type);
    *ri = (st_req_info_t){ .kind = ST_REQ_SEND, .peer = dest, .tag = tag };
}

void st_mpi_irecv(st_thread_t *th, st_req_info_t *ri, MPI_Comm comm, int source, int tag)
{
    (void)th;
    p2p("irecv", comm, source, tag, 0, MPI_BYTE);
    *ri = (st_req_info_t){ .kind = ST_REQ_RECV, .peer = source, .tag = tag };
}

void st_mpi_persistent(int rc, MPI_Request req, int is_send, MPI_Comm comm, int peer, int tag, MPI_Count count,
                       MPI_Datatype type)
{
    (void)rc; (void)req;
    p2p(is_send ? "send_init" : "recv_init", comm, peer, tag, count, type);
}

void st_mpi_req_add(int rc, MPI_Request req, const st_req_info_t *ri)
{
    (void)ri;
    if (rc == MPI_SUCCESS)
        st_stub.reqs_added++, st_stub.last_req = req;
}

void st_mpi_start(st_thread_t *th, int count, const MPI_Request *reqs) { (void)th; (void)reqs; st_stub.started += count; }
void st_mpi_req_free(MPI_Request req) { (void)req; st_stub.freed++; }

static void completed(MPI_Request saved, MPI_Status *status)
{
    if (saved == MPI_REQUEST_NULL)
        return;
    st_stub.completed++;
    st_stub.complete_sources |= status == MPI_STATUS_IGNORE ? 1u << 31 : 1u << (status->MPI_SOURCE & 15);
}

void st_mpi_complete(st_thread_t *th, int i, MPI_Status *status) { (void)th; completed(req_scratch[i], status); }

void st_mpi_complete_all(st_thread_t *th, int rc, int count, MPI_Status *statuses)
{
    (void)th; (void)rc;
    for (int i = 0; i < count; i++)
        completed(req_scratch[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]);
}

void st_mpi_complete_some(st_thread_t *th, int rc, int outcount, const int *indices, MPI_Status *statuses)
{
    (void)th; (void)rc;
    for (int i = 0; outcount != MPI_UNDEFINED && i < outcount; i++)
        completed(req_scratch[indices[i]], &statuses[i]);
}

void st_mpi_mprobe(int rc, MPI_Comm comm, MPI_Message msg) { (void)rc; (void)comm; (void)msg; }
st_msg_info_t st_mpi_message_take(MPI_Message msg) { (void)msg; return (st_msg_info_t){ 0, 0 }; }
void st_mpi_mrecv(st_thread_t *th, int rc, const st_msg_info_t *mi, const MPI_Status *status)
{
    st_mpi_recv(th, rc, MPI_COMM_NULL, status, mi->post_id);
}
void st_mpi_imrecv(st_thread_t *th, st_req_info_t *ri, const st_msg_info_t *mi)
{
    (void)th; (void)mi;
    *ri = (st_req_info_t){ .kind = ST_REQ_RECV };
}

/* ---- collectives and communicators ------------------------------------------------------- */

void st_mpi_coll_begin(st_thread_t *th) { (void)th; st_stub.coll_begins++; }

void st_mpi_coll_end(st_thread_t *th, int op, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd)
{
    (void)th;
    st_stub.coll = (st_stub_coll_t){ .ends = st_stub.coll.ends + 1, .op = op, .comm = comm, .root = root,
                                     .sent = sent, .recvd = recvd };
}

void st_mpi_icoll(st_thread_t *th, st_req_info_t *ri, int op, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd)
{
    memset(ri, 0, sizeof *ri);
    st_mpi_coll_end(th, op, comm, root, sent, recvd);
}

void st_mpi_comm_new(int rc, MPI_Comm parent, MPI_Comm newcomm)
{
    if (rc == MPI_SUCCESS && newcomm != MPI_COMM_NULL)
        st_stub.comm_new++, st_stub.comm_parent = parent;
}

void st_mpi_comm_idup(int rc, MPI_Comm parent, MPI_Comm *newcomm, MPI_Request req)
{
    (void)newcomm; (void)req;
    if (rc == MPI_SUCCESS)
        st_stub.comm_new++, st_stub.comm_parent = parent;
}

void st_mpi_comm_free(MPI_Comm comm) { (void)comm; st_stub.comm_freed++; }

/* ---- one-sided communication ---------------------------------------------------------------- */

void st_mpi_rma_coll_begin(st_thread_t *th) { (void)th; }
void st_mpi_win_create(st_thread_t *th, int rc, MPI_Comm comm, MPI_Win win)
{
    (void)th; (void)comm;
    st_stub.rma.created += rc == MPI_SUCCESS && win != MPI_WIN_NULL;
}
st_win_t *st_mpi_win_free_begin(st_thread_t *th, MPI_Win win) { (void)th; (void)win; return NULL; }
void st_mpi_win_free_end(st_thread_t *th, int rc, st_win_t *w) { (void)th; (void)w; st_stub.rma.freed += rc == MPI_SUCCESS; }
void st_mpi_rma_op(st_thread_t *th, int op, int target, uint64_t sent, uint64_t recvd, MPI_Win win, st_req_info_t *ri)
{
    (void)th; (void)win;
    if (ri)
        memset(ri, 0, sizeof *ri);
    st_stub.rma.ops++;
    st_stub.rma.op = op, st_stub.rma.target = target, st_stub.rma.sent = sent, st_stub.rma.recvd = recvd;
    st_stub.rma.with_request = ri != NULL;
}
void st_mpi_rma_complete(st_thread_t *th, const st_req_info_t *ri) { (void)th; (void)ri; }
void st_mpi_win_fence(st_thread_t *th, int rc, int massert, MPI_Win win) { (void)th; (void)massert; (void)win; st_stub.rma.fences += rc == MPI_SUCCESS; }
void st_mpi_win_lock(st_thread_t *th, int lock_type, int target, MPI_Win win)
{
    (void)th; (void)lock_type; (void)win;
    st_stub.rma.locks++, st_stub.rma.lock_target = target;
}
void st_mpi_win_locked(st_thread_t *th, int rc, int lock_type, int target, MPI_Win win)
{
    (void)th; (void)rc; (void)lock_type; (void)target; (void)win;
}
void st_mpi_win_unlock(st_thread_t *th, int rc, int target, MPI_Win win)
{
    (void)th; (void)win;
    st_stub.rma.unlocks += rc == MPI_SUCCESS, st_stub.rma.unlock_target = target;
}
void st_mpi_win_flush(st_thread_t *th, int rc, int at, int target, MPI_Win win)
{
    (void)th; (void)rc; (void)at; (void)target; (void)win;
}
void st_mpi_win_sync(st_thread_t *th, int rc, MPI_Win win)
{
    (void)th; (void)rc; (void)win;
}
void st_mpi_win_pscw(st_thread_t *th, int rc, int what, MPI_Group group, MPI_Win win, int done)
{
    (void)th; (void)group; (void)win;
    st_stub.rma.pscw += rc == MPI_SUCCESS && done, st_stub.rma.pscw_what = what;
}

void st_mpi_win_post_start(st_thread_t *th, int rc, int what, MPI_Group group, int massert, MPI_Win win)
{
    (void)massert;
    st_mpi_win_pscw(th, rc, what, group, win, 1);
}
