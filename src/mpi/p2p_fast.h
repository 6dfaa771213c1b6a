/*
 * p2p_fast.h — the blocking send's and receive's usual call, recorded inline by the wrapper.
 *
 * A traced MPI_Send or MPI_Recv records three events: its ENTER, its SEND or RECV, its LEAVE. The
 * general wrapper (st_mpi.h's shape) takes each step in a function of its own, and the calls made the
 * wrapper keep its six arguments in saved registers across them: about 230 instructions a call, some
 * 930 on a round trip's critical path. Most calls are the usual case: the thread records, no call site
 * or call path is asked for, its buffer has room for the three events, the communicator is found in the
 * first slot of its table entry and is no intercommunicator, and the peer is a rank of it. For those
 * the wrapper records the three events here and calls nothing but PMPI (and PMPI_Type_size for a
 * datatype st_mpi_predefined_size does not know): about 160 instructions a send, 175 a receive. Every
 * other call goes to the general wrapper before anything is recorded (a tail call, so that its caller
 * is still the application's: st_mpi_begin), and a receive whose status is not the usual one (an
 * error, MPI_PROC_NULL, sizes that must be asked of MPI) ends there too (st_mpi_recv_end). The events
 * are the same either way (t_p2p compares them): the fields below are those p2p.c's st_mpi_send and
 * st_mpi_recv write, stamped as st_record and st_record_again stamp.
 */
#ifndef ST_P2P_FAST_H
#define ST_P2P_FAST_H

#include "comm.h"
#include "st_mpi.h"

/* The bytes a receive's status holds, read from the MPI's own status fields when st_mpi_status_init
 * found them right (st_mpi_status_raw_ok), else asked of MPI (p2p.c). */
#if defined(MPICH_VERSION)
#define ST_STATUS_RAW 1
static inline uint64_t st_mpi_status_raw(const MPI_Status *st)
{
    return (uint64_t)(unsigned)st->count_lo | (uint64_t)((unsigned)st->count_hi_and_cancelled >> 1) << 32;
}
#elif defined(OPEN_MPI)
#define ST_STATUS_RAW 1
static inline uint64_t st_mpi_status_raw(const MPI_Status *st) { return (uint64_t)st->_ucount; }
#else
#define ST_STATUS_RAW 0
static inline uint64_t st_mpi_status_raw(const MPI_Status *st) { (void)st; return 0; }
#endif
extern __attribute__((visibility("hidden"))) int st_mpi_status_raw_ok;

/* The thread when the call is the usual case's as far as the thread goes (recording, not inside
 * another wrapper, no call site or call path, room for n events before its limit), else NULL. */
static inline __attribute__((always_inline)) st_thread_t *st_mpi_fast_thread(size_t n)
{
    if (ST_UNLIKELY(!st_mpi_tracing))
        return NULL;
    st_thread_t *th = st_thread_tls;
    if (ST_UNLIKELY(!th || th->in_tool || st_callpath_on || st_mpi_callsite_on || th->pos + n > th->limit))
        return NULL;
    return th;
}

/* The communicator's entry when its table slot's first probe finds it and it is no intercommunicator. */
static inline __attribute__((always_inline)) const st_comm_t *st_mpi_fast_comm(MPI_Comm comm)
{
    const st_comm_slot_t *s = st_comm_first(comm);
    if (ST_UNLIKELY(!s))
        return NULL;
    const st_comm_t *c = atomic_load_explicit(&s->comm, memory_order_acquire);
    return ST_LIKELY(c && !(c->def.flags & ST_COMMF_INTER)) ? c : NULL;
}

/* The next n slots of th's buffer, whose room was checked; filled by the caller, one whole record each. */
static inline __attribute__((always_inline)) st_event_t *st_mpi_fast_slots(st_thread_t *th, size_t n)
{
    st_event_t *e = &th->buf[th->pos];
    th->pos += n;
    return e;
}

/* *e: the ENTER of the wrapper's call at time t (st_record_enter without a call site). */
static inline __attribute__((always_inline)) void st_mpi_fast_enter(st_event_t *e, uint64_t t, uint32_t epoch,
                                                                   st_region_t region)
{
    *e = (st_event_t){ .time = t, .kind = ST_EV_ENTER, .region = region, .peer = -1, .epoch = epoch };
}

/* *e: the LEAVE of the wrapper's call at time t. */
static inline __attribute__((always_inline)) void st_mpi_fast_leave_at(st_event_t *e, uint64_t t, uint32_t epoch,
                                                                      st_region_t region)
{
    *e = (st_event_t){ .time = t, .kind = ST_EV_LEAVE, .region = region, .peer = -1, .epoch = epoch };
}

