/*
 * convert_rebuild.h — the fields of a converted rank (convert.c) that its archive does not
 * store, rebuilt from its other events (convert_rebuild.c says how). Internal to the CLI.
 */
#ifndef ST_CLI_CONVERT_REBUILD_H
#define ST_CLI_CONVERT_REBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "../model/rankdata.h"

/*
 * Receive post order of an archive without synctrace:post_id: request ids x K, a blocking
 * receive between its thread's neighbours; *scale = K. 0, or -1 with the reason in err
 * (request ids too large to scale).
 */
int st_cli_rebuild_post_ids(st_rankdata_t *rd, uint64_t *scale, char *err, size_t errlen);

/* Request ids back to the archive's; the rebuilt receive ids have no place among them:
 * 0 (unknown), so that the writer stores no post id for them. K = 0: nothing was scaled. */
void st_cli_unscale_ids(st_rankdata_t *rd, uint64_t K);

/* Collective instance numbers per communicator, in the order the shim drew them (an archive
 * without synctrace:coll_seq). 0, or -1 when out of memory. */
int st_cli_rebuild_coll_seqs(st_rankdata_t *rd);

/* OpenMP task ids from the (team, creator, generation) the converted task events carry in
 * (comm, tag, bytes2), which are cleared; a switch's aux = the task left. 0, or -1 when out of memory. */
int st_cli_rebuild_task_ids(st_rankdata_t *rd);

#endif
