/* nodeid.c — this machine's identity (nodeid.h): FNV-1a of the host name, then of the boot id. */
#include "nodeid.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fnv.h"

uint64_t st_node_identity(void)
{
    char host[256] = "", boot[64] = "";
    gethostname(host, sizeof host - 1);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = 0;
        fclose(f);
    }
    return st_fnv1a(st_fnv1a(ST_FNV_BASIS, host, strlen(host)), boot, strlen(boot));
}
