/*
 * sync.h — clock synchronization as the MPI lifecycle uses it.
 *
 * Contract:
 *  - st_clock_parse_spec() validates SYNCTRACE_SYNC at library load (no MPI).
 *  - st_clock_init_sync() is collective over the tool's world communicator, inside
 *    MPI_Init: it synchronizes every rank's clock (scheme and algorithms from
 *    SYNCTRACE_SYNC) and publishes the map with st_timer_set_map(), so events are
 *    stamped on the global clock from then on. All traffic is PMPI on a private
 *    MPI_Comm_idup of that communicator, waited politely; nothing is recorded.
 *  - st_clock_collective_hook() is called after every blocking collective on
 *    MPI_COMM_WORLD (the same sequence on every rank; one thread at a time). Every
 *    ST_CLOCK_HOOK_EVERY-th call it completes the consensus on "resync deadline
 *    passed" posted at the previous such call (a PMPI_Iallreduce(MAX) on the private
 *    communicator), resynchronizes if so, and posts the next one. No operation ever
 *    touches the application's communicators; every rank takes the same decision.
 *  - st_clock_finalize_sync() is collective, in MPI_Finalize before the trace is
 *    collected: the last sync point (for interpolation) and the run's statistics.
 *  - st_clock_remap_rankdata() / st_clock_remap_events() re-map recorded timestamps at
 *    finalize (local, no MPI): events stamped before MPI_Init get the initial map;
 *    with SYNCTRACE_INTERPOLATE=1 all events are interpolated between sync points; with
 *    the TSC timer the result is then mapped onto rank 0's system clock (tsc.h).
 *  - st_clock_report() adds the sync properties of this rank to the archive data.
 * All functions are safe to call when SYNCTRACE_SYNC=none or init failed (no-ops).
 */
#ifndef ST_CLOCK_SYNC_H
#define ST_CLOCK_SYNC_H

#include <mpi.h>
#include <stddef.h>

#include "../model/rankdata.h"
#include "../model/event.h"

/* How often (in collectives on MPI_COMM_WORLD) the resync consensus is advanced. */
#define ST_CLOCK_HOOK_EVERY 4

/* 0 if spec is valid, else -1 with one line in err naming SYNCTRACE_SYNC, the bad part and what is accepted. */
int st_clock_parse_spec(const char *spec, char *err, size_t errlen);

/* Collective over toolworld (a private dup of MPI_COMM_WORLD). 0, or -1 (clocks stay local). */
int st_clock_init_sync(MPI_Comm toolworld);

/* After every blocking collective on MPI_COMM_WORLD; see above. */
void st_clock_collective_hook(void);

/* Collective over the tool's world communicator, in MPI_Finalize. */
void st_clock_finalize_sync(void);

/* Re-maps one location's events (record order) in place; after st_clock_finalize_sync(). */
void st_clock_remap_events(st_event_t *ev, size_t n);

/* Re-maps every thread of rd and updates rd->t_begin / t_end. */
void st_clock_remap_rankdata(st_rankdata_t *rd);

/* This rank's epoch table (model.h): [0] the local clock, then one per sync. Valid
   until the next sync; for tests and diagnostics. */
struct st_clock_epoch;
const struct st_clock_epoch *st_clock_epochs(size_t *n);

/* Adds this rank's sync properties (sync.*) to rd, and st_clock_report_timer's. */
void st_clock_report(st_rankdata_t *rd);

/* Adds the timer that stamped events (timer: tsc or clock_gettime; with the TSC its frequency and calibration). */
void st_clock_report_timer(st_rankdata_t *rd);

#endif
