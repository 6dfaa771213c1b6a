/*
 * corrupt.c — LD_PRELOAD test library (tests/clc/t_clc_abort.sh): corrupts the first message
 * the CLC engine of world rank CORRUPT_RANK sends at MPI_Finalize, so that its receiver fails
 * in the middle of the exchange. The shim calls PMPI_Isend_c (PMPI_Isend without MPI-4) for
 * these messages (the exchange layer's MPI transport, src/exchange/exchange_mpi.c: tag 7401, or
 * 7403 for the pieces of a long one but its last); the first send of a message with either tag
 * carries its first byte. This library comes before it in LD_PRELOAD and
 * overwrites the record type (the first byte) with a value no record has. The parallel analysis
 * uses the same transport after CLC: with SYNCTRACE_CLC=off its first message is the one
 * corrupted (tests/analysis/t_analyze_inrun.sh).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>

#define CLC_TAG  7401 /* a message, or its last piece */
#define MORE_TAG 7403 /* a piece of a longer message, more follows: its first piece starts the message (after
                       * its length, tag 7404, which is left alone) */

/* MPI-4 libraries (MPICH) carry the tool's messages with PMPI_Isend_c; Open MPI 4.1 has no large-count
 * functions, and the exchange layer uses PMPI_Isend there. */
#if MPI_VERSION >= 4
#define ST_ISEND      PMPI_Isend_c
#define ST_ISEND_NAME "PMPI_Isend_c"
typedef MPI_Count count_t;
#else
#define ST_ISEND      PMPI_Isend
#define ST_ISEND_NAME "PMPI_Isend"
typedef int count_t;
#endif

typedef int (*isend_t)(const void *, count_t, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

__attribute__((visibility("default"))) int ST_ISEND(const void *buf, count_t count, MPI_Datatype type,
                                                    int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    static isend_t real;
    static int done;
    if (!real)
        real = (isend_t)dlsym(RTLD_NEXT, ST_ISEND_NAME);
    if (!done && (tag == CLC_TAG || tag == MORE_TAG) && count > 0 && type == MPI_BYTE) {
        const char *want = getenv("CORRUPT_RANK");
        int rank = -1;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (want && atoi(want) == rank) {
            ((unsigned char *)(void *)buf)[0] = 0xEE; /* the CLC's own buffer, about to be sent */
            done = 1;
        }
    }
    return real(buf, count, type, dest, tag, comm, req);
}
