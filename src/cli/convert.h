/*
 * convert.h — a loaded archive (archive.h) turned back into the rank data the shim
 * hands to its CLC and OTF2 writer (src/model/rankdata.h), one st_rankdata_t per rank,
 * one thread per location in archive order, events 1:1 with the archive's. With it the
 * CLI derives logical messages with the shim's code (src/relations/derive.c): `synctrace clc`
 * corrects and writes it back, `synctrace check` counts violated relations.
 */
#ifndef ST_CLI_CONVERT_H
#define ST_CLI_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "../relations/relations.h"
#include "../model/rankdata.h"
#include "cli.h"

typedef struct st_cli_ranks {
    int32_t        nranks;
    st_rankdata_t *rd;    /* [nranks], by world rank */
    uint64_t      *scale; /* [nranks] factor request ids were scaled by to rebuild the receive post
                             order of an archive that does not store it; 0: not scaled */
} st_cli_ranks_t;

#define ST_CLI_CONV_RAW   0x1u /* event times: before CLC (synctrace:orig_time), else as written */
#define ST_CLI_CONV_CHECK 0x2u /* for reading only: regions this build does not know get id
                                  ST_REGION__COUNT and records synctrace does not write become
                                  LEAVEs of it (events stay 1:1, no relation comes from them)
                                  instead of failing; node names not read */

/* Converts ar. Returns 0, or -1 with a one-line reason in err ("rank 1 thread 0: an
 * OpenMP team event without synctrace:parallel_id"); *out is then empty. Free with
 * st_cli_ranks_free(). Not thread-safe. */
int st_cli_convert(const st_cli_archive_t *ar, unsigned flags, st_cli_ranks_t *out, char *err, size_t errlen);

/* Request ids back to the archive's (after CLC, before writing). */
void st_cli_ranks_unscale(st_cli_ranks_t *r);

void st_cli_ranks_free(st_cli_ranks_t *r);

#endif
