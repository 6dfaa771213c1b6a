/* names.c — printable names of collective operations, for every command. */
#include "archive.h"

/* In OTF2_CollectiveOp order (OTF2_Events.h). */
static const char *const ops[] = {
    "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv",
    "alltoall", "alltoallv", "alltoallw", "allreduce", "reduce", "reduce_scatter", "scan",
    "exscan", "reduce_scatter_block", "create_handle", "destroy_handle", "allocate",
    "deallocate", "create_handle_and_allocate", "destroy_handle_and_deallocate",
};

const char *st_cli_op_name(unsigned op)
{
    return op < sizeof ops / sizeof *ops ? ops[op] : "?";
}
