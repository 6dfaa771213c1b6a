/*
 * exchange.h — the exchange layer of the parallel passes over a trace (the CLC's replay.c
 * and the analysis's src/analysis/parallel.c): wire records, per-destination output
 * buffers handed to a transport, and the binomial trees over a communicator's members.
 *
 * Transport-agnostic and MPI-free: the owner supplies st_xchg_net_t (replay_mpi.c and
 * exchange_mpi.h do it over MPI, the unit tests over in-memory queues) and feeds what
 * arrives to its own record parser. Messages are self-describing: a sequence of records,
 * each a 32-byte header (st_xchg_rec_t) and its payload; any delivery order works. Buffers
 * come from st_mem_malloc (mem.h): a transport frees them with st_mem_free.
 * Not thread-safe: one thread drives one set of buffers.
 */
#ifndef ST_EXCHANGE_H
#define ST_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct st_xchg_net {
    /* Takes ownership of buf (len > 0 bytes from st_mem_malloc: free it with st_mem_free)
     * and delivers it, some time later, to the receiving engine of rank `to` (which may
     * be the sender itself). Returns 0, or -1 when it cannot (buf is then freed by the
     * transport; the run fails). */
    int (*send)(void *ctx, int32_t to, void *buf, size_t len);
    void *ctx;
} st_xchg_net_t;

/* ---- records ------------------------------------------------------------------------------- */

/* The header of one record; the meaning of the fields but len is the owner's. */
typedef struct st_xchg_rec {
    uint8_t  type, phase, chkind, round;
    uint32_t nseq;
    uint64_t len; /* payload bytes after the header */
    uint64_t chan, seq;
} st_xchg_rec_t;

/* Reads a message: records, then values inside a payload. */
typedef struct st_xchg_reader {
    const uint8_t *p, *end;
} st_xchg_reader_t;

static inline uint8_t *st_xchg_put_u64(uint8_t *p, uint64_t v) { return memcpy(p, &v, 8), p + 8; }

/* n bytes into dst (may be NULL: skipped); 0, or -1 when the reader holds fewer. */
static inline int st_xchg_get(st_xchg_reader_t *rd, void *dst, size_t n)
{
    if ((size_t)(rd->end - rd->p) < n)
        return -1;
    if (dst)
        memcpy(dst, rd->p, n);
    rd->p += n;
    return 0;
}

static inline int st_xchg_get_u64(st_xchg_reader_t *rd, uint64_t *v) { return st_xchg_get(rd, v, 8); }

/* The next record of a message: its header and a reader over its payload. 1 (a record),
 * 0 (end of the message) or -1 (malformed). */
int st_xchg_next(st_xchg_reader_t *msg, st_xchg_rec_t *h, st_xchg_reader_t *payload);

/* ---- output buffers ---------------------------------------------------------------------------- */

typedef struct st_xchg_buf {
    int32_t  rank;
    uint8_t *data;
    size_t   len, cap;
    size_t   open_at; /* the owner's: offset of a record it still appends to, or SIZE_MAX */
} st_xchg_buf_t;

/* One buffer per destination rank, created at its first record. */
typedef struct st_xchg_out {
    st_xchg_net_t  net;
    int32_t        nranks;
    st_xchg_buf_t *b;
    uint32_t       nb, *slot; /* slot[rank]: index in b, UINT32_MAX if none */
} st_xchg_out_t;

/* 0, or -1 (out of memory). */
int st_xchg_out_init(st_xchg_out_t *o, const st_xchg_net_t *net, int32_t nranks);
void st_xchg_out_free(st_xchg_out_t *o);

/* The buffer of rank to, NULL if nothing was written to it yet. */
static inline st_xchg_buf_t *st_xchg_buf(const st_xchg_out_t *o, int32_t to)
{
    return to >= 0 && to < o->nranks && o->slot[to] != UINT32_MAX ? &o->b[o->slot[to]] : NULL;
}

/* Appends n bytes for `to` and returns them (*pb: the buffer), NULL when to is outside
 * [0, nranks) or out of memory. */
uint8_t *st_xchg_reserve(st_xchg_out_t *o, int32_t to, size_t n, st_xchg_buf_t **pb);

/* Appends a record header with the given fields and room for len payload bytes; returns
 * the payload, NULL as st_xchg_reserve. */
uint8_t *st_xchg_record(st_xchg_out_t *o, int32_t to, const st_xchg_rec_t *h, size_t len);

/* Hands every buffer holding at least min_bytes to the transport (0: every non-empty one).
 * Returns 0, or -1 with the rank that could not be sent to in *bad. */
int st_xchg_flush(st_xchg_out_t *o, size_t min_bytes, int32_t *bad);

/* ---- trees over a communicator ------------------------------------------------------------------- */

/* A binomial tree over the sorted, unique world ranks of a communicator (both groups of an
 * intercommunicator), rooted at the first. */
typedef struct st_xchg_tree {
    int32_t *members; /* sorted world ranks */
    uint32_t n, me;   /* me: this rank's index in members */
    int32_t  parent;  /* world rank, -1 at the root */
    int32_t *child;
    uint32_t nchild;
} st_xchg_tree_t;

/* Builds the tree over a[0..na) and b[0..nb) (b may be NULL), ranks outside [0, nranks)
 * dropped, as seen from rank me. Returns 0, 1 (me is not a member; t freed) or -1 (memory). */
int st_xchg_tree_build(st_xchg_tree_t *t, const int32_t *a, uint32_t na, const int32_t *b, uint32_t nb,
                       int32_t nranks, int32_t me);
void st_xchg_tree_free(st_xchg_tree_t *t);

#endif
