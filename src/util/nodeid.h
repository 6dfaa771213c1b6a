/*
 * nodeid.h — which shared-memory node this process runs on, as a number equal on the processes of
 * one machine (its host name and boot id) and, but for a hash collision, different elsewhere.
 */
#ifndef ST_NODEID_H
#define ST_NODEID_H

#include <stdint.h>

uint64_t st_node_identity(void);

#endif
