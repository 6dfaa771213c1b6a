/*
 * source.h — where the call paths' functions lie in the source (SYNCTRACE_CALLPATH): for the
 * cnodes of analysis.json and analysis.cubex (CUBE: cnode line and mod, region mod).
 *
 * A table of frames keyed by their function path ("main/exchange/late_sender_victim": the
 * functions from the outermost frame down to the frame) with the file and line of the call the
 * frame made (its call-site text, model/callpath.h), as Score-P's calling contexts carry it.
 * The analysis merges frames of one function called from different lines into one cnode
 * (analysis.h); such a path keeps its file with line 0 (unknown), or no file when even the
 * files differ. Adding frames is order-independent, so tables built from disjoint sets of
 * ranks merge into the table of all of them: serial, parallel offline and in-run analyses write
 * the same lines. MPI-free.
 */
#ifndef ST_AN_SOURCE_H
#define ST_AN_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "../relations/relations.h"

typedef struct st_an_frame_src {
    char    *path; /* owned */
    char    *file; /* owned; "": unknown or not the same in every frame */
    uint32_t line; /* 0: unknown or not the same in every frame */
    uint32_t fn_begin, fn_end; /* lines where the frame's function begins and ends (0: unknown or not the
                                * same in every frame) */
} st_an_frame_src_t;

typedef struct st_an_src {
    size_t             n, cap;
    st_an_frame_src_t *v; /* once st_an_src_seal ran: sorted by path, one per path */
    int                sealed;
} st_an_src_t;

/* Adds the frames of every rank's call tree in procs[0..nprocs). 0, or -1 (memory). */
int st_an_src_add_procs(st_an_src_t *s, const st_rel_proc_t *procs, int32_t nprocs);

/* The table as text ("path\tfile\tline\tfn_begin\tfn_end\n" per frame; malloc'd), for shipping between processes. 0 or -1. */
int st_an_src_pack(const st_an_src_t *s, char **buf, size_t *len);
/* Adds the frames of a packed table. 0, or -1 (malformed or memory). */
int st_an_src_unpack(st_an_src_t *s, const char *buf, size_t len);

/* Sorts the table and merges the frames of each path, for the lookups below (after the last add). */
void st_an_src_seal(st_an_src_t *s);

/* The frame of function path path (not NUL-terminated: len bytes), NULL if none. Sealed table. */
const st_an_frame_src_t *st_an_src_find(const st_an_src_t *s, const char *path, size_t len);

/* The file every frame of function func lies in, NULL if not known or not the same; *begin and *end:
 * the lines where it begins and ends, 0 if not known or not the same in every frame. Sealed table. */
const char *st_an_src_func(const st_an_src_t *s, const char *func, uint32_t *begin, uint32_t *end);

void st_an_src_free(st_an_src_t *s);

#endif
