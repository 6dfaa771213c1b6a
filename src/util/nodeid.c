/* nodeid.c — this machine's identity (nodeid.h): FNV-1a of the host name, then of the boot id. */
#include "nodeid.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fnv.h"

int st_boot_id(char *buf, size_t len)
{
    if (len < 2)
        return -1;
    buf[0] = 0;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    size_t n = ok ? strcspn(buf, "\n") : 0;
    if (!ok || n == 0 || (buf[n] != '\n' && n == len - 1)) { /* none, or cut short */
        buf[0] = 0;
        return -1;
    }
    buf[n] = 0;
    return 0;
}

uint64_t st_node_identity(void)
{
    char host[256] = "", boot[64];
    gethostname(host, sizeof host - 1);
    st_boot_id(boot, sizeof boot);
    return st_fnv1a(st_fnv1a_str(host), boot, strlen(boot));
}
