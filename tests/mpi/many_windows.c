/*
 * many_windows.c — windows kept at once, and PSCW epochs of two windows of one communicator in flight
 * together (t_rma_windows.sh). Usage: many_windows [-c FILE] [N] (default N = 2500). On 2 ranks:
 *  many   MPI_Win_create on MPI_COMM_WORLD (errors returned) until N windows are alive or a creation
 *         fails; rank 0 prints to stderr "created K windows" (MPICH 4.0.2 runs out of context ids at
 *         2,046, each window taking one), then frees them all
 *  pscw   two windows A and B on MPI_COMM_WORLD, 3 rounds: rank 0 posts on A, then on B, and waits on
 *         B, then on A; rank 1 starts on B first, puts 1 int, completes, then the same on A: the notes
 *         of A's post are on their way while B's start looks for B's (6 post -> start relations)
 *  attrs  before all that, an attribute on MPI_COMM_WORLD whose copy callback counts its calls (the
 *         MPIs call it at each window's creation, MPICH 4.0.2 three times more); rank 0 prints to
 *         stderr "copies C" at the end: the tool's own communicators must not add to it
 * Prints a checksum on rank 0 (stdout).
 */
#include "st_test.h"

static int copies; /* calls of the attribute's copy callback */

static int count_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void epoch_origin(MPI_Win win, MPI_Group peer, int v)
{
    MPI_Win_start(peer, 0, win);
    MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = st_test_arg(argc, argv, 0, 2500);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ST_TEST_REQUIRE(size == 2 && n >= 1 && n <= 100000, "run on 2 ranks with 1 <= N <= 100000, not %d and %ld", size, n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int keyval;
    static int value;
    MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value);
    static int buf[4];
    MPI_Win *w = malloc(sizeof *w * (size_t)n);
    if (!w)
        MPI_Abort(MPI_COMM_WORLD, 1);
    long k = 0;
    while (k < n && MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &w[k]) == MPI_SUCCESS)
        k++;
    long least = k;
    MPI_Allreduce(&k, &least, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0)
        fprintf(stderr, "created %ld windows\n", least);
    for (long j = 0; j < k; j++)
        MPI_Win_free(&w[j]);
    free(w);

    static int a[4], b[4];
    MPI_Win A, B;
    MPI_Win_create(a, sizeof a, sizeof a[0], MPI_INFO_NULL, MPI_COMM_WORLD, &A);
    MPI_Win_create(b, sizeof b, sizeof b[0], MPI_INFO_NULL, MPI_COMM_WORLD, &B);
    MPI_Group world, peer;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int other = 1 - rank;
    MPI_Group_incl(world, 1, &other, &peer);
    for (int r = 0; r < 3; r++) {
        if (rank == 0) {
            MPI_Win_post(peer, 0, A);
            MPI_Win_post(peer, 0, B);
            MPI_Win_wait(B);
            MPI_Win_wait(A);
        } else {
            epoch_origin(B, peer, 10 + r);
            epoch_origin(A, peer, 20 + r);
        }
    }
    uint64_t h = ST_TEST_SEED;
    h = st_test_mix(h, a[0]);
    h = st_test_mix(h, b[0]);
    if (rank == 0)
        printf("many_windows checksum %llu\n", (unsigned long long)h);
    if (rank == 0)
        fprintf(stderr, "copies %d\n", copies);
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
    MPI_Win_free(&B);
    MPI_Win_free(&A);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    MPI_Comm_free_keyval(&keyval);
    MPI_Finalize();
    return 0;
}
