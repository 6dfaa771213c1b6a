/*
 * lock_ticket.h — the order in which passive-target locks are granted at a target (docs/clc.md,
 * Decisions 13), taken while the lock is held, as SYNCTRACE_LOCK_TICKETS says.
 *
 * auto (the default): at MPI_Init every process of a machine maps one segment holding a 64-bit counter
 * per process of the machine (a cache line each). A ticket is an atomic fetch-and-add on the target's
 * counter, taken by the origin right after its PMPI_Win_lock(_all) returned, while it holds the lock:
 * conflicting lock epochs at a target hold it at disjoint times, so their tickets are in the order the
 * lock was granted, whatever the clocks say. No MPI call, no allocation, no lock; a target on another
 * machine gets none.
 * remote: the counters live in a window of the tool's (one per process, on the tool's communicator,
 * in a lock_all epoch of its own for the whole run); a ticket is a request-based fetch-and-add there,
 * waited for before the lock call returns, so it was performed at the target while the lock was held.
 * Every target gets one, on any machine, at the cost of one round trip per lock.
 * off: none.
 */
#ifndef ST_MPI_LOCK_TICKET_H
#define ST_MPI_LOCK_TICKET_H

#include <mpi.h>
#include <stdint.h>

/* Collective over tool (the tool's copy of MPI_COMM_WORLD: its ranks are world ranks). auto: the segment
 * of this machine, made by its lowest rank, opened by the others, unlinked once every one has it.
 * remote: the tool's window. A failure leaves this process (auto) or every process (remote) without
 * tickets (one warning), never the run. */
void st_lock_tickets_init(MPI_Comm tool);

/* Collective over the same communicator, at MPI_Finalize once no lock call can follow: frees the
 * remote tickets' window (nothing for auto and off). */
void st_lock_tickets_fini(void);

/* A ticket on the counter of each of the n targets (world ranks) into out: 1, 2, ... per target in the order
 * taken; 0 none (auto: another machine, or no segment; remote: the fetch-and-add failed; off). remote: the
 * fetch-and-adds of a group of targets in flight together (MPI_Win_lock_all). */
void st_lock_tickets_at(const int32_t *targets, uint32_t n, uint64_t *out);

#endif
