/* names.c — printable names of event kinds and collective operations, for every command. */
#include "archive.h"

static const char *const extra_kinds[] = {
    [ST_CLI_EV_BUFFER_FLUSH - ST_EV__COUNT] = "buffer_flush",
    [ST_CLI_EV_MEASUREMENT - ST_EV__COUNT] = "measurement_on_off",
    [ST_CLI_EV_PROGRAM_BEGIN - ST_EV__COUNT] = "program_begin",
    [ST_CLI_EV_PROGRAM_END - ST_EV__COUNT] = "program_end",
    [ST_CLI_EV_REQUEST_TEST - ST_EV__COUNT] = "request_test",
};

const char *st_cli_kind_name(unsigned kind)
{
    if (kind < ST_EV__COUNT)
        return st_event_kind_name(kind);
    return kind < ST_CLI_EV__COUNT ? extra_kinds[kind - ST_EV__COUNT] : "?";
}

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
