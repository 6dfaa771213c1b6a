/*
 * filter.h — region filter files (SYNCTRACE_FILTER): which regions' calls are counted instead of
 * recorded.
 *
 * The syntax (docs/filter.md) is close to Score-P's filter files: `EXCLUDE pattern...` and
 * `INCLUDE pattern...` rules on region names as the trace shows them (MPI_Type_size), with fnmatch
 * wildcards (* ? [...]), `#` comments, patterns continued on the following lines, the later rule
 * winning; optionally inside SCOREP_REGION_NAMES_BEGIN/END or SYNCTRACE_REGION_NAMES_BEGIN/END, so
 * that a Score-P region filter is read as is. SCOREP_FILE_NAMES_BEGIN/END blocks are read and apply
 * to no region (synctrace's regions have no source file), MANGLED and DEMANGLED change nothing
 * (the names are C names). A file whose rules would exclude a region that st_region_unfilterable()
 * keeps is refused. Parsing allocates nothing but what it reads; MPI-free.
 */
#ifndef ST_FILTER_H
#define ST_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "region.h"

#define ST_FILTER_MAX_RULES 64  /* rule lines kept for the archive */
#define ST_FILTER_RULE_LEN  192 /* bytes kept of each, with its NUL */

/* What a filter file decides, and what the archive records of the file itself (it is read once). */
typedef struct st_filter {
    uint8_t  excluded[ST_REGION__COUNT]; /* 1: the region's calls are counted, not recorded */
    uint32_t n_excluded;                 /* regions excluded */
    uint64_t digest, bytes;              /* FNV-1a (64 bit) of the file's bytes, and their number */
    uint32_t n_rules;                    /* lines with something besides a comment */
    char     rule[ST_FILTER_MAX_RULES][ST_FILTER_RULE_LEN]; /* the first of them: comment cut, blanks trimmed */
} st_filter_t;

/*
 * Parses the len bytes of text, a filter file called name (for messages), into *f (its decisions,
 * digest and rule lines). Returns 0, or
 * -1 with *f excluding nothing and one line in err: "NAME:LINE: what is wrong; accepted: ..." for
 * a malformed file, "NAME:LINE: excludes calls that cannot be filtered: MPI_Send (why), ... and
 * N more; ..." (LINE: the rule that decided the first of them) when the final decision would
 * exclude a region st_region_unfilterable() keeps.
 */
int st_filter_parse(st_filter_t *f, const char *name, const char *text, size_t len, char *err, size_t errlen);

/* st_filter_parse on the contents of the file at path; an unreadable file, one that is not a
 * regular file or one larger than 1 MiB is -1 with one line naming it and why. */
int st_filter_read(st_filter_t *f, const char *path, char *err, size_t errlen);

#endif
