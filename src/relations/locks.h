/*
 * locks.h — the order of passive-target lock epochs at a target (relations.h): the one part of
 * the derivation that needs more than one process's events.
 *
 * An epoch is an origin's MPI_Win_lock(_all) .. MPI_Win_unlock(_all) on one location and window
 * with at least one RMA operation to the target in it, or an MPI_Win_lock epoch with a ticket (it
 * held the lock: derive_lock.c) (MPI_Win_lock_all: one epoch per target it issued operations to,
 * shared). Where origin and target share a machine the epoch carries a ticket
 * (RMA_ACQUIRE_LOCK: taken from a counter of the target's in shared memory right after the lock
 * call returned holding the lock, src/mpi/lock_ticket.h), and conflicting epochs' tickets are in the
 * order the lock was granted. The epochs of a (window, target) that all carry tickets are put in
 * that order (by_ticket); the others in the order of one moment of their MPI_Win_unlock call: its
 * ENTER if the lock was held before it (a flush of the epoch completed an operation at the target),
 * else its return (RMA_RELEASE_LOCK), at the times the events carry. An exclusive epoch conflicts
 * with its neighbours, consecutive shared ones do not: each run of epochs that do not conflict is a
 * phase (0, 1, ... per target). The relation between two consecutive phases (derive_lock.c) is: each
 * epoch's MPI_Win_unlock ENTER -> each epoch of the next phase's lock return (its RMA_ACQUIRE_LOCK)
 * when ordered by tickets, else its unlock's return. Ordered by tickets it is causal, and CLC keeps
 * it (st_rel_input_lock_keep_ticketed); ordered by the times it holds on a correct clock whatever
 * the real order of acquisition was and never runs backwards on the times it was ordered by
 * (docs/analysis.md, "One-sided communication"), but on skewed clocks that order is a guess, and a
 * wrong one could contradict the relations CLC must restore (t_rma: a window collective once left
 * reversed): CLC leaves those out. The readers of corrected times — the analysis, in the run and of
 * an archive, and `synctrace check` — take both, ordered on those times.
 *
 * The order is a table of every rank's epochs, the same on every process that derives: built from
 * the input's locations (st_rel_input_from_rankdata: every rank present), or, in a parallel
 * analysis or correction, each process's epochs gathered by the caller and ordered
 * (st_rel_input_lock_take).
 */
#ifndef ST_REL_LOCKS_H
#define ST_REL_LOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "input.h"

typedef struct st_rel_lock_epoch {
    uint64_t win;     /* the window: st_rel_win_key(its communicator's key, its number there) */
    uint64_t t;       /* its moment by the times: the unlock's ENTER (lock held before it) or return */
    uint64_t enter;   /* the unlock call's ENTER event on loc (the origin's input) */
    uint64_t release; /* its RMA_RELEASE_LOCK event on loc */
    uint64_t acquire; /* its RMA_ACQUIRE_LOCK event on loc (the ticket's), valid where ticket != 0 */
    int32_t  target;  /* world ranks */
    int32_t  origin;
    uint32_t loc;     /* the origin's location, an index into the input that listed it */
    uint32_t phase;   /* set by st_rel_lock_order: the epoch's phase at its (window, target) */
    uint64_t ticket;  /* its ticket at the target (RMA_ACQUIRE_LOCK's id: the order of the grants), 0 none */
    uint8_t  excl;    /* exclusive lock */
    uint8_t  by_ticket; /* set by st_rel_lock_order: every epoch of its (window, target) has a ticket */
    uint8_t  _pad[6];
} st_rel_lock_epoch_t;

typedef struct st_rel_lockvec {
    st_rel_lock_epoch_t *v;
    size_t               n, cap;
} st_rel_lockvec_t;

/* Appends the lock epochs of rank's locations in `in` (needs in->procs[rank].comms) to out.
 * 0, or -1 (memory). */
int st_rel_lock_epochs(const st_rel_input_t *in, int32_t rank, st_rel_lockvec_t *out);

/* Sorts v into the order above (window, target, then the tickets where every epoch of the
 * (window, target) has one, else t; then origin, location, event: the same on every process for
 * the same epochs) and sets each epoch's phase and by_ticket. */
void st_rel_lock_order(st_rel_lock_epoch_t *v, size_t n);

/* The table of every rank of in (st_rel_lock_epochs of each, ordered) as in->locks (freed by
 * st_rel_input_free; one there before is freed first). 0, or -1 (memory). */
int st_rel_input_lock_order(st_rel_input_t *in);

/* A parallel caller's table: v (n epochs of every rank, from malloc or st_mem_malloc) ordered and
 * handed to in as in->locks (one there before is freed). */
void st_rel_input_lock_take(st_rel_input_t *in, st_rel_lock_epoch_t *v, size_t n);

/* Keeps in in->locks (ordered) only the epochs ordered by their tickets: CLC's lock relations. */
void st_rel_input_lock_keep_ticketed(st_rel_input_t *in);

#endif