/* *e: a message event at time t as p2p.c's fill_msg makes it (intracommunicator): the whole record at once,
 * where fill_msg completes one st_record zeroed (t_p2p compares the two). */
static inline __attribute__((always_inline)) void st_mpi_fast_msg(st_event_t *e, unsigned kind, uint64_t t,
                                                                 uint32_t epoch, const st_comm_t *c, int32_t peer,
                                                                 int tag, uint64_t bytes, uint64_t id)
{
    *e = (st_event_t){ .time = t, .kind = (uint8_t)kind, .comm = c->index, .peer = peer, .tag = tag,
                         .epoch = epoch, .bytes = bytes, .id = id };
}

/* The call begun: the thread inside the wrapper (in_tool), the call's ENTER stamped now in the first
 * of the next n slots, which are returned (the others are the caller's, at e[0].time if at the same instant). */
static inline __attribute__((always_inline)) st_event_t *st_mpi_fast_begin(st_thread_t *th, st_region_t region, size_t n)
{
    th->in_tool = 1;
    uint64_t t = st_record_now(th);
    st_event_t *e = st_mpi_fast_slots(th, n);
    st_mpi_fast_enter(e, t, th->epoch, region);
    return e;
}

/*
 * MPI_Send and its modes: NULL unless the call is the usual case (above); else its ENTER and SEND
 * are recorded, the thread is inside the wrapper (in_tool), and st_mpi_fast_leave ends it.
 */
static inline __attribute__((always_inline)) st_thread_t *st_mpi_send_fast(st_region_t region, MPI_Comm comm, int dest,
                                                                           int tag, MPI_Count count, MPI_Datatype type)
{
    st_thread_t *th = st_mpi_fast_thread(3);
    if (!th)
        return NULL;
    const st_comm_t *c = st_mpi_fast_comm(comm);
    if (ST_UNLIKELY(!c || (unsigned)dest >= c->def.size))
        return NULL;
    st_event_t *e = st_mpi_fast_begin(th, region, 2);
    /* at the ENTER's time, as st_mpi_send's st_record_again */
    st_mpi_fast_msg(&e[1], ST_EV_MPI_SEND, e[0].time, th->epoch, c, c->def.world[dest], tag, st_mpi_bytes(count, type), 0);
    return th;
}

/* The call's LEAVE, now, and the wrapper's end. */
static inline __attribute__((always_inline)) void st_mpi_fast_leave(st_thread_t *th, st_region_t region)
{
    uint64_t t = st_record_now(th);
    st_mpi_fast_leave_at(st_mpi_fast_slots(th, 1), t, th->epoch, region);
    th->in_tool = 0;
}

/* MPI_Recv: NULL unless the call is the usual case so far; else its ENTER is recorded, *c is the
 * communicator's entry and st_mpi_recv_fast_end ends the call. */
static inline __attribute__((always_inline)) st_thread_t *st_mpi_recv_fast(const st_comm_t **c, st_region_t region,
                                                                           MPI_Comm comm)
{
    st_thread_t *th = st_mpi_fast_thread(3);
    if (!th || !(*c = st_mpi_fast_comm(comm)))
        return NULL;
    st_mpi_fast_begin(th, region, 1);
    return th;
}

/* The general end of a receive st_mpi_recv_fast began (p2p.c: st_mpi_recv, st_mpi_leave, st_mpi_end). */
int st_mpi_recv_end(st_thread_t *th, int rc, const st_comm_t *c, const MPI_Status *status, uint64_t post_id,
                    st_region_t region);

/* The receive's RECV, now, and its LEAVE at the same instant (st_mpi_recv, then st_mpi_leave as
 * stamped), the wrapper's end; returns rc. */
static inline __attribute__((always_inline)) int st_mpi_recv_fast_end(st_thread_t *th, int rc, const st_comm_t *c,
                                                                      const MPI_Status *status, uint64_t post_id,
                                                                      st_region_t region)
{
    int src = status->MPI_SOURCE;
    if (ST_UNLIKELY(rc != MPI_SUCCESS || (unsigned)src >= c->def.size || !st_mpi_status_raw_ok))
        return st_mpi_recv_end(th, rc, c, status, post_id, region);
    uint64_t t = st_record_now(th);
    st_event_t *e = st_mpi_fast_slots(th, 2);
    st_mpi_fast_msg(&e[0], ST_EV_MPI_RECV, t, th->epoch, c, c->def.world[src], status->MPI_TAG,
                    st_mpi_status_raw(status), post_id);
    st_mpi_fast_leave_at(&e[1], t, th->epoch, region); /* at the RECV's instant, as st_mpi_leave after it */
    th->in_tool = 0;
    return rc;
}

#endif
