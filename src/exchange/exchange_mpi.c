/*
 * exchange_mpi.c — the MPI transport of the exchange layer (exchange_mpi.h), moved here
 * from the CLC's replay_mpi.c so that the parallel analysis uses the same one.
 */
#include "exchange_mpi.h"

#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi_have.h"
#include "polite_mpi.h"
#include "../util/log.h"
#include "../util/mem.h"
#include "../util/clockread.h"

#define TAG         7401 /* a message, or its last piece */
#define TAG_ABORT   7402 /* empty: the sender failed, stop waiting for it */
#define TAG_MORE    7403 /* a piece of a message, more of it follows */
#define TAG_HEAD    7404 /* a message in pieces follows: its length (8 bytes) */
#define DRAIN_S     10.0 /* draining the messages of a finished or failed run (they are all in flight) */
#define QUIET_S     5.0  /* idle this long (plus the time taken so far): say what this rank waits for */

/*
 * A message longer than PIECE_BYTES (exchange_mpi.h) travels in pieces of PIECE_BYTES (the last one
 * shorter) after its length. Every piece is received into one small buffer that every message of the
 * finalize reuses, and put together in a block of that length from the memory util/mem.h lends. Why:
 * on this machine a receive of rendezvous size into memory that no transfer has written before costs
 * 1.9-3.2 ms per MiB on both MPI families (their single copy through CMA: without it the same exchange
 * is ten times faster), against about 0.1-0.2 ms per MiB into memory received into before, and 0.1 ms
 * per MiB for the copy into the whole message (docs/performance.md, "Receiving into the same memory",
 * "Messages in pieces"). Received whole into one buffer that grew to the largest message, each message
 * larger than all before paid the first-transfer cost for its growth: at 2 ranks the root causes' 1.3 MB
 * lists took 4 ms to arrive.
 */
#define PIECE_BYTES ST_XMPI_PIECE_BYTES

static void  *kept_rbuf; /* the receive buffer, from the heap, kept from one engine to the next */
static size_t kept_rcap;

int st_xmpi_init(st_xmpi_t *m, MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    *m = (st_xmpi_t){ .comm = comm, .nranks = n, .sent = calloc((size_t)(n > 0 ? n : 1), sizeof(uint64_t)),
                      .rbuf = kept_rbuf, .rcap = kept_rcap };
    kept_rbuf = NULL, kept_rcap = 0;
    return m->sent ? 0 : -1;
}

void st_xmpi_free(st_xmpi_t *m)
{
    for (int32_t q = 0; m->part && q < m->nranks; q++)
        st_mem_free(m->part[q].buf);
    free(m->part);
    m->part = NULL;
    free(m->req);
    free(m->buf);
    free(m->sent);
    st_xmpi_release();
    kept_rbuf = m->rbuf, kept_rcap = m->rcap;
    m->req = NULL, m->buf = NULL, m->sent = NULL, m->rbuf = NULL, m->rcap = 0;
}

void st_xmpi_release(void)
{
    free(kept_rbuf);
    kept_rbuf = NULL, kept_rcap = 0;
}

/* m's receive buffer with room for n bytes (at most PIECE_BYTES), or NULL (the old one stays m's). */
static void *room_to_receive(st_xmpi_t *m, size_t n)
{
    if (m->rbuf && n <= m->rcap)
        return m->rbuf;
    size_t cap = n < PIECE_BYTES ? PIECE_BYTES : n;
    void *p = realloc(m->rbuf, cap);
    if (!p)
        return NULL;
    m->rbuf = p, m->rcap = cap;
    return p;
}

/* Messages of len bytes: MPI-4's large-count calls where the MPI has them; else (Open MPI 4.1)
 * int counts, so a message of more than INT_MAX bytes fails there like any failed call. */
