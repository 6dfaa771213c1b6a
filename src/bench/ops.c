/* ops.c — the collectives synctrace-bench measures, their buffers and one call of each. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

const bench_op_t bench_ops[BENCH_NOPS] = {
    [BENCH_ALLREDUCE] = { "allreduce", 1, 1 },
    [BENCH_BCAST] = { "bcast", 0, 1 },
    [BENCH_REDUCE] = { "reduce", 1, 1 },
    [BENCH_ALLGATHER] = { "allgather", 0, 1 },
    [BENCH_ALLTOALL] = { "alltoall", 0, 1 },
    [BENCH_GATHER] = { "gather", 0, 1 },
    [BENCH_SCATTER] = { "scatter", 0, 1 },
    [BENCH_REDUCE_SCATTER_BLOCK] = { "reduce_scatter_block", 1, 1 },
    [BENCH_SCAN] = { "scan", 1, 1 },
    [BENCH_BARRIER] = { "barrier", 0, 0 },
};

int bench_op_find(const char *name)
{
    for (int i = 0; i < BENCH_NOPS; i++)
        if (strcmp(bench_ops[i].name, name) == 0)
            return i;
    return -1;
}

/* Operations whose send or receive buffer holds one block per rank. */
static int per_rank_blocks(bench_op_id_t op)
{
    return op == BENCH_ALLGATHER || op == BENCH_ALLTOALL || op == BENCH_GATHER || op == BENCH_SCATTER ||
           op == BENCH_REDUCE_SCATTER_BLOCK;
}

int bench_call_prepare(bench_call_t *c, bench_op_id_t op, size_t bytes, MPI_Comm comm)
{
    int nranks;
    PMPI_Comm_size(comm, &nranks);
    memset(c, 0, sizeof *c);
    c->op = op;
    c->comm = comm;
    c->type = bench_ops[op].reduces ? MPI_DOUBLE : MPI_BYTE;
    size_t elem = bench_ops[op].reduces ? sizeof(double) : 1;
    c->count = bench_ops[op].sized ? (int)(bytes / elem > 0 ? bytes / elem : 1) : 0;
    c->bytes = (size_t)c->count * elem;
    size_t len = c->bytes * (per_rank_blocks(op) ? (size_t)nranks : 1);
    c->sbuf = calloc(len ? len : 1, 1); /* zeros: a sum of zeros stays finite */
    c->rbuf = calloc(len ? len : 1, 1);
    if (!c->sbuf || !c->rbuf) {
        bench_call_free(c);
        return -1;
    }
    return 0;
}

void bench_call_free(bench_call_t *c)
{
    free(c->sbuf);
    free(c->rbuf);
    c->sbuf = c->rbuf = NULL;
}

int bench_call_run(const bench_call_t *c)
{
    void *s = c->sbuf, *r = c->rbuf;
    int n = c->count;
    MPI_Datatype t = c->type;
    switch (c->op) {
    case BENCH_ALLREDUCE: return PMPI_Allreduce(s, r, n, t, MPI_SUM, c->comm);
    case BENCH_BCAST: return PMPI_Bcast(s, n, t, 0, c->comm);
    case BENCH_REDUCE: return PMPI_Reduce(s, r, n, t, MPI_SUM, 0, c->comm);
    case BENCH_ALLGATHER: return PMPI_Allgather(s, n, t, r, n, t, c->comm);
    case BENCH_ALLTOALL: return PMPI_Alltoall(s, n, t, r, n, t, c->comm);
    case BENCH_GATHER: return PMPI_Gather(s, n, t, r, n, t, 0, c->comm);
    case BENCH_SCATTER: return PMPI_Scatter(s, n, t, r, n, t, 0, c->comm);
    case BENCH_REDUCE_SCATTER_BLOCK: return PMPI_Reduce_scatter_block(s, r, n, t, MPI_SUM, c->comm);
    case BENCH_SCAN: return PMPI_Scan(s, r, n, t, MPI_SUM, c->comm);
    case BENCH_BARRIER: return PMPI_Barrier(c->comm);
    case BENCH_NOPS: break;
    }
    return MPI_ERR_OTHER;
}
