/* callpath.c — call-path helpers shared by the shim, the OTF2 writer and the CLI (see callpath.h). */
#include "callpath.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy(char *dst, size_t n, const char *s, size_t len)
{
    if (!n)
        return;
    len = len < n - 1 ? len : n - 1;
    memcpy(dst, s, len);
    dst[len] = 0;
}

void st_callpath_split(const char *text, char *func, size_t nfunc, char *file, size_t nfile, uint32_t *line)
{
    const char *paren = strstr(text, " (");
    size_t flen = paren ? (size_t)(paren - text) : strlen(text);
    const char *off = strstr(text, "+0x");
    if (off && off < text + flen && off > text)
        flen = (size_t)(off - text);
    copy(func, nfunc, text, flen);
    copy(file, nfile, "", 0);
    *line = 0;
    if (!paren)
        return;
    const char *in = paren + 2, *end = strrchr(in, ')');
    const char *colon = end ? memrchr(in, ':', (size_t)(end - in)) : NULL;
    if (!colon)
        return;
    char *num_end;
    unsigned long v = strtoul(colon + 1, &num_end, 10);
    if (num_end == colon + 1 || num_end != end || v > UINT32_MAX)
        return;
    copy(file, nfile, in, (size_t)(colon - in));
    *line = (uint32_t)v;
}
