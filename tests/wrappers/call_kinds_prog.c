/*
 * call_kinds_prog.c — prints, for every MPI region, what the wait-state analysis makes of it
 * (src/analysis/call_kinds.c compiled against a generated mpi_calls.def): one line
 * "NAME KIND CATEGORY" with the lower-case words of the wrapper table. Built by t_gen.sh.
 */
#include <stdio.h>

#include "analysis/call_kinds.h"
#include "model/region.h"

static const char *const kind_words[] = { "none", "send_blocking", "wait_one", "wait_many", "test" };
static const char *const category_words[] = { "none",      "init_exit", "mgmt_comm",  "mgmt_win",   "mgmt_file",
                                              "io_coll",   "io_indiv",  "rma_active", "rma_passive", "rma_comm" };

int main(void)
{
    for (uint32_t r = 0; r < ST_REGION__COUNT; r++)
        if (st_region_info(r)->paradigm == ST_PARADIGM_MPI)
            printf("%s %s %s\n", st_region_info(r)->name, kind_words[an_call_kind(r)],
                   category_words[an_call_category(r)]);
    return 0;
}
