/* addr2line.c — code addresses to source lines through addr2line (see addr2line.h). */
#include "addr2line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Addresses per addr2line run: long enough to pay its start-up (DWARF parsing) once, short for the command line. */
#define A2L_BATCH 256

int st_object_fixed(const char *path)
{
    unsigned char hdr[18];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(hdr, 1, sizeof hdr, f) : 0;
    if (f)
        fclose(f);
    return n == sizeof hdr && hdr[16] == 2 /* ET_EXEC (little endian) */;
}

/*
 * One run per object instead of one per address: the DWARF of a large code is parsed once
 * (SYNCTRACE_CALLSITE=1 on LULESH added about 10 s at finalize with one run per address).
 */
void st_addr2line(const char *obj, st_a2l_t *const *q, size_t n)
{
    if (strchr(obj, '\'') || strlen(obj) > 4000)
        return;
    char *cmd = malloc(4200 + A2L_BATCH * 20);
    if (!cmd)
        return;
    for (size_t b = 0; b < n; b += A2L_BATCH) {
        size_t m = n - b < A2L_BATCH ? n - b : A2L_BATCH;
        int len = snprintf(cmd, 4200, "addr2line -f -C -e '%s'", obj);
        for (size_t i = 0; i < m; i++)
            len += snprintf(cmd + len, 20, " 0x%lx", (unsigned long)q[b + i]->rel);
        snprintf(cmd + len, 20, " 2>/dev/null");
        FILE *p = popen(cmd, "r");
        if (!p)
            break;
        for (size_t i = 0; i < m; i++) {
            st_a2l_t *s = q[b + i];
            if (!fgets(s->func, sizeof s->func, p) || !fgets(s->loc, sizeof s->loc, p)) {
                s->func[0] = s->loc[0] = 0;
                break;
            }
            s->func[strcspn(s->func, "\n")] = 0;
            s->loc[strcspn(s->loc, "\n")] = 0;
            char *d = strstr(s->loc, " (discriminator"); /* drop " (discriminator N)" */
            if (d)
                *d = 0;
        }
        pclose(p);
    }
    free(cmd);
}

int st_a2l_text(const st_a2l_t *q, char *out, size_t len)
{
    if (!q->func[0] || !strcmp(q->func, "??"))
        return -1;
    const char *slash = strrchr(q->loc, '/');
    if (q->loc[0] && strncmp(q->loc, "??", 2) != 0)
        snprintf(out, len, "%s (%s)", q->func, slash ? slash + 1 : q->loc);
    else
        snprintf(out, len, "%s", q->func);
    return 0;
}
