/*
 * p2p.c — recording point-to-point traffic and request completion (see st_mpi.h).
 *
 * Sends are recorded at their start (blocking) or post (nonblocking, MPI_Start);
 * receives at their completion with the actual source, tag and size from the status.
 * Every posted receive gets an id from one process-wide counter, so the order of ids
 * is the post order that MPI's matching follows; `synctrace check` and the CLC match
 * the k-th send of a channel with the k-th posted receive of that channel.
 * MPI_PROC_NULL operations move no message and record no send/receive event.
 */
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "handle_map.h"
#include "mpi_have.h"
#include "p2p_fast.h"
#include "st_mpi.h"
#include "../exchange/polite_mpi.h"
#include "../util/log.h"

static st_hmap_t requests, messages;
_Atomic uint64_t st_mpi_next_post = 1;
static int maps_ready;

void st_mpi_p2p_init(void)
{
    if (!maps_ready) {
        st_hmap_init(&requests);
        st_hmap_init(&messages);
        maps_ready = 1;
    }
}

/* MPI-4's large-count functions where the MPI has them, else their MPI-3 _x equivalents (Open MPI
 * 4.1): the same MPI_Count result; for MPI_BYTE the number of elements is the count. */
#ifdef ST_HAVE_MPI_Type_size_c
#define ST_TYPE_SIZE PMPI_Type_size_c
#else
#define ST_TYPE_SIZE PMPI_Type_size_x
#endif
#ifdef ST_HAVE_MPI_Get_count_c
#define ST_BYTES_RECEIVED(st, n) PMPI_Get_count_c((st), MPI_BYTE, (n))
#else
#define ST_BYTES_RECEIVED(st, n) PMPI_Get_elements_x((st), MPI_BYTE, (n))
#endif

