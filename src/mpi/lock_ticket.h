/*
 * lock_ticket.h — the order in which passive-target locks are granted at a target, taken from memory
 * the processes of one machine share (docs/clc.md, Decisions 13).
 *
 * At MPI_Init every process of a machine maps one segment holding a 64-bit counter per process of the
 * machine (a cache line each). A ticket is an atomic fetch-and-add on the target's counter, taken by
 * the origin right after its PMPI_Win_lock(_all) returned, while it holds the lock: conflicting lock
 * epochs at a target hold it at disjoint times, so their tickets are in the order the lock was granted,
 * whatever the clocks say. No MPI call, no allocation, no lock; a target on another machine gets none.
 */
#ifndef ST_MPI_LOCK_TICKET_H
#define ST_MPI_LOCK_TICKET_H

#include <mpi.h>
#include <stdint.h>

/* Collective over tool (the tool's copy of MPI_COMM_WORLD: its ranks are world ranks): the segment of
 * this machine, made by its lowest rank, opened by the others, unlinked once every one has it. A
 * failure leaves this process without tickets (one warning), never the run. */
void st_lock_tickets_init(MPI_Comm tool);

/* A ticket on target's counter (a world rank): 1, 2, ... in the order taken; 0 none (another machine,
 * or no segment). */
uint64_t st_lock_ticket(int32_t target);

#endif
