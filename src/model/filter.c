/*
 * filter.c — the filter file parser (filter.h): tokens, Score-P's blocks, rules applied to every
 * region name in order (the later rule wins), then the check against st_region_unfilterable().
 */
#include "filter.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fnv.h"

#define ACCEPTED "accepted: EXCLUDE or INCLUDE followed by region name patterns (* and ? wildcards), " \
                 "# comments, optionally inside SCOREP_REGION_NAMES_BEGIN/END (docs/filter.md)"
#define MAX_FILE_BYTES (1u << 20)
#define MAX_PATTERN 255
#define NAMED_CALLS 3 /* calls named in the refusal of unfilterable regions */

enum keyword {
    K_NONE, K_EXCLUDE, K_INCLUDE, K_MANGLED, K_DEMANGLED,
    K_SCOREP_BEGIN, K_SCOREP_END, K_SYNCTRACE_BEGIN, K_SYNCTRACE_END, K_FILES_BEGIN, K_FILES_END
};

static const struct { const char *word; enum keyword k; } keywords[] = {
    { "EXCLUDE", K_EXCLUDE }, { "INCLUDE", K_INCLUDE }, { "MANGLED", K_MANGLED }, { "DEMANGLED", K_DEMANGLED },
    { "SCOREP_REGION_NAMES_BEGIN", K_SCOREP_BEGIN }, { "SCOREP_REGION_NAMES_END", K_SCOREP_END },
    { "SYNCTRACE_REGION_NAMES_BEGIN", K_SYNCTRACE_BEGIN }, { "SYNCTRACE_REGION_NAMES_END", K_SYNCTRACE_END },
    { "SCOREP_FILE_NAMES_BEGIN", K_FILES_BEGIN }, { "SCOREP_FILE_NAMES_END", K_FILES_END },
};

typedef struct parser {
    st_filter_t *f;
    const char *name;
    char *err;
    size_t errlen;
    enum keyword block;     /* the BEGIN of the open block, K_NONE outside blocks */
    unsigned block_line;
    enum keyword rule;      /* K_EXCLUDE, K_INCLUDE, or K_NONE before the first rule of a block */
    unsigned rule_line;
    unsigned rule_patterns; /* patterns of the current rule so far */
    uint32_t decided[ST_REGION__COUNT]; /* the line of the rule that decided each region, 0: none */
} parser_t;

/* Token t (n bytes) for a message: at most 60 bytes, control bytes as '?'. */
static void quote(const char *t, size_t n, char *out, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < len && i < 60; i++)
        out[o++] = (unsigned char)t[i] < 0x20 || t[i] == 0x7f ? '?' : t[i];
    if (n > 60 && o + 4 < len)
        out[o++] = '.', out[o++] = '.', out[o++] = '.';
    out[o] = 0;
}

__attribute__((format(printf, 3, 4))) static int fail(parser_t *p, unsigned line, const char *fmt, ...)
{
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s:%u: %s; " ACCEPTED, p->name, line, what);
    return -1;
}

static enum keyword keyword_of(const char *t, size_t n)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strlen(keywords[i].word) == n && !memcmp(keywords[i].word, t, n))
            return keywords[i].k;
    return K_NONE;
}

/* Nonzero for a word that looks like a misspelt keyword rather than a region name: 2 for a keyword
 * in the wrong case ("exclude"). */
static int near_keyword(const char *t, size_t n, int first_on_line)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strlen(keywords[i].word) == n && !strncasecmp(keywords[i].word, t, n))
            return 2;
    if ((n > 7 && !memcmp(t, "SCOREP_", 7)) || (n > 10 && !memcmp(t, "SYNCTRACE_", 10)))
        return 1;
    if (!first_on_line || n < 2)
        return 0;
    for (size_t i = 0; i < n; i++) /* "INCLDUE" at the start of a line: capitals only */
        if (t[i] < 'A' || t[i] > 'Z')
            return 0;
    return 1;
}

/* The current rule must have had a pattern before the next keyword or the end. */
static int end_rule(parser_t *p)
{
    if (p->rule != K_NONE && !p->rule_patterns)
        return fail(p, p->rule_line, "%s without a pattern", p->rule == K_EXCLUDE ? "EXCLUDE" : "INCLUDE");
    p->rule = K_NONE;
    return 0;
}

static const char *block_word(enum keyword k)
{
    return k == K_SCOREP_BEGIN ? "SCOREP_REGION_NAMES_BEGIN"
         : k == K_SYNCTRACE_BEGIN ? "SYNCTRACE_REGION_NAMES_BEGIN" : "SCOREP_FILE_NAMES_BEGIN";
}

