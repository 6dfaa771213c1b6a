/*
 * rma_win.h — the window table of rma.c, for the one-sided operations' inline usual case
 * (p2p_fast.h's way, rma_fast.h) and rma.c alike: a window's record, the table's first probe slot,
 * an operation's matching id and what its record says. Only src/mpi includes it.
 */
#ifndef ST_MPI_RMA_WIN_H
#define ST_MPI_RMA_WIN_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include <otf2/OTF2_Events.h>

#include "handle_map.h"
#include "rma_notes.h"
#include "st_mpi.h"

#define ST_WIN_SLOTS       4096u /* windows alive at once */
#define ST_RMA_TARGET_BITS 40    /* matching id = target << ST_RMA_TARGET_BITS | number at that target */

/* What a window keeps per target: the matching ids of the last operation issued to it, of the last
 * completed at the target and of the last completed at the origin by a local flush (each id is the
 * target's window rank << ST_RMA_TARGET_BITS plus the operation's number at that target, so the
 * operations a synchronization completes are the ids between two of them, and the next operation's id
 * is one more than the last: no shift or mask in the call), whether it is in the window's list, and its
 * world rank (a copy of the window's world[], next to the counter the same call raises). A target's
 * 2^40-th operation would carry into the rank's bits: 2^40 calls of 192 bytes of events each. */
typedef struct st_win_target {
    _Atomic uint64_t issued;
    _Atomic uint64_t done;
    _Atomic uint64_t ldone;
    int32_t          world;
    _Atomic uint8_t  listed;
} st_win_target_t;

struct st_win {
    uint32_t          comm;    /* process-local index of the window's communicator */
    uint32_t          seq;     /* the window's number on it (events' tag) */
    uint32_t          size;    /* ranks of the window */
    int32_t           self;    /* this process's rank in it */
    const int32_t    *world;   /* world rank of each window rank (the communicator's definition) */
    st_win_target_t  *tgt;     /* [size] each target's counters, one place for the usual case's loads */
    _Atomic uint32_t *list;    /* [size] targets with operations since the last whole-window sync */
    _Atomic uint32_t  nlist;
    uint32_t          access, exposure; /* group sizes of the last MPI_Win_start and MPI_Win_post */
    int               tickets; /* its lock epochs take lock tickets (its MPI_Win_lock returns held) */
    MPI_Group         group;   /* the window's group (MPI_GROUP_NULL: members not recorded) */
    int              *iota;    /* [size] 0, 1, ..., size - 1 */
    int              *xpost, *xstart; /* [size] a post's / start's group in window ranks */
    st_rma_notes_t   *notes;   /* the post -> start notes' communicator (rma_notes.h; NULL: none) */
    int               ntag;    /* the window's tag on it */
    uint64_t         *nposted; /* [size] posts that named each origin */
    uint64_t         *nstarted;/* [size] starts that named each target */
    uint8_t          *silent;  /* [size] a target whose note did not come within the bound */
    uint8_t          *got;     /* [size] a start's: whether the note of each member of its group came */
    uint64_t         *note;    /* [2 * size] the note last sent to each origin (its send buffer) */
    MPI_Request      *nreq;    /* [size] its request */
};

typedef struct st_win_slot {
    _Atomic uint64_t handle;      /* ST_HMAP_KEY of the MPI_Win; 0: empty */
    _Atomic(st_win_t *) win;      /* NULL once freed */
} st_win_slot_t;

#define ST_WIN_REUSING 1u /* a slot being rebound to another handle: matches no lookup (no handle is 1) */

extern __attribute__((visibility("hidden"))) st_win_slot_t st_win_map[ST_WIN_SLOTS];

static inline uint32_t st_win_slot_of(uint64_t h)
{
    return (uint32_t)((h * 0x9E3779B97F4A7C15ull) >> 52) & (ST_WIN_SLOTS - 1);
}

/* The first slot of win's probe path when it holds win's handle (its window may be NULL: freed),
 * else NULL: the lookup then probes on (rma.c win_get). */
static inline const st_win_slot_t *st_win_first(MPI_Win win)
{
    uint64_t h = ST_HMAP_KEY(win);
    const st_win_slot_t *s = &st_win_map[st_win_slot_of(h)];
    return h > ST_WIN_REUSING && atomic_load_explicit(&s->handle, memory_order_acquire) == h ? s : NULL;
}

/* An operation's record (op: ST_RMA_*): its kind, its atomic type, and its two byte counts (sent or
 * received; an atomic's received bytes second). */
static inline unsigned st_rma_event_kind(int op)
{
    return op == ST_RMA_PUT ? ST_EV_RMA_PUT : op == ST_RMA_GET ? ST_EV_RMA_GET : ST_EV_RMA_ATOMIC;
}

static inline uint16_t st_rma_atomic_type(int op)
{
    switch (op) {
    case ST_RMA_ACCUMULATE: return OTF2_RMA_ATOMIC_TYPE_ACCUMULATE;
    case ST_RMA_GET_ACCUMULATE:
    case ST_RMA_FETCH_AND_OP: return OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE;
    case ST_RMA_COMPARE_AND_SWAP: return OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP;
    default: return 0;
    }
}

static inline uint64_t st_rma_bytes(int op, uint64_t sent, uint64_t recvd)
{
    return op == ST_RMA_GET ? recvd : sent;
}

static inline uint64_t st_rma_bytes2(int op, uint64_t recvd)
{
    return st_rma_event_kind(op) == ST_EV_RMA_ATOMIC ? recvd : 0;
}

/* The matching id of the next operation to target tg (its last issued id raised). */
static inline uint64_t st_rma_next_id(st_win_target_t *tg)
{
    return st_mpi_count(&tg->issued) + 1;
}

/* *e: operation op (ST_RMA_*) to target tg of w with matching id, at time t0 of epoch: the whole record,
 * written the same by the general wrapper (rma.c) and the usual case (rma_fast.h). */
static inline __attribute__((always_inline)) void st_rma_op_event(st_event_t *e, uint64_t t0, uint32_t epoch,
                                                                  const st_win_t *w, int op,
                                                                  const st_win_target_t *tg, uint64_t id,
                                                                  uint64_t sent, uint64_t recvd)
{
    *e = (st_event_t){ .time = t0, .kind = (uint8_t)st_rma_event_kind(op), .op = st_rma_atomic_type(op),
                       .comm = w->comm, .peer = tg->world, .tag = (int32_t)w->seq, .epoch = epoch,
                       .bytes = st_rma_bytes(op, sent, recvd), .bytes2 = st_rma_bytes2(op, recvd), .id = id };
}

#endif
