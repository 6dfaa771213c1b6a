/*
 * archive_mpi.c — the MPI-parallel OTF2 archive writer (st_archive_write_mpi).
 *
 * Steps, each followed by an agreement (a polite MAX-allreduce of the local
 * status) so that a failure on any rank stops every rank at the same point
 * instead of leaving others waiting in a collective:
 *   1. rank 0 checks DIR;
 *   2. every rank prepares and packs its definitions; the blob sizes are gathered
 *      (Igather), then the blobs (Igatherv) — rank 0 unpacks them and computes the
 *      global numbering (communicator ids, team and call-site string bases);
 *   3. the numbering is broadcast (Ibcast of its length, then of the vector);
 *   4. the archive is opened on every rank with OTF2's MPI collectives (PMPI) on
 *      toolcomm; every rank writes its locations, rank 0 the global definitions;
 *      the archive is closed collectively.
 * Only this file knows MPI; the writer itself (src/otf2) is MPI-free.
 */
#define OTF2_MPI_USE_PMPI
#include "archive_mpi.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>
#include <otf2/OTF2_MPI_Collectives.h>

#include "../exchange/polite_mpi.h"
#include "../otf2/writer.h"
#include "../model/prepare.h"
#include "../util/log.h"

/* ---- agreement and polite collectives -------------------------------------------------- */

static int mpi_failed(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    PMPI_Error_string(rc, msg, &len);
    st_log_error("OTF2 archive: %s failed: %s", what, msg);
    return 1;
}

/* The largest status of all ranks (ST_OTF2_ERR_MPI if the reduction itself fails). */
static int agree(MPI_Comm comm, int status)
{
    int all = status;
    MPI_Request req;
    if (mpi_failed(PMPI_Iallreduce(&status, &all, 1, MPI_INT, MPI_MAX, comm, &req), "agreeing on a status") ||
        mpi_failed(st_polite_wait_quiet(&req), "agreeing on a status"))
        return ST_OTF2_ERR_MPI;
    return all;
}

/* ---- gathering the definitions at rank 0 ------------------------------------------------- */

typedef struct gathered {
    uint64_t      *sizes;   /* rank 0: blob size of each rank */
    int           *counts, *displs;
    uint8_t       *blobs;   /* rank 0: all blobs */
    st_rankdata_t *defs;    /* rank 0: unpacked, one per rank */
    st_rankdata_t **ptrs;
    int            ndefs;
} gathered_t;

static void gathered_free(gathered_t *g)
{
    for (int i = 0; g->defs && i < g->ndefs; i++)
        st_rankdata_free(&g->defs[i]);
    free(g->defs);
    free(g->ptrs);
    free(g->sizes);
    free(g->counts);
    free(g->displs);
    free(g->blobs);
    memset(g, 0, sizeof *g);
}

/* Rank 0: checks the sizes and allocates the receive buffers for Igatherv. */
static int plan_gatherv(gathered_t *g, int size)
{
    uint64_t total = 0;
    g->counts = malloc((size_t)size * sizeof *g->counts);
    g->displs = malloc((size_t)size * sizeof *g->displs);
    if (!g->counts || !g->displs)
        return ST_OTF2_ERR_NOMEM;
    for (int r = 0; r < size; r++) {
        if (g->sizes[r] == 0) {
            st_log_error("OTF2 archive: rank %d could not provide its definitions", r);
            return ST_OTF2_ERR_DATA;
        }
        g->displs[r] = (int)total;
        g->counts[r] = (int)g->sizes[r];
        total += g->sizes[r];
        if (total > INT_MAX) {
            st_log_error("OTF2 archive: the definitions of all ranks exceed 2 GiB; cannot gather them at rank 0");
            return ST_OTF2_ERR_DATA;
        }
    }
    g->blobs = malloc(total ? total : 1);
    return g->blobs ? ST_OTF2_OK : ST_OTF2_ERR_NOMEM;
}

/* Rank 0: unpacks every blob. */
static int unpack_all(gathered_t *g, int size)
{
    g->defs = calloc((size_t)size, sizeof *g->defs);
    g->ptrs = calloc((size_t)size, sizeof *g->ptrs);
    if (!g->defs || !g->ptrs)
        return ST_OTF2_ERR_NOMEM;
    g->ndefs = size;
    for (int r = 0; r < size; r++) {
        if (st_rankdata_unpack(g->blobs + g->displs[r], g->sizes[r], &g->defs[r]) != 0) {
            st_log_error("OTF2 archive: the definitions received from rank %d are corrupt", r);
            return ST_OTF2_ERR_DATA;
        }
        g->ptrs[r] = &g->defs[r];
    }
    return ST_OTF2_OK;
}