uint64_t st_mpi_bytes_asked(MPI_Count count, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || ST_TYPE_SIZE(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/*
 * The bytes a receive's status holds are read from the status itself (p2p_fast.h st_mpi_status_raw:
 * MPICH keeps them in count_lo and count_hi_and_cancelled, the high bits above the cancelled flag;
 * Open MPI in _ucount). Those fields are the MPI's own, not the standard's, so st_mpi_status_init
 * checks at MPI_Init that they hold what PMPI_Get_count says, on this build's MPI, before they are
 * used (a call into MPI costs about 70 instructions a receive: a fifth of what the tool added to
 * MPI_Recv).
 */
int st_mpi_status_raw_ok; /* st_mpi_status_init found st_mpi_status_raw right */

/* Bytes a status says were received, asked of MPI (0 if unknown). */
static uint64_t asked_bytes(const MPI_Status *st)
{
    MPI_Count n = 0;
    if (ST_BYTES_RECEIVED(st, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        return 0;
    return (uint64_t)n;
}

/* Bytes a status says were received (0 if unknown). */
static inline uint64_t status_bytes(const MPI_Status *st)
{
    return st_mpi_status_raw_ok ? st_mpi_status_raw(st) : asked_bytes(st);
}

/* Whether st_mpi_status_raw reads what MPI says of statuses MPI filled: counts on both sides of 2^32 with the
 * cancelled flag set, and a receive of 3 ints from this rank to itself on the tool's communicator. */
static int raw_bytes_right(MPI_Comm tool)
{
    static const MPI_Count counts[] = { 0, 5, 70000, (MPI_Count)1 << 33 | 12345 };
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        MPI_Status st;
        memset(&st, 0xa5, sizeof st);
        if (PMPI_Status_set_elements_x(&st, MPI_BYTE, counts[i]) != MPI_SUCCESS ||
            PMPI_Status_set_cancelled(&st, 1) != MPI_SUCCESS || st_mpi_status_raw(&st) != (uint64_t)counts[i] ||
            asked_bytes(&st) != (uint64_t)counts[i])
            return 0;
    }
    int me, out[3] = { 1, 2, 3 }, in[3];
    MPI_Request req[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Status st;
    if (PMPI_Comm_rank(tool, &me) != MPI_SUCCESS || PMPI_Irecv(in, 3, MPI_INT, me, 0, tool, &req[0]) != MPI_SUCCESS)
        return 0;
    if (PMPI_Isend(out, 3, MPI_INT, me, 0, tool, &req[1]) != MPI_SUCCESS) {
        PMPI_Cancel(&req[0]); /* no receive left posted on the tool's communicator */
        st_polite_wait(&req[0], &st);
        return 0;
    }
    int ok = st_polite_wait(&req[1], MPI_STATUS_IGNORE) == MPI_SUCCESS;
    return st_polite_wait(&req[0], &st) == MPI_SUCCESS && ok && st_mpi_status_raw(&st) == sizeof in && asked_bytes(&st) == sizeof in;
}

void st_mpi_status_init(MPI_Comm tool)
{
    st_mpi_status_raw_ok = ST_STATUS_RAW && raw_bytes_right(tool);
    st_log_debug("receive sizes: %s", st_mpi_status_raw_ok ? "read from the status (its fields checked)" : "asked of MPI");
}

static void fill_msg(st_event_t *e, const st_comm_t *c, int32_t peer, int tag, uint64_t bytes, uint64_t id)
{
    e->comm = c->index;
    e->peer = peer;
    e->tag = tag;
    e->bytes = bytes;
    e->id = id;
    if (c->def.flags & ST_COMMF_INTER)
        e->flags |= ST_EVF_INTERCOMM;
}

void st_mpi_send(st_thread_t *th, MPI_Comm comm, int dest, int tag, MPI_Count count, MPI_Datatype type)
{
    st_comm_t *c;
    if (dest == MPI_PROC_NULL || !(c = st_comm_get(comm)))
        return;
    /* at the ENTER's time: one clock read less per send (the ENTER was just recorded) */
    fill_msg(st_record_again(th, ST_EV_MPI_SEND), c, st_comm_world_rank(c, dest), tag, st_mpi_bytes(count, type), 0);
}

/* A blocking receive's RECV on c, unless it failed or received from MPI_PROC_NULL. */
static void recv_on(st_thread_t *th, int rc, const st_comm_t *c, const MPI_Status *status, uint64_t post_id)
{
    if (rc != MPI_SUCCESS || status->MPI_SOURCE == MPI_PROC_NULL)
        return;
    fill_msg(st_record(th, ST_EV_MPI_RECV), c, st_comm_world_rank(c, status->MPI_SOURCE), status->MPI_TAG,
             status_bytes(status), post_id);
    st_mpi_stamped(th); /* the call's LEAVE follows at this instant */
}

void st_mpi_recv(st_thread_t *th, int rc, MPI_Comm comm, const MPI_Status *status, uint64_t post_id)
{
    const st_comm_t *c = st_comm_get(comm);
    if (c)
        recv_on(th, rc, c, status, post_id);
}

int st_mpi_recv_end(st_thread_t *th, int rc, const st_comm_t *c, const MPI_Status *status, uint64_t post_id,
                    st_region_t region)
{
    recv_on(th, rc, c, status, post_id);
    st_mpi_leave(th, region);
    st_mpi_end(th);
    return rc;
}

void st_mpi_isend(st_thread_t *th, st_req_info_t *ri, MPI_Comm comm, int dest, int tag, MPI_Count count,
                  MPI_Datatype type)
{
    st_comm_t *c;
    memset(ri, 0, sizeof *ri);
    if (dest == MPI_PROC_NULL || !(c = st_comm_get(comm)))
        return; /* kind NONE: not registered, nothing at completion */
    ri->kind = ST_REQ_SEND;
    ri->id = st_mpi_recv_post();
    ri->comm = c->index;
    ri->peer = st_comm_world_rank(c, dest);
    ri->tag = tag;
    ri->bytes = st_mpi_bytes(count, type);
    fill_msg(st_record_again(th, ST_EV_MPI_ISEND), c, ri->peer, tag, ri->bytes, ri->id);
}

void st_mpi_irecv(st_thread_t *th, st_req_info_t *ri, MPI_Comm comm, int source, int tag)
{
    st_comm_t *c;
    memset(ri, 0, sizeof *ri);
    if (source == MPI_PROC_NULL || !(c = st_comm_get(comm)))
        return;
    ri->kind = ST_REQ_RECV;
    ri->id = st_mpi_recv_post();
    ri->comm = c->index;
    ri->tag = tag;
    st_record(th, ST_EV_MPI_IRECV_REQUEST)->id = ri->id;
}

void st_mpi_req_add(int rc, MPI_Request req, const st_req_info_t *ri)
{
    if (rc != MPI_SUCCESS || ri->kind == ST_REQ_NONE || req == MPI_REQUEST_NULL)
        return;
    if (st_hmap_put(&requests, ST_HMAP_KEY(req), ri) != 0)
        st_log_warn_once("out of memory for the request map; completions of further requests are not traced");
}

void st_mpi_persistent(int rc, MPI_Request req, int is_send, MPI_Comm comm, int peer, int tag, MPI_Count count,
                       MPI_Datatype type)
{
    st_comm_t *c;
    if (rc != MPI_SUCCESS || peer == MPI_PROC_NULL || !(c = st_comm_get(comm)))
        return;
    st_req_info_t ri = {
        .kind = is_send ? ST_REQ_SEND : ST_REQ_RECV,
        .flags = ST_EVF_PERSISTENT,
        .comm = c->index,
        .peer = is_send ? st_comm_world_rank(c, peer) : -1,
        .tag = tag,
        .bytes = is_send ? st_mpi_bytes(count, type) : 0,
    };
    st_mpi_req_add(rc, req, &ri);
}

void st_mpi_start(st_thread_t *th, int count, const MPI_Request *reqs)
{
    for (int i = 0; i < count; i++) {
        st_req_info_t *ri = st_hmap_get(&requests, ST_HMAP_KEY(reqs[i]));
        if (!ri || !(ri->flags & ST_EVF_PERSISTENT))
            continue;
        ri->id = st_mpi_recv_post(); /* each activation is its own message */
        uint32_t n;
        st_comm_t *c = st_comm_all(&n)[ri->comm];
        if (ri->kind == ST_REQ_SEND) {
            st_event_t *e = st_record(th, ST_EV_MPI_ISEND);
            fill_msg(e, c, ri->peer, ri->tag, ri->bytes, ri->id);
            e->flags |= ST_EVF_PERSISTENT;
        } else if (ri->kind == ST_REQ_RECV) {
            st_event_t *e = st_record(th, ST_EV_MPI_IRECV_REQUEST);
            e->id = ri->id;
            e->flags |= ST_EVF_PERSISTENT;
        }
    }
}

void st_mpi_req_free(MPI_Request req)
{
    st_hmap_del(&requests, ST_HMAP_KEY(req));
}

/* ---- snapshots of completion calls ------------------------------------------------------ */

int st_mpi_thread_multiple;

enum { SNAP_NONE, SNAP_TAKEN, SNAP_DONE };

/* Thread-local: the handles of the current completion call and, under MPI_THREAD_MULTIPLE, their entries. */
static __thread MPI_Request *snap_req;
static __thread st_req_info_t *snap_info;
static __thread uint8_t *snap_state;
static __thread int snap_cap[3];

MPI_Request *st_mpi_snapshot(st_thread_t *th, int count, const MPI_Request *reqs)
{
    (void)th;
    MPI_Request *r = st_mpi_grow(snap_req, &snap_cap[0], count, sizeof *r);
    if (!r)
        return NULL;
    snap_req = r;
    if (count > 0)
        memcpy(r, reqs, sizeof *r * (size_t)count);
    if (!st_mpi_thread_multiple)
        return r;
    st_req_info_t *info = st_mpi_grow(snap_info, &snap_cap[1], count, sizeof *info);
    if (info)
        snap_info = info;
    uint8_t *state = info ? st_mpi_grow(snap_state, &snap_cap[2], count, 1) : NULL;
    if (!state)
        return NULL;
    snap_state = state;
    for (int i = 0; i < count; i++) {
        st_req_info_t *ri = r[i] == MPI_REQUEST_NULL ? NULL : st_hmap_get(&requests, ST_HMAP_KEY(r[i]));
        /* Persistent requests stay registered (their handle lives until MPI_Request_free). */
        state[i] = ri && !(ri->flags & ST_EVF_PERSISTENT) && st_hmap_claim(&requests, ST_HMAP_KEY(r[i]), &info[i])
                       ? SNAP_TAKEN : SNAP_NONE;
    }
    return r;
}

void st_mpi_snapshot_end(st_thread_t *th, int count)
{
    (void)th;
    if (!st_mpi_thread_multiple || !snap_state)
        return;
    for (int i = 0; i < count; i++)
        if (snap_state[i] == SNAP_TAKEN && st_hmap_put(&requests, ST_HMAP_KEY(snap_req[i]), &snap_info[i]) != 0)
            st_log_warn_once("out of memory for the request map; completions of further requests are not traced");
}

/* ---- completion ------------------------------------------------------------------ */

static int cancelled(const MPI_Status *status)
{
    int flag = 0;
    PMPI_Test_cancelled(status, &flag);
    return flag;
}

/* The entry of snapshot index i: taken at the snapshot, or looked up now (one thread in MPI at a time). */
static const st_req_info_t *entry_of(int i, st_req_info_t *claimed)
{
    if (st_mpi_thread_multiple) {
        if (!snap_state || snap_state[i] != SNAP_TAKEN) {
            st_req_info_t *ri = st_hmap_get(&requests, ST_HMAP_KEY(snap_req[i]));
            return ri && (ri->flags & ST_EVF_PERSISTENT) ? ri : NULL;
        }
        snap_state[i] = SNAP_DONE;
        return &snap_info[i];
    }
    st_req_info_t *ri = st_hmap_get(&requests, ST_HMAP_KEY(snap_req[i]));
    if (!ri || (ri->flags & ST_EVF_PERSISTENT))
        return ri;
    return st_hmap_claim(&requests, ST_HMAP_KEY(snap_req[i]), claimed) ? claimed : NULL;
}

void st_mpi_complete(st_thread_t *th, int i, MPI_Status *status)
{
    if (!snap_req || snap_req[i] == MPI_REQUEST_NULL)
        return;
    st_req_info_t claimed;
    const st_req_info_t *ri = entry_of(i, &claimed);
    if (!ri)
        return;
    uint32_t n;
    st_comm_t *c = st_comm_all(&n)[ri->comm];
    switch (ri->kind) {
    case ST_REQ_SEND:
        if (cancelled(status))
            st_record(th, ST_EV_MPI_REQUEST_CANCELLED)->id = ri->id;
        else
            st_record(th, ST_EV_MPI_ISEND_COMPLETE)->id = ri->id;
        break;
    case ST_REQ_RECV:
        if (cancelled(status))
            st_record(th, ST_EV_MPI_REQUEST_CANCELLED)->id = ri->id;
        else if (status->MPI_SOURCE != MPI_PROC_NULL)
            fill_msg(st_record(th, ST_EV_MPI_IRECV), c, st_comm_world_rank(c, status->MPI_SOURCE),
                     status->MPI_TAG, status_bytes(status), ri->id);
        break;
    case ST_REQ_COLL:
        st_mpi_coll_complete(th, ri);
        break;
    case ST_REQ_COMM_IDUP:
        st_mpi_comm_idup_complete(ri);
        break;
    case ST_REQ_RMA:
        st_mpi_rma_complete(th, ri);
        break;
    default:
        break;
    }
}

/* With MPI_ERR_IN_STATUS only the entries whose MPI_ERROR is MPI_SUCCESS completed. */
static int completed_ok(int rc, const MPI_Status *st)
{
    return rc == MPI_SUCCESS || (rc == MPI_ERR_IN_STATUS && st->MPI_ERROR == MPI_SUCCESS);
}

void st_mpi_complete_all(st_thread_t *th, int rc, int count, MPI_Status *statuses)
{
    if ((rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) || statuses == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < count; i++)
        if (completed_ok(rc, &statuses[i]))
            st_mpi_complete(th, i, &statuses[i]);
}

void st_mpi_complete_some(st_thread_t *th, int rc, int outcount, const int *indices, MPI_Status *statuses)
{
    if ((rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) || outcount == MPI_UNDEFINED || statuses == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < outcount; i++)
        if (completed_ok(rc, &statuses[i]))
            st_mpi_complete(th, indices[i], &statuses[i]);
}

/* ---- matched probes ---------------------------------------------------------------- */

void st_mpi_mprobe(int rc, MPI_Comm comm, MPI_Message msg)
{
    st_comm_t *c;
    if (rc != MPI_SUCCESS || msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC || !(c = st_comm_get(comm)))
        return;
    st_req_info_t ri = { .kind = ST_REQ_RECV, .comm = c->index, .id = st_mpi_recv_post() };
    if (st_hmap_put(&messages, ST_HMAP_KEY(msg), &ri) != 0)
        st_log_warn_once("out of memory for the matched-message map; further ones are not traced");
}

st_msg_info_t st_mpi_message_take(MPI_Message msg)
{
    st_msg_info_t mi = { ST_NO_COMM, 0 };
    st_req_info_t ri;
    if (st_hmap_claim(&messages, ST_HMAP_KEY(msg), &ri)) {
        mi.comm = ri.comm;
        mi.post_id = ri.id;
    }
    return mi;
}

void st_mpi_mrecv(st_thread_t *th, int rc, const st_msg_info_t *mi, const MPI_Status *status)
{
    if (rc != MPI_SUCCESS || mi->comm == ST_NO_COMM || status->MPI_SOURCE == MPI_PROC_NULL)
        return;
    uint32_t n;
    st_comm_t *c = st_comm_all(&n)[mi->comm];
    fill_msg(st_record(th, ST_EV_MPI_RECV), c, st_comm_world_rank(c, status->MPI_SOURCE), status->MPI_TAG,
             status_bytes(status), mi->post_id);
    st_mpi_stamped(th);
}

void st_mpi_imrecv(st_thread_t *th, st_req_info_t *ri, const st_msg_info_t *mi)
{
    memset(ri, 0, sizeof *ri);
    if (mi->comm == ST_NO_COMM)
        return;
    ri->kind = ST_REQ_RECV;
    ri->id = mi->post_id;
    ri->comm = mi->comm;
    st_record(th, ST_EV_MPI_IRECV_REQUEST)->id = ri->id;
}

/* Used by coll.c for nonblocking collectives and Comm_idup. */
void st_mpi_req_put(MPI_Request req, const st_req_info_t *ri)
{
    st_mpi_req_add(MPI_SUCCESS, req, ri);
}
