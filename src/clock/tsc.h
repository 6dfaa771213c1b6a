/*
 * tsc.h — the time-stamp counter as local clock: detection, calibration, correction.
 *
 * The TSC is converted to ns with a fixed conversion (timer.h), measured once per node
 * and boot over 2 ms and shared through a file in /dev/shm, so that every process of a
 * node reads the same TSC clock; its error (ppm) is a constant drift to the system clock.
 * A conversion that no longer fits the counter (a virtual machine's TSC jumped) is
 * measured again and replaced. Calibration points (TSC, local ns, system clock ns) taken
 * at start-up, at every sync point and at MPI_Finalize pin the local clock to the system
 * clock; at finalize the global clock, which is rank 0's local clock, is mapped onto
 * rank 0's system clock through rank 0's points, piecewise linearly (so that a slewed
 * CLOCK_MONOTONIC is followed too): accurate to the points' own error (tens of ns) over
 * a run of any length.
 * Not thread-safe: start-up, the sync (one thread at a time) and finalize call it.
 */
#ifndef ST_CLOCK_TSC_H
#define ST_CLOCK_TSC_H

#include <stddef.h>
#include <stdint.h>

#include "timer.h"
#include "tsc_points.h"

#define ST_TSC_MAX_POINTS 256

/* Nonzero on x86-64 when /proc/cpuinfo lists constant_tsc and nonstop_tsc (path: for tests; NULL: /proc/cpuinfo). */
int st_tsc_invariant(const char *cpuinfo);

/*
 * The conversion into *conv and the first calibration point. *shared = 1: the node's
 * conversion (tsc.c: one per node and boot, so every process of the node reads the same
 * TSC clock); 0: measured by this process alone (/dev/shm unusable: its rate differs
 * from its neighbours' by ppm). 0, or -1 when the TSC cannot be calibrated.
 */
int st_tsc_calibrate(st_tsc_conv_t *conv, int *shared);

/* Tests: the directory of the node's conversion instead of /dev/shm (NULL: /dev/shm again). */
void st_tsc_node_dir(const char *dir);

/*
 * A calibration point now into *p, kept nowhere: 0, or -1 with the clock timer or when every
 * bracket was too wide (preempted). Async-signal-safe (the dump of an abnormal end).
 */
int st_tsc_sample(st_tsc_point_t *p);

/* Takes a calibration point now and keeps it (a no-op with the clock timer). */
void st_tsc_point(void);

/* How far the TSC clock first jumped against the system clock between two of this process's points
 * (st_tsc_jump, ns), or 0: event times after such a jump are wrong, the correction cannot mend them. */
int64_t st_tsc_jumped(void);

/* This process's calibration points, oldest first. */
size_t st_tsc_points(const st_tsc_point_t **pts);

/*
 * The points the global clock is corrected with from now on: rank 0's, when the clocks
 * were synchronized (n = 0: rank 0 ran on the clock timer, no correction). Without a
 * call, a TSC process corrects with its own points. Copies at most ST_TSC_MAX_POINTS.
 */
void st_tsc_use_points(const st_tsc_point_t *pts, size_t n);

/* Nonzero when st_tsc_correct changes anything. */
int st_tsc_correcting(void);

/* count global times in place, stride bytes apart (a location's events: in order, each costs little), on the
 * system clock's scale (the identity when not correcting). */
void st_tsc_correct(uint64_t *time, size_t count, size_t stride);

#endif
