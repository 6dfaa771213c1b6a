/*
 * mpiio.c — MPI-IO under the shim (t_mpiio.sh): every kind of file access once per rank, on a strided
 * view so that the collective ones go through the MPI library's collective buffering (which makes MPI
 * calls of its own: ROMIO's are C MPI_* calls).
 *
 *   mpiio DIR [plain]   writes DIR/mpiio.dat; "plain": block 3 with File_write_at_all instead of
 *                       File_iwrite_at_all + Wait (Open MPI 4.1's ROMIO component crashes in the latter)
 *
 * Each rank's view: NBLK blocks of N ints, block j at int offset (j * size + rank) * N. Per rank, in
 * order (t_mpiio.sh's EXPECTED lists the same calls):
 *   Comm_rank, Comm_size, Type_vector, Type_commit,
 *   File_open, File_set_view,
 *   File_write_at (block 0), File_write_all (block 0 again, individual pointer -> N),
 *   File_iwrite + Wait (block 1, pointer -> 2N),
 *   File_write_at_all_begin + File_write_at_all_end (block 2), File_iwrite_at_all + Wait (block 3; plain:
 *   File_write_at_all),
 *   File_sync, File_read_at_all (blocks 0..1), File_iread_at + Wait (block 2),
 *   File_read_all_begin + File_read_all_end (block 2 via the pointer), File_get_size, File_close,
 *   Type_free, Reduce (the checksum), then rank 0 prints it.
 * Exits 0, or 1 with a line on stderr when what was read back differs.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64
#define NBLK 4

static int value(int rank, int blk, int i) { return rank * 100000 + blk * 1000 + i; }

int main(int argc, char **argv)
{
    if (argc < 2 || (argc > 2 && strcmp(argv[2], "plain") != 0)) {
        fprintf(stderr, "usage: mpiio DIR [plain]\n");
        return 2;
    }
    int plain = argc > 2;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype ftype;
    MPI_Type_vector(NBLK, N, N * size, MPI_INT, &ftype);
    MPI_Type_commit(&ftype);

    char path[4096];
    snprintf(path, sizeof path, "%s/mpiio.dat", argv[1]);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "mpiio: cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_view(fh, (MPI_Offset)rank * N * (MPI_Offset)sizeof(int), MPI_INT, ftype, "native", MPI_INFO_NULL);

    int blk[NBLK][N], back[3 * N];
    for (int b = 0; b < NBLK; b++)
        for (int i = 0; i < N; i++)
            blk[b][i] = value(rank, b, i);
    int junk[N];
    for (int i = 0; i < N; i++)
        junk[i] = -1;
    MPI_Status st;
    MPI_Request req;
    MPI_File_write_at(fh, 0, junk, N, MPI_INT, &st);              /* block 0, overwritten next */
    MPI_File_write_all(fh, blk[0], N, MPI_INT, &st);              /* block 0 via the pointer */
    MPI_File_iwrite(fh, blk[1], N, MPI_INT, &req);                /* block 1 via the pointer */
    MPI_Wait(&req, &st);
    MPI_File_write_at_all_begin(fh, 2 * N, blk[2], N, MPI_INT);   /* block 2, split collective */
    MPI_File_write_at_all_end(fh, blk[2], &st);
    if (plain) {
        MPI_File_write_at_all(fh, 3 * N, blk[3], N, MPI_INT, &st);
    } else {
        MPI_File_iwrite_at_all(fh, 3 * N, blk[3], N, MPI_INT, &req); /* block 3, nonblocking collective */
        MPI_Wait(&req, &st);
    }
    MPI_File_sync(fh);
    MPI_File_read_at_all(fh, 0, back, 2 * N, MPI_INT, &st);       /* blocks 0 and 1 */
    MPI_File_iread_at(fh, 2 * N, back + 2 * N, N, MPI_INT, &req); /* block 2 */
    MPI_Wait(&req, &st);
    int again[N];
    MPI_File_read_all_begin(fh, again, N, MPI_INT);               /* the pointer is at 2N: block 2 */
    MPI_File_read_all_end(fh, again, &st);
    MPI_Offset bytes;
    MPI_File_get_size(fh, &bytes);
    MPI_File_close(&fh);
    MPI_Type_free(&ftype);

    int bad = 0;
    long sum = 0;
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < N; i++) {
            bad += back[b * N + i] != value(rank, b, i);
            sum += back[b * N + i];
        }
    for (int i = 0; i < N; i++)
        bad += again[i] != value(rank, 2, i);
    bad += bytes != (MPI_Offset)NBLK * N * size * (MPI_Offset)sizeof(int);
    long total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpiio: %d ranks, file %lld bytes, checksum %ld\n", size, (long long)bytes, total);
    if (bad)
        fprintf(stderr, "mpiio: rank %d read back %d wrong values\n", rank, bad);
    MPI_Finalize();
    return bad ? 1 : 0;
}
