/*
 * check.h — `synctrace check`: the happened-before relations of a loaded archive and the
 * ones its timestamps contradict.
 *
 * There is one derivation of logical messages, the shim's (src/relations/derive.c: which events
 * are logical sends and receives, which collective members take part, how messages and
 * instances are matched). The archive is converted to rank data (convert.h), the
 * dependency graph is built from it and every relation (st_rel_relations: a receive and
 * the latest send it depends on, on another location) whose receive is earlier than its
 * send is a violation. So check counts exactly the relations CLC corrects: what CLC
 * leaves is what check finds (with --raw: what CLC found before correcting, its
 * "reversed" statistics), at MPI_Finalize and offline alike.
 * Pure function of the archive (no I/O besides the examples kept in the result), so unit
 * tests run it on archives built in memory.
 */
#ifndef ST_CLI_CHECK_H
#define ST_CLI_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "archive.h"

#define ST_CLI_CHECK_EXAMPLES 8

typedef struct st_cli_check {
    int raw;                     /* in: compare timestamps before CLC (synctrace:orig_time) */
    /* violations, by relation type (collective: MPI collectives and MPI_Init/Finalize) */
    uint64_t p2p, coll, omp_fork, omp_join, omp_barrier, omp_lock, omp_task;
    uint64_t relations;          /* relations checked (violated or not) */
    /* point-to-point matching */
    uint64_t matched, unmatched_sends, unmatched_recvs, cancelled, pending_recvs;
    /* collectives: operations (comm, instance), those with members missing, those that
     * relate no two locations (payload rule, handle operations, one member only) */
    uint64_t coll_instances, coll_incomplete, coll_unrelated;
    /* OpenMP instances: teams (forks), barriers, lock handovers, task relations */
    uint64_t omp_teams, omp_barriers, omp_handovers, omp_tasks;
    /* one-sided communication: violations, and the instances of the collectives on a window
     * (creation, fence, release) that relate its members */
    uint64_t rma, rma_colls, rma_pscw; /* rma_pscw: complete -> wait pairs (origin, target, epoch) */
    uint64_t rma_post;                 /* post -> start pairs (origin, target, epoch) whose notes both ends recorded */
    uint64_t rma_lock;                 /* unlock -> unlock pairs of conflicting lock epochs (relations/locks.h) */
    /* the first few violations, one line each */
    char examples[ST_CLI_CHECK_EXAMPLES][240];
    int nexamples;
} st_cli_check_t;

/*
 * Fills *res (res->raw chooses the timestamps). Returns 0, or -1 with a one-line reason in
 * err when the archive cannot be converted (an event synctrace does not write, an unknown
 * communicator, an OpenMP team event without its parallel id, ...) or memory runs out.
 */
int st_cli_check(const st_cli_archive_t *ar, st_cli_check_t *res, char *err, size_t errlen);

/* Total violations in res. */
uint64_t st_cli_check_total(const st_cli_check_t *res);

#endif
