/* abend_frames.c — see abend_frames.h. Everything but st_abend_frames_init is async-signal-safe. */
#include "abend_frames.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../record/unwind.h"

#define MAPS_BYTES (512u << 10) /* /proc/self/maps of a large MPI process: tens of KiB */
#define MAPS_MAX   8192         /* mappings kept */
#define TEXT_BYTES (2 * MAPS_BYTES + MAPS_MAX * 64u) /* per object "@BASE PATH", per code mapping "@map ..." */

typedef struct mapping {
    uint64_t start, end, offset;
    int exec;         /* mapped executable: call sites lie here */
    const char *path; /* into maps_text; "" for anonymous memory */
    const char *text; /* "@BASE PATH" of its object, built on first use */
} mapping_t;

static char *maps_text, *texts;
static mapping_t *maps;
static st_callsite_t *sites;
static size_t nmaps, text_used;

int st_abend_frames_init(void)
{
    maps_text = malloc(MAPS_BYTES);
    texts = malloc(TEXT_BYTES);
    maps = malloc(MAPS_MAX * sizeof *maps);
    sites = malloc((ST_CALLPATH_MAX_NODES + MAPS_MAX) * sizeof *sites);
    if (maps_text && texts && maps && sites)
        return 0;
    free(maps_text), free(texts), free(maps), free(sites);
    maps_text = texts = NULL, maps = NULL, sites = NULL;
    return -1;
}

/* ==== handler side ============================================================================ */

static uint64_t hex(const char **p)
{
    uint64_t v = 0;
    for (;; (*p)++) {
        char c = **p;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return v;
        v = v * 16 + (uint64_t)d;
    }
}

/* One line "start-end perms offset dev inode   path" (NUL-terminated) into maps[nmaps]. */
static void parse_line(char *line)
{
    const char *p = line;
    mapping_t m = { .path = "" };
    m.start = hex(&p);
    if (*p++ != '-')
        return;
    m.end = hex(&p);
    while (*p == ' ')
        p++;
    m.exec = p[0] && p[1] && p[2] == 'x'; /* perms "r-xp" */
    while (*p && *p != ' ')
        p++;
    while (*p == ' ')
        p++;
    m.offset = hex(&p);
    for (int field = 0; field < 2; field++) { /* dev, inode */
        while (*p == ' ')
            p++;
        while (*p && *p != ' ')
            p++;
    }
    while (*p == ' ')
        p++;
    if (*p == '/')
        m.path = p;
    if (nmaps < MAPS_MAX)
        maps[nmaps++] = m;
}

static void read_maps(void)
{
    nmaps = 0;
    text_used = 0;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t len = 0;
    for (ssize_t r; len < MAPS_BYTES - 1 && (r = read(fd, maps_text + len, MAPS_BYTES - 1 - len)) != 0;) {
        if (r < 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    maps_text[len] = 0;
    for (char *line = maps_text, *nl; *line; line = nl + 1) {
        if (!(nl = strchr(line, '\n')))
            break; /* cut off: a partial last line is no mapping */
        *nl = 0;
        parse_line(line);
    }
}

/* The mapping holding address at (maps are sorted by address), NULL if none. */
static mapping_t *find(uint64_t at)
{
    size_t lo = 0, hi = nmaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (at < maps[mid].start)
            hi = mid;
        else if (at >= maps[mid].end)
            lo = mid + 1;
        else
            return &maps[mid];
    }
    return NULL;
}

static void put_hex(char *out, size_t *n, uint64_t v)
{
    char tmp[16];
    int k = 0;
    do
        tmp[k++] = "0123456789abcdef"[v & 15];
    while ((v >>= 4));
    while (k)
        out[(*n)++] = tmp[--k];
}

/* The lowest mapping of m's object: its load base is where that one (file offset 0 there) sits. */
static mapping_t *first_of(mapping_t *m)
{
    while (m > maps && !strcmp(m[-1].path, m->path))
        m--;
    return m;
}

/* prefix, then the numbers in hex each followed by a space, then path, into the text arena; NULL if full. */
static const char *new_text(const char *prefix, const uint64_t *num, int nnum, const char *path)
{
    size_t plen = strlen(path);
    if (text_used + strlen(prefix) + (size_t)nnum * 17 + plen + 1 > TEXT_BYTES)
        return NULL;
    char *t = texts + text_used;
    size_t n = strlen(prefix);
    memcpy(t, prefix, n);
    for (int i = 0; i < nnum; i++) {
        put_hex(t, &n, num[i]);
        t[n++] = ' ';
    }
    memcpy(t + n, path, plen + 1);
    text_used += n + plen + 1;
    return t;
}

/* "@BASE PATH" of m's object. */
static const char *object_text(mapping_t *m)
{
    mapping_t *first = first_of(m);
    uint64_t base = first->start - first->offset;
    if (!first->text)
        first->text = new_text("@", &base, 1, m->path);
    return first->text;
}

void st_abend_frames(st_rankdata_t *kit)
{
    uint32_t n;
    const st_cpnode_t *nodes = st_callpath_nodes(&n);
    if (!sites)
        return;
    read_maps();
    for (size_t i = 0; i < nmaps; i++)
        maps[i].text = NULL;
    for (uint32_t i = 0; i < n; i++) {
        mapping_t *m = find(nodes[i].pc - 1); /* inside the call instruction */
        const char *text = m && m->path[0] ? object_text(m) : NULL;
        sites[i] = (st_callsite_t){ .pc = nodes[i].pc, .text = (char *)(text ? text : "") };
    }
    uint32_t k = n;
    for (size_t i = 0; i < nmaps; i++) {
        if (!maps[i].exec || !maps[i].path[0])
            continue;
        mapping_t *first = first_of(&maps[i]);
        uint64_t num[3] = { maps[i].start, maps[i].end, first->start - first->offset };
        const char *text = new_text("@map ", num, 3, maps[i].path);
        if (text)
            sites[k] = (st_callsite_t){ .pc = ST_FRAME_MAP_PC | k, .text = (char *)text }, k++;
    }
    kit->cpnodes = n ? (st_cpnode_t *)nodes : NULL;
    kit->ncpnodes = n;
    kit->callsites = sites;
    kit->ncallsites = k;
}
