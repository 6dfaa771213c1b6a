/* nodeid.c — this machine's identity (nodeid.h): FNV-1a of the host name, then of the boot id. */
#include "nodeid.h"

#include <stdio.h>
#include <unistd.h>

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

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
    return fnv1a(fnv1a(14695981039346656037ull, host), boot);
}