static int gather_defs(MPI_Comm comm, int rank, int size, st_rankdata_t *mine, gathered_t *g)
{
    void *blob = NULL;
    int status = st_otf2_prepare(mine);
    uint64_t sz = status == ST_OTF2_OK ? st_rankdata_pack(mine, &blob) : 0;
    if (status == ST_OTF2_OK && sz == 0) {
        st_log_error("OTF2 archive: out of memory while packing the definitions");
        status = ST_OTF2_ERR_NOMEM;
    }
    if (rank == 0 && !(g->sizes = calloc((size_t)size, sizeof *g->sizes)))
        status = ST_OTF2_ERR_NOMEM;
    MPI_Request req;
    if ((status = agree(comm, status)) == ST_OTF2_OK &&
        (mpi_failed(PMPI_Igather(&sz, 1, MPI_UINT64_T, g->sizes, 1, MPI_UINT64_T, 0, comm, &req), "gathering sizes") ||
         mpi_failed(st_polite_wait_quiet(&req), "gathering sizes")))
        status = ST_OTF2_ERR_MPI;
    if (status == ST_OTF2_OK && rank == 0)
        status = plan_gatherv(g, size);
    if ((status = agree(comm, status)) == ST_OTF2_OK &&
        (mpi_failed(PMPI_Igatherv(blob, (int)sz, MPI_BYTE, g->blobs, g->counts, g->displs, MPI_BYTE, 0, comm, &req),
                    "gathering definitions") ||
         mpi_failed(st_polite_wait_quiet(&req), "gathering definitions")))
        status = ST_OTF2_ERR_MPI;
    free(blob);
    if (status == ST_OTF2_OK && rank == 0)
        status = unpack_all(g, size);
    return status;
}

/* ---- sharing the numbering ------------------------------------------------------------------ */

static int share_numbering(MPI_Comm comm, int rank, int status, uint64_t **num, size_t *len)
{
    uint64_t n = *len;
    MPI_Request req;
    if ((status = agree(comm, status)) != ST_OTF2_OK)
        return status;
    if (mpi_failed(PMPI_Ibcast(&n, 1, MPI_UINT64_T, 0, comm, &req), "broadcasting the numbering") ||
        mpi_failed(st_polite_wait_quiet(&req), "broadcasting the numbering"))
        return agree(comm, ST_OTF2_ERR_MPI);
    if (rank != 0 && !(*num = malloc(n * sizeof **num)))
        status = ST_OTF2_ERR_NOMEM;
    if (n > INT_MAX)
        status = ST_OTF2_ERR_DATA;
    if ((status = agree(comm, status)) != ST_OTF2_OK)
        return status;
    if (mpi_failed(PMPI_Ibcast(*num, (int)n, MPI_UINT64_T, 0, comm, &req), "broadcasting the numbering") ||
        mpi_failed(st_polite_wait_quiet(&req), "broadcasting the numbering"))
        status = ST_OTF2_ERR_MPI;
    *len = n;
    return agree(comm, status);
}

/* ---- writing ------------------------------------------------------------------------------------ */

static int write_archive(MPI_Comm comm, int rank, st_rankdata_t *mine, gathered_t *g, const uint64_t *num,
                         size_t len, const char *dir)
{
    /* rank 0 writes the global definitions: its chunk size is the archive's (the others write none) */
    OTF2_Archive *a = st_otf2_open(dir, rank == 0 ? st_otf2_def_chunk(g->ptrs, g->ndefs) : st_otf2_def_chunk(NULL, 0));
    int status = a ? ST_OTF2_OK : ST_OTF2_ERR_OTF2;
    /* If any rank could not open, nobody starts OTF2's collectives; the open
     * handles are not closed (OTF2 aborts when closing without collectives). */
    if ((status = agree(comm, status)) != ST_OTF2_OK)
        return status;
    if (st_otf2_failed(OTF2_MPI_Archive_SetCollectiveCallbacks(a, comm, MPI_COMM_NULL), "setting MPI collectives"))
        status = ST_OTF2_ERR_OTF2;
    if ((status = agree(comm, status)) != ST_OTF2_OK)
        return status;
    status = st_otf2_write_local(a, &mine, 1, num, len);
    if (rank == 0) {
        int gs = st_otf2_write_global(a, g->ptrs, g->ndefs, num, len, 0);
        status = status != ST_OTF2_OK ? status : gs;
    }
    int cs = st_otf2_close(a, dir);
    return agree(comm, status != ST_OTF2_OK ? status : cs);
}

int st_archive_write_mpi(MPI_Comm toolcomm, st_rankdata_t *mine, const char *dir)
{
    int rank = 0, size = 0;
    if (mpi_failed(PMPI_Comm_rank(toolcomm, &rank), "MPI_Comm_rank") ||
        mpi_failed(PMPI_Comm_size(toolcomm, &size), "MPI_Comm_size"))
        return ST_OTF2_ERR_MPI;
    int status = agree(toolcomm, rank == 0 ? st_otf2_check_dir(dir) : ST_OTF2_OK);
    if (status != ST_OTF2_OK)
        return status; /* nothing created: nothing to remove */
    gathered_t g = { 0 };
    uint64_t *num = NULL;
    size_t len = 0;
    st_rankdata_span(mine);
    status = gather_defs(toolcomm, rank, size, mine, &g);
    if (status == ST_OTF2_OK && rank == 0 && !(num = st_otf2_numbering(g.ptrs, g.ndefs, &len)))
        status = ST_OTF2_ERR_DATA;
    status = share_numbering(toolcomm, rank, status, &num, &len);
    if (status == ST_OTF2_OK)
        status = write_archive(toolcomm, rank, mine, &g, num, len, dir);
    if (status != ST_OTF2_OK && rank == 0)
        st_otf2_remove_partial(dir);
    gathered_free(&g);
    free(num);
    return status;
}