static int isend_bytes(const void *buf, size_t len, int to, int tag, MPI_Comm comm, MPI_Request *req)
{
#ifdef ST_HAVE_MPI_Isend_c
    return PMPI_Isend_c(buf, (MPI_Count)len, MPI_BYTE, to, tag, comm, req);
#else
    return len > INT_MAX ? MPI_ERR_COUNT : PMPI_Isend(buf, (int)len, MPI_BYTE, to, tag, comm, req);
#endif
}

static int bytes_of(const MPI_Status *st, MPI_Count *count)
{
#ifdef ST_HAVE_MPI_Get_count_c
    return PMPI_Get_count_c(st, MPI_BYTE, count);
#else
    return PMPI_Get_elements_x(st, MPI_BYTE, count); /* of MPI_BYTE: elements are bytes */
#endif
}

static int mrecv_bytes(void *buf, MPI_Count count, MPI_Message *msg)
{
#ifdef ST_HAVE_MPI_Mrecv_c
    return PMPI_Mrecv_c(buf, count, MPI_BYTE, msg, MPI_STATUS_IGNORE);
#else
    return count > INT_MAX ? MPI_ERR_COUNT : PMPI_Mrecv(buf, (int)count, MPI_BYTE, msg, MPI_STATUS_IGNORE);
#endif
}

/* Room for n more sends; 0, or -1. */
static int room_to_send(st_xmpi_t *m, size_t n)
{
    if ((size_t)(m->cap - m->n) >= n)
        return 0;
    size_t cap = m->cap ? (size_t)m->cap : 64;
    while (cap - (size_t)m->n < n)
        cap *= 2;
    if (cap > INT_MAX)
        return -1;
    MPI_Request *r = realloc(m->req, sizeof *r * cap);
    if (r)
        m->req = r;
    void **b = realloc(m->buf, sizeof *b * cap);
    if (b)
        m->buf = b;
    if (!r || !b)
        return -1;
    m->cap = (int)cap;
    return 0;
}

/* One send of n bytes at p that holds owner (freed when its sends completed); 0, or -1 (m->err set, nothing held). */
static int send_part(st_xmpi_t *m, int32_t to, const void *p, size_t n, int tag, void *owner)
{
    if (isend_bytes(p, n, to, tag, m->comm, &m->req[m->n]) != MPI_SUCCESS) {
        m->err = 1;
        return -1;
    }
    m->sent[to]++;
    m->buf[m->n++] = owner;
    return 0;
}

/* Posts one message, in pieces when longer than PIECE_BYTES (after its length): each a send of its own, all holding
 * buf, which is freed when the last of them completed (reap_sends), or now when none could be posted. */
static int post(st_xmpi_t *m, int32_t to, void *buf, size_t len, int tag)
{
    size_t pieces = len > PIECE_BYTES ? (len - 1) / PIECE_BYTES + 1 : 1;
    uint64_t *head = pieces > 1 ? st_mem_malloc(sizeof *head) : NULL;
    if ((pieces > 1 && !head) || room_to_send(m, pieces + 1)) {
        st_mem_free(head);
        st_mem_free(buf);
        return -1;
    }
    if (head && (*head = len, send_part(m, to, head, sizeof *head, TAG_HEAD, head))) {
        st_mem_free(head);
        st_mem_free(buf);
        return -1;
    }
    for (size_t k = 0; k < pieces; k++) {
        size_t at = k * PIECE_BYTES, n = len - at < PIECE_BYTES ? len - at : PIECE_BYTES;
        if (send_part(m, to, (const uint8_t *)buf + at, n, k + 1 < pieces ? TAG_MORE : tag, buf)) {
            if (k == 0) /* else the pieces sent hold it */
                st_mem_free(buf);
            return -1;
        }
    }
    return 0;
}

static int net_send(void *ctx, int32_t to, void *buf, size_t len) { return post(ctx, to, buf, len, TAG); }

st_xchg_net_t st_xmpi_net(st_xmpi_t *m) { return (st_xchg_net_t){ net_send, m }; }

