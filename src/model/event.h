/*
 * event.h — the in-memory event record.
 *
 * One fixed-size record per event, 64 bytes, written by the recording hot path and
 * read back at finalize (CLC, OTF2 writer), by `synctrace recover` and by the CLI's
 * archive reader (src/cli/archive.h). Which fields
 * an event kind uses is documented once, in events.def.
 */
#ifndef ST_EVENT_H
#define ST_EVENT_H

#include <stdint.h>

typedef enum st_event_kind {
#define ST_EVENT(name, dump, doc) ST_EV_##name,
#include "events.def"
#undef ST_EVENT
    ST_EV__COUNT, /* the kinds synctrace records; the kinds only a reader meets follow */
    ST_EV__READ_BEFORE = ST_EV__COUNT - 1,
#define ST_EVENT(name, dump, doc)
#define ST_EVENT_READ(name, dump, doc) ST_EV_##name,
#include "events.def"
#undef ST_EVENT_READ
#undef ST_EVENT
    ST_EV__ALL /* every kind */
} st_event_kind_t;

/* Which synchronization an RMA_GROUP_SYNC is (its op; events.def). */
enum st_pscw_op { ST_PSCW_POST = 1, ST_PSCW_START, ST_PSCW_COMPLETE, ST_PSCW_WAIT };

/* The notes of post -> start as an RMA_SYNC's op: OTF2_RmaSyncType's values (src/mpi/rma.c checks
 * they agree), named here for the readers that include no OTF2 header (relations). */
enum st_rma_sync_note { ST_RMA_SYNC_NOTIFY_IN = 1, ST_RMA_SYNC_NOTIFY_OUT = 2 };

/* Event flags. */
#define ST_EVF_NONE       0x00u
#define ST_EVF_INTERCOMM  0x01u /* peer/root refers to the remote group of an intercommunicator */
#define ST_EVF_PROC_NULL  0x02u /* the peer was MPI_PROC_NULL: no message exists; intercomm collective:
                                     * the root is another process of this group */
#define ST_EVF_PERSISTENT 0x04u /* the request is persistent (Send_init/Recv_init, MPI_Start) */
#define ST_EVF_IMPLICIT   0x08u /* OpenMP: implicit barrier / implicit task */
#define ST_EVF_CLC_MOVED  0x10u /* CLC moved this event; orig_time holds the time before */

/*
 * tag of an OpenMP worker's THREAD_TEAM_END that LLVM reported late (src/omp), and of the LEAVEs recorded with it,
 * which also carry the parallel id in id: recorded at the worker's previous event, stamped by the trace's
 * preparation (model/late_ends.h) with the master's THREAD_TEAM_END's time, and the LEAVE of the team's last
 * implicit barrier just before them with the master's LEAVE of that barrier; tag and id are then 0.
 */
#define ST_OMP_LATE_END 1
/* 0x20, 0x40, 0x80: not used by the model; the CLI's archive reader keeps its flags there (ST_CLI_EVF_*) */

typedef struct st_event {
    uint64_t time;   /* ns on the global clock */
    uint8_t  kind;   /* st_event_kind_t */
    uint8_t  flags;  /* ST_EVF_* */
    uint16_t op;     /* collective op (OTF2_CollectiveOp), lock kind, ... */
    uint32_t region; /* region id (st_region_t) for ENTER/LEAVE */
    uint32_t comm;   /* process-local communicator index */
    int32_t  peer;   /* world rank of peer or root; -1 none */
    int32_t  tag;
    uint32_t epoch;  /* sync epoch of the timer map that stamped `time` (clock/timer.h); 0 unknown */
    uint64_t bytes;  /* bytes sent / message size; OpenMP: see events.def */
    uint64_t bytes2; /* bytes received (collectives) */
    uint64_t id;     /* request id, post id, instance seq, lock id, task id, ... */
    uint64_t aux;    /* call-site pc on ENTER; kind-specific otherwise */
} st_event_t;

_Static_assert(sizeof(st_event_t) == 64, "st_event_t must stay 64 bytes");

/*
 * Where CLC keeps an event's pre-correction time when it sets ST_EVF_CLC_MOVED: in
 * aux, except for ENTER, whose aux is the call-site pc and whose id is unused, and
 * ICOLL_COMPLETE, whose aux is the instance seq the writer stores (synctrace:coll_seq)
 * and whose region and tag are unused (low and high half). (TASK_SWITCH's "task left"
 * in aux is not written to OTF2, so overwriting it after CLC loses nothing.)
 */
static inline void st_event_set_orig_time(st_event_t *e, uint64_t t)
{
    if (e->kind == ST_EV_ENTER)
        e->id = t;
    else if (e->kind == ST_EV_MPI_ICOLL_COMPLETE)
        e->region = (uint32_t)t, e->tag = (int32_t)(uint32_t)(t >> 32);
    else
        e->aux = t;
}

static inline uint64_t st_event_orig_time(const st_event_t *e)
{
    if (e->kind == ST_EV_MPI_ICOLL_COMPLETE)
        return (uint64_t)(uint32_t)e->tag << 32 | e->region;
    return e->kind == ST_EV_ENTER ? e->id : e->aux;
}

/* An RMA operation issued at the origin (RmaPut, RmaGet, RmaAtomic: its target in peer). */
static inline int st_event_is_rma_op(unsigned kind)
{
    return kind == ST_EV_RMA_PUT || kind == ST_EV_RMA_GET || kind == ST_EV_RMA_ATOMIC;
}

/* Name used in `synctrace dump` for an event kind (recorded or read); "?" for an unknown kind. */
const char *st_event_kind_name(unsigned kind);

#endif
