/*
 * skew.h — ground truth exported by the clock-skew library (tests/skew/skew.c).
 *
 * Test programs look these up with dlsym(RTLD_DEFAULT, ...) so they also run (and
 * skip their checks) without the library preloaded. "True" time is the machine's
 * real clock; a simulated node's local clock is true + skew_delta_ns(node, true
 * CLOCK_MONOTONIC time), for every clock id.
 */
#ifndef SKEW_H
#define SKEW_H

#include <stdint.h>
#include <time.h>

/* The real (unskewed) time of clock id, ns. */
uint64_t skew_true_ns(clockid_t id);
/* Local minus true time of simulated node `node` at true monotonic time t (ns). */
int64_t skew_delta_ns(int node, uint64_t t);
/* Simulated node of this process (rank / SKEW_NODE_SIZE, or the rank with SKEW_PER_RANK=1); -1: no skew. */
int skew_node(void);
/* Node of any world rank under the current settings. */
int skew_node_of_rank(int rank);

typedef uint64_t (*skew_true_ns_fn)(clockid_t);
typedef int64_t (*skew_delta_ns_fn)(int, uint64_t);
typedef int (*skew_node_fn)(void);
typedef int (*skew_node_of_rank_fn)(int);

#endif
