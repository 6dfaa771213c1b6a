/*
 * coll.c — recording collectives, communicator creation, and the byte/size helpers
 * the generated wrappers use to compute how much a collective sends and receives.
 *
 * Each collective gets an instance number: how many collectives this process began on
 * the communicator before it. MPI requires every member to call collectives on a
 * communicator in the same order, so (communicator key, instance) names the same
 * operation on every member; blocking and nonblocking ones share the counter.
 */
#include <stdlib.h>
#include <string.h>

#include "abend.h"
#include "comm.h"
#include "st_mpi.h"
#include "../clock/sync.h"
#include "../relations/endpoints.h"
#include "../util/log.h"

/* ---- sizes ---------------------------------------------------------------------------- */

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

static void nbr_counts(MPI_Comm comm, int *in, int *out)
{
    int topo = MPI_UNDEFINED, weighted;
    *in = *out = 0;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        *in = *out = 2 * nd;
    } else if (topo == MPI_GRAPH) {
        int rank, n = 0;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n);
        *in = *out = n;
    } else if (topo == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
    }
}

int st_mpi_nbr_in(MPI_Comm comm) { int i, o; nbr_counts(comm, &i, &o); return i; }
int st_mpi_nbr_out(MPI_Comm comm) { int i, o; nbr_counts(comm, &i, &o); return o; }

uint64_t st_mpi_bytes_v(const int *counts, MPI_Datatype type, int n)
{
    uint64_t sum = 0;
    for (int i = 0; counts && i < n; i++)
        sum += counts[i] > 0 ? (uint64_t)counts[i] : 0;
    return st_mpi_bytes(1, type) * sum;
}

uint64_t st_mpi_bytes_vc(const MPI_Count *counts, MPI_Datatype type, int n)
{
    uint64_t sum = 0;
    for (int i = 0; counts && i < n; i++)
        sum += counts[i] > 0 ? (uint64_t)counts[i] : 0;
    return st_mpi_bytes(1, type) * sum;
}

uint64_t st_mpi_bytes_w(const int *counts, const MPI_Datatype *types, int n)
{
    uint64_t sum = 0;
    for (int i = 0; counts && types && i < n; i++)
        sum += st_mpi_bytes(counts[i], types[i]);
    return sum;
}

uint64_t st_mpi_bytes_wc(const MPI_Count *counts, const MPI_Datatype *types, int n)
{
    uint64_t sum = 0;
    for (int i = 0; counts && types && i < n; i++)
        sum += st_mpi_bytes(counts[i], types[i]);
    return sum;
}

/* ---- scratch for statuses ------------------------------------------------------------------ */

static __thread MPI_Status *status_scratch;
static __thread int status_cap;

/* Grows a thread-local array; allocation happens only when a call needs more than any before. */
void *st_mpi_grow(void *p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return p;
    int n = need < 64 ? 64 : need;
    void *q = realloc(p, (size_t)n * elem);
    if (!q)
        return NULL;
    *cap = n;
    return q;
}

MPI_Status *st_mpi_statuses(st_thread_t *th, int count, MPI_Status *statuses)
{
    (void)th;
    if (statuses != MPI_STATUSES_IGNORE)
        return statuses;
    MPI_Status *s = st_mpi_grow(status_scratch, &status_cap, count, sizeof(MPI_Status));
    if (!s) /* out of memory: let MPI ignore the statuses; completions then lack source/tag */
        return MPI_STATUSES_IGNORE;
    return status_scratch = s;
}

/* ---- collectives ----------------------------------------------------------------------- */

void st_mpi_coll_begin(st_thread_t *th)
{
    st_record(th, ST_EV_MPI_COLL_BEGIN);
}

/* Whether op has a root argument. The wrappers pass -1 as the root of the others, which is MPICH's
 * MPI_PROC_NULL: only op tells the two apart. */
static int has_root(int op)
{
    enum st_rel_coll_class cc = st_rel_coll_class((unsigned)op);
    return cc == ST_REL_CC_ONE2N || cc == ST_REL_CC_N2ONE;
}

