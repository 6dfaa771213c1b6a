/*
 * spec.c — parser of SYNCTRACE_SYNC (grammar in spec.h and docs/clock-sync.md).
 *
 * A small recursive-descent parser over the string; every failure produces one
 * line that quotes the value, points at the bad part and lists what is accepted.
 */
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *s;   /* whole value, for messages */
    const char *p;   /* cursor */
    const st_sync_alg_info_t *algs;
    char *err;
    size_t errlen;
} parser_t;

static const char *const scheme_names[] = { "none", "flat", "h2hca", "h3hca" };
static const int scheme_levels[] = { 0, 1, 2, 3 };
static const char *const default_levels[] = { "", "hca3", "hca3/prop", "hca3/hca3/prop" };

static int fail(parser_t *ps, const char *fmt, const char *what, const char *accepted)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, what);
    snprintf(ps->err, ps->errlen, "SYNCTRACE_SYNC='%s': %s; accepted: %s (see README: Clock synchronization)",
             ps->s, msg, accepted);
    return -1;
}

/* Reads [a-z0-9_]+ into buf; returns its length (0: none). */
static size_t ident(parser_t *ps, char *buf, size_t cap)
{
    size_t n = 0;
    while ((ps->p[n] >= 'a' && ps->p[n] <= 'z') || (ps->p[n] >= '0' && ps->p[n] <= '9') || ps->p[n] == '_') {
        if (n + 1 < cap)
            buf[n] = ps->p[n];
        n++;
    }
    buf[n < cap ? n : cap - 1] = 0;
    ps->p += n;
    return n;
}

static void alg_list(const st_sync_alg_info_t *algs, char *buf, size_t len)
{
    snprintf(buf, len, "none, flat, h2hca, h3hca, or levels ALG[/ALG[/ALG]] with ALG one of ");
    for (const st_sync_alg_info_t *a = algs; a->name; a++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", a == algs ? "" : ", ", a->name);
}

/* Is word one of the comma-separated options in list? */
static int has_option(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *q = list; q && *q;) {
        const char *c = strchr(q, ',');
        size_t l = c ? (size_t)(c - q) : strlen(q);
        if (l == n && !strncmp(q, word, n))
            return 1;
        q = c ? c + 1 : NULL;
    }
    return 0;
}

static int parse_int(parser_t *ps, const char *key, long lo, long hi, int *out)
{
    char *end;
    if (*ps->p < '0' || *ps->p > '9')
        goto bad;
    long v = strtol(ps->p, &end, 10);
    if (v < lo || v > hi)
        goto bad;
    *out = (int)v;
    ps->p = end;
    return 0;
bad:;
    char acc[96];
    snprintf(acc, sizeof acc, "%s=%ld..%ld", key, lo, hi);
    return fail(ps, "bad value for '%s'", key, acc);
}

static int parse_option(parser_t *ps, const st_sync_alg_info_t *alg, st_sync_level_spec_t *lv)
{
    char key[16], val[16];
    if (!ident(ps, key, sizeof key) || *ps->p != '=')
        return fail(ps, "expected option=value in '%s(...)'", lv->alg, alg->options);
    ps->p++;
    if (!has_option(alg->options, key))
        return fail(ps, "unknown option '%s'", key, alg->options);
    /* Bounded so that MPI_Init stays short: at most 100 fit points of 200 ping-pongs per pair and level. */
    if (!strcmp(key, "fit"))
        return parse_int(ps, key, 1, 100, &lv->nfit);
    if (!strcmp(key, "pp"))
        return parse_int(ps, key, 1, 200, &lv->npp);
    if (!strcmp(key, "intercept"))
        return parse_int(ps, key, 0, 1, &lv->intercept);
    if (!strcmp(key, "check"))
        return parse_int(ps, key, 0, 1, &lv->check);
    if (!strcmp(key, "lsq"))
        return parse_int(ps, key, 0, 1, &lv->lsq);
    if (!strcmp(key, "window")) {
        int ms;
        if (parse_int(ps, key, 0, 10000, &ms) != 0)
            return -1;
        lv->window_ms = ms;
        return 0;
    }
    if (!strcmp(key, "offset")) {
        ident(ps, val, sizeof val);
        if (!strcmp(val, "skampi"))
            return lv->offset = ST_OFFSET_SKAMPI, 0;
        if (!strcmp(val, "meanrtt"))
            return lv->offset = ST_OFFSET_MEANRTT, 0;
        return fail(ps, "bad value for '%s'", key, "offset=skampi|meanrtt");
    }
    return fail(ps, "option '%s' is not implemented", key, alg->options);
}

static int parse_level(parser_t *ps, st_sync_level_spec_t *lv)
{
    char name[32], acc[200];
    memset(lv, 0, sizeof *lv);
    lv->nfit = lv->npp = lv->offset = lv->intercept = lv->check = lv->lsq = -1;
    lv->window_ms = -1;
    const char *start = ps->p;
    ident(ps, name, sizeof name);
    const st_sync_alg_info_t *alg = ps->algs;
    while (alg->name && strcmp(alg->name, name))
        alg++;
    alg_list(ps->algs, acc, sizeof acc);
    if (!alg->name) {
        char bad[32];
        size_t n = strcspn(start, "(/:");
        snprintf(bad, sizeof bad, "%.*s", (int)(n < 31 ? n : 31), start);
        return fail(ps, "unknown algorithm '%s'", bad, acc);
    }
    snprintf(lv->alg, sizeof lv->alg, "%s", name);
    if (*ps->p != '(')
        return 0;
    ps->p++;
    for (;;) {
        if (parse_option(ps, alg, lv) != 0)
            return -1;
        if (*ps->p == ',') {
            ps->p++;
            continue;
        }
        if (*ps->p == ')') {
            ps->p++;
            return 0;
        }
        return fail(ps, "expected ',' or ')' after the options of '%s'", lv->alg, alg->options);
    }
}