/* After a failure here: tells every other rank (an empty message each). */
static void send_abort(st_xmpi_t *m, int32_t me)
{
    for (int32_t q = 0; q < m->nranks; q++) {
        void *b = q == me ? NULL : st_mem_malloc(1);
        if (b)
            post(m, q, b, 0, TAG_ABORT);
    }
}

/* Frees the buffers of completed sends (compacting the arrays): a message's, once all its pieces completed (they
 * are next to each other in post's order, which compacting keeps). */
static void reap_sends(st_xmpi_t *m)
{
    if (!m->n)
        return;
    int done = 0, *idx = malloc(sizeof(int) * (size_t)m->n);
    MPI_Status *st = malloc(sizeof *st * (size_t)m->n);
    int rc = idx && st ? PMPI_Testsome(m->n, m->req, &done, idx, st) : MPI_ERR_NO_MEM;
    free(idx);
    free(st);
    if (rc != MPI_SUCCESS || done == MPI_UNDEFINED || done == 0)
        return;
    int k = 0;
    for (int i = 0, j; i < m->n; i = j) { /* completed sends are MPI_REQUEST_NULL now */
        int live = 0;
        for (j = i; j < m->n && m->buf[j] == m->buf[i]; j++)
            if (m->req[j] != MPI_REQUEST_NULL)
                m->req[k] = m->req[j], m->buf[k++] = m->buf[j], live = 1;
        if (!live)
            st_mem_free(m->buf[i]);
    }
    m->n = k;
}

/* A message of len bytes from `from` begins (its TAG_HEAD); 0, or -1 (memory, or one already begun). */
static int begin_pieces(st_xmpi_t *m, int32_t from, const void *head, size_t len)
{
    uint64_t total;
    if (len != sizeof total || (!m->part && !(m->part = calloc((size_t)m->nranks, sizeof *m->part))) ||
        m->part[from].buf)
        return -1;
    memcpy(&total, head, sizeof total);
    struct st_xmpi_part *p = &m->part[from];
    if (total <= PIECE_BYTES || total > SIZE_MAX || !(p->buf = st_mem_malloc((size_t)total)))
        return -1;
    p->len = 0, p->cap = (size_t)total;
    return 0;
}

/* Appends a piece of len bytes to the message begun from `from`; 0, or -1 (none begun, or more than its length). */
static int take_piece(st_xmpi_t *m, int32_t from, const void *piece, size_t len)
{
    struct st_xmpi_part *p = m->part ? &m->part[from] : NULL;
    if (!p || !p->buf || len > p->cap - p->len)
        return -1;
    memcpy((uint8_t *)p->buf + p->len, piece, len);
    p->len += len;
    return 0;
}

/* Delivers every message that has arrived to e (e NULL: discards them); returns how many,
 * -1 on a failure or when another rank reported one. */
static int poll_incoming(st_xmpi_t *m, const st_xmpi_engine_t *e)
{
    int got = 0;
    for (;;) {
        int flag = 0;
        MPI_Message msg;
        MPI_Status st;
        MPI_Count count = 0;
        if (PMPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, m->comm, &flag, &msg, &st) != MPI_SUCCESS)
            return -1;
        if (!flag)
            return got;
        if (bytes_of(&st, &count) != MPI_SUCCESS || count < 0)
            return -1;
        void *buf = room_to_receive(m, (size_t)count);
        if (!buf || mrecv_bytes(buf, count, &msg) != MPI_SUCCESS)
            return -1;
        m->received++;
        got++;
        int rc = 0, from = st.MPI_SOURCE;
        if (st.MPI_TAG == TAG_ABORT)
            m->aborted = 1;
        if (!e || m->aborted) { /* draining: what arrives is dropped */
            if (e)
                return -1;
            continue;
        }
        if (from < 0 || from >= m->nranks)
            return -1;
        if (st.MPI_TAG == TAG_HEAD) {
            rc = begin_pieces(m, from, buf, (size_t)count);
        } else if (st.MPI_TAG == TAG_MORE) {
            rc = take_piece(m, from, buf, (size_t)count);
        } else if (m->part && m->part[from].buf) { /* the last piece */
            rc = take_piece(m, from, buf, (size_t)count);
            rc = rc || m->part[from].len != m->part[from].cap
                     ? -1
                     : e->deliver(e->ctx, from, m->part[from].buf, m->part[from].len);
            st_mem_free(m->part[from].buf); /* its memory serves the next ones */
            m->part[from] = (struct st_xmpi_part){ 0 };
        } else {
            rc = e->deliver(e->ctx, from, buf, (size_t)count);
        }
        if (rc)
            return -1;
    }
}