/* World rank of a collective's root as this process sees it; -1 when there is none. */
static int32_t root_world(const st_comm_t *c, int op, int root)
{
    if (!has_root(op) || (root < 0 && root != MPI_ROOT))
        return -1; /* no root, or MPI_PROC_NULL on an intercommunicator */
    if (root == MPI_ROOT)
        return st_world_rank;
    return st_comm_world_rank(c, root);
}

/* Intercommunicator roots (event.h): a rank of the remote group is flagged INTERCOMM, MPI_PROC_NULL
 * (another process of the root's group) PROC_NULL; MPI_ROOT is this process's own world rank. */
static uint8_t root_flags(const st_comm_t *c, int op, int root)
{
    if (!(c->def.flags & ST_COMMF_INTER) || !has_root(op))
        return 0;
    return root == MPI_PROC_NULL ? ST_EVF_PROC_NULL : root >= 0 ? ST_EVF_INTERCOMM : 0;
}

static void fill_coll(st_event_t *e, const st_comm_t *c, int op, int root, uint64_t sent, uint64_t recvd)
{
    e->op = (uint16_t)op;
    e->comm = c->index;
    e->peer = root_world(c, op, root);
    e->bytes = sent;
    e->bytes2 = recvd;
    e->flags |= root_flags(c, op, root);
}

void st_mpi_coll_end(st_thread_t *th, int op, MPI_Comm comm, int root, uint64_t sent, uint64_t recvd)
{
    st_comm_t *c = st_comm_get(comm);
    if (!c) {
        st_record(th, ST_EV_MPI_COLL_END)->comm = ST_NO_COMM;
        return;
    }
    st_event_t *e = st_record(th, ST_EV_MPI_COLL_END);
    fill_coll(e, c, op, root, sent, recvd);
    e->id = atomic_fetch_add_explicit(&c->coll_seq, 1, memory_order_relaxed);
    if (comm == MPI_COMM_WORLD) {
        st_clock_collective_hook();
        st_abend_refresh(); /* a resync adds an epoch the dump of an abnormal end must carry */
    }
}

void st_mpi_icoll(st_thread_t *th, st_req_info_t *ri, int op, MPI_Comm comm, int root, uint64_t sent,
                  uint64_t recvd)
{
    st_comm_t *c;
    memset(ri, 0, sizeof *ri);
    if (!(c = st_comm_get(comm)))
        return;
    *ri = (st_req_info_t){
        .kind = ST_REQ_COLL,
        .id = st_mpi_recv_post(),
        .op = (uint16_t)op,
        .comm = c->index,
        .peer = root_world(c, op, root),
        .bytes = sent,
        .bytes2 = recvd,
        .seq = atomic_fetch_add_explicit(&c->coll_seq, 1, memory_order_relaxed),
        .flags = root_flags(c, op, root),
    };
    st_record(th, ST_EV_MPI_ICOLL_REQUEST)->id = ri->id;
}

void st_mpi_coll_complete(st_thread_t *th, const st_req_info_t *ri)
{
    st_event_t *e = st_record(th, ST_EV_MPI_ICOLL_COMPLETE);
    e->op = ri->op;
    e->comm = ri->comm;
    e->peer = ri->peer;
    e->bytes = ri->bytes;
    e->bytes2 = ri->bytes2;
    e->id = ri->id;
    e->aux = ri->seq;
    e->flags |= ri->flags;
}

/* ---- communicators ---------------------------------------------------------------------- */

void st_mpi_comm_new(int rc, MPI_Comm parent, MPI_Comm newcomm)
{
    if (rc == MPI_SUCCESS && newcomm != MPI_COMM_NULL)
        st_comm_add(newcomm, parent);
}

void st_mpi_comm_idup(int rc, MPI_Comm parent, MPI_Comm *newcomm, MPI_Request req)
{
    if (rc != MPI_SUCCESS)
        return;
    st_req_info_t ri = { .kind = ST_REQ_COMM_IDUP, .newcomm = newcomm, .parent = parent };
    st_mpi_req_put(req, &ri);
}

void st_mpi_comm_idup_complete(const st_req_info_t *ri)
{
    st_mpi_comm_new(MPI_SUCCESS, ri->parent, *ri->newcomm);
}

void st_mpi_comm_free(MPI_Comm comm)
{
    if (comm != MPI_COMM_NULL && comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF)
        st_comm_forget(comm);
}
