/*
 * corrupt.c — LD_PRELOAD test library (tests/clc/t_clc_abort.sh): corrupts the first message
 * the CLC engine of world rank CORRUPT_RANK sends at MPI_Finalize, so that its receiver fails
 * in the middle of the exchange. The shim calls PMPI_Isend_c for these messages (tag 7401, the
 * exchange layer's MPI transport, src/exchange/exchange_mpi.c); this library comes before it in LD_PRELOAD and
 * overwrites the record type (the first byte) with a value no record has. The parallel analysis
 * uses the same transport after CLC: with SYNCTRACE_CLC=off its first message is the one
 * corrupted (tests/analysis/t_analyze_inrun.sh).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>

#define CLC_TAG 7401

typedef int (*isend_c_t)(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

__attribute__((visibility("default"))) int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype type,
                                                        int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    static isend_c_t real;
    static int done;
    if (!real)
        real = (isend_c_t)dlsym(RTLD_NEXT, "PMPI_Isend_c");
    if (!done && tag == CLC_TAG && count > 0 && type == MPI_BYTE) {
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
