/*
 * trace_check.h — invariants of a rank's trace, verified before it is written when
 * SYNCTRACE_CHECK=1 (and always in the tests): per location, time never decreases and
 * ENTER/LEAVE are properly nested (every LEAVE closes the innermost open region).
 * Regions still open at the end are allowed only in incomplete runs. MPI-free.
 */
#ifndef ST_TRACE_CHECK_H
#define ST_TRACE_CHECK_H

#include <stddef.h>

#include "rankdata.h"

/*
 * Checks every location of rd; reports the first few problems with st_log_warn (naming
 * rank, thread, event index and what is wrong) and returns how many it found.
 */
size_t st_trace_check(const st_rankdata_t *rd);

#endif