static int parse_levels(parser_t *ps, st_sync_spec_t *out)
{
    out->nlevels = 0;
    for (;;) {
        if (out->nlevels == ST_SYNC_MAX_LEVELS)
            return fail(ps, "more than %s levels", "3", "1 to 3 levels separated by '/'");
        if (parse_level(ps, &out->level[out->nlevels]) != 0)
            return -1;
        out->nlevels++;
        if (*ps->p != '/')
            return 0;
        ps->p++;
    }
}

static int parse_scheme_opts(parser_t *ps, st_sync_spec_t *out)
{
    char key[16], val[16];
    ps->p++; /* '(' */
    if (!ident(ps, key, sizeof key) || strcmp(key, "resync") || *ps->p != '=')
        return fail(ps, "unknown scheme option '%s'", key, "resync=offset|full");
    ps->p++;
    ident(ps, val, sizeof val);
    if (!strcmp(val, "offset"))
        out->resync = ST_RESYNC_OFFSET;
    else if (!strcmp(val, "full"))
        out->resync = ST_RESYNC_FULL;
    else
        return fail(ps, "bad value '%s' for resync", val, "resync=offset|full");
    if (*ps->p != ')')
        return fail(ps, "expected ')' after %s", "resync=...", "one option: resync=offset|full");
    ps->p++;
    return 0;
}

int st_sync_spec_parse(const char *s, const st_sync_alg_info_t *algs, st_sync_spec_t *out, char *err,
                       size_t errlen)
{
    parser_t ps = { s, s, algs, err, errlen };
    st_sync_spec_t r;
    memset(&r, 0, sizeof r);
    r.resync = ST_RESYNC_OFFSET;
    char word[32];
    const char *start = ps.p;
    ident(&ps, word, sizeof word);
    int scheme = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(word, scheme_names[i]))
            scheme = i;
    if (scheme == ST_SCHEME_NONE && !*ps.p) {
        r.scheme = ST_SCHEME_NONE;
        *out = r;
        return 0;
    }
    if (scheme > ST_SCHEME_NONE) {
        if (*ps.p == '(' && parse_scheme_opts(&ps, &r) != 0)
            return -1;
        const char *lv = default_levels[scheme];
        if (*ps.p == ':') {
            ps.p++;
            lv = NULL;
        } else if (*ps.p) {
            return fail(&ps, "unexpected '%s' after the scheme", ps.p, "SCHEME[(resync=offset|full)][:LEVEL/...]");
        }
        if (lv) { /* defaults of the scheme, parsed like user input */
            parser_t d = { lv, lv, algs, err, errlen };
            if (parse_levels(&d, &r) != 0)
                return -1;
        } else if (parse_levels(&ps, &r) != 0) {
            return -1;
        }
        if (r.nlevels != scheme_levels[scheme]) {
            char n[8];
            snprintf(n, sizeof n, "%d", scheme_levels[scheme]);
            return fail(&ps, "scheme needs exactly %s level(s)", n, "flat:ALG, h2hca:ALG/ALG, h3hca:ALG/ALG/ALG");
        }
        r.scheme = scheme;
    } else {
        ps.p = start;
        if (parse_levels(&ps, &r) != 0)
            return -1;
        r.scheme = r.nlevels; /* 1 flat, 2 h2hca, 3 h3hca */
    }
    if (*ps.p)
        return fail(&ps, "unexpected '%s'", ps.p, "levels separated by '/', options in '(...)' separated by ','");
    *out = r;
    return 0;
}

void st_sync_spec_format(const st_sync_spec_t *sp, char *buf, size_t len)
{
    size_t n = 0;
#define OUT(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
    buf[0] = 0;
    OUT("%s", scheme_names[sp->scheme]);
    if (sp->scheme == ST_SCHEME_NONE)
        return;
    if (sp->resync == ST_RESYNC_FULL)
        OUT("(resync=full)");
    for (int i = 0; i < sp->nlevels; i++) {
        const st_sync_level_spec_t *l = &sp->level[i];
        OUT("%c%s", i ? '/' : ':', l->alg);
        char opts[128] = "";
        size_t m = 0;
#define OPT(...) (m += (size_t)snprintf(opts + m, m < sizeof opts ? sizeof opts - m : 0, __VA_ARGS__))
        if (l->nfit >= 0) OPT(",fit=%d", l->nfit);
        if (l->npp >= 0) OPT(",pp=%d", l->npp);
        if (l->offset >= 0) OPT(",offset=%s", l->offset == ST_OFFSET_MEANRTT ? "meanrtt" : "skampi");
        if (l->intercept >= 0) OPT(",intercept=%d", l->intercept);
        if (l->check >= 0) OPT(",check=%d", l->check);
        if (l->lsq >= 0) OPT(",lsq=%d", l->lsq);
        if (l->window_ms >= 0) OPT(",window=%g", l->window_ms);
#undef OPT
        if (opts[0])
            OUT("(%s)", opts + 1);
    }
#undef OUT
}