/* Releases sends that did not complete in the drain; the buffers stay allocated (MPI may still read them). */
static void abandon_sends(st_xmpi_t *m)
{
    for (int i = 0; i < m->n; i++)
        PMPI_Request_free(&m->req[i]);
    m->n = 0;
}

/* Receives every message sent to this rank (how many: the sum over the senders) and
 * completes its own sends. */
static int drain(st_xmpi_t *m, int32_t me, int crowded, const char *what)
{
    uint64_t expected = 0;
    MPI_Request req;
    if (PMPI_Ireduce_scatter_block(m->sent, &expected, 1, MPI_UINT64_T, MPI_SUM, m->comm, &req) != MPI_SUCCESS ||
        st_polite_wait_crowded(&req, crowded) != MPI_SUCCESS)
        return -1;
    double t0 = st_clock_s(CLOCK_MONOTONIC);
    for (long idle = 0; m->received < expected || m->n; idle++) {
        int got = poll_incoming(m, NULL);
        reap_sends(m);
        if (got > 0)
            idle = 0;
        st_polite_pause(idle, crowded);
        if (idle % 64 == 63 && st_clock_s(CLOCK_MONOTONIC) - t0 > DRAIN_S) {
            st_log_error("%s: rank %d: %" PRIu64 " of %" PRIu64 " tool messages arrived and %d sends incomplete "
                         "after %.0f s; leaving them", what, (int)me, m->received, expected, m->n, DRAIN_S);
            return -1;
        }
    }
    return 0;
}

int st_xmpi_min_all(const int *in, int *out, int n, MPI_Comm comm, int crowded)
{
    MPI_Request req;
    int rc = PMPI_Iallreduce(in, out, n, MPI_INT, MPI_MIN, comm, &req);
    return rc == MPI_SUCCESS ? st_polite_wait_crowded(&req, crowded) : rc;
}

int st_xmpi_incoming(MPI_Comm comm, const uint8_t *flags, int32_t nranks, uint32_t *incoming, int crowded)
{
    int *counts = malloc(sizeof(int) * (size_t)(nranks > 0 ? nranks : 1)), mine = 0, rc = -1;
    MPI_Request req;
    if (counts) {
        for (int32_t q = 0; q < nranks; q++)
            counts[q] = flags[q];
        if (PMPI_Ireduce_scatter_block(counts, &mine, 1, MPI_INT, MPI_SUM, comm, &req) == MPI_SUCCESS &&
            st_polite_wait_crowded(&req, crowded) == MPI_SUCCESS)
            rc = 0;
    }
    *incoming = (uint32_t)mine;
    free(counts);
    return rc;
}

/*
 * Whether another rank's abort message is waiting (then m->aborted). An engine that is done but whose sends are
 * not complete must look for it: the failed rank receives nothing more until everyone is in the drain, so a
 * send to it of rendezvous size would never complete, and both would wait for ever.
 */
