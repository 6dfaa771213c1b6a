/*
 * bytes_prog.c — checks what the generated wrappers pass to the runtime, under mpiexec.
 *
 * Linked with build/gen/FAM/mpi_wrappers.c (MPICH's) and stub_runtime.c (not the real library), so every MPI_X
 * call below runs the generated wrapper. For each collective it checks the OTF2 op, the bytes
 * sent and received this rank reports against values worked out by hand, that the bytes are
 * conserved over all ranks of the instance (sum sent == sum received), that the wrapper recorded
 * an ENTER/LEAVE pair of its own region, and that MPI ignored arguments (passed here as
 * MPI_DATATYPE_NULL) are never read. Point-to-point: peers, tags, statuses made visible when the
 * application ignores them, completions. One-sided: each operation's kind, target and bytes,
 * the window calls. Every predefined datatype's size without a call into MPI (MPICH), and the
 * bytes of predefined, pair and derived types against PMPI_Type_size. Needs an even number of ranks (4 in t_bytes.sh).
 * Prints one line per failure and exits 1 if any.
 */
#include <stdio.h>
#include <string.h>

#include <otf2/OTF2_Events.h>

#include "stub_runtime.h"

#define C 3           /* elements per block */
#define B (C * 4)     /* bytes per block of MPI_INT */
#define W MPI_COMM_WORLD

static int rank, size, failures, ends_before;
static size_t pos_before;

#define FAIL(...) do { printf("rank %d: ", rank); printf(__VA_ARGS__); printf("\n"); failures++; } while (0)

static void begin(void)
{
    ends_before = st_stub.coll.ends;
    pos_before = st_stub_thread()->pos;
}

/* The last two events are ENTER/LEAVE of region `name` (nothing of the tool in between matters). */
static void check_region(const char *name)
{
    st_thread_t *th = st_stub_thread();
    const st_event_t *l = &th->buf[th->pos - 1], *e = &th->buf[pos_before];
    const st_region_info_t *ri = st_region_info(l->region);
    if (th->pos < pos_before + 2 || e->kind != ST_EV_ENTER || l->kind != ST_EV_LEAVE || e->region != l->region)
        FAIL("%s: no ENTER ... LEAVE pair recorded", name);
    else if (!ri || strcmp(ri->name, name) != 0)
        FAIL("%s: recorded region is '%s'", name, ri ? ri->name : "?");
}

/* sent/recvd over all ranks of `span` must balance (every instance here spans span's processes). */
static void check(const char *name, int op, uint64_t sent, uint64_t recvd, MPI_Comm span)
{
    check_region(name);
    if (st_stub.null_type_reads) {
        FAIL("%s: read a datatype argument MPI ignores here", name);
        st_stub.null_type_reads = 0;
    }
    if (st_stub.coll.ends != ends_before + 1) {
        FAIL("%s: collective end recorded %d times", name, st_stub.coll.ends - ends_before);
        return;
    }
    if (st_stub.coll.op != op)
        FAIL("%s: op %d, expected %d", name, st_stub.coll.op, op);
    if (st_stub.coll.sent != sent || st_stub.coll.recvd != recvd)
        FAIL("%s: sent %llu recvd %llu, expected %llu %llu", name, (unsigned long long)st_stub.coll.sent,
             (unsigned long long)st_stub.coll.recvd, (unsigned long long)sent, (unsigned long long)recvd);
    uint64_t mine[2] = { st_stub.coll.sent, st_stub.coll.recvd }, sum[2];
    PMPI_Allreduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, span);
    if (sum[0] != sum[1])
        FAIL("%s: bytes not conserved: %llu sent, %llu received in all", name, (unsigned long long)sum[0],
             (unsigned long long)sum[1]);
}

static void prefix_displs(const int *counts, int *displs, int n)
{
    for (int i = 0, d = 0; i < n; d += counts[i++])
        displs[i] = d;
}

/* ---- rooted collectives on MPI_COMM_WORLD ------------------------------------------------------ */