static int on_keyword(parser_t *p, enum keyword k, unsigned line)
{
    switch (k) {
    case K_EXCLUDE:
    case K_INCLUDE:
        if (end_rule(p) != 0)
            return -1;
        p->rule = k, p->rule_line = line, p->rule_patterns = 0;
        return 0;
    case K_MANGLED:
    case K_DEMANGLED:
        if (p->rule == K_NONE || p->rule_patterns)
            return fail(p, line, "%s must follow EXCLUDE or INCLUDE directly", k == K_MANGLED ? "MANGLED" : "DEMANGLED");
        return 0; /* region names are C names: mangled and demangled alike */
    case K_SCOREP_BEGIN:
    case K_SYNCTRACE_BEGIN:
    case K_FILES_BEGIN:
        if (end_rule(p) != 0)
            return -1;
        if (p->block != K_NONE)
            return fail(p, line, "%s inside the %s block of line %u", block_word(k), block_word(p->block), p->block_line);
        p->block = k, p->block_line = line;
        return 0;
    case K_SCOREP_END:
    case K_SYNCTRACE_END:
    case K_FILES_END:
        if (end_rule(p) != 0)
            return -1;
        if (p->block != k - 1) { /* each END follows its BEGIN in the enum */
            const char *end = k == K_SCOREP_END ? "SCOREP_REGION_NAMES_END"
                            : k == K_SYNCTRACE_END ? "SYNCTRACE_REGION_NAMES_END" : "SCOREP_FILE_NAMES_END";
            if (p->block == K_NONE)
                return fail(p, line, "%s without its BEGIN", end);
            return fail(p, line, "%s closes the %s block of line %u", end, block_word(p->block), p->block_line);
        }
        p->block = K_NONE;
        return 0;
    case K_NONE:
        break;
    }
    return 0;
}

/* Applies one pattern of the current rule to every region name (none in a file-names block). */
static int on_pattern(parser_t *p, const char *t, size_t n, unsigned line)
{
    char q[80];
    quote(t, n, q, sizeof q);
    if (p->rule == K_NONE)
        return fail(p, line, "'%s' outside a rule (a rule starts with EXCLUDE or INCLUDE)", q);
    if (n > MAX_PATTERN)
        return fail(p, line, "a pattern longer than %u characters", MAX_PATTERN);
    p->rule_patterns++;
    if (p->block == K_FILES_BEGIN)
        return 0; /* source file names: synctrace's regions have none */
    char pat[MAX_PATTERN + 1];
    memcpy(pat, t, n);
    pat[n] = 0;
    for (st_region_t r = 1; r < ST_REGION__COUNT; r++) { /* 0 is synctrace:none, no region of a trace */
        if (fnmatch(pat, st_region_info(r)->name, 0) == 0) {
            p->f->excluded[r] = p->rule == K_EXCLUDE;
            p->decided[r] = line;
        }
    }
    return 0;
}

/* One line's tokens (comment already cut). */
static int parse_line(parser_t *p, const char *s, size_t len, unsigned line)
{
    size_t i = 0;
    int first = 1;
    for (;;) {
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f'))
            i++;
        if (i == len)
            return 0;
        size_t b = i;
        while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\v' && s[i] != '\f')
            i++;
        enum keyword k = keyword_of(s + b, i - b);
        int near = k == K_NONE ? near_keyword(s + b, i - b, first) : 0;
        if (k != K_NONE) {
            if (on_keyword(p, k, line) != 0)
                return -1;
        } else if (near) {
            char q[80];
            quote(s + b, i - b, q, sizeof q);
            return fail(p, line, "'%s' is not a keyword%s", q, near == 2 ? " (keywords are upper case)" : "");
        } else if (on_pattern(p, s + b, i - b, line) != 0) {
            return -1;
        }
        first = 0;
    }
}

/* Keeps line s (len bytes, comment cut) as a rule line unless it is blank: trimmed, cut to fit. */
static void keep_rule(st_filter_t *f, const char *s, size_t len)
{
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    if (!len)
        return;
    if (f->n_rules < ST_FILTER_MAX_RULES) {
        size_t n = len < ST_FILTER_RULE_LEN - 1 ? len : ST_FILTER_RULE_LEN - 1;
        memcpy(f->rule[f->n_rules], s, n);
        f->rule[f->n_rules][n] = 0;
    }
    f->n_rules++;
}

