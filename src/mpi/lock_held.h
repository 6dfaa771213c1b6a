/*
 * lock_held.h — whether MPI_Win_lock(_all) returns only once the lock is held: the condition of a lock
 * ticket (lock_ticket.h, docs/clc.md Decisions 13). One fact, asked twice: at MPI_Init for the
 * process (whether tickets can be taken at all) and at each window's creation (whether its lock
 * epochs take them).
 *
 * What was seen (the probe of Decisions 13): MPICH's ch4 device and Open MPI's one-sided components
 * rdma, ucx and sm return holding the lock; Open MPI's pt2pt does not (it acquires at the first flush or
 * unlock). Open MPI chooses the component per window by itself: pt2pt where no other component can
 * reach every member (a TCP-only network: tried here with btl tcp,self and osc ucx excluded) and by
 * default on Omni-Path (its osc_rdma_mtl list). So for Open MPI the window is asked which component
 * it got, where this build can tell (lock_held.c).
 */
#ifndef ST_MPI_LOCK_HELD_H
#define ST_MPI_LOCK_HELD_H

#include <mpi.h>
#include <stddef.h>

/* Whether some window of this process may return from its lock holding it: MPICH ch4, Open MPI
 * (each window then asked). 0 for every other library, MPICH ch3 included. Call after MPI_Init. */
int st_lock_held_somewhere(void);

/* Whether win's MPI_Win_lock(_all) returns holding the lock. For Open MPI: its component, read from
 * the window where this build has Open MPI's own headers and runs on the version they came with;
 * elsewhere, what OMPI_MCA_osc allows (no tickets when it may leave pt2pt in). */
int st_lock_held_by(MPI_Win win);

/* The name of win's one-sided component ("rdma", "pt2pt", ...) into name; 0, or -1 when this build
 * cannot tell (not Open MPI, no headers, another version, an unknown layout). */
int st_lock_osc_component(MPI_Win win, char *name, size_t len);

#endif