static void t_rooted(void)
{
    int root = 1 % size, me = rank == root, sb[64] = { 0 }, rb[256];
    int counts[16], displs[16], total = 0;
    for (int i = 0; i < size; i++)
        counts[i] = i + 1, total += (i + 1) * 4;
    prefix_displs(counts, displs, size);
    MPI_Datatype rt = me ? MPI_INT : MPI_DATATYPE_NULL; /* recv type off the root: ignored */

    begin(); MPI_Bcast(sb, C, MPI_INT, root, W);
    check("MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, me ? (uint64_t)size * B : 0, B, W);
    begin(); MPI_Gather(sb, C, MPI_INT, rb, C, rt, root, W);
    check("MPI_Gather", OTF2_COLLECTIVE_OP_GATHER, B, me ? (uint64_t)size * B : 0, W);
    begin(); MPI_Gather(me ? MPI_IN_PLACE : (void *)sb, C, me ? MPI_DATATYPE_NULL : MPI_INT, rb, C, rt, root, W);
    check("MPI_Gather", OTF2_COLLECTIVE_OP_GATHER, me ? 0 : B, me ? (uint64_t)(size - 1) * B : 0, W);
    begin(); MPI_Gatherv(sb, rank + 1, MPI_INT, rb, counts, displs, rt, root, W);
    check("MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV, (rank + 1) * 4, me ? total : 0, W);
    begin(); MPI_Gatherv(me ? MPI_IN_PLACE : (void *)sb, rank + 1, MPI_INT, rb, counts, displs, rt, root, W);
    check("MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV, me ? 0 : (rank + 1) * 4, me ? total - (root + 1) * 4 : 0, W);
    begin(); MPI_Scatter(sb, C, me ? MPI_INT : MPI_DATATYPE_NULL, rb, C, MPI_INT, root, W);
    check("MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER, me ? (uint64_t)size * B : 0, B, W);
    begin(); MPI_Scatter(sb, C, me ? MPI_INT : MPI_DATATYPE_NULL, me ? MPI_IN_PLACE : rb, C, me ? MPI_DATATYPE_NULL : MPI_INT, root, W);
    check("MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER, me ? (uint64_t)(size - 1) * B : 0, me ? 0 : B, W);
    begin(); MPI_Scatterv(rb, counts, displs, me ? MPI_INT : MPI_DATATYPE_NULL, sb, rank + 1, MPI_INT, root, W);
    check("MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV, me ? total : 0, (rank + 1) * 4, W);
    begin(); MPI_Scatterv(rb, counts, displs, me ? MPI_INT : MPI_DATATYPE_NULL, me ? MPI_IN_PLACE : sb, rank + 1, MPI_INT, root, W);
    check("MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV, me ? total - (root + 1) * 4 : 0, me ? 0 : (rank + 1) * 4, W);
    begin(); MPI_Reduce(sb, rb, C, MPI_INT, MPI_SUM, root, W);
    check("MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE, B, me ? (uint64_t)size * B : 0, W);
    begin(); MPI_Reduce(me ? MPI_IN_PLACE : (void *)sb, rb, C, MPI_INT, MPI_SUM, root, W);
    check("MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE, me ? 0 : B, me ? (uint64_t)(size - 1) * B : 0, W);

    MPI_Count ccounts[16];
    MPI_Aint cdispls[16];
    for (int i = 0; i < size; i++)
        ccounts[i] = counts[i], cdispls[i] = displs[i];
    int vc = st_stub.vc_calls;
    begin(); MPI_Gatherv_c(sb, rank + 1, MPI_INT, rb, ccounts, cdispls, rt, root, W);
    check("MPI_Gatherv_c", OTF2_COLLECTIVE_OP_GATHERV, (rank + 1) * 4, me ? total : 0, W);
    if (me && st_stub.vc_calls != vc + 1)
        FAIL("MPI_Gatherv_c: MPI_Count counts not summed by st_mpi_bytes_vc");
}

/* ---- N-to-N and prefix collectives ------------------------------------------------------------- */

static void t_all(void)
{
    int sb[256], rb[256], counts[16], displs[16], total = 0;
    for (int i = 0; i < 256; i++)
        sb[i] = 1, rb[i] = 1;
    for (int i = 0; i < size; i++)
        counts[i] = i + 1, total += (i + 1) * 4;
    prefix_displs(counts, displs, size);
    uint64_t N = (uint64_t)size, own = (uint64_t)(rank + 1) * 4;

    begin(); MPI_Barrier(W);
    check("MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER, 0, 0, W);
    if (st_stub.coll.root != -1)
        FAIL("MPI_Barrier: root %d, expected -1", st_stub.coll.root);
    begin(); MPI_Allgather(sb, C, MPI_INT, rb, C, MPI_INT, W);
    check("MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER, N * B, N * B, W);
    begin(); MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, C, MPI_INT, W);
    check("MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER, (N - 1) * B, (N - 1) * B, W);
    begin(); MPI_Allgatherv(sb, rank + 1, MPI_INT, rb, counts, displs, MPI_INT, W);
    check("MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, N * own, total, W);
    begin(); MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, counts, displs, MPI_INT, W);
    check("MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, (N - 1) * own, total - own, W);
    begin(); MPI_Alltoall(sb, C, MPI_INT, rb, C, MPI_INT, W);
    check("MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, N * B, N * B, W);
    begin(); MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, C, MPI_INT, W);
    check("MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, (N - 1) * B, (N - 1) * B, W);

    /* rank r sends r+j+1 ints to j, so it receives j+r+1 from j: symmetric counts */
    int sc[16], sd[16], bd[16];
    uint64_t sum = 0;
    MPI_Datatype types[16], nulls[16];
    for (int j = 0; j < size; j++)
        sc[j] = rank + j + 1, sum += (uint64_t)sc[j] * 4, types[j] = MPI_INT, nulls[j] = MPI_DATATYPE_NULL;
    prefix_displs(sc, sd, size);
    for (int j = 0; j < size; j++)
        bd[j] = sd[j] * 4;
    uint64_t self = (uint64_t)(2 * rank + 1) * 4;
    begin(); MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, sc, sd, MPI_INT, W);
    check("MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, sum, sum, W);
    begin(); MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb, sc, sd, MPI_INT, W);
    check("MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, sum - self, sum - self, W);
    begin(); MPI_Alltoallw(sb, sc, bd, types, rb, sc, bd, types, W);
    check("MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, sum, sum, W);
    begin(); MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, nulls, rb, sc, bd, types, W);
    check("MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, sum - self, sum - self, W);

    int one = 1, got = 0;
    begin(); MPI_Allreduce(&one, &got, 1, MPI_INT, MPI_SUM, W);
    check("MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, N * 4, N * 4, W);
    if (got != size)
        FAIL("MPI_Allreduce computed %d, expected %d", got, size);
    begin(); MPI_Allreduce(MPI_IN_PLACE, rb, C, MPI_INT, MPI_SUM, W);
    check("MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, (N - 1) * B, (N - 1) * B, W);
    begin(); MPI_Reduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, W);
    check("MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER, total, N * own, W);
    begin(); MPI_Reduce_scatter(MPI_IN_PLACE, rb, counts, MPI_INT, MPI_SUM, W);
    check("MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER, total - own, (N - 1) * own, W);
    begin(); MPI_Reduce_scatter_block(sb, rb, 2, MPI_INT, MPI_SUM, W);
    check("MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, N * 8, N * 8, W);
    begin(); MPI_Reduce_scatter_block(MPI_IN_PLACE, rb, 2, MPI_INT, MPI_SUM, W);
    check("MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, (N - 1) * 8, (N - 1) * 8, W);

    uint64_t r = (uint64_t)rank;
    begin(); MPI_Scan(&one, &got, 1, MPI_INT, MPI_SUM, W);
    check("MPI_Scan", OTF2_COLLECTIVE_OP_SCAN, (N - r) * 4, (r + 1) * 4, W);
    if (got != rank + 1)
        FAIL("MPI_Scan computed %d, expected %d", got, rank + 1);
    begin(); MPI_Scan(MPI_IN_PLACE, rb, C, MPI_INT, MPI_SUM, W);
    check("MPI_Scan", OTF2_COLLECTIVE_OP_SCAN, (N - r - 1) * B, r * B, W);
    begin(); MPI_Exscan(sb, rb, C, MPI_INT, MPI_SUM, W);
    check("MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN, (N - r - 1) * B, r * B, W);

    MPI_Request req;
    begin(); MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, counts, displs, MPI_INT, W, &req);
    check("MPI_Iallgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, (N - 1) * own, total - own, W);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    begin(); MPI_Ibarrier(W, &req);
    check("MPI_Ibarrier", OTF2_COLLECTIVE_OP_BARRIER, 0, 0, W);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* ---- topology: creation, neighborhood collectives, free ---------------------------------------- */

static void t_neighbor(void)
{
    int dims[1] = { size }, periods[1] = { 1 }, sb[64] = { 0 }, rb[64];
    MPI_Comm cart;
    int made = st_stub.comm_new;
    begin(); MPI_Cart_create(W, 1, dims, periods, 0, &cart);
    check("MPI_Cart_create", OTF2_COLLECTIVE_OP_CREATE_HANDLE, 0, 0, W);
    if (st_stub.comm_new != made + 1 || st_stub.coll.comm != W || st_stub.comm_parent != W)
        FAIL("MPI_Cart_create: new communicator not registered on its parent");

    begin(); MPI_Neighbor_allgather(sb, C, MPI_INT, rb, C, MPI_INT, cart);
    check("MPI_Neighbor_allgather", OTF2_COLLECTIVE_OP_ALLGATHER, 2 * B, 2 * B, cart);
    int sc[2] = { 1, 2 }, rc[2] = { 2, 1 }, sd[2] = { 0, 1 }, rd[2] = { 0, 2 }, sbd[2] = { 0, 4 }, rbd[2] = { 0, 8 };
    begin(); MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, cart);
    check("MPI_Neighbor_alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, 12, 12, cart);
    MPI_Aint sbda[2] = { sbd[0], sbd[1] }, rbda[2] = { rbd[0], rbd[1] };
    MPI_Datatype t2[2] = { MPI_INT, MPI_INT };
    begin(); MPI_Neighbor_alltoallw(sb, sc, sbda, t2, rb, rc, rbda, t2, cart);
    check("MPI_Neighbor_alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, 12, 12, cart);
    MPI_Request req;
    begin(); MPI_Ineighbor_allgather_c(sb, C, MPI_INT, rb, C, MPI_INT, cart, &req);
    check("MPI_Ineighbor_allgather_c", OTF2_COLLECTIVE_OP_ALLGATHER, 2 * B, 2 * B, cart);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    int freed = st_stub.comm_freed;
    begin(); MPI_Comm_free(&cart);
    check("MPI_Comm_free", OTF2_COLLECTIVE_OP_DESTROY_HANDLE, 0, 0, W);
    if (st_stub.comm_freed != freed + 1 || cart != MPI_COMM_NULL)
        FAIL("MPI_Comm_free: communicator not forgotten");
}

/* ---- intercommunicator: MPI_ROOT / MPI_PROC_NULL, remote group sizes ---------------------------- */

static void t_inter(void)
{
    int color = rank % 2, sb[64] = { 0 }, rb[256];
    MPI_Comm local, inter;
    MPI_Comm_split(W, color, rank, &local);
    begin(); MPI_Intercomm_create(local, 0, W, 1 - color, 99, &inter);
    check("MPI_Intercomm_create", OTF2_COLLECTIVE_OP_CREATE_HANDLE, 0, 0, W);
    if (st_stub.coll.comm != local)
        FAIL("MPI_Intercomm_create: CREATE_HANDLE not on local_comm");
    int lrank, nr;
    MPI_Comm_rank(local, &lrank);
    MPI_Comm_remote_size(inter, &nr);
    int is_root = color == 0 && lrank == 0;
    int root = color == 0 ? (is_root ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Datatype any = MPI_INT, none = MPI_DATATYPE_NULL;

    begin(); MPI_Bcast(sb, C, any, root, inter); /* MPICH checks the type even at MPI_PROC_NULL */
    check("MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST, is_root ? (uint64_t)nr * B : 0, color == 1 ? B : 0, W);
    begin(); MPI_Gather(sb, C, color == 1 ? any : none, rb, C, is_root ? any : none, root, inter);
    check("MPI_Gather", OTF2_COLLECTIVE_OP_GATHER, color == 1 ? B : 0, is_root ? (uint64_t)nr * B : 0, W);
    begin(); MPI_Allgather(sb, C, MPI_INT, rb, C, MPI_INT, inter);
    check("MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER, (uint64_t)nr * B, (uint64_t)nr * B, W);

    MPI_Comm merged;
    begin(); MPI_Intercomm_merge(inter, color, &merged);
    check("MPI_Intercomm_merge", OTF2_COLLECTIVE_OP_CREATE_HANDLE, 0, 0, W);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

/* ---- point-to-point ------------------------------------------------------------------------------ */

static void check_send(const char *name, const char *what, int peer, int tag, uint64_t bytes)
{
    check_region(name);
    if (strcmp(st_stub.p2p.what ? st_stub.p2p.what : "", what) != 0 || st_stub.p2p.peer != peer ||
        st_stub.p2p.tag != tag || st_stub.p2p.bytes != bytes)
        FAIL("%s: runtime saw %s peer %d tag %d bytes %llu", name, st_stub.p2p.what, st_stub.p2p.peer,
             st_stub.p2p.tag, (unsigned long long)st_stub.p2p.bytes);
}

static void check_recv(const char *name, int source)
{
    check_region(name);
    if (st_stub.recv_status_ignored || st_stub.recv_source != source || st_stub.recv_post != st_mpi_next_post - 1)
        FAIL("%s: runtime saw status %s, source %d, post %llu", name,
             st_stub.recv_status_ignored ? "IGNORE" : "set", st_stub.recv_source,
             (unsigned long long)st_stub.recv_post);
}

static void t_p2p(void)
{
    int partner = rank ^ 1, buf[C] = { 0 }, in[C];
    if (rank % 2 == 0) {
        begin(); MPI_Send(buf, C, MPI_INT, partner, 7, W);
        check_send("MPI_Send", "send", partner, 7, B);
        begin(); MPI_Recv(in, C, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, W, MPI_STATUS_IGNORE);
        check_recv("MPI_Recv", partner);
    } else {
        MPI_Recv(in, C, MPI_INT, partner, 7, W, MPI_STATUS_IGNORE);
        MPI_Send(buf, C, MPI_INT, partner, 8, W);
    }
    begin(); MPI_Sendrecv(buf, C, MPI_INT, partner, 5, in, C, MPI_INT, MPI_ANY_SOURCE, 5, W, MPI_STATUS_IGNORE);
    check_send("MPI_Sendrecv", "send", partner, 5, B);
    check_recv("MPI_Sendrecv", partner);

    MPI_Request r[2];
    int added = st_stub.reqs_added, done = st_stub.completed;
    st_stub.complete_sources = 0;
    MPI_Irecv(in, C, MPI_INT, MPI_ANY_SOURCE, 3, W, &r[0]);
    begin(); MPI_Isend(buf, C, MPI_INT, partner, 3, W, &r[1]);
    check_send("MPI_Isend", "isend", partner, 3, B);
    begin(); MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    check_region("MPI_Waitall");
    if (st_stub.reqs_added != added + 2 || st_stub.completed != done + 2)
        FAIL("Isend/Irecv/Waitall: %d requests added, %d completed", st_stub.reqs_added - added,
             st_stub.completed - done);
    if (!(st_stub.complete_sources & (1u << partner)) || (st_stub.complete_sources & (1u << 31)))
        FAIL("MPI_Waitall: the receive's completion did not see its source (mask %#x)", st_stub.complete_sources);

    int started = st_stub.started;
    MPI_Recv_init(in, C, MPI_INT, partner, 4, W, &r[0]);
    begin(); MPI_Send_init(buf, C, MPI_INT, partner, 4, W, &r[1]);
    check_send("MPI_Send_init", "send_init", partner, 4, B);
    begin(); MPI_Startall(2, r);
    check_region("MPI_Startall");
    for (int n = 0, idx; n < 2; n++) {
        begin(); MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
        check_region("MPI_Waitany");
    }
    int freed = st_stub.freed;
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    if (st_stub.started != started + 2 || st_stub.freed != freed + 2)
        FAIL("persistent: %d started, %d freed", st_stub.started - started, st_stub.freed - freed);
}

/* ---- the wrapper shape: PMPI result unchanged, no recording when off or re-entered -------------- */

/* One-sided: the op, target and bytes each wrapper passes (st_mpi_rma_op), the window calls. */
static void check_rma(const char *name, int op, int target, uint64_t sent, uint64_t recvd, int with_request, int ops)
{
    check_region(name);
    if (st_stub.rma.ops != ops || st_stub.rma.op != op || st_stub.rma.target != target ||
        st_stub.rma.sent != sent || st_stub.rma.recvd != recvd || st_stub.rma.with_request != with_request)
        FAIL("%s: op %d target %d sent %llu recvd %llu request %d (%d calls), expected %d %d %llu %llu %d", name,
             st_stub.rma.op, st_stub.rma.target, (unsigned long long)st_stub.rma.sent,
             (unsigned long long)st_stub.rma.recvd, st_stub.rma.with_request, st_stub.rma.ops, op, target,
             (unsigned long long)sent, (unsigned long long)recvd, with_request);
}

static void t_rma(void)
{
    int *base, out[C] = { 1, 2, 3 }, res[C] = { 0 }, one = 1, cmp = 0, old = 0, right = (rank + 1) % size;
    MPI_Win win;
    MPI_Request req;
    begin();
    MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, W, &base, &win);
    check_region("MPI_Win_allocate");
    begin();
    MPI_Win_fence(0, win);
    check_region("MPI_Win_fence");
    int ops = st_stub.rma.ops;
    begin();
    MPI_Put(out, C, MPI_INT, right, 0, C, MPI_INT, win);
    check_rma("MPI_Put", ST_RMA_PUT, right, B, 0, 0, ++ops);
    begin();
    MPI_Get(res, C, MPI_INT, right, 8, C, MPI_INT, win);
    check_rma("MPI_Get", ST_RMA_GET, right, 0, B, 0, ++ops);
    begin();
    MPI_Accumulate(out, C, MPI_INT, right, 16, C, MPI_INT, MPI_SUM, win);
    check_rma("MPI_Accumulate", ST_RMA_ACCUMULATE, right, B, 0, 0, ++ops);
    MPI_Win_fence(0, win);
    begin();
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    check_region("MPI_Win_lock");
    begin();
    MPI_Get_accumulate(out, C, MPI_INT, res, C, MPI_INT, right, 24, C, MPI_INT, MPI_NO_OP, win);
    check_rma("MPI_Get_accumulate", ST_RMA_GET_ACCUMULATE, right, 0, B, 0, ++ops); /* MPI_NO_OP sends nothing */
    begin();
    MPI_Fetch_and_op(&one, &old, MPI_INT, right, 32, MPI_SUM, win);
    check_rma("MPI_Fetch_and_op", ST_RMA_FETCH_AND_OP, right, 4, 4, 0, ++ops);
    begin();
    MPI_Compare_and_swap(&one, &cmp, &old, MPI_INT, right, 33, win);
    check_rma("MPI_Compare_and_swap", ST_RMA_COMPARE_AND_SWAP, right, 8, 4, 0, ++ops);
    begin();
    MPI_Rput(out, C, MPI_INT, right, 40, C, MPI_INT, win, &req);
    check_rma("MPI_Rput", ST_RMA_PUT, right, B, 0, 1, ++ops);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    begin();
    MPI_Win_unlock(right, win);
    check_region("MPI_Win_unlock");
    if (st_stub.rma.lock_target != right || st_stub.rma.unlock_target != right)
        FAIL("MPI_Win_lock/unlock: targets %d %d, expected %d", st_stub.rma.lock_target, st_stub.rma.unlock_target, right);
    MPI_Win_lock_all(0, win);
    MPI_Win_unlock_all(win);
    if (st_stub.rma.lock_target != ST_RMA_ALL || st_stub.rma.unlock_target != ST_RMA_ALL)
        FAIL("MPI_Win_lock_all/unlock_all: targets %d %d, expected ST_RMA_ALL", st_stub.rma.lock_target,
             st_stub.rma.unlock_target);
    begin();
    MPI_Win_free(&win);
    check_region("MPI_Win_free");
    if (st_stub.rma.created != 1 || st_stub.rma.freed != 1 || st_stub.rma.fences != 2 || st_stub.rma.locks != 2 ||
        st_stub.rma.unlocks != 2)
        FAIL("window calls: %d created, %d freed, %d fences, %d locks, %d unlocks", st_stub.rma.created,
             st_stub.rma.freed, st_stub.rma.fences, st_stub.rma.locks, st_stub.rma.unlocks);
}

static void t_shape(void)
{
    int buf = 0;
    MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
    int want = PMPI_Send(&buf, 1, MPI_INT, size + 5, 0, W), wclass = -1, gclass = -2;
    int got = MPI_Send(&buf, 1, MPI_INT, size + 5, 0, W);
    PMPI_Error_class(want, &wclass); /* codes differ per call; their class must not */
    PMPI_Error_class(got, &gclass);
    if (want == MPI_SUCCESS || gclass != wclass)
        FAIL("MPI_Send to an invalid rank returned class %d, PMPI_Send class %d", gclass, wclass);
    MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL);

    begin();
    st_mpi_tracing = 0;
    MPI_Barrier(W);
    st_mpi_tracing = 1;
    st_stub_thread()->in_tool = 1;
    MPI_Barrier(W);
    st_stub_thread()->in_tool = 0;
    if (st_stub.coll.ends != ends_before || st_stub_thread()->pos != pos_before)
        FAIL("wrappers recorded while tracing was off or inside the tool");
}

/* ---- datatype sizes ---------------------------------------------------------------------------- */

/* st_mpi_bytes without a call into MPI for every predefined type (MPICH: the size its handle holds) and
 * with one for the others: each type's bytes against PMPI_Type_size. */
static void t_types(void)
{
    static const MPI_Datatype pre[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT,
        MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_LONG_LONG_INT,
        MPI_UNSIGNED_LONG_LONG, MPI_PACKED, MPI_2INT, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T,
        MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
        MPI_C_LONG_DOUBLE_COMPLEX, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION,
        MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_LOGICAL, MPI_CHARACTER, MPI_2INTEGER, MPI_2REAL, MPI_INTEGER4,
        MPI_INTEGER8, MPI_REAL4, MPI_REAL8, MPI_COMPLEX16, MPI_CXX_BOOL, MPI_CXX_DOUBLE_COMPLEX,
    };
    MPI_Datatype contig, vec;
    PMPI_Type_contiguous(3, MPI_DOUBLE, &contig);
    PMPI_Type_commit(&contig);
    PMPI_Type_vector(2, 1, 4, MPI_INT, &vec);
    PMPI_Type_commit(&vec);
    const MPI_Datatype other[] = { MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_SHORT_INT, contig, vec };
    for (size_t i = 0; i < sizeof pre / sizeof *pre + sizeof other / sizeof *other; i++) {
        int is_pre = i < sizeof pre / sizeof *pre;
        MPI_Datatype t = is_pre ? pre[i] : other[i - sizeof pre / sizeof *pre];
        int size = -1;
        PMPI_Type_size(t, &size);
        MPI_Count inl = st_mpi_predefined_size(t);
#if defined(MPICH_VERSION)
        if (is_pre && inl != size) /* every predefined type, without a call */
            FAIL("predefined type %zu: %lld bytes without a call, MPI says %d", i, (long long)inl, size);
#endif
        if (inl != 0 && inl != size)
            FAIL("type %zu: %lld bytes without a call, MPI says %d", i, (long long)inl, size);
        if (!is_pre && inl != 0)
            FAIL("derived or pair type %zu: a size without a call (%lld)", i, (long long)inl);
        if (st_mpi_bytes(5, t) != 5u * (uint64_t)size || st_mpi_bytes(0, t) != 0 || st_mpi_bytes(-2, t) != 0)
            FAIL("type %zu: st_mpi_bytes 5 -> %llu (MPI: 5 x %d), 0 -> %llu, -2 -> %llu", i,
                 (unsigned long long)st_mpi_bytes(5, t), size, (unsigned long long)st_mpi_bytes(0, t),
                 (unsigned long long)st_mpi_bytes(-2, t));
    }
    PMPI_Type_free(&contig);
    PMPI_Type_free(&vec);
}

int main(int argc, char **argv)
{
    PMPI_Init(&argc, &argv); /* MPI_Init is hand-written in src/mpi, not generated */
    PMPI_Comm_rank(W, &rank);
    PMPI_Comm_size(W, &size);
    if (size % 2 || size > 16) {
        if (rank == 0)
            printf("needs an even number of ranks up to 16\n");
        PMPI_Abort(W, 2);
    }
    t_rooted();
    t_all();
    t_neighbor();
    t_inter();
    t_p2p();
    t_rma();
    t_shape();
    t_types();
    int all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, W);
    if (rank == 0)
        printf("%s: %d failures\n", all ? "FAIL" : "ok", all);
    PMPI_Finalize();
    return all ? 1 : 0;
}
