/*
 * rma_fast.h — a one-sided operation's usual call, recorded inline by its wrapper (role rma_op), as
 * p2p_fast.h does for the blocking send: the thread records, no call site or call path, room for the
 * call's three events, the window in the first slot of its table entry, the target a rank of it that
 * already has an operation listed since the window's last whole synchronization (a target's first
 * operation lists it: rma.c). Every other call goes to the general wrapper before anything is recorded.
 * The events are those rma.c's st_mpi_rma_op records: ENTER, the operation's record at the ENTER's
 * time (rma_win.h says what it holds), and the LEAVE (st_mpi_fast_leave).
 */
#ifndef ST_MPI_RMA_FAST_H
#define ST_MPI_RMA_FAST_H

#include "p2p_fast.h"
#include "rma_win.h"

static inline __attribute__((always_inline)) st_thread_t *st_mpi_rma_op_fast(st_region_t region, int op, int target,
                                                                             uint64_t sent, uint64_t recvd, MPI_Win win)
{
    st_thread_t *th = st_mpi_fast_thread(3);
    if (!th)
        return NULL;
    const st_win_slot_t *s = st_win_first(win);
    const st_win_t *w = s ? atomic_load_explicit(&s->win, memory_order_acquire) : NULL;
    if (ST_UNLIKELY(!w || (unsigned)target >= w->size))
        return NULL;
    st_win_target_t *tg = &w->tgt[target];
    if (ST_UNLIKELY(!atomic_load_explicit(&tg->listed, memory_order_relaxed)))
        return NULL;
    st_event_t *e = st_mpi_fast_begin(th, region, 2);
    st_rma_op_event(&e[1], e[0].time, th->epoch, w, op, tg, st_rma_next_id(tg), sent, recvd);
    return th;
}

#endif
