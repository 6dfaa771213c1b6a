/*
 * cmd_check.c — `synctrace check DIR [--raw] [-v]`: counts happened-before violations
 * among the relations of the shim's derivation (check.c) and reports message matching.
 * Exit 0 when there are none, 1 when there are violations or the archive is unreadable.
 */
#include "check.h"
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* What "as written" means for this archive: the CLC state the library or `synctrace clc` recorded. */
static const char *written_state(const st_cli_archive_t *ar)
{
    const char *state = st_cli_prop(ar, "SYNCTRACE::CLC_STATE");
    if (!state)
        return "as written (no CLC state recorded)";
    if (!strcmp(state, "on") || !strcmp(state, "offline"))
        return "as written (after CLC correction)";
    if (!strcmp(state, "off"))
        return "as written (CLC was off: not corrected)";
    if (!strcmp(state, "skipped"))
        return "as written (CLC skipped, events were lost: not corrected)";
    return "as written (CLC failed: not corrected)";
}

static void print_result(const st_cli_archive_t *ar, const st_cli_check_t *r, int verbose)
{
    printf("messages: %" PRIu64 " matched, %" PRIu64 " unmatched (%" PRIu64 " sends, %" PRIu64
           " receives), %" PRIu64 " cancelled, %" PRIu64 " receive requests never completed\n",
           r->matched, r->unmatched_sends + r->unmatched_recvs, r->unmatched_sends, r->unmatched_recvs, r->cancelled,
           r->pending_recvs);
    printf("collectives: %" PRIu64 " instances, %" PRIu64 " incomplete, %" PRIu64 " without a relation\n",
           r->coll_instances, r->coll_incomplete, r->coll_unrelated);
    printf("openmp: %" PRIu64 " team instances, %" PRIu64 " barrier instances, %" PRIu64 " lock handovers, %" PRIu64
           " task relations\n",
           r->omp_teams, r->omp_barriers, r->omp_handovers, r->omp_tasks);
    printf("rma: %" PRIu64 " window collective instances, %" PRIu64 " post -> start, %" PRIu64 " complete -> wait, %" PRIu64
           " unlock -> unlock\n",
           r->rma_colls, r->rma_post, r->rma_pscw, r->rma_lock);
    printf("timestamps: %s\n", r->raw ? "raw (before CLC correction)" : written_state(ar));
    printf("relations: %" PRIu64 "\n", r->relations);
    printf("violations: %" PRIu64 "\n", st_cli_check_total(r));
    printf("  p2p: %" PRIu64 "\n  collective: %" PRIu64 "\n  omp_fork: %" PRIu64 "\n  omp_join: %" PRIu64
           "\n  omp_barrier: %" PRIu64 "\n  omp_lock: %" PRIu64 "\n  omp_task: %" PRIu64 "\n  rma: %" PRIu64 "\n",
           r->p2p, r->coll, r->omp_fork, r->omp_join, r->omp_barrier, r->omp_lock, r->omp_task, r->rma);
    if (verbose && r->nexamples) {
        printf("first violations:\n");
        for (int i = 0; i < r->nexamples; i++)
            printf("  %s\n", r->examples[i]);
    }
}

static int run_check(int argc, char **argv)
{
    static const char *const opts[] = {"--raw", "-v", NULL};
    int flags[2] = {0, 0};
    const char *dir;
    int rc = st_cli_args(&st_cli_cmd_check, argc, argv, opts, flags, &dir);
    if (rc)
        return rc;
    st_cli_archive_t ar;
    if (st_cli_open(dir, &ar))
        return 1;
    st_cli_check_t res = {.raw = flags[0]};
    char err[300];
    if (st_cli_check(&ar, &res, err, sizeof err)) {
        fprintf(stderr, "synctrace: cannot read archive %s: %s\n", dir, err);
        st_cli_archive_free(&ar);
        return 1;
    }
    print_result(&ar, &res, flags[1]);
    st_cli_archive_free(&ar);
    return st_cli_check_total(&res) ? 1 : 0;
}

const st_cli_cmd_t st_cli_cmd_check = {
    .name = "check",
    .usage = "check DIR [--raw] [-v]",
    .summary = "count happened-before violations (exit 1 if any)",
    .help =
        "Counts the happened-before relations whose receive is timestamped earlier than\n"
        "its send. The relations are those CLC corrects (the same derivation, docs/clc.md):\n"
        "  p2p          a receive completed before its matching send started; sends and\n"
        "               receives are matched per (sender, receiver, communicator, tag) in\n"
        "               post order\n"
        "  collective   an end earlier than a begin it depends on (1-to-N: the root's\n"
        "               begin; N-to-1: root's end vs every begin; N-to-N: every end vs\n"
        "               every begin; scan/exscan: ranks < i; MPI_Init/Finalize: N-to-N);\n"
        "               a member takes part only if it sends / receives data (barriers\n"
        "               always), so count-0 collectives relate nothing\n"
        "  omp_fork     a thread starts in a team before the master forked it\n"
        "  omp_join     the master joins before a thread left the team\n"
        "  omp_barrier  a thread leaves a barrier before another one entered it\n"
        "  omp_lock     a lock is acquired before its previous holder released it\n"
        "  omp_task     a task starts or resumes before it was created or suspended, a\n"
        "               taskwait ends before a child completed\n"
        "  rma          a collective on an RMA window (its creation, a fence, its release)\n"
        "               ends before another member began it (a fence opening an epoch\n"
        "               with MPI_MODE_NOPRECEDE need not synchronize: no relation), or a\n"
        "               target's MPI_Win_wait returns before an origin of its epoch began\n"
        "               MPI_Win_complete, or an origin's MPI_Win_start took a target's note\n"
        "               before that target's MPI_Win_post sent it, or a lock epoch's MPI_Win_unlock returns before\n"
        "               the previous conflicting epoch at its target began its unlock (in\n"
        "               the order of the times read: never on them, see docs/analysis.md)\n"
        "Reads archives synctrace writes (OpenMP team events need synctrace:parallel_id);\n"
        "one it cannot turn into the relations is reported as unreadable.\n"
        "Prints message matching (matched, unmatched, cancelled), instance counts, the\n"
        "number of relations, the total ('violations: N') and one line per kind. Exit\n"
        "status 0 with no violations, 1 with violations or an unreadable archive, 2 on a\n"
        "usage error.\n"
        "  --raw   compare the timestamps before CLC correction (synctrace:orig_time);\n"
        "          messages are matched the same way in both modes\n"
        "  -v      also print the first violations found\n",
    .reads_archive = 1,
    .run = run_check,
};