static int abort_came(st_xmpi_t *m)
{
    int flag = 0;
    if (PMPI_Iprobe(MPI_ANY_SOURCE, TAG_ABORT, m->comm, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag)
        m->aborted = 1;
    return m->aborted;
}

/* (No clock reads while busy: CPU-time clocks are system calls.) */
int st_xmpi_loop(st_xmpi_t *m, const st_xmpi_engine_t *e, int32_t rank, double t_start, double stall_s, int crowded)
{
    double last = st_clock_s(CLOCK_MONOTONIC);
    long loops = 0, msgs = 0, idle = 0;
    for (;;) {
        int rc = e->progress(e->ctx);
        loops++;
        if (rc == ST_XMPI_FAILED || m->err)
            return -1;
        int got = rc == ST_XMPI_DONE ? 0 : poll_incoming(m, e);
        if (got < 0 || (rc == ST_XMPI_DONE && m->n && abort_came(m)))
            return -1;
        reap_sends(m);
        msgs += got;
        if (rc == ST_XMPI_DONE && m->n == 0) {
            st_log_debug("%s: %ld loops, %ld messages received", e->what, loops, msgs);
            return 0;
        }
        if (rc == ST_XMPI_BUSY || got) {
            idle = 0;
            continue;
        }
        if (idle == 0)
            last = st_clock_s(CLOCK_MONOTONIC); /* an idle stretch begins */
        st_polite_pause(idle++, crowded);
        if (idle % 64)
            continue;
        double now = st_clock_s(CLOCK_MONOTONIC);
        if (now - last > stall_s + 2 * (last - t_start)) {
            char why[200];
            e->waiting(e->ctx, why, sizeof why);
            st_log_error("%s: rank %d made no progress for %.0f s (%s); giving up", e->what, (int)rank, now - last,
                         why);
            return -1;
        }
        if (now - last > QUIET_S + (last - t_start)) {
            char why[200];
            e->waiting(e->ctx, why, sizeof why);
            st_log_warn_once("%s: rank %d waiting for other ranks since %.0f s (%s)", e->what, (int)rank, now - last,
                             why);
        }
    }
}

int st_xmpi_finish(st_xmpi_t *m, int ok, int32_t rank, int crowded, const char *what)
{
    if (!ok && !m->aborted)
        send_abort(m, rank);
    if (drain(m, rank, crowded, what))
        ok = 0;
    if (m->n)
        abandon_sends(m);
    return ok;
}

int st_xmpi_allgather_items(MPI_Comm comm, int ok, const void *mine, size_t n, size_t size, void **all, size_t *nall,
                            int crowded)
{
    int np = 0, all_ok = 0;
    ok = ok && n <= INT_MAX / (size ? size : 1);
    PMPI_Comm_size(comm, &np);
    int *count = malloc(sizeof(int) * (size_t)(np > 0 ? np : 1)), *at = malloc(sizeof(int) * (size_t)(np > 0 ? np : 1));
    int my = ok ? (int)(n * size) : 0;
    uint8_t *buf = NULL;
    MPI_Request req;
    *all = NULL, *nall = 0;
    ok = ok && count && at;
    if (st_xmpi_min_all(&ok, &all_ok, 1, comm, crowded) != MPI_SUCCESS || !all_ok ||
        PMPI_Iallgather(&my, 1, MPI_INT, count, 1, MPI_INT, comm, &req) != MPI_SUCCESS ||
        st_polite_wait_crowded(&req, crowded) != MPI_SUCCESS) {
        free(count), free(at);
        return -1;
    }
    size_t total = 0;
    for (int q = 0; q < np; q++)
        at[q] = total <= INT_MAX ? (int)total : 0, total += (size_t)count[q];
    ok = total <= INT_MAX && (buf = malloc(total ? total : 1)) != NULL;
    if (st_xmpi_min_all(&ok, &all_ok, 1, comm, crowded) != MPI_SUCCESS || !all_ok ||
        PMPI_Iallgatherv(mine, my, MPI_BYTE, buf, count, at, MPI_BYTE, comm, &req) != MPI_SUCCESS ||
        st_polite_wait_crowded(&req, crowded) != MPI_SUCCESS) {
        free(buf), free(count), free(at);
        return -1;
    }
    free(count), free(at);
    if (!total || !size)
        free(buf);
    else
        *all = buf, *nall = total / size;
    return 0;
}
