/*
 * nodeid.h — which machine (boot of a machine) this process runs on.
 *
 *  st_boot_id():       the kernel's boot id (/proc/sys/kernel/random/boot_id), a new one at every
 *                      boot, without its newline, into buf; 0, or -1 when it cannot be read or does
 *                      not fit.
 *  st_node_identity(): a number equal on the processes of one shared-memory node (its host name and
 *                      boot id) and, but for a hash collision, different elsewhere.
 */
#ifndef ST_NODEID_H
#define ST_NODEID_H

#include <stddef.h>
#include <stdint.h>

int st_boot_id(char *buf, size_t len);
uint64_t st_node_identity(void);

#endif