/* The refusal of a file that would exclude unfilterable regions, or 0 when it excludes none. */
static int check_unfilterable(parser_t *p)
{
    char names[400] = "";
    size_t o = 0;
    unsigned count = 0, line = 0;
    const char *last_why = NULL;
    for (st_region_t r = 1; r < ST_REGION__COUNT; r++) {
        const char *why = p->f->excluded[r] ? st_region_unfilterable(r) : NULL;
        if (!why)
            continue;
        if (count++ == 0)
            line = p->decided[r];
        if (count > NAMED_CALLS)
            continue;
        if (last_why && strcmp(why, last_why) != 0) /* the previous names' reason, once for all of them */
            o += (size_t)snprintf(names + o, sizeof names - o, " (%s)", last_why);
        if (o < sizeof names)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", count > 1 ? ", " : "", st_region_info(r)->name);
        last_why = why;
        if (o >= sizeof names)
            o = sizeof names - 1;
    }
    if (!count)
        return 0;
    if (o < sizeof names)
        o += (size_t)snprintf(names + o, sizeof names - o, " (%s)", last_why);
    char more[40] = "";
    if (count > NAMED_CALLS)
        snprintf(more, sizeof more, " and %u more", count - NAMED_CALLS);
    snprintf(p->err, p->errlen, "%s:%u: excludes %u %s that cannot be filtered: %s%s; keep %s with a later INCLUDE "
             "rule or narrower patterns (docs/filter.md)", p->name, line, count, count > 1 ? "regions" : "region",
             names, more, count > 1 ? "them" : "it");
    return -1;
}

int st_filter_parse(st_filter_t *f, const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    parser_t *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "%s: out of memory reading the filter", name);
        return -1;
    }
    memset(f, 0, sizeof *f);
    *p = (parser_t){ .f = f, .name = name, .err = err, .errlen = errlen };
    int rc = 0;
    unsigned line = 0;
    f->digest = st_fnv1a(ST_FNV_BASIS, text, len), f->bytes = len;
    for (size_t at = 0; at < len && rc == 0;) {
        line++;
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *nul = memchr(text + at, 0, end - at);
        const char *hash = memchr(text + at, '#', end - at);
        size_t upto = (size_t)((hash ? hash - text : (ptrdiff_t)end) - (ptrdiff_t)at);
        if (nul)
            rc = fail(p, line, "a NUL byte (not a text file?)");
        else
            rc = parse_line(p, text + at, upto, line);
        if (rc == 0)
            keep_rule(f, text + at, upto);
        at = end + 1;
    }
    if (rc == 0)
        rc = end_rule(p);
    if (rc == 0 && p->block != K_NONE)
        rc = fail(p, p->block_line, "%s without its END", block_word(p->block));
    if (rc == 0)
        rc = check_unfilterable(p);
    for (st_region_t r = 0; r < ST_REGION__COUNT && rc == 0; r++)
        f->n_excluded += f->excluded[r];
    if (rc != 0)
        memset(f, 0, sizeof *f);
    free(p);
    return rc;
}

/* path as one printable line (control characters as \n, \xHH), cut to the buffer. */
static const char *shown(const char *path, char *buf, size_t len)
{
    size_t o = 0;
    for (const unsigned char *c = (const unsigned char *)path; *c && o + 5 < len; c++) {
        if (*c == '\n')
            o += (size_t)snprintf(buf + o, len - o, "\\n");
        else if (*c < 0x20 || *c == 0x7f)
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", *c);
        else
            buf[o++] = (char)*c;
    }
    buf[o] = 0;
    return buf;
}

int st_filter_read(st_filter_t *f, const char *file, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    char path[1024];
    shown(file, path, sizeof path);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot read the filter file %s: %s; accepted: a readable filter file (docs/filter.md)",
                 path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > (off_t)MAX_FILE_BYTES) {
        snprintf(err, errlen, "%s is %s; accepted: a filter file (docs/filter.md)", path,
                 S_ISREG(st.st_mode) ? "larger than 1 MiB" : "not a regular file");
        close(fd);
        return -1;
    }
    char *text = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (text && got < (size_t)st.st_size) {
        ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(err, errlen, "cannot read the filter file %s: %s", path, n < 0 ? strerror(errno) : "it shrank while read");
            free(text);
            close(fd);
            return -1;
        }
        got += (size_t)n;
    }
    close(fd);
    if (!text) {
        snprintf(err, errlen, "cannot read the filter file %s: out of memory", path);
        return -1;
    }
    int rc = st_filter_parse(f, path, text, got, err, errlen);
    free(text);
    return rc;
}
